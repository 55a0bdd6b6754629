//! Henzinger-style counts on real web archives (`harness = false`), SIGIR 2006 §3:
//!
//! ```text
//! cargo bench --bench henzinger_counts -- [ARCHIVE...]
//! ```
//!
//! Default input: every file of `../shared/data/warc` together, then each alone (skipped when
//! absent; fails with `SAMECORE_REQUIRE_SHARED=1`). For Alg. B (B-similar: ≥ 2 of 6 equal
//! supershingles), Alg. C (C-similar: ≥ 372 of 384 bits) and the combined algorithm (B-similar
//! and C-similarity ≥ 355) it prints the number of pairs, their same-site / different-site
//! breakdown (Henzinger's site rule), pairs per B-similarity (Table 3) and per C-similarity band
//! (Table 5, down to 355), the degree distribution of the B- and C-similarity graphs (Figs. 1
//! and 3) and the time of each detector. Counts are checked against each other inside the run:
//! the combined pairs must be a subset of the B-similar pairs. It also prints Shivakumar &
//! Garcia-Molina's Fig. 1, the replica-count histogram, for exact copies, 4-line chunks (T = 15)
//! and 2-line chunks (T = 25).

/// `../shared` data, skipped when absent (a failure with `SAMECORE_REQUIRE_SHARED=1`).
#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use samecore::Document;
use samecore::archive::{ReadOptions, load};
use samecore::cluster::ClusterRule;
use samecore::detectors::report::{
    c_similarity_band, degree_distribution, pairs_per_value, site_breakdown,
};
use samecore::detectors::simhash::SimhashCandidates;
use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
use samecore::matching::ScoredPair;
use samecore::matching::chunk_overlap::{REPLICA_BUCKETS, replica_histogram};
use samecore::progress::Progress;
use samecore::signature::chunks::Chunking;

fn pairs_of(algo: Algo, threshold: f64, docs: &[Document]) -> (Vec<ScoredPair>, f64) {
    let t = Instant::now();
    // Candidates by 12 pieces of 32 bits, as Henzinger found hers (§3.3): below 373 agreeing
    // bits a pair counts when the pieces bring it up, which keeps big archives linear.
    let mut options = DetectorOptions::default();
    options.simhash.candidates = SimhashCandidates::Pieces;
    options.simhash64.candidates = SimhashCandidates::Pieces;
    let det = detectors::detector(algo, &options).unwrap();
    let prep = det.prepare(docs, &Progress::new()).unwrap();
    let mut spec = RunSpec::default_for(algo);
    spec.matching.threshold = threshold;
    let d = prep.detect(&spec, &Progress::new()).unwrap();
    (d.outcome.pairs, t.elapsed().as_secs_f64())
}

fn show(name: &str, docs: &[Document], pairs: &[ScoredPair], secs: f64) {
    let s = site_breakdown(docs, pairs);
    println!(
        "  {name}: {} pairs ({} same site, {} different site, {} unknown; same-site share {:.2}) in {secs:.3} s",
        pairs.len(),
        s.same_site,
        s.different_site,
        s.unknown,
        s.same_site_share()
    );
}

fn degrees(label: &str, n: usize, pairs: &[ScoredPair]) {
    let d = degree_distribution(n, pairs);
    let text: Vec<String> = d.iter().map(|(deg, c)| format!("{deg}:{c}")).collect();
    println!(
        "  degree distribution of the {label} graph (degree:documents): {}",
        text.join(" ")
    );
}

fn report(title: &str, paths: &[PathBuf]) {
    let coll = load(paths, &ReadOptions::default(), &Progress::new()).unwrap();
    let docs = &coll.docs;
    println!("{title}: {} pages", docs.len());
    let (b_pairs, b_secs) = pairs_of(Algo::Shingles, 2.0 / 6.0, docs);
    let (c_low, c_secs) = pairs_of(Algo::Simhash, 355.0 / 384.0, docs);
    let c_pairs: Vec<ScoredPair> = c_low
        .iter()
        .filter(|p| p.score >= 372.0 / 384.0)
        .copied()
        .collect();
    let (combined, k_secs) = pairs_of(Algo::Combined, 355.0 / 384.0, docs);
    let b_set: std::collections::HashSet<_> = b_pairs.iter().map(|p| (p.a, p.b)).collect();
    assert!(combined.iter().all(|p| b_set.contains(&(p.a, p.b))));
    show("Alg. B, B-similar (>= 2 of 6)", docs, &b_pairs, b_secs);
    show("Alg. C, C-similar (>= 372 of 384)", docs, &c_pairs, c_secs);
    show("combined (B-similar, C >= 355)", docs, &combined, k_secs);
    let per_b = pairs_per_value(&b_pairs, |p| (p.score * 6.0).round() as u32);
    let text: Vec<String> = per_b.iter().map(|(b, c)| format!("B={b}:{c}")).collect();
    println!("  pairs per B-similarity: {}", text.join(" "));
    let per_c = pairs_per_value(&c_low, |p| c_similarity_band(p.score));
    let text: Vec<String> = per_c.iter().map(|(b, c)| format!("{b}:{c}")).collect();
    println!("  pairs per C-similarity band (>= 355): {}", text.join(" "));
    degrees("B-similarity", docs.len(), &b_pairs);
    degrees("C-similarity", docs.len(), &c_pairs);
    for (chunking, t) in [
        (Chunking::WholeDocument, 1),
        (Chunking::Lines(4), 15),
        (Chunking::Lines(2), 25),
    ] {
        let mut options = DetectorOptions::default();
        options.chunks.chunking = chunking;
        options.chunks.min_shared = t;
        let prep = detectors::detector(Algo::Chunks, &options)
            .unwrap()
            .prepare(docs, &Progress::new())
            .unwrap();
        let mut spec = RunSpec::default_for(Algo::Chunks);
        spec.matching.threshold = 0.0;
        spec.rule = ClusterRule::Transitive;
        let d = prep.detect(&spec, &Progress::new()).unwrap();
        let sizes: Vec<usize> = d.clustering.members().iter().map(Vec::len).collect();
        let replicas: Vec<usize> = d
            .clustering
            .cluster_of
            .iter()
            .map(|&c| sizes[c as usize])
            .collect();
        let h = replica_histogram(&replicas);
        let text: Vec<String> = REPLICA_BUCKETS
            .iter()
            .zip(h)
            .map(|(b, c)| format!("{b}:{c}"))
            .collect();
        println!(
            "  replicas per page, {} (T = {t}): {}",
            chunking.name(),
            text.join(" ")
        );
    }
}

fn main() {
    let args: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .map(PathBuf::from)
        .collect();
    if !args.is_empty() {
        report("given archives", &args);
        return;
    }
    let Some(dir) = common::shared("data/warc") else {
        return;
    };
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    report("all WARC files of ../shared/data/warc", &files);
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        report(&name, std::slice::from_ref(f));
    }
}
