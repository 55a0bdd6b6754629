//! Export a project to files that open in a spreadsheet or pandas, and read them back.
//!
//! In: a [`Project`]. Out: CSV (header row, RFC 4180 quoting) or JSON Lines (one object per
//! line), chosen by [`Format`]; the same flat row types serve both, so a CSV and a JSONL export
//! of the same table hold the same columns:
//!
//! - [`PageRow`]: every page with record id, URL, date, file + offset, its cluster in a run
//!   (after hand edits), its codes (`;`-separated) and its gold cluster;
//! - [`PairRow`]: every pair of a sample with score, stratum and one row per annotator's
//!   current label (a pair nobody labelled has one row with empty label columns), plus its
//!   settlement;
//! - [`RunRow`]: every run with its parameters (JSON), seed, code version and timings;
//! - [`CodeRow`]: every code decision on a page with its provenance.
//!
//! [`import`] reads pair and code exports back (labels and codes round-trip) and gold clusters
//! from a `doc,cluster` CSV or TSV. Files are written beside their target and renamed into
//! place, so a failed export never leaves half a file under the final name.

pub mod import;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::store::{Project, RunId, SampleId};
use crate::{Error, Result};

/// File format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Format {
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

impl Format {
    /// The format a file name asks for: `.jsonl` / `.ndjson` / `.json` are JSON Lines,
    /// everything else CSV.
    pub fn of_path(path: &Path) -> Format {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
            _ => Format::Csv,
        }
    }
}

impl std::str::FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "jsonl" | "ndjson" | "json" => Ok(Format::Jsonl),
            other => Err(Error::InvalidParameter(format!(
                "unknown format {other:?} (expected csv or jsonl)"
            ))),
        }
    }
}

/// A page, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageRow {
    /// The page's key.
    pub key: String,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// Target URL.
    pub url: Option<String>,
    /// Capture date.
    pub date: Option<String>,
    /// Archive file.
    pub file: Option<String>,
    /// Byte offset of the record.
    pub offset: Option<u64>,
    /// Site (henzinger §3 rule).
    pub site: Option<String>,
    /// Cluster in the exported run (after hand edits).
    pub cluster: Option<i64>,
    /// Codes applied to the page, by name, `;`-separated.
    pub codes: String,
    /// Gold cluster, when imported.
    pub gold: Option<String>,
}

/// One annotator's label on one sampled pair, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    /// The sample's name.
    pub sample: String,
    /// Position in the sample (0-based).
    pub position: u32,
    /// First page's key.
    pub a_key: String,
    /// First page's URL.
    pub a_url: Option<String>,
    /// First page's record id.
    pub a_record_id: Option<String>,
    /// First page's capture date.
    pub a_date: Option<String>,
    /// Second page's key.
    pub b_key: String,
    /// Second page's URL.
    pub b_url: Option<String>,
    /// Second page's record id.
    pub b_record_id: Option<String>,
    /// Second page's capture date.
    pub b_date: Option<String>,
    /// Detector score.
    pub score: Option<f64>,
    /// Stratum.
    pub stratum: String,
    /// Annotator (empty when unlabelled).
    pub annotator: Option<String>,
    /// `correct`, `incorrect` or `undecided`.
    pub verdict: Option<String>,
    /// Reason (snake_case name).
    pub reason: Option<String>,
    /// Free note.
    pub note: Option<String>,
    /// When the label was given.
    pub labelled_at: Option<String>,
    /// The settled verdict, if the pair was settled.
    pub settled_verdict: Option<String>,
    /// Who settled it.
    pub settled_by: Option<String>,
}

/// A run, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    /// Run id inside the project.
    pub run: i64,
    /// Detector.
    pub detector: String,
    /// Parameters, as a JSON string.
    pub params: String,
    /// Seed.
    pub seed: Option<u64>,
    /// samecore version.
    pub code_version: String,
    /// When it was stored.
    pub created_at: String,
    /// Wall-clock milliseconds.
    pub elapsed_ms: Option<u64>,
    /// Stage timings, as a JSON string.
    pub timings: String,
    /// Scored pairs.
    pub pairs: u64,
    /// Clusters of two or more pages.
    pub clusters: u64,
}

