//! A persistent log of code edits, so a person who codes from scripts (`samecore code …`) can
//! undo the latest edit in a later invocation. Each entry holds, for the codes an edit touched,
//! their codebook rows and every page decision on them as they were before; undo puts exactly
//! that back. An entry can only be undone while no later edit touched the same codes (undo that
//! one first), so undoing never throws away someone else's later work.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{CodeId, Project};
use crate::{Error, Result};

/// A codebook row as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct CodeRow {
    id: i64,
    name: String,
    description: String,
}

/// A page decision as it was (every column of `page_codes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct DecisionRow {
    doc_id: i64,
    code_id: i64,
    applied: bool,
    source: String,
    run_id: Option<i64>,
    cluster: Option<i64>,
    applied_by: String,
    applied_at: Option<String>,
}

/// One logged edit, for listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeEdit {
    /// Its id.
    pub id: i64,
    /// Who made it.
    pub by: String,
    /// When (UTC, ISO 8601).
    pub at: String,
    /// What it was, in words.
    pub what: String,
    /// Whether it was undone.
    pub undone: bool,
}

fn ids_json(codes: &[CodeId]) -> Result<String> {
    Ok(serde_json::to_string(
        &codes.iter().map(|c| c.0).collect::<Vec<_>>(),
    )?)
}

impl Project {
    /// Run `edit` (a code operation) and log what the codes in `codes` were before it, so
    /// [`Project::undo_code_edit`] can put them back. `codes` must name every code the edit
    /// can change; for a code the edit creates, log it afterwards with
    /// [`Project::log_code_created`].
    pub fn logged_code_edit<T>(
        &mut self,
        by: &str,
        what: &str,
        codes: &[CodeId],
        edit: impl FnOnce(&mut Project) -> Result<T>,
    ) -> Result<T> {
        let entry = self.write(|tx| {
            let mut code_rows = Vec::new();
            let mut decisions = Vec::new();
            for code in codes {
                let row = tx
                    .query_row(
                        "SELECT id, name, description FROM codes WHERE id = ?1",
                        [code.0],
                        |r| {
                            Ok(CodeRow {
                                id: r.get(0)?,
                                name: r.get(1)?,
                                description: r.get(2)?,
                            })
                        },
                    )
                    .optional()?;
                code_rows.extend(row);
                let mut stmt = tx.prepare(
                    "SELECT doc_id, code_id, applied, source, run_id, cluster, applied_by,
                       applied_at FROM page_codes WHERE code_id = ?1",
                )?;
                let rows = stmt.query_map([code.0], |r| {
                    Ok(DecisionRow {
                        doc_id: r.get(0)?,
                        code_id: r.get(1)?,
                        applied: r.get(2)?,
                        source: r.get(3)?,
                        run_id: r.get(4)?,
                        cluster: r.get(5)?,
                        applied_by: r.get(6)?,
                        applied_at: r.get(7)?,
                    })
                })?;
                for row in rows {
                    decisions.push(row?);
                }
            }
            tx.execute(
                "INSERT INTO code_log (by, what, code_ids, codes_before, rows_before)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    by,
                    what,
                    ids_json(codes)?,
                    serde_json::to_string(&code_rows)?,
                    serde_json::to_string(&decisions)?
                ],
            )?;
            Ok(tx.last_insert_rowid())
        })?;
        match edit(self) {
            Ok(value) => Ok(value),
            Err(e) => {
                // Nothing changed: the entry would undo to the same state; drop it.
                self.write(|tx| {
                    tx.execute("DELETE FROM code_log WHERE id = ?1", [entry])?;
                    Ok(())
                })?;
                Err(e)
            }
        }
    }

    /// Log that `code` was just created by `by` (undo removes it again, with any decisions
    /// made on it since — but only when no later logged edit touched it).
    pub fn log_code_created(&mut self, by: &str, code: CodeId, name: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO code_log (by, what, code_ids, codes_before, rows_before)
                 VALUES (?1, ?2, ?3, '[]', '[]')",
                params![by, format!("add code {name:?}"), ids_json(&[code])?],
            )?;
            Ok(())
        })
    }

    /// Undo the latest code edit `by` made that is not undone yet; what it was, none when
    /// there is nothing to undo. Refused while a later edit (by anyone) touched the same codes.
    pub fn undo_code_edit(&mut self, by: &str) -> Result<Option<String>> {
        self.write(|tx| {
            let entry: Option<(i64, String, String, String, String)> = tx
                .query_row(
                    "SELECT id, what, code_ids, codes_before, rows_before FROM code_log
                     WHERE by = ?1 AND undone = 0 ORDER BY id DESC LIMIT 1",
                    [by],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .optional()?;
            let Some((id, what, ids, codes, rows)) = entry else {
                return Ok(None);
            };
            let ids: Vec<i64> = serde_json::from_str(&ids)?;
            let codes: Vec<CodeRow> = serde_json::from_str(&codes)?;
            let rows: Vec<DecisionRow> = serde_json::from_str(&rows)?;
            let mut later = tx.prepare(
                "SELECT by, what, code_ids FROM code_log WHERE id > ?1 AND undone = 0
                 ORDER BY id",
            )?;
            let later: Vec<(String, String, String)> = later
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            for (who, their, their_ids) in later {
                let theirs: Vec<i64> = serde_json::from_str(&their_ids)?;
                if theirs.iter().any(|c| ids.contains(c)) {
                    return Err(Error::InvalidParameter(format!(
                        "cannot undo {what:?}: a later edit by {who} ({their}) touched the same \
                         code; undo that one first"
                    )));
                }
            }
            for code in &ids {
                tx.execute("DELETE FROM page_codes WHERE code_id = ?1", [code])?;
                match codes.iter().find(|c| c.id == *code) {
                    Some(c) => {
                        tx.execute(
                            "INSERT INTO codes (id, name, description) VALUES (?1, ?2, ?3)
                             ON CONFLICT (id) DO UPDATE SET name = excluded.name,
                               description = excluded.description",
                            params![c.id, c.name, c.description],
                        )?;
                    }
                    None => {
                        tx.execute("DELETE FROM codes WHERE id = ?1", [code])?;
                    }
                }
            }
            let mut insert = tx.prepare(
                "INSERT INTO page_codes (doc_id, code_id, applied, source, run_id, cluster,
                   applied_by, applied_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for r in &rows {
                insert.execute(params![
                    r.doc_id,
                    r.code_id,
                    r.applied,
                    r.source,
                    r.run_id,
                    r.cluster,
                    r.applied_by,
                    r.applied_at
                ])?;
            }
            tx.execute("UPDATE code_log SET undone = 1 WHERE id = ?1", [id])?;
            Ok(Some(what))
        })
    }

    /// The logged code edits, newest first.
    pub fn code_edits(&self) -> Result<Vec<CodeEdit>> {
        self.read(|tx| {
            let mut stmt =
                tx.prepare("SELECT id, by, at, what, undone FROM code_log ORDER BY id DESC")?;
            let rows = stmt.query_map([], |r| {
                Ok(CodeEdit {
                    id: r.get(0)?,
                    by: r.get(1)?,
                    at: r.get(2)?,
                    what: r.get(3)?,
                    undone: r.get(4)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
