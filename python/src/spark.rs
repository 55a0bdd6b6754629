//! What the Spark job `spark/samecore_run.py` calls on its executors and its driver: a thin
//! layer over [`samecore::detectors::distributed`] and [`samecore::export::shard`], so the job
//! reads, signs, matches and clusters with samecore's own code. Numbers cross as bytes of
//! little-endian values (NumPy's `tobytes()`, one copy) and tables as Arrow
//! ([`super::ArrowTable`]): no page text and no row goes through Python objects.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use samecore::DocId;
use samecore::detectors::RunSpec;
use samecore::detectors::distributed;
use samecore::matching::allpairs::{Part, Prepared};
use samecore::signature::SignatureSet;
use samecore::signature::set::Counts;
use serde::Serialize;

use super::{ArrowTable, error, work};

/// Little-endian numbers of `W` bytes each from `bytes` (named `what` in an error).
fn numbers<const W: usize, T>(bytes: &[u8], what: &str, f: fn([u8; W]) -> T) -> PyResult<Vec<T>> {
    if !bytes.len().is_multiple_of(W) {
        return Err(error(format!(
            "{what}: {} bytes is not a whole number of {W}-byte values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(W)
        .map(|c| f(c.try_into().expect("W bytes")))
        .collect())
}

fn u32s(bytes: &[u8], what: &str) -> PyResult<Vec<u32>> {
    numbers(bytes, what, u32::from_le_bytes)
}

fn to_bytes<'py>(py: Python<'py>, values: &[u32]) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    PyBytes::new(py, &bytes)
}

/// Read and sign `paths` together for SpotSigs with `options` (as `Session(options=...)`):
/// `(pages, unresolved, warnings)` — the shard's page rows with what a run's cluster export
/// says of each page besides (`PageMore`) and its signatures packed ([`pack`]: `packed`, and
/// their number `total`), the revisits whose originals none of `paths` holds, and what reading
/// found wrong.
#[pyfunction]
#[pyo3(signature = (paths, options = None))]
fn spark_sign(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    options: Option<&str>,
) -> PyResult<(ArrowTable, ArrowTable, Vec<String>)> {
    for p in &paths {
        samecore::archive::check_input(p).map_err(error)?;
    }
    let params = super::detector_options(options)?.spotsigs;
    let (signed, reports) = work(py, None, |p| {
        samecore::export::shard::sign_spotsigs(&paths, &params, p)
    })?;
    let rows = samecore::export::record_batch(&signed.pages).map_err(error)?;
    let more = samecore::export::record_batch(&signed.more).map_err(error)?;
    let (packed, totals): (Vec<Vec<u8>>, Vec<i64>) = py.detach(|| {
        (signed.hashes.iter())
            .map(|h| pack(h.iter().map(|&x| (x, 1))))
            .unzip()
    });
    let signatures = packed_columns(packed, totals);
    let fields: Vec<Arc<Field>> = (rows.schema().fields().iter())
        .chain(more.schema().fields().iter())
        .cloned()
        .chain(signatures.schema().fields().iter().cloned())
        .collect();
    let columns = [rows.columns(), more.columns(), signatures.columns()].concat();
    let pages = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(error)?;
    let unresolved: Vec<RevisitRow> = (signed.unresolved.iter())
        .map(|r| RevisitRow {
            input: r.input as u32,
            refers_to: r.refers_to.clone(),
            refers_to_url: r.refers_to_capture.as_ref().map(|c| c.0.clone()),
            refers_to_date: r.refers_to_capture.as_ref().map(|c| c.1.clone()),
            digest: r.digest.clone(),
        })
        .collect();
    let warnings = (reports.iter())
        .flat_map(|r| r.warnings.iter().map(|w| w.to_string()))
        .collect();
    Ok((
        ArrowTable { batch: pages },
        ArrowTable::of(&unresolved)?,
        warnings,
    ))
}

/// A revisit whose original none of the inputs signed together holds: what finds it.
#[derive(Serialize, serde::Deserialize)]
struct RevisitRow {
    input: u32,
    refers_to: Option<String>,
    refers_to_url: Option<String>,
    refers_to_date: Option<String>,
    digest: Option<String>,
}

/// The SpotSigs signing parameters of detector `options` (as `Session(options=...)`), as
/// JSON: what a shard's manifest holds and the collection-wide filters read.
#[pyfunction]
#[pyo3(signature = (options = None))]
fn spark_sign_params(options: Option<&str>) -> PyResult<String> {
    serde_json::to_string(&super::detector_options(options)?.spotsigs).map_err(error)
}

/// A page's signatures packed, as the job moves them between its steps (a binary column, one
/// row a page: Spark shuffles a million rows of bytes, not fifty million rows of numbers):
/// `(hash, count)` entries of 12 bytes (u64 and u32, little-endian), ascending hash, each
/// hash once, from `(hash, count)`s in any order. With the number of signatures (the counts'
/// sum).
fn pack(entries: impl Iterator<Item = (u64, u32)>) -> (Vec<u8>, i64) {
    let mut entries: Vec<(u64, u32)> = entries.collect();
    entries.sort_unstable_by_key(|e| e.0);
    let mut bytes = Vec::with_capacity(entries.len() * 12);
    let mut total = 0i64;
    for same in entries.chunk_by(|x, y| x.0 == y.0) {
        let count: u32 = same.iter().map(|e| e.1).sum();
        bytes.extend(same[0].0.to_le_bytes());
        bytes.extend(count.to_le_bytes());
        total += i64::from(count);
    }
    (bytes, total)
}

/// The `(hash, count)` entries of a page's packed signatures ([`pack`]).
fn unpack(bytes: &[u8]) -> PyResult<impl Iterator<Item = (u64, u32)> + '_> {
    if !bytes.len().is_multiple_of(12) {
        return Err(error(format!(
            "packed signatures: {} bytes is not a whole number of 12-byte entries",
            bytes.len()
        )));
    }
    Ok(bytes.chunks_exact(12).map(|e| {
        let hash = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
        (
            hash,
            u32::from_le_bytes(e[8..].try_into().expect("4 bytes")),
        )
    }))
}

