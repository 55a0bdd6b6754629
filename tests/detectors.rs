//! The detectors of the literature end to end: shingles, minhash, simhash, simhash64,
//! combined, chunks and projection on documents built in memory, and on goldset-dev when it is
//! there (skipped when absent unless `SAMECORE_REQUIRE_SHARED=1`): clusters, determinism across
//! rayon pool sizes, candidate schemes against exhaustive scans, cancel, and the quality each
//! reaches at its default threshold.

use samecore::detectors::simhash::SimhashCandidates;
use samecore::detectors::{self, Algo, DetectorOptions, Prepared, RunSpec};
use samecore::eval::{GoldStandard, evaluate};
use samecore::matching::Mode;
use samecore::matching::chunk_overlap::{coarse_counting, sort_based};
use samecore::progress::Progress;
use samecore::signature::chunks::{Chunking, page_chunks};
use samecore::{Document, Error};

mod common;

/// Every detector but SpotSigs: the literature's.
fn literature() -> impl Iterator<Item = Algo> {
    self_contained().filter(|&a| a != Algo::SpotSigs)
}

/// Every detector of the registry that works on pages alone. `spotsigs-reference` re-reads raw
/// page files and needs the published code's stopword list: `tests/spotsigs_reference.rs`.
fn self_contained() -> impl Iterator<Item = Algo> {
    Algo::ALL
        .into_iter()
        .filter(|&a| a != Algo::SpotSigsReference)
}

fn doc(key: &str, gold: &str, url: &str, html: String) -> Document {
    let mut doc = Document::from_page(key, Some(url), html);
    doc.gold = Some(gold.into());
    doc
}

/// A deterministic pseudo-random word stream over a 20,000-word vocabulary.
fn words(seed: u64, n: usize) -> Vec<String> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("w{}", x % 20_000)
        })
        .collect()
}

/// `stories` pages, each captured `copies` times on different hosts; copies differ only by what
/// Henzinger calls a correct near-duplicate difference (a session id). All pages share one
/// navigation frame, as pages of a site do.
fn collection(stories: u64, copies: u64) -> Vec<Document> {
    let nav = words(7, 40).join(" ");
    let mut docs = Vec::new();
    for s in 0..stories {
        let lines: Vec<String> = words(100 + s, 1000)
            .chunks(10)
            .map(|l| l.join(" "))
            .collect();
        for c in 0..copies {
            let html = format!(
                "<html><body><div>{nav}</div>\n<p>{}</p>\n<div>session s{s}x{c}q</div></body></html>",
                lines.join("\n"),
            );
            let url = format!("http://www.mirror{c}.example/story{s}.html");
            docs.push(doc(&format!("c{c}/s{s}"), &format!("story{s}"), &url, html));
        }
    }
    docs
}

fn gold_of(docs: &[Document]) -> Vec<Option<u32>> {
    GoldStandard::from_documents(docs).cluster_of
}

fn prepare(
    algo: Algo,
    options: &DetectorOptions,
    docs: &[Document],
) -> std::sync::Arc<dyn Prepared> {
    detectors::detector(algo, options)
        .unwrap()
        .prepare(docs, &Progress::new())
        .unwrap()
}

fn spec(algo: Algo, threshold: f64) -> RunSpec {
    let mut s = RunSpec::default_for(algo);
    s.matching.threshold = threshold;
    s
}

#[test]
fn names_parse_and_defaults_are_scores() {
    for a in literature() {
        assert_eq!(a.name().parse::<Algo>().ok(), Some(a));
        assert!((0.0..=1.0).contains(&a.default_threshold()), "{a:?}");
        assert!((0.0..=1.0).contains(&a.paper_threshold()), "{a:?}");
    }
    for name in [
        "shingles",
        "minhash",
        "simhash",
        "simhash64",
        "combined",
        "chunks",
        "projection",
    ] {
        assert!(name.parse::<Algo>().is_ok(), "{name}");
    }
    assert!(detectors::detector(Algo::Simhash, &DetectorOptions::default()).is_ok());
}

#[test]
fn a_mode_a_detector_does_not_support_is_an_error_not_ignored() {
    let docs = collection(3, 2);
    for algo in self_contained() {
        let prep = prepare(algo, &DetectorOptions::default(), &docs);
        for mode in Mode::ALL {
            let mut s = spec(algo, algo.default_threshold());
            s.matching.mode = mode;
            if mode == Mode::Seeded {
                s.matching.seeds = vec![samecore::DocId(0)];
            }
            let result = prep.detect(&s, &Progress::new());
            assert_eq!(result.is_ok(), algo.supports(mode), "{algo:?} {mode:?}");
            if let Err(e) = result {
                assert!(e.to_string().contains("does not run in"), "{e}");
            }
        }
    }
    assert!(!Algo::MinHash.supports(Mode::Full));
    assert!(Mode::ALL.iter().all(|&m| Algo::SpotSigs.supports(m)));
}

#[test]
fn every_detector_groups_mirrored_copies_and_nothing_else() {
    let docs = collection(8, 4);
    let gold = gold_of(&docs);
    let options = DetectorOptions::default();
    for algo in literature() {
        let prep = prepare(algo, &options, &docs);
        assert_eq!(prep.len(), docs.len());
        assert_eq!(prep.unsigned(), 0, "{algo:?}");
        // The chunk overlap's paper setting is T shared chunks alone (score 0), with T = 15 or
        // 25 lines on whole web pages; with our small T any shared frame links everything.
        let paper = if algo == Algo::Chunks {
            algo.default_threshold()
        } else {
            algo.paper_threshold()
        };
        for threshold in [algo.default_threshold(), paper] {
            let d = prep
                .detect(&spec(algo, threshold), &Progress::new())
                .unwrap();
            let m = evaluate(&d.clustering, &gold);
            assert!(
                m.pairwise.precision >= 0.99 && m.pairwise.recall >= 0.9,
                "{algo:?} at {threshold}: {m:?}"
            );
            assert!(d.pairs().iter().all(|p| p.score >= threshold && p.a < p.b));
            assert!(d.outcome.pairs_complete);
            // The one-pair similarity agrees with the scores of the run.
            for p in d.pairs().iter().take(20) {
                let s = prep.similarity(p.a, p.b).unwrap();
                assert!((s - p.score).abs() < 1e-9, "{algo:?}: {s} vs {p:?}");
            }
        }
    }
}

