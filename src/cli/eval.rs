//! `samecore eval ARCHIVE… --algo spotsigs --thresholds 0.1:0.9:0.05 --runs 3`: sign once, then
//! run the detector at every threshold with `--runs` seeds (in parallel on the rayon pool) and
//! print one row per threshold with the mean and standard deviation of every metric (pairwise,
//! document-level, B-cubed), as a text table, `--csv` or `--json`. Gold clusters come from
//! `--gold FILE` or the archive's folder names.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use samecore::detectors::{self, Algo};
use samecore::eval::{parse_thresholds, sweep};
use samecore::progress::Progress;

use super::progress_bar::{COUNT, with_progress_bar};
use super::run::{MatchArgs, SpotSigsArgs, load, run_spec};

/// Arguments of `samecore eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// WARC, ARC, WACZ files, folders or zips of pages.
    #[arg(required = true)]
    pub archives: Vec<PathBuf>,
    /// Detector.
    #[arg(long, default_value = "spotsigs")]
    pub algo: Algo,
    /// Gold clusters as `doc,cluster` (TSV or CSV); default: the folder names.
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// Thresholds as FROM:TO:STEP (inclusive) or a comma list.
    #[arg(long, default_value = "0.1:0.9:0.05")]
    pub thresholds: String,
    /// Runs (seeds) per threshold for randomized modes.
    #[arg(long, default_value_t = 3)]
    pub runs: u64,
    /// First seed; runs use seed, seed+1, ….
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print CSV.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print JSON (an array of rows).
    #[arg(long)]
    pub json: bool,
    /// Matching options.
    #[command(flatten)]
    pub matching: MatchArgs,
    /// SpotSigs options.
    #[command(flatten)]
    pub spotsigs: SpotSigsArgs,
    /// Options of the other detectors.
    #[command(flatten)]
    pub literature: super::literature::DetectorArgs,
}

/// Run `samecore eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let thresholds = parse_thresholds(&args.thresholds)?;
    anyhow::ensure!(args.runs >= 1, "--runs must be at least 1");
    let started = Instant::now();
    let (docs, gold) = load(&args.archives, args.gold.as_deref())?;
    anyhow::ensure!(
        gold.is_known(),
        "no gold clusters: give --gold FILE or a folder with one sub-folder per cluster"
    );
    let load_secs = started.elapsed().as_secs_f64();
    let options = args.literature.options(args.spotsigs.params()?)?;
    let detector = detectors::detector(args.algo, &options)?;
    let progress = Progress::new();
    let t0 = Instant::now();
    let prepared = with_progress_bar(&progress, COUNT, || detector.prepare(&docs, &progress))?;
    let sign_secs = t0.elapsed().as_secs_f64();
    // Seeded mode picks its gold seeds per run inside the sweep unless --seeds is given.
    let mut base = run_spec(&args.matching, thresholds[0], args.seed, &docs, &gold)?;
    if args.matching.seeds.is_none() {
        base.matching.seeds.clear();
    }
    let seeds: Vec<u64> = (args.seed..args.seed + args.runs).collect();
    let t1 = Instant::now();
    let rows = with_progress_bar(&progress, COUNT, || {
        sweep(
            prepared.as_ref(),
            &base,
            &thresholds,
            &seeds,
            &gold.cluster_of,
            &progress,
        )
    })?;
    let sweep_secs = t1.elapsed().as_secs_f64();
    eprintln!(
        "{} documents ({} unsigned), {} gold clusters; load {load_secs:.2} s, signatures \
         {sign_secs:.2} s, sweep {sweep_secs:.2} s ({} runs)",
        docs.len(),
        prepared.unsigned(),
        gold.names.len(),
        rows.iter().map(|r| r.runs).sum::<usize>()
    );
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(());
    }
    if args.csv {
        let names: Vec<String> = rows
            .first()
            .map(|r| r.mean.columns())
            .into_iter()
            .flatten()
            .flat_map(|(n, _)| [n.to_string(), format!("{n}_sd")])
            .collect();
        writeln!(out, "threshold,runs,{},groups,comparisons", names.join(","))?;
        for r in &rows {
            let cols: Vec<String> = r
                .mean
                .columns()
                .iter()
                .zip(r.sd.columns())
                .flat_map(|((_, m), (_, s))| [format!("{m:.4}"), format!("{s:.4}")])
                .collect();
            writeln!(
                out,
                "{},{},{},{:.1},{:.0}",
                r.threshold,
                r.runs,
                cols.join(","),
                r.groups.mean,
                r.comparisons.mean
            )?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "{:>5}  {:>13} {:>13} {:>13}  {:>13} {:>13}  {:>13} {:>13} {:>13}  {:>6}",
        "t", "pair P", "pair R", "pair F1", "doc P", "doc R", "B3 P", "B3 R", "B3 F1", "groups"
    )?;
    for r in &rows {
        let cell = |m: f64, s: f64| format!("{m:.3}±{s:.3}");
        let (m, s) = (&r.mean, &r.sd);
        writeln!(
            out,
            "{:>5.3}  {:>13} {:>13} {:>13}  {:>13} {:>13}  {:>13} {:>13} {:>13}  {:>6.1}",
            r.threshold,
            cell(m.pairwise.precision, s.pairwise.precision),
            cell(m.pairwise.recall, s.pairwise.recall),
            cell(m.pairwise.f1, s.pairwise.f1),
            cell(m.document.precision, s.document.precision),
            cell(m.document.recall, s.document.recall),
            cell(m.bcubed.precision, s.bcubed.precision),
            cell(m.bcubed.recall, s.bcubed.recall),
            cell(m.bcubed.f1, s.bcubed.f1),
            r.groups.mean
        )?;
    }
    Ok(())
}
