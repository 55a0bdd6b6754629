//! A workspace: the archives a person opened, their gold standard, and the detector runs made
//! on them — what the workbench shows, computed here so the GUI only draws.
//!
//! Gold comes from the documents themselves (folder input: sub-folder names) or, for an archive
//! `X.warc.gz`, from a `X.gold.tsv` lying beside it (the project's sample archive ships one).
//!
//! Runs reuse what did not change: a [`PreparedCache`] keeps each detector's prepared
//! collection under the parameters that shaped it, so editing SpotSigs' antecedents re-signs
//! SpotSigs only, and changing a threshold re-signs nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::Result;
use crate::detectors::{Algo, Detection, DetectorOptions, RunSpec};
use crate::eval::sweep::SweepRow;
use crate::progress::Progress;
use crate::session::Session;
use crate::{DocId, Document};

/// The workbench's open archives: a library [`Session`] (documents, gold, prepared
/// detectors, the pages last read, each site's frame).
pub type Workspace = Session;

/// What the run panel asks for.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Detectors to run, side by side.
    pub algos: Vec<Algo>,
    /// Their parameters.
    pub options: DetectorOptions,
    /// Mode, guess, seed, cluster rule; the threshold is taken per algorithm from `thresholds`.
    pub base: RunSpec,
    /// Threshold of each detector's clusters.
    pub thresholds: BTreeMap<Algo, f64>,
}

/// One detector's result in a run as the workbench shows it: the library's run (detector,
/// prepared collection, clusters, times, metrics; reached through `Deref`) with the sweep and
/// the cluster summaries.
#[derive(Clone)]
pub struct AlgoRun {
    /// The library's run.
    pub run: crate::session::Run,
    /// Precision/recall/F1 against threshold (empty without gold, and until [`sweep_runs`]).
    pub sweep: Vec<SweepRow>,
    /// One summary per cluster of `detection`, largest first.
    pub clusters: Arc<Vec<ClusterSummary>>,
    /// The Spark job's pairs file this run was imported from (none: run here).
    pub imported: Option<PathBuf>,
}

impl std::ops::Deref for AlgoRun {
    type Target = crate::session::Run;

    fn deref(&self) -> &crate::session::Run {
        &self.run
    }
}

/// What the cluster list shows of one cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterSummary {
    /// Cluster index in the run's clustering.
    pub id: u32,
    /// Members: the representative first, then by ascending link score (weakest first).
    pub members: Vec<DocId>,
    /// Distinct sites (Henzinger's rule), sorted.
    pub sites: Vec<String>,
    /// The members captured first and last (by their capture dates as written), when any
    /// has a date: [`ClusterSummary::dates`].
    pub captured: Option<(DocId, DocId)>,
    /// Share of members carrying the cluster's most common gold label (`None` without gold).
    pub gold_purity: Option<f64>,
    /// Per member (same order): the member it was linked through and that link's score
    /// ([`Detection::linked_through`]).
    pub links: Vec<Option<(DocId, f64)>>,
    /// The weakest link of a member other than the representative (`None` for a page alone).
    pub weakest: Option<f64>,
    /// Who published first, each member's date and lag, sites and span
    /// ([`crate::dates::spread`]); `first` and `dates` index `members`.
    pub spread: crate::dates::spread::Spread,
    /// The story's title ([`crate::headline`]) of a cluster of two or more pages where it is
    /// not the representative's raw title; a page alone's is made when it is shown
    /// ([`ClusterSummary::title`]), not held for a million of them.
    pub story_title: Option<Box<str>>,
}

