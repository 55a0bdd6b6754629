//! The coded values for the analysis: every value long (one row per unit, variable, coder and
//! role, with its label and codebook version), and the data set wide (one row per story or
//! page, a column per variable with its value and a column with its label), as R, SPSS, Stata,
//! pandas and Excel read CSV and Parquet.
//!
//! A unit's value in the data set is the final (adjudicated) one where there is one, else the
//! value its coders agree on (one coder alone included); where they disagree it is empty and
//! the variable is named in the row's `disagreements` column. "Not applicable" and "cannot
//! code" are written as their numbers, labelled, as SPSS and Stata keep missing-value codes.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::codebook::{Answer, Codebook, Kind, Variable};
use crate::coding::reliability::{page_keys, unit_name};
use crate::store::Project;
use crate::store::values::{Role, StoredValue, Unit};
use crate::{Error, Result};

use super::Format;
use super::format::cell_written;

/// One value of the long table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ValueRow {
    /// The unit as reliability data name it (`run 1 cluster 9`, or a page's key).
    pub unit: String,
    /// `story` or `page`.
    pub unit_kind: String,
    /// A story's run.
    pub run: Option<i64>,
    /// A story's cluster.
    pub cluster: Option<i64>,
    /// The variable.
    pub variable: String,
    /// Who.
    pub coder: String,
    /// `coder` or `final`.
    pub role: String,
    /// `value`, `not_applicable` or `cannot_code`.
    pub answer: String,
    /// The value as stored (numbered codes, a number, a note).
    pub value: Option<String>,
    /// Its label(s) in the codebook.
    pub label: Option<String>,
    /// The codebook version it was coded under.
    pub version: i64,
    /// When.
    pub at: String,
}

/// The label(s) of an answer to `var`.
fn label_of(var: Option<&Variable>, answer: &Answer) -> Option<String> {
    let var = var?;
    match answer {
        Answer::NotApplicable => Some("not applicable".into()),
        Answer::CannotCode => Some("cannot code".into()),
        Answer::Value(v) if matches!(var.kind, Kind::One | Kind::Several) => Some(
            v.split(',')
                .filter_map(|c| c.trim().parse().ok().and_then(|c| var.label(c)))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Answer::Value(_) => None,
    }
}

/// The stored number or text of an answer (a missing-value code for "not applicable").
fn value_of(var: Option<&Variable>, answer: &Answer) -> Option<String> {
    match answer {
        Answer::Value(v) => Some(v.clone()),
        Answer::NotApplicable => var.and_then(|v| v.not_applicable).map(|n| n.to_string()),
        Answer::CannotCode => var.and_then(|v| v.cannot_code).map(|n| n.to_string()),
    }
}

/// Every value as it stands, long.
pub fn value_rows(project: &Project) -> Result<Vec<ValueRow>> {
    let book = project.codebook()?;
    let keys = page_keys(project)?;
    Ok(project
        .values()?
        .into_iter()
        .map(|v| {
            let var = book.variable(&v.variable);
            let (run, cluster) = match v.unit {
                Unit::Story { run, cluster } => (Some(run.0), Some(cluster)),
                Unit::Page(_) => (None, None),
            };
            ValueRow {
                unit: unit_name(&v.unit, &keys),
                unit_kind: v.unit.kind().name().into(),
                run,
                cluster,
                variable: v.variable.clone(),
                coder: v.coder.clone(),
                role: match v.role {
                    Role::Coder => "coder".into(),
                    Role::Final => "final".into(),
                },
                answer: match v.answer {
                    Answer::Value(_) => "value",
                    Answer::NotApplicable => "not_applicable",
                    Answer::CannotCode => "cannot_code",
                }
                .into(),
                value: value_of(var, &v.answer),
                label: label_of(var, &v.answer),
                version: v.version,
                at: v.at,
            }
        })
        .collect())
}

/// The cells of one column of the wide data set.
#[derive(Debug, Clone, PartialEq)]
pub enum Cells {
    /// Numbers (codes of a one-value variable, a number variable, ids).
    Number(Vec<Option<f64>>),
    /// Text.
    Text(Vec<Option<String>>),
}

/// One column of the wide data set.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its cells, one per unit.
    pub cells: Cells,
}

/// The wide data set: a row per unit, a column per variable (and its label).
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The columns in order.
    pub columns: Vec<Column>,
    /// The number of rows.
    pub rows: usize,
}

