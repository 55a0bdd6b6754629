//! SpotSigs benchmarks (plain `std::time`, `harness = false`): `cargo bench --bench spotsigs`.
//!
//! 1. One default run on goldset-dev, parsing included (load + signatures + incremental match).
//! 2. The full sweep: 17 thresholds × 3 seeds, incremental best guess, on the rayon pool
//!    (target: under 2 s wall on the 2-core machine).
//! 3. All-pairs on a synthetic archive (`samecore::synth`, `SAMECORE_BENCH_PAGES` pages,
//!    default 100,000; 0 skips): load + signatures + all pairs at the default threshold (or
//!    `SAMECORE_BENCH_THRESHOLD`).
//!
//! Every timed loop asserts known counts and the quality bar, so a fast wrong answer fails.
//! goldset-dev parts skip when `../shared` is absent (fail with `SAMECORE_REQUIRE_SHARED=1`).

/// `../shared` data, skipped when absent (a failure with `SAMECORE_REQUIRE_SHARED=1`).
#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use samecore::archive::{ReadOptions, load};
use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
use samecore::eval::{GoldStandard, evaluate, parse_thresholds, sweep};
use samecore::matching::Mode;
use samecore::progress::Progress;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn goldset_benches(path: PathBuf) {
    let iterations = 3;
    let mut default_run = Vec::new();
    for _ in 0..iterations {
        let t = Instant::now();
        let coll = load(
            std::slice::from_ref(&path),
            &ReadOptions::default(),
            &Progress::new(),
        )
        .unwrap();
        let gold = GoldStandard::from_documents(&coll.docs);
        let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
        let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
        let d = prep
            .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
            .unwrap();
        let m = evaluate(&d.clustering, &gold.cluster_of);
        default_run.push(t.elapsed().as_secs_f64());
        assert_eq!(coll.docs.len(), 1117);
        assert_eq!(gold.names.len(), 34);
        assert!(
            m.pairwise.f1 >= 0.88 && m.document.precision >= 0.95,
            "{m:?}"
        );
    }
    let coll = load(&[path], &ReadOptions::default(), &Progress::new()).unwrap();
    let gold = GoldStandard::from_documents(&coll.docs);
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let t = Instant::now();
    let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
    let sign = t.elapsed().as_secs_f64();
    let thresholds = parse_thresholds("0.1:0.9:0.05").unwrap();
    let base = RunSpec::default_for(Algo::SpotSigs);
    let mut sweeps = Vec::new();
    for _ in 0..iterations {
        let t = Instant::now();
        let rows = sweep(
            &*prep,
            &base,
            &thresholds,
            &[0, 1, 2],
            &gold.cluster_of,
            &Progress::new(),
        )
        .unwrap();
        sweeps.push(t.elapsed().as_secs_f64());
        assert_eq!(rows.len(), 17);
        assert!(rows.iter().all(|r| r.runs == 3));
        let at_default = rows
            .iter()
            .find(|r| (r.threshold - base.matching.threshold).abs() < 1e-9)
            .unwrap();
        assert!(at_default.mean.pairwise.f1 >= 0.88, "{at_default:?}");
    }
    let (run, sw) = (median(default_run), median(sweeps));
    println!(
        "goldset-dev: default run (load+sign+match) {run:.3} s; signatures alone {sign:.3} s; \
         sweep 17x3 {sw:.3} s (threads {}); sweep / default run = {:.2}",
        rayon::current_num_threads(),
        sw / run
    );
}

fn synth_bench(pages: u64) {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("bench.warc.gz");
    let gold_path = dir.path().join("bench.gold.tsv");
    let t = Instant::now();
    let report = {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&warc).unwrap());
        let mut gold = std::io::BufWriter::new(std::fs::File::create(&gold_path).unwrap());
        let options = samecore::synth::SynthOptions {
            pages: Some(pages),
            ..Default::default()
        };
        samecore::synth::write_warc(
            &options,
            "bench.warc.gz",
            &mut out,
            Some(&mut gold),
            &Progress::new(),
        )
        .unwrap()
    };
    println!(
        "synth: {} pages + {} revisits, {} gold clusters generated in {:.1} s (not timed below)",
        report.pages,
        report.revisits,
        report.clusters,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let coll = load(&[warc], &ReadOptions::default(), &Progress::new()).unwrap();
    let loaded = t.elapsed().as_secs_f64();
    // Resolved revisits are documents too (the gold file lists them in their page's cluster).
    assert_eq!(coll.docs.len() as u64, report.pages + report.revisits);
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
    let signed = t.elapsed().as_secs_f64() - loaded;
    let mut spec = RunSpec::default_for(Algo::SpotSigs);
    spec.matching.mode = Mode::AllPairs;
    if let Some(t) = std::env::var("SAMECORE_BENCH_THRESHOLD")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        spec.matching.threshold = t;
    }
    let t2 = Instant::now();
    let d = prep.detect(&spec, &Progress::new()).unwrap();
    let matched = t2.elapsed().as_secs_f64();
    let gold = GoldStandard::read(&gold_path, &coll.docs).unwrap();
    assert_eq!(gold.labelled(), coll.docs.len());
    let m = evaluate(&d.clustering, &gold.cluster_of);
    assert!(d.outcome.pairs_complete && !d.pairs().is_empty());
    println!(
        "synth all-pairs: load {loaded:.2} s, signatures {signed:.2} s, all pairs {matched:.2} s; \
         {} pairs >= {}, {} comparisons ({} avoided); pairwise F1 {:.3}, document P {:.3} R {:.3}",
        d.pairs().len(),
        spec.matching.threshold,
        d.outcome.trace.comparisons(),
        d.outcome.trace.avoided(),
        m.pairwise.f1,
        m.document.precision,
        m.document.recall
    );
}

fn main() {
    if let Some(path) = common::goldset() {
        goldset_benches(path);
    }
    let pages: u64 = std::env::var("SAMECORE_BENCH_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    if pages > 0 {
        synth_bench(pages);
    }
}
