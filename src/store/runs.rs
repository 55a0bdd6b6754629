//! Archives, document identities, detector runs (parameters, seed, code version, timings,
//! scored pairs, clusters) and imported gold clusters.
//!
//! A page is identified the way the field does it — record id, URL, capture date, file +
//! offset — under its [`crate::Document::key`], which is unique inside a project. Run results
//! refer to pages by [`PageId`], so one page keeps its codes and labels across runs.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{PageId, Project, RunId};
use crate::document::RecordLocation;
use crate::{Document, Error, Result};

/// The identity of one page, without its content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageIdentity {
    /// [`Document::key`]: unique inside a project.
    pub key: String,
    /// `WARC-Record-ID`, when known.
    pub record_id: Option<String>,
    /// Target URL.
    pub url: Option<String>,
    /// Capture date.
    pub date: Option<String>,
    /// The archive file the record is in.
    pub file: Option<String>,
    /// Byte offset of the record in that file.
    pub offset: Option<u64>,
    /// Length of the record.
    pub length: Option<u64>,
    /// The page's site by henzinger §3's rule (for same-site / different-site splits).
    pub site: Option<String>,
    /// Where the record lives, with how it is stored, to re-read the raw page
    /// ([`crate::archive::read_raw`]).
    pub location: Option<RecordLocation>,
}

impl From<&Document> for PageIdentity {
    fn from(doc: &Document) -> Self {
        PageIdentity {
            key: doc.key.clone(),
            record_id: doc.record_id.clone(),
            url: doc.url.clone(),
            date: doc.date.clone(),
            file: Some(doc.location.file.to_string_lossy().into_owned()),
            offset: Some(doc.location.offset),
            length: Some(doc.location.length),
            site: (!doc.site.henzinger.is_empty()).then(|| doc.site.henzinger.clone()),
            location: Some(doc.location.clone()),
        }
    }
}

/// A page as stored: its [`PageId`] and identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// The page inside the project.
    pub id: PageId,
    /// Who it is.
    pub identity: PageIdentity,
}

/// What describes a run, apart from its results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The detector's name (`spotsigs`, `shingling`, ...).
    pub detector: String,
    /// Its parameters, as JSON.
    pub params: serde_json::Value,
    /// The seed of randomized processing, if any.
    pub seed: Option<u64>,
    /// samecore's version that made the run.
    pub code_version: String,
    /// Wall-clock time of the whole run, milliseconds.
    pub elapsed_ms: Option<u64>,
    /// Time per stage, as JSON (`{"tokenize": 120, ...}`).
    pub timings: serde_json::Value,
}

/// A stored run: its id, description and when it was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run.
    pub id: RunId,
    /// Its description.
    pub record: RunRecord,
    /// When it was stored (UTC, ISO 8601).
    pub created_at: String,
    /// Number of scored pairs.
    pub pairs: u64,
    /// Number of clusters with two or more members.
    pub clusters: u64,
}

/// A pair of pages a run scored.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoredPair {
    /// One page (the smaller id once stored).
    pub a: PageId,
    /// The other page.
    pub b: PageId,
    /// The detector's similarity.
    pub score: f64,
}

/// A scored pair with the site relation of its pages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RunPair {
    /// The pair.
    pub pair: ScoredPair,
    /// Whether both pages are on the same site; none when a site is unknown.
    pub same_site: Option<bool>,
}

/// One page's place in a run's clustering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterMember {
    /// The page.
    pub page: PageId,
    /// Its cluster (numbered by the run).
    pub cluster: i64,
    /// Whether it represents its cluster.
    pub representative: bool,
}

