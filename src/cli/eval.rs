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
use samecore::eval::cv::{CvPlan, FoldResult, Objective, cross_validate};
use samecore::eval::{SweepRow, parse_thresholds, sweep};
use samecore::progress::Progress;

use super::progress_bar::{COUNT, with_progress_bar};
use super::run::{MatchArgs, SpotSigsArgs, open, run_spec};
use samecore::session::OpenOptions;

/// Arguments of `samecore eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// WARC, ARC, WACZ files, folders or zips of pages.
    #[arg(required = true)]
    pub archives: Vec<PathBuf>,
    /// Detector (each one's use and default threshold are listed by --help).
    #[arg(long, default_value = "spotsigs", value_parser = super::literature::algo_parser())]
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
    /// Cross-validate with K folds of the gold clusters: choose the threshold on K-1 folds,
    /// report the metrics on the held-out one, for every fold.
    #[arg(long, value_name = "K")]
    pub cv: Option<usize>,
    /// Seed of the deal of gold clusters into folds (the first deal with --cv-deals).
    #[arg(long, default_value_t = 0)]
    pub cv_seed: u64,
    /// Cross-validate over this many deals of the gold clusters (seeds --cv-seed, --cv-seed+1,
    /// …) and report mean ± sd over the deals: one deal can be lucky or unlucky.
    #[arg(long, default_value_t = 1, value_name = "N", requires = "cv")]
    pub cv_deals: u64,
    /// Link shares to choose from with the threshold on the training folds, as a comma list
    /// (e.g. 0,0.1,0.2,0.3); default: --link-share (or the detector's default) alone.
    #[arg(long, value_name = "LIST", requires = "cv")]
    pub cv_link_shares: Option<String>,
    /// Cross-link fractions to choose from likewise (e.g. 0,0.1,0.2); default: --cross-links
    /// (or the detector's default) alone.
    #[arg(long, value_name = "LIST", requires = "cv")]
    pub cv_cross_links: Option<String>,
    /// What the threshold is chosen for in cross-validation: pair-f1, b3-f1 or doc-f1.
    #[arg(long, default_value = "pair-f1")]
    pub objective: Objective,
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
    let session = open(
        &args.archives,
        &OpenOptions {
            publication_dates: false,
            gold: args.gold.clone(),
            ..Default::default()
        },
    )?;
    let (docs, gold) = (session.docs(), &session.gold);
    anyhow::ensure!(
        gold.is_known(),
        "no gold clusters: give --gold FILE or a folder with one sub-folder per cluster"
    );
    let load_secs = started.elapsed().as_secs_f64();
    let options = args.literature.options(args.spotsigs.params()?)?;
    let progress = Progress::new();
    if let Some(folds) = args.cv {
        let detector = detectors::detector(args.algo, &options)?;
        return cross_validation(&args, folds, &thresholds, detector.as_ref(), docs, gold);
    }
    let t0 = Instant::now();
    let (prepared, _) = with_progress_bar(&progress, COUNT, || {
        session.prepared(args.algo, &options, &progress)
    })?;
    let sign_secs = t0.elapsed().as_secs_f64();
    // Seeded mode picks its gold seeds per run inside the sweep unless --seeds is given.
    let mut base = run_spec(
        args.algo,
        &args.matching,
        thresholds[0],
        args.seed,
        docs,
        gold,
    )?;
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
    let mut out = super::stdout_for(args.json);
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
        writeln!(
            out,
            "threshold,runs,{},groups,impure,comparisons",
            names.join(",")
        )?;
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
                "{},{},{},{:.1},{:.1},{:.0}",
                r.threshold,
                r.runs,
                cols.join(","),
                r.groups.mean,
                r.impure.mean,
                r.comparisons.mean
            )?;
        }
        return Ok(());
    }
    table(
        &mut out,
        "t",
        rows.iter().map(|r| (format!("{:.3}", r.threshold), r)),
    )?;
    Ok(())
}