/// The `packed` and `total` columns of pages' packed signatures.
fn packed_columns(packed: Vec<Vec<u8>>, totals: Vec<i64>) -> RecordBatch {
    use arrow_array::{BinaryArray, Int64Array};
    use arrow_schema::DataType;
    let schema = Schema::new(vec![
        Field::new("packed", DataType::Binary, false),
        Field::new("total", DataType::Int64, false),
    ]);
    let packed = BinaryArray::from_iter_values(packed.iter());
    RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(packed), Arc::new(Int64Array::from(totals))],
    )
    .expect("two columns of one length")
}

/// The values of an integer column `name` of `batch` (Int64 or Int32).
fn int_column(batch: &RecordBatch, name: &str) -> PyResult<Vec<i64>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    let column = (batch.column_by_name(name)).ok_or_else(|| error(format!("no column {name}")))?;
    if let Some(a) = column.as_primitive_opt::<Int64Type>() {
        Ok(a.values().to_vec())
    } else if let Some(a) = column.as_primitive_opt::<Int32Type>() {
        Ok(a.values().iter().map(|&v| i64::from(v)).collect())
    } else {
        Err(error(format!("column {name} is not of integers")))
    }
}

/// The values of a binary column `name` of `batch` (Binary or LargeBinary; null as empty).
fn binary_column<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<Vec<&'a [u8]>> {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    let column = (batch.column_by_name(name)).ok_or_else(|| error(format!("no column {name}")))?;
    if let Some(a) = column.as_binary_opt::<i32>() {
        Ok((0..a.len())
            .map(|i| if a.is_null(i) { &[][..] } else { a.value(i) })
            .collect())
    } else if let Some(a) = column.as_binary_opt::<i64>() {
        Ok((0..a.len())
            .map(|i| if a.is_null(i) { &[][..] } else { a.value(i) })
            .collect())
    } else {
        Err(error(format!("column {name} is not binary")))
    }
}

