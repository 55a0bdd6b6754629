//! Export from where you are: the selected cluster's pages, the cluster list as filtered, or
//! the current sample with its labels, to CSV, TSV, JSON Lines or Parquet (by the extension the
//! person types or picks), with the same writer and row types as `samecore export`
//! ([`crate::export`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::DocId;
use crate::export::{self, ClusterFileRow};
use crate::gui::model::workspace::{AlgoRun, ClusterSummary, Workspace};

/// What to export.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportWhat {
    /// The pages of one cluster of the shown run (its index in the run's cluster list).
    Cluster(usize),
    /// The clusters of the shown run listed now (after the filter), by index.
    Clusters(Vec<usize>),
    /// The current sample, one row per label (written by the project's worker).
    Sample,
    /// A search's matching pages, one row each with their story's rank and cluster.
    Search(std::sync::Arc<super::search::SearchAnswer>),
}

impl ExportWhat {
    /// A file name to offer.
    pub fn default_name(&self, run: Option<&AlgoRun>) -> String {
        match self {
            ExportWhat::Cluster(i) => {
                let id = run.and_then(|r| r.clusters.get(*i)).map_or(0, |c| c.id);
                format!("cluster-{id}.csv")
            }
            ExportWhat::Clusters(_) => "clusters.csv".into(),
            ExportWhat::Sample => "sample.csv".into(),
            ExportWhat::Search(_) => "search.csv".into(),
        }
    }
}

/// One cluster of the list, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterListRow {
    /// The cluster's number in the run.
    pub cluster: u32,
    /// Its pages.
    pub pages: usize,
    /// The story's title ([`crate::headline`]).
    pub title: String,
    /// The representative's `<title>` as written.
    pub representative_title: Option<String>,
    /// The representative's capture key.
    pub representative_key: String,
    /// The representative's URL.
    pub representative_url: Option<String>,
    /// Distinct sites.
    pub sites: usize,
    /// The sites, as a JSON array.
    pub site_list: String,
    /// Earliest capture.
    pub first_captured: Option<String>,
    /// Latest capture.
    pub last_captured: Option<String>,
    /// Share of members with the most common gold cluster.
    pub gold_purity: Option<f64>,
    /// The lowest score by which a member is linked to the cluster.
    pub weakest_link: Option<f64>,
}

/// The rows of the pages of `cluster`, with the page each was linked through.
pub fn cluster_rows(ws: &Workspace, cluster: &ClusterSummary) -> Vec<ClusterFileRow> {
    let docs = &ws.collection.docs;
    let story = cluster.title(ws).into_owned();
    cluster
        .members
        .iter()
        .zip(&cluster.links)
        .enumerate()
        .map(|(i, (d, link))| {
            let link = link.map(|(other, score): (DocId, f64)| (&docs[other.index()], score));
            let mut row = ClusterFileRow::new(&docs[d.index()], cluster.id, i == 0, link);
            row.story_title = Some(story.clone());
            row
        })
        .collect()
}

/// The rows of the listed clusters.
pub fn list_rows(ws: &Workspace, run: &AlgoRun, listed: &[usize]) -> Vec<ClusterListRow> {
    let docs = &ws.collection.docs;
    listed
        .iter()
        .filter_map(|&i| run.clusters.get(i))
        .map(|c| {
            let rep = &docs[c.members[0].index()];
            ClusterListRow {
                cluster: c.id,
                pages: c.members.len(),
                title: c.title(ws).into_owned(),
                representative_title: rep.title.as_deref().map(String::from),
                representative_key: rep.capture(),
                representative_url: rep.url.as_deref().map(String::from),
                sites: c.sites.len(),
                site_list: serde_json::to_string(&c.sites).unwrap_or_default(),
                first_captured: c.dates(docs).map(|d| d.0.to_string()),
                last_captured: c.dates(docs).map(|d| d.1.to_string()),
                gold_purity: c.gold_purity,
                weakest_link: c.weakest,
            }
        })
        .collect()
}

/// Write the cluster or list rows to `path`; the message for the person.
pub fn write(
    ws: &Workspace,
    run: &AlgoRun,
    what: &ExportWhat,
    path: &Path,
) -> crate::Result<String> {
    let n = match what {
        ExportWhat::Cluster(i) => {
            let cluster = run.clusters.get(*i).ok_or_else(|| {
                crate::Error::InvalidParameter("the cluster is no longer shown".into())
            })?;
            export::write_file(&cluster_rows(ws, cluster), path, None)?
        }
        ExportWhat::Clusters(listed) => {
            export::write_file(&list_rows(ws, run, listed), path, None)?
        }
        ExportWhat::Sample => {
            return Err(crate::Error::InvalidParameter(
                "the sample is written by the project's worker".into(),
            ));
        }
        ExportWhat::Search(_) => {
            return Err(crate::Error::InvalidParameter(
                "a search's pages are written by its own job".into(),
            ));
        }
    };
    Ok(format!("{n} rows written to {}", path.display()))
}
