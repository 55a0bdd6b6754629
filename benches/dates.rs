//! Publication dates against hand-annotated truth, and against htmldate side by side.
//!
//! `benches/dates_truth.tsv` holds 302 pages of the shared data (every 9th page of
//! goldset-dev, the original pages of frames-dev, up to 40 HTML pages of each shared WARC) with
//! the publication date a person read on each page (`none` where the page shows none), and the
//! words that say so. A page is right when samecore gives the same calendar day, or gives the
//! capture (no date in the page) where the truth is `none`.
//!
//! ```text
//! cargo bench --bench dates                      # samecore: accuracy per part, pages per second
//! cargo bench --bench dates -- --peer            # … and htmldate's (pip install htmldate warcio)
//! cargo bench --bench dates -- --show-misses     # every page samecore gets wrong
//! ```
//!
//! Speed is one core each: samecore's `dates::publication` over the decoded pages held in
//! memory (best of `--repeat`), htmldate's `find_date` the same way in one Python process.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use samecore::archive::{self, ReadOptions};
use samecore::dates::{DateSource, publication};
use samecore::document::Document;
use samecore::progress::Progress;

struct Row {
    input: String,
    url: String,
    record_id: String,
    capture: String,
    published: String,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let truth = value("--truth").map_or(here.join("benches/dates_truth.tsv"), PathBuf::from);
    let data = value("--data").map_or(here.join("../shared/data"), PathBuf::from);
    let repeat: usize = value("--repeat").and_then(|r| r.parse().ok()).unwrap_or(5);
    if !data.exists() {
        println!("SKIP: {} is absent", data.display());
        return;
    }
    let rows = read_truth(&truth);
    let pages = load_pages(&rows, &data);
    println!("{} pages of {}", rows.len(), truth.display());

    // Accuracy, from what the reader stored on each page.
    let predicted: Vec<String> = pages.iter().map(|(doc, _)| day_or_none(doc)).collect();
    report("samecore", &rows, &predicted);
    let mut sources: HashMap<&str, usize> = HashMap::new();
    for (doc, _) in &pages {
        let s = doc.published.map_or("none", |p| p.source.name());
        *sources.entry(s).or_default() += 1;
    }
    let mut sources: Vec<_> = sources.into_iter().collect();
    sources.sort();
    println!("  sources: {sources:?}");
    if flag("--show-misses") {
        for (row, p) in rows.iter().zip(&predicted) {
            if *p != row.published {
                println!(
                    "  MISS {} {} truth {} samecore {}",
                    row.input, row.url, row.published, p
                );
            }
        }
    }

    // Speed: the extraction alone, on the decoded pages, one thread.
    let mut best = f64::INFINITY;
    for _ in 0..repeat {
        let t = Instant::now();
        let mut n = 0;
        for (doc, html) in &pages {
            n += usize::from(publication(html, doc.url.as_deref(), doc.date.as_deref()).is_some());
        }
        std::hint::black_box(n);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let bytes: usize = pages.iter().map(|(_, h)| h.len()).sum();
    println!(
        "  speed: {:.1} ms for {} pages ({:.1} MB): {:.0} pages/s, best of {repeat}, one thread",
        best * 1e3,
        pages.len(),
        bytes as f64 / 1e6,
        pages.len() as f64 / best
    );

    if flag("--peer") {
        let script = here.join("benches/htmldate_peer.py");
        let status = std::process::Command::new("python3")
            .arg(&script)
            .arg("--truth")
            .arg(&truth)
            .arg("--data")
            .arg(&data)
            .arg("--repeat")
            .arg(repeat.to_string())
            .status();
        match status {
            Ok(s) if s.success() => {}
            _ => println!("htmldate peer did not run (pip install htmldate warcio)"),
        }
    }
}

/// The calendar day samecore gives, or `none` when it fell back to the capture.
fn day_or_none(doc: &Document) -> String {
    match doc.published {
        Some(p) if p.source != DateSource::Capture => p.at.ymd(),
        _ => "none".into(),
    }
}

fn report(name: &str, rows: &[Row], predicted: &[String]) {
    let part = |r: &Row| r.input.split('/').next().unwrap_or("").to_string();
    let mut parts: Vec<String> = rows.iter().map(part).collect();
    parts.sort();
    parts.dedup();
    let score = |keep: &dyn Fn(&Row) -> bool| {
        let (mut n, mut ok, mut dated, mut dated_ok, mut undated, mut undated_ok) =
            (0, 0, 0, 0, 0, 0);
        for (r, p) in rows.iter().zip(predicted) {
            if !keep(r) {
                continue;
            }
            n += 1;
            ok += usize::from(*p == r.published);
            if r.published == "none" {
                undated += 1;
                undated_ok += usize::from(p == "none");
            } else {
                dated += 1;
                dated_ok += usize::from(*p == r.published);
            }
        }
        format!(
            "accuracy {ok}/{n} = {:.3}; pages with a date {dated_ok}/{dated}; without {undated_ok}/{undated}",
            ok as f64 / n.max(1) as f64
        )
    };
    println!("[{name}] {}", score(&|_| true));
    for p in &parts {
        println!("    {p:12} {}", score(&|r| part(r) == *p));
    }
}

fn read_truth(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).expect("truth file");
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Row {
                input: f[0].into(),
                url: f[1].into(),
                record_id: f[2].into(),
                capture: f[3].into(),
                published: f[4].into(),
            }
        })
        .collect()
}

/// Each row's page and its decoded text: loose files from their corpus folder, by path; WARC
/// records by record id, URL and capture date (one shared WARC gives every record one id).
fn load_pages(rows: &[Row], data: &Path) -> Vec<(Document, String)> {
    let opts = ReadOptions::default();
    let mut loaded: HashMap<String, Vec<Document>> = HashMap::new();
    for row in rows {
        let top = if row.record_id.is_empty() {
            row.input.split('/').next().unwrap_or("").to_string()
        } else {
            row.input.clone()
        };
        loaded.entry(top.clone()).or_insert_with(|| {
            archive::load(&[data.join(&top)], &opts, &Progress::new())
                .expect("shared input reads")
                .docs
        });
    }
    rows.iter()
        .map(|row| {
            let doc = if row.record_id.is_empty() {
                let (top, rel) = row.input.split_once('/').expect("corpus/file");
                loaded[top].iter().find(|d| &*d.key == rel)
            } else {
                loaded[&row.input].iter().find(|d| {
                    d.record_id() == Some(row.record_id.as_str())
                        && d.url.as_deref() == Some(row.url.as_str())
                        && d.date.as_deref().map(|x| &x[..x.len().min(19)])
                            == Some(&row.capture[..row.capture.len().min(19)])
                })
            };
            let doc = doc
                .unwrap_or_else(|| panic!("{} {} not found", row.input, row.record_id))
                .clone();
            let html = doc.html.text();
            (doc, html)
        })
        .collect()
}