/// A table of `doc` and the packed signatures' `packed` and `total` columns.
fn packed_table(docs: Vec<i64>, packed: Vec<Vec<u8>>, totals: Vec<i64>) -> ArrowTable {
    use arrow_array::Int64Array;
    use arrow_schema::DataType;
    let columns = packed_columns(packed, totals);
    let fields: Vec<Arc<Field>> =
        std::iter::once(Arc::new(Field::new("doc", DataType::Int64, false)))
            .chain(columns.schema().fields().iter().cloned())
            .collect();
    let mut arrays: Vec<arrow_array::ArrayRef> = vec![Arc::new(Int64Array::from(docs))];
    arrays.extend(columns.columns().iter().cloned());
    ArrowTable {
        batch: RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
            .expect("three columns of one length"),
    }
}

/// Pages through SpotSigs' site frame: samecore's `drop_site_frame` on them. `table` has
/// every page of each site it holds (those without a signature count too): its `doc`, its
/// `packed` signatures and its `site` (a page without one keeps its signatures); `frame` the
/// site frame's parameters as JSON. The pages' `doc`, `packed` and `total` after the frame,
/// in the order given.
#[pyfunction]
fn spark_site_frame(py: Python<'_>, table: &Bound<'_, PyAny>, frame: &str) -> PyResult<ArrowTable> {
    let frame: samecore::signature::frame::SiteFrame =
        serde_json::from_str(frame).map_err(|e| error(format!("site frame: {e}")))?;
    let (mut docs, mut raw, mut sites) = (Vec::new(), Vec::new(), Vec::new());
    for batch in batches_of(table)? {
        docs.extend(int_column(&batch, "doc")?);
        for bytes in binary_column(&batch, "packed")? {
            let mut hashes = Vec::new();
            for (h, c) in unpack(bytes)? {
                hashes.extend(std::iter::repeat_n(h, c as usize));
            }
            raw.push(hashes);
        }
        sites.extend(optional_str_column(&batch, "site")?);
    }
    let (packed, totals) = py.detach(move || {
        let sites: Vec<Option<&str>> = sites.iter().map(|s| s.as_deref()).collect();
        samecore::signature::frame::drop_site_frame(&mut raw, &sites, &frame);
        (raw.iter())
            .map(|h| pack(h.iter().map(|&x| (x, 1))))
            .unzip()
    });
    Ok(packed_table(docs, packed, totals))
}

/// The values of a string column `name` of `batch` (Utf8 or LargeUtf8), null as none.
fn optional_str_column(batch: &RecordBatch, name: &str) -> PyResult<Vec<Option<String>>> {
    use arrow_array::cast::AsArray;
    let column = (batch.column_by_name(name)).ok_or_else(|| error(format!("no column {name}")))?;
    if let Some(a) = column.as_string_opt::<i32>() {
        Ok(a.iter().map(|v| v.map(str::to_owned)).collect())
    } else if let Some(a) = column.as_string_opt::<i64>() {
        Ok(a.iter().map(|v| v.map(str::to_owned)).collect())
    } else {
        Err(error(format!("column {name} is not of strings")))
    }
}

/// Pages' packed signatures as rows: `table` has `doc` and `packed`; a table of `doc`,
/// `signature` and `count`, a row per distinct signature of a page.
#[pyfunction]
fn spark_unpack(table: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    use arrow_array::{Int32Array, Int64Array};
    use arrow_schema::DataType;
    let (mut d, mut h, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for batch in batches_of(table)? {
        for (doc, bytes) in int_column(&batch, "doc")?
            .into_iter()
            .zip(binary_column(&batch, "packed")?)
        {
            for (hash, count) in unpack(bytes)? {
                d.push(doc);
                h.push(hash as i64);
                c.push(count as i32);
            }
        }
    }
    let schema = Schema::new(vec![
        Field::new("doc", DataType::Int64, false),
        Field::new("signature", DataType::Int64, false),
        Field::new("count", DataType::Int32, false),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from(d)),
            Arc::new(Int64Array::from(h)),
            Arc::new(Int32Array::from(c)),
        ],
    )
    .map_err(error)?;
    Ok(ArrowTable { batch })
}

