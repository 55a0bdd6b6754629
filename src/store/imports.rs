//! Rows read back from an export ([`crate::export::import`]) matched into a project: pages by
//! key (which must be there: an import never invents a page), samples by name, pairs by
//! position and their two pages, codes by name — so an export can be read into the project it
//! came from (nothing is written twice) or into another project that read the same archives.
//! Every import is one transaction: all of it or nothing.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::codes::PageCode;
use super::judgements::LabelInput;
use super::runs::PageIdentity;
use super::samples::{LabelRecord, insert_label, label_input};
use super::{Project, SampleId};
use crate::{Error, Result};

const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// One row of a pairs export, to be matched into a sample on import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedPair {
    /// Position in the sample, 0-based (the export writes it 1-based).
    pub position: u32,
    /// Key of one page.
    pub a: String,
    /// Key of the other page.
    pub b: String,
    /// The score, if the export had it.
    pub score: Option<f64>,
    /// The stratum.
    pub stratum: String,
    /// Pairs of the run in the stratum, if the export had it.
    pub stratum_population: Option<u64>,
    /// Pairs drawn from the stratum, if the export had it.
    pub stratum_drawn: Option<u64>,
    /// A label on the pair.
    pub label: Option<LabelRecord>,
    /// The pair's settlement: decision, who, when.
    pub settlement: Option<(LabelInput, String, String)>,
}

/// What a label import wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelImport {
    /// Whether the sample was made from the export (it was not in the project).
    pub sample_created: bool,
    /// Labels written (a label the project already has is not written again).
    pub labels: usize,
    /// Settlements written or changed.
    pub settlements: usize,
}

impl Project {
    /// Import the rows of a pairs export into the sample called `name`, all or nothing:
    ///
    /// - every page must be in the project already (by key): unknown keys are an error that
    ///   lists them, and nothing is written — an import never invents a page;
    /// - when the project has the sample, every row must name the pair at its position (the
    ///   same two pages), or the import is refused with the rows that differ;
    /// - when it has not, the sample is made from the export: its pairs at their positions and
    ///   its strata with the population and drawn count the export carries (an export without
    ///   them is refused, rather than making a sample whose population is its drawn count);
    /// - labels are stored as decisions of their annotators with their original time, unless
    ///   that annotator's current label already says the same; settlements are stored as
    ///   exported.
    ///
    /// Several samples (a pairs export may hold more than one) are imported in one
    /// transaction: all of them or none.
    pub fn import_labels(
        &mut self,
        samples: &[(String, Vec<ImportedPair>)],
    ) -> Result<Vec<LabelImport>> {
        self.write(|tx| {
            samples
                .iter()
                .map(|(name, rows)| import_sample_labels(tx, name, rows))
                .collect()
        })
    }

    /// Write code decisions read from an export: pages by key (all must be in the project, or
    /// nothing is written), codes by name (added to the codebook when unknown), provenance as given except the run, which
    /// belonged to the other project. Returns the number of decisions written.
    pub fn import_page_codes(
        &mut self,
        rows: &[(PageIdentity, PageCode)],
        descriptions: &[(String, String)],
    ) -> Result<usize> {
        self.write(|tx| {
            let mut n = 0;
            // A description fills a code's empty one; one the project has is not replaced.
            for (code, description) in descriptions {
                tx.execute(
                    "INSERT INTO codes (name, description) VALUES (?1, ?2)
                     ON CONFLICT (name) DO UPDATE SET description = excluded.description
                     WHERE codes.description = ''",
                    params![code, description],
                )?;
            }
            let ids = pages_by_key(tx, rows.iter().map(|(identity, _)| identity.key.as_str()))?;
            let pages: Vec<i64> = rows
                .iter()
                .map(|(identity, _)| ids[&identity.key])
                .collect();
            for ((_, pc), page) in rows.iter().zip(pages) {
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
                         VALUES (?1, ?2, ?3, ?4,
                           (SELECT run_id FROM run_clusters
                             WHERE run_id = ?8 AND doc_id = ?1
                               AND coalesce(manual_cluster, cluster) = ?5),
                           ?5, ?6, coalesce(?7, {NOW}))
                         ON CONFLICT (doc_id, code_id) DO UPDATE SET applied = excluded.applied,
                           source = excluded.source, run_id = excluded.run_id,
                           cluster = excluded.cluster,
                           applied_by = excluded.applied_by, applied_at = excluded.applied_at"
                    ),
                    params![
                        page,
                        code,
                        pc.applied,
                        pc.source.as_str(),
                        pc.cluster,
                        pc.applied_by,
                        pc.applied_at,
                        pc.run.map(|r| r.0)
                    ],
                )?;
            }
            Ok(n)
        })
    }
}

