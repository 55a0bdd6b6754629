//! Cluster coding: what a sociologist does with clusters once they are found (Workbench paper
//! §1: tag a whole cluster of same-core pages once instead of every copy).
//!
//! In: a project with a run's clusters and a codebook. Out: codes on pages. The operations
//! themselves are methods of [`crate::store::Project`] (all SQL lives in the store):
//!
//! - codebook: [`Project::add_code`], [`Project::rename_code`], [`Project::merge_codes`],
//!   [`Project::codes`];
//! - coding: [`Project::code_cluster`] propagates a code to every member with provenance (run,
//!   cluster, who, when); [`Project::code_page`] overrides it on one page (applied or removed),
//!   and no cluster operation overwrites such a page decision;
//! - clusters by hand: [`Project::split_cluster`], [`Project::move_page_out`],
//!   [`Project::merge_clusters`], [`Project::reset_cluster_edits`].
//!
//! Codes belong to pages, so they survive re-running detection. This module adds the step that
//! follows a new run: [`reconcile`] lists, for each of the run's clusters that holds coded pages,
//! how far each code covers it, and [`propagate`] extends codes to the uncoded members of
//! clusters where enough members already carry them.

pub mod reliability;
pub mod round;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::store::codes::RunCluster;
use crate::store::{PageId, Project, RunId};
use crate::{Error, Result};

/// How a code covers a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Coverage {
    /// Every member carries the code.
    Full,
    /// Some members carry it, the others have no decision on it.
    Partial,
    /// Some members carry it and some were explicitly decided not to (page overrides): a
    /// person should look.
    Conflict,
}

/// One code in one cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeCoverage {
    /// The code's name.
    pub code: String,
    /// Members carrying it.
    pub coded: Vec<PageId>,
    /// Members where it was removed by a page decision.
    pub removed: Vec<PageId>,
    /// Members with no decision on it.
    pub undecided: Vec<PageId>,
    /// The verdict.
    pub coverage: Coverage,
}

impl CodeCoverage {
    /// Share of the cluster's members carrying the code.
    pub fn share(&self) -> f64 {
        let n = self.coded.len() + self.removed.len() + self.undecided.len();
        if n == 0 {
            0.0
        } else {
            self.coded.len() as f64 / n as f64
        }
    }
}

/// The codes found in one cluster of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterReconciliation {
    /// The cluster (effective id, after hand edits).
    pub cluster: i64,
    /// Its number of members.
    pub size: usize,
    /// Per code, by name.
    pub codes: Vec<CodeCoverage>,
}

/// For each cluster of `run` (two or more members) holding at least one coded page, the
/// coverage of each code; sorted by cluster id, codes by name.
pub fn reconcile(project: &Project, run: RunId) -> Result<Vec<ClusterReconciliation>> {
    project.run(run)?;
    let clusters = project.run_clusters(run)?;
    // page -> code -> applied
    let mut decisions: BTreeMap<PageId, BTreeMap<String, bool>> = BTreeMap::new();
    for pc in project.page_codes()? {
        decisions
            .entry(pc.page)
            .or_default()
            .insert(pc.code, pc.applied);
    }
    Ok(clusters
        .iter()
        .filter(|c| c.members.len() > 1)
        .filter_map(|c| reconcile_cluster(c, &decisions))
        .collect())
}

fn reconcile_cluster(
    cluster: &RunCluster,
    decisions: &BTreeMap<PageId, BTreeMap<String, bool>>,
) -> Option<ClusterReconciliation> {
    let names: BTreeSet<&String> = cluster
        .members
        .iter()
        .filter_map(|m| decisions.get(m))
        .flat_map(|d| d.iter().filter(|(_, applied)| **applied).map(|(n, _)| n))
        .collect();
    if names.is_empty() {
        return None;
    }
    let codes = names
        .into_iter()
        .map(|name| {
            let mut cov = CodeCoverage {
                code: name.clone(),
                coded: Vec::new(),
                removed: Vec::new(),
                undecided: Vec::new(),
                coverage: Coverage::Full,
            };
            for m in &cluster.members {
                match decisions.get(m).and_then(|d| d.get(name)) {
                    Some(true) => cov.coded.push(*m),
                    Some(false) => cov.removed.push(*m),
                    None => cov.undecided.push(*m),
                }
            }
            cov.coverage = if !cov.removed.is_empty() {
                Coverage::Conflict
            } else if !cov.undecided.is_empty() {
                Coverage::Partial
            } else {
                Coverage::Full
            };
            cov
        })
        .collect();
    Some(ClusterReconciliation {
        cluster: cluster.id,
        size: cluster.members.len(),
        codes,
    })
}

