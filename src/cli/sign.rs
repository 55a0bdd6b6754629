//! `samecore sign ARCHIVE… --out DIR`: sign pages for matching past one machine. Per input,
//! Parquet shards of pages and signatures and a manifest
//! ([`samecore::export::shard`]), for the Spark job in `spark/`, whose pairs come back with
//! `samecore import-pairs`. Inputs given together are read together (so revisits resolve across
//! them) and written one shard per input; a shell loop or Spark workers can sign files apart.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use samecore::detectors::Algo;
use samecore::detectors::scored::page_term_hashes;
use samecore::detectors::spotsigs::SpotSigsDetector;
use samecore::export::shard::{self, SIGN_FORMAT, SIGN_VERSION, ShardPage, SignManifest};
use samecore::signature::shingles::minhash_vectors;

/// Arguments of `samecore sign`.
#[derive(Debug, Args)]
pub struct SignArgs {
    /// WARC, ARC, WACZ files, folders or zips of pages; one shard each.
    #[arg(required = true)]
    pub archives: Vec<PathBuf>,
    /// Folder for the shards (created when missing); a shard already there is replaced.
    #[arg(long)]
    pub out: PathBuf,
    /// spotsigs (multisets of spot signatures) or minhash (min-values per permutation).
    #[arg(long, default_value = "spotsigs", value_parser = super::literature::algo_parser())]
    pub algo: Algo,
    /// Gold clusters as `doc,cluster` (TSV or CSV) for archives that are not folders.
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// SpotSigs options.
    #[command(flatten)]
    pub spotsigs: super::run::SpotSigsArgs,
    /// Options of the other detectors (MinHash's).
    #[command(flatten)]
    pub literature: super::literature::DetectorArgs,
}

/// Run `samecore sign`.
pub fn run(mut args: SignArgs) -> anyhow::Result<()> {
    // A folder of archives signs as its archives: one shard per file.
    args.archives = samecore::archive::expand_folders_of_archives(&args.archives)?;
    anyhow::ensure!(
        matches!(args.algo, Algo::SpotSigs | Algo::MinHash),
        "sign writes spotsigs or minhash signatures, not {}",
        args.algo.name()
    );
    // One shard per input, named after it: two inputs of one name would overwrite each other.
    let mut names = HashSet::new();
    let mut shard_names = Vec::new();
    for a in &args.archives {
        let name = a
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("{} has no file name", a.display()))?;
        anyhow::ensure!(
            names.insert(name.clone()),
            "two inputs are named {name:?}: sign them into different --out folders"
        );
        shard_names.push(name);
    }
    // No shard may replace an archive or the gold: the folder and every file it will hold.
    let mut inputs = samecore::guard::Inputs::new().archives(&args.archives);
    if let Some(gold) = &args.gold {
        inputs = inputs.input(gold);
    }
    inputs.check(&args.out, "--out")?;
    for name in &shard_names {
        for path in shard::shard_paths(&args.out, name) {
            inputs.check(&path, "--out")?;
        }
    }
    let options = args.literature.options(args.spotsigs.params()?)?;
    let started = Instant::now();
    // Signed while read: no page text is held and each record is decompressed once.
    let spotsigs = SpotSigsDetector::new(&options.spotsigs)?;
    let o = &options.minhash;
    // Per page: its signatures (rows) and their number, and its site.
    let (collection, spot, minhash, params) = match args.algo {
        Algo::SpotSigs => {
            let (collection, raw) = super::run::load_with(&args.archives, false, &|d, text| {
                spotsigs.raw_page(d, text)
            })?;
            let params = serde_json::to_value(&options.spotsigs)?;
            (collection, raw, Vec::new(), params)
        }
        _ => {
            let (collection, tokens) = super::run::load_with(&args.archives, false, &|d, text| {
                page_term_hashes(o.tokens, d, text)
            })?;
            let values = minhash_vectors(&tokens, o.k, o.perm, o.seed);
            (collection, Vec::new(), values, serde_json::to_value(o)?)
        }
    };
    let docs = &collection.docs;
    let (gold, _) = super::run::find_gold(&args.archives, docs, args.gold.as_deref())?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;

    let ids: Vec<i64> = docs.iter().map(|d| shard::page_id(&d.capture())).collect();
    let signatures = |i: usize| -> i64 {
        match args.algo {
            Algo::SpotSigs => spot[i].hashes.len() as i64,
            _ => minhash[i].len() as i64,
        }
    };
    // Documents come in input order; each input's report counts its documents.
    let counts: Vec<usize> = collection
        .reports
        .iter()
        .map(|r| r.documents as usize)
        .collect();
    anyhow::ensure!(
        counts.len() == args.archives.len() && counts.iter().sum::<usize>() == docs.len(),
        "the readers' reports do not add up to the pages read"
    );
    // One lookup per file, not per page.
    let mut files: std::collections::HashMap<std::sync::Arc<std::path::Path>, String> =
        Default::default();
    let mut absolute = |file: &std::sync::Arc<std::path::Path>| -> String {
        (files.entry(file.clone()))
            .or_insert_with(|| shard::absolute_name(file))
            .clone()
    };
    let mut start = 0;
    let mut out = std::io::stdout().lock();
    for ((input, name), &count) in args.archives.iter().zip(&shard_names).zip(&counts) {
        let range = start..start + count;
        start += count;
        let [pages_path, sigs_path, manifest_path] = shard::shard_paths(&args.out, name);
        let pages: Vec<ShardPage> = range
            .clone()
            .map(|i| {
                let file = absolute(&docs[i].location.file);
                ShardPage::of(&docs[i], file, gold.name_of(i), signatures(i))
            })
            .collect();
        samecore::export::write_file(&pages, &pages_path, None)
            .with_context(|| format!("cannot write {}", pages_path.display()))?;
        let rows = match args.algo {
            Algo::SpotSigs => {
                let hashes: Vec<&[u64]> = range.clone().map(|i| &spot[i].hashes[..]).collect();
                shard::write_spotsigs(&sigs_path, &ids[range.clone()], &hashes)
            }
            _ => shard::write_minhash(&sigs_path, &ids[range.clone()], &minhash[range.clone()]),
        }
        .with_context(|| format!("cannot write {}", sigs_path.display()))?;
        let manifest = SignManifest {
            format: SIGN_FORMAT.to_string(),
            version: SIGN_VERSION,
            algo: args.algo.name().to_string(),
            input: std::fs::canonicalize(input)
                .unwrap_or_else(|_| input.clone())
                .display()
                .to_string(),
            pages: pages.len(),
            signature_rows: rows,
            params: params.clone(),
            samecore: env!("CARGO_PKG_VERSION").to_string(),
        };
        std::fs::write(
            &manifest_path,
            serde_json::to_string_pretty(&manifest)? + "\n",
        )
        .with_context(|| format!("cannot write {}", manifest_path.display()))?;
        writeln!(
            out,
            "{}: {} pages, {} signature rows -> {}",
            input.display(),
            pages.len(),
            rows,
            sigs_path.display()
        )?;
    }
    let secs = started.elapsed().as_secs_f64();
    let bytes: u64 = collection.reports.iter().map(|r| r.bytes).sum();
    writeln!(
        out,
        "signed {} pages of {} input(s) in {secs:.2} s ({:.1} MB/s)",
        docs.len(),
        args.archives.len(),
        bytes as f64 / 1e6 / secs.max(1e-9)
    )?;
    Ok(())
}
