//! MinHash + LSH timing on the same tokens datasketch gets (`harness = false`):
//!
//! ```text
//! cargo bench --bench minhash_lsh -- ARCHIVE... [--gold FILE] [--threshold 0.4] [--k 4]
//!     [--perm 128] [--bands B] [--tokens text] [--repeat 3] [--seed 0] [--tokens-out FILE]
//!     [--pairs-out FILE]
//! ```
//!
//! Without an archive it runs on goldset-dev (skipped when `../shared` is absent, failing with
//! `SAMECORE_REQUIRE_SHARED=1`). Tokenizing is done once and not timed; the timed part starts
//! from the term *strings* — term hashing, `k`-shingles, `perm` min-values, LSH bands chosen for
//! the threshold as datasketch does, candidate pairs, and the Jaccard-estimate check — exactly
//! the work `benches/datasketch_compare.py` times on the datasketch side. Every repetition must
//! give the same pairs (asserted inside the loop). Prints one JSON object; `--tokens-out` writes
//! the terms as JSON lines (`{"gold": …, "terms": […]}`) for the Python side, `--pairs-out` the
//! pairs as `a<TAB>b<TAB>estimate`. The same work is then timed from the pages' shingles (made
//! before the timer, as `benches/rensa_compare.py` gives rensa its shingle strings):
//! `from_shingles_seconds_all`.

/// `../shared` data, skipped when absent (a failure with `SAMECORE_REQUIRE_SHARED=1`).
#[path = "../tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use samecore::DocId;
use samecore::archive::{ReadOptions, load};
use samecore::cluster::Clustering;
use samecore::eval::{GoldStandard, evaluate};
use samecore::matching::lsh::{Banding, lsh_candidates, optimal_bands};
use samecore::progress::Progress;
use samecore::signature::shingles::{MinHash32, jaccard_estimate, minhash_vectors, shingles};
use samecore::token::{TokenSource, term_hash};

struct Args {
    archives: Vec<PathBuf>,
    gold: Option<PathBuf>,
    threshold: f64,
    k: usize,
    perm: usize,
    tokens: TokenSource,
    repeat: usize,
    seed: u64,
    tokens_out: Option<PathBuf>,
    pairs_out: Option<PathBuf>,
    /// Bands (rows: `perm / bands`) instead of datasketch's choice for the threshold.
    bands: Option<usize>,
}

fn parse_args() -> Args {
    let mut a = Args {
        archives: Vec::new(),
        gold: None,
        threshold: 0.4,
        k: 4,
        perm: 128,
        tokens: TokenSource::Text,
        repeat: 3,
        seed: 0,
        tokens_out: None,
        pairs_out: None,
        bands: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--bench" => {}
            "--gold" => a.gold = Some(value().into()),
            "--threshold" => a.threshold = value().parse().unwrap(),
            "--k" => a.k = value().parse().unwrap(),
            "--perm" => a.perm = value().parse().unwrap(),
            "--tokens" => a.tokens = value().parse().unwrap(),
            "--repeat" => a.repeat = value().parse().unwrap(),
            "--seed" => a.seed = value().parse().unwrap(),
            "--tokens-out" => a.tokens_out = Some(value().into()),
            "--pairs-out" => a.pairs_out = Some(value().into()),
            "--bands" => a.bands = Some(value().parse().unwrap()),
            other => a.archives.push(other.into()),
        }
    }
    a
}

/// The terms of one page as they are kept between tokenizing and the timed part: one string,
/// terms separated by a space (no term contains one). A `Vec<String>` per page cost 10.8 GB on
/// the 100k-page archive; this costs about the text's size.
struct Terms(String);

impl Terms {
    fn new(terms: Vec<String>) -> Terms {
        debug_assert!(terms.iter().all(|t| !t.contains(' ')));
        Terms(terms.join(" "))
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.split(' ').filter(|t| !t.is_empty())
    }
}

/// The bands asked for, else datasketch's choice for the threshold.
fn banding(a: &Args) -> Banding {
    match a.bands {
        Some(bands) => Banding {
            bands,
            rows: a.perm / bands.max(1),
        },
        None => optimal_bands(a.threshold, a.perm, 0.5, 0.5).unwrap(),
    }
}

/// The timed part: term strings in, verified pairs `(a, b, estimate)` out.
fn minhash_lsh(terms: &[Terms], a: &Args) -> (Vec<(u32, u32, f64)>, usize) {
    let hashes: Vec<Vec<u64>> = terms
        .par_iter()
        .map(|t| t.iter().map(term_hash).collect())
        .collect();
    lsh_pairs(&minhash_vectors(&hashes, a.k, a.perm, a.seed), a)
}

/// The timed part from the pages' shingles (made before the timer, as rensa's shingle strings
/// are): signatures, LSH, verification.
/// Also the seconds of its three stages: min-values, LSH candidates, verification.
fn minhash_lsh_from_shingles(
    shingles: &[Vec<u64>],
    a: &Args,
) -> (Vec<(u32, u32, f64)>, usize, [f64; 3]) {
    let t = Instant::now();
    let functions = MinHash32::new(a.perm, a.seed);
    let signatures: Vec<Vec<u32>> = shingles
        .par_iter()
        .map(|s| functions.min_values(s))
        .collect();
    let minhash = t.elapsed().as_secs_f64();
    let (pairs, candidates, [lsh, verify]) = lsh_pairs_timed(&signatures, a);
    (pairs, candidates, [minhash, lsh, verify])
}