/// A text table of sweep rows, mean ± sd of every metric, labelled by `first`.
fn table<'a>(
    out: &mut impl Write,
    first: &str,
    rows: impl Iterator<Item = (String, &'a SweepRow)>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>5}  {:>13} {:>13} {:>13}  {:>13} {:>13}  {:>13} {:>13} {:>13}  {:>6}  {:>6}",
        first,
        "pair P",
        "pair R",
        "pair F1",
        "doc P",
        "doc R",
        "B3 P",
        "B3 R",
        "B3 F1",
        "groups",
        "impure"
    )?;
    for (label, r) in rows {
        let cell = |m: f64, s: f64| format!("{m:.3}±{s:.3}");
        let (m, s) = (&r.mean, &r.sd);
        writeln!(
            out,
            "{:>5}  {:>13} {:>13} {:>13}  {:>13} {:>13}  {:>13} {:>13} {:>13}  {:>6.1}  {:>6.1}",
            label,
            cell(m.pairwise.precision, s.pairwise.precision),
            cell(m.pairwise.recall, s.pairwise.recall),
            cell(m.pairwise.f1, s.pairwise.f1),
            cell(m.document.precision, s.document.precision),
            cell(m.document.recall, s.document.recall),
            cell(m.bcubed.precision, s.bcubed.precision),
            cell(m.bcubed.recall, s.bcubed.recall),
            cell(m.bcubed.f1, s.bcubed.f1),
            r.groups.mean,
            r.impure.mean
        )?;
    }
    Ok(())
}

/// `samecore eval --cv K`: the threshold (and link share) chosen on the other folds, the metrics
/// on each fold; over `--cv-deals` deals, a line per deal and mean ± sd over them.
fn cross_validation(
    args: &EvalArgs,
    folds: usize,
    thresholds: &[f64],
    detector: &dyn samecore::detectors::Detector,
    docs: &[samecore::Document],
    gold: &samecore::eval::GoldStandard,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.matching.seeds.is_none(),
        "--seeds names documents of the whole archive; cross-validation picks seeds per fold"
    );
    anyhow::ensure!(args.cv_deals >= 1, "--cv-deals must be at least 1");
    let last_deal = args
        .cv_seed
        .checked_add(args.cv_deals)
        .ok_or_else(|| anyhow::anyhow!("--cv-seed + --cv-deals is past the largest seed"))?;
    let mut base = run_spec(
        args.algo,
        &args.matching,
        thresholds[0],
        args.seed,
        docs,
        gold,
    )?;
    base.matching.seeds.clear();
    let link_shares = grid(
        "--cv-link-shares",
        args.cv_link_shares.as_deref(),
        "--link-share",
        args.matching.link_share.is_some(),
        &base,
    )?;
    let cross_links = grid(
        "--cv-cross-links",
        args.cv_cross_links.as_deref(),
        "--cross-links",
        args.matching.cross_links.is_some(),
        &base,
    )?;
    let seeds: Vec<u64> = (args.seed..args.seed + args.runs).collect();
    let progress = Progress::new();
    let mut deals: Vec<Vec<FoldResult>> = Vec::new();
    for deal in args.cv_seed..last_deal {
        let plan = CvPlan {
            folds,
            deal,
            objective: args.objective,
            link_shares: link_shares.clone(),
            cross_links: cross_links.clone(),
        };
        deals.push(with_progress_bar(&progress, COUNT, || {
            cross_validate(
                detector,
                docs,
                &gold.cluster_of,
                &gold.names,
                &base,
                thresholds,
                &seeds,
                &plan,
                &progress,
            )
        })?);
    }
    let mut out = super::stdout_for(args.json);
    if args.json {
        let all: Vec<&FoldResult> = deals.iter().flatten().collect();
        serde_json::to_writer_pretty(&mut out, &all)?;
        writeln!(out)?;
        return Ok(());
    }
    if args.csv {
        return folds_csv(&mut out, args.objective, &deals);
    }
    if let [results] = &deals[..] {
        return one_deal(&mut out, args.objective, results);
    }
    many_deals(&mut out, &deals)
}

/// The values of a link rule to choose from (`flag`, a comma list of numbers in [0, 1]); empty
/// without the flag. Refused together with the rule's own flag `single`, and where the paper's
/// loop runs (the link rules need every pair scored before declaring).
fn grid(
    flag: &str,
    list: Option<&str>,
    single: &str,
    single_given: bool,
    base: &samecore::detectors::RunSpec,
) -> anyhow::Result<Vec<f64>> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    anyhow::ensure!(
        !single_given,
        "give {single} (one value) or {flag} (values to choose from), not both"
    );
    let values = list
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| (0.0..=1.0).contains(v))
                .ok_or_else(|| anyhow::anyhow!("{flag} {list:?}: {x:?} is not a number in [0, 1]"))
        })
        .collect::<anyhow::Result<Vec<f64>>>()?;
    super::run::refuse_where_the_loop_runs(flag, values.iter().any(|&v| v != 0.0), &base.matching)?;
    Ok(values)
}

/// The mean of each metric (`Metrics::columns`) over `folds`' test folds, and their impure
/// clusters summed.
fn test_means(folds: &[FoldResult]) -> ([f64; 9], f64) {
    let mut v = [0.0; 9];
    for f in folds {
        for (x, (_, m)) in v.iter_mut().zip(f.test.mean.columns()) {
            *x += m / folds.len() as f64;
        }
    }
    (v, folds.iter().map(|f| f.test.impure.mean).sum())
}

