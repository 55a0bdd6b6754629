//! Language identification: accuracy and speed of what chooses a page's SpotSigs
//! antecedents, `cargo bench --bench language`.
//!
//! Samples are made as the signer makes them (the page's core-text terms, [`Sample`]), outside
//! the timed loop; then identification ([`language::of_text`], whatlang) runs over every sample
//! on one thread. Accuracy is against frames-dev's `MANIFEST.tsv` languages and goldset-dev
//! (all English). The time per page gives the cost of a million pages on this machine (target:
//! 60 s). Skips without `../shared` (fails with `SAMECORE_REQUIRE_SHARED=1`).

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::time::Instant;

use samecore::archive::{self, ReadOptions, load};
use samecore::progress::Progress;
use samecore::token::TokenSource;
use samecore::token::language::{self, Sample};

/// (sample, expected language) of every page of a folder of pages.
fn samples(
    dir: &std::path::Path,
    expected: &dyn Fn(&samecore::Document) -> String,
) -> Vec<(String, String)> {
    let coll = load(
        &[dir.to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    coll.docs
        .iter()
        .map(|d| {
            let html = archive::page_text(d).unwrap();
            let mut s = Sample::default();
            TokenSource::Content.for_each_term(&html, None, |t| s.push(t));
            (s.as_str().to_string(), expected(d))
        })
        .collect()
}

fn main() {
    let (Some(frames), Some(gold)) = (common::shared("data/frames-dev"), common::goldset()) else {
        return;
    };
    let manifest = std::fs::read_to_string(frames.join("MANIFEST.tsv")).unwrap();
    let lang_of: HashMap<String, String> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((f.first()?.to_string(), f.get(2)?.to_string()))
        })
        .collect();
    let mut all = samples(&frames, &|d| {
        lang_of.get(&*d.key).cloned().unwrap_or_default()
    });
    let frames_n = all.len();
    all.extend(samples(&gold, &|_| "en".into()));
    assert!(
        all.iter().all(|(_, l)| !l.is_empty()),
        "a page missing from the manifest"
    );

    // Shorter samples, for the choice of SAMPLE_BYTES: accuracy and time of each.
    for cut in [200, 400, 600, 800, 1000] {
        let short: Vec<(&str, &str)> = all
            .iter()
            .map(|(s, l)| (&s[..s.floor_char_boundary(cut.min(s.len()))], l.as_str()))
            .map(|(s, l)| (s.rsplit_once(' ').map_or(s, |(a, _)| a), l))
            .collect();
        let t = Instant::now();
        let right = short
            .iter()
            .filter(|(s, l)| language::of_text(s) == Some(*l))
            .count();
        println!(
            "  sample cut at {cut} bytes: {right}/{} right, {:.1} µs per page",
            short.len(),
            t.elapsed().as_secs_f64() * 1e6 / short.len() as f64
        );
    }
    let t = Instant::now();
    let (mut decided, mut right) = (0, 0);
    for (s, l) in &all {
        if let Some(found) = language::by_function_words(s) {
            decided += 1;
            right += usize::from(found == l);
        }
    }
    println!(
        "  function words alone: {decided}/{} decided, {right} of them right, {:.1} µs per page",
        all.len(),
        t.elapsed().as_secs_f64() * 1e6 / all.len() as f64
    );
    let mut best = f64::MAX;
    let mut found = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        found = all
            .iter()
            .map(|(s, _)| language::of_text(s))
            .collect::<Vec<_>>();
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut by: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for ((_, want), got) in all.iter().zip(&found) {
        let e = by.entry(want.as_str()).or_default();
        e.0 += 1;
        e.1 += usize::from(got.as_deref() == Some(want.as_str()));
    }
    let bytes: usize = all.iter().map(|(s, _)| s.len()).sum();
    println!(
        "language identification (function words, else whatlang; sample of {} bytes of core-text terms), {} pages ({} frames-dev, {} goldset-dev):",
        language::SAMPLE_BYTES,
        all.len(),
        frames_n,
        all.len() - frames_n
    );
    for (lang, (n, right)) in &by {
        println!("  {lang}: {right}/{n} right");
    }
    let per_page = best / all.len() as f64;
    println!(
        "  {:.1} µs per page (mean sample {} bytes), one thread: 1M pages {:.0} s",
        per_page * 1e6,
        bytes / all.len(),
        per_page * 1e6
    );
    // Real multilingual pages without a truth: where function words decide, do they agree
    // with whatlang on the same sample?
    if let Some(cc) = common::shared("data/warc/resiliparse__cc2020_warcfile.warc") {
        let pages = samples(&cc, &|_| String::new());
        let (mut decided, mut agree) = (0, 0);
        let mut langs: std::collections::BTreeMap<String, usize> = Default::default();
        let mut differ = Vec::new();
        for (s, _) in &pages {
            let w = whatlang::detect(s).map(|i| language::code(i.lang()));
            *langs
                .entry(language::of_text(s).unwrap_or("?").to_string())
                .or_default() += 1;
            if let Some(f) = language::by_function_words(s) {
                decided += 1;
                if Some(f) == w {
                    agree += 1;
                } else {
                    differ.push(format!("{f}/{}", w.unwrap_or("?")));
                }
            }
        }
        println!(
            "  Common Crawl WARC, {} pages: function words decided {decided}, whatlang agrees on {agree} (function words/whatlang where not: {})",
            pages.len(),
            differ.join(" ")
        );
        println!("  its languages: {langs:?}");
    }
    let right: usize = by.values().map(|v| v.1).sum();
    assert!(right * 100 >= all.len() * 99, "accuracy fell below 99 %");
}
