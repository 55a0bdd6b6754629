//! `samecore._samecore`: the native half of the Python package, a thin layer over the library's
//! [`samecore::session`] (the same calls the CLI and the workbench make) and its project store.
//! The Python half (`samecore/__init__.py`) turns the tables into pandas DataFrames and draws
//! progress with tqdm.
//!
//! Every piece of work runs on a thread of its own with the GIL released ([`work`]); the
//! calling thread waits in slices of 100 ms, hands the progress to the caller's callback, and
//! cancels the work on Ctrl-C (`KeyboardInterrupt`) or when the callback raises. Tables go to
//! pyarrow through the Arrow C stream interface (`__arrow_c_stream__`): pyarrow takes the
//! buffers as they are, without a copy.

mod spark;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use samecore::detectors::{Algo, DetectorOptions, RunSpec};
use samecore::progress::Progress;
use samecore::session::{self, OpenOptions, Session};
use samecore::store::{Project, RunId};

/// mimalloc, as the `samecore` binary: Rust's allocations in the extension (Python's own are
/// untouched).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    _samecore,
    SamecoreError,
    PyException,
    "An error of samecore's library; its message says what went wrong and what to do."
);

fn error(e: impl std::fmt::Display) -> PyErr {
    SamecoreError::new_err(e.to_string())
}

/// Run `f` on a thread of its own with the GIL released, reporting `(stage, done, total)` to
/// `callback` every 100 ms; Ctrl-C or an exception of the callback cancels the work (which
/// stops at its next check) and is raised once it has stopped.
fn work<T: Send>(
    py: Python<'_>,
    callback: Option<&Bound<'_, PyAny>>,
    f: impl FnOnce(&Progress) -> samecore::Result<T> + Send,
) -> PyResult<T> {
    let progress = Progress::new();
    let (tx, mut rx) = channel();
    std::thread::scope(|scope| {
        let p = &progress;
        scope.spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(p)));
            let _ = tx.send(result);
        });
        let mut failure: Option<PyErr> = None;
        let mut shown = None;
        loop {
            // The receiver goes into the wait and comes back (it is not shared across threads).
            let (got, back) = py.detach(move || {
                let got = rx.recv_timeout(Duration::from_millis(100));
                (got, rx)
            });
            rx = back;
            match got {
                Ok(result) => {
                    if let Some(e) = failure {
                        return Err(e);
                    }
                    if let Some(cb) = callback {
                        // The last stage, complete.
                        let s = progress.snapshot();
                        cb.call1((s.stage, s.total.max(s.done), s.total.max(s.done)))?;
                    }
                    return match result {
                        Ok(Ok(value)) => Ok(value),
                        Ok(Err(e)) => Err(error(e)),
                        Err(panic) => {
                            let what = panic
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            Err(error(format!("samecore failed unexpectedly: {what}")))
                        }
                    };
                }
                Err(RecvTimeoutError::Timeout) if failure.is_none() => {
                    if let Err(e) = py.check_signals() {
                        progress.cancel();
                        failure = Some(e);
                        continue;
                    }
                    if let Some(cb) = callback {
                        let s = progress.snapshot();
                        let now = (s.stage.clone(), s.done, s.total);
                        if shown.as_ref() != Some(&now) {
                            if let Err(e) = cb.call1(now.clone()) {
                                progress.cancel();
                                failure = Some(e);
                            }
                            shown = Some(now);
                        }
                    }
                }
                // Cancelled: wait for the work to stop.
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(error("the work stopped without an answer"));
                }
            }
        }
    })
}

/// A table of rows, handed to pyarrow without a copy (`pyarrow.table(t)`).
#[pyclass(name = "ArrowTable", module = "samecore._samecore", frozen)]
struct ArrowTable {
    batch: RecordBatch,
}

impl ArrowTable {
    fn of<T: serde::Serialize + serde::de::DeserializeOwned>(rows: &[T]) -> PyResult<Self> {
        Ok(ArrowTable {
            batch: samecore::export::record_batch(rows).map_err(error)?,
        })
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow C stream interface: a capsule of an `ArrowArrayStream` over the table's one
    /// record batch.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is the table's own; pyarrow casts when it asked for another.
        let _ = requested_schema;
        let schema = self.batch.schema();
        let reader = RecordBatchIterator::new(vec![Ok(self.batch.clone())], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowTable({} rows: {})",
            self.batch.num_rows(),
            self.columns().join(", ")
        )
    }
}

