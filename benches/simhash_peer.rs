//! 64-bit simhash: samecore's against the `simhash` crate (0.3, the most used on crates.io),
//! on the same text (`harness = false`):
//!
//! ```text
//! cargo bench --bench simhash_peer -- [ARCHIVE...] [--repeat 9] [--distance 3]
//! ```
//!
//! Without an archive it runs on goldset-dev (skipped when `../shared` is absent, failing with
//! `SAMECORE_REQUIRE_SHARED=1`). Each page's text terms (`TokenSource::Text`) are joined by
//! spaces before the timer. Timed, on one thread: the crate's `simhash::simhash(text)` per page
//! (it splits on white space and hashes each word with SipHash), and samecore's term hashing
//! and `signature::simhash::simhash` with 64 bits (term frequencies counted, one projection per
//! distinct term). Then every pair within `--distance` bits is found the same way for both
//! (all pairs compared, not timed) and scored against the gold: pairwise P/R/F1 of the
//! connected components. Prints one JSON object.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use samecore::DocId;
use samecore::archive::{ReadOptions, load};
use samecore::cluster::Clustering;
use samecore::eval::{GoldStandard, evaluate};
use samecore::progress::Progress;
use samecore::signature::simhash::{SimhashParams, simhash};
use samecore::token::{TokenSource, term_hash};

fn main() {
    let mut archives = Vec::new();
    let (mut repeat, mut distance) = (9usize, 3u32);
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bench" => {}
            "--repeat" => repeat = it.next().unwrap().parse().unwrap(),
            "--distance" => distance = it.next().unwrap().parse().unwrap(),
            other => archives.push(other.into()),
        }
    }
    if archives.is_empty() {
        match common::goldset() {
            Some(p) => archives.push(p),
            None => return,
        }
    }
    let coll = load(&archives, &ReadOptions::default(), &Progress::new()).unwrap();
    let gold = GoldStandard::from_documents(&coll.docs);
    let texts: Vec<String> = coll
        .docs
        .iter()
        .map(|d| {
            TokenSource::Text
                .terms(&d.html.text(), d.url.as_deref())
                .join(" ")
        })
        .collect();
    let params = SimhashParams { bits: 64, seed: 0 };
    let time = |f: &dyn Fn() -> Vec<u64>| -> (Vec<f64>, Vec<u64>) {
        let mut times = Vec::new();
        let mut out = Vec::new();
        for _ in 0..repeat.max(1) {
            let t = Instant::now();
            out = f();
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        (times, out)
    };
    let (crate_times, crate_hashes) = time(&|| texts.iter().map(|t| simhash::simhash(t)).collect());
    let (our_times, our_hashes) = time(&|| {
        texts
            .iter()
            .map(|t| {
                let terms: Vec<u64> = t
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(term_hash)
                    .collect();
                simhash(&terms, &params)[0]
            })
            .collect()
    });
    let quality = |hashes: &[u64]| {
        let n = hashes.len();
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if (hashes[a] ^ hashes[b]).count_ones() <= distance {
                    pairs.push((DocId(a as u32), DocId(b as u32)));
                }
            }
        }
        let rank: Vec<u32> = (0..n as u32).collect();
        let clustering = Clustering::transitive(pairs.iter().copied(), &vec![None; n], &rank);
        let m = evaluate(&clustering, &gold.cluster_of);
        serde_json::json!({
            "pairs": pairs.len(),
            "pair_p": m.pairwise.precision,
            "pair_r": m.pairwise.recall,
            "pair_f1": m.pairwise.f1,
        })
    };
    let median = |t: &[f64]| t[t.len() / 2];
    let summary = serde_json::json!({
        "pages": texts.len(),
        "terms": texts.iter().map(|t| t.split(' ').count()).sum::<usize>(),
        "distance": distance,
        "simhash_crate": {
            "seconds_median": median(&crate_times),
            "seconds_best": crate_times[0],
            "quality": quality(&crate_hashes),
        },
        "samecore": {
            "seconds_median": median(&our_times),
            "seconds_best": our_times[0],
            "quality": quality(&our_hashes),
        },
        "samecore_over_crate": median(&our_times) / median(&crate_times),
    });
    println!("{summary}");
}
