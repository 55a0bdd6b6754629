//! Read exports back into a project, and gold clusters from a `doc,cluster` file.
//!
//! In: files written by [`super`] (CSV or JSON Lines; [`super::PairRow`] and
//! [`super::CodeRow`]) or a gold file with a header row naming a `doc` (or `key`) and a
//! `cluster` column, comma- or tab-separated (the synthetic archives' gold files are TSV).
//! Out: labels, codes and gold clusters in a [`Project`]. Pages are matched by key and added
//! when unknown, so an export can be read into a fresh project. Every row error names the file
//! and line.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::de::DeserializeOwned;

use super::{CodeRow, Format, PairRow};
use crate::labels::{LabelInput, Reason, Verdict};
use crate::store::codes::{CodeSource, PageCode};
use crate::store::imports::ImportedPair;
use crate::store::runs::PageIdentity;
use crate::store::samples::LabelRecord;
use crate::store::{PageId, Project};
use crate::{Error, Result};

fn bad_row(path: &Path, line: u64, what: impl std::fmt::Display) -> Error {
    Error::io(
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("line {line}: {what}"),
        ),
        path,
    )
}

/// Read every row of a CSV (with header) or JSON Lines file (format by extension unless given).
pub fn read_rows<T: DeserializeOwned>(path: &Path, format: Option<Format>) -> Result<Vec<T>> {
    let format = format.unwrap_or_else(|| Format::of_path(path));
    let file = std::fs::File::open(path).map_err(|e| Error::io(e, path))?;
    let mut rows = Vec::new();
    match format {
        Format::Csv => {
            let mut reader = csv::Reader::from_reader(BufReader::new(file));
            for row in reader.deserialize() {
                let row: T = row.map_err(|e| {
                    let line = e.position().map_or(0, |p| p.line());
                    bad_row(path, line, e)
                })?;
                rows.push(row);
            }
        }
        Format::Jsonl => {
            for (i, line) in BufReader::new(file).lines().enumerate() {
                let line = line.map_err(|e| Error::io(e, path))?;
                if line.trim().is_empty() {
                    continue;
                }
                rows.push(serde_json::from_str(&line).map_err(|e| bad_row(path, i as u64 + 1, e))?);
            }
        }
    }
    Ok(rows)
}

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Rows read.
    pub rows: usize,
    /// Labels or code decisions written (rows already in the project are not written again).
    pub written: usize,
}

/// Import a pair export ([`super::PairRow`]s): each row's label goes to the sample of the same
/// name (created when missing), onto the pair with the same two pages.
pub fn import_labels(
    project: &mut Project,
    path: &Path,
    format: Option<Format>,
) -> Result<ImportReport> {
    let rows: Vec<PairRow> = read_rows(path, format)?;
    let mut by_sample: BTreeMap<String, Vec<(ImportedPair, Option<LabelRecord>)>> = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        // Header is line 1, so row i is on line i + 2 in CSV; close enough for JSONL too.
        let line = i as u64 + 2;
        let label = match (&row.annotator, &row.verdict) {
            (Some(annotator), Some(verdict)) if !annotator.is_empty() => Some(LabelRecord {
                position: row.position,
                annotator: annotator.clone(),
                label: LabelInput {
                    verdict: verdict
                        .parse::<Verdict>()
                        .map_err(|e| bad_row(path, line, e))?,
                    reason: match row.reason.as_deref() {
                        Some(r) if !r.is_empty() => {
                            Some(r.parse::<Reason>().map_err(|e| bad_row(path, line, e))?)
                        }
                        _ => None,
                    },
                    note: row.note.clone().unwrap_or_default(),
                },
                created_at: row.labelled_at.clone().unwrap_or_default(),
            }),
            _ => None,
        };
        let pair = ImportedPair {
            a: PageIdentity {
                key: row.a_key.clone(),
                record_id: row.a_record_id.clone(),
                url: row.a_url.clone(),
                date: row.a_date.clone(),
                ..PageIdentity::default()
            },
            b: PageIdentity {
                key: row.b_key.clone(),
                record_id: row.b_record_id.clone(),
                url: row.b_url.clone(),
                date: row.b_date.clone(),
                ..PageIdentity::default()
            },
            score: row.score,
            stratum: Some(row.stratum.clone()),
        };
        by_sample
            .entry(row.sample.clone())
            .or_default()
            .push((pair, label));
    }
    let mut report = ImportReport {
        rows: rows.len(),
        written: 0,
    };
    for (name, rows) in &by_sample {
        report.written += project.import_labels(name, rows)?;
    }
    Ok(report)
}

/// Import a code export ([`super::CodeRow`]s): decisions with their provenance, codes added to
/// the codebook by name when missing.
pub fn import_codes(
    project: &mut Project,
    path: &Path,
    format: Option<Format>,
) -> Result<ImportReport> {
    let rows: Vec<CodeRow> = read_rows(path, format)?;
    let mut decisions = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let source: CodeSource = row
            .source
            .parse()
            .map_err(|e| bad_row(path, i as u64 + 2, e))?;
        decisions.push((
            PageIdentity {
                key: row.key.clone(),
                record_id: row.record_id.clone(),
                url: row.url.clone(),
                date: row.date.clone(),
                ..PageIdentity::default()
            },
            PageCode {
                page: PageId(0),
                key: row.key.clone(),
                code: row.code.clone(),
                applied: row.applied,
                source,
                run: None,
                cluster: row.cluster,
                applied_by: row.applied_by.clone(),
                applied_at: row.applied_at.clone(),
            },
        ));
    }
    Ok(ImportReport {
        rows: rows.len(),
        written: project.import_page_codes(&decisions)?,
    })
}

/// Read a gold file: a header row with a `doc` (or `key`) and a `cluster` column, then one
/// page per row; tab-separated when the header has a tab, else comma-separated.
pub fn read_gold(path: &Path) -> Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(e, path))?;
    let first = text.lines().next().unwrap_or_default();
    let delimiter = if first.contains('\t') { b'\t' } else { b',' };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader.headers()?.clone();
    let column = |names: &[&str]| {
        headers
            .iter()
            .position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
    };
    let (Some(doc), Some(cluster)) = (column(&["doc", "key", "document"]), column(&["cluster"]))
    else {
        return Err(bad_row(
            path,
            1,
            format!("expected a header with `doc` and `cluster` columns, found {first:?}"),
        ));
    };
    let mut gold = BTreeMap::new();
    for (i, record) in reader.records().enumerate() {
        let line = i as u64 + 2;
        let record = record.map_err(|e| bad_row(path, line, e))?;
        let (Some(d), Some(c)) = (record.get(doc), record.get(cluster)) else {
            return Err(bad_row(path, line, "missing doc or cluster"));
        };
        if d.is_empty() || c.is_empty() {
            return Err(bad_row(path, line, "empty doc or cluster"));
        }
        if let Some(previous) = gold.insert(d.to_string(), c.to_string())
            && previous != c
        {
            return Err(bad_row(
                path,
                line,
                format!("{d:?} is in cluster {previous:?} and {c:?}"),
            ));
        }
    }
    Ok(gold)
}

/// Import gold clusters from `path` into the project: (entries read, entries naming a page the
/// project knows).
pub fn import_gold(project: &mut Project, path: &Path) -> Result<(usize, usize)> {
    let gold = read_gold(path)?;
    let matched = project.import_gold(&gold)?;
    Ok((gold.len(), matched))
}
