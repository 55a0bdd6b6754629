//! `samecore import-pairs --project P OUT/pairs.parquet`: the Spark job's scored pairs as a run
//! of a project, so clusters, the pair view (pages re-read from the archives), sampling, labels
//! and codes work on it as on a local run. The archives are the ones the shards were signed
//! from (the job's `run.json` names them; `--archives` when they moved); every page of the job
//! must be found in them, and the job's clusters are checked against the clusters rebuilt here.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use samecore::cluster::ClusterRule;
use samecore::export::shard::read_spark_run;

/// Arguments of `samecore import-pairs`.
#[derive(Debug, Args)]
pub struct ImportPairsArgs {
    /// The project (created when missing).
    #[arg(long)]
    pub project: PathBuf,
    /// The job's `pairs.parquet` (a file or Spark's folder of part files), with its
    /// `clusters.parquet` and `run.json` beside it.
    pub pairs: PathBuf,
    /// The archives the shards were signed from, when they are no longer where `run.json`
    /// says.
    #[arg(long, num_args = 1..)]
    pub archives: Vec<PathBuf>,
    /// Clusters from the pairs: representative (the default, as `samecore run`: SpotSigs' link
    /// rules, no chains through a site's frame), transitive (the job's own clusters: connected
    /// components, which chain at low thresholds), average or centre.
    #[arg(long, default_value = "representative")]
    pub rule: ClusterRule,
    /// Seed of the document order the representative rule walks.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Run `samecore import-pairs`.
pub fn run(args: ImportPairsArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.pairs.exists(),
        "{} is not there: give the Spark job's pairs.parquet (a file or its folder)",
        args.pairs.display()
    );
    let spark = read_spark_run(&args.pairs)
        .with_context(|| format!("cannot read the Spark run at {}", args.pairs.display()))?;
    let archives: Vec<PathBuf> = if args.archives.is_empty() {
        let inputs = spark
            .run
            .get("inputs")
            .and_then(|i| i.as_array())
            .context("run.json does not name the archives: give them with --archives")?;
        inputs
            .iter()
            .filter_map(|i| i.as_str().map(PathBuf::from))
            .collect()
    } else {
        args.archives.clone()
    };
    for a in &archives {
        anyhow::ensure!(
            a.exists(),
            "archive {} of the Spark run is not there: give the archives with --archives",
            a.display()
        );
    }
    // Only the pages' identities are needed: nothing of their text is kept.
    let session = super::run::open(
        &archives,
        &samecore::session::OpenOptions {
            keep_html: samecore::archive::KeepHtml::None,
            ..Default::default()
        },
    )?;
    let docs = session.docs();
    let detection = spark.detection(docs, args.rule, args.seed)?;
    let threshold = detection.spec.matching.threshold;

    let mut project = samecore::store::Project::open(&args.project)
        .with_context(|| format!("cannot open project {}", args.project.display()))?;
    let params = serde_json::json!({
        "algo": "spotsigs",
        "from": "spark",
        "options": { "spotsigs": spark.run.get("params") },
        "spark": spark.run,
    });
    let elapsed_ms = spark
        .run
        .get("seconds")
        .and_then(serde_json::Value::as_f64)
        .map(|s| (s * 1000.0).round() as u64);
    let run = session
        .save(&mut project, &detection, params, elapsed_ms)
        .with_context(|| format!("cannot store the run in {}", args.project.display()))?;
    let groups = detection.clustering.groups();
    let mut out = super::stdout_for(false);
    writeln!(
        out,
        "imported {} pairs at threshold {threshold} over {} pages: {} clusters of 2+ pages \
         ({} rule); stored as run {run} in {}",
        detection.pairs().len(),
        docs.len(),
        groups.iter().filter(|g| g.len() > 1).count(),
        args.rule.name(),
        args.project.display()
    )?;
    Ok(())
}
