//! Read exports back into a project, and gold clusters from a `doc,cluster` file.
//!
//! In: files written by [`super`] (CSV or JSON Lines; [`super::PairRow`] and
//! [`super::CodeRow`]) or a gold file with a header row naming a `doc` (or `key`) and a
//! `cluster` column, comma- or tab-separated (the synthetic archives' gold files are TSV).
//! Out: labels, codes and gold clusters in a [`Project`]. Pages are matched by key and added
//! when unknown, so an export can be read into a fresh project. Every row error names the file
//! and line.

use std::collections::BTreeMap;
use std::path::Path;

use super::format::bad_row;
use super::{CodeRow, Format, PairRow, read_rows};
use crate::labels::{LabelInput, Reason, Verdict};
use crate::store::codes::{CodeSource, PageCode};
use crate::store::imports::ImportedPair;
use crate::store::runs::PageIdentity;
use crate::store::samples::LabelRecord;
use crate::store::{PageId, Project};
use crate::{Error, Result};

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Rows read.
    pub rows: usize,
    /// Labels or code decisions written (rows already in the project are not written again).
    pub written: usize,
    /// Settlements written or changed.
    pub settlements: usize,
    /// Samples made from the export (they were not in the project).
    pub samples_created: usize,
}

/// Import a pair export ([`super::PairRow`]s) with [`Project::import_labels`]: labels and
/// settlements go to the sample of the same name, onto the pair at the same position; the
/// pages must be in the project. All or nothing.
pub fn import_labels(
    project: &mut Project,
    path: &Path,
    format: Option<Format>,
) -> Result<ImportReport> {
    let rows: Vec<PairRow> = read_rows(path, format)?;
    let mut by_sample: BTreeMap<String, Vec<ImportedPair>> = BTreeMap::new();
    let parse_label = |line: u64, verdict: &str, reason: Option<&str>, note: Option<&String>| {
        Ok::<_, Error>(LabelInput {
            verdict: verdict
                .parse::<Verdict>()
                .map_err(|e| bad_row(path, line, e))?,
            reason: match reason {
                Some(r) if !r.is_empty() => {
                    Some(r.parse::<Reason>().map_err(|e| bad_row(path, line, e))?)
                }
                _ => None,
            },
            note: note.cloned().unwrap_or_default(),
        })
    };
    for (i, row) in rows.iter().enumerate() {
        // Header is line 1, so row i is on line i + 2 in CSV; close enough for the others.
        let line = i as u64 + 2;
        let Some(position) = row.position.checked_sub(1) else {
            return Err(bad_row(path, line, "positions start at 1"));
        };
        let label = match (&row.annotator, &row.verdict) {
            (Some(annotator), Some(verdict)) if !annotator.is_empty() => Some(LabelRecord {
                position,
                annotator: annotator.clone(),
                label: parse_label(line, verdict, row.reason.as_deref(), row.note.as_ref())?,
                created_at: row.labelled_at.clone().unwrap_or_default(),
            }),
            _ => None,
        };
        let settlement = match (&row.settled_verdict, &row.settled_by) {
            (Some(verdict), Some(by)) if !verdict.is_empty() => Some((
                parse_label(
                    line,
                    verdict,
                    row.settled_reason.as_deref(),
                    row.settled_note.as_ref(),
                )?,
                by.clone(),
                row.settled_at.clone().unwrap_or_default(),
            )),
            _ => None,
        };
        by_sample
            .entry(row.sample.clone())
            .or_default()
            .push(ImportedPair {
                position,
                a: row.a_key.clone(),
                b: row.b_key.clone(),
                score: row.score,
                stratum: row.stratum.clone(),
                stratum_population: row.stratum_population,
                stratum_drawn: row.stratum_drawn,
                label,
                settlement,
            });
    }
    let mut report = ImportReport {
        rows: rows.len(),
        ..ImportReport::default()
    };
    let samples: Vec<(String, Vec<ImportedPair>)> = by_sample.into_iter().collect();
    for r in project.import_labels(&samples)? {
        report.written += r.labels;
        report.settlements += r.settlements;
        report.samples_created += usize::from(r.sample_created);
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
                // Kept where this project has the same run putting the page in the same
                // cluster (a project of the same archives run alike); blank otherwise.
                run: row.run.map(crate::store::RunId),
                cluster: row.cluster,
                applied_by: row.applied_by.clone(),
                applied_at: row.applied_at.clone(),
            },
        ));
    }
    let descriptions: Vec<(String, String)> = rows
        .iter()
        .filter(|r| !r.description.is_empty())
        .map(|r| (r.code.clone(), r.description.clone()))
        .collect();
    Ok(ImportReport {
        rows: rows.len(),
        written: project.import_page_codes(&decisions, &descriptions)?,
        ..ImportReport::default()
    })
}