/// The answer a unit's variable takes in the data set and whether its coders disagree.
fn settled<'a>(values: &[&'a StoredValue]) -> (Option<&'a Answer>, bool) {
    if let Some(f) = values.iter().find(|v| v.role == Role::Final) {
        return (Some(&f.answer), false);
    }
    let first = values.first().map(|v| &v.answer);
    let agree = values.iter().all(|v| Some(&v.answer) == first);
    if agree { (first, false) } else { (None, true) }
}

/// The wide data set of the project's values.
pub fn dataset(project: &Project) -> Result<Dataset> {
    let book: Codebook = project.codebook()?;
    let keys = page_keys(project)?;
    let values = project.values()?;
    let mut by_unit: BTreeMap<Unit, BTreeMap<&str, Vec<&StoredValue>>> = BTreeMap::new();
    for v in &values {
        by_unit
            .entry(v.unit)
            .or_default()
            .entry(v.variable.as_str())
            .or_default()
            .push(v);
    }
    let units: Vec<&Unit> = by_unit.keys().collect();
    let text =
        |f: &dyn Fn(&Unit) -> Option<String>| Cells::Text(units.iter().map(|u| f(u)).collect());
    let number =
        |f: &dyn Fn(&Unit) -> Option<f64>| Cells::Number(units.iter().map(|u| f(u)).collect());
    let mut columns = vec![
        Column {
            name: "unit".into(),
            cells: text(&|u| Some(unit_name(u, &keys))),
        },
        Column {
            name: "unit_kind".into(),
            cells: text(&|u| Some(u.kind().name().into())),
        },
        Column {
            name: "run".into(),
            cells: number(&|u| match u {
                Unit::Story { run, .. } => Some(run.0 as f64),
                Unit::Page(_) => None,
            }),
        },
        Column {
            name: "cluster".into(),
            cells: number(&|u| match u {
                Unit::Story { cluster, .. } => Some(*cluster as f64),
                Unit::Page(_) => None,
            }),
        },
    ];
    let mut disagreements: Vec<Vec<&str>> = vec![Vec::new(); units.len()];
    for var in &book.variables {
        let mut value = Vec::with_capacity(units.len());
        let mut label = Vec::with_capacity(units.len());
        for (i, unit) in units.iter().enumerate() {
            let coded = by_unit[unit]
                .get(var.name.as_str())
                .map(Vec::as_slice)
                .unwrap_or_default();
            let (answer, split) = settled(coded);
            if split {
                disagreements[i].push(&var.name);
            }
            value.push(answer.and_then(|a| value_of(Some(var), a)));
            label.push(answer.and_then(|a| label_of(Some(var), a)));
        }
        let numeric = matches!(var.kind, Kind::One | Kind::Number);
        columns.push(Column {
            name: var.name.clone(),
            cells: if numeric {
                Cells::Number(
                    value
                        .iter()
                        .map(|v| v.as_deref().and_then(|v| v.parse().ok()))
                        .collect(),
                )
            } else {
                Cells::Text(value)
            },
        });
        if matches!(var.kind, Kind::One | Kind::Several) {
            columns.push(Column {
                name: format!("{}_label", var.name),
                cells: Cells::Text(label),
            });
        }
    }
    columns.push(Column {
        name: "disagreements".into(),
        cells: Cells::Text(
            disagreements
                .into_iter()
                .map(|d| (!d.is_empty()).then(|| d.join(" ")))
                .collect(),
        ),
    });
    Ok(Dataset {
        columns,
        rows: units.len(),
    })
}

/// The reliability data in the layout tidycomm's `test_icr` takes (and, transposed per
/// variable, `irr::kripp.alpha`): one row per unit and coder, a column per scored (sub)variable
/// (each option of a several-values variable its own 0/1 column), an empty cell where the
/// coder gave none (or answered "not applicable" / "cannot code"). Final values are not coders'
/// and are left out.
pub fn reliability(project: &Project) -> Result<Dataset> {
    let values = crate::coding::reliability::coded_values(project)?;
    let mut variables: Vec<String> = values.iter().map(|(_, v)| v.variable.clone()).collect();
    variables.sort();
    variables.dedup();
    let mut rows: BTreeMap<(String, String), BTreeMap<String, Option<String>>> = BTreeMap::new();
    for (_, v) in values {
        rows.entry((v.unit, v.coder))
            .or_default()
            .insert(v.variable, v.value);
    }
    let keys: Vec<&(String, String)> = rows.keys().collect();
    let mut columns = vec![
        Column {
            name: "unit".into(),
            cells: Cells::Text(keys.iter().map(|k| Some(k.0.clone())).collect()),
        },
        Column {
            name: "coder".into(),
            cells: Cells::Text(keys.iter().map(|k| Some(k.1.clone())).collect()),
        },
    ];
    for var in &variables {
        columns.push(Column {
            name: var.clone(),
            cells: Cells::Text(
                keys.iter()
                    .map(|k| rows[*k].get(var).cloned().flatten())
                    .collect(),
            ),
        });
    }
    Ok(Dataset {
        rows: keys.len(),
        columns,
    })
}