/// LSH candidates of `signatures` and those whose estimate reaches the threshold.
fn lsh_pairs(signatures: &[Vec<u32>], a: &Args) -> (Vec<(u32, u32, f64)>, usize) {
    let (pairs, candidates, _) = lsh_pairs_timed(signatures, a);
    (pairs, candidates)
}

/// [`lsh_pairs`] with the seconds of its two stages: candidates, verification.
fn lsh_pairs_timed(signatures: &[Vec<u32>], a: &Args) -> (Vec<(u32, u32, f64)>, usize, [f64; 2]) {
    let t = Instant::now();
    let banding = banding(a);
    let candidates = lsh_candidates(signatures, &banding);
    let lsh = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let pairs: Vec<(u32, u32, f64)> = candidates
        .par_iter()
        .filter_map(|&(x, y)| {
            let s = jaccard_estimate(&signatures[x as usize], &signatures[y as usize]);
            (s >= a.threshold).then_some((x, y, s))
        })
        .collect();
    let verify = t.elapsed().as_secs_f64();
    (pairs, candidates.len(), [lsh, verify])
}

fn main() {
    let mut args = parse_args();
    if args.archives.is_empty() {
        match common::goldset() {
            Some(p) => args.archives.push(p),
            None => return,
        }
    }
    let t_load = Instant::now();
    let coll = load(&args.archives, &ReadOptions::default(), &Progress::new()).unwrap();
    let gold = match &args.gold {
        Some(g) => GoldStandard::read(g, &coll.docs).unwrap(),
        None => GoldStandard::from_documents(&coll.docs),
    };
    let load_secs = t_load.elapsed().as_secs_f64();
    let t_tok = Instant::now();
    let terms: Vec<Terms> = coll
        .docs
        .par_iter()
        .map(|d| Terms::new(args.tokens.terms(&d.html.text(), d.url.as_deref())))
        .collect();
    let token_secs = t_tok.elapsed().as_secs_f64();
    let n = coll.docs.len();
    // The pages themselves are not needed any more (gold is resolved): free them before timing.
    drop(coll);
    if let Some(path) = &args.tokens_out {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        for (d, t) in terms.iter().enumerate() {
            let g = gold.cluster_of[d].map(|c| gold.names[c as usize].clone());
            let t: Vec<&str> = t.iter().collect();
            let line = serde_json::json!({ "gold": g, "terms": t });
            writeln!(out, "{line}").unwrap();
        }
    }
    let mut times = Vec::new();
    let mut result = None;
    for _ in 0..args.repeat.max(1) {
        let t = Instant::now();
        let (pairs, candidates) = minhash_lsh(&terms, &args);
        times.push(t.elapsed().as_secs_f64());
        if let Some((ref first, _)) = result {
            assert_eq!(first, &pairs, "MinHash-LSH is not deterministic");
        }
        result = Some((pairs, candidates));
    }
    let (pairs, candidates) = result.unwrap_or_default();
    // The same from the shingles: the same pairs.
    let shingled: Vec<Vec<u64>> = terms
        .par_iter()
        .map(|t| shingles(&t.iter().map(term_hash).collect::<Vec<_>>(), args.k))
        .collect();
    let mut from_shingles = Vec::new();
    let mut stages: Vec<[f64; 3]> = Vec::new();
    for _ in 0..args.repeat.max(1) {
        let t = Instant::now();
        let (again, _, stage) = minhash_lsh_from_shingles(&shingled, &args);
        from_shingles.push(t.elapsed().as_secs_f64());
        stages.push(stage);
        assert_eq!(again, pairs, "from the shingles, other pairs");
    }
    from_shingles.sort_by(f64::total_cmp);
    // Each stage's median over the repeats.
    let stage_median = |i: usize| {
        let mut v: Vec<f64> = stages.iter().map(|s| s[i]).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    if let Some(path) = &args.pairs_out {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        for (a, b, s) in &pairs {
            writeln!(out, "{a}\t{b}\t{s}").unwrap();
        }
    }
    let no_match = vec![None; n];
    let rank: Vec<u32> = (0..n as u32).collect();
    let clustering = Clustering::transitive(
        pairs.iter().map(|&(a, b, _)| (DocId(a), DocId(b))),
        &no_match,
        &rank,
    );
    let m = evaluate(&clustering, &gold.cluster_of);
    times.sort_by(f64::total_cmp);
    let banding = banding(&args);
    let summary = serde_json::json!({
        "pages": n,
        "threads": rayon::current_num_threads(),
        "threshold": args.threshold,
        "k": args.k,
        "perm": args.perm,
        "seed": args.seed,
        "bands": banding.bands,
        "rows": banding.rows,
        "load_seconds": load_secs,
        "token_seconds": token_secs,
        "minhash_lsh_seconds_median": times[times.len() / 2],
        "minhash_lsh_seconds_all": times,
        "from_shingles_seconds_all": from_shingles,
        "from_shingles_stage_medians": {
            "minhash": stage_median(0),
            "lsh_candidates": stage_median(1),
            "verification": stage_median(2),
        },
        "candidates": candidates,
        "pairs": pairs.len(),
        "gold_known": gold.is_known(),
        "pair_p": m.pairwise.precision,
        "pair_r": m.pairwise.recall,
        "pair_f1": m.pairwise.f1,
    });
    println!("{summary}");
}