impl ClusterSummary {
    /// The story's title: the headline its members' titles agree on without their sites'
    /// own words ([`crate::headline`]), else the representative's title, else its key.
    pub fn title<'a>(&'a self, ws: &'a Workspace) -> std::borrow::Cow<'a, str> {
        if let Some(t) = &self.story_title {
            return std::borrow::Cow::Borrowed(t);
        }
        let docs = &ws.collection.docs;
        if self.members.len() == 1
            && let Some(h) = ws.titles().of_members(docs, &self.members)
            && docs[self.members[0].index()].title.as_deref() != Some(h.as_str())
        {
            return std::borrow::Cow::Owned(h);
        }
        std::borrow::Cow::Borrowed(self.raw_title(docs))
    }

    /// The representative's `<title>` as written, else its key. Read from the documents when
    /// shown, not held for every cluster (with the capture dates, ~100 MB at a million pages).
    pub fn raw_title<'a>(&self, docs: &'a [Document]) -> &'a str {
        let rep = &docs[self.members[0].index()];
        rep.title.as_deref().unwrap_or(&rep.key)
    }

    /// The earliest and latest capture dates, as written, when any member has one.
    pub fn dates<'a>(&self, docs: &'a [Document]) -> Option<(&'a str, &'a str)> {
        let (lo, hi) = self.captured?;
        let date = |d: DocId| docs[d.index()].date.as_deref().unwrap_or_default();
        Some((date(lo), date(hi)))
    }
}

/// The dates a pair is ordered by: when both pages are members of one of `clusters`, the
/// dates they count at in its spread (a date the story mentions is not taken for a
/// publication, [`crate::dates::spread`]), so the pair view says what the members table shows;
/// else each page's own.
pub fn pair_dates(
    clusters: &[ClusterSummary],
    docs: &[Document],
    a: DocId,
    b: DocId,
) -> (
    Option<crate::calendar::Published>,
    Option<crate::calendar::Published>,
) {
    for c in clusters {
        let (Some(ia), Some(ib)) = (
            c.members.iter().position(|&m| m == a),
            c.members.iter().position(|&m| m == b),
        ) else {
            continue;
        };
        return (c.spread.dates[ia], c.spread.dates[ib]);
    }
    (docs[a.index()].published, docs[b.index()].published)
}

/// Summaries of every cluster of `detection`, largest first (ties by smallest member).
pub fn summarize(ws: &Workspace, detection: &Detection) -> Vec<ClusterSummary> {
    let docs = &ws.collection.docs;
    let reps = &detection.clustering.representatives;
    let linked = detection.linked_through();
    let link_score = |d: DocId| linked.get(d.index()).copied().flatten().map(|(_, s)| s);
    let mut out: Vec<ClusterSummary> = detection
        .clustering
        .members()
        .into_iter()
        .enumerate()
        .filter(|(_, m)| !m.is_empty())
        .map(|(id, mut members)| {
            let rep = reps.get(id).copied().unwrap_or(members[0]);
            // The representative first, then the weakest links: what joined on little
            // evidence is what a coder should look at.
            members.sort_by(|&x, &y| {
                (x != rep)
                    .cmp(&(y != rep))
                    .then_with(|| {
                        let (sx, sy) = (link_score(x), link_score(y));
                        sx.unwrap_or(f64::INFINITY)
                            .total_cmp(&sy.unwrap_or(f64::INFINITY))
                    })
                    .then(x.cmp(&y))
            });
            let links: Vec<Option<(DocId, f64)>> = members
                .iter()
                .map(|d| linked.get(d.index()).copied().flatten())
                .collect();
            let weakest = members
                .iter()
                .filter(|&&d| d != rep)
                .filter_map(|&d| link_score(d))
                .min_by(f64::total_cmp);
            let (sites, captured, gold_purity) = cluster_facts(ws, &members);
            let story_title = (members.len() > 1)
                .then(|| ws.titles().of_members(docs, &members))
                .flatten()
                .filter(|t| docs[rep.index()].title.as_deref() != Some(t.as_str()))
                .map(String::into_boxed_str);
            let described: Vec<crate::dates::spread::Member> = members
                .iter()
                .map(|d| {
                    let doc = &docs[d.index()];
                    crate::dates::spread::Member {
                        site: doc.site.shown().to_string(),
                        published: doc.published,
                        captured: doc.date.as_deref().and_then(crate::dates::parse_iso),
                    }
                })
                .collect();
            ClusterSummary {
                spread: crate::dates::spread::spread(&described),
                links,
                weakest,
                id: id as u32,
                members,
                sites,
                captured,
                gold_purity,
                story_title,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a.members[0].cmp(&b.members[0]))
    });
    out
}