/// Detector options: the library's defaults with `options` (a JSON object, e.g.
/// `{"spotsigs": {"min_signatures": 3}}`) merged in.
fn detector_options(options: Option<&str>) -> PyResult<DetectorOptions> {
    let mut value = serde_json::to_value(DetectorOptions::default()).map_err(error)?;
    if let Some(text) = options {
        let given: serde_json::Value = serde_json::from_str(text).map_err(error)?;
        merge(&mut value, given);
    }
    serde_json::from_value(value).map_err(|e| error(format!("detector options: {e}")))
}

fn merge(into: &mut serde_json::Value, from: serde_json::Value) {
    match (into, from) {
        (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Opened archives: documents, gold and every detector prepared so far.
#[pyclass(name = "Session", module = "samecore._samecore", frozen)]
struct PySession {
    inner: Arc<Session>,
}

#[pymethods]
impl PySession {
    /// Read `paths` (WARC, ARC, WACZ files, folders or zips of pages); `sign` signs every page
    /// for SpotSigs with `options` on the way.
    #[new]
    #[pyo3(signature = (paths, *, gold = None, dates = true, sign = true, options = None, progress = None))]
    fn open(
        py: Python<'_>,
        paths: Vec<PathBuf>,
        gold: Option<PathBuf>,
        dates: bool,
        sign: bool,
        options: Option<&str>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        for p in &paths {
            samecore::archive::check_input(p).map_err(error)?;
        }
        let open = OpenOptions {
            sign: if sign {
                Some(detector_options(options)?)
            } else {
                None
            },
            publication_dates: dates,
            gold,
            ..Default::default()
        };
        // As the binary: small inputs keep freed memory (samecore::engine::memory).
        samecore::engine::memory::tune_for_inputs(&paths, true);
        let session = work(py, progress.as_ref(), |p| Session::open(&paths, &open, p))?;
        Ok(PySession {
            inner: Arc::new(session),
        })
    }

    /// Number of pages.
    #[getter]
    fn documents(&self) -> usize {
        self.inner.docs().len()
    }

    /// The inputs as given.
    #[getter]
    fn inputs(&self) -> Vec<String> {
        self.inner
            .inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    }

    /// Where the gold clusters came from, when known.
    #[getter]
    fn gold_source(&self) -> Option<String> {
        self.inner.gold_source.clone()
    }

    /// Seconds spent reading (and signing on the way).
    #[getter]
    fn read_seconds(&self) -> f64 {
        self.inner.read_seconds
    }

    /// Every page: identity, title, publication date, gold cluster.
    fn pages(&self) -> PyResult<ArrowTable> {
        ArrowTable::of(&self.inner.page_rows().collect::<Vec<_>>())
    }

    /// What each input held (JSON): format, records by type, pages, skipped, warnings.
    fn reports(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.collection.reports).map_err(error)
    }

    /// Run a detector (`algo`) at `threshold` (default: the detector's) in `mode`
    /// (incremental, seeded, full, allpairs) with cluster `rule`, by a spec (JSON of the
    /// library's `RunSpec`, merged into the detector's defaults) and options.
    #[pyo3(signature = (algo, *, threshold = None, mode = None, rule = None, seed = None, spec = None, options = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        algo: &str,
        threshold: Option<f64>,
        mode: Option<&str>,
        rule: Option<&str>,
        seed: Option<u64>,
        spec: Option<&str>,
        options: Option<&str>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyRun> {
        let algo: Algo = algo.parse().map_err(error)?;
        let options = detector_options(options)?;
        let mut value = serde_json::to_value(RunSpec::default_for(algo)).map_err(error)?;
        if let Some(text) = spec {
            merge(&mut value, serde_json::from_str(text).map_err(error)?);
        }
        let mut spec: RunSpec =
            serde_json::from_value(value).map_err(|e| error(format!("run spec: {e}")))?;
        if let Some(t) = threshold {
            samecore::matching::check_threshold(t).map_err(error)?;
            spec.matching.threshold = t;
        }
        if let Some(mode) = mode {
            spec.matching.mode = mode.parse().map_err(error)?;
            spec.matching.drop_link_rules_where_they_cannot_apply();
        }
        if let Some(rule) = rule {
            spec.rule = rule.parse().map_err(error)?;
        }
        if let Some(seed) = seed {
            spec.matching.seed = seed;
        }
        let session = self.inner.clone();
        let run = work(py, progress.as_ref(), |p| {
            session.run(algo, &options, &spec, p)
        })?;
        Ok(PyRun {
            session: self.inner.clone(),
            run,
            options,
        })
    }

    /// What pages `a` and `b` (by key, record id or URL) share without their sites' frames.
    #[pyo3(signature = (a, b, *, wholly = 0.8, partially = 0.2))]
    fn compare<'py>(
        &self,
        py: Python<'py>,
        a: &str,
        b: &str,
        wholly: f64,
        partially: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let find = |name: &str| {
            self.inner
                .find(name)
                .ok_or_else(|| error(format!("no page with key, record id or URL {name:?}")))
        };
        let (da, db) = (find(a)?, find(b)?);
        let cutoffs = samecore::passages::Cutoffs { wholly, partially };
        let session = self.inner.clone();
        let c = work(py, None, |_| session.compare(da, db, &cutoffs))?;
        let out = PyDict::new(py);
        let docs = self.inner.docs();
        out.set_item("a", docs[da.index()].capture())?;
        out.set_item("b", docs[db.index()].capture())?;
        out.set_item("share_a", c.alignment.share_a())?;
        out.set_item("share_b", c.alignment.share_b())?;
        let direction = serde_json::to_value(c.derivation.direction).map_err(error)?;
        out.set_item("first", direction.as_str())?;
        out.set_item("derivation", c.derivation.class.name())?;
        out.set_item("derived_share", c.derivation.share)?;
        out.set_item("passages", ArrowTable::of(&c.passages)?)?;
        Ok(out)
    }

    /// A page's decoded HTML (by key, record id or URL), read again from its archive.
    fn text(&self, py: Python<'_>, page: &str) -> PyResult<String> {
        let doc = self
            .inner
            .find(page)
            .ok_or_else(|| error(format!("no page with key, record id or URL {page:?}")))?;
        let session = self.inner.clone();
        work(py, None, |_| session.page_text(doc).map(|t| t.to_string()))
    }

    fn __repr__(&self) -> String {
        format!(
            "Session({} pages from {}{})",
            self.inner.docs().len(),
            self.inputs().join(", "),
            self.inner
                .gold_source
                .as_deref()
                .map(|g| format!("; gold from {g}"))
                .unwrap_or_default()
        )
    }
}

/// One detector's run on a session.
#[pyclass(name = "Run", module = "samecore._samecore", frozen)]
struct PyRun {
    session: Arc<Session>,
    run: session::Run,
    options: DetectorOptions,
}

#[pymethods]
impl PyRun {
    /// The detector's name.
    #[getter]
    fn algo(&self) -> &'static str {
        self.run.algo.name()
    }

    /// The threshold it ran at.
    #[getter]
    fn threshold(&self) -> f64 {
        self.run.detection.spec.matching.threshold
    }

    /// Every page with its cluster, identity, publication date, and lag after its story's
    /// first publication.
    fn clusters(&self) -> PyResult<ArrowTable> {
        ArrowTable::of(
            &self
                .session
                .cluster_rows(&self.run.detection)
                .collect::<Vec<_>>(),
        )
    }

    /// Every scored pair at or above the threshold, with both pages' identity.
    fn pairs(&self) -> PyResult<ArrowTable> {
        ArrowTable::of(
            &self
                .session
                .pair_rows(&self.run.detection)
                .collect::<Vec<_>>(),
        )
    }

    /// The run's summary as JSON, as `samecore run --json` gives it: spec, counts, the matching
    /// trace, metrics against gold, languages, stories over time, seconds.
    fn summary(&self) -> PyResult<String> {
        serde_json::to_string(&self.session.summary(&self.run)).map_err(error)
    }

    /// The same detector at another threshold (nothing is signed again).
    #[pyo3(signature = (threshold, *, progress = None))]
    fn at(
        &self,
        py: Python<'_>,
        threshold: f64,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyRun> {
        samecore::matching::check_threshold(threshold).map_err(error)?;
        let session = self.session.clone();
        let run = &self.run;
        let again = work(py, progress.as_ref(), |p| session.rerun(run, threshold, p))?;
        Ok(PyRun {
            session: self.session.clone(),
            run: again,
            options: self.options.clone(),
        })
    }

    /// Precision, recall and F1 against the gold at each threshold, averaged over `seeds`
    /// seeds (randomized procedures), as JSON rows (the library's `SweepRow`).
    #[pyo3(signature = (thresholds, *, seeds = 1, progress = None))]
    fn sweep(
        &self,
        py: Python<'_>,
        thresholds: Vec<f64>,
        seeds: usize,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        if let Some(t) = thresholds.iter().find(|t| !(0.0..=1.0).contains(*t)) {
            return Err(error(format!("threshold {t} is not in [0, 1]")));
        }
        let (session, run) = (&self.session, &self.run);
        let rows = work(py, progress.as_ref(), |p| {
            session.sweep(run, &thresholds, seeds, p)
        })?;
        serde_json::to_string(&rows).map_err(error)
    }

    /// Store the run in the project file at `path` (created when missing); its number there.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<i64> {
        let params = serde_json::json!({
            "algo": self.run.algo.name(),
            "from": "python",
            "options": serde_json::to_value(&self.options).map_err(error)?,
        });
        let elapsed = Some((self.run.detect_seconds * 1000.0).round() as u64);
        let session = self.session.clone();
        let detection = self.run.detection.clone();
        let id = work(py, None, |_| {
            let mut project = Project::open(&path)?;
            session.save(&mut project, &detection, params, elapsed)
        })?;
        Ok(id.0)
    }

    fn __repr__(&self) -> String {
        let d = &self.run.detection;
        format!(
            "Run({} at {}: {} clusters of 2+ pages, {} pairs)",
            self.run.algo.name(),
            d.spec.matching.threshold,
            d.clustering.groups().len(),
            d.pairs().len()
        )
    }
}