/// Rows of signatures packed again: `table` has `doc`, `signature` and `count`, the rows of a
/// page next to each other; a table of `doc`, `packed` and `total`, a row per page in the order
/// met.
#[pyfunction]
fn spark_pack(table: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let (mut d, mut h, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for batch in batches_of(table)? {
        d.extend(int_column(&batch, "doc")?);
        h.extend(int_column(&batch, "signature")?);
        c.extend(int_column(&batch, "count")?);
    }
    let mut seen = std::collections::HashSet::new();
    let (mut docs, mut packed, mut totals) = (Vec::new(), Vec::new(), Vec::new());
    let mut at = 0;
    for same in d.chunk_by(|x, y| x == y) {
        if !seen.insert(same[0]) {
            return Err(error(format!(
                "the rows of doc {} are not together",
                same[0]
            )));
        }
        let rows = at..at + same.len();
        at += same.len();
        let counts = (rows.clone())
            .map(|i| u32::try_from(c[i]).map_err(|_| error(format!("count {}", c[i]))));
        let counts: Vec<u32> = counts.collect::<PyResult<_>>()?;
        let (bytes, total) = pack(rows.map(|i| h[i] as u64).zip(counts));
        docs.push(same[0]);
        packed.push(bytes);
        totals.push(total);
    }
    Ok(packed_table(docs, packed, totals))
}

/// The run `samecore run --mode allpairs` makes by default, as JSON (a `RunSpec`: the
/// threshold, link rules, common-signature limit, seed…), for the job to start from.
#[pyfunction]
fn spark_default_spec() -> PyResult<String> {
    serde_json::to_string(&distributed::default_spec()).map_err(error)
}

fn spec_of(text: &str) -> PyResult<RunSpec> {
    serde_json::from_str(text).map_err(|e| error(format!("run spec: {e}")))
}

#[derive(Serialize, serde::Deserialize)]
struct PairRow {
    a: u32,
    b: u32,
    score: f64,
}

/// The signature sets of `pages` documents, from rows `(doc, signature, count)` after the
/// collection-wide filters: the index every part of all-pairs matching walks against. Built
/// once per Python worker and kept for the tasks it runs, with the lists every part walks
/// ([`Prepared`]): a worker that walks several parts builds them once.
#[pyclass(name = "AllPairsIndex", module = "samecore._samecore", frozen)]
struct AllPairsIndex {
    sets: Vec<SignatureSet>,
    prepared: Prepared,
    spec: RunSpec,
}

impl AllPairsIndex {
    /// The index of `pages` documents from rows `(doc, signature, count)`.
    fn of_rows(
        py: Python<'_>,
        pages: usize,
        docs: Vec<u32>,
        signatures: Vec<u64>,
        counts: Vec<u32>,
        spec: &str,
    ) -> PyResult<Self> {
        if docs.len() != signatures.len() || docs.len() != counts.len() {
            return Err(error(format!(
                "{} docs, {} signatures and {} counts: one of each per row",
                docs.len(),
                signatures.len(),
                counts.len()
            )));
        }
        if let Some(d) = docs.iter().find(|&&d| d as usize >= pages) {
            return Err(error(format!("doc {d} is not below the {pages} pages")));
        }
        let spec = spec_of(spec)?;
        let (min_shared, common) = (spec.matching.min_shared, spec.matching.common);
        let (sets, prepared) = work(py, None, move |_| {
            // Dense ids in ascending hash order, as `SignedCollection::build` numbers them.
            let mut distinct = signatures.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let mut per_doc: Vec<Vec<(u32, u32)>> = vec![Vec::new(); pages];
            for ((&d, &h), &c) in docs.iter().zip(&signatures).zip(&counts) {
                let id = distinct.binary_search(&h).expect("a row's hash") as u32;
                per_doc[d as usize].push((id, c));
            }
            let sets: Vec<SignatureSet> = (per_doc.into_iter())
                .map(|mut rows| {
                    rows.sort_unstable();
                    rows.dedup_by_key(|r| r.0);
                    let counts: Vec<u32> = rows.iter().map(|r| r.1).collect();
                    SignatureSet {
                        ids: rows.iter().map(|r| r.0).collect(),
                        total: counts.iter().sum(),
                        counts: Counts::new(&counts),
                    }
                })
                .collect();
            let prepared = Prepared::new(&sets, min_shared, common);
            Ok((sets, prepared))
        })?;
        Ok(AllPairsIndex {
            sets,
            prepared,
            spec,
        })
    }
}

#[pymethods]
impl AllPairsIndex {
    /// `docs` (u32), `signatures` (i64) and `counts` (u32) are the rows' columns as bytes;
    /// `spec` the run's JSON ([`spark_default_spec`]).
    #[new]
    fn new(
        py: Python<'_>,
        pages: usize,
        docs: &[u8],
        signatures: &[u8],
        counts: &[u8],
        spec: &str,
    ) -> PyResult<Self> {
        let docs = u32s(docs, "docs")?;
        let signatures: Vec<u64> = numbers(signatures, "signatures", u64::from_le_bytes)?;
        let counts = u32s(counts, "counts")?;
        AllPairsIndex::of_rows(py, pages, docs, signatures, counts, spec)
    }

    /// Part `k` of `of` of all-pairs matching ([`Prepared::walk`]): a table of `a`, `b` (doc
    /// numbers, a < b) and `score`; walked on `threads` threads (default: every core).
    #[pyo3(signature = (k, of, threads = None))]
    fn pairs(
        &self,
        py: Python<'_>,
        k: u32,
        of: u32,
        threads: Option<usize>,
    ) -> PyResult<ArrowTable> {
        let threshold = self.spec.matching.threshold;
        let part = Part { k, of };
        let pool = match threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .map_err(|e| error(format!("a pool of {n} threads: {e}")))?,
            ),
            None => None,
        };
        let (pairs, _, _) = work(py, None, |p| {
            let walk = || self.prepared.walk(&self.sets, threshold, part, p);
            match &pool {
                Some(pool) => pool.install(walk),
                None => walk(),
            }
        })?;
        let rows: Vec<PairRow> = (pairs.iter())
            .map(|p| PairRow {
                a: p.a.0,
                b: p.b.0,
                score: p.score,
            })
            .collect();
        ArrowTable::of(&rows)
    }

    /// The index of `pages` documents from their packed signatures after the filters: `docs`
    /// (u32 bytes) the documents that take part, `offsets` (i64 bytes, one more than the
    /// documents) where each one's entries start in `packed` ([`pack`]: the Arrow buffers of a
    /// binary column).
    #[staticmethod]
    fn packed(
        py: Python<'_>,
        pages: usize,
        docs: &[u8],
        offsets: &[u8],
        packed: &[u8],
        spec: &str,
    ) -> PyResult<Self> {
        let docs = u32s(docs, "docs")?;
        let offsets: Vec<i64> = numbers(offsets, "offsets", i64::from_le_bytes)?;
        if offsets.len() != docs.len() + 1 {
            return Err(error(format!(
                "{} offsets for {} docs: one more than the docs",
                offsets.len(),
                docs.len()
            )));
        }
        let (mut d, mut h, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &doc) in docs.iter().enumerate() {
            let (from, to) = (offsets[i], offsets[i + 1]);
            let entries = usize::try_from(from)
                .ok()
                .zip(usize::try_from(to).ok())
                .and_then(|(f, t)| packed.get(f..t))
                .ok_or_else(|| error(format!("offsets {from}..{to} outside the packed bytes")))?;
            for (hash, count) in unpack(entries)? {
                d.push(doc);
                h.push(hash);
                c.push(count);
            }
        }
        AllPairsIndex::of_rows(py, pages, d, h, c, spec)
    }

    /// The number of documents.
    #[getter]
    fn pages(&self) -> usize {
        self.sets.len()
    }
}

