//! The headless command line. Each subcommand lives in its own file and is a thin layer over
//! the library; errors come back as `anyhow` chains that `main` prints.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub mod agreement;
pub mod assign;
pub mod clusters;
pub mod code;
pub mod codebook;
pub mod eval;
pub mod export;
pub mod history;
pub mod import_gold;
pub mod import_pairs;
pub mod info;
pub mod label;
pub mod literature;
pub mod merge;
pub mod passages;
pub mod progress_bar;
pub mod relocate;
pub mod round;
pub mod run;
pub mod sample;
pub mod search;
pub mod sign;
pub mod synth;

/// samecore finds same-core near-duplicate pages in web archives.
///
/// With no subcommand it opens the workbench (on ARCHIVE… when given; a project file among
/// them is opened with its archives).
#[derive(Debug, Parser)]
#[command(
    name = "samecore",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do; none opens the workbench.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Archives (WARC, ARC, WACZ, folder or zip of pages) to open in the workbench, or a
    /// project file (`.samecore`), opened with its archives.
    pub archives: Vec<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read archives and report what is in them: records per type, pages, skips, warnings.
    Info(info::InfoArgs),
    /// Run a detector once: clusters, scored pairs, and the metrics when gold is known.
    Run(run::RunArgs),
    /// Sweep thresholds x seeds against gold clusters: every metric, mean and sd.
    Eval(eval::EvalArgs),
    /// Generate a synthetic news archive (WARC or folder) with its gold clusters.
    Synth(synth::SynthArgs),
    /// Draw a sample of a run's pairs for labelling (uniform or stratified, by seed).
    Sample(sample::SampleArgs),
    /// Judge sampled pairs from the terminal (keys on stdin), or report estimates.
    Label(label::LabelArgs),
    /// Write pages, pairs, runs or codes of a project as CSV, TSV, JSON Lines or Parquet (or read
    /// them back).
    Export(export::ExportArgs),
    /// Read gold clusters (`doc,cluster`) into a project.
    ImportGold(import_gold::ImportGoldArgs),
    /// A run's clusters on the terminal (number, size, title, sites, first publisher, span,
    /// codes), or one cluster's members with their publication dates and lags.
    Clusters(clusters::ClustersArgs),
    /// Each URL captured several times: every capture against the one before (identical, frame
    /// only, core changed), with the core's token diff.
    History(history::HistoryArgs),
    /// What two pages share: aligned passages side by side, reuse shares, which came first and
    /// how the later derives (wholly, partially, non); or every passage of a run's pairs.
    Passages(passages::PassagesArgs),
    /// Find the stories of a research question: full-text search in the pages' cores, one row
    /// per story (the index beside the project is built or updated first).
    Search(search::SearchArgs),
    /// Code clusters and pages from the command line: codebook, apply, override, undo,
    /// reconcile with a new run.
    Code(code::CodeArgs),
    /// The codebook of variables: show it, write it to its file, read a new version from one.
    Codebook(codebook::CodebookArgs),
    /// A reliability round: a run's stories drawn for double coding by named coders (seeded,
    /// stratified by site, month or size), and each coder's progress.
    Round(round::RoundArgs),
    /// Write one package per coder of a reliability round: a single file with the stories,
    /// their texts and the codebook, coded on another machine without the archive.
    Assign(assign::AssignArgs),
    /// Bring coders' packages into the project: every value under its coder, nothing twice,
    /// a package changed by hand or of another project refused.
    Merge(merge::MergeArgs),
    /// Agreement between coders per variable: Krippendorff's alpha with a bootstrap interval,
    /// percent agreement, Cohen's and Fleiss' kappa, from a long table of coded values.
    Agreement(agreement::AgreementArgs),
    /// Tell a project where its archives are now, after they moved.
    Relocate(relocate::RelocateArgs),
    /// Sign archives for matching elsewhere: per input, Parquet shards of pages and signatures
    /// (for the Spark job in spark/).
    Sign(sign::SignArgs),
    /// Bring scored pairs computed elsewhere (the Spark job's pairs.parquet) into a project as
    /// a run.
    ImportPairs(import_pairs::ImportPairsArgs),
}

/// A number in [0, 1] (a threshold, a share, a precision target), checked when the command
/// line is read rather than after the archives are.
pub fn fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("not a number: {text:?}"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not in [0, 1]"))
    }
}

/// Standard output for a command's report: through [`samecore::terminal::Safe`], so page text
/// in it (titles, URLs, keys, passages) cannot drive the terminal; as it is for `json` output
/// (which escapes controls itself and is read by programs).
pub fn stdout_for(json: bool) -> Box<dyn std::io::Write> {
    let out = std::io::stdout().lock();
    if json {
        Box::new(out)
    } else {
        Box::new(samecore::terminal::Safe::new(out))
    }
}

/// A similarity threshold: in (0, 1] ([`samecore::matching::check_threshold`]), checked when
/// the command line is read.
pub fn threshold(text: &str) -> Result<f64, String> {
    let value = fraction(text)?;
    samecore::matching::check_threshold(value)
        .map(|()| value)
        .map_err(|e| e.to_string())
}

/// Who is working: `by` when given, else `$USER`, else `default`.
pub fn who(by: &Option<String>, default: &str) -> String {
    by.clone()
        .or_else(|| std::env::var("USER").ok())
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| default.into())
}

/// Open an existing project (a missing file is an error, not a new project).
pub fn open_existing(path: &std::path::Path) -> anyhow::Result<samecore::store::Project> {
    use anyhow::Context;
    let options = samecore::store::OpenOptions {
        create: false,
        ..Default::default()
    };
    samecore::store::Project::open_with(path, &options)
        .with_context(|| format!("cannot open project {}", path.display()))
}

/// The run `run` names, checked, or the project's latest.
pub fn run_or_latest(
    project: &samecore::store::Project,
    run: Option<i64>,
) -> anyhow::Result<samecore::store::RunId> {
    match run {
        Some(id) => Ok(project.run(samecore::store::RunId(id))?.id),
        None => match project.runs()?.last() {
            Some(r) => Ok(r.id),
            None => anyhow::bail!("the project has no run yet (samecore run ARCHIVE --project P)"),
        },
    }
}

/// Run one subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Info(args) => info::run(args),
        Command::Run(args) => run::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Sample(args) => sample::run(args),
        Command::Label(args) => label::run(args),
        Command::Export(args) => export::run(args),
        Command::ImportGold(args) => import_gold::run(args),
        Command::Relocate(args) => relocate::run(args),
        Command::Clusters(args) => clusters::run(args),
        Command::History(args) => history::run(args),
        Command::Passages(args) => passages::run(args),
        Command::Search(args) => search::run(args),
        Command::Code(args) => code::run(args),
        Command::Agreement(args) => agreement::run(args),
        Command::Codebook(args) => codebook::run(args),
        Command::Round(args) => round::run(args),
        Command::Assign(args) => assign::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Sign(args) => sign::run(args),
        Command::ImportPairs(args) => import_pairs::run(args),
    }
}