/// The project at `path`, which must exist (reading never creates one).
fn existing_project(path: &PathBuf) -> PyResult<Project> {
    if !path.is_file() {
        return Err(error(format!("no project file at {}", path.display())));
    }
    Project::open_with(
        path,
        &samecore::store::OpenOptions {
            create: false,
            ..Default::default()
        },
    )
    .map_err(error)
}

/// One table of the project at `path`: `runs`, `pages` (with the clusters of `run`, default the
/// latest), `samples`, `labels` (of `sample`, default every sample), `codes` or
/// `derivations`.
#[pyfunction]
#[pyo3(signature = (path, table, *, run = None, sample = None))]
fn project_table(
    path: PathBuf,
    table: &str,
    run: Option<i64>,
    sample: Option<&str>,
) -> PyResult<ArrowTable> {
    use samecore::export;
    let project = existing_project(&path)?;
    let e = error;
    match table {
        "runs" => ArrowTable::of(&export::run_rows(&project).map_err(e)?),
        "pages" => {
            let run = match run {
                Some(id) => Some(RunId(id)),
                None => project.runs().map_err(e)?.last().map(|r| r.id),
            };
            ArrowTable::of(&export::page_rows(&project, run).map_err(e)?)
        }
        "samples" => {
            let rows: Vec<SampleRow> = project
                .samples()
                .map_err(e)?
                .into_iter()
                .map(|s| SampleRow {
                    sample: s.name,
                    run: s.run.map(|r| r.0),
                    method: s.method,
                    seed: s.seed,
                    blind: s.blind,
                    pairs: s.size,
                    created_at: s.created_at,
                    plan: s.spec.to_string(),
                })
                .collect();
            ArrowTable::of(&rows)
        }
        "labels" => {
            let samples = match sample {
                Some(name) => vec![project.sample_by_name(name).map_err(e)?],
                None => project.samples().map_err(e)?,
            };
            let mut rows = Vec::new();
            for s in samples {
                rows.extend(export::pair_rows(&project, s.id).map_err(e)?);
            }
            ArrowTable::of(&rows)
        }
        "codes" => ArrowTable::of(&export::code_rows(&project).map_err(e)?),
        "values" => ArrowTable::of(&export::dataset::value_rows(&project).map_err(e)?),
        "dataset" => Ok(ArrowTable {
            batch: export::dataset::record_batch(&export::dataset::dataset(&project).map_err(e)?)
                .map_err(e)?,
        }),
        "reliability" => Ok(ArrowTable {
            batch: export::dataset::record_batch(
                &export::dataset::reliability(&project).map_err(e)?,
            )
            .map_err(e)?,
        }),
        "derivations" => ArrowTable::of(&export::derivation_rows(&project).map_err(e)?),
        other => Err(error(format!(
            "no table {other:?}: runs, pages, samples, labels, codes, derivations, values, \
             dataset or reliability"
        ))),
    }
}