/// A coded cluster of an earlier run whose pages a new run put into several clusters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Split {
    /// The code.
    pub code: String,
    /// The run and cluster the code was applied to.
    pub origin: (RunId, i64),
    /// The new run's clusters holding those pages, with how many of them each (largest first).
    pub parts: Vec<(i64, usize)>,
}

/// A cluster of the new run that joins pages coded from different clusters, or coded pages
/// with pages that have no decision on the code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Merge {
    /// The new run's cluster.
    pub cluster: i64,
    /// Its size.
    pub size: usize,
    /// The earlier (run, cluster)s its coded pages came from.
    pub origins: Vec<(RunId, i64)>,
    /// The codes involved, with their coverage here.
    pub codes: Vec<(String, Coverage)>,
}

/// What a new run did to the coded clusters: which were split, which merged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CodeChanges {
    /// Coded clusters whose pages are now in several clusters.
    pub splits: Vec<Split>,
    /// New clusters joining differently coded or uncoded pages.
    pub merges: Vec<Merge>,
}

/// Compare the codes applied to clusters of earlier runs with `run`'s clusters: a code that
/// came from one cluster and is now spread over several is a split; a cluster of `run` whose
/// coded pages came from several clusters, or that holds coded and uncoded pages, is a merge.
/// A person decides what to do with each (extend the code with [`propagate`] or
/// [`Project::code_cluster`], or correct pages with [`Project::code_page`]).
pub fn changes(project: &Project, run: RunId) -> Result<CodeChanges> {
    project.run(run)?;
    let clusters = project.run_clusters(run)?;
    let cluster_of: BTreeMap<PageId, i64> = clusters
        .iter()
        .flat_map(|c| c.members.iter().map(move |m| (*m, c.id)))
        .collect();
    let decisions = project.page_codes()?;
    // (code, origin) -> new cluster -> pages
    let mut spread: BTreeMap<(String, (RunId, i64)), BTreeMap<i64, usize>> = BTreeMap::new();
    // new cluster -> origins of its coded pages
    let mut origins: BTreeMap<i64, BTreeSet<(RunId, i64)>> = BTreeMap::new();
    for d in decisions.iter().filter(|d| d.applied) {
        let (Some(origin_run), Some(origin_cluster)) = (d.run, d.cluster) else {
            continue;
        };
        if origin_run == run {
            continue;
        }
        let Some(&now) = cluster_of.get(&d.page) else {
            continue;
        };
        *spread
            .entry((d.code.clone(), (origin_run, origin_cluster)))
            .or_default()
            .entry(now)
            .or_default() += 1;
        origins
            .entry(now)
            .or_default()
            .insert((origin_run, origin_cluster));
    }
    let mut out = CodeChanges::default();
    for ((code, origin), parts) in spread {
        if parts.len() > 1 {
            let mut parts: Vec<(i64, usize)> = parts.into_iter().collect();
            parts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            out.splits.push(Split {
                code,
                origin,
                parts,
            });
        }
    }
    let coverage: BTreeMap<i64, ClusterReconciliation> = reconcile(project, run)?
        .into_iter()
        .map(|r| (r.cluster, r))
        .collect();
    for (cluster, from) in origins {
        let Some(rec) = coverage.get(&cluster) else {
            continue;
        };
        let uneven = rec.codes.iter().any(|c| c.coverage != Coverage::Full);
        if from.len() > 1 || uneven {
            out.merges.push(Merge {
                cluster,
                size: rec.size,
                origins: from.into_iter().collect(),
                codes: rec
                    .codes
                    .iter()
                    .map(|c| (c.code.clone(), c.coverage))
                    .collect(),
            });
        }
    }
    Ok(out)
}

/// Extend codes to the undecided members of `run`'s clusters where the code is
/// [`Coverage::Partial`] and its share of members is at least `min_share` (0 < share ≤ 1;
/// conflicts are left to a person). Provenance says `reconciled`, with the run and cluster.
/// Returns the number of pages coded.
pub fn propagate(project: &mut Project, run: RunId, by: &str, min_share: f64) -> Result<usize> {
    if !(min_share > 0.0 && min_share <= 1.0) {
        return Err(Error::InvalidParameter(format!(
            "the share of coded members must be in (0, 1], not {min_share}"
        )));
    }
    let plan = reconcile(project, run)?;
    let codebook: BTreeMap<String, _> = project
        .codes()?
        .into_iter()
        .map(|c| (c.name, c.id))
        .collect();
    let mut n = 0;
    for cluster in &plan {
        for cov in &cluster.codes {
            if cov.coverage == Coverage::Partial
                && cov.share() >= min_share
                && let Some(id) = codebook.get(&cov.code)
            {
                n += project.propagate_code(run, cluster.cluster, *id, by)?;
            }
        }
    }
    Ok(n)
}