#[test]
fn detectors_are_identical_whatever_the_thread_count() {
    let docs = collection(6, 3);
    let options = DetectorOptions::default();
    for algo in literature() {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let prep = prepare(algo, &options, &docs);
                prep.detect(
                    &spec(algo, algo.default_threshold() * 0.9),
                    &Progress::new(),
                )
                .unwrap()
            })
        };
        let (one, three) = (run(1), run(3));
        assert_eq!(one.pairs(), three.pairs(), "{algo:?}");
        assert_eq!(one.clustering, three.clustering, "{algo:?}");
    }
}

#[test]
fn seeds_change_signatures_but_not_what_exact_copies_get() {
    let docs = collection(4, 3);
    let gold = gold_of(&docs);
    for seed in [1, 2] {
        let mut options = DetectorOptions::default();
        options.shingles.params.seed = seed;
        options.simhash.seed = seed;
        let prep = prepare(Algo::Simhash, &options, &docs);
        let d = prep
            .detect(&spec(Algo::Simhash, 372.0 / 384.0), &Progress::new())
            .unwrap();
        assert_eq!(
            evaluate(&d.clustering, &gold).pairwise.f1,
            1.0,
            "seed {seed}"
        );
    }
}

#[test]
fn cancelled_progress_stops_preparation() {
    let docs = collection(3, 2);
    let progress = Progress::new();
    progress.cancel();
    for algo in literature() {
        let det = detectors::detector(algo, &DetectorOptions::default()).unwrap();
        assert!(
            matches!(det.prepare(&docs, &progress), Err(Error::Cancelled)),
            "{algo:?}"
        );
    }
}

#[test]
fn thresholds_outside_the_unit_interval_are_refused() {
    let docs = collection(2, 2);
    for algo in literature() {
        let prep = prepare(algo, &DetectorOptions::default(), &docs);
        assert!(
            prep.detect(&spec(algo, 1.5), &Progress::new()).is_err(),
            "{algo:?}"
        );
    }
}

/// Pairwise F1 each detector reached at its default threshold on goldset-dev when the defaults
/// were chosen (seed 0), minus a small margin: a regression fails here.
const GOLDSET_F1_FLOOR: [(Algo, f64); 7] = [
    (Algo::Shingles, 0.004),
    (Algo::MinHash, 0.74),
    (Algo::Simhash, 0.52),
    (Algo::Simhash64, 0.30),
    (Algo::Combined, 0.002),
    (Algo::Chunks, 0.59),
    // NFKC terms (`º` is `o`, on 16 pages) moved seed 0 from 0.292 to 0.255; over
    // three seeds 0.275 ± 0.025 became 0.263 ± 0.021, inside the spread of its random order.
    (Algo::Projection, 0.24),
];

#[test]
fn default_thresholds_reach_their_measured_quality_on_goldset_dev() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    let gold = gold_of(&coll.docs);
    for (algo, floor) in GOLDSET_F1_FLOOR {
        let prep = prepare(algo, &DetectorOptions::default(), &coll.docs);
        let d = prep
            .detect(&RunSpec::default_for(algo), &Progress::new())
            .unwrap();
        let m = evaluate(&d.clustering, &gold);
        eprintln!("{algo:?} at {}: {m:?}", algo.default_threshold());
        assert!(m.pairwise.f1 >= floor, "{algo:?}: {m:?}");
    }
}

#[test]
fn simhash_pieces_find_what_the_exhaustive_scan_finds_on_goldset_dev() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    for (algo, threshold) in [
        (Algo::Simhash, 373.0 / 384.0),
        (Algo::Simhash64, 61.0 / 64.0),
    ] {
        let pairs = |candidates| {
            let mut options = DetectorOptions::default();
            options.simhash.candidates = candidates;
            options.simhash64.candidates = candidates;
            prepare(algo, &options, &coll.docs)
                .detect(&spec(algo, threshold), &Progress::new())
                .unwrap()
                .outcome
                .pairs
        };
        let exhaustive = pairs(SimhashCandidates::AllPairs);
        assert!(!exhaustive.is_empty(), "{algo:?}");
        assert_eq!(pairs(SimhashCandidates::Pieces), exhaustive, "{algo:?}");
    }
}

#[test]
fn coarse_counting_equals_the_sort_based_overlap_on_goldset_dev() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    let chunks: Vec<Vec<u64>> = coll
        .docs
        .iter()
        .map(|d| page_chunks(&d.html.text(), Chunking::Lines(2)))
        .collect();
    let active = vec![true; chunks.len()];
    let exact = sort_based(&chunks, &active, 5);
    assert!(!exact.is_empty());
    for buckets in [1 << 10, 1 << 20] {
        let (coarse, stats) = coarse_counting(&chunks, &active, 5, buckets, 3).unwrap();
        assert_eq!(coarse, exact, "{buckets} buckets");
        eprintln!("coarse counting with {buckets} buckets: {stats:?}");
    }
}