/// Full-text search of a project's pages (the index beside it built or brought up to date when
/// it is opened), its stories and codes kept and read again when the project was written since.
#[pyclass(name = "Search", module = "samecore._samecore", unsendable)]
struct PySearch {
    path: PathBuf,
    inner: samecore::search::Searcher,
}

#[pymethods]
impl PySearch {
    #[new]
    #[pyo3(signature = (path, *, run = None, by_page = false, progress = None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        run: Option<i64>,
        by_page: bool,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let project = existing_project(&path)?;
        let run = match (by_page, run) {
            (true, _) => None,
            (false, Some(id)) => Some(project.run(RunId(id)).map_err(error)?.id),
            (false, None) => project.runs().map_err(error)?.last().map(|r| r.id),
        };
        drop(project);
        let p = path.clone();
        let inner = work(py, progress, move |pr| {
            samecore::search::Searcher::open(&p, run, pr)
        })?;
        Ok(PySearch { path, inner })
    }

    /// What opening the index did (built, updated, rebuilt and why).
    #[getter]
    fn report(&self) -> String {
        self.inner.report.describe()
    }

    /// The run whose clusters are the stories (None: every page its own).
    #[getter]
    fn run(&self) -> Option<i64> {
        self.inner.run().map(|r| r.0)
    }

    /// The stories matching `query`, best first (or by `sort`: relevance, first, size), and
    /// the counts of all matching stories and pages.
    #[pyo3(signature = (query, *, whole_text = false, sort = "relevance", limit = None))]
    fn query(
        &mut self,
        query: &str,
        whole_text: bool,
        sort: &str,
        limit: Option<usize>,
    ) -> PyResult<(ArrowTable, usize, usize)> {
        let options = samecore::search::SearchOptions {
            whole_text,
            sort: sort.parse().map_err(error)?,
            limit,
        };
        let results = self
            .inner
            .search(query, &options, &Progress::new())
            .map_err(error)?;
        let rows = results.story_rows();
        Ok((
            ArrowTable::of(&rows)?,
            results.story_count,
            results.page_count,
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<samecore.Search {} ({} pages indexed)>",
            self.path.display(),
            self.inner.index().pages()
        )
    }
}

