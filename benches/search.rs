//! Search at scale (`cargo bench --bench search`): the index of a generated archive built by the
//! release `samecore search --build` (wall time, peak RSS, size beside the archive's), 100
//! typical queries answered and collapsed by story (words, two words, phrases, a site, a
//! publication week: p50, p95 and the slowest), and a 10k-page archive added to the indexed
//! project (the update's wall time).
//!
//! `SAMECORE_SEARCH_PAGES` sets the archive's HTML pages (default 100000; 1000000 for the
//! million-page targets: index ≤ 10 min, p95 ≤ 100 ms, update ≤ 30 s). The archive is
//! `target/bench-data/synth-N.warc.gz`, shared with `benches/scale.rs`; its project
//! (`samecore run`, the default detector) is made once beside it. The queries run in this
//! process with the index and the project's stories loaded once, as the workbench and Python
//! hold them; a one-shot `samecore search` also loads the project's pages and clusters, timed
//! apart. Nothing is asserted: the machines are shared, the numbers are for reading.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use samecore::progress::Progress;
use samecore::search::{SearchIndex, SearchOptions, Stories};
use samecore::store::Project;

mod common;

use common::{generated, run_child};

fn secs(d: std::time::Duration) -> f64 {
    d.as_secs_f64()
}

fn mb(kb: Option<u64>) -> String {
    kb.map_or("?".into(), |k| format!("{:.0} MB", k as f64 / 1024.0))
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// 100 queries a researcher would type, drawn by a seed from the pages' own titles.
fn queries(project: &Project) -> Vec<String> {
    let pages = project.pages().unwrap();
    let mut words: BTreeMap<String, usize> = BTreeMap::new();
    let mut bigrams: Vec<String> = Vec::new();
    let mut sites: Vec<String> = Vec::new();
    let mut days: Vec<String> = Vec::new();
    for p in pages.iter().step_by((pages.len() / 5000).max(1)) {
        let title = p.identity.title.clone().unwrap_or_default();
        let ws: Vec<String> = title
            .split_whitespace()
            .map(|w| w.chars().filter(|c| c.is_alphabetic()).collect::<String>())
            .filter(|w| w.chars().count() >= 4)
            .collect();
        for w in &ws {
            *words.entry(w.to_lowercase()).or_default() += 1;
        }
        for pair in ws.windows(2) {
            bigrams.push(format!("\"{} {}\"", pair[0], pair[1]));
        }
        if let Some(s) = &p.identity.site {
            sites.push(s.clone());
        }
        if let Some(d) = &p.identity.published {
            days.push(d.chars().take(10).collect());
        }
    }
    let words: Vec<String> = words.into_keys().collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut out = Vec::new();
    let word = |rng: &mut rand_chacha::ChaCha8Rng| words.choose(rng).unwrap().clone();
    for _ in 0..40 {
        out.push(word(&mut rng));
    }
    for _ in 0..20 {
        out.push(format!("{} {}", word(&mut rng), word(&mut rng)));
    }
    for _ in 0..15 {
        out.push(bigrams.choose(&mut rng).unwrap().clone());
    }
    for _ in 0..15 {
        out.push(format!(
            "site:{} {}",
            sites.choose(&mut rng).unwrap(),
            word(&mut rng)
        ));
    }
    for _ in 0..10 {
        let day = days.choose(&mut rng).unwrap();
        let d = samecore::search::day_of(Some(day)).unwrap() + rng.random_range(0..7);
        let (y, m, dd) = samecore::calendar::civil_from_days(d);
        out.push(format!(
            "published:[{day} TO {y:04}-{m:02}-{dd:02}] {}",
            word(&mut rng)
        ));
    }
    out
}

fn main() {
    let pages: u64 = std::env::var("SAMECORE_SEARCH_PAGES")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(100_000);
    let binary = env!("CARGO_BIN_EXE_samecore");
    let archive = generated(binary, pages, 7);
    let project_path = archive.with_extension("").with_extension("samecore");
    if !project_path.exists() {
        let part = project_path.with_extension("part");
        let _ = std::fs::remove_file(&part);
        let usage = run_child(
            Command::new(binary)
                .arg("run")
                .arg(&archive)
                .arg("--project")
                .arg(&part)
                .stdout(std::process::Stdio::null()),
        );
        assert!(usage.ok, "samecore run failed");
        std::fs::rename(&part, &project_path).unwrap();
        println!("project made by samecore run in {:.0} s", secs(usage.wall));
    }
    let index_dir = samecore::search::index_dir(&project_path);
    let _ = std::fs::remove_dir_all(&index_dir);
    let build = run_child(
        Command::new(binary)
            .args(["search", "--build", "--project"])
            .arg(&project_path)
            .stdout(std::process::Stdio::null()),
    );
    assert!(build.ok, "samecore search --build failed");
    let archive_bytes = std::fs::metadata(&archive).unwrap().len();
    let index_bytes = dir_bytes(&index_dir);
    println!(
        "{pages} pages: index built in {:.1} s (peak {}), {:.0} MB against the archive's {:.0} MB ({:.2}x)",
        secs(build.wall),
        mb(build.peak_kb),
        index_bytes as f64 / 1e6,
        archive_bytes as f64 / 1e6,
        index_bytes as f64 / archive_bytes as f64
    );

    let project = Project::open(&project_path).unwrap();
    let started = Instant::now();
    let (index, _) = SearchIndex::open(&project, &Progress::new()).unwrap();
    let opened = started.elapsed();
    let started = Instant::now();
    let run = project.runs().unwrap().last().map(|r| r.id);
    let stories = Stories::load(&project, run).unwrap();
    let loaded = started.elapsed();
    println!(
        "index opened (checksums checked) in {:.2} s; the project's stories loaded in {:.2} s",
        secs(opened),
        secs(loaded)
    );
    let qs = queries(&project);
    let options = SearchOptions {
        limit: Some(20),
        ..SearchOptions::default()
    };
    let mut times: Vec<(f64, String, usize, usize)> = Vec::new();
    for q in &qs {
        let started = Instant::now();
        let r = index.search(&stories, q, &options).unwrap();
        times.push((
            started.elapsed().as_secs_f64() * 1000.0,
            q.clone(),
            r.story_count,
            r.page_count,
        ));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |p: f64| times[((times.len() as f64 * p).ceil() as usize).saturating_sub(1)].0;
    let slowest = times.last().unwrap();
    let pages_hit: usize = times.iter().map(|t| t.3).sum();
    println!(
        "{} queries collapsed by story: p50 {:.1} ms, p95 {:.1} ms, slowest {:.1} ms ({:?}: {} stories, {} pages); {:.0} matching pages per query on average",
        times.len(),
        at(0.5),
        at(0.95),
        slowest.0,
        slowest.1,
        slowest.2,
        slowest.3,
        pages_hit as f64 / times.len() as f64
    );
    let one_shot = run_child(
        Command::new(binary)
            .args(["search", "--project"])
            .arg(&project_path)
            .arg(&qs[0])
            .stdout(std::process::Stdio::null()),
    );
    println!(
        "one-shot samecore search {:?}: {:.2} s (peak {})",
        qs[0],
        secs(one_shot.wall),
        mb(one_shot.peak_kb)
    );
    drop(index);

    // A 10k-page archive added: a copy of the project (its index hard-linked: tantivy and the
    // index's record replace files, never write into them) gets the new archive's pages.
    let small = generated(binary, 10_000, 8);
    let copy = project_path.with_extension("update.samecore");
    let copy_index = samecore::search::index_dir(&copy);
    let _ = std::fs::remove_dir_all(&copy_index);
    std::fs::copy(&project_path, &copy).unwrap();
    let linked = Command::new("cp")
        .arg("-al")
        .arg(&index_dir)
        .arg(&copy_index)
        .status()
        .unwrap();
    assert!(linked.success());
    let mut project = Project::open(&copy).unwrap();
    let progress = Progress::new();
    let collection = samecore::archive::load(
        std::slice::from_ref(&small),
        &samecore::archive::ReadOptions::default(),
        &progress,
    )
    .unwrap();
    let identities: Vec<samecore::store::runs::PageIdentity> =
        collection.docs.iter().map(Into::into).collect();
    project.upsert_pages(None, &identities).unwrap();
    let started = Instant::now();
    let (index, report) = SearchIndex::open(&project, &progress).unwrap();
    println!(
        "{} pages added to the indexed project: index updated in {:.1} s ({})",
        identities.len(),
        secs(started.elapsed()),
        report.describe()
    );
    drop(index);
    drop(project);
    let _ = std::fs::remove_dir_all(&copy_index);
    let _ = std::fs::remove_file(&copy);
}