/// Read a gold file: a `doc` (or `key`) and a `cluster` column, one page per row, as CSV or TSV
/// (tab-separated when the header has a tab), or JSON Lines or Parquet by the extension (so a
/// pages export in any format can be read back).
///
/// `column` names the column that holds the gold cluster (default `cluster`). A samecore pages
/// export is refused unless `column` is given: its `cluster` column is a detector's clusters,
/// not gold, and taking it would overwrite the real gold with the detector's answer.
pub fn read_gold(path: &Path, column: Option<&str>) -> Result<BTreeMap<String, String>> {
    // CSV, TSV and any other name: comma- or tab-separated, told by the header.
    let (headers, rows) = read_table(path)?;
    let first = headers.join(",");
    let told = column;
    let column = |names: &[&str]| {
        headers
            .iter()
            .position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
    };
    let looks_like_pages_export = ["gold", "codes", "digest"]
        .iter()
        .all(|c| column(&[c]).is_some());
    if told.is_none() && looks_like_pages_export {
        return Err(bad_row(
            path,
            1,
            "this is a samecore pages export: its `cluster` column holds a detector's \
             clusters, not gold; say which column is gold (--column gold), or --column cluster \
             to take the detector's clusters as gold on purpose",
        ));
    }
    let wanted = told.unwrap_or("cluster");
    let (Some(doc), Some(cluster)) = (column(&["doc", "key", "document"]), column(&[wanted]))
    else {
        return Err(bad_row(
            path,
            1,
            format!("expected a header with `doc` and `{wanted}` columns, found {first:?}"),
        ));
    };
    let mut gold = BTreeMap::new();
    for (i, record) in rows.iter().enumerate() {
        let line = i as u64 + 2;
        let (Some(d), Some(c)) = (record.get(doc), record.get(cluster)) else {
            return Err(bad_row(path, line, "missing doc or cluster"));
        };
        if d.is_empty() {
            return Err(bad_row(path, line, "empty doc"));
        }
        if c.is_empty() {
            // a page without gold (an empty `gold` cell of a pages export)
            continue;
        }
        if let Some(previous) = gold.insert(d.to_string(), c.to_string())
            && previous != *c
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

/// A comma- or tab-separated file (tab when the header has one): headers and trimmed rows.
/// A table of text cells from any export format (CSV or TSV told by the header, JSON Lines or
/// Parquet by the extension): its column names and rows, a CSV cell's formula guard taken off.
pub fn read_table(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    match Format::of_path(path) {
        Ok(f @ (Format::Jsonl | Format::Parquet)) => super::format::read_text_table(path, f),
        _ => read_delimited(path),
    }
}

/// The long table of coded values at `path` (columns `unit`, `coder`, `variable`, `value`, in
/// any order and case; other columns ignored; an empty value is missing), for
/// [`crate::agreement::per_variable`].
pub fn read_coded_values(path: &Path) -> Result<Vec<crate::agreement::CodedValue>> {
    let (headers, rows) = read_table(path)?;
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                bad_row(
                    path,
                    1,
                    format!(
                        "no `{name}` column (a long table has unit, coder, variable and value; \
                         found {})",
                        headers.join(", ")
                    ),
                )
            })
    };
    let (unit, coder, variable, value) = (
        column("unit")?,
        column("coder")?,
        column("variable")?,
        column("value")?,
    );
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let line = i as u64 + 2;
        let cell = |c: usize| row.get(c).map(|s| s.trim()).unwrap_or_default();
        for (c, name) in [(unit, "unit"), (coder, "coder"), (variable, "variable")] {
            if cell(c).is_empty() {
                return Err(bad_row(path, line, format!("the {name} is empty")));
            }
        }
        out.push(crate::agreement::CodedValue {
            unit: cell(unit).to_string(),
            coder: cell(coder).to_string(),
            variable: cell(variable).to_string(),
            value: Some(cell(value).to_string()).filter(|v| !v.is_empty()),
            line,
        });
    }
    Ok(out)
}

fn read_delimited(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(e, path))?;
    let first = text.lines().next().unwrap_or_default();
    let delimiter = if first.contains('\t') { b'\t' } else { b',' };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader.headers()?.iter().map(str::to_string).collect();
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad_row(path, i as u64 + 2, e))?;
        rows.push(
            record
                .iter()
                .map(|c| super::format::cell_read(c).to_string())
                .collect(),
        );
    }
    Ok((headers, rows))
}

/// Import gold clusters from `path` ([`read_gold`]) into the project, in one transaction:
/// (entries read, entries naming a page the project knows).
pub fn import_gold(
    project: &mut Project,
    path: &Path,
    column: Option<&str>,
) -> Result<(usize, usize)> {
    let gold = read_gold(path, column)?;
    let matched = project.import_gold(&gold, &format!("file:{}", path.display()))?;
    Ok((gold.len(), matched))
}
