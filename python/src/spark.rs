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
use samecore::matching::CommonLimit;
use samecore::matching::allpairs::{Part, all_pairs_part};
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
/// `(pages, signatures, unresolved, warnings)` — the shard's page rows with what a run's cluster
/// export says of each page besides (`PageMore`), its `(page, signature, count)` rows, the
/// revisits whose originals none of `paths` holds, and what reading found wrong.
#[pyfunction]
#[pyo3(signature = (paths, options = None))]
fn spark_sign(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    options: Option<&str>,
) -> PyResult<(ArrowTable, ArrowTable, ArrowTable, Vec<String>)> {
    for p in &paths {
        samecore::archive::check_input(p).map_err(error)?;
    }
    let params = super::detector_options(options)?.spotsigs;
    let (signed, reports) = work(py, None, |p| {
        samecore::export::shard::sign_spotsigs(&paths, &params, p)
    })?;
    let rows = samecore::export::record_batch(&signed.pages).map_err(error)?;
    let more = samecore::export::record_batch(&signed.more).map_err(error)?;
    let fields: Vec<Arc<Field>> = (rows.schema().fields().iter())
        .chain(more.schema().fields().iter())
        .cloned()
        .collect();
    let columns = [rows.columns(), more.columns()].concat();
    let pages = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(error)?;
    let signatures = samecore::export::shard::spotsigs_batch(&signed).map_err(error)?;
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
        ArrowTable { batch: signatures },
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

/// One site's pages through SpotSigs' site frame: samecore's `drop_site_frame` on them. `pages`
/// are the ids of every page of the site (those without a signature count too), the rows its
/// `(page, signature, count)` signature rows (i64, i64, u32 bytes), `frame` the site frame's
/// parameters as JSON. The rows kept, as the same three byte strings.
#[pyfunction]
fn spark_site_frame<'py>(
    py: Python<'py>,
    pages: &[u8],
    row_pages: &[u8],
    signatures: &[u8],
    counts: &[u8],
    frame: &str,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let pages: Vec<i64> = numbers(pages, "pages", i64::from_le_bytes)?;
    let row_pages: Vec<i64> = numbers(row_pages, "row_pages", i64::from_le_bytes)?;
    let signatures: Vec<u64> = numbers(signatures, "signatures", u64::from_le_bytes)?;
    let counts = u32s(counts, "counts")?;
    if row_pages.len() != signatures.len() || row_pages.len() != counts.len() {
        return Err(error(
            "row_pages, signatures and counts: one of each per row",
        ));
    }
    let frame: samecore::signature::frame::SiteFrame =
        serde_json::from_str(frame).map_err(|e| error(format!("site frame: {e}")))?;
    let index: std::collections::HashMap<i64, usize> =
        pages.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let mut raw: Vec<Vec<u64>> = vec![Vec::new(); pages.len()];
    for ((p, &h), &c) in row_pages.iter().zip(&signatures).zip(&counts) {
        let i = *index
            .get(p)
            .ok_or_else(|| error(format!("row of page {p}, which is not among the pages")))?;
        raw[i].extend(std::iter::repeat_n(h, c as usize));
    }
    let sites = vec![Some("site"); pages.len()];
    let raw = py.detach(move || {
        samecore::signature::frame::drop_site_frame(&mut raw, &sites, &frame);
        raw
    });
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for (page, mut hashes) in pages.iter().zip(raw) {
        hashes.sort_unstable();
        for same in hashes.chunk_by(|x, y| x == y) {
            a.extend(page.to_le_bytes());
            b.extend(same[0].to_le_bytes());
            c.extend((same.len() as u32).to_le_bytes());
        }
    }
    Ok((
        PyBytes::new(py, &a),
        PyBytes::new(py, &b),
        PyBytes::new(py, &c),
    ))
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
/// once per Python worker and kept for the tasks it runs.
#[pyclass(name = "AllPairsIndex", module = "samecore._samecore", frozen)]
struct AllPairsIndex {
    sets: Vec<SignatureSet>,
    spec: RunSpec,
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
        let sets = work(py, None, move |_| {
            // Dense ids in ascending hash order, as `SignedCollection::build` numbers them.
            let mut distinct = signatures.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let mut per_doc: Vec<Vec<(u32, u32)>> = vec![Vec::new(); pages];
            for ((&d, &h), &c) in docs.iter().zip(&signatures).zip(&counts) {
                let id = distinct.binary_search(&h).expect("a row's hash") as u32;
                per_doc[d as usize].push((id, c));
            }
            Ok(per_doc
                .into_iter()
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
                .collect())
        })?;
        Ok(AllPairsIndex { sets, spec })
    }

    /// Part `k` of `of` of all-pairs matching ([`all_pairs_part`]): a table of `a`, `b` (doc
    /// numbers, a < b) and `score`.
    fn pairs(&self, py: Python<'_>, k: u32, of: u32) -> PyResult<ArrowTable> {
        let m = &self.spec.matching;
        let (threshold, min_shared, common) = (m.threshold, m.min_shared, m.common);
        let common: CommonLimit = common;
        let part = Part { k, of };
        let (pairs, _, _) = work(py, None, |p| {
            all_pairs_part(&self.sets, threshold, min_shared, common, part, p)
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
/// ([`distributed::cluster_story`]): `table` has the pages of whole clusters, each cluster's
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
            let story_pages: Vec<distributed::StoryPage> = same
                .iter()
                .map(|p| {
                    let captured = p.date.as_deref().and_then(samecore::dates::parse_iso);
                    distributed::StoryPage {
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
            let story = distributed::cluster_story(&story_pages, rep);
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
    Ok(())
}
