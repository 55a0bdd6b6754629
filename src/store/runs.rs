//! Archives, document identities, detector runs (parameters, seed, code version, timings,
//! scored pairs, clusters) and imported gold clusters.
//!
//! A page is identified the way the field does it — record id, URL, capture date, file +
//! offset — under its [`crate::Document::key`], which is unique inside a project. Run results
//! refer to pages by [`PageId`], so one page keeps its codes and labels across runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    /// The page's site: its registrable domain by the public suffix list, private and
    /// government suffixes included (`data.gov.uk`, `foo.blogspot.com`), for same-site /
    /// different-site splits and exports. (henzinger §3's rule, which the detectors' paper
    /// reports use, would say `gov.uk`.)
    pub site: Option<String>,
    /// Where the record lives, with how it is stored, to re-read the raw page
    /// ([`crate::archive::read_raw`]).
    pub location: Option<RecordLocation>,
    /// `WARC-Payload-Digest` (`sha1:…`), computed the same way for an archive record without
    /// one ([`crate::document::payload_sha1`]); a loose page's is `xxh3:…`
    /// ([`crate::document::content_digest`]).
    pub digest: Option<String>,
    /// HTTP status of the response.
    pub status: Option<u16>,
    /// Media type of the response (`text/html`).
    pub mime: Option<String>,
    /// The reader's own key ([`Document::key`]: record id, ARC `URL date`, or the path inside
    /// a folder or zip), the key gold files and `--seeds` name pages by, and the key projects
    /// before schema v3 stored the page under.
    pub reader_key: Option<String>,
    /// The page's `<title>`.
    #[serde(default)]
    pub title: Option<String>,
    /// When the page says it was published (ISO 8601: a day, or a time with its offset), its
    /// capture when it says nothing ([`crate::dates`]).
    #[serde(default)]
    pub published: Option<String>,
    /// Where that date was found: `meta`, `json-ld`, `time`, `url`, `text` or `capture`.
    #[serde(default)]
    pub published_source: Option<String>,
}