/// The sites, first and last captured members and gold purity of a cluster's `members`.
fn cluster_facts(
    ws: &Workspace,
    members: &[DocId],
) -> (Vec<String>, Option<(DocId, DocId)>, Option<f64>) {
    let docs = &ws.collection.docs;
    let mut sites: Vec<String> = members
        .iter()
        .map(|d| docs[d.index()].site.shown().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    sites.sort();
    sites.dedup();
    let mut dated = members
        .iter()
        .filter_map(|&d| docs[d.index()].date.as_deref().map(|date| (d, date)));
    let captured = dated.next().map(|first| {
        let (mut lo, mut hi) = (first, first);
        for d in dated {
            if d.1 < lo.1 {
                lo = d;
            } else if d.1 > hi.1 {
                hi = d;
            }
        }
        (lo.0, hi.0)
    });
    let gold_purity = ws.has_gold().then(|| {
        let mut counts: BTreeMap<Option<u32>, usize> = BTreeMap::new();
        for d in members {
            *counts
                .entry(ws.gold.cluster_of.get(d.index()).copied().flatten())
                .or_default() += 1;
        }
        counts.values().max().copied().unwrap_or(0) as f64 / members.len() as f64
    });
    (sites, captured, gold_purity)
}

/// A library run as the workbench shows it: its cluster summaries, and the sweep it keeps.
fn finish_run(ws: &Workspace, run: crate::session::Run, sweep: Vec<SweepRow>) -> AlgoRun {
    AlgoRun {
        clusters: Arc::new(summarize(ws, &run.detection)),
        run,
        sweep,
        imported: None,
    }
}

/// Every detector's result of one run.
#[derive(Clone)]
pub struct RunReport {
    /// One entry per requested detector, in request order.
    pub runs: Vec<AlgoRun>,
    /// Whether these runs join the runs shown (one detector run again) instead of replacing
    /// them.
    pub partial: bool,
}

/// Run every requested detector on `ws`, reusing what it has prepared.
pub fn run_detectors(
    ws: &Workspace,
    request: &RunRequest,
    progress: &Progress,
) -> Result<RunReport> {
    let mut runs = Vec::new();
    for &algo in &request.algos {
        progress.check()?;
        // Every stage of this detector names it in the progress bar.
        progress.set_context(algo.name());
        let mut spec = request.base.clone();
        spec.matching.threshold = request
            .thresholds
            .get(&algo)
            .copied()
            .unwrap_or_else(|| algo.default_threshold());
        if algo != Algo::SpotSigs {
            // The link rules were measured for SpotSigs; the others' scores run on other scales.
            spec.matching.set_link_rules(algo.default_link_rules());
        }
        let run = ws.run(algo, &request.options, &spec, progress)?;
        // The curves come later from `sweep_runs`, so the clusters show at once.
        runs.push(finish_run(ws, run, Vec::new()));
    }
    progress.set_context("");
    Ok(RunReport {
        runs,
        partial: false,
    })
}

/// Whether `path` is the output of the Spark job (`spark/`): its `pairs.parquet`, or the folder
/// holding it with its `run.json`.
pub fn spark_pairs_path(path: &std::path::Path) -> Option<PathBuf> {
    let pairs = if path.join("run.json").is_file() {
        path.join("pairs.parquet")
    } else {
        path.to_path_buf()
    };
    let named = pairs.file_name().is_some_and(|n| n == "pairs.parquet");
    let run = pairs.parent()?.join("run.json");
    (named && run.is_file()).then_some(pairs)
}

/// The Spark job's pairs (`pairs.parquet`, [`crate::export::shard::read_spark_run`]) as a
/// SpotSigs run of the open workspace, whose archives must be the ones the shards were signed
/// from: the pairs are the job's, clustered by the default rule (representative, with SpotSigs'
/// link rules) rather than the job's connected components, which chain through a site's frame
/// at low thresholds; the pages are signed here with the job's parameters, so the pair view
/// shows shared signatures and the threshold can move.
pub fn import_spark_run(
    ws: &Workspace,
    pairs_path: &std::path::Path,
    progress: &Progress,
) -> Result<RunReport> {
    use crate::Error;
    progress.stage("reading the Spark run", 0);
    let spark = crate::export::shard::read_spark_run(pairs_path)?;
    let params: crate::signature::SpotSigsParams = serde_json::from_value(
        spark.run.get("params").cloned().unwrap_or_default(),
    )
    .map_err(|e| {
        Error::InvalidParameter(format!(
            "{}: its signature parameters: {e}",
            pairs_path.display()
        ))
    })?;
    let detection = spark.detection(
        &ws.collection.docs,
        crate::cluster::ClusterRule::default(),
        0,
    )?;
    let options = DetectorOptions {
        spotsigs: params,
        ..DetectorOptions::default()
    };
    let (prepared, prepare_seconds) = ws.prepared(Algo::SpotSigs, &options, progress)?;
    let seconds = spark.run.get("seconds").and_then(|s| s.as_f64());
    let run = crate::session::Run {
        algo: Algo::SpotSigs,
        prepared,
        metrics: ws.metrics(&detection),
        detection: Arc::new(detection),
        prepare_seconds,
        detect_seconds: seconds.unwrap_or(0.0),
    };
    let mut run = finish_run(ws, run, Vec::new());
    run.imported = Some(pairs_path.to_path_buf());
    Ok(RunReport {
        runs: vec![run],
        partial: false,
    })
}

/// The precision/recall sweep of each run against the gold standard, in the order of `runs`:
/// every threshold of `thresholds` with `seeds` seeds (randomized procedures). Run after the
/// detectors so their clusters show at once, while this fills in the plot.
pub fn sweep_runs(
    ws: &Workspace,
    runs: &[AlgoRun],
    thresholds: &[f64],
    seeds: usize,
    progress: &Progress,
) -> Result<Vec<Vec<SweepRow>>> {
    runs.iter()
        .map(|run| ws.sweep(run, thresholds, seeds, progress))
        .collect()
}

/// The clusters of `run` at another threshold: a new matching run on the same prepared
/// collection (no tokenizing or signing again).
pub fn rerun_at(
    ws: &Workspace,
    run: &AlgoRun,
    threshold: f64,
    progress: &Progress,
) -> Result<AlgoRun> {
    Ok(finish_run(
        ws,
        ws.rerun(&run.run, threshold, progress)?,
        run.sweep.clone(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detectors::detector;

    /// The Spark job's output format, written here from a local all-pairs run of the sample,
    /// comes back as the same run (the job itself is compared with all-pairs in tests/spark.rs).
    #[test]
    fn a_spark_run_of_the_open_archives_is_imported_as_their_run() {
        use crate::export::shard::{SparkPage, SparkPair};
        let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample_archives/news-sample.warc.gz");
        let progress = Progress::new();
        let ws = Workspace::open(&[sample], &Default::default(), &progress).unwrap();
        let docs = &ws.collection.docs;
        let options = DetectorOptions::default();
        let prepared = detector(Algo::SpotSigs, &options)
            .unwrap()
            .prepare(docs, &progress)
            .unwrap();
        let mut spec = RunSpec::default_for(Algo::SpotSigs);
        spec.matching.mode = crate::matching::Mode::AllPairs;
        let local = prepared.detect(&spec, &progress).unwrap();
        assert!(local.pairs().len() > 100);

        // The job's pairs, with one more at the threshold between two stories whose pages
        // are copies (0.9 or more): the job's connected components join the two stories.
        let tight: Vec<DocId> = local
            .pairs()
            .iter()
            .filter(|p| p.score >= 0.9)
            .map(|p| p.a)
            .collect();
        let (a, b) = tight
            .iter()
            .flat_map(|&a| tight.iter().map(move |&b| (a, b)))
            .find(|&(a, b)| {
                local.clustering.cluster_of[a.index()] != local.clustering.cluster_of[b.index()]
            })
            .unwrap();
        let mut scored = local.pairs().to_vec();
        scored.push(crate::matching::ScoredPair::new(
            a,
            b,
            spec.matching.threshold,
        ));
        let components = crate::cluster::Clustering::transitive(
            scored.iter().map(|p| (p.a, p.b)),
            &vec![None; docs.len()],
            &[],
        );
        assert!(components.groups().len() < local.clustering.groups().len());
        let dir = tempfile::tempdir().unwrap();
        let pairs: Vec<SparkPair> = scored
            .iter()
            .map(|p| SparkPair {
                a_key: docs[p.a.index()].capture(),
                b_key: docs[p.b.index()].capture(),
                score: p.score,
                matched: None,
            })
            .collect();
        let pages: Vec<SparkPage> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| SparkPage {
                key: d.capture(),
                file: d.location.file.display().to_string(),
                cluster: i64::from(components.cluster_of[i]),
                signatures_kept: 10,
            })
            .collect();
        let pairs_path = dir.path().join("pairs.parquet");
        crate::export::write_file(&pairs, &pairs_path, None).unwrap();
        crate::export::write_file(&pages, &dir.path().join("clusters.parquet"), None).unwrap();
        let run = serde_json::json!({
            "format": crate::export::shard::SPARK_RUN_FORMAT,
            "algo": "spotsigs",
            "threshold": spec.matching.threshold,
            "params": options.spotsigs,
        });
        std::fs::write(dir.path().join("run.json"), run.to_string()).unwrap();

        assert_eq!(spark_pairs_path(dir.path()), Some(pairs_path.clone()));
        assert_eq!(spark_pairs_path(&pairs_path), Some(pairs_path.clone()));
        assert_eq!(spark_pairs_path(&dir.path().join("clusters.parquet")), None);
        let report = import_spark_run(&ws, &pairs_path, &progress).unwrap();
        let imported = &report.runs[0].detection;
        assert_eq!(imported.pairs().len(), local.pairs().len() + 1);
        // The run says where it came from (the cluster list names it "imported from Spark").
        assert_eq!(
            report.runs[0].imported.as_deref(),
            Some(pairs_path.as_path())
        );
        // Clustered by the default rule, whose link share refuses the weak pair: the stories
        // of a local run, not the job's components.
        assert_eq!(imported.clustering.groups(), local.clustering.groups());
        assert_eq!(report.runs[0].clusters.len(), summarize(&ws, &local).len());

        // A job whose clusters are not the components of its pairs is refused.
        let mut merged = pages.clone();
        merged.iter_mut().for_each(|p| p.cluster = 0);
        crate::export::write_file(&merged, &dir.path().join("clusters.parquet"), None).unwrap();
        let err = import_spark_run(&ws, &pairs_path, &progress)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("not the connected components"), "{err}");
        crate::export::write_file(&pages, &dir.path().join("clusters.parquet"), None).unwrap();

        // A run of other archives is refused, naming the page it cannot find.
        let other = Workspace::open(&[], &Default::default(), &progress).unwrap();
        let err = import_spark_run(&other, &pairs_path, &progress)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("is not in the archives"), "{err}");
    }
}
