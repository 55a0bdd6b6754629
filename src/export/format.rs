//! The file formats of exports, and rows written to and read from them: CSV and TSV (header
//! row, RFC 4180 quoting), JSON Lines (one object per line) and Parquet (one row group per
//! 64k rows, Snappy), chosen by the file's extension or told. The row types are plain serde
//! structs; Parquet goes through Arrow with `serde_arrow`, whose schema is traced from the row
//! type, so an empty export still has its columns.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use arrow_schema::FieldRef;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_arrow::schema::{SchemaLike, TracingOptions};

use crate::{Error, Result};

/// File format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Format {
    /// Comma-separated values with a header row.
    Csv,
    /// Tab-separated values with a header row (quoted like CSV where a value needs it).
    Tsv,
    /// One JSON object per line.
    Jsonl,
    /// Apache Parquet.
    Parquet,
}

impl Format {
    /// Every format, for messages.
    pub const ALL: [Format; 4] = [Format::Csv, Format::Tsv, Format::Jsonl, Format::Parquet];

    /// The format's name (`csv`, `tsv`, `jsonl`, `parquet`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }

    /// The format a file name asks for: `.csv`, `.tsv` (or `.tab`), `.jsonl` (or `.ndjson`),
    /// `.parquet` (or `.pq`); any other extension is an error that lists these.
    pub fn of_path(path: &Path) -> Result<Format> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        match ext.as_str() {
            "csv" => Ok(Format::Csv),
            "tsv" | "tab" => Ok(Format::Tsv),
            "jsonl" | "ndjson" => Ok(Format::Jsonl),
            "parquet" | "pq" => Ok(Format::Parquet),
            other => Err(Error::InvalidParameter(format!(
                "{}: cannot tell the format from the extension {:?}; use .csv, .tsv, .jsonl or \
                 .parquet",
                path.display(),
                other
            ))),
        }
    }

    /// The format of `path`, unless `told`.
    pub fn resolve(told: Option<Format>, path: &Path) -> Result<Format> {
        match told {
            Some(f) => Ok(f),
            None => Format::of_path(path),
        }
    }
}

impl std::str::FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "tsv" => Ok(Format::Tsv),
            "jsonl" | "ndjson" => Ok(Format::Jsonl),
            "parquet" => Ok(Format::Parquet),
            other => Err(Error::InvalidParameter(format!(
                "unknown format {other:?} (expected csv, tsv, jsonl or parquet)"
            ))),
        }
    }
}

fn export_error(e: impl std::fmt::Display) -> Error {
    Error::InvalidParameter(format!("export: {e}"))
}

/// The Arrow fields of a row type (strings as `Utf8`, which every reader takes).
fn fields_of<T: Serialize + DeserializeOwned>() -> Result<Vec<FieldRef>> {
    let options = TracingOptions::default()
        .allow_null_fields(true)
        .strings_as_large_utf8(false);
    Vec::<FieldRef>::from_type::<T>(options).map_err(export_error)
}

/// Characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
const FORMULA_START: [u8; 6] = [b'=', b'+', b'-', b'@', b'\t', b'\r'];