/// Each of `n` documents' position in the processing order under `seed`, as u32 bytes.
#[pyfunction]
fn spark_processing_ranks(py: Python<'_>, n: usize, seed: u64) -> Bound<'_, PyBytes> {
    to_bytes(py, &distributed::processing_ranks(n, seed))
}

/// The pages of one tree whose declaration is cut ([`distributed::cut_tree`]): `parents` (i64
/// bytes, -1 for the root), the links' two ends (u32 bytes each), the cross-link share. u32
/// bytes of the cut pages.
#[pyfunction]
fn spark_cut_tree<'py>(
    py: Python<'py>,
    parents: &[u8],
    a: &[u8],
    b: &[u8],
    fraction: f64,
) -> PyResult<Bound<'py, PyBytes>> {
    let parents: Vec<i64> = numbers(parents, "parents", i64::from_le_bytes)?;
    let parent: Vec<Option<u32>> = (parents.iter()).map(|&p| u32::try_from(p).ok()).collect();
    let (a, b) = (u32s(a, "a")?, u32s(b, "b")?);
    if a.len() != b.len() {
        return Err(error("a and b: one of each per link"));
    }
    let links: Vec<(u32, u32)> = a.into_iter().zip(b).collect();
    let cut = distributed::cut_tree(&parent, &links, fraction).map_err(error)?;
    Ok(to_bytes(py, &cut))
}