impl From<&Document> for PageIdentity {
    fn from(doc: &Document) -> Self {
        PageIdentity {
            key: if doc.capture_digest.is_none() {
                doc.key.to_string()
            } else {
                doc.capture()
            },
            record_id: doc.record_id().map(str::to_string),
            url: doc.url.as_deref().map(String::from),
            date: doc.date.as_deref().map(String::from),
            file: Some(doc.location.file.to_string_lossy().into_owned()),
            offset: Some(doc.location.offset),
            length: Some(doc.location.length),
            site: [&doc.site.registrable, &doc.site.henzinger]
                .into_iter()
                .find(|s| !s.is_empty())
                .map(|s| s.to_string()),
            location: Some(doc.location.clone()),
            digest: doc.digest().map(str::to_string),
            status: doc.status,
            mime: doc.content_type.as_deref().map(String::from),
            reader_key: Some(doc.key.to_string()),
            title: doc.title.as_deref().map(String::from),
            published: doc.published.map(|p| p.at.iso()),
            published_source: doc.published.map(|p| p.source.name().to_string()),
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

/// A page as a search's stories see it ([`Project::page_briefs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageBrief {
    /// The page.
    pub id: PageId,
    /// Its key.
    pub key: String,
    /// Its site.
    pub site: Option<String>,
    /// Its `<title>`.
    pub title: Option<String>,
    /// Its publication date (ISO 8601).
    pub published: Option<String>,
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

/// An archive of a project, with where it is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchivePlace {
    /// Its row.
    pub id: i64,
    /// Its absolute path when it was recorded.
    pub path: String,
    /// Its path relative to the project file's folder, when recorded on disk.
    pub relative: Option<String>,
    /// Where the file is now: the recorded path, or the relative one; none when neither exists.
    pub found: Option<PathBuf>,
}

/// `path` made absolute (symlinks resolved when the file exists).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// `target` relative to the folder `base` (both absolute), with `..` where needed; none when
/// they share no root (different drives).
pub(crate) fn relative_to(base: &Path, target: &Path) -> Option<PathBuf> {
    let base: Vec<_> = base.components().collect();
    let target: Vec<_> = target.components().collect();
    if base.first() != target.first() {
        return None;
    }
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..base.len() {
        rel.push("..");
    }
    for c in &target[common..] {
        rel.push(c);
    }
    Some(rel)
}

/// A file or folder called `name` in `folder` or below it, down to `depth` levels.
fn find_named(folder: &Path, name: &std::ffi::OsStr, depth: usize) -> Option<PathBuf> {
    find_below(folder, depth, &|f| {
        let direct = f.join(name);
        direct.exists().then_some(direct)
    })
}

/// A folder at or under `folder` (`depth` levels) holding every file of `files` (paths relative
/// to the folder an archive of loose pages was): that folder, renamed.
fn find_holding(folder: &Path, files: &[String], depth: usize) -> Option<PathBuf> {
    if files.is_empty() {
        return None;
    }
    find_below(folder, depth, &|f| {
        files
            .iter()
            .all(|x| f.join(x).is_file())
            .then(|| f.to_path_buf())
    })
}

/// What `found` finds in `folder`, else in its sub-folders (`depth` levels, in name order).
fn find_below(
    folder: &Path,
    depth: usize,
    found: &dyn Fn(&Path) -> Option<PathBuf>,
) -> Option<PathBuf> {
    if let Some(hit) = found(folder) {
        return Some(hit);
    }
    if depth == 0 {
        return None;
    }
    let mut subs: Vec<PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    subs.iter()
        .find_map(|sub| find_below(sub, depth - 1, found))
}

fn opt_u64(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

fn opt_i64(v: Option<u64>) -> Option<i64> {
    v.and_then(|v| i64::try_from(v).ok())
}

impl Project {
    /// Record that an archive was opened; returns its row (the same for the same file, however
    /// it was named). The archive is stored by its absolute path and, for a project on disk, by
    /// its path relative to the project file, so it is found again from any working directory
    /// and after the project and its archives move together ([`Project::locate`]).
    pub fn add_archive(&mut self, path: &str) -> Result<i64> {
        let base = self.path().and_then(Path::parent).map(absolute);
        self.write(|tx| add_archive_tx(tx, base.as_deref(), path))
    }

    /// The archives opened (absolute paths), in the order they were first opened.
    pub fn archives(&self) -> Result<Vec<String>> {
        Ok(self.archive_places()?.into_iter().map(|a| a.path).collect())
    }

    /// The files a command must not write over: this project file (with SQLite's companions)
    /// and every archive it has opened, where it was recorded and where it is now.
    pub fn inputs(&self) -> Result<crate::guard::Inputs> {
        let mut inputs = crate::guard::Inputs::new();
        if let Some(path) = self.path() {
            inputs = inputs.project(path);
        }
        for place in self.archive_places()? {
            inputs =
                inputs.archives(std::iter::once(PathBuf::from(&place.path)).chain(place.found));
        }
        Ok(inputs)
    }

    /// The archives opened with where they were recorded and where they are now.
    pub fn archive_places(&self) -> Result<Vec<ArchivePlace>> {
        let base = self.path().and_then(Path::parent).map(absolute);
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT id, coalesce(abs_path, path), rel_path FROM archives ORDER BY id",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                ))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (id, path, rel) = row?;
                let found = if Path::new(&path).exists() {
                    Some(PathBuf::from(&path))
                } else {
                    rel.as_ref()
                        .zip(base.as_ref())
                        .map(|(rel, base)| base.join(rel))
                        .filter(|p| p.exists())
                };
                out.push(ArchivePlace {
                    id,
                    path,
                    relative: rel,
                    found,
                });
            }
            Ok(out)
        })
    }

    /// Where a page's record can be read now: its recorded location when that file exists,
    /// else the same file found relative to the project file (the project and its archives
    /// were moved together, or the run was made from another directory). An error that says
    /// where it looked and how to point samecore at the new place otherwise.
    pub fn locate(&self, page: &Page) -> Result<RecordLocation> {
        let Some(location) = page.identity.location.clone() else {
            return Err(Error::InvalidParameter(format!(
                "page {} has no stored record location (it was imported, not read from an archive)",
                page.identity.key
            )));
        };
        if location.file.exists() {
            return Ok(location);
        }
        let wanted = location.file.to_string_lossy().into_owned();
        for place in self.archive_places()? {
            let Some(found) = place.found else { continue };
            if place.path == wanted {
                return Ok(RecordLocation {
                    file: found.into(),
                    ..location
                });
            }
            // A folder of pages: the page's file lies under the archive folder.
            if let Ok(inner) = location.file.strip_prefix(&place.path) {
                let candidate = found.join(inner);
                if candidate.exists() {
                    return Ok(RecordLocation {
                        file: candidate.into(),
                        ..location
                    });
                }
            }
        }
        Err(Error::ArchiveMissing {
            path: location.file.to_path_buf(),
            project: self.path().map(Path::to_path_buf).unwrap_or_default(),
        })
    }