/// The codebook of the project at `path` as its file's JSON (with its version).
#[pyfunction]
fn project_codebook(path: PathBuf) -> PyResult<String> {
    let project = existing_project(&path)?;
    project
        .codebook()
        .and_then(|b| b.to_file_text())
        .map_err(error)
}

/// Krippendorff's alpha and the rest per variable of the project at `path` (JSON rows), each
/// variable at its codebook's level, the interval from `resamples` bootstrap resamples.
#[pyfunction]
#[pyo3(signature = (path, *, resamples = 10_000, seed = 0))]
fn project_agreement(
    py: Python<'_>,
    path: PathBuf,
    resamples: usize,
    seed: u64,
) -> PyResult<String> {
    let project = existing_project(&path)?;
    let boot = samecore::agreement::BootstrapConfig {
        resamples,
        seed,
        ..Default::default()
    };
    let table = py
        .detach(move || samecore::coding::reliability::agreement(&project, &boot))
        .map_err(error)?;
    serde_json::to_string(&table).map_err(error)
}

/// Write one package per coder of round `round` (JSON: the packages written); with `sample`,
/// one per coder in `coders` of that sample's pairs.
#[pyfunction]
#[pyo3(signature = (path, round = None, *, sample = None, out = None, coders = None, by = "lead".to_string()))]
fn project_assign(
    py: Python<'_>,
    path: PathBuf,
    round: Option<String>,
    sample: Option<String>,
    out: Option<PathBuf>,
    coders: Option<Vec<String>>,
    by: String,
) -> PyResult<String> {
    let mut project = existing_project(&path)?;
    let folder = out.unwrap_or_else(|| {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
    });
    let written = py
        .detach(move || match (round, sample) {
            (Some(round), None) => {
                samecore::package::assign(&mut project, &round, coders.as_deref(), &folder, &by)
            }
            (None, Some(sample)) => samecore::package::assign_sample(
                &mut project,
                &sample,
                coders.as_deref().unwrap_or_default(),
                &folder,
                &by,
            ),
            _ => Err(samecore::Error::InvalidParameter(
                "say what to assign: a round, or sample= with coders=".into(),
            )),
        })
        .map_err(error)?;
    serde_json::to_string(&written).map_err(error)
}

/// Merge coders' packages into the project (JSON: the merge report).
#[pyfunction]
#[pyo3(signature = (path, packages, *, by = "lead".to_string()))]
fn project_merge(
    py: Python<'_>,
    path: PathBuf,
    packages: Vec<PathBuf>,
    by: String,
) -> PyResult<String> {
    let mut project = existing_project(&path)?;
    let report = py
        .detach(move || samecore::package::merge(&mut project, &packages, &by))
        .map_err(error)?;
    serde_json::to_string(&report).map_err(error)
}

/// A package's coder, round, blindness, codebook and progress (JSON).
#[pyfunction]
fn package_info(path: PathBuf) -> PyResult<String> {
    let package = samecore::package::Package::open_read(&path).map_err(error)?;
    let (done, total) = package.progress().map_err(error)?;
    let pairs = package.pair_count().map_err(error)?;
    let labelled = package.labels().map_err(error)?.len();
    let i = &package.info;
    serde_json::to_string(&serde_json::json!({
        "coder": i.coder, "round": i.round, "kind": i.kind, "run": i.run.0, "blind": i.blind,
        "codebook": i.codebook, "created_by": i.created_by, "created_at": i.created_at,
        "done": done, "stories": total, "pairs": pairs, "labelled": labelled,
    }))
    .map_err(error)
}

