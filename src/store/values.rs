//! The codebook's versions and the coded values of every coder.
//!
//! A codebook is stored whole at each version (`codebook_versions`): a change during coder
//! training makes a new version and every value records the version it was coded under. A
//! value is one row (unit, variable, coder, answer, value, version, when); a coder's later
//! answer is a new row, so the history stays and no coder's value ever replaces another's. A
//! lead's adjudicated value is a row of role `final` beside them. Undo marks a coder's latest
//! row undone (the one before counts again).

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{PageId, Project, RunId, bad_value};
use crate::codebook::{Answer, CODES, Codebook, UnitKind};
use crate::{Error, Result};

/// What a value is coded on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Unit {
    /// A story: cluster `cluster` of run `run` (as exports and the workbench number it).
    Story {
        /// The run.
        run: RunId,
        /// The cluster.
        cluster: i64,
    },
    /// One page.
    Page(PageId),
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unit::Story { run, cluster } => write!(f, "cluster {cluster} of run {run}"),
            Unit::Page(page) => write!(f, "page {page}"),
        }
    }
}

impl Unit {
    /// Story or page.
    pub fn kind(&self) -> UnitKind {
        match self {
            Unit::Story { .. } => UnitKind::Story,
            Unit::Page(_) => UnitKind::Page,
        }
    }
}

/// Whose value it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// One coder's own value.
    Coder,
    /// The lead's final (adjudicated) value.
    Final,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::Coder => "coder",
            Role::Final => "final",
        }
    }
}

/// A value as it stands: the latest not undone row of its coder (and role) for its unit and
/// variable.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredValue {
    /// The variable.
    pub variable: String,
    /// The unit.
    pub unit: Unit,
    /// Who.
    pub coder: String,
    /// A coder's own, or the final one.
    pub role: Role,
    /// The answer (with its value).
    pub answer: Answer,
    /// The codebook version it was coded under.
    pub version: i64,
    /// When.
    pub at: String,
}

/// One stored version of the codebook.
#[derive(Debug, Clone, PartialEq)]
pub struct CodebookVersion {
    /// Who saved it.
    pub by: String,
    /// When.
    pub at: String,
    /// Why it changed.
    pub note: String,
    /// The codebook (its `version` is this version's number).
    pub book: Codebook,
}

fn answer_of(kind: &str, value: Option<String>) -> rusqlite::Result<Answer> {
    Answer::from_stored(kind, value).ok_or_else(|| bad_value(0, "answer", kind))
}

impl Project {
    /// The codebook at its latest version (empty, version 0, before any was saved).
    pub fn codebook(&self) -> Result<Codebook> {
        self.read(|tx| {
            let row: Option<(i64, String)> = tx
                .query_row(
                    "SELECT version, codebook FROM codebook_versions
                     ORDER BY version DESC LIMIT 1",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            match row {
                None => Ok(Codebook::default()),
                Some((version, text)) => {
                    let mut book: Codebook = serde_json::from_str(&text)?;
                    book.version = version;
                    Ok(book)
                }
            }
        })
    }