/// A code decision on a page, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CodeRow {
    /// The page's key.
    pub key: String,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// Target URL.
    pub url: Option<String>,
    /// Capture date.
    pub date: Option<String>,
    /// The code's name.
    pub code: String,
    /// Applied (true) or removed by a page decision (false).
    pub applied: bool,
    /// `cluster`, `page`, `reconciled` or `imported`.
    pub source: String,
    /// The run the code came from (id in the exporting project).
    pub run: Option<i64>,
    /// The cluster the code came from.
    pub cluster: Option<i64>,
    /// Who applied it.
    pub applied_by: String,
    /// When.
    pub applied_at: Option<String>,
}

/// A writer of rows in one [`Format`].
enum Sink<W: Write> {
    Csv(Box<csv::Writer<W>>),
    Jsonl(W),
}

impl<W: Write> Sink<W> {
    fn new(out: W, format: Format) -> Self {
        match format {
            Format::Csv => Sink::Csv(Box::new(csv::Writer::from_writer(out))),
            Format::Jsonl => Sink::Jsonl(out),
        }
    }

    fn row<T: Serialize>(&mut self, row: &T) -> Result<()> {
        match self {
            Sink::Csv(w) => w.serialize(row)?,
            Sink::Jsonl(w) => {
                serde_json::to_writer(&mut *w, row)?;
                w.write_all(b"\n").map_err(|e| Error::io(e, "<export>"))?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Csv(mut w) => w.flush().map_err(|e| Error::io(e, "<export>")),
            Sink::Jsonl(mut w) => w.flush().map_err(|e| Error::io(e, "<export>")),
        }
    }
}

fn write_all<T: Serialize + Default>(
    rows: &[T],
    mut out: impl Write,
    format: Format,
) -> Result<usize> {
    if rows.is_empty() && format == Format::Csv {
        // An empty CSV still gets its header, so pandas and spreadsheets see the columns:
        // serialize a default row and keep its first line.
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(T::default())?;
        let bytes = w
            .into_inner()
            .map_err(|e| Error::io(e.into_error(), "<export>"))?;
        let header = bytes
            .split_inclusive(|&b| b == b'\n')
            .next()
            .unwrap_or_default();
        out.write_all(header)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io(e, "<export>"))?;
        return Ok(0);
    }
    let mut sink = Sink::new(out, format);
    for row in rows {
        sink.row(row)?;
    }
    sink.finish()?;
    Ok(rows.len())
}

/// The page rows of a project (clusters from `run`, when given), by key.
pub fn page_rows(project: &Project, run: Option<RunId>) -> Result<Vec<PageRow>> {
    let mut cluster_of = BTreeMap::new();
    if let Some(run) = run {
        project.run(run)?;
        for c in project.run_clusters(run)? {
            for m in c.members {
                cluster_of.insert(m, c.id);
            }
        }
    }
    let mut codes: BTreeMap<_, Vec<String>> = BTreeMap::new();
    for pc in project.page_codes()? {
        if pc.applied {
            codes.entry(pc.page).or_default().push(pc.code);
        }
    }
    let gold = project.gold()?;
    let mut rows: Vec<PageRow> = project
        .pages()?
        .into_iter()
        .map(|p| PageRow {
            gold: gold_of(&gold, &p.identity),
            cluster: cluster_of.get(&p.id).copied(),
            codes: codes.remove(&p.id).unwrap_or_default().join(";"),
            key: p.identity.key,
            record_id: p.identity.record_id,
            url: p.identity.url,
            date: p.identity.date,
            file: p.identity.file,
            offset: p.identity.offset,
            site: p.identity.site,
        })
        .collect();
    rows.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(rows)
}

/// A page's gold cluster: gold files name pages by capture key, reader key or record id.
fn gold_of(
    gold: &BTreeMap<String, String>,
    identity: &crate::store::runs::PageIdentity,
) -> Option<String> {
    [
        Some(&identity.key),
        identity.reader_key.as_ref(),
        identity.record_id.as_ref(),
    ]
    .into_iter()
    .flatten()
    .find_map(|k| gold.get(k).cloned())
}

