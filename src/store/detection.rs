//! Store a [`Detection`] (the result of one detector run on a loaded collection) in a project:
//! the collection's documents in, their identities, the run's parameters, scored pairs and
//! clusters out — the bridge between the engine's [`crate::DocId`]s, which index one loaded
//! collection, and the project's [`PageId`]s, which stay valid across loads.

use std::collections::HashMap;

use serde_json::json;

use super::runs::{ClusterMember, PageIdentity, RunRecord, ScoredPair};
use super::{PageId, Project, RunId};
use crate::detectors::Detection;
use crate::{Document, Error, Result};

impl Project {
    /// Store `detection`, run on `docs` (indexed by [`crate::DocId`]) read from the archives
    /// `archives`: pages are added or updated by key, then the run with its parameters
    /// (`{"detector": detector_params, "run": <the RunSpec>}`), seed, this samecore's version,
    /// pairs and clusters. Returns the run and the page of each document.
    pub fn save_detection(
        &mut self,
        archives: &[String],
        docs: &[Document],
        detection: &Detection,
        detector_params: serde_json::Value,
        elapsed_ms: Option<u64>,
    ) -> Result<(RunId, Vec<PageId>)> {
        if detection.clustering.cluster_of.len() != docs.len() {
            return Err(Error::InvalidParameter(format!(
                "the detection covers {} documents, the collection has {}",
                detection.clustering.cluster_of.len(),
                docs.len()
            )));
        }
        let identities = identities(docs);
        let base = self
            .path()
            .and_then(std::path::Path::parent)
            .map(super::runs::absolute);
        // Pages, run, pairs and clusters in one transaction: a run that cannot be stored
        // leaves nothing behind.
        self.write(|tx| {
            let mut archive_ids = Vec::with_capacity(archives.len());
            for a in archives {
                archive_ids.push(super::runs::add_archive_tx(tx, base.as_deref(), a)?);
            }
            // With several archives, each page's own file (in its identity) says where it is from.
            let archive = match archive_ids.as_slice() {
                [only] => Some(*only),
                _ => None,
            };
            let pages = super::runs::upsert_pages_tx(tx, archive, &identities)?;
            let (pairs, members, record) =
                run_rows(&pages, detection, detector_params.clone(), elapsed_ms)?;
            let run = super::runs::add_run_tx(tx, &record, &pairs, &members)?;
            Ok((run, pages))
        })
    }
}

impl Project {
    /// A stored run that `detection` repeats: the same detector and run settings, and the same
    /// clusters of the same pages (by capture). Opening the same archives again and running
    /// the same detector gives such a run; the workbench does not store it a second time.
    /// The pages of `docs` come along, as [`Project::save_detection`] gives them.
    pub fn same_run(
        &self,
        docs: &[Document],
        detection: &Detection,
    ) -> Result<Option<(RunId, Vec<PageId>)>> {
        let spec = serde_json::to_value(&detection.spec)?;
        let candidates: Vec<RunId> = self
            .runs()?
            .into_iter()
            .rev()
            .filter(|r| {
                r.record.detector == detection.algo.name() && r.record.params["run"] == spec
            })
            .map(|r| r.id)
            .collect();
        if candidates.is_empty() {
            return Ok(None);
        }
        let id_of: HashMap<String, PageId> = self
            .pages()?
            .into_iter()
            .map(|p| (p.identity.key, p.id))
            .collect();
        let identities = identities(docs);
        let Some(pages) = identities
            .iter()
            .map(|i| id_of.get(&i.key).copied())
            .collect::<Option<Vec<PageId>>>()
        else {
            return Ok(None);
        };
        // Every cluster (pages alone too, so the same pages are covered) as a sorted member
        // list, sorted: comparable whatever their numbers. And every scored pair: a run with
        // other signatures (edited antecedents) scores differently even with the same clusters.
        let mut ours: HashMap<u32, Vec<PageId>> = HashMap::new();
        for (d, &c) in detection.clustering.cluster_of.iter().enumerate() {
            ours.entry(c).or_default().push(pages[d]);
        }
        let mut ours: Vec<Vec<PageId>> = ours.into_values().collect();
        ours.iter_mut().for_each(|m| m.sort());
        ours.sort();
        let pair = |a: PageId, b: PageId, s: f64| (a.min(b), a.max(b), s.to_bits());
        let mut our_pairs: Vec<(PageId, PageId, u64)> = detection
            .pairs()
            .iter()
            .map(|p| pair(pages[p.a.index()], pages[p.b.index()], p.score))
            .collect();
        our_pairs.sort_unstable();
        for run in candidates {
            let mut theirs: Vec<Vec<PageId>> = self
                .run_clusters(run)?
                .into_iter()
                .map(|c| c.members)
                .collect();
            theirs.iter_mut().for_each(|m| m.sort());
            theirs.sort();
            if theirs != ours {
                continue;
            }
            let mut their_pairs: Vec<(PageId, PageId, u64)> = self
                .run_pairs(run)?
                .into_iter()
                .map(|p| pair(p.pair.a, p.pair.b, p.pair.score))
                .collect();
            their_pairs.sort_unstable();
            if their_pairs == our_pairs {
                return Ok(Some((run, pages)));
            }
        }
        Ok(None)
    }
}

/// The pairs, cluster members and description of `detection` in project pages.
fn run_rows(
    pages: &[PageId],
    detection: &Detection,
    detector_params: serde_json::Value,
    elapsed_ms: Option<u64>,
) -> Result<(Vec<ScoredPair>, Vec<ClusterMember>, RunRecord)> {
    let page = |i: usize| {
        pages.get(i).copied().ok_or_else(|| {
            Error::InvalidParameter(format!("the detection names document {i}, not loaded"))
        })
    };
    let pairs = detection
        .pairs()
        .iter()
        .map(|p| {
            Ok(ScoredPair {
                a: page(p.a.index())?,
                b: page(p.b.index())?,
                score: p.score,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let reps = &detection.clustering.representatives;
    let members = detection
        .clustering
        .cluster_of
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            Ok(ClusterMember {
                page: page(i)?,
                cluster: i64::from(c),
                representative: reps.get(c as usize).is_some_and(|r| r.index() == i),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let record = RunRecord {
        detector: detection.algo.name().to_string(),
        params: json!({
            "detector": detector_params,
            "run": serde_json::to_value(&detection.spec)?,
        }),
        seed: Some(detection.spec.matching.seed),
        code_version: env!("CARGO_PKG_VERSION").to_string(),
        elapsed_ms,
        timings: json!({ "trace": serde_json::to_value(&detection.outcome.trace)? }),
    };
    Ok((pairs, members, record))
}

/// The identities of `docs` with every file made absolute (symlinks resolved), so a page is
/// found again from any working directory.
pub fn identities(docs: &[Document]) -> Vec<PageIdentity> {
    let mut absolute: HashMap<std::sync::Arc<std::path::Path>, std::sync::Arc<std::path::Path>> =
        HashMap::new();
    docs.iter()
        .map(|doc| {
            let mut identity = PageIdentity::from(doc);
            if let Some(location) = identity.location.as_mut() {
                let abs = absolute
                    .entry(location.file.clone())
                    .or_insert_with(|| super::runs::absolute(&location.file).into())
                    .clone();
                identity.file = Some(abs.to_string_lossy().into_owned());
                location.file = abs;
            }
            identity
        })
        .collect()
}
