//! `samecore sample --project FILE.samecore --run N --name NAME …`: draw a sample of a run's
//! pairs for labelling (henzinger §3.1–3.3) — uniform (`--size`) or stratified by similarity
//! band (`--bands`, `--per-stratum`, optionally `--split-site`) — reproducible by `--seed`,
//! optionally `--blind`. `--from-pairs` first records a run from the `--pairs` (and
//! `--clusters`) files of `samecore run`, with page identities from `--archives`; `--list`
//! shows the project's runs and samples.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use samecore::export::{self, ClusterFileRow, PairFileRow};
use samecore::labels::sample::{self, SamplePlan};
use samecore::store::runs::{ClusterMember, PageIdentity, RunRecord, ScoredPair};
use samecore::store::{Project, RunId};

/// Arguments of `samecore sample`.
#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The project file (created when missing).
    #[arg(long)]
    pub project: PathBuf,
    /// List the project's runs and samples and stop.
    #[arg(long)]
    pub list: bool,
    /// The run to sample (see --list); default: the latest.
    #[arg(long)]
    pub run: Option<i64>,
    /// Record a run from a `samecore run --pairs` file (`a_doc`, `b_doc`, `score`, ...; TSV,
    /// CSV, JSONL or Parquet) first.
    #[arg(long, value_name = "PAIRS.tsv")]
    pub from_pairs: Option<PathBuf>,
    /// With --from-pairs: the run's `--clusters` file (`doc<TAB>cluster`).
    #[arg(long, value_name = "CLUSTERS.tsv", requires = "from_pairs")]
    pub clusters: Option<PathBuf>,
    /// With --from-pairs: the archives the run read, so pages get their URL, date, site and
    /// record location (for same-site strata and term differences).
    #[arg(long, value_name = "ARCHIVE", requires = "from_pairs", num_args = 1..)]
    pub archives: Vec<PathBuf>,
    /// With --from-pairs: the detector that made the pairs.
    #[arg(long, default_value = "spotsigs")]
    pub detector: String,
    /// Name of the new sample [default: run<N>-<uniform|bands>-seed<S>].
    #[arg(long)]
    pub name: Option<String>,
    /// Uniform sample of this many pairs.
    #[arg(long, conflicts_with = "bands")]
    pub size: Option<usize>,
    /// Stratify by similarity band: ascending edges, e.g. 0.5,0.6,0.7,0.8,0.9,1.
    #[arg(long, value_delimiter = ',')]
    pub bands: Vec<f64>,
    /// Pairs drawn per stratum.
    #[arg(long, default_value_t = 50)]
    pub per_stratum: usize,
    /// Split strata into same-site and different-site pairs.
    #[arg(long)]
    pub split_site: bool,
    /// Seed of the random draw.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Blind labelling: reviewers see neither score, stratum nor detector.
    #[arg(long)]
    pub blind: bool,
}

/// Run `samecore sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<()> {
    // Only a sample of outside pairs may start a project; any other samples a stored run, so
    // a mistyped path is an error, not an empty project left behind.
    let mut project = if args.from_pairs.is_some() {
        Project::open(&args.project)
            .with_context(|| format!("cannot open project {}", args.project.display()))?
    } else {
        super::open_existing(&args.project)?
    };
    let mut out = super::stdout_for(false);
    if let Some(pairs) = &args.from_pairs {
        if !args.archives.is_empty() {
            let n = add_archives(&mut project, &args.archives)?;
            writeln!(out, "{n} pages read from {} archives", args.archives.len())?;
        }
        let run = record_run(
            &mut project,
            pairs,
            args.clusters.as_deref(),
            &args.detector,
        )?;
        let info = project.run(run)?;
        writeln!(
            out,
            "recorded run {run}: {} pairs, {} clusters",
            info.pairs, info.clusters
        )?;
    }
    if args.list {
        return list(&project, &mut out);
    }
    let run = match args.run {
        Some(id) => project.run(RunId(id))?.id,
        None => match project.runs()?.last() {
            Some(r) => r.id,
            None => bail!(
                "the project has no run yet; store one with `samecore run … --project` or --from-pairs"
            ),
        },
    };
    let plan = match args.size {
        Some(size) => SamplePlan::Uniform { size },
        None if args.bands.is_empty() && !args.split_site => {
            bail!("say how to sample: --size N, or --bands EDGES (and/or --split-site)")
        }
        None => SamplePlan::Stratified {
            edges: args.bands.clone(),
            per_stratum: args.per_stratum,
            split_by_site: args.split_site,
        },
    };
    let name = args.name.clone().unwrap_or_else(|| {
        let kind = if args.size.is_some() {
            "uniform"
        } else {
            "bands"
        };
        format!("run{run}-{kind}-seed{}", args.seed)
    });
    let (id, drawn, population) =
        sample::draw_and_store(&mut project, run, &name, &plan, args.seed, args.blind)?;
    writeln!(
        out,
        "sample {name:?} (id {id}): {} of {population} pairs of run {run}, {}, seed {}{}",
        drawn.pairs.len(),
        plan.method(),
        args.seed,
        if args.blind { ", blind" } else { "" }
    )?;
    if drawn.left_out > 0 {
        let (lo, hi) = sample::score_range(&project.run_pairs(run)?);
        eprintln!(
            "warning: {} of the run's {} pairs lie outside every band and were not sampled; \
             the estimates say nothing about them (widen --bands to cover scores {lo:.3} to \
             {hi:.3})",
            drawn.left_out, population,
        );
    }
    writeln!(out, "{:<32} {:>10} {:>6}", "stratum", "population", "drawn")?;
    for s in &drawn.strata {
        writeln!(out, "{:<32} {:>10} {:>6}", s.name, s.population, s.drawn)?;
    }
    Ok(())
}