#[derive(Serialize, serde::Deserialize)]
struct ClusterRow {
    doc: u32,
    cluster: u32,
    representative: bool,
    declared_to: Option<u32>,
    declared_score: Option<f64>,
}

/// The clusters of `n` pages ([`distributed::finish`]) from the declarations left after the
/// cuts (`docs`, `to` as u32 bytes, `scores` as f64 bytes) and the groups of identical pages
/// (`group_docs` as u32 bytes, group after group, `group_sizes` as u32 bytes): a table of every
/// page's cluster, whether it represents it and its declaration, and one of the pairs of 1 the
/// identical pages add.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn spark_finish(
    py: Python<'_>,
    n: usize,
    docs: &[u8],
    to: &[u8],
    scores: &[u8],
    group_docs: &[u8],
    group_sizes: &[u8],
    spec: &str,
) -> PyResult<(ArrowTable, ArrowTable)> {
    let (docs, to) = (u32s(docs, "docs")?, u32s(to, "to")?);
    let scores: Vec<f64> = numbers(scores, "scores", f64::from_le_bytes)?;
    if docs.len() != to.len() || docs.len() != scores.len() {
        return Err(error("docs, to and scores: one of each per declaration"));
    }
    let mut matched: Vec<Option<(DocId, f64)>> = vec![None; n];
    for ((&d, &t), &s) in docs.iter().zip(&to).zip(&scores) {
        let slot = matched
            .get_mut(d as usize)
            .ok_or_else(|| error(format!("doc {d} is not below the {n} pages")))?;
        *slot = Some((DocId(t), s));
    }
    let members = u32s(group_docs, "group_docs")?;
    let sizes = u32s(group_sizes, "group_sizes")?;
    if sizes.iter().map(|&s| s as usize).sum::<usize>() != members.len() {
        return Err(error("group_sizes do not add up to group_docs"));
    }
    let mut groups = Vec::with_capacity(sizes.len());
    let mut at = 0;
    for &s in &sizes {
        let mut g: Vec<DocId> = members[at..at + s as usize]
            .iter()
            .map(|&d| DocId(d))
            .collect();
        g.sort_unstable();
        groups.push(g);
        at += s as usize;
    }
    groups.sort_unstable();
    if let Some(d) = members.iter().find(|&&d| d as usize >= n) {
        return Err(error(format!(
            "group member {d} is not below the {n} pages"
        )));
    }
    let spec = spec_of(spec)?;
    let detection = work(py, None, |_| {
        distributed::finish(n, matched, &groups, &spec)
    })?;
    let c = &detection.clustering;
    let rows: Vec<ClusterRow> = (0..n)
        .map(|d| {
            let declared = detection.outcome.matched[d];
            ClusterRow {
                doc: d as u32,
                cluster: c.cluster_of[d],
                representative: c.representatives[c.cluster_of[d] as usize].index() == d,
                declared_to: declared.map(|(x, _)| x.0),
                declared_score: declared.map(|(_, s)| s),
            }
        })
        .collect();
    let pairs: Vec<PairRow> = (detection.outcome.pairs.iter())
        .map(|p| PairRow {
            a: p.a.0,
            b: p.b.0,
            score: p.score,
        })
        .collect();
    Ok((ArrowTable::of(&rows)?, ArrowTable::of(&pairs)?))
}