/// The pair rows of a sample, by (position, annotator).
pub fn pair_rows(project: &Project, sample: SampleId) -> Result<Vec<PairRow>> {
    let info = project
        .samples()?
        .into_iter()
        .find(|s| s.id == sample)
        .ok_or_else(|| Error::InvalidParameter(format!("no sample {sample}")))?;
    let labels = project.labels(sample)?;
    let settlements: BTreeMap<u32, _> = project
        .settlements(sample)?
        .into_iter()
        .map(|s| (s.position, s))
        .collect();
    let mut rows = Vec::new();
    for pair in project.sample_pairs(sample)? {
        let base = PairRow {
            sample: info.name.clone(),
            position: pair.position,
            a_key: pair.a.identity.key.clone(),
            a_url: pair.a.identity.url.clone(),
            a_record_id: pair.a.identity.record_id.clone(),
            a_date: pair.a.identity.date.clone(),
            b_key: pair.b.identity.key.clone(),
            b_url: pair.b.identity.url.clone(),
            b_record_id: pair.b.identity.record_id.clone(),
            b_date: pair.b.identity.date.clone(),
            score: pair.score,
            stratum: pair.stratum.clone(),
            annotator: None,
            verdict: None,
            reason: None,
            note: None,
            labelled_at: None,
            settled_verdict: settlements
                .get(&pair.position)
                .map(|s| s.label.verdict.as_str().to_string()),
            settled_by: settlements
                .get(&pair.position)
                .map(|s| s.settled_by.clone()),
        };
        let mine: Vec<_> = labels
            .iter()
            .filter(|l| l.position == pair.position)
            .collect();
        if mine.is_empty() {
            rows.push(base.clone());
        }
        for l in mine {
            rows.push(PairRow {
                annotator: Some(l.annotator.clone()),
                verdict: Some(l.label.verdict.as_str().to_string()),
                reason: l.label.reason.map(|r| r.as_str().to_string()),
                note: Some(l.label.note.clone()),
                labelled_at: Some(l.created_at.clone()),
                ..base.clone()
            });
        }
    }
    Ok(rows)
}

/// The run rows of a project, oldest first.
pub fn run_rows(project: &Project) -> Result<Vec<RunRow>> {
    project
        .runs()?
        .into_iter()
        .map(|r| {
            Ok(RunRow {
                run: r.id.0,
                detector: r.record.detector,
                params: serde_json::to_string(&r.record.params)?,
                seed: r.record.seed,
                code_version: r.record.code_version,
                created_at: r.created_at,
                elapsed_ms: r.record.elapsed_ms,
                timings: serde_json::to_string(&r.record.timings)?,
                pairs: r.pairs,
                clusters: r.clusters,
            })
        })
        .collect()
}

/// The code rows of a project, by (key, code).
pub fn code_rows(project: &Project) -> Result<Vec<CodeRow>> {
    let pages: BTreeMap<_, _> = project.pages()?.into_iter().map(|p| (p.id, p)).collect();
    Ok(project
        .page_codes()?
        .into_iter()
        .map(|pc| {
            let identity = pages
                .get(&pc.page)
                .map(|p| p.identity.clone())
                .unwrap_or_default();
            CodeRow {
                key: pc.key,
                record_id: identity.record_id,
                url: identity.url,
                date: identity.date,
                code: pc.code,
                applied: pc.applied,
                source: pc.source.as_str().to_string(),
                run: pc.run.map(|r| r.0),
                cluster: pc.cluster,
                applied_by: pc.applied_by,
                applied_at: pc.applied_at,
            }
        })
        .collect())
}

/// Write `rows` to `out` in `format`; the number of rows.
pub fn write_rows<T: Serialize + Default>(
    rows: &[T],
    out: impl Write,
    format: Format,
) -> Result<usize> {
    write_all(rows, out, format)
}

/// Write `rows` to the file `path` (format by its extension unless given), through a
/// temporary file renamed into place; the number of rows.
pub fn write_file<T: Serialize + Default>(
    rows: &[T],
    path: &Path,
    format: Option<Format>,
) -> Result<usize> {
    let format = format.unwrap_or_else(|| Format::of_path(path));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.partial"));
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(e, &tmp))?;
    let n = write_all(rows, std::io::BufWriter::new(file), format).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(e, path))?;
    Ok(n)
}
