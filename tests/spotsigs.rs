//! SpotSigs end to end on documents built in memory (and on goldset-dev when it is there):
//! signatures, every matching mode, clusters, determinism across rayon pool sizes, cancel.

use samecore::cluster::ClusterRule;
use samecore::detectors::spotsigs::SpotSigsDetector;
use samecore::detectors::{self, Algo, Detector, DetectorOptions, Prepared, RunSpec};
use samecore::eval::{evaluate, sweep};
use samecore::matching::{Guess, Mode};
use samecore::progress::Progress;
use samecore::signature::SpotSigsParams;
use samecore::signature::spotsigs::Signer;
use samecore::{Document, Error};

mod common;

fn doc(key: &str, gold: &str, html: String) -> Document {
    let url = format!("http://{}.example/{key}", key.len());
    let mut doc = Document::from_page(key, Some(&url), html);
    doc.gold = Some(gold.into());
    doc
}

/// A deterministic pseudo-random word stream over a 5,000-word vocabulary.
fn words(seed: u64, n: usize) -> Vec<String> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Antecedents every few words, as in prose.
            if i % 4 == 0 {
                ["the", "is", "was", "a", "has"][(x % 5) as usize].to_string()
            } else {
                format!("w{}", x % 5000)
            }
        })
        .collect()
}

/// `stories` stories, each copied into `copies` frames of different sites with a few edits.
fn collection(stories: u64, copies: u64) -> Vec<Document> {
    let mut docs = Vec::new();
    for s in 0..stories {
        let core = words(1000 + s, 300);
        for c in 0..copies {
            let mut body = core.clone();
            // Light edits: drop a stretch, change a few words.
            let cut = (c as usize * 17) % 200;
            body.drain(cut..cut + 10);
            for k in (0..body.len()).step_by(37 + c as usize) {
                body[k] = "edited".into();
            }
            let frame_a = words(50 + c, 60).join(" ");
            let frame_b = words(90 + c, 60).join(" ");
            let html = format!(
                "<html><head><title>t</title><script>var the = {c};</script></head><body>\
                 <div class=nav>{frame_a}</div><p>{}</p><div class=ad>{frame_b}</div></body></html>",
                body.join(" ")
            );
            docs.push(doc(&format!("s{s}/c{c}.html"), &format!("story{s}"), html));
        }
    }
    docs
}

fn prepared(docs: &[Document]) -> std::sync::Arc<dyn Prepared> {
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    det.prepare(docs, &Progress::new()).unwrap()
}

fn gold(docs: &[Document]) -> Vec<Option<u32>> {
    samecore::eval::GoldStandard::from_documents(docs).cluster_of
}

#[test]
fn every_mode_and_guess_recovers_planted_stories() {
    let docs = collection(6, 5);
    let prep = prepared(&docs);
    let gold = gold(&docs);
    for mode in Mode::ALL {
        for guess in [Guess::First, Guess::Best] {
            let mut spec = RunSpec::default_for(Algo::SpotSigs);
            // These frames are plain unlinked text on pages without a site, which neither the
            // content classifier nor the site frame can tell from a story: two stories in one
            // frame score about 0.17, so the modes are compared above that.
            spec.matching.threshold = 0.25;
            spec.matching.mode = mode;
            spec.matching.guess = guess;
            spec.rule = if mode == Mode::Full {
                ClusterRule::Transitive
            } else {
                ClusterRule::Representative
            };
            if mode == Mode::Seeded {
                spec.matching.seeds = samecore::matching::gold_seeds(&gold, 1);
            }
            let d = prep.detect(&spec, &Progress::new()).unwrap();
            let m = evaluate(&d.clustering, &gold);
            assert!(
                m.pairwise.f1 > 0.99 && m.document.precision > 0.99,
                "{mode:?} {guess:?}: {m:?}"
            );
            assert_eq!(d.clustering.groups().len(), 6, "{mode:?} {guess:?}");
        }
    }
}

#[test]
fn all_pairs_holds_every_pair_incremental_scored() {
    let docs = collection(5, 4);
    let prep = prepared(&docs);
    let mut spec = RunSpec::default_for(Algo::SpotSigs);
    spec.matching.threshold = 0.1;
    let inc = prep.detect(&spec, &Progress::new()).unwrap();
    spec.matching.mode = Mode::AllPairs;
    let all = prep.detect(&spec, &Progress::new()).unwrap();
    for p in inc.pairs() {
        let found = all.pairs().iter().find(|q| (q.a, q.b) == (p.a, p.b));
        assert!(
            found.is_some_and(|q| (q.score - p.score).abs() < 1e-12),
            "{p:?}"
        );
    }
}

