//! Rows read back from an export ([`crate::export::import`]) matched into a project: pages by
//! key (added when unknown), samples by name, pairs by their two pages, codes by name — so an
//! export can be read into the project it came from (nothing is written twice) or into a fresh
//! one.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::codes::PageCode;
use super::judgements::LabelInput;
use super::runs::{PageIdentity, upsert_pages_tx};
use super::samples::{LabelRecord, insert_label, label_input};
use super::{Project, SampleId};
use crate::Result;

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// A pair read from an export, to be matched with (or added to) a sample on import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedPair {
    /// One page.
    pub a: PageIdentity,
    /// The other page.
    pub b: PageIdentity,
    /// The score, if the export had it.
    pub score: Option<f64>,
    /// The stratum, if the export had it.
    pub stratum: Option<String>,
}

impl Project {
    /// Import labels of pairs from an export into the sample called `name` (created as an
    /// `imported` sample when missing): pages are matched by key (added when unknown), pairs by
    /// their two pages (appended when missing); each label is stored as a decision of its
    /// annotator with its original time, unless that annotator's current label on the pair
    /// already says the same. Returns the number of labels written.
    pub fn import_labels(
        &mut self,
        name: &str,
        rows: &[(ImportedPair, Option<LabelRecord>)],
    ) -> Result<usize> {
        self.write(|tx| {
            let existing: Option<i64> = tx
                .query_row("SELECT id FROM samples WHERE name = ?1", [name], |r| {
                    r.get(0)
                })
                .optional()?;
            let sample = match existing {
                Some(id) => SampleId(id),
                None => {
                    tx.execute(
                        "INSERT INTO samples (name, run_id, method, seed, blind, spec)
                         VALUES (?1, NULL, 'imported', 0, 0, '{}')",
                        [name],
                    )?;
                    SampleId(tx.last_insert_rowid())
                }
            };
            let mut written = 0;
            for (pair, label) in rows {
                let ids = upsert_pages_tx(tx, None, &[pair.a.clone(), pair.b.clone()])?;
                let found: Option<i64> = tx
                    .query_row(
                        "SELECT position FROM sample_pairs WHERE sample_id = ?1 AND
                         ((a = ?2 AND b = ?3) OR (a = ?3 AND b = ?2))",
                        params![sample.0, ids[0].0, ids[1].0],
                        |r| r.get(0),
                    )
                    .optional()?;
                let position = match found {
                    Some(p) => p,
                    None => {
                        let next: i64 = tx.query_row(
                            "SELECT coalesce(max(position) + 1, 0) FROM sample_pairs
                             WHERE sample_id = ?1",
                            [sample.0],
                            |r| r.get(0),
                        )?;
                        tx.execute(
                            "INSERT INTO sample_pairs (sample_id, position, a, b, score, stratum)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                            params![
                                sample.0,
                                next,
                                ids[0].0,
                                ids[1].0,
                                pair.score,
                                pair.stratum.as_deref().unwrap_or("all")
                            ],
                        )?;
                        next
                    }
                };
                let Some(label) = label else { continue };
                let current: Option<LabelInput> = tx
                    .query_row(
                        "SELECT verdict, reason, note FROM labels WHERE sample_id = ?1
                         AND position = ?2 AND annotator = ?3 AND undone = 0
                         ORDER BY id DESC LIMIT 1",
                        params![sample.0, position, label.annotator],
                        |r| label_input(r, 0),
                    )
                    .optional()?;
                if current.as_ref() != Some(&label.label) {
                    insert_label(
                        tx,
                        sample,
                        position as u32,
                        &label.annotator,
                        &label.label,
                        Some(label.created_at.as_str()).filter(|s| !s.is_empty()),
                    )?;
                    written += 1;
                }
            }
            Ok(written)
        })
    }

    /// Write code decisions read from an export: pages by key (added when unknown), codes by
    /// name (added to the codebook when unknown), provenance as given except the run, which
    /// belonged to the other project. Returns the number of decisions written.
    pub fn import_page_codes(&mut self, rows: &[(PageIdentity, PageCode)]) -> Result<usize> {
        self.write(|tx| {
            let mut n = 0;
            for (identity, pc) in rows {
                let page = upsert_pages_tx(tx, None, std::slice::from_ref(identity))?[0];
                tx.execute(
                    "INSERT INTO codes (name) VALUES (?1) ON CONFLICT (name) DO NOTHING",
                    [&pc.code],
                )?;
                let code: i64 =
                    tx.query_row("SELECT id FROM codes WHERE name = ?1", [&pc.code], |r| {
                        r.get(0)
                    })?;
                n += tx.execute(
                    &format!(
                        "INSERT INTO page_codes (doc_id, code_id, applied, source, run_id,
                           cluster, applied_by, applied_at)
                         VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, coalesce(?7, {NOW}))
                         ON CONFLICT (doc_id, code_id) DO UPDATE SET applied = excluded.applied,
                           source = excluded.source, cluster = excluded.cluster,
                           applied_by = excluded.applied_by, applied_at = excluded.applied_at"
                    ),
                    params![
                        page.0,
                        code,
                        pc.applied,
                        pc.source.as_str(),
                        pc.cluster,
                        pc.applied_by,
                        pc.applied_at
                    ],
                )?;
            }
            Ok(n)
        })
    }
}
