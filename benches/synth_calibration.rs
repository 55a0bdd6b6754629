//! Calibration of the synthetic archive against the real gold set (`harness = false`):
//! `cargo bench --bench synth_calibration`.
//!
//! Prints, as Markdown table rows, the SpotSigs multiset-Jaccard quantiles (50/90/99/max) of
//! same-story pairs, other-story same-site pairs and other-story other-site pairs
//! ([`samecore::synth::calibrate`]) for:
//! 1. goldset-dev (`../shared/data/goldset-dev`; skipped when absent, a failure with
//!    `SAMECORE_REQUIRE_SHARED=1`);
//! 2. the committed sample (`sample_archives/news-sample.warc.gz` + `.gold.tsv`);
//! 3. a freshly generated archive of `SAMECORE_CALIBRATE_PAGES` pages (default 400; 0 skips)
//!    with seed `SAMECORE_CALIBRATE_SEED` (default 1) — what a regenerated sample would give.
//!
//! With `SAMECORE_CALIBRATE_TOP=N` it also lists each collection's N most widespread spot
//! signatures with the share of documents carrying them.

/// `../shared` data, skipped when absent (a failure with `SAMECORE_REQUIRE_SHARED=1`).
#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use samecore::archive::{ReadOptions, load};
use samecore::eval::GoldStandard;
use samecore::progress::Progress;
use samecore::synth::calibrate::{Calibration, calibrate, common_signatures};
use samecore::synth::{self, SynthOptions};

fn measure(name: &str, paths: &[PathBuf], gold: Option<&Path>) {
    let t = Instant::now();
    let coll = load(paths, &ReadOptions::default(), &Progress::new()).expect("load");
    let gold = match gold {
        Some(path) => GoldStandard::read(path, &coll.docs).expect("gold file"),
        None => GoldStandard::from_documents(&coll.docs),
    };
    let c: Calibration = calibrate(&coll.docs, &gold.cluster_of).expect("calibrate");
    eprintln!(
        "{name}: {} documents, {} sites, {} clusters ({:.1} s)",
        c.documents,
        c.sites,
        gold.names.len(),
        t.elapsed().as_secs_f64()
    );
    print!("{}", c.table_rows(name));
    let top = env_u64("SAMECORE_CALIBRATE_TOP", 0) as usize;
    if top > 0 {
        let n = coll.docs.len() as f64;
        let common = common_signatures(&coll.docs, top).expect("signatures");
        let list: Vec<String> = common
            .iter()
            .map(|(text, df)| format!("{text} {:.0}%", 100.0 * *df as f64 / n))
            .collect();
        eprintln!("{name}: most widespread signatures: {}", list.join(", "));
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    println!("| collection | pairs | n | p50 | p90 | p99 | max |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    if let Some(goldset) = common::goldset() {
        measure("goldset-dev", &[goldset], None);
    }
    let sample = root.join("sample_archives/news-sample.warc.gz");
    measure(
        "committed sample",
        &[sample],
        Some(&root.join("sample_archives/news-sample.gold.tsv")),
    );
    let pages = env_u64("SAMECORE_CALIBRATE_PAGES", 400);
    if pages > 0 {
        let seed = env_u64("SAMECORE_CALIBRATE_SEED", 1);
        let dir = tempfile::tempdir().expect("temp dir");
        let warc = dir.path().join("fresh.warc.gz");
        let gold = dir.path().join("fresh.gold.tsv");
        let options = SynthOptions {
            seed,
            pages: Some(pages),
            ..SynthOptions::default()
        };
        let mut out = std::fs::File::create(&warc).expect("create");
        let mut gold_out = std::fs::File::create(&gold).expect("create");
        synth::write_warc(
            &options,
            "fresh.warc.gz",
            &mut out,
            Some(&mut gold_out),
            &Progress::new(),
        )
        .expect("generate");
        measure(
            &format!("fresh seed {seed}, {pages} pages"),
            &[warc],
            Some(&gold),
        );
    }
}