/// A CSV row per test fold of every deal: what its training folds chose (and the objective
/// there), then the test fold's metrics (mean over the seeds) and impure clusters.
fn folds_csv(
    out: &mut impl Write,
    objective: Objective,
    deals: &[Vec<FoldResult>],
) -> anyhow::Result<()> {
    let Some(first) = deals.first().and_then(|d| d.first()) else {
        return Ok(());
    };
    let names: Vec<&str> = first.test.mean.columns().iter().map(|(n, _)| *n).collect();
    writeln!(
        out,
        "deal,fold,train_documents,test_documents,test_clusters,threshold,link_share,\
         cross_links,train_objective,objective,{},impure",
        names.join(",")
    )?;
    for f in deals.iter().flatten() {
        let cells: Vec<String> = f
            .test
            .mean
            .columns()
            .iter()
            .map(|(_, m)| format!("{m:.4}"))
            .collect();
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.4},{objective:?},{},{:.2}",
            f.deal,
            f.fold + 1,
            f.documents.0,
            f.documents.1,
            f.test_clusters.len(),
            f.train.threshold,
            f.link_share,
            f.cross_links,
            objective.of(&f.train.mean),
            cells.join(","),
            f.test.impure.mean
        )?;
    }
    Ok(())
}

/// One deal: a line per fold with what it chose, the test table, the mean of the test folds.
fn one_deal(
    out: &mut impl Write,
    objective: Objective,
    results: &[FoldResult],
) -> anyhow::Result<()> {
    for f in results {
        writeln!(
            out,
            "fold {}: train {} documents, test {} documents ({} clusters); threshold {:.3}, link \
             share {:.2}, cross links {:.2} chosen for {:?} {:.3} on the training folds",
            f.fold + 1,
            f.documents.0,
            f.documents.1,
            f.test_clusters.len(),
            f.train.threshold,
            f.link_share,
            f.cross_links,
            objective,
            objective.of(&f.train.mean)
        )?;
    }
    table(
        out,
        "fold",
        results
            .iter()
            .map(|f| (format!("{} test", f.fold + 1), &f.test)),
    )?;
    let (means, impure) = test_means(results);
    let names = results[0].test.mean.columns();
    let line: Vec<String> = names
        .iter()
        .zip(means)
        .map(|((name, _), m)| format!("{name} {m:.3}"))
        .collect();
    writeln!(
        out,
        "mean of the {} test folds: {}; impure clusters (>= 5 pages, gold purity < 0.9) {impure:.1} \
         in all test folds",
        results.len(),
        line.join(", ")
    )?;
    Ok(())
}

/// Several deals: a line per deal (what its folds chose, the mean of its test folds), then
/// mean ± sd over the deals.
fn many_deals(out: &mut impl Write, deals: &[Vec<FoldResult>]) -> anyhow::Result<()> {
    let names = deals[0][0].test.mean.columns();
    let shown = [2, 3, 4, 8]; // pair F1, doc P, doc R, B3 F1
    let per_deal: Vec<([f64; 9], f64)> = deals.iter().map(|d| test_means(d)).collect();
    for (folds, (means, impure)) in deals.iter().zip(&per_deal) {
        let chose =
            |f: fn(&FoldResult) -> String| folds.iter().map(f).collect::<Vec<_>>().join("/");
        let cells: Vec<String> = shown
            .iter()
            .map(|&k| format!("{} {:.3}", names[k].0, means[k]))
            .collect();
        writeln!(
            out,
            "deal {}: thresholds {}, link shares {}, cross links {}; test {}, impure {impure:.1}",
            folds[0].deal,
            chose(|f| format!("{:.2}", f.train.threshold)),
            chose(|f| format!("{:.2}", f.link_share)),
            chose(|f| format!("{:.2}", f.cross_links)),
            cells.join(", ")
        )?;
    }
    let stat = |xs: Vec<f64>| {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        format!("{mean:.3} ± {:.3}", var.sqrt())
    };
    let cells: Vec<String> = (0..9)
        .map(|k| {
            format!(
                "{} {}",
                names[k].0,
                stat(per_deal.iter().map(|(m, _)| m[k]).collect())
            )
        })
        .collect();
    writeln!(
        out,
        "mean ± sd over {} deals (each the mean of its test folds): {}; impure clusters per deal \
         (all its test folds) {}",
        deals.len(),
        cells.join(", "),
        stat(per_deal.iter().map(|(_, i)| *i).collect())
    )?;
    Ok(())
}
