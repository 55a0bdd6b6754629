//! `samecore info ARCHIVE...`: read archives and report per file what is in them — records per
//! WARC type, HTML responses, documents loaded, skips per reason, warnings and throughput — as
//! text or as one JSON object per line (`--json`, the [`samecore::archive::FileReport`] fields).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use samecore::archive::{self, FileReport, ReadOptions};
use samecore::engine::Progress;

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

/// Run `samecore info`: files one after another (each read with parallel decoding), a report
/// printed as soon as a file is done. Fails on the first input that is not an archive.
pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let opts = ReadOptions { keep_html: false };
    let stdout = std::io::stdout();
    for path in &args.archives {
        let progress = Progress::new();
        let report = with_progress_bar(&progress, || {
            archive::read_file(path, &opts, &progress, &mut |_| {})
        })
        // The library's message already names the file last; its source is part of the text.
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut out = stdout.lock();
        if args.json {
            serde_json::to_writer(&mut out, &report)?;
            writeln!(out)?;
        } else {
            write_text(&mut out, &report)?;
        }
        out.flush()?;
    }
    Ok(())
}

/// Run `work` while a thread draws `progress` as a bar on stderr (when stderr is a terminal
/// and the work takes more than a second).
fn with_progress_bar<T>(progress: &Progress, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = progress.clone();
        let done = &done;
        scope.spawn(move || {
            let started = std::time::Instant::now();
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if started.elapsed() < Duration::from_secs(1) {
                    continue;
                }
                let snap = watcher.snapshot();
                let bar = bar.get_or_insert_with(|| {
                    let bar = indicatif::ProgressBar::new(snap.total);
                    let style = indicatif::ProgressStyle::with_template(
                        "{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                    );
                    if let Ok(style) = style {
                        bar.set_style(style);
                    }
                    bar
                });
                bar.set_length(snap.total);
                bar.set_position(snap.done);
                bar.set_message(snap.stage);
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
        });
        let result = work();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        result
    })
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
