//! What was copied, measured: aligned passages and reuse shares on frames-dev (story
//! copies against their originals, and pages that share only a frame), on goldset-dev's
//! Drink × Caffeine pages (an IANS rewrite of WebMD copy), and the time to align every pair of
//! goldset-dev's default SpotSigs run and the members of its largest cluster.
//!
//! `cargo bench --bench passages` (needs ../shared/data).

/// `../shared` data and what the tests share with this bench (the frames-dev helpers).
#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use samecore::archive::{self, ReadOptions};
use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
use samecore::passages::{AlignOptions, Core, Cutoffs, Derivation, PageCore, align_pair};
use samecore::progress::Progress;

fn main() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if !data.exists() {
        println!("SKIP: {} is absent", data.display());
        return;
    }
    frames(&data.join("frames-dev"));
    goldset(&data.join("goldset-dev"));
}

/// Words of a manifest string (a dateline).
fn words(s: &str) -> usize {
    Core::of_text(s.to_string()).len()
}

fn frames(dir: &Path) {
    let c = archive::load(
        &[dir.to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    let core: HashMap<String, PageCore> = common::page_cores(&c.docs)
        .into_iter()
        .zip(&c.docs)
        .map(|(core, d)| (d.key.to_string(), core))
        .collect();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let rows: Vec<Vec<String>> = manifest
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(String::from).collect())
        .collect();
    let original_of: HashMap<&str, &str> = rows
        .iter()
        .filter(|r| r[3] == "original")
        .map(|r| (r[1].as_str(), r[0].as_str()))
        .collect();
    let opts = AlignOptions::default();
    let cutoffs = Cutoffs::default();
    let (mut n, mut wholly, mut within, mut diff_sum) = (0, 0, 0, 0.0);
    println!(
        "frames-dev: each story copy against its original (the copy's share of its core found in the original)"
    );
    println!(
        "  {:<62} {:>6} {:>7} {:>6}  edits",
        "copy", "share", "implied", "orig"
    );
    for r in rows.iter().filter(|r| r[3] == "copy") {
        let original = original_of[r[1].as_str()];
        let (a, b) = (&core[original], &core[&r[0]]);
        let al = align_pair(a, b, &opts);

        // What the manifest says the copy added to the story: its dateline, changed words and
        // related-articles list.
        let edits = &r[6];
        let mut added = 0;
        for e in edits.split(';') {
            if let Some(d) = e.strip_prefix("dateline=") {
                added += words(d);
            }
            if let Some(w) = e.strip_prefix("words=") {
                added += w.parse::<usize>().unwrap_or(0);
            }
        }
        if edits.contains("related=") {
            let html = std::fs::read_to_string(dir.join(&r[0])).unwrap();
            added += common::related_words(&html, &b.core);
        }
        let implied = 1.0 - added as f64 / b.core.len().max(1) as f64;
        let class = if al.share_b() >= cutoffs.wholly {
            Derivation::Wholly
        } else if al.share_b() >= cutoffs.partially {
            Derivation::Partially
        } else {
            Derivation::Non
        };
        n += 1;
        wholly += usize::from(class == Derivation::Wholly);
        within += usize::from((al.share_b() - implied).abs() <= 0.05);
        diff_sum += (al.share_b() - implied).abs();
        println!(
            "  {:<62} {:>6.3} {:>7.3} {:>6.3}  {} {}",
            r[0],
            al.share_b(),
            implied,
            al.share_a(),
            edits,
            class.label()
        );
    }
    println!(
        "  {n} copies: {wholly} wholly derived; share within 0.05 of the manifest's on {within}; mean |difference| {:.3}",
        diff_sum / n.max(1) as f64
    );
    // Pages that share only a frame: two different stories in one frame, or a frame's own page
    // and a story put into it.
    let mut by_frame: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in &rows {
        if r[3] == "copy" {
            by_frame
                .entry(r[4].as_str())
                .or_default()
                .push(r[0].as_str());
        }
    }
    let file_of_source: HashMap<String, &str> = rows
        .iter()
        .map(|r| {
            let name = Path::new(&r[0])
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            (name, r[0].as_str())
        })
        .collect();
    let (mut pairs, mut longest, mut over) = (0, 0u32, 0);
    for (frame, copies) in &by_frame {
        let mut pages: Vec<&str> = copies.clone();
        if let Some(own) = file_of_source.get(*frame) {
            pages.push(own);
        }
        for i in 0..pages.len() {
            for j in i + 1..pages.len() {
                let cluster = |p: &str| rows.iter().find(|r| r[0] == p).map(|r| r[1].clone());
                if cluster(pages[i]) == cluster(pages[j]) {
                    continue;
                }
                let al = align_pair(&core[pages[i]], &core[pages[j]], &opts);
                let most = al
                    .a_in_b
                    .passages
                    .iter()
                    .chain(&al.b_in_a.passages)
                    .map(|p| p.a.end - p.a.start)
                    .max()
                    .unwrap_or(0);
                pairs += 1;
                longest = longest.max(most);
                over += usize::from(most > 20);
            }
        }
    }
    println!(
        "  {pairs} pairs sharing only a frame: longest aligned passage {longest} words; {over} longer than 20 words"
    );
}

fn goldset(dir: &Path) {
    let c = archive::load(
        &[dir.to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    let docs = &c.docs;
    // Drink × Caffeine.
    let opts = AlignOptions::default();
    let pick = |story: &str| -> Vec<usize> {
        (0..docs.len())
            .filter(|&i| docs[i].key.starts_with(&format!("{story}/")))
            .collect()
    };
    let (drink, caffeine) = (pick("Drink"), pick("Caffeine"));
    let t = Instant::now();
    let all = common::page_cores(docs);
    let cores_s = t.elapsed().as_secs_f64();
    let cores: HashMap<usize, &PageCore> = drink
        .iter()
        .chain(&caffeine)
        .map(|&i| (i, &all[i]))
        .collect();
    println!(
        "goldset-dev Drink × Caffeine: pairs with an aligned passage (share of the Drink page's core found in the Caffeine page)"
    );
    let mut shares = Vec::new();
    for &d in &drink {
        for &k in &caffeine {
            let al = align_pair(cores[&d], cores[&k], &opts);
            if al.a_in_b.passages.is_empty() {
                continue;
            }
            shares.push(al.share_a());
            println!(
                "  {:<22} {:<22} share {:.3} (of the Caffeine page {:.3}), {} passages",
                docs[d].key,
                docs[k].key,
                al.share_a(),
                al.share_b(),
                al.a_in_b.passages.len()
            );
        }
    }
    println!("  {} Drink × Caffeine pairs share a passage", shares.len());

    // Every pair of the default SpotSigs run, and the largest cluster's members.
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let prep = det.prepare(docs, &Progress::new()).unwrap();
    let d = prep
        .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
        .unwrap();
    let pairs = d.pairs();
    let t = Instant::now();
    let n_passages: usize = pairs
        .par_iter()
        .map(|p| {
            let al = align_pair(&all[p.a.index()], &all[p.b.index()], &opts);
            al.a_in_b.passages.len() + al.b_in_a.passages.len()
        })
        .sum();
    let align_s = t.elapsed().as_secs_f64();
    println!(
        "goldset-dev default run: {} pairs aligned in {:.3} s ({:.1} µs a pair; {} passages), after the cores of {} pages and their sites' frames in {:.3} s (read from disk; two threads)",
        pairs.len(),
        align_s,
        align_s * 1e6 / pairs.len().max(1) as f64,
        n_passages,
        docs.len(),
        cores_s
    );
    let largest = d.clustering.groups().into_iter().next().unwrap();
    let t = Instant::now();
    let none = Default::default();
    let rep = PageCore::of_page(
        &archive::page_text(&docs[largest[0].index()]).unwrap(),
        &none,
    );
    let shares: Vec<f64> = largest[1..]
        .par_iter()
        .map(|m| {
            let core = PageCore::of_page(&archive::page_text(&docs[m.index()]).unwrap(), &none);
            align_pair(&rep, &core, &opts).share_b()
        })
        .collect();
    println!(
        "largest cluster ({} members): every member's share of the representative in {:.1} ms, pages read from disk (mean share {:.3})",
        largest.len(),
        t.elapsed().as_secs_f64() * 1e3,
        shares.iter().sum::<f64>() / shares.len().max(1) as f64
    );
}
