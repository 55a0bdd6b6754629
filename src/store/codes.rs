//! The codebook, codes on pages with their provenance, and hand-edited clusters.
//!
//! A code is attached to a *page*, never to a cluster: coding a cluster writes one row per
//! member saying which run and cluster it came from, who applied it and when. A decision made
//! on the page itself (`source = page`, applied or removed) is never overwritten by a cluster
//! operation. So codes survive re-running detection, and [`crate::coding`] reconciles a new
//! run's clusters with them.
//!
//! A run's clusters are its result and stay as computed; hand edits (move a page out, split,
//! merge) are kept beside them (`manual_cluster`) and the *effective* cluster of a page is the
//! edited one when there is one.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{CodeId, PageId, Project, RunId, bad_value};
use crate::{Error, Result};

/// A code of the codebook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Code {
    /// The code.
    pub id: CodeId,
    /// Its unique name.
    pub name: String,
    /// What it means.
    pub description: String,
    /// Pages it is applied to.
    pub pages: u64,
}

/// Where a code on a page came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeSource {
    /// Propagated from a cluster a person coded.
    Cluster,
    /// Decided on the page itself (overrides cluster codes).
    Page,
    /// Propagated when a new run's clusters were reconciled with existing codes.
    Reconciled,
    /// Read from an export file.
    Imported,
}

impl CodeSource {
    /// The name stored and exported.
    pub fn as_str(self) -> &'static str {
        match self {
            CodeSource::Cluster => "cluster",
            CodeSource::Page => "page",
            CodeSource::Reconciled => "reconciled",
            CodeSource::Imported => "imported",
        }
    }
}

impl std::str::FromStr for CodeSource {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "cluster" => Ok(CodeSource::Cluster),
            "page" => Ok(CodeSource::Page),
            "reconciled" => Ok(CodeSource::Reconciled),
            "imported" => Ok(CodeSource::Imported),
            other => Err(Error::InvalidParameter(format!(
                "unknown code source {other:?}"
            ))),
        }
    }
}

/// A code decision on one page, with provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCode {
    /// The page.
    pub page: PageId,
    /// The page's key.
    pub key: String,
    /// The code's name.
    pub code: String,
    /// Applied (true) or removed from this page by an override (false).
    pub applied: bool,
    /// Where it came from.
    pub source: CodeSource,
    /// The run whose cluster it came from.
    pub run: Option<RunId>,
    /// The cluster it came from.
    pub cluster: Option<i64>,
    /// Who applied it.
    pub applied_by: String,
    /// When (UTC, ISO 8601).
    pub applied_at: Option<String>,
}

/// A cluster of a run as it stands after hand edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCluster {
    /// The effective cluster id.
    pub id: i64,
    /// Its members, by page id.
    pub members: Vec<PageId>,
    /// The representative the run chose, if still a member.
    pub representative: Option<PageId>,
    /// Whether a hand edit touched it.
    pub edited: bool,
}

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

fn code_id(tx: &rusqlite::Transaction<'_>, code: CodeId) -> Result<()> {
    let found = tx
        .prepare("SELECT 1 FROM codes WHERE id = ?1")?
        .exists([code.0])?;
    if found {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "no code {code} in the codebook"
        )))
    }
}

fn members(tx: &rusqlite::Transaction<'_>, run: RunId, cluster: i64) -> Result<Vec<i64>> {
    let mut stmt = tx.prepare(
        "SELECT doc_id FROM run_clusters WHERE run_id = ?1
         AND coalesce(manual_cluster, cluster) = ?2 ORDER BY doc_id",
    )?;
    let rows = stmt.query_map(params![run.0, cluster], |r| r.get(0))?;
    let out: Vec<i64> = rows.collect::<rusqlite::Result<_>>()?;
    if out.is_empty() {
        return Err(Error::InvalidParameter(format!(
            "run {run} has no cluster {cluster}"
        )));
    }
    Ok(out)
}

fn fresh_cluster(tx: &rusqlite::Transaction<'_>, run: RunId) -> Result<i64> {
    Ok(tx.query_row(
        "SELECT coalesce(max(max(cluster), max(coalesce(manual_cluster, cluster))) + 1, 0)
         FROM run_clusters WHERE run_id = ?1",
        [run.0],
        |r| r.get(0),
    )?)
}