/// A package's stories (JSON rows; `with_view`: the inert page too).
#[pyfunction]
#[pyo3(signature = (path, *, with_view = false))]
fn package_stories(path: PathBuf, with_view: bool) -> PyResult<String> {
    let package = samecore::package::Package::open_read(&path).map_err(error)?;
    let rows: Vec<serde_json::Value> = package
        .units()
        .map_err(error)?
        .into_iter()
        .map(|u| {
            let mut row = serde_json::json!({
                "cluster": u.cluster, "run": u.run.0, "stratum": u.stratum, "pages": u.pages,
                "key": u.key, "title": u.title, "url": u.url, "site": u.site,
                "sites": u.sites, "published": u.published, "captured": u.captured,
                "core": u.core,
            });
            if with_view {
                row["view"] = serde_json::Value::String(u.view);
            }
            row
        })
        .collect();
    serde_json::to_string(&rows).map_err(error)
}

/// The coder's values in a package (JSON rows: cluster, variable, value, version, at).
#[pyfunction]
fn package_values(path: PathBuf) -> PyResult<String> {
    let package = samecore::package::Package::open_read(&path).map_err(error)?;
    let units = package.units().map_err(error)?;
    let rows: Vec<serde_json::Value> = package
        .values()
        .map_err(error)?
        .into_iter()
        .map(|v| {
            let cluster = units
                .iter()
                .find(|u| u.position == v.position)
                .map(|u| u.cluster);
            let (answer, value) = v.answer.stored();
            serde_json::json!({"cluster": cluster, "page": v.page, "variable": v.variable,
                "answer": answer, "value": value, "version": v.version, "at": v.at})
        })
        .collect();
    serde_json::to_string(&rows).map_err(error)
}

/// The package coder's answer `value` to `variable` on the story of cluster `cluster` (or,
/// with `page`, on that page of the story: its key or URL).
#[pyfunction]
#[pyo3(signature = (path, cluster, variable, value, *, page = None))]
fn package_code(
    path: PathBuf,
    cluster: i64,
    variable: String,
    value: String,
    page: Option<String>,
) -> PyResult<()> {
    let mut package = samecore::package::Package::open(&path).map_err(error)?;
    let position = package.position_of(cluster).map_err(error)?;
    match page {
        None => package.set_value(position, &variable, &value),
        Some(page) => {
            let (_, key) = package.page_of(&page, Some(position)).map_err(error)?;
            package.set_page_value(position, &key, &variable, &value)
        }
    }
    .map(|_| ())
    .map_err(error)
}

/// The pages of the story of cluster `cluster` in a package (JSON rows), when its codebook has
/// page variables.
#[pyfunction]
fn package_pages(path: PathBuf, cluster: i64) -> PyResult<String> {
    let package = samecore::package::Package::open_read(&path).map_err(error)?;
    let position = package.position_of(cluster).map_err(error)?;
    serde_json::to_string(&package.members(position).map_err(error)?).map_err(error)
}

/// Undo the package coder's latest value; the variable and cluster undone, if any.
#[pyfunction]
fn package_undo(path: PathBuf) -> PyResult<Option<(String, i64)>> {
    let mut package = samecore::package::Package::open(&path).map_err(error)?;
    let units = package.units().map_err(error)?;
    Ok(package
        .undo_value()
        .map_err(error)?
        .map(|(variable, position)| {
            let cluster = units
                .iter()
                .find(|u| u.position == position)
                .map_or(position, |u| u.cluster);
            (variable, cluster)
        }))
}

/// A package's pairs (JSON rows: position, both pages' keys, titles, URLs, sites, dates and
/// core texts; score and stratum unless blind; the coder's current label).
#[pyfunction]
fn package_pairs(path: PathBuf) -> PyResult<String> {
    let package = samecore::package::Package::open_read(&path).map_err(error)?;
    let labels = package.labels().map_err(error)?;
    let mut rows = Vec::new();
    for position in 0..package.pair_count().map_err(error)? {
        let pair = package.pair(position).map_err(error)?;
        let label = labels.iter().find(|l| l.position == position);
        let mut row = serde_json::json!({
            "position": position + 1, "score": pair.score, "stratum": pair.stratum,
            "verdict": label.map(|l| l.label.verdict.as_str()),
            "reason": label.and_then(|l| l.label.reason.map(|r| r.as_str())),
            "note": label.map(|l| l.label.note.clone()),
        });
        for (side, p) in [("a", &pair.a), ("b", &pair.b)] {
            for (field, value) in [
                ("key", Some(p.key.clone())),
                ("title", p.title.clone()),
                ("url", p.url.clone()),
                ("site", p.site.clone()),
                ("published", p.published.as_ref().map(|(at, _)| at.clone())),
                ("captured", p.captured.clone()),
                (
                    "core",
                    Some(samecore::passages::Core::of_page(&p.html).text),
                ),
            ] {
                row[format!("{side}_{field}")] = serde_json::json!(value);
            }
        }
        rows.push(row);
    }
    serde_json::to_string(&rows).map_err(error)
}