    /// Every version of the codebook: (version, who, when, note).
    pub fn codebook_versions(&self) -> Result<Vec<(i64, String, String, String)>> {
        self.read(|tx| {
            let mut stmt =
                tx.prepare("SELECT version, by, at, note FROM codebook_versions ORDER BY version")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Every version of the codebook whole, oldest first, with who made it, when and why.
    pub fn codebook_history(&self) -> Result<Vec<CodebookVersion>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT version, by, at, note, codebook FROM codebook_versions ORDER BY version",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (version, by, at, note, text): (i64, String, String, String, String) = row?;
                let mut book: Codebook = serde_json::from_str(&text)?;
                book.version = version;
                out.push(CodebookVersion { by, at, note, book });
            }
            Ok(out)
        })
    }

    /// Store `book` as the codebook, checked first: a new version when it differs from the
    /// latest (its version number), else the latest's.
    pub fn save_codebook(&mut self, book: &Codebook, by: &str, note: &str) -> Result<i64> {
        book.check()?;
        let current = self.codebook()?;
        if current.version > 0 && current.variables == book.variables {
            return Ok(current.version);
        }
        let stored = Codebook {
            version: 0,
            variables: book.variables.clone(),
        };
        let text = serde_json::to_string(&stored)?;
        self.write(|tx| {
            let next = current.version + 1;
            tx.execute(
                "INSERT INTO codebook_versions (version, codebook, by, note) VALUES (?1, ?2, ?3, ?4)",
                params![next, text, by, note],
            )?;
            Ok(next)
        })
    }

    /// Record `coder`'s answer `raw` to `variable` on `unit` under the current codebook, checked
    /// against it (the variable exists, applies to this kind of unit, and takes this answer)
    /// and against the project (the story or page exists). Nothing is stored when a check
    /// fails.
    pub fn set_value(
        &mut self,
        unit: Unit,
        variable: &str,
        coder: &str,
        raw: &str,
        role: Role,
    ) -> Result<Answer> {
        if coder.trim().is_empty() {
            return Err(Error::InvalidParameter("say who is coding".into()));
        }
        let book = self.codebook()?;
        let var = book.variable(variable).ok_or_else(|| {
            let names: Vec<&str> = book.variables.iter().map(|v| v.name.as_str()).collect();
            Error::InvalidParameter(if variable == CODES {
                "the tag codes are coded with `samecore code apply`, not as a value".into()
            } else {
                format!(
                    "no variable {variable:?} in the codebook (it has: {})",
                    if names.is_empty() {
                        "none yet".to_string()
                    } else {
                        names.join(", ")
                    }
                )
            })
        })?;
        if var.unit != unit.kind() {
            return Err(Error::InvalidParameter(format!(
                "variable {variable} is coded on a {}, not a {}",
                var.unit.name(),
                unit.kind().name()
            )));
        }
        let answer = var.parse(raw)?;
        let (kind, value) = answer.stored();
        let version = book.version;
        self.write(|tx| {
            let (run, cluster, doc) = match unit {
                Unit::Story { run, cluster } => {
                    let found: Option<i64> = tx
                        .query_row(
                            "SELECT 1 FROM run_clusters WHERE run_id = ?1
                             AND coalesce(manual_cluster, cluster) = ?2 LIMIT 1",
                            params![run.0, cluster],
                            |r| r.get(0),
                        )
                        .optional()?;
                    if found.is_none() {
                        return Err(Error::InvalidParameter(format!(
                            "run {} has no cluster {cluster}",
                            run.0
                        )));
                    }
                    (Some(run.0), Some(cluster), None)
                }
                Unit::Page(page) => {
                    let found: Option<i64> = tx
                        .query_row("SELECT 1 FROM documents WHERE id = ?1", [page.0], |r| {
                            r.get(0)
                        })
                        .optional()?;
                    if found.is_none() {
                        return Err(Error::InvalidParameter(format!("no page {}", page.0)));
                    }
                    (None, None, Some(page.0))
                }
            };
            tx.execute(
                "INSERT INTO coded_values (variable, unit_kind, run_id, cluster, doc_id, coder,
                   role, answer, value, version)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    variable,
                    unit.kind().name(),
                    run,
                    cluster,
                    doc,
                    coder,
                    role.as_str(),
                    kind,
                    value,
                    version
                ],
            )?;
            Ok(())
        })?;
        Ok(answer)
    }

    /// Undo `coder`'s latest value (of `role`): its row is marked undone, the value before it
    /// counts again. What was undone (variable and unit), none when there was nothing.
    pub fn undo_value(&mut self, coder: &str, role: Role) -> Result<Option<(String, Unit)>> {
        self.write(|tx| {
            let row: Option<(i64, String, String, UnitColumns)> = tx
                .query_row(
                    // The coder's latest value given here (one merged from a package is
                    // undone in the package), latest as `values` counts it: by time.
                    "SELECT id, variable, unit_kind, run_id, cluster, doc_id FROM coded_values
                     WHERE coder = ?1 AND role = ?2 AND undone = 0 AND origin IS NULL
                     ORDER BY at DESC, id DESC LIMIT 1",
                    params![coder, role.as_str()],
                    |r| {
                        Ok((
                            r.get(0)?,
                            r.get(1)?,
                            r.get(2)?,
                            (r.get(3)?, r.get(4)?, r.get(5)?),
                        ))
                    },
                )
                .optional()?;
            let Some((id, variable, kind, (run, cluster, doc))) = row else {
                return Ok(None);
            };
            tx.execute("UPDATE coded_values SET undone = 1 WHERE id = ?1", [id])?;
            Ok(Some((variable, unit_of(&kind, run, cluster, doc)?)))
        })
    }

    /// Every value as it stands (each coder's latest for each unit and variable, and the final
    /// ones), ordered by variable, unit, role and coder.
    pub fn values(&self) -> Result<Vec<StoredValue>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                // One walk of the index in its order, the latest row of each (unit,
                // variable, coder, role) kept below: a correlated `max(id)` per row took
                // 1.7 s of 300,000 values.
                "SELECT variable, unit_kind, run_id, cluster, doc_id, coder, role,
                   answer, value, version, at
                 FROM coded_values
                 WHERE undone = 0
                 ORDER BY variable, unit_kind, run_id, cluster, doc_id, coder, role, id",
            )?;
            let rows = stmt.query_map([], |r| {
                let kind: String = r.get(1)?;
                let role: String = r.get(6)?;
                let answer: String = r.get(7)?;
                Ok((
                    r.get::<_, String>(0)?,
                    kind,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, String>(5)?,
                    role,
                    answer_of(&answer, r.get(8)?)?,
                    r.get::<_, i64>(9)?,
                    r.get::<_, String>(10)?,
                ))
            })?;
            let mut latest = Vec::new();
            for row in rows {
                let row = row?;
                let same = |a: &ValueRow| {
                    (&a.0, &a.1, a.2, a.3, a.4, &a.5, &a.6)
                        == (&row.0, &row.1, row.2, row.3, row.4, &row.5, &row.6)
                };
                // The latest by when it was coded (then by row): values merged from coders'
                // packages in any order stand the same.
                match latest.last_mut() {
                    Some(last) if same(last) => {
                        if row.9 >= last.9 {
                            *last = row;
                        }
                    }
                    _ => latest.push(row),
                }
            }
            // Ordered by variable, unit, role and coder (SQLite puts NULL first, as `None`
            // sorts before `Some`).
            latest.sort_by(|a, b| {
                (&a.0, &a.1, a.2, a.3, a.4, &a.6, &a.5)
                    .cmp(&(&b.0, &b.1, b.2, b.3, b.4, &b.6, &b.5))
            });
            let mut out = Vec::with_capacity(latest.len());
            for row in latest {
                let (variable, kind, run, cluster, doc, coder, role, answer, version, at) = row;
                out.push(StoredValue {
                    variable,
                    unit: unit_of(&kind, run, cluster, doc)?,
                    coder,
                    role: if role == "final" {
                        Role::Final
                    } else {
                        Role::Coder
                    },
                    answer,
                    version,
                    at,
                });
            }
            Ok(out)
        })
    }
}

/// A `coded_values` row as [`Project::values`] reads it.
type ValueRow = (
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    String,
    String,
    Answer,
    i64,
    String,
);

/// A unit's run, cluster and page columns as stored.
type UnitColumns = (Option<i64>, Option<i64>, Option<i64>);

fn unit_of(kind: &str, run: Option<i64>, cluster: Option<i64>, doc: Option<i64>) -> Result<Unit> {
    match (kind, run, cluster, doc) {
        ("story", Some(run), Some(cluster), _) => Ok(Unit::Story {
            run: RunId(run),
            cluster,
        }),
        ("page", _, _, Some(doc)) => Ok(Unit::Page(PageId(doc))),
        _ => Err(Error::Sqlite(bad_value(1, "unit", kind))),
    }
}