impl Project {
    /// Add a code to the codebook.
    pub fn add_code(&mut self, name: &str, description: &str) -> Result<CodeId> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::InvalidParameter("a code needs a name".into()));
        }
        self.write(|tx| {
            let taken = tx
                .prepare("SELECT 1 FROM codes WHERE name = ?1")?
                .exists([name])?;
            if taken {
                return Err(Error::InvalidParameter(format!(
                    "a code named {name:?} exists"
                )));
            }
            tx.execute(
                "INSERT INTO codes (name, description) VALUES (?1, ?2)",
                [name, description],
            )?;
            Ok(CodeId(tx.last_insert_rowid()))
        })
    }

    /// Rename a code (its pages keep it).
    pub fn rename_code(&mut self, code: CodeId, new_name: &str) -> Result<()> {
        let new_name = new_name.trim();
        if new_name.is_empty() {
            return Err(Error::InvalidParameter("a code needs a name".into()));
        }
        self.write(|tx| {
            code_id(tx, code)?;
            let taken = tx
                .prepare("SELECT 1 FROM codes WHERE name = ?1 AND id <> ?2")?
                .exists(params![new_name, code.0])?;
            if taken {
                return Err(Error::InvalidParameter(format!(
                    "a code named {new_name:?} exists"
                )));
            }
            tx.execute(
                "UPDATE codes SET name = ?1 WHERE id = ?2",
                params![new_name, code.0],
            )?;
            Ok(())
        })
    }

    /// Merge code `from` into `into`: its pages get `into` (a page that had both keeps its
    /// decision on `into`), then `from` leaves the codebook.
    pub fn merge_codes(&mut self, from: CodeId, into: CodeId) -> Result<()> {
        if from == into {
            return Err(Error::InvalidParameter(
                "cannot merge a code into itself".into(),
            ));
        }
        self.write(|tx| {
            code_id(tx, from)?;
            code_id(tx, into)?;
            tx.execute(
                "INSERT OR IGNORE INTO page_codes (doc_id, code_id, applied, source, run_id,
                   cluster, applied_by, applied_at)
                 SELECT doc_id, ?2, applied, source, run_id, cluster, applied_by, applied_at
                 FROM page_codes WHERE code_id = ?1",
                params![from.0, into.0],
            )?;
            tx.execute("DELETE FROM page_codes WHERE code_id = ?1", [from.0])?;
            tx.execute("DELETE FROM codes WHERE id = ?1", [from.0])?;
            Ok(())
        })
    }

    /// The codebook, by name, with the number of pages each is applied to.
    pub fn codes(&self) -> Result<Vec<Code>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT c.id, c.name, c.description,
                   (SELECT count(*) FROM page_codes p WHERE p.code_id = c.id AND p.applied = 1)
                 FROM codes c ORDER BY c.name",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(Code {
                    id: CodeId(r.get(0)?),
                    name: r.get(1)?,
                    description: r.get(2)?,
                    pages: r.get::<_, i64>(3)?.max(0) as u64,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// A code by name.
    pub fn code_by_name(&self, name: &str) -> Result<Option<Code>> {
        Ok(self.codes()?.into_iter().find(|c| c.name == name.trim()))
    }

    /// Apply `code` to every member of a run's (effective) cluster, with provenance; pages with
    /// their own decision on that code keep it. Returns the number of pages written.
    pub fn code_cluster(
        &mut self,
        run: RunId,
        cluster: i64,
        code: CodeId,
        by: &str,
        source: CodeSource,
    ) -> Result<usize> {
        if source == CodeSource::Page {
            return Err(Error::InvalidParameter(
                "a cluster operation cannot write page decisions".into(),
            ));
        }
        self.write(|tx| {
            code_id(tx, code)?;
            let mut n = 0;
            let mut upsert = tx.prepare(&format!(
                "INSERT INTO page_codes (doc_id, code_id, applied, source, run_id, cluster,
                   applied_by, applied_at) VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, {NOW})
                 ON CONFLICT (doc_id, code_id) DO UPDATE SET applied = 1, source = excluded.source,
                   run_id = excluded.run_id, cluster = excluded.cluster,
                   applied_by = excluded.applied_by, applied_at = excluded.applied_at
                 WHERE page_codes.source <> 'page'"
            ))?;
            for doc in members(tx, run, cluster)? {
                n += upsert.execute(params![doc, code.0, source.as_str(), run.0, cluster, by])?;
            }
            Ok(n)
        })
    }

    /// [`Project::code_cluster`] of each of `clusters` (a search's stories); the pages written.
    pub fn code_clusters(
        &mut self,
        run: RunId,
        clusters: &[i64],
        code: CodeId,
        by: &str,
    ) -> Result<usize> {
        let mut n = 0;
        for &c in clusters {
            n += self.code_cluster(run, c, code, by, CodeSource::Cluster)?;
        }
        Ok(n)
    }

    /// Give `code` to the members of a cluster that have no decision on it yet (existing
    /// decisions and their provenance stay as they are); the number of pages coded.
    pub fn propagate_code(
        &mut self,
        run: RunId,
        cluster: i64,
        code: CodeId,
        by: &str,
    ) -> Result<usize> {
        self.write(|tx| {
            code_id(tx, code)?;
            let mut insert = tx.prepare(&format!(
                "INSERT OR IGNORE INTO page_codes (doc_id, code_id, applied, source, run_id,
                   cluster, applied_by, applied_at)
                 VALUES (?1, ?2, 1, 'reconciled', ?3, ?4, ?5, {NOW})"
            ))?;
            let mut n = 0;
            for doc in members(tx, run, cluster)? {
                n += insert.execute(params![doc, code.0, run.0, cluster, by])?;
            }
            Ok(n)
        })
    }

    /// Take `code` off every member of a cluster, except where a page decided for itself.
    pub fn uncode_cluster(&mut self, run: RunId, cluster: i64, code: CodeId) -> Result<usize> {
        self.write(|tx| {
            let mut n = 0;
            for doc in members(tx, run, cluster)? {
                n += tx.execute(
                    "DELETE FROM page_codes WHERE doc_id = ?1 AND code_id = ?2
                     AND source <> 'page'",
                    params![doc, code.0],
                )?;
            }
            Ok(n)
        })
    }

    /// Decide `code` on one page: applied or removed, whatever its cluster says.
    pub fn code_page(&mut self, page: PageId, code: CodeId, applied: bool, by: &str) -> Result<()> {
        self.write(|tx| {
            code_id(tx, code)?;
            tx.execute(
                &format!(
                    "INSERT INTO page_codes (doc_id, code_id, applied, source, run_id, cluster,
                       applied_by, applied_at) VALUES (?1, ?2, ?3, 'page', NULL, NULL, ?4, {NOW})
                     ON CONFLICT (doc_id, code_id) DO UPDATE SET applied = excluded.applied,
                       source = 'page', run_id = NULL, cluster = NULL,
                       applied_by = excluded.applied_by, applied_at = excluded.applied_at"
                ),
                params![page.0, code.0, applied, by],
            )?;
            Ok(())
        })
    }

    /// Forget a page's decision on a code (back to no code at all).
    pub fn clear_page_code(&mut self, page: PageId, code: CodeId) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "DELETE FROM page_codes WHERE doc_id = ?1 AND code_id = ?2",
                params![page.0, code.0],
            )?;
            Ok(())
        })
    }

    /// Every code decision on every page, by (page key, code name).
    pub fn page_codes(&self) -> Result<Vec<PageCode>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT p.doc_id, d.key, c.name, p.applied, p.source, p.run_id, p.cluster,
                   p.applied_by, p.applied_at
                 FROM page_codes p JOIN documents d ON d.id = p.doc_id
                 JOIN codes c ON c.id = p.code_id ORDER BY d.key, c.name",
            )?;
            let rows = stmt.query_map([], |r| {
                let source: String = r.get(4)?;
                Ok(PageCode {
                    page: PageId(r.get(0)?),
                    key: r.get(1)?,
                    code: r.get(2)?,
                    applied: r.get(3)?,
                    source: source
                        .parse()
                        .map_err(|_| bad_value(4, "code source", &source))?,
                    run: r.get::<_, Option<i64>>(5)?.map(RunId),
                    cluster: r.get(6)?,
                    applied_by: r.get(7)?,
                    applied_at: r.get(8)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// A run's clusters after hand edits, by id, singletons included.
    pub fn run_clusters(&self, run: RunId) -> Result<Vec<RunCluster>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT coalesce(manual_cluster, cluster), doc_id, representative,
                   manual_cluster IS NOT NULL
                 FROM run_clusters WHERE run_id = ?1
                 ORDER BY coalesce(manual_cluster, cluster), doc_id",
            )?;
            let rows = stmt.query_map([run.0], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    PageId(r.get(1)?),
                    r.get::<_, bool>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })?;
            let mut out: Vec<RunCluster> = Vec::new();
            for row in rows {
                let (id, page, rep, edited) = row?;
                if out.last().is_none_or(|c| c.id != id) {
                    out.push(RunCluster {
                        id,
                        members: Vec::new(),
                        representative: None,
                        edited: false,
                    });
                }
                if let Some(c) = out.last_mut() {
                    c.members.push(page);
                    c.edited |= edited;
                    if rep {
                        c.representative = Some(page);
                    }
                }
            }
            Ok(out)
        })
    }

    /// The effective cluster of a page in a run.
    pub fn cluster_of(&self, run: RunId, page: PageId) -> Result<Option<i64>> {
        self.read(|tx| {
            Ok(tx
                .query_row(
                    "SELECT coalesce(manual_cluster, cluster) FROM run_clusters
                     WHERE run_id = ?1 AND doc_id = ?2",
                    params![run.0, page.0],
                    |r| r.get(0),
                )
                .optional()?)
        })
    }

    /// Move `pages` (all members of `cluster`) into a new cluster of their own; its id.
    pub fn split_cluster(&mut self, run: RunId, cluster: i64, pages: &[PageId]) -> Result<i64> {
        if pages.is_empty() {
            return Err(Error::InvalidParameter(
                "a split needs at least one page".into(),
            ));
        }
        self.write(|tx| {
            let current = members(tx, run, cluster)?;
            if let Some(p) = pages.iter().find(|p| !current.contains(&p.0)) {
                return Err(Error::InvalidParameter(format!(
                    "page {p} is not in cluster {cluster} of run {run}"
                )));
            }
            let new = fresh_cluster(tx, run)?;
            for p in pages {
                tx.execute(
                    "UPDATE run_clusters SET manual_cluster = ?1 WHERE run_id = ?2 AND doc_id = ?3",
                    params![new, run.0, p.0],
                )?;
            }
            Ok(new)
        })
    }

    /// Move one page out of its cluster into a cluster of its own; its new id.
    pub fn move_page_out(&mut self, run: RunId, page: PageId) -> Result<i64> {
        let cluster = self.cluster_of(run, page)?.ok_or_else(|| {
            Error::InvalidParameter(format!("page {page} is not clustered in run {run}"))
        })?;
        self.split_cluster(run, cluster, &[page])
    }

    /// Merge cluster `from` into `into` by hand.
    pub fn merge_clusters(&mut self, run: RunId, into: i64, from: i64) -> Result<()> {
        if into == from {
            return Err(Error::InvalidParameter(
                "cannot merge a cluster into itself".into(),
            ));
        }
        self.write(|tx| {
            members(tx, run, into)?;
            for doc in members(tx, run, from)? {
                tx.execute(
                    "UPDATE run_clusters SET manual_cluster = ?1 WHERE run_id = ?2 AND doc_id = ?3",
                    params![into, run.0, doc],
                )?;
            }
            Ok(())
        })
    }

    /// Drop every hand edit of a run's clusters.
    pub fn reset_cluster_edits(&mut self, run: RunId) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE run_clusters SET manual_cluster = NULL WHERE run_id = ?1",
                [run.0],
            )?;
            Ok(())
        })
    }
}