fn opt_u64(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

fn opt_i64(v: Option<u64>) -> Option<i64> {
    v.and_then(|v| i64::try_from(v).ok())
}

impl Project {
    /// Record that an archive was opened; returns its row (the same for the same path).
    pub fn add_archive(&mut self, path: &str) -> Result<i64> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO archives (path) VALUES (?1) ON CONFLICT (path) DO NOTHING",
                [path],
            )?;
            Ok(
                tx.query_row("SELECT id FROM archives WHERE path = ?1", [path], |r| {
                    r.get(0)
                })?,
            )
        })
    }

    /// The archives opened, in the order they were first opened.
    pub fn archives(&self) -> Result<Vec<String>> {
        self.read(|tx| {
            let mut stmt = tx.prepare("SELECT path FROM archives ORDER BY id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Store page identities (in one transaction), updating pages already known by key; their
    /// [`PageId`]s, in input order.
    pub fn upsert_pages(
        &mut self,
        archive: Option<i64>,
        pages: &[PageIdentity],
    ) -> Result<Vec<PageId>> {
        self.write(|tx| upsert_pages_tx(tx, archive, pages))
    }

    /// A page by key.
    pub fn page_by_key(&self, key: &str) -> Result<Option<Page>> {
        self.read(|tx| page_where(tx, "key = ?1", key))
    }

    /// A page by id.
    pub fn page(&self, id: PageId) -> Result<Option<Page>> {
        self.read(|tx| page_where(tx, "id = ?1", id.0))
    }

    /// All pages, by id.
    pub fn pages(&self) -> Result<Vec<Page>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(&format!("{PAGE_SELECT} ORDER BY id"))?;
            let rows = stmt.query_map([], page_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Store a run with its scored pairs and clusters, all in one transaction. Pairs are
    /// stored with the smaller page first; a pair given twice keeps the higher score.
    pub fn add_run(
        &mut self,
        run: &RunRecord,
        pairs: &[ScoredPair],
        clusters: &[ClusterMember],
    ) -> Result<RunId> {
        let params_json = serde_json::to_string(&run.params)?;
        let timings_json = serde_json::to_string(&run.timings)?;
        self.write(|tx| {
            tx.execute(
                "INSERT INTO runs (detector, params, seed, code_version, elapsed_ms, timings)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    run.detector,
                    params_json,
                    run.seed.map(|s| s as i64),
                    run.code_version,
                    opt_i64(run.elapsed_ms),
                    timings_json
                ],
            )?;
            let id = RunId(tx.last_insert_rowid());
            let mut insert = tx.prepare(
                "INSERT INTO run_pairs (run_id, a, b, score) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (run_id, a, b) DO UPDATE SET score = max(score, excluded.score)",
            )?;
            for p in pairs {
                if p.a == p.b {
                    return Err(Error::InvalidParameter(format!(
                        "a pair of page {} with itself",
                        p.a
                    )));
                }
                let (a, b) = if p.a < p.b { (p.a, p.b) } else { (p.b, p.a) };
                insert.execute(params![id.0, a.0, b.0, p.score])?;
            }
            let mut insert = tx.prepare(
                "INSERT INTO run_clusters (run_id, doc_id, cluster, representative)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for m in clusters {
                insert.execute(params![id.0, m.page.0, m.cluster, m.representative])?;
            }
            Ok(id)
        })
    }

    /// All runs, oldest first.
    pub fn runs(&self) -> Result<Vec<RunInfo>> {
        self.runs_where(None)
    }

    /// All runs, or only `only`.
    fn runs_where(&self, only: Option<RunId>) -> Result<Vec<RunInfo>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT r.id, r.detector, r.params, r.seed, r.code_version, r.elapsed_ms,
                        r.timings, r.created_at,
                        (SELECT count(*) FROM run_pairs p WHERE p.run_id = r.id),
                        (SELECT count(*) FROM (SELECT 1 FROM run_clusters c WHERE c.run_id = r.id
                           GROUP BY coalesce(c.manual_cluster, c.cluster) HAVING count(*) > 1))
                 FROM runs r WHERE ?1 IS NULL OR r.id = ?1 ORDER BY r.id",
            )?;
            let rows = stmt.query_map([only.map(|r| r.0)], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                    r.get::<_, i64>(8)?,
                    r.get::<_, i64>(9)?,
                ))
            })?;
            let mut runs = Vec::new();
            for row in rows {
                let (id, detector, params, seed, version, elapsed, timings, at, np, nc) = row?;
                runs.push(RunInfo {
                    id: RunId(id),
                    record: RunRecord {
                        detector,
                        params: serde_json::from_str(&params)?,
                        seed: seed.map(|s| s as u64),
                        code_version: version,
                        elapsed_ms: opt_u64(elapsed),
                        timings: serde_json::from_str(&timings)?,
                    },
                    created_at: at,
                    pairs: np.max(0) as u64,
                    clusters: nc.max(0) as u64,
                });
            }
            Ok(runs)
        })
    }

    /// One run.
    pub fn run(&self, id: RunId) -> Result<RunInfo> {
        self.runs_where(Some(id))?
            .into_iter()
            .next()
            .ok_or_else(|| Error::InvalidParameter(format!("no run {id} in this project")))
    }

    /// A run's scored pairs, ordered by (a, b), each with its site relation.
    pub fn run_pairs(&self, run: RunId) -> Result<Vec<RunPair>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT p.a, p.b, p.score, da.site, db.site FROM run_pairs p
                 JOIN documents da ON da.id = p.a JOIN documents db ON db.id = p.b
                 WHERE p.run_id = ?1 ORDER BY p.a, p.b",
            )?;
            let rows = stmt.query_map([run.0], |r| {
                let sa: Option<String> = r.get(3)?;
                let sb: Option<String> = r.get(4)?;
                Ok(RunPair {
                    pair: ScoredPair {
                        a: PageId(r.get(0)?),
                        b: PageId(r.get(1)?),
                        score: r.get(2)?,
                    },
                    same_site: match (sa, sb) {
                        (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => Some(a == b),
                        _ => None,
                    },
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Replace the gold clusters of the given document keys (`key -> cluster`); the number of
    /// keys that name a page already in the project.
    pub fn import_gold(&mut self, gold: &BTreeMap<String, String>) -> Result<usize> {
        self.write(|tx| {
            let mut insert = tx.prepare(
                "INSERT INTO gold (key, cluster) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET cluster = excluded.cluster",
            )?;
            let mut known = tx.prepare("SELECT 1 FROM documents WHERE key = ?1")?;
            let mut matched = 0;
            for (key, cluster) in gold {
                insert.execute([key, cluster])?;
                if known.exists([key])? {
                    matched += 1;
                }
            }
            Ok(matched)
        })
    }

    /// The gold clusters imported, by key.
    pub fn gold(&self) -> Result<BTreeMap<String, String>> {
        self.read(|tx| {
            let mut stmt = tx.prepare("SELECT key, cluster FROM gold ORDER BY key")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

/// [`Project::upsert_pages`] inside a transaction (also used by imports).
pub(crate) fn upsert_pages_tx(
    tx: &rusqlite::Transaction<'_>,
    archive: Option<i64>,
    pages: &[PageIdentity],
) -> Result<Vec<PageId>> {
    let mut upsert = tx.prepare(
        "INSERT INTO documents (archive_id, key, record_id, url, date, file, offset, length, site,
           location) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (key) DO UPDATE SET
           archive_id = coalesce(excluded.archive_id, archive_id),
           record_id = coalesce(excluded.record_id, record_id),
           url = coalesce(excluded.url, url),
           date = coalesce(excluded.date, date),
           file = coalesce(excluded.file, file),
           offset = coalesce(excluded.offset, offset),
           length = coalesce(excluded.length, length),
           site = coalesce(excluded.site, site),
           location = coalesce(excluded.location, location)
         RETURNING id",
    )?;
    let mut ids = Vec::with_capacity(pages.len());
    for p in pages {
        if p.key.is_empty() {
            return Err(Error::InvalidParameter("a page with an empty key".into()));
        }
        let id: i64 = upsert.query_row(
            params![
                archive,
                p.key,
                p.record_id,
                p.url,
                p.date,
                p.file,
                opt_i64(p.offset),
                opt_i64(p.length),
                p.site,
                p.location.as_ref().map(serde_json::to_string).transpose()?
            ],
            |r| r.get(0),
        )?;
        ids.push(PageId(id));
    }
    Ok(ids)
}

const PAGE_SELECT: &str =
    "SELECT id, key, record_id, url, date, file, offset, length, site, location FROM documents";

pub(crate) fn page_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Page> {
    page_row_at(r, 0)
}

/// A page whose ten columns (`id, key, record_id, url, date, file, offset, length, site,
/// location`) start at `first`.
pub(crate) fn page_row_at(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Page> {
    let location: Option<String> = r.get(first + 9)?;
    Ok(Page {
        id: PageId(r.get(first)?),
        identity: PageIdentity {
            key: r.get(first + 1)?,
            record_id: r.get(first + 2)?,
            url: r.get(first + 3)?,
            date: r.get(first + 4)?,
            file: r.get(first + 5)?,
            offset: opt_u64(r.get(first + 6)?),
            length: opt_u64(r.get(first + 7)?),
            site: r.get(first + 8)?,
            location: match location {
                Some(json) => Some(serde_json::from_str(&json).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        first + 9,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })?),
                None => None,
            },
        },
    })
}

fn page_where(
    tx: &rusqlite::Transaction<'_>,
    condition: &str,
    value: impl rusqlite::ToSql,
) -> Result<Option<Page>> {
    Ok(tx
        .query_row(
            &format!("{PAGE_SELECT} WHERE {condition}"),
            [value],
            page_row,
        )
        .optional()?)
}