/// The record batches of a pyarrow table (anything with `__arrow_c_stream__`), taken through
/// the Arrow C stream interface without a copy.
fn batches_of(table: &Bound<'_, PyAny>) -> PyResult<Vec<RecordBatch>> {
    use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
    use pyo3::types::PyCapsule;
    let capsule = table
        .call_method1("__arrow_c_stream__", (table.py().None(),))?
        .cast_into::<PyCapsule>()
        .map_err(|_| error("not an Arrow table: its __arrow_c_stream__ gave no capsule"))?;
    let pointer = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule holds an ArrowArrayStream (its name says so); `from_raw` moves it
    // out and leaves a released stream behind, which the capsule's destructor then ignores.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer.as_ptr().cast()) };
    let reader = RecordBatchStreamReader::try_new(stream).map_err(error)?;
    reader.collect::<Result<Vec<_>, _>>().map_err(error)
}

/// The rows of a pyarrow table as `T`s.
fn rows_of<T: serde::de::DeserializeOwned>(table: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    let mut rows = Vec::new();
    for batch in batches_of(table)? {
        rows.extend(samecore::export::rows_of_batch::<T>(&batch).map_err(error)?);
    }
    Ok(rows)
}

/// A page of [`spark_headlines`]'s table.
#[derive(serde::Deserialize)]
struct TitledPage {
    title_site: Option<String>,
    title: Option<String>,
}

/// What [`spark_headlines`] gives a page.
#[derive(Serialize, serde::Deserialize)]
struct HeadlineRow {
    headline: Option<String>,
    on_site: Option<u32>,
}

/// Every page's headline and how many pages of its site have it
/// ([`samecore::headline::Titles::of_one_site`]): `table` has the pages' `title_site` and
/// `title`, the pages of a site next to each other (a task's pages sorted by site). A table of
/// `headline` and `on_site`, a row per page in the order given.
#[pyfunction]
fn spark_headlines(py: Python<'_>, table: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let pages: Vec<TitledPage> = rows_of(table)?;
    let rows = py.detach(|| -> Result<Vec<HeadlineRow>, String> {
        fn site(p: &TitledPage) -> &str {
            p.title_site.as_deref().unwrap_or_default()
        }
        let mut seen = std::collections::HashSet::new();
        let mut rows = Vec::with_capacity(pages.len());
        for same in pages.chunk_by(|a, b| site(a) == site(b)) {
            if !seen.insert(site(&same[0])) {
                return Err(format!(
                    "the pages of site {:?} are not together",
                    site(&same[0])
                ));
            }
            let titles: Vec<Option<&str>> = same.iter().map(|p| p.title.as_deref()).collect();
            for h in samecore::headline::Titles::of_one_site(site(&same[0]), &titles) {
                let (headline, on_site) = h.headline.unzip();
                rows.push(HeadlineRow {
                    headline,
                    on_site: on_site.flatten(),
                });
            }
        }
        Ok(rows)
    });
    ArrowTable::of(&rows.map_err(error)?)
}