fn cell(cells: &Cells, row: usize) -> String {
    match cells {
        Cells::Number(v) => v[row].map(|n| n.to_string()).unwrap_or_default(),
        Cells::Text(v) => v[row].clone().unwrap_or_default(),
    }
}

/// Write the data set to `path` (CSV, TSV, JSON Lines or Parquet by the extension, or
/// `format`), through a temporary file renamed into place; the number of rows.
pub fn write_dataset(data: &Dataset, path: &Path, format: Option<Format>) -> Result<usize> {
    let format = Format::resolve(format, path)?;
    let io = |e: std::io::Error| Error::io(e, path);
    let bytes = match format {
        Format::Csv | Format::Tsv => {
            let mut w = csv::WriterBuilder::new()
                .delimiter(if format == Format::Tsv { b'\t' } else { b',' })
                .from_writer(Vec::new());
            w.write_record(data.columns.iter().map(|c| cell_written(c.name.as_bytes())))?;
            for row in 0..data.rows {
                let cells: Vec<String> = data.columns.iter().map(|c| cell(&c.cells, row)).collect();
                w.write_record(cells.iter().map(|c| cell_written(c.as_bytes())))?;
            }
            w.into_inner().map_err(|e| io(e.into_error()))?
        }
        Format::Jsonl => {
            let mut out = Vec::new();
            for row in 0..data.rows {
                let mut object = serde_json::Map::new();
                for c in &data.columns {
                    let v = match &c.cells {
                        Cells::Number(v) => v[row].map_or(serde_json::Value::Null, |n| n.into()),
                        Cells::Text(v) => {
                            v[row].clone().map_or(serde_json::Value::Null, Into::into)
                        }
                    };
                    object.insert(c.name.clone(), v);
                }
                serde_json::to_writer(&mut out, &object)?;
                out.push(b'\n');
            }
            out
        }
        Format::Parquet => parquet_bytes(data)?,
    };
    super::format::write_file_with(path, Some(format), |mut out, _| {
        std::io::Write::write_all(&mut out, &bytes).map_err(io)?;
        std::io::Write::flush(&mut out).map_err(io)?;
        Ok(data.rows)
    })
}

/// The data set as one Arrow record batch (numbers as float64, text as UTF-8), for Parquet and
/// for pyarrow without a copy.
pub fn record_batch(data: &Dataset) -> Result<arrow_array::RecordBatch> {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let fields: Vec<Field> = data
        .columns
        .iter()
        .map(|c| {
            let kind = match c.cells {
                Cells::Number(_) => DataType::Float64,
                Cells::Text(_) => DataType::Utf8,
            };
            Field::new(&c.name, kind, true)
        })
        .collect();
    let arrays: Vec<ArrayRef> = data
        .columns
        .iter()
        .map(|c| -> ArrayRef {
            match &c.cells {
                Cells::Number(v) => Arc::new(Float64Array::from(v.clone())),
                Cells::Text(v) => Arc::new(StringArray::from(v.clone())),
            }
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    RecordBatch::try_new(schema, arrays)
        .map_err(|e| Error::InvalidParameter(format!("the data set: {e}")))
}

fn parquet_bytes(data: &Dataset) -> Result<Vec<u8>> {
    let fail = |e: &dyn std::fmt::Display| Error::InvalidParameter(format!("parquet: {e}"));
    let batch = record_batch(data)?;
    let mut writer = parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), None)
        .map_err(|e| fail(&e))?;
    writer.write(&batch).map_err(|e| fail(&e))?;
    writer.into_inner().map_err(|e| fail(&e))
}