/// A CSV/TSV cell as written: a text that a spreadsheet would run as a formula (`=`, `+`, `-`,
/// `@`, tab or carriage return first, and not a number) gets a leading `'`, as OWASP advises;
/// so does a text that already starts with `'` and one of those (or a second `'`), so that
/// [`cell_read`] gives back exactly what was written. Numbers (`-0.5`) are left as they are.
pub fn cell_written(cell: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let needs = match cell {
        [first, ..] if FORMULA_START.contains(first) => !std::str::from_utf8(cell)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .is_some_and(f64::is_finite),
        [b'\'', second, ..] => FORMULA_START.contains(second) || *second == b'\'',
        _ => false,
    };
    if needs {
        let mut out = Vec::with_capacity(cell.len() + 1);
        out.push(b'\'');
        out.extend_from_slice(cell);
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// A CSV/TSV cell as read back: the `'` that [`cell_written`] put in front taken off.
pub fn cell_read(cell: &str) -> &str {
    match cell.as_bytes() {
        [b'\'', second, ..] if FORMULA_START.contains(second) || *second == b'\'' => &cell[1..],
        _ => cell,
    }
}

fn delimited<W: Write>(out: W, delimiter: u8) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(out)
}

/// Write `rows` to `out` in `format`; the number of rows. CSV and TSV always start with their
/// header row, an empty table included, so pandas and spreadsheets see the columns.
pub fn write_rows<T: Serialize + DeserializeOwned + Default>(
    rows: &[T],
    out: impl Write,
    format: Format,
) -> Result<usize> {
    write_chunks(std::iter::once(rows), out, format)
}

/// Rows per chunk of a streamed export: one Parquet row group.
const CHUNK_ROWS: usize = 65_536;

/// [`write_rows`] for rows made one at a time: at most [`CHUNK_ROWS`] of them are held at once
/// (a million scored pairs as rows of names, keys and URLs were ~700 bytes each).
pub fn write_rows_streamed<T: Serialize + DeserializeOwned + Default>(
    rows: impl IntoIterator<Item = T>,
    out: impl Write,
    format: Format,
) -> Result<usize> {
    let mut rows = rows.into_iter();
    let chunks = std::iter::from_fn(move || {
        let chunk: Vec<T> = rows.by_ref().take(CHUNK_ROWS).collect();
        (!chunk.is_empty()).then_some(chunk)
    });
    write_chunks(chunks, out, format)
}

/// Write the rows of every chunk, in order, as one export; the number of rows.
fn write_chunks<T: Serialize + DeserializeOwned + Default, C: AsRef<[T]>>(
    chunks: impl IntoIterator<Item = C>,
    mut out: impl Write,
    format: Format,
) -> Result<usize> {
    let io = |e: std::io::Error| Error::io(e, "<export>");
    let mut count = 0;
    match format {
        Format::Csv | Format::Tsv => {
            let delimiter = if format == Format::Tsv { b'\t' } else { b',' };
            // Rows are serialized by csv's serde writer, then each cell is passed through the
            // one cell writer that neutralises formulas (serde gives no hook per cell).
            let mut w = delimited(&mut out, delimiter);
            let mut first = true;
            for chunk in chunks {
                let mut plain = csv::WriterBuilder::new()
                    .delimiter(delimiter)
                    .has_headers(first)
                    .from_writer(Vec::new());
                for row in chunk.as_ref() {
                    plain.serialize(row)?;
                    count += 1;
                }
                first = first && chunk.as_ref().is_empty();
                let bytes = plain.into_inner().map_err(|e| io(e.into_error()))?;
                let mut reader = csv::ReaderBuilder::new()
                    .delimiter(delimiter)
                    .has_headers(false)
                    .from_reader(&bytes[..]);
                let mut record = csv::ByteRecord::new();
                while reader.read_byte_record(&mut record)? {
                    w.write_record(record.iter().map(cell_written))?;
                }
            }
            w.flush().map_err(io)?;
            drop(w);
            if count == 0 {
                // serialize a default row and keep its first line, the header
                let mut w = delimited(Vec::new(), delimiter);
                w.serialize(T::default())?;
                let bytes = w.into_inner().map_err(|e| io(e.into_error()))?;
                let header = bytes
                    .split_inclusive(|&b| b == b'\n')
                    .next()
                    .unwrap_or_default();
                out.write_all(header).map_err(io)?;
            }
        }
        Format::Jsonl => {
            for chunk in chunks {
                for row in chunk.as_ref() {
                    serde_json::to_writer(&mut out, row)?;
                    out.write_all(b"\n").map_err(io)?;
                    count += 1;
                }
            }
        }
        Format::Parquet => {
            let fields = fields_of::<T>()?;
            let props = parquet::file::properties::WriterProperties::builder()
                .set_compression(parquet::basic::Compression::SNAPPY)
                .set_max_row_group_row_count(Some(CHUNK_ROWS))
                .build();
            let mut writer = None;
            for chunk in chunks {
                write_batch(&mut writer, &fields, chunk.as_ref(), &props)?;
                count += chunk.as_ref().len();
            }
            if count == 0 {
                // no row: the file still has its columns
                write_batch(&mut writer, &fields, &[] as &[T], &props)?;
            }
            let buffer = match writer {
                Some(writer) => writer.into_inner().map_err(export_error)?,
                None => Vec::new(),
            };
            out.write_all(&buffer).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    Ok(count)
}

/// `rows` as one Arrow record batch, with the columns and types every export of `T` has (the
/// Python package hands it to pyarrow without a copy).
pub fn record_batch<T: Serialize + DeserializeOwned>(
    rows: &[T],
) -> Result<arrow_array::RecordBatch> {
    let fields = fields_of::<T>()?;
    serde_arrow::to_record_batch(&fields, &rows).map_err(export_error)
}

/// The rows of an Arrow record batch (the Python package's calls take pyarrow tables so).
pub fn rows_of_batch<T: DeserializeOwned>(batch: &arrow_array::RecordBatch) -> Result<Vec<T>> {
    serde_arrow::from_record_batch(batch).map_err(export_error)
}

/// Append `rows` as one record batch to the Parquet file being built in memory (Arrow's writer
/// wants a `Send` sink; the compressed file is a fraction of the rows' size), creating the
/// writer at the first batch.
fn write_batch<T: Serialize>(
    writer: &mut Option<parquet::arrow::ArrowWriter<Vec<u8>>>,
    fields: &[FieldRef],
    rows: &[T],
    props: &parquet::file::properties::WriterProperties,
) -> Result<()> {
    let batch = serde_arrow::to_record_batch(fields, &rows).map_err(export_error)?;
    let writer = match writer {
        Some(w) => w,
        None => writer.insert(
            parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props.clone()))
                .map_err(export_error)?,
        ),
    };
    writer.write(&batch).map_err(export_error)
}

/// Write `rows` to the file `path` (format by its extension unless told), through a temporary
/// file renamed into place, so a failed export never leaves half a file under the final name;
/// the number of rows.
pub fn write_file<T: Serialize + DeserializeOwned + Default>(
    rows: &[T],
    path: &Path,
    format: Option<Format>,
) -> Result<usize> {
    write_file_with(path, format, |out, format| write_rows(rows, out, format))
}

/// [`write_file`] for rows made one at a time ([`write_rows_streamed`]).
pub fn write_file_streamed<T: Serialize + DeserializeOwned + Default>(
    rows: impl IntoIterator<Item = T>,
    path: &Path,
    format: Option<Format>,
) -> Result<usize> {
    write_file_with(path, format, |out, format| {
        write_rows_streamed(rows, out, format)
    })
}

/// Check before any work that `path` can be written as an export: its format (`format` or
/// the extension) and its folder exist.
pub fn check_output(path: &Path, format: Option<Format>) -> Result<Format> {
    let format = Format::resolve(format, path)?;
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
    {
        return Err(Error::io(
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"),
            dir,
        ));
    }
    Ok(format)
}

/// Where an export is written.
enum Place {
    /// Straight into what is there: a pipe, a terminal, a device (`-o /dev/stdout`), which a
    /// rename would replace by a plain file.
    Stream,
    /// Under a temporary name beside this file, renamed onto it: the file asked for, or the
    /// file a symlink points to (the link stays a link).
    Replace(std::path::PathBuf),
}

/// Whether `m` is a pipe or a character device (a terminal, `/dev/null`): written as it is.
#[cfg(unix)]
fn streams(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_fifo() || m.file_type().is_char_device()
}

#[cfg(not(unix))]
fn streams(m: &std::fs::Metadata) -> bool {
    !m.is_file() && !m.is_dir()
}

fn place(path: &Path) -> Place {
    match std::fs::metadata(path) {
        Ok(m) if streams(&m) => Place::Stream,
        Ok(_)
            if path
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink()) =>
        {
            Place::Replace(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
        }
        _ => Place::Replace(path.to_path_buf()),
    }
}

/// Write a file through `write`, under a temporary name renamed into place (a failed export
/// never leaves half a file under the name asked for); into a pipe or device as it is
/// written. What `write` returns.
pub(crate) fn write_file_with(
    path: &Path,
    format: Option<Format>,
    write: impl FnOnce(std::io::BufWriter<std::fs::File>, Format) -> Result<usize>,
) -> Result<usize> {
    let format = Format::resolve(format, path)?;
    let target = match place(path) {
        Place::Stream => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| Error::io(e, path))?;
            return write(std::io::BufWriter::new(file), format);
        }
        Place::Replace(target) => target,
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = target.with_file_name(format!(".{name}.partial"));
    // Named by the file asked for: the temporary name means nothing to the user.
    let file = std::fs::File::create(&tmp).map_err(|e| Error::io(e, path))?;
    let n = write(std::io::BufWriter::new(file), format).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    std::fs::rename(&tmp, &target).map_err(|e| Error::io(e, path))?;
    Ok(n)
}

