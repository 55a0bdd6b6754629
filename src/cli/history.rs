//! `samecore history ARCHIVE... [--url TEXT] [--changed] [--diff] [--out FILE]`: every URL
//! captured more than once, each capture against the one before it — identical payload, frame
//! only, or core changed — with the core's token diff on request ([`samecore::history`]).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use samecore::archive::{self, KeepHtml, ReadOptions};
use samecore::export::{self, HistoryRow};
use samecore::history::{self, Change, DiffRun, HistoryOptions};
use samecore::progress::Progress;

use super::progress_bar::{BYTES, COUNT, with_progress_bar};

/// Arguments of `samecore history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// WARC, ARC, WACZ files, folders or zips of pages (read together: a revisit in one and its
    /// original in another are one history).
    #[arg(required = true)]
    pub archives: Vec<PathBuf>,
    /// Only URLs containing this text.
    #[arg(long)]
    pub url: Option<String>,
    /// Only URLs whose core changed at least once.
    #[arg(long)]
    pub changed: bool,
    /// Print the core's token diff of every capture whose core changed.
    #[arg(long)]
    pub diff: bool,
    /// Core similarity from which a changed page counts as "frame only".
    #[arg(long, default_value_t = 0.9, value_parser = super::fraction)]
    pub core_threshold: f64,
    /// Write one row per capture (CSV, TSV, JSON Lines or Parquet, by extension).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// One JSON object per URL on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore history`.
pub fn run(args: HistoryArgs) -> anyhow::Result<()> {
    if let Some(out) = &args.out {
        samecore::guard::Inputs::new()
            .archives(&args.archives)
            .check(out, "--out")?;
        export::check_output(out, None)?;
    }
    let progress = Progress::new();
    let opts = ReadOptions {
        keep_html: KeepHtml::Unseekable,
        ..Default::default()
    };
    let collection = with_progress_bar(&progress, BYTES, || {
        archive::load(&args.archives, &opts, &progress)
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let pages = collection.docs.len();
    let docs = collection.into_capture_order(vec![(); pages]).0.docs;
    let hist_opts = HistoryOptions {
        core_threshold: args.core_threshold,
    };
    let mut all = with_progress_bar(&progress, COUNT, || {
        history::histories(&docs, &hist_opts, &progress)
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    all.retain(|h| {
        args.url.as_deref().is_none_or(|u| h.url.contains(u))
            && (!args.changed || h.core_changes() > 0)
    });
    if let Some(path) = &args.out {
        let rows = all.iter().flat_map(|h| {
            h.steps.iter().enumerate().map(|(k, s)| {
                let d = &docs[s.doc.index()];
                let prev = s.previous.map(|p| &docs[p.index()]);
                HistoryRow {
                    url: h.url.clone(),
                    capture: k as u32 + 1,
                    captured: d.date.as_deref().map(String::from),
                    previous_captured: prev.and_then(|p| p.date.as_deref().map(String::from)),
                    change: s.change.name().into(),
                    core_similarity: s.core_similarity,
                    revisit: d.revisit_of.is_some(),
                    digest: d.digest().map(str::to_string),
                    key: d.capture(),
                    previous_key: prev.map(|p| p.capture()),
                    title: d.title.as_deref().map(String::from),
                    published_day: d.published.map(|p| p.at.ymd()),
                }
            })
        });
        export::write_file_streamed(rows, path, None)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = super::stdout_for(args.json);
    if args.json {
        for h in &all {
            let steps: Vec<serde_json::Value> = h
                .steps
                .iter()
                .map(|s| {
                    let d = &docs[s.doc.index()];
                    serde_json::json!({
                        "key": d.capture(), "captured": d.date, "change": s.change.name(),
                        "core_similarity": s.core_similarity, "revisit": d.revisit_of.is_some(),
                    })
                })
                .collect();
            writeln!(
                out,
                "{}",
                serde_json::json!({"url": h.url, "captures": steps})
            )?;
        }
        return Ok(());
    }
    let changed = all.iter().filter(|h| h.core_changes() > 0).count();
    writeln!(
        out,
        "{} URLs captured more than once; the core changed on {changed}",
        all.len()
    )?;
    for h in &all {
        writeln!(out, "\n{} ({} captures)", h.url, h.steps.len())?;
        for s in &h.steps {
            let d = &docs[s.doc.index()];
            writeln!(
                out,
                "  {:<22} {:<12} {:>6} {}{}",
                d.date.as_deref().unwrap_or("-"),
                s.change.name(),
                s.core_similarity
                    .map_or(String::new(), |x| format!("{x:.3}")),
                d.digest().unwrap_or(""),
                if d.revisit_of.is_some() {
                    " (revisit)"
                } else {
                    ""
                }
            )?;
            if args.diff
                && s.change == Change::CoreChanged
                && let Some(prev) = s.previous
            {
                let old = history::core_terms(&archive::page_text(&docs[prev.index()])?);
                let new = history::core_terms(&archive::page_text(d)?);
                write_diff(&mut out, &history::core_diff(&old, &new))?;
            }
        }
    }
    Ok(())
}

/// The changed runs of a diff, each with a few terms of context.
fn write_diff(out: &mut impl Write, runs: &[DiffRun]) -> std::io::Result<()> {
    const CONTEXT: usize = 4;
    for (k, run) in runs.iter().enumerate() {
        let (sign, terms) = match run {
            DiffRun::Same(_) => continue,
            DiffRun::Removed(t) => ('-', t),
            DiffRun::Added(t) => ('+', t),
        };
        let before = match k.checked_sub(1).map(|j| &runs[j]) {
            Some(DiffRun::Same(t)) => t[t.len().saturating_sub(CONTEXT)..].join(" "),
            _ => String::new(),
        };
        let before = if before.is_empty() {
            String::new()
        } else {
            format!("…{before} ")
        };
        writeln!(out, "      {sign} {before}[{}]", shorten_terms(terms, 40))?;
    }
    Ok(())
}

fn shorten_terms(terms: &[String], most: usize) -> String {
    if terms.len() <= most {
        return terms.join(" ");
    }
    format!("{} … ({} terms)", terms[..most].join(" "), terms.len())
}