#[test]
fn unrelated_pages_in_one_frame_do_not_match() {
    // Same-frame pages (henzinger's trap) with different cores must stay apart.
    let frame = words(7, 200).join(" ");
    let docs: Vec<Document> = (0..6)
        .map(|s| {
            let html = format!("<div>{frame}</div><p>{}</p>", words(300 + s, 200).join(" "));
            doc(&format!("p{s}"), &format!("g{s}"), html)
        })
        .collect();
    let prep = prepared(&docs);
    let d = prep
        .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
        .unwrap();
    // The shared frame is half of each page: Jaccard near 1/3, above the default threshold
    // but below what a same-core pair reaches — pin what happens so a change is seen.
    let scores: Vec<f64> = d.pairs().iter().map(|p| p.score).collect();
    assert!(scores.iter().all(|&s| s < 0.6), "{scores:?}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let docs = collection(8, 4);
    let gold = gold(&docs);
    let run_in = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let prep = prepared(&docs);
            let base = RunSpec::default_for(Algo::SpotSigs);
            let rows = sweep(
                &*prep,
                &base,
                &[0.1, 0.25, 0.5],
                &[0, 1, 2],
                &gold,
                &Progress::new(),
            )
            .unwrap();
            let d = prep.detect(&base, &Progress::new()).unwrap();
            (
                rows.iter().map(|r| (r.mean, r.sd)).collect::<Vec<_>>(),
                d.clustering,
                d.outcome.pairs.len(),
            )
        })
    };
    assert_eq!(run_in(1), run_in(3));
}

#[test]
fn cancel_stops_signing_and_matching() {
    let docs = collection(3, 3);
    let det = SpotSigsDetector::new(&SpotSigsParams::default()).unwrap();
    let p = Progress::new();
    p.cancel();
    assert!(matches!(det.sign(&docs, &p), Err(Error::Cancelled)));
    let prep = prepared(&docs);
    assert!(matches!(
        prep.detect(&RunSpec::default_for(Algo::SpotSigs), &p),
        Err(Error::Cancelled)
    ));
}

#[test]
fn spots_explain_a_match() {
    let signer = Signer::new(&SpotSigsParams::default()).unwrap();
    let spots = signer.spots(
        "<p>The council <b>is</b> meeting; the mayor was absent.</p>",
        None,
    );
    let shown: Vec<String> = spots
        .iter()
        .map(|s| format!("{}:{}", s.antecedent, s.words.join(" ")))
        .collect();
    // Default: distance 1 over non-stopwords, chain 1.
    assert_eq!(
        shown,
        ["the:council", "is:meeting", "the:mayor", "was:absent"]
    );
}

#[test]
fn goldset_dev_is_deterministic_across_pools() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    let run_in = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let prep = prepared(&coll.docs);
            let d = prep
                .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
                .unwrap();
            (
                d.clustering,
                d.outcome.pairs.len(),
                d.outcome.trace.comparisons(),
            )
        })
    };
    assert_eq!(run_in(1), run_in(2));
}

#[test]
fn a_sites_copies_of_one_story_keep_it_on_goldset_dev() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    // webmd.com's four pages in goldset-dev are copies of the caffeine story: counted page by
    // page, the story is on all of them and went as the site's frame.
    let cluster_of = |copies: Option<f64>| {
        let mut params = SpotSigsParams::default();
        let frame = params.site_frame.as_mut().unwrap();
        frame.copies = copies;
        let det = SpotSigsDetector::new(&params).unwrap();
        let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
        let d = prep
            .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
            .unwrap();
        let of = |key: &str| {
            let i = coll.docs.iter().position(|d| &*d.key == key).unwrap();
            d.clustering.cluster_of[i]
        };
        let story = of("Caffeine/c3.htm");
        ["c2", "c5", "c6", "c9"].map(|c| of(&format!("Caffeine/{c}.htm")) == story)
    };
    assert_eq!(cluster_of(Some(0.8)), [true; 4]);
    assert_eq!(cluster_of(None), [false; 4]);
}

#[test]
fn the_site_frame_option_takes_copies_and_refuses_what_is_not_a_similarity() {
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample_archives/news-sample.warc.gz"
    );
    for spec in ["0.9", "0.9:3", "0.9:3:0.8", "0.9:3:all", "off"] {
        let out = common::samecore(["run", sample, "--site-frame", spec]);
        assert!(out.contains("clusters"), "{spec}: {out}");
    }
    for (spec, says) in [
        ("0.9:3:1.5", "COPIES must be in (0, 1]"),
        ("0.9:3:0", "COPIES must be in (0, 1]"),
        ("0.9:3:some", "--site-frame SHARE[:MIN[:COPIES]]"),
        ("0.9:3:0.8:1", "at most three parts"),
    ] {
        let (ok, _, err) = common::samecore_with_input(&["run", sample, "--site-frame", spec], "");
        assert!(!ok && err.contains(says), "{spec}: {err}");
    }
}