/// The package coder's decision on pair `position` (from 1, as shown).
#[pyfunction]
#[pyo3(signature = (path, position, verdict, *, reason = None, note = ""))]
fn package_label(
    path: PathBuf,
    position: u32,
    verdict: &str,
    reason: Option<&str>,
    note: &str,
) -> PyResult<()> {
    let mut package = samecore::package::Package::open(&path).map_err(error)?;
    let label = samecore::labels::LabelInput {
        verdict: verdict.parse().map_err(error)?,
        reason: reason.map(str::parse).transpose().map_err(error)?,
        note: note.to_string(),
    };
    let at = position
        .checked_sub(1)
        .ok_or_else(|| error("pairs are numbered from 1"))?;
    package.add_label(at, &label).map_err(error)
}

/// Undo the package coder's latest label; the pair (from 1) it was on, if any.
#[pyfunction]
fn package_undo_label(path: PathBuf) -> PyResult<Option<u32>> {
    let mut package = samecore::package::Package::open(&path).map_err(error)?;
    Ok(package.undo_label().map_err(error)?.map(|p| p + 1))
}

/// A sample of a project, as the samples table shows it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct SampleRow {
    sample: String,
    run: Option<i64>,
    method: String,
    seed: u64,
    blind: bool,
    pairs: u32,
    created_at: String,
    /// The plan it was drawn with, as JSON.
    plan: String,
}

/// Apply (or with `applied=False` withdraw) code `code` on the page `page` (key, record id or
/// URL) of the project at `path`, as coder `by`; a code not in the codebook is added to it.
#[pyfunction]
#[pyo3(signature = (path, page, code, *, by, applied = true))]
fn project_code(path: PathBuf, page: &str, code: &str, by: &str, applied: bool) -> PyResult<()> {
    let mut project = existing_project(&path)?;
    let found = project.pages_named(page).map_err(error)?;
    let page = match found.as_slice() {
        [one] => one.id,
        [] => {
            return Err(error(format!(
                "no page with key, record id or URL {page:?}"
            )));
        }
        more => {
            return Err(error(format!(
                "{} pages are named {page:?}: name one by its key",
                more.len()
            )));
        }
    };
    let code = match project.code_by_name(code).map_err(error)? {
        Some(c) => c.id,
        None => project.add_code(code, "").map_err(error)?,
    };
    project.code_page(page, code, applied, by).map_err(error)
}

/// Draw a sample of the pairs of run `run` (default: the latest) of the project at `path`:
/// `size` pairs uniformly, or up to `per_stratum` pairs of every similarity band between
/// `bands` (ascending edges) and, with `split_site`, of same-site and different-site pairs
/// apart; the sample's name.
#[pyfunction]
#[pyo3(signature = (path, *, run = None, size = None, bands = None, per_stratum = 50, split_site = false, seed = 0, name = None, blind = false))]
#[allow(clippy::too_many_arguments)]
fn project_sample(
    py: Python<'_>,
    path: PathBuf,
    run: Option<i64>,
    size: Option<usize>,
    bands: Option<Vec<f64>>,
    per_stratum: usize,
    split_site: bool,
    seed: u64,
    name: Option<String>,
    blind: bool,
) -> PyResult<String> {
    use samecore::labels::sample::{SamplePlan, draw_and_store};
    let mut project = existing_project(&path)?;
    let run = match run {
        Some(id) => project.run(RunId(id)).map_err(error)?.id,
        None => match project.runs().map_err(error)?.last() {
            Some(r) => r.id,
            None => return Err(error("the project has no run yet: save one first")),
        },
    };
    let plan = match (size, bands) {
        (Some(size), None) if !split_site => SamplePlan::Uniform { size },
        (None, None) if !split_site => {
            return Err(error(
                "say how to sample: size=N, or bands=[edges] (and/or split_site=True)",
            ));
        }
        (None, edges) => SamplePlan::Stratified {
            edges: edges.unwrap_or_default(),
            per_stratum,
            split_by_site: split_site,
        },
        (Some(_), _) => return Err(error("size= draws uniformly: give size or bands, not both")),
    };
    let kind = if size.is_some() { "uniform" } else { "bands" };
    let name = name.unwrap_or_else(|| format!("run{run}-{kind}-seed{seed}"));
    work(py, None, |_| {
        draw_and_store(&mut project, run, &name, &plan, seed, blind).map(|_| ())
    })?;
    Ok(name)
}