/// The few parameters a person tells runs apart by (the full set is in `samecore export runs`).
fn params_summary(params: &serde_json::Value) -> String {
    let m = &params["run"]["matching"];
    match (
        m["threshold"].as_f64(),
        m["mode"].as_str(),
        m["guess"].as_str(),
    ) {
        (Some(t), Some(mode), Some(guess)) => {
            format!(
                "threshold {t}, {} / {}",
                mode.to_lowercase(),
                guess.to_lowercase()
            )
        }
        _ => {
            let text = params.to_string();
            let cut: String = text.chars().take(80).collect();
            if cut.len() < text.len() {
                format!("{cut}…")
            } else {
                cut
            }
        }
    }
}

fn list(project: &Project, out: &mut impl Write) -> anyhow::Result<()> {
    writeln!(out, "runs:")?;
    for r in project.runs()? {
        writeln!(
            out,
            "  {:>4}  {:<12} {:>8} pairs {:>6} clusters  seed {:<6} {}  {}",
            r.id,
            r.record.detector,
            r.pairs,
            r.clusters,
            r.record.seed.map_or("-".to_string(), |s| s.to_string()),
            r.created_at,
            params_summary(&r.record.params)
        )?;
    }
    writeln!(out, "samples:")?;
    for s in project.samples()? {
        writeln!(
            out,
            "  {:<20} {:>5} pairs  {:<10} run {:<4} seed {}{}",
            s.name,
            s.size,
            s.method,
            s.run.map_or("-".to_string(), |r| r.to_string()),
            s.seed,
            if s.blind { "  blind" } else { "" }
        )?;
    }
    Ok(())
}

/// Store the identities of every page of `archives` (metadata only, pages are not kept).
fn add_archives(project: &mut Project, archives: &[PathBuf]) -> anyhow::Result<usize> {
    let options = samecore::archive::ReadOptions {
        keep_html: samecore::archive::KeepHtml::None,
        ..Default::default()
    };
    let progress = samecore::progress::Progress::new();
    let collection =
        super::progress_bar::with_progress_bar(&progress, super::progress_bar::BYTES, || {
            samecore::archive::load(archives, &options, &progress)
        })
        .context("cannot read the archives")?;
    let identities = samecore::store::detection::identities(&collection.docs);
    let archive = match archives {
        [only] => Some(project.add_archive(&only.display().to_string())?),
        many => {
            for a in many {
                project.add_archive(&a.display().to_string())?;
            }
            None
        }
    };
    Ok(project.upsert_pages(archive, &identities)?.len())
}

/// Record a run from `samecore run`'s pair (and cluster) files; pages are matched by capture
/// key, and added with the identity the files give when the project does not have them.
fn record_run(
    project: &mut Project,
    pairs_file: &Path,
    clusters_file: Option<&Path>,
    detector: &str,
) -> anyhow::Result<RunId> {
    let pair_rows: Vec<PairFileRow> = export::read_rows(pairs_file, None)
        .with_context(|| format!("cannot read {}", pairs_file.display()))?;
    let cluster_rows: Vec<ClusterFileRow> = match clusters_file {
        Some(path) => export::read_rows(path, None)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => Vec::new(),
    };
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut identities: Vec<PageIdentity> = Vec::new();
    let mut intern = |identity: PageIdentity| -> usize {
        let n = identities.len();
        *index.entry(identity.key.clone()).or_insert_with(|| {
            identities.push(identity);
            n
        })
    };
    let side =
        |key: &str, doc: &str, url: &Option<String>, record_id: &Option<String>| PageIdentity {
            key: if key.is_empty() { doc } else { key }.to_string(),
            reader_key: Some(doc.to_string()),
            url: url.clone(),
            record_id: record_id.clone(),
            ..PageIdentity::default()
        };
    let mut raw_pairs = Vec::with_capacity(pair_rows.len());
    for r in &pair_rows {
        let a = intern(side(&r.a_key, &r.a_doc, &r.a_url, &r.a_record_id));
        let b = intern(side(&r.b_key, &r.b_doc, &r.b_url, &r.b_record_id));
        raw_pairs.push((a, b, r.score));
    }
    let mut raw_clusters = Vec::with_capacity(cluster_rows.len());
    for r in &cluster_rows {
        let p = intern(side(&r.key, &r.doc, &r.url, &r.record_id));
        raw_clusters.push((p, i64::from(r.cluster), r.representative));
    }
    let pages = project.upsert_pages(None, &identities)?;
    let pairs: Vec<ScoredPair> = raw_pairs
        .iter()
        .map(|&(a, b, score)| ScoredPair {
            a: pages[a],
            b: pages[b],
            score,
        })
        .collect();
    let clusters: Vec<ClusterMember> = raw_clusters
        .iter()
        .map(|&(p, cluster, representative)| ClusterMember {
            page: pages[p],
            cluster,
            representative,
        })
        .collect();
    let record = RunRecord {
        detector: detector.to_string(),
        params: serde_json::json!({ "pairs_file": pairs_file.display().to_string() }),
        seed: None,
        code_version: env!("CARGO_PKG_VERSION").to_string(),
        elapsed_ms: None,
        timings: serde_json::json!({}),
    };
    Ok(project.add_run(&record, &pairs, &clusters)?)
}