    /// The files of the pages stored under the folder `path` (an archive of loose pages),
    /// relative to it.
    fn files_under(&self, path: &str) -> Result<Vec<String>> {
        let like = format!(
            "{}/%",
            path.replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT DISTINCT file FROM documents WHERE file LIKE ?1 ESCAPE '\\' ORDER BY file",
            )?;
            let files = stmt
                .query_map(params![like], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(files
                .into_iter()
                .filter_map(|f| f.get(path.len() + 1..).map(str::to_string))
                .collect())
        })
    }

    /// Point the project at archives that moved: every archive whose file is not found where
    /// it was recorded, nor relative to the project file, is looked for by name in `folder`
    /// (and its sub-folders, two levels deep), a folder of pages also by the files it held
    /// (renamed); each one found is recorded at its new place
    /// with its pages. Returns (old path, new path) for each archive moved.
    pub fn relocate(&mut self, folder: &Path) -> Result<Vec<(String, PathBuf)>> {
        let base = self.path().and_then(Path::parent).map(absolute);
        let mut moved = Vec::new();
        for place in self.archive_places()? {
            if place.found.is_some() {
                continue;
            }
            let Some(name) = Path::new(&place.path).file_name() else {
                continue;
            };
            // By name; else (a folder of pages renamed) the folder that holds its pages' files.
            let found = match find_named(&absolute(folder), name, 2) {
                Some(found) => found,
                None => {
                    let files = self.files_under(&place.path)?;
                    match find_holding(&absolute(folder), &files, 2) {
                        Some(found) => found,
                        None => continue,
                    }
                }
            };
            let (old, new) = (place.path.clone(), found);
            let new_str = new.to_string_lossy().into_owned();
            let rel = base
                .as_ref()
                .and_then(|b| relative_to(b, &new))
                .map(|r| r.to_string_lossy().into_owned());
            self.write(|tx| {
                tx.execute(
                    "UPDATE archives SET path = ?2, abs_path = ?2, rel_path = ?3 WHERE id = ?1",
                    params![place.id, new_str, rel],
                )?;
                // Pages of the archive (a file) or under it (a folder of pages).
                let mut stmt = tx.prepare(
                    "SELECT id, file, location FROM documents
                     WHERE file = ?1 OR file LIKE ?2 ESCAPE '\\'",
                )?;
                let like = format!(
                    "{}/%",
                    old.replace('\\', "\\\\")
                        .replace('%', "\\%")
                        .replace('_', "\\_")
                );
                let rows = stmt
                    .query_map(params![old, like], |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, Option<String>>(2)?,
                        ))
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                let mut update =
                    tx.prepare("UPDATE documents SET file = ?2, location = ?3 WHERE id = ?1")?;
                for (id, file, location) in rows {
                    let file = format!("{new_str}{}", &file[old.len()..]);
                    let location = match location {
                        Some(json) => {
                            let mut loc: RecordLocation = serde_json::from_str(&json)?;
                            loc.file = Path::new(&file).into();
                            Some(serde_json::to_string(&loc)?)
                        }
                        None => None,
                    };
                    update.execute(params![id, file, location])?;
                }
                Ok(())
            })?;
            moved.push((old, new));
        }
        Ok(moved)
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

    /// Every page's id, key, site, title and publication date, by id: what a search's stories
    /// need of them, without the rest of each page's row (a million pages in a fraction of
    /// [`Project::pages`]'s memory).
    pub fn page_briefs(&self) -> Result<Vec<PageBrief>> {
        self.read(|tx| {
            let mut stmt =
                tx.prepare("SELECT id, key, site, title, published FROM documents ORDER BY id")?;
            let rows = stmt.query_map([], |r| {
                Ok(PageBrief {
                    id: PageId(r.get(0)?),
                    key: r.get(1)?,
                    site: r.get(2)?,
                    title: r.get(3)?,
                    published: r.get(4)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The pages' count, largest id and sum of ids: changes whenever a page is added or
    /// removed (what the search index checks before it looks at every page).
    pub fn page_fingerprint(&self) -> Result<(u64, i64, i64)> {
        self.read(|tx| {
            Ok(tx.query_row(
                "SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0) FROM documents",
                [],
                |r| Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get(1)?, r.get(2)?)),
            )?)
        })
    }

    /// The pages with this key, record id, URL or reader key (a person names a page by any of
    /// them), by id.
    pub fn pages_named(&self, name: &str) -> Result<Vec<Page>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(&format!(
                "{PAGE_SELECT} WHERE key = ?1 OR record_id = ?1 OR url = ?1 OR reader_key = ?1
                 ORDER BY id"
            ))?;
            let rows = stmt.query_map([name], page_row)?;
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
        self.write(|tx| add_run_tx(tx, run, pairs, clusters))
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

    /// Replace the gold clusters of the given document keys (`key -> cluster`: a capture key,
    /// a reader key or a record id), recording where they came from (`folder names`, `file:<path>`);
    /// all in one transaction. The number of keys that name a page already in the project.
    pub fn import_gold(&mut self, gold: &BTreeMap<String, String>, source: &str) -> Result<usize> {
        self.write(|tx| {
            let mut insert = tx.prepare(
                "INSERT INTO gold (key, cluster, source) VALUES (?1, ?2, ?3)
                 ON CONFLICT (key) DO UPDATE SET cluster = excluded.cluster,
                   source = excluded.source",
            )?;
            // Every name of every page, read once: a lookup per key over three columns, one
            // of them unindexed, scanned the table per key (over an hour for 300k pages).
            let mut names = std::collections::HashSet::new();
            let mut all = tx.prepare("SELECT key, reader_key, record_id FROM documents")?;
            let mut rows = all.query([])?;
            while let Some(row) = rows.next()? {
                for i in 0..3 {
                    if let Some(name) = row.get::<_, Option<String>>(i)? {
                        names.insert(name);
                    }
                }
            }
            let mut matched = 0;
            for (key, cluster) in gold {
                insert.execute([key, cluster, source])?;
                if names.contains(key) {
                    matched += 1;
                }
            }
            Ok(matched)
        })
    }

    /// The gold clusters stored, by key, with where each came from.
    pub fn gold_with_source(&self) -> Result<BTreeMap<String, (String, String)>> {
        self.read(|tx| {
            let mut stmt = tx.prepare("SELECT key, cluster, source FROM gold ORDER BY key")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The gold clusters stored, by key.
    pub fn gold(&self) -> Result<BTreeMap<String, String>> {
        Ok(self
            .gold_with_source()?
            .into_iter()
            .map(|(key, (cluster, _))| (key, cluster))
            .collect())
    }
}

/// [`Project::add_archive`] inside a transaction; `base` is the project file's folder.
pub(crate) fn add_archive_tx(
    tx: &rusqlite::Transaction<'_>,
    base: Option<&Path>,
    path: &str,
) -> Result<i64> {
    let abs = absolute(Path::new(path));
    let abs_str = abs.to_string_lossy().into_owned();
    let rel = base
        .and_then(|dir| relative_to(dir, &abs))
        .map(|r| r.to_string_lossy().into_owned());
    tx.execute(
        "INSERT INTO archives (path, abs_path, rel_path) VALUES (?1, ?1, ?2)
         ON CONFLICT (path) DO UPDATE SET abs_path = excluded.abs_path,
           rel_path = coalesce(excluded.rel_path, rel_path)",
        params![abs_str, rel],
    )?;
    Ok(
        tx.query_row("SELECT id FROM archives WHERE path = ?1", [&abs_str], |r| {
            r.get(0)
        })?,
    )
}

/// [`Project::add_run`] inside a transaction.
pub(crate) fn add_run_tx(
    tx: &rusqlite::Transaction<'_>,
    run: &RunRecord,
    pairs: &[ScoredPair],
    clusters: &[ClusterMember],
) -> Result<RunId> {
    let params_json = serde_json::to_string(&run.params)?;
    let timings_json = serde_json::to_string(&run.timings)?;
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
}

/// [`Project::upsert_pages`] inside a transaction (also used by imports). A page is found by
/// its key (the capture); failing that, a page stored before schema v3 under the reader's key
/// at the same offset is re-keyed to the capture in place (with its gold), so its labels and
/// codes stay with it.
pub(crate) fn upsert_pages_tx(
    tx: &rusqlite::Transaction<'_>,
    archive: Option<i64>,
    pages: &[PageIdentity],
) -> Result<Vec<PageId>> {
    let mut upsert = tx.prepare(
        "INSERT INTO documents (archive_id, key, record_id, url, date, file, offset, length, site,
           location, digest, status, mime, reader_key, title, published, published_source)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
         ON CONFLICT (key) DO UPDATE SET
           archive_id = coalesce(excluded.archive_id, archive_id),
           record_id = coalesce(excluded.record_id, record_id),
           url = coalesce(excluded.url, url),
           date = coalesce(excluded.date, date),
           file = coalesce(excluded.file, file),
           offset = coalesce(excluded.offset, offset),
           length = coalesce(excluded.length, length),
           site = coalesce(excluded.site, site),
           location = coalesce(excluded.location, location),
           digest = coalesce(excluded.digest, digest),
           status = coalesce(excluded.status, status),
           mime = coalesce(excluded.mime, mime),
           reader_key = coalesce(excluded.reader_key, reader_key),
           title = coalesce(excluded.title, title),
           published = coalesce(excluded.published, published),
           published_source = CASE WHEN excluded.published IS NULL THEN published_source
                                    ELSE excluded.published_source END
         RETURNING id",
    )?;
    let mut legacy = tx.prepare(
        "SELECT id FROM documents WHERE legacy = 1 AND key = ?1 AND offset IS ?2
         AND NOT EXISTS (SELECT 1 FROM documents WHERE key = ?3)",
    )?;
    // An archive record that had no payload digest was keyed by XXH3 before every format
    // took the WARC's SHA-1: found again by its file, offset and URL.
    let mut computed = tx.prepare(
        "SELECT id, key FROM documents WHERE digest LIKE 'xxh3:%' AND url IS ?1 AND file IS ?2
         AND offset IS ?3 AND NOT EXISTS (SELECT 1 FROM documents WHERE key = ?4)",
    )?;
    // Most projects have none: then the look-up (a scan, `documents` has no index on file and
    // offset) is not made page by page.
    let old_digests: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM documents WHERE digest LIKE 'xxh3:%' AND url IS NOT NULL)",
        [],
        |r| r.get(0),
    )?;
    let mut rekey = tx.prepare("UPDATE documents SET key = ?2, legacy = 0 WHERE id = ?1")?;
    let mut rekey_gold = tx.prepare("UPDATE OR IGNORE gold SET key = ?2 WHERE key = ?1")?;
    let mut ids = Vec::with_capacity(pages.len());
    for p in pages {
        if p.key.is_empty() {
            return Err(Error::InvalidParameter("a page with an empty key".into()));
        }
        if let Some(old) = p.reader_key.as_deref().filter(|k| *k != p.key) {
            let found: Option<i64> = legacy
                .query_row(params![old, opt_i64(p.offset), p.key], |r| r.get(0))
                .optional()?;
            if let Some(id) = found {
                rekey.execute(params![id, p.key])?;
                rekey_gold.execute(params![old, p.key])?;
            }
        }
        if old_digests
            && p.url.is_some()
            && p.digest.as_deref().is_some_and(|d| d.starts_with("sha1:"))
        {
            let found: Option<(i64, String)> = computed
                .query_row(params![p.url, p.file, opt_i64(p.offset), p.key], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .optional()?;
            if let Some((id, old)) = found {
                rekey.execute(params![id, p.key])?;
                rekey_gold.execute(params![old, p.key])?;
            }
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
                p.location.as_ref().map(serde_json::to_string).transpose()?,
                p.digest,
                p.status,
                p.mime,
                p.reader_key,
                p.title,
                p.published,
                p.published_source
            ],
            |r| r.get(0),
        )?;
        ids.push(PageId(id));
    }
    Ok(ids)
}

const PAGE_SELECT: &str =
    "SELECT id, key, record_id, url, date, file, offset, length, site, location,
     digest, status, mime, reader_key, title, published, published_source FROM documents";

pub(crate) fn page_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Page> {
    page_row_at(r, 0)
}

/// A page whose seventeen columns (`id, key, record_id, url, date, file, offset, length, site,
/// location, digest, status, mime, reader_key, title, published, published_source`,
/// [`PAGE_COLUMNS`]) start at `first`.
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
            digest: r.get(first + 10)?,
            status: r.get(first + 11)?,
            mime: r.get(first + 12)?,
            reader_key: r.get(first + 13)?,
            title: r.get(first + 14)?,
            published: r.get(first + 15)?,
            published_source: r.get(first + 16)?,
        },
    })
}

/// Number of columns [`page_row_at`] reads.
pub(crate) const PAGE_COLUMNS: usize = 17;

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