/// Record `by`'s verdict (`correct`, `incorrect`, `undecided`) on the pair at 1-based
/// `position` of sample `sample` of the project at `path`, with a reason of the paper's
/// categories (e.g. `prefilled-form`) and a note; a relabel supersedes the earlier one.
#[pyfunction]
#[pyo3(signature = (path, sample, position, verdict, *, by, reason = None, note = ""))]
fn project_label(
    path: PathBuf,
    sample: &str,
    position: u32,
    verdict: &str,
    by: &str,
    reason: Option<&str>,
    note: &str,
) -> PyResult<()> {
    use samecore::labels::{LabelInput, Reason, Verdict};
    let mut project = existing_project(&path)?;
    let info = project.sample_by_name(sample).map_err(error)?;
    if position == 0 || position > info.size {
        return Err(error(format!(
            "sample {sample:?} has positions 1 to {}, not {position}",
            info.size
        )));
    }
    let mut label = LabelInput::new(verdict.parse::<Verdict>().map_err(error)?);
    if let Some(reason) = reason {
        label = label.because(reason.parse::<Reason>().map_err(error)?);
    }
    label.note = note.to_string();
    // The store counts positions from 0; people (and the exports) from 1.
    project
        .add_label(info.id, position - 1, by, &label)
        .map_err(error)?;
    Ok(())
}

/// Two pages given as HTML: their SpotSigs similarity (default options) and what they share.
#[pyfunction]
#[pyo3(signature = (a, b, *, options = None))]
fn compare_html<'py>(
    py: Python<'py>,
    a: &str,
    b: &str,
    options: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = detector_options(options)?;
    let c = work(py, None, |_| {
        session::compare_texts(a, b, &options.spotsigs)
    })?;
    let out = PyDict::new(py);
    out.set_item("spotsigs", c.spotsigs)?;
    out.set_item("signatures_a", c.signatures.0)?;
    out.set_item("signatures_b", c.signatures.1)?;
    out.set_item("share_a", c.alignment.share_a())?;
    out.set_item("share_b", c.alignment.share_b())?;
    out.set_item("passages", ArrowTable::of(&c.passages)?)?;
    Ok(out)
}

/// The detectors: name, what it finds, what its score means, default and paper thresholds.
#[pyfunction]
fn algorithms() -> Vec<(&'static str, &'static str, &'static str, f64, f64)> {
    Algo::ALL
        .iter()
        .map(|a| {
            let i = a.info();
            (
                i.name,
                i.finds,
                i.score,
                i.default_threshold,
                i.paper_threshold,
            )
        })
        .collect()
}

/// The library's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _samecore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SamecoreError", m.py().get_type::<SamecoreError>())?;
    // Whether this extension was built with optimizations (a release build, as
    // `pip install ./python` makes) rather than the dev profile the tests install: the
    // benchmarks refuse to time a dev build, several times slower at signing.
    m.add("optimized", !cfg!(debug_assertions))?;
    m.add_class::<ArrowTable>()?;
    m.add_class::<PySession>()?;
    m.add_class::<PyRun>()?;
    m.add_class::<PySearch>()?;
    m.add_function(wrap_pyfunction!(project_table, m)?)?;
    m.add_function(wrap_pyfunction!(project_code, m)?)?;
    m.add_function(wrap_pyfunction!(project_codebook, m)?)?;
    m.add_function(wrap_pyfunction!(project_agreement, m)?)?;
    m.add_function(wrap_pyfunction!(project_sample, m)?)?;
    m.add_function(wrap_pyfunction!(project_assign, m)?)?;
    m.add_function(wrap_pyfunction!(project_merge, m)?)?;
    m.add_function(wrap_pyfunction!(package_info, m)?)?;
    m.add_function(wrap_pyfunction!(package_stories, m)?)?;
    m.add_function(wrap_pyfunction!(package_values, m)?)?;
    m.add_function(wrap_pyfunction!(package_code, m)?)?;
    m.add_function(wrap_pyfunction!(package_undo, m)?)?;
    m.add_function(wrap_pyfunction!(package_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(package_pages, m)?)?;
    m.add_function(wrap_pyfunction!(package_label, m)?)?;
    m.add_function(wrap_pyfunction!(package_undo_label, m)?)?;
    m.add_function(wrap_pyfunction!(project_label, m)?)?;
    m.add_function(wrap_pyfunction!(compare_html, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    spark::register(m)?;
    Ok(())
}