/// A page of [`spark_stories`]'s table.
#[derive(serde::Deserialize)]
struct StoryIn {
    cluster: i64,
    representative: bool,
    title_site: Option<String>,
    title: Option<String>,
    headline: Option<String>,
    on_site: Option<i64>,
    site: Option<String>,
    published: Option<String>,
    published_source: Option<String>,
    date: Option<String>,
}

/// What [`spark_stories`] gives a page.
#[derive(Serialize, serde::Deserialize)]
struct StoryRow {
    story_title: Option<String>,
    first_publisher: bool,
    lag_seconds: Option<i64>,
}

/// Each cluster's story title and its pages' first-publisher marks and lags
/// ([`samecore::headline::cluster_story`]): `table` has the pages of whole clusters, each cluster's
/// pages together in page order, with their `cluster`, `representative`, `title_site`,
/// `title`, the `headline` and `on_site` of [`spark_headlines`], and `site`, `published`,
/// `published_source` and capture `date`. A table of `story_title`, `first_publisher` and
/// `lag_seconds`, a row per page in the order given.
#[pyfunction]
fn spark_stories(py: Python<'_>, table: &Bound<'_, PyAny>) -> PyResult<ArrowTable> {
    let pages: Vec<StoryIn> = rows_of(table)?;
    let rows = py.detach(|| -> Result<Vec<StoryRow>, String> {
        let mut seen = std::collections::HashSet::new();
        let mut rows = Vec::with_capacity(pages.len());
        for same in pages.chunk_by(|a, b| a.cluster == b.cluster) {
            if !seen.insert(same[0].cluster) {
                return Err(format!(
                    "the pages of cluster {} are not together",
                    same[0].cluster
                ));
            }
            let story_pages: Vec<samecore::headline::StoryPage> = same
                .iter()
                .map(|p| {
                    let captured = p.date.as_deref().and_then(samecore::dates::parse_iso);
                    samecore::headline::StoryPage {
                        headed: samecore::headline::Headed {
                            site: p.title_site.as_deref().unwrap_or_default(),
                            title: p.title.as_deref(),
                            headline: p.headline.clone().map(|h| (h, p.on_site.map(|n| n as u32))),
                        },
                        member: samecore::dates::spread::Member {
                            site: p.site.clone().unwrap_or_default(),
                            published: samecore::dates::Published::from_stored(
                                p.published.as_deref(),
                                p.published_source.as_deref(),
                            ),
                            captured,
                        },
                    }
                })
                .collect();
            let rep = same.iter().position(|p| p.representative);
            let story = samecore::headline::cluster_story(&story_pages, rep);
            for (first, lag) in story.first.iter().zip(&story.lag_seconds) {
                rows.push(StoryRow {
                    story_title: story.title.clone(),
                    first_publisher: *first,
                    lag_seconds: *lag,
                });
            }
        }
        Ok(rows)
    });
    ArrowTable::of(&rows.map_err(error)?)
}

/// Add the Spark job's calls to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AllPairsIndex>()?;
    m.add_function(wrap_pyfunction!(spark_sign, m)?)?;
    m.add_function(wrap_pyfunction!(spark_default_spec, m)?)?;
    m.add_function(wrap_pyfunction!(spark_sign_params, m)?)?;
    m.add_function(wrap_pyfunction!(spark_site_frame, m)?)?;
    m.add_function(wrap_pyfunction!(spark_processing_ranks, m)?)?;
    m.add_function(wrap_pyfunction!(spark_cut_tree, m)?)?;
    m.add_function(wrap_pyfunction!(spark_finish, m)?)?;
    m.add_function(wrap_pyfunction!(spark_headlines, m)?)?;
    m.add_function(wrap_pyfunction!(spark_stories, m)?)?;
    m.add_function(wrap_pyfunction!(spark_unpack, m)?)?;
    m.add_function(wrap_pyfunction!(spark_pack, m)?)?;
    Ok(())
}