/// An error in row `line` (1-based; the header is line 1 of a CSV) of `path`.
pub(crate) fn bad_row(path: &Path, line: u64, what: impl std::fmt::Display) -> Error {
    Error::io(
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("line {line}: {what}"),
        ),
        path,
    )
}

/// Read every row of an export (format by extension unless told).
pub fn read_rows<T: DeserializeOwned>(path: &Path, format: Option<Format>) -> Result<Vec<T>> {
    let format = Format::resolve(format, path)?;
    let file = std::fs::File::open(path).map_err(|e| Error::io(e, path))?;
    let mut rows = Vec::new();
    match format {
        Format::Csv | Format::Tsv => {
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(if format == Format::Tsv { b'\t' } else { b',' })
                .from_reader(BufReader::new(file));
            let headers = reader.headers()?.clone();
            for record in reader.records() {
                let located = |e: csv::Error| {
                    let line = e.position().map_or(0, |p| p.line());
                    bad_row(path, line, e)
                };
                let record = record.map_err(located)?;
                let line = record.position().map_or(0, |p| p.line());
                let cells: csv::StringRecord = record.iter().map(cell_read).collect();
                let row: T = cells
                    .deserialize(Some(&headers))
                    .map_err(|e| bad_row(path, line, e))?;
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
        Format::Parquet => {
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .and_then(|b| b.build())
                    .map_err(|e| bad_row(path, 0, e))?;
            for batch in reader {
                let batch = batch.map_err(|e| bad_row(path, 0, e))?;
                let mut part: Vec<T> =
                    serde_arrow::from_record_batch(&batch).map_err(|e| bad_row(path, 0, e))?;
                rows.append(&mut part);
            }
        }
    }
    Ok(rows)
}

/// The column names of a row type, in order (the header of its CSV).
pub fn columns<T: Serialize + DeserializeOwned>() -> Result<Vec<String>> {
    Ok(fields_of::<T>()?
        .iter()
        .map(|f| f.name().to_string())
        .collect())
}

/// A table of text cells from a JSON Lines or Parquet file whose columns are not known in
/// advance (a gold file): its column names and its rows, every cell as text (empty for null).
/// Parquet columns of text, integers, floats and booleans are read.
pub fn read_text_table(path: &Path, format: Format) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(e, path))?;
    match format {
        Format::Jsonl => {
            let mut objects = Vec::new();
            let mut headers: Vec<String> = Vec::new();
            for (i, line) in BufReader::new(file).lines().enumerate() {
                let line = line.map_err(|e| Error::io(e, path))?;
                if line.trim().is_empty() {
                    continue;
                }
                let object: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&line).map_err(|e| bad_row(path, i as u64 + 1, e))?;
                for key in object.keys() {
                    if !headers.contains(key) {
                        headers.push(key.clone());
                    }
                }
                objects.push(object);
            }
            let rows = objects
                .iter()
                .map(|o| {
                    headers
                        .iter()
                        .map(|h| match o.get(h) {
                            None | Some(serde_json::Value::Null) => String::new(),
                            Some(serde_json::Value::String(s)) => s.clone(),
                            Some(other) => other.to_string(),
                        })
                        .collect()
                })
                .collect();
            Ok((headers, rows))
        }
        Format::Parquet => {
            use arrow_array::Array;
            use arrow_array::cast::AsArray;
            use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type};
            let reader =
                parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                    .and_then(|b| b.build())
                    .map_err(|e| bad_row(path, 0, e))?;
            let mut headers = Vec::new();
            let mut rows = Vec::new();
            for batch in reader {
                let batch = batch.map_err(|e| bad_row(path, 0, e))?;
                headers = batch
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
                let mut columns: Vec<Vec<String>> = Vec::new();
                for col in batch.columns() {
                    let text = |i: usize| -> Option<String> {
                        if col.is_null(i) {
                            return Some(String::new());
                        }
                        use arrow_schema::DataType as D;
                        Some(match col.data_type() {
                            D::Utf8 => col.as_string::<i32>().value(i).to_string(),
                            D::LargeUtf8 => col.as_string::<i64>().value(i).to_string(),
                            D::Int64 => col.as_primitive::<Int64Type>().value(i).to_string(),
                            D::Int32 => col.as_primitive::<Int32Type>().value(i).to_string(),
                            D::UInt64 => col.as_primitive::<UInt64Type>().value(i).to_string(),
                            D::UInt32 => col.as_primitive::<UInt32Type>().value(i).to_string(),
                            D::Float64 => col.as_primitive::<Float64Type>().value(i).to_string(),
                            D::Boolean => col.as_boolean().value(i).to_string(),
                            _ => return None,
                        })
                    };
                    // A column of another type (a list, a struct) cannot be a key or a
                    // cluster name: it reads as empty.
                    let cells: Option<Vec<String>> = (0..batch.num_rows()).map(text).collect();
                    columns.push(cells.unwrap_or_else(|| vec![String::new(); batch.num_rows()]));
                }
                for i in 0..batch.num_rows() {
                    rows.push(columns.iter().map(|c| c[i].clone()).collect());
                }
            }
            Ok((headers, rows))
        }
        Format::Csv | Format::Tsv => Err(Error::InvalidParameter(
            "read_text_table reads JSON Lines and Parquet; CSV and TSV have their own reader"
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    struct Row {
        n: u64,
        name: String,
        score: Option<f64>,
    }

    fn rows(n: u64) -> Vec<Row> {
        (0..n)
            .map(|i| Row {
                n: i,
                name: format!("page, \"{i}\""),
                score: (i % 3 != 0).then_some(i as f64 / 7.0),
            })
            .collect()
    }

    #[test]
    fn streamed_rows_write_the_same_file_as_rows_held_at_once() {
        // across chunk boundaries (2.3 chunks), exactly one chunk, and no row at all
        for n in [CHUNK_ROWS as u64 * 2 + 20_000, CHUNK_ROWS as u64, 0] {
            let rows = rows(n);
            for format in [Format::Csv, Format::Tsv, Format::Jsonl, Format::Parquet] {
                let mut held = Vec::new();
                assert_eq!(write_rows(&rows, &mut held, format).unwrap(), rows.len());
                let mut streamed = Vec::new();
                let written = write_rows_streamed(rows.iter().cloned(), &mut streamed, format);
                assert_eq!(written.unwrap(), rows.len());
                assert!(held == streamed, "{format:?} with {n} rows differs");
                if format != Format::Jsonl {
                    assert!(!streamed.is_empty(), "{format:?} with {n} rows: no header");
                }
            }
        }
    }

    #[test]
    fn a_streamed_file_reads_back_row_for_row() {
        let dir = tempfile::tempdir().unwrap();
        let want = rows(CHUNK_ROWS as u64 + 5);
        for ext in ["csv", "tsv", "jsonl", "parquet"] {
            let path = dir.path().join(format!("rows.{ext}"));
            write_file_streamed(want.iter().cloned(), &path, None).unwrap();
            let got: Vec<Row> = read_rows(&path, None).unwrap();
            assert_eq!(got.len(), want.len(), "{ext}");
            let first_difference = got.iter().zip(&want).position(|(g, w)| g != w);
            assert_eq!(
                first_difference, None,
                "{ext}: rows differ (scores are 1/7ths)"
            );
        }
    }
}
