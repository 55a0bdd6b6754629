//! `samecore info ARCHIVE...`: read archives and report per file what is in them — records per
//! WARC type, HTML responses, documents loaded, skips per reason, warnings and throughput — as
//! text or as one JSON object per line (`--json`, the [`samecore::archive::FileReport`] fields).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use samecore::archive::{self, FileReport, KeepHtml, ReadOptions};
use samecore::progress::Progress;

use super::progress_bar::{BYTES, with_progress_bar};

/// Arguments of `samecore info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// WARC, ARC, WACZ files, folders or zips of pages.
    #[arg(required = true)]
    pub archives: Vec<PathBuf>,
    /// One JSON object per file (one per line) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore info`: one file streamed, several read together as `run` reads them (a
/// revisit whose original is in another file resolves), then a report per file. An input that
/// cannot be read (missing, not an archive) does not hide the others' reports: they are
/// printed, then the command fails naming it; so does an input from which no page was read.
pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let opts = ReadOptions {
        keep_html: KeepHtml::None,
        publication_dates: false,
    };
    let mut failed: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    for path in &args.archives {
        match archive::expand_folders_of_archives(std::slice::from_ref(path)) {
            Ok(found) => {
                for p in found {
                    match archive::check_input(&p) {
                        Ok(()) => paths.push(p),
                        Err(e) => failed.push(e.to_string()),
                    }
                }
            }
            Err(e) => failed.push(e.to_string()),
        }
    }
    // The library's message already names the file last; its source is part of the text.
    let progress = Progress::new();
    let reports = with_progress_bar(&progress, BYTES, || match &paths[..] {
        [] => Ok(Vec::new()),
        [one] => archive::read_file(one, &opts, &progress, &mut |_| {}).map(|r| vec![r]),
        _ => archive::load_with(&paths, &opts, &progress, &|_, _| ()).map(|(c, _)| c.reports),
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut out = super::stdout_for(args.json);
    let mut empty = Vec::new();
    for report in &reports {
        if args.json {
            serde_json::to_writer(&mut out, report)?;
            writeln!(out)?;
        } else {
            write_text(&mut out, report)?;
        }
        out.flush()?;
        if report.documents == 0 {
            empty.push(report.file.display().to_string());
        }
    }
    // Every input that gave nothing is named, each message ending with its file; the last is
    // the command's error (its exit code).
    let mut problems: Vec<String> = failed;
    problems.extend(
        empty
            .iter()
            .map(|f| format!("no page was read (its skips and warnings say why): {f}")),
    );
    let Some(last) = problems.pop() else {
        return Ok(());
    };
    for e in &problems {
        eprintln!("error: {}", samecore::terminal::escape(e));
    }
    anyhow::bail!("{}", samecore::terminal::escape(&last))
}

fn write_text(out: &mut impl Write, report: &FileReport) -> std::io::Result<()> {
    writeln!(out, "{} ({})", report.file.display(), report.format)?;
    let records: Vec<String> = report
        .records
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(out, "  records:        {}", join_or_none(&records))?;
    writeln!(out, "  html responses: {}", report.html_responses)?;
    writeln!(out, "  documents:      {}", report.documents)?;
    let skipped: Vec<String> = report
        .skipped
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(out, "  skipped:        {}", join_or_none(&skipped))?;
    let mb = report.bytes as f64 / 1e6;
    let rate = if report.seconds > 0.0 {
        mb / report.seconds
    } else {
        0.0
    };
    writeln!(
        out,
        "  read:           {mb:.1} MB in {:.2} s ({rate:.0} MB/s)",
        report.seconds
    )?;
    writeln!(out, "  warnings:       {}", report.warnings.len())?;
    for warning in &report.warnings {
        writeln!(out, "    {warning}")?;
    }
    Ok(())
}

fn join_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}
