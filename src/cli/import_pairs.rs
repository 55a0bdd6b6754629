//! `samecore import-pairs --project P OUT/pairs.parquet`: the Spark job's scored pairs as a run
//! of a project, so clusters, the pair view (pages re-read from the archives), sampling, labels
//! and codes work on it as on a local run. The archives are the ones the shards were signed
//! from (the job's `run.json` names them; `--archives` when they moved); every page of the job
//! must be found in them, and the job's clusters are checked against the clusters rebuilt here.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use samecore::DocId;
use samecore::cluster::ClusterRule;
use samecore::detectors::{Algo, Detection, RunSpec};
use samecore::export::shard::read_spark_run;
use samecore::matching::allpairs::outcome_from_pairs;
use samecore::matching::{Guess, MatchParams, Mode, ScoredPair};

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
    /// Clusters from the pairs: transitive (what the job computed), representative, average
    /// or centre.
    #[arg(long, default_value = "transitive")]
    pub rule: ClusterRule,
    /// Seed of the document order the representative rule walks.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Run `samecore import-pairs`.
pub fn run(args: ImportPairsArgs) -> anyhow::Result<()> {
    let spark = read_spark_run(&args.pairs)
        .with_context(|| format!("cannot read the Spark run at {}", args.pairs.display()))?;
    let algo = spark.run.get("algo").and_then(|a| a.as_str()).unwrap_or("");
    anyhow::ensure!(
        algo == "spotsigs",
        "the Spark run is of {algo:?}; import-pairs brings SpotSigs pairs"
    );
    let threshold = spark.threshold().context("run.json has no threshold")?;
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
    let (docs, gold, gold_source) = super::run::load(&archives, None)?;
    let by_key: HashMap<&str, DocId> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.capture.as_str(), DocId(i as u32)))
        .collect();
    let find = |key: &str| -> anyhow::Result<DocId> {
        by_key.get(key).copied().with_context(|| {
            format!(
                "page {key:?} of the Spark run is not in the archives (signed from other files?)"
            )
        })
    };
    let mut signed = vec![false; docs.len()];
    let mut spark_cluster: Vec<Option<i64>> = vec![None; docs.len()];
    for page in &spark.pages {
        let d = find(&page.key)?.index();
        signed[d] = page.signatures_kept > 0;
        spark_cluster[d] = Some(page.cluster);
    }
    let missing = spark_cluster.iter().filter(|c| c.is_none()).count();
    anyhow::ensure!(
        missing == 0,
        "{missing} page(s) of the archives are not in the Spark run: it was signed from other \
         files or with other reading options"
    );
    let mut pairs = Vec::with_capacity(spark.pairs.len());
    for p in &spark.pairs {
        let (a, b) = (find(&p.a_key)?, find(&p.b_key)?);
        anyhow::ensure!(a != b, "the Spark run pairs page {:?} with itself", p.a_key);
        pairs.push(ScoredPair::new(a, b, p.score));
    }
    pairs.sort_by_key(|p| (p.a, p.b));
    let spec = RunSpec {
        matching: MatchParams {
            threshold,
            mode: Mode::AllPairs,
            guess: Guess::Best,
            seed: args.seed,
            ..MatchParams::default()
        },
        rule: args.rule,
    };
    let outcome = outcome_from_pairs(&signed, pairs, Vec::new(), &spec.matching);
    let detection = Detection::new(Algo::SpotSigs, spec, outcome);
    // The job's connected components must be the transitive clusters of its pairs.
    if args.rule == ClusterRule::Transitive {
        let mut same: HashMap<i64, u32> = HashMap::new();
        let agree = spark_cluster
            .iter()
            .zip(&detection.clustering.cluster_of)
            .all(|(s, &c)| *same.entry(s.unwrap_or(-1)).or_insert(c) == c)
            && same.len() == detection.clustering.representatives.len();
        anyhow::ensure!(
            agree,
            "the Spark job's clusters are not the connected components of its pairs"
        );
    }

    let mut project = samecore::store::Project::open(&args.project)
        .with_context(|| format!("cannot open project {}", args.project.display()))?;
    let names: Vec<String> = archives.iter().map(|a| a.display().to_string()).collect();
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
    let (run, _) = project
        .save_detection(&names, &docs, &detection, params, elapsed_ms)
        .with_context(|| format!("cannot store the run in {}", args.project.display()))?;
    if let Some(source) = gold_source.as_deref() {
        super::run::store_gold(&mut project, &docs, &gold, source)?;
    }
    let groups = detection.clustering.groups();
    let mut out = std::io::stdout().lock();
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
