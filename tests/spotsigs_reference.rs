//! `spotsigs-reference` reproduces the published SpotSigs Java code pair for pair: on
//! goldset-dev at thresholds 0.3, 0.5 and 0.7 the same distinct pairs with the same scores (to
//! the 6 decimals of the fixture's canonical list), checked against figures made by running
//! that code once (`tests/fixtures/spotsigs_reference.tsv`: counts, a SHA-1 of the sorted
//! list, a sample).
//!
//! Needs goldset-dev (`../shared`) and the published code's `stopwords.txt`, which samecore
//! does not ship: `SAMECORE_SPOTSIGS_STOPWORDS`, else `../shared/data/spotsigs-reference/
//! stopwords.txt`. Without the list the test says SKIPPED on standard error.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
use samecore::progress::Progress;

struct Expected {
    count: usize,
    sha1: String,
    sample: Vec<String>,
}

fn fixture() -> BTreeMap<String, Expected> {
    let text = include_str!("fixtures/spotsigs_reference.tsv");
    let mut out: BTreeMap<String, Expected> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "threshold" => {
                out.insert(
                    f[1].to_string(),
                    Expected {
                        count: f[2].parse().unwrap(),
                        sha1: f[3].to_string(),
                        sample: Vec::new(),
                    },
                );
            }
            "pair" => out.get_mut(f[1]).unwrap().sample.push(f[2..].join("\t")),
            other => panic!("bad fixture line {other:?}"),
        }
    }
    out
}

fn stopwords() -> Option<PathBuf> {
    let path = std::env::var_os("SAMECORE_SPOTSIGS_STOPWORDS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/data/spotsigs-reference/stopwords.txt")
        });
    if path.is_file() {
        return Some(path);
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED spotsigs_reference: the published code's stopwords.txt is not at {} (samecore \
         cannot ship it; set SAMECORE_SPOTSIGS_STOPWORDS)",
        path.display()
    );
    None
}

#[test]
fn the_reference_mode_reports_the_published_codes_pairs_and_scores() {
    let Some(collection) = common::goldset_collection() else {
        return;
    };
    let Some(stopwords) = stopwords() else {
        return;
    };
    let docs = &collection.docs;
    let mut options = DetectorOptions::default();
    options.spotsigs_reference.stopwords = Some(stopwords);
    let prepared = detectors::detector(Algo::SpotSigsReference, &options)
        .unwrap()
        .prepare(docs, &Progress::new())
        .unwrap();
    // Like every detector but SpotSigs it makes its declarations from pairs: Full is refused.
    let mut full = RunSpec::default_for(Algo::SpotSigsReference);
    full.matching.mode = samecore::matching::Mode::Full;
    assert!(prepared.detect(&full, &Progress::new()).is_err());
    for (threshold, expected) in fixture() {
        let mut spec = RunSpec::default_for(Algo::SpotSigsReference);
        spec.matching.threshold = threshold.parse().unwrap();
        let d = prepared.detect(&spec, &Progress::new()).unwrap();
        let mut lines: Vec<String> = d
            .pairs()
            .iter()
            .map(|p| {
                let (a, b) = (&docs[p.a.index()].key, &docs[p.b.index()].key);
                let (a, b) = if a < b { (a, b) } else { (b, a) };
                format!("{a}\t{b}\t{:.6}\n", p.score)
            })
            .collect();
        lines.sort();
        let missing: Vec<&String> = expected
            .sample
            .iter()
            .filter(|s| !lines.contains(&format!("{s}\n")))
            .collect();
        assert!(
            missing.is_empty(),
            "at {threshold}: sampled Java pairs missing or scored differently: {missing:?}"
        );
        assert_eq!(lines.len(), expected.count, "pairs at {threshold}");
        let sha1 = sha1_smol::Sha1::from(lines.concat()).digest().to_string();
        assert_eq!(sha1, expected.sha1, "canonical pair list at {threshold}");
    }
}