/// Every row names the pair the sample has at its position, or an error listing those that do
/// not.
fn check_pairs(
    tx: &rusqlite::Transaction<'_>,
    sample: SampleId,
    rows: &[ImportedPair],
    ids: &[(i64, i64)],
) -> Result<()> {
    let mut stmt =
        tx.prepare("SELECT a, b FROM sample_pairs WHERE sample_id = ?1 AND position = ?2")?;
    let mut wrong = Vec::new();
    for (row, &(a, b)) in rows.iter().zip(ids) {
        let found: Option<(i64, i64)> = stmt
            .query_row(params![sample.0, row.position], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        let same = found.is_some_and(|(x, y)| (x, y) == (a, b) || (x, y) == (b, a));
        if !same {
            wrong.push(row.position + 1);
        }
    }
    if wrong.is_empty() {
        return Ok(());
    }
    wrong.dedup();
    Err(Error::InvalidParameter(format!(
        "the project's sample has other pairs than the export at position(s) {}; nothing was \
         imported (import into a project without this sample to make it from the export)",
        wrong
            .iter()
            .take(20)
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// Make the sample `name` from the export's rows: pairs at their positions, strata with the
/// populations the export carries.
fn create_sample(
    tx: &rusqlite::Transaction<'_>,
    name: &str,
    rows: &[ImportedPair],
    ids: &[(i64, i64)],
) -> Result<SampleId> {
    let mut strata: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for row in rows {
        let (Some(population), Some(drawn)) = (row.stratum_population, row.stratum_drawn) else {
            return Err(Error::InvalidParameter(format!(
                "the export has no stratum population for position {} (an export from an older \
                 samecore); import it into the project that has sample {name:?}, or export it \
                 again",
                row.position + 1
            )));
        };
        strata.insert(&row.stratum, (population, drawn));
    }
    tx.execute(
        "INSERT INTO samples (name, run_id, method, seed, blind, spec)
         VALUES (?1, NULL, 'imported', 0, 0, '{}')",
        [name],
    )?;
    let sample = SampleId(tx.last_insert_rowid());
    let mut insert = tx.prepare(
        "INSERT INTO sample_pairs (sample_id, position, a, b, score, stratum)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
    )?;
    for (row, &(a, b)) in rows.iter().zip(ids) {
        insert.execute(params![
            sample.0,
            row.position,
            a,
            b,
            row.score,
            row.stratum
        ])?;
    }
    let mut insert = tx.prepare(
        "INSERT INTO sample_strata (sample_id, stratum, population, drawn)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (stratum, (population, drawn)) in strata {
        insert.execute(params![sample.0, stratum, population as i64, drawn as i64])?;
    }
    Ok(sample)
}

/// Store one imported label unless the annotator's current label says the same; 1 if written.
fn import_label(
    tx: &rusqlite::Transaction<'_>,
    sample: SampleId,
    position: u32,
    label: &LabelRecord,
) -> Result<usize> {
    let current: Option<LabelInput> = tx
        .query_row(
            "SELECT verdict, reason, note FROM labels WHERE sample_id = ?1
             AND position = ?2 AND annotator = ?3 AND undone = 0
             ORDER BY created_at DESC, id DESC LIMIT 1",
            params![sample.0, position, label.annotator],
            |r| label_input(r, 0),
        )
        .optional()?;
    if current.as_ref() == Some(&label.label) {
        return Ok(0);
    }
    insert_label(
        tx,
        sample,
        position,
        &label.annotator,
        &label.label,
        Some(label.created_at.as_str()).filter(|s| !s.is_empty()),
    )?;
    Ok(1)
}

/// The project page of every key, or (when some are not in the project) an error that lists
/// them and says nothing was imported: an import never invents a page.
fn pages_by_key<'a>(
    tx: &rusqlite::Transaction<'_>,
    keys: impl Iterator<Item = &'a str>,
) -> Result<BTreeMap<String, i64>> {
    let mut stmt = tx.prepare("SELECT id FROM documents WHERE key = ?1")?;
    let mut found = BTreeMap::new();
    let mut unknown = std::collections::BTreeSet::new();
    for key in keys {
        if found.contains_key(key) || unknown.contains(key) {
            continue;
        }
        match stmt.query_row([key], |r| r.get(0)).optional()? {
            Some(id) => {
                found.insert(key.to_string(), id);
            }
            None => {
                unknown.insert(key.to_string());
            }
        }
    }
    if unknown.is_empty() {
        return Ok(found);
    }
    let shown: Vec<String> = unknown.iter().take(10).map(|k| format!("{k:?}")).collect();
    Err(Error::InvalidParameter(format!(
        "{} page key(s) of the export are not in this project, nothing was imported (read \
         their archives into the project first, e.g. samecore run ARCHIVE --project P): {}{}",
        unknown.len(),
        shown.join(", "),
        if unknown.len() > shown.len() {
            ", …"
        } else {
            ""
        }
    )))
}

/// [`Project::import_labels`] for one sample, inside the import's transaction.
fn import_sample_labels(
    tx: &rusqlite::Transaction<'_>,
    name: &str,
    rows: &[ImportedPair],
) -> Result<LabelImport> {
    let pages = pages_by_key(tx, rows.iter().flat_map(|r| [r.a.as_str(), r.b.as_str()]))?;
    let ids: Vec<(i64, i64)> = rows.iter().map(|r| (pages[&r.a], pages[&r.b])).collect();
    let existing: Option<i64> = tx
        .query_row("SELECT id FROM samples WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?;
    let mut report = LabelImport::default();
    let sample = match existing {
        Some(id) => {
            check_pairs(tx, SampleId(id), rows, &ids)?;
            SampleId(id)
        }
        None => {
            report.sample_created = true;
            create_sample(tx, name, rows, &ids)?
        }
    };
    for row in rows {
        if let Some(label) = &row.label {
            report.labels += import_label(tx, sample, row.position, label)?;
        }
        if let Some((decision, by, at)) = &row.settlement {
            report.settlements += tx.execute(
                "INSERT INTO settlements (sample_id, position, verdict, reason, note,
                   settled_by, settled_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (sample_id, position) DO UPDATE SET verdict = excluded.verdict,
                   reason = excluded.reason, note = excluded.note,
                   settled_by = excluded.settled_by, settled_at = excluded.settled_at
                 WHERE verdict IS NOT excluded.verdict OR reason IS NOT excluded.reason
                   OR note IS NOT excluded.note OR settled_by IS NOT excluded.settled_by",
                params![
                    sample.0,
                    row.position,
                    decision.verdict.as_str(),
                    decision.reason.map(|r| r.as_str()),
                    decision.note,
                    by,
                    at
                ],
            )?;
        }
    }
    Ok(report)
}
