//! One session of work over a set of archives: the library calls that every front end makes.
//! `samecore run` and the other commands (`src/cli`), the workbench (`src/gui`) and the Python
//! package (`python/`) all open archives, run detectors and read what a run found through
//! [`Session`]; none of them orders the steps itself.
//!
//! A session is opened once ([`Session::open`]): the archives are read (SpotSigs signs each
//! page on the way when asked, so nothing is read twice), put in capture order, and their gold
//! standard is found (`--gold`, folder names, or a `X.gold.tsv` beside `X.warc.gz`). Then any
//! number of runs ([`Session::run`]) reuse what did not change: each detector's prepared
//! collection is kept under the parameters that shaped it, so a second threshold re-signs
//! nothing and editing SpotSigs' antecedents re-signs SpotSigs only. A run is stored in a
//! project with [`Session::save`] and written out with [`Session::cluster_rows`] and
//! [`Session::pair_rows`]; two pages are compared with [`Session::compare`].
//!
//! Page text is not held: a pass or a view reads a page again from its record
//! ([`crate::archive::page_text`]; a page of a whole-file gzip stream or a zip is held, see
//! [`KeepHtml::Unseekable`]), and the last few pages read are kept for the pair view.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::archive::{self, Collection, KeepHtml, ReadOptions};
use crate::dates::spread::{Member, Spreads};
use crate::detectors::{Algo, Detection, DetectorOptions, Prepared, RunSpec, detector};
use crate::eval::gold::GoldStandard;
use crate::eval::metrics::{Metrics, Prf, evaluate, pairwise_within};
use crate::export::{ClusterFileRow, PairFileRow, PassageRow};
use crate::passages::{AlignOptions, Cutoffs, PageCore, PairAlignment, PairDerivation};
use crate::progress::Progress;
use crate::store::{Project, RunId};
use crate::{DocId, Document, Error, Result};

/// How [`Session::open`] reads.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Sign every page for SpotSigs with these options while it is read (a SpotSigs run then
    /// reads nothing again); `None`: sign when a run asks.
    pub sign: Option<DetectorOptions>,
    /// Read each page's publication date (about a fifth more reading time).
    pub publication_dates: bool,
    /// Which pages' text to hold (default: only those that cannot be read again cheaply).
    pub keep_html: KeepHtml,
    /// A gold file (`doc,cluster`, TSV or CSV) instead of the one found beside the archives.
    pub gold: Option<PathBuf>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            sign: None,
            publication_dates: true,
            keep_html: KeepHtml::Unseekable,
            gold: None,
        }
    }
}

/// What signing a page for SpotSigs while it was read found of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageSigning {
    /// Its language as identified (ISO 639-1 where it has one), which chose its antecedents.
    pub language: Option<&'static str>,
    /// Its terms.
    pub terms: u32,
    /// Its spot signatures before the collection's filters.
    pub signatures: u32,
}

/// Prepared collections by algorithm and the parameters that shaped them.
pub type PreparedCache = BTreeMap<(Algo, String), Arc<dyn Prepared>>;

/// The parameters of `options` that shape `algo`'s prepared collection, as a cache key.
pub fn options_key(algo: Algo, options: &DetectorOptions) -> String {
    options.of(algo).to_string()
}

/// Opened archives, their gold standard, and every detector's prepared collection so far.
pub struct Session {
    /// The inputs, as given.
    pub inputs: Vec<PathBuf>,
    /// Their documents (in capture order: `DocId(i)` is `collection.docs[i]`) and read reports.
    pub collection: Collection,
    /// Gold cluster per document (empty when unknown).
    pub gold: GoldStandard,
    /// Where the gold came from ("folder names" or a file).
    pub gold_source: Option<String>,
    /// Per document, what SpotSigs found while it was read (empty unless
    /// [`OpenOptions::sign`]).
    pub signing: Vec<PageSigning>,
    /// Seconds spent reading (and signing on the way).
    pub read_seconds: f64,
    /// Seconds spent on SpotSigs' collection-wide filters after reading (0 unless signed).
    pub sign_seconds: f64,
    cache: Mutex<PreparedCache>,
    /// The pages last read again, most recent last: a cluster's representative is compared
    /// with each member in turn and read once.
    texts: Mutex<VecDeque<(DocId, Arc<str>)>>,
    /// Each site's frame as passages leave it out ([`crate::passages::frame_seeds`]), found
    /// once from up to [`FRAME_PAGES_READ`] of its pages.
    frames: Mutex<SiteFrames>,
    /// What each site repeats in its titles, learnt from every page's title when first asked
    /// for ([`Session::titles`]).
    titles: std::sync::OnceLock<crate::headline::Titles>,
}

/// The site a page's frame is told for: its registrable domain, else Henzinger's site.
fn frame_site(d: &Document) -> String {
    if d.site.registrable.is_empty() {
        d.site.henzinger.to_string()
    } else {
        d.site.registrable.to_string()
    }
}

/// Each site's frame; none for a site of fewer than three pages.
type SiteFrames = HashMap<String, Option<Arc<HashSet<u64>>>>;

/// Pages of a site read to find its frame.
const FRAME_PAGES_READ: usize = 40;

/// How many pages [`Session::page_text`] keeps: a cluster's worth of pairs flipped through.
const CACHED_PAGES: usize = 16;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("inputs", &self.inputs)
            .field("documents", &self.collection.docs.len())
            .field("gold_source", &self.gold_source)
            .finish()
    }
}

/// One detector's run on a session.
#[derive(Clone)]
pub struct Run {
    /// The detector.
    pub algo: Algo,
    /// Its prepared collection (shared with the session's cache).
    pub prepared: Arc<dyn Prepared>,
    /// What it found: pairs, declarations, clusters and the matching trace.
    pub detection: Arc<Detection>,
    /// Seconds spent preparing; `None` when the session had it prepared already.
    pub prepare_seconds: Option<f64>,
    /// Seconds of matching and clustering.
    pub detect_seconds: f64,
    /// Pairwise, document-level and B³ metrics against the gold standard, when known.
    pub metrics: Option<Metrics>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("algo", &self.algo)
            .field("spec", &self.detection.spec)
            .field("clusters", &self.detection.clustering.cluster_count())
            .field("metrics", &self.metrics)
            .finish()
    }
}

/// One language's pages in a run: how many, how many spot signatures they give, and with gold
/// the quality of pairs of two pages of that language.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LanguageRow {
    /// ISO 639-1 code (whatlang's 639-3 code for a language without one), or "?".
    pub language: &'static str,
    /// Pages identified as this language.
    pub pages: usize,
    /// Their spot signatures per 1,000 terms.
    pub signatures_per_1000_terms: f64,
    /// Pairwise P/R/F1 over the pairs of two pages of this language, with gold.
    pub pairwise: Option<Prf>,
}

/// What two pages share ([`crate::passages`]): aligned passages, each page's reuse share, and
/// which came first and how the later derives.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The aligned passages, each way.
    pub alignment: PairAlignment,
    /// The derivation by dates and shares.
    pub derivation: PairDerivation,
    /// Every passage with its text and offsets, as `samecore passages --out` writes it.
    pub passages: Vec<PassageRow>,
}

impl Session {
    /// Read `paths` (WARC, ARC, WACZ, folders, zips) as `options` say, put the pages in capture
    /// order (the same document ids whatever order the archives came in) and find their gold.
    /// Fails naming what the inputs hold when none of them holds an HTML page.
    pub fn open(paths: &[PathBuf], options: &OpenOptions, progress: &Progress) -> Result<Session> {
        let started = Instant::now();
        let read = ReadOptions {
            keep_html: options.keep_html,
            publication_dates: options.publication_dates,
        };
        let mut cache = PreparedCache::new();
        let mut signing = Vec::new();
        let mut sign_seconds = 0.0;
        let (collection, read_seconds) = match &options.sign {
            Some(o) => {
                let detector = crate::detectors::spotsigs::SpotSigsDetector::new(&o.spotsigs)?;
                let (collection, raw) = archive::load_with(paths, &read, progress, &|d, text| {
                    detector.raw_page(d, text)
                })?;
                collection.check_pages(paths)?;
                let (collection, raw) = collection.into_capture_order(raw);
                let read_seconds = started.elapsed().as_secs_f64();
                signing = raw
                    .iter()
                    .map(|r| PageSigning {
                        language: r.language,
                        terms: r.terms,
                        signatures: r.hashes.len() as u32,
                    })
                    .collect();
                progress.stage("signatures", 0);
                let t0 = Instant::now();
                let prepared = detector.prepare_raw(raw, &collection.docs);
                sign_seconds = t0.elapsed().as_secs_f64();
                cache.insert((Algo::SpotSigs, options_key(Algo::SpotSigs, o)), prepared);
                (collection, read_seconds)
            }
            None => {
                let collection = archive::load(paths, &read, progress)?;
                collection.check_pages(paths)?;
                let n = collection.docs.len();
                let collection = collection.into_capture_order(vec![(); n]).0;
                (collection, started.elapsed().as_secs_f64())
            }
        };
        let (gold, gold_source) =
            crate::eval::gold::find(paths, &collection.docs, options.gold.as_deref())?;
        Ok(Session {
            inputs: paths.to_vec(),
            collection,
            gold,
            gold_source,
            signing,
            read_seconds,
            sign_seconds,
            cache: Mutex::new(cache),
            texts: Default::default(),
            frames: Default::default(),
            titles: Default::default(),
        })
    }

    /// A session of pages held in memory (their HTML in [`Document::html`]), each with the
    /// frame of its site as [`Session::core`] leaves it out (`frames[i]` for `docs[i]`; none:
    /// the site has too few pages to tell one): how a coder's package, which carries pages and
    /// frames but no archive, compares its pairs.
    pub fn of_pages(docs: Vec<Document>, frames: Vec<Option<HashSet<u64>>>) -> Session {
        let mut known = SiteFrames::new();
        for (d, frame) in docs.iter().zip(frames) {
            known.insert(frame_site(d), frame.map(Arc::new));
        }
        Session {
            inputs: Vec::new(),
            collection: Collection {
                docs,
                reports: Vec::new(),
            },
            gold: Default::default(),
            gold_source: None,
            signing: Vec::new(),
            read_seconds: 0.0,
            sign_seconds: 0.0,
            cache: Mutex::new(PreparedCache::new()),
            texts: Default::default(),
            frames: Mutex::new(known),
            titles: Default::default(),
        }
    }

    /// What the sites of the collection repeat in their titles: the stories' titles of a
    /// run's clusters ([`crate::headline`]), learnt once.
    pub fn titles(&self) -> &crate::headline::Titles {
        self.titles
            .get_or_init(|| crate::headline::Titles::of_documents(self.docs()))
    }

    /// The documents, in capture order.
    pub fn docs(&self) -> &[Document] {
        &self.collection.docs
    }

    /// The document whose reader key, capture key, record id or URL is `name` (the first
    /// capture of a URL).
    pub fn find(&self, name: &str) -> Option<DocId> {
        let docs = self.docs();
        docs.iter()
            .position(|d| *d.key == *name)
            .or_else(|| docs.iter().position(|d| d.capture() == name))
            .or_else(|| docs.iter().position(|d| d.record_id() == Some(name)))
            .or_else(|| docs.iter().position(|d| d.url.as_deref() == Some(name)))
            .map(|i| DocId(i as u32))
    }

    /// `algo` prepared with `options`: the session's when it has it, else prepared now (with
    /// the seconds that took) and kept.
    pub fn prepared(
        &self,
        algo: Algo,
        options: &DetectorOptions,
        progress: &Progress,
    ) -> Result<(Arc<dyn Prepared>, Option<f64>)> {
        let key = (algo, options_key(algo, options));
        if let Some(p) = self.lock_cache().get(&key) {
            return Ok((p.clone(), None));
        }
        let started = Instant::now();
        // Prepared outside the lock: the session answers other calls meanwhile.
        let p = detector(algo, options)?.prepare(self.docs(), progress)?;
        self.lock_cache().insert(key, p.clone());
        Ok((p, Some(started.elapsed().as_secs_f64())))
    }

    /// The prepared collections the session holds, by detector and parameters.
    pub fn prepared_keys(&self) -> Vec<(Algo, String)> {
        self.lock_cache().keys().cloned().collect()
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, PreparedCache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `algo` with `options` by `spec`: prepared (or taken from the session), matched and
    /// clustered, and scored against the gold when it is known. Seeded mode without seeds
    /// takes one page of each gold cluster.
    pub fn run(
        &self,
        algo: Algo,
        options: &DetectorOptions,
        spec: &RunSpec,
        progress: &Progress,
    ) -> Result<Run> {
        let (prepared, prepare_seconds) = self.prepared(algo, options, progress)?;
        self.detect(algo, prepared, prepare_seconds, spec, progress)
    }

    /// `run`'s clusters at another threshold: matching again on the same prepared collection.
    pub fn rerun(&self, run: &Run, threshold: f64, progress: &Progress) -> Result<Run> {
        let mut spec = run.detection.spec.clone();
        spec.matching.threshold = threshold;
        self.detect(run.algo, run.prepared.clone(), None, &spec, progress)
    }

    fn detect(
        &self,
        algo: Algo,
        prepared: Arc<dyn Prepared>,
        prepare_seconds: Option<f64>,
        spec: &RunSpec,
        progress: &Progress,
    ) -> Result<Run> {
        let mut spec = spec.clone();
        if spec.matching.mode == crate::matching::Mode::Seeded && spec.matching.seeds.is_empty() {
            if !self.gold.is_known() {
                return Err(Error::InvalidParameter(
                    "seeded mode needs seeds or gold clusters".into(),
                ));
            }
            spec.matching.seeds =
                crate::matching::gold_seeds(&self.gold.cluster_of, spec.matching.seed);
        }
        progress.stage("matching", 0);
        let started = Instant::now();
        let detection = prepared.detect(&spec, progress)?;
        let detect_seconds = started.elapsed().as_secs_f64();
        Ok(Run {
            algo,
            metrics: self.metrics(&detection),
            prepared,
            detection: Arc::new(detection),
            prepare_seconds,
            detect_seconds,
        })
    }

    /// Precision, recall and F1 of `run`'s detector against the gold at each of `thresholds`,
    /// averaged over `seeds` seeds from the run's (randomized procedures; one otherwise): the
    /// matching runs again on the same prepared collection. Empty without gold.
    pub fn sweep(
        &self,
        run: &Run,
        thresholds: &[f64],
        seeds: usize,
        progress: &Progress,
    ) -> Result<Vec<crate::eval::sweep::SweepRow>> {
        if !self.has_gold() {
            return Ok(Vec::new());
        }
        let mut base = run.detection.spec.clone();
        base.matching.seeds.clear();
        let seeds: Vec<u64> = (0..seeds.max(1) as u64)
            .map(|i| base.matching.seed + i)
            .collect();
        crate::eval::sweep::sweep(
            run.prepared.as_ref(),
            &base,
            thresholds,
            &seeds,
            &self.gold.cluster_of,
            progress,
        )
    }

    /// The three metrics of `detection` against the gold standard, when it is known.
    pub fn metrics(&self, detection: &Detection) -> Option<Metrics> {
        self.gold
            .is_known()
            .then(|| evaluate(&detection.clustering, &self.gold.cluster_of))
    }

    /// Store `detection` in `project` (its pages registered by capture) with `params` (what
    /// it ran with, as JSON) and, when known, the gold with its source.
    pub fn save(
        &self,
        project: &mut Project,
        detection: &Detection,
        params: serde_json::Value,
        elapsed_ms: Option<u64>,
    ) -> Result<RunId> {
        let archives: Vec<String> = self
            .inputs
            .iter()
            .map(|a| a.display().to_string())
            .collect();
        let (run, _) =
            project.save_detection(&archives, self.docs(), detection, params, elapsed_ms)?;
        if let Some(source) = &self.gold_source {
            store_gold(project, self.docs(), &self.gold, source)?;
        }
        Ok(run)
    }

    /// Who published each cluster of `detection` first, each page's lag, sites and span
    /// ([`crate::dates::spread`]).
    pub fn spreads(&self, detection: &Detection) -> Spreads {
        let docs = self.docs();
        crate::dates::spread::of_clusters(&detection.clustering.cluster_of, |i| Member {
            site: docs[i].site.registrable.to_string(),
            published: docs[i].published,
            captured: docs[i].date.as_deref().and_then(crate::dates::parse_iso),
        })
    }

    /// Every document's identity, title, publication date and gold cluster, in capture order.
    pub fn page_rows(&self) -> impl Iterator<Item = crate::export::PageRow> + '_ {
        let source = self.gold_source.as_deref().unwrap_or_default();
        self.docs().iter().enumerate().map(move |(i, d)| {
            let gold = self.gold_name(DocId(i as u32)).map(|g| (g, source));
            crate::export::PageRow::of_document(d, gold)
        })
    }

    /// Every document with its cluster in `detection`, its identity, its language when signed
    /// while read, and its lag after its story's first publication, one row at a time (a
    /// million rows are written, not held).
    pub fn cluster_rows<'a>(
        &'a self,
        detection: &'a Detection,
    ) -> impl Iterator<Item = ClusterFileRow> + 'a {
        let docs = self.docs();
        let spreads = self.spreads(detection);
        let reps = &detection.clustering.representatives;
        let links = detection.linked_through();
        let titles = self.titles().of_clustering(docs, &detection.clustering);
        docs.iter()
            .zip(&detection.clustering.cluster_of)
            .enumerate()
            .map(move |(i, (d, &c))| {
                let rep = reps.get(c as usize).is_some_and(|r| r.index() == i);
                let link = links[i].map(|(other, score)| (&docs[other.index()], score));
                let mut row = ClusterFileRow::new(d, c, rep, link);
                row.story_title = titles.get(c as usize).cloned().flatten();
                row.language = self
                    .signing
                    .get(i)
                    .and_then(|s| s.language)
                    .map(String::from);
                row.first_publisher = spreads.first[i];
                row.lag_seconds = spreads.lag_seconds[i];
                row
            })
    }

    /// Every scored pair of `detection` with both pages' identity, one row at a time.
    pub fn pair_rows<'a>(
        &'a self,
        detection: &'a Detection,
    ) -> impl Iterator<Item = PairFileRow> + 'a {
        let docs = self.docs();
        detection
            .pairs()
            .iter()
            .map(|p| PairFileRow::new(&docs[p.a.index()], &docs[p.b.index()], p.score))
    }

    /// Seconds spent signing for `run`: SpotSigs' collection-wide filters after an opening that
    /// signed, else the detector's preparation.
    pub fn sign_seconds(&self, run: &Run) -> f64 {
        run.prepare_seconds.unwrap_or(self.sign_seconds)
    }

    /// A run's summary (`samecore run --json`, the Python package's `Run.summary`): counts, the
    /// matching trace, metrics, per language, each story over time, seconds.
    pub fn summary(&self, run: &Run) -> serde_json::Value {
        let (detection, gold) = (&run.detection, &self.gold);
        let groups = detection.clustering.groups();
        let trace = &detection.outcome.trace;
        serde_json::json!({
            "algo": run.algo.name(),
            "documents": self.docs().len(),
            "unsigned": run.prepared.unsigned(),
            "spec": detection.spec,
            "clusters": detection.clustering.cluster_count(),
            "groups": groups.len(),
            "documents_in_groups": groups.iter().map(Vec::len).sum::<usize>(),
            "declared_duplicates": detection.outcome.matched.iter().flatten().count(),
            "identical": detection.exact,
            "pairs": detection.pairs().len(),
            "comparisons": trace.comparisons(),
            "avoided": trace.avoided(),
            "collisions": trace.collisions(),
            "common": trace.common,
            "index_size": trace.index_size,
            "mistakes_per_100": gold.is_known().then(|| {
                trace.mistakes_per_batch(&detection.outcome.links(), &gold.cluster_of, 100)
            }),
            "seconds_per_document": {
                "mean": trace.docs.iter().map(|d| d.nanos as f64).sum::<f64>()
                    / trace.docs.len().max(1) as f64 / 1e9,
                "max": trace.docs.iter().map(|d| d.nanos).max().unwrap_or(0) as f64 / 1e9,
            },
            "gold_clusters": gold.names.len(),
            "metrics": run.metrics,
            "languages": self.languages(detection),
            "stories": self.stories(detection),
            "seconds": {
                "load": self.read_seconds,
                "signatures": self.sign_seconds(run),
                "matching": run.detect_seconds,
            },
        })
    }

    /// Each cluster of two or more pages over time: its first publishers (keys, sites), when
    /// they published, its sites, span and how many members the pages themselves date.
    fn stories(&self, detection: &Detection) -> Vec<serde_json::Value> {
        let docs = self.docs();
        let spreads = self.spreads(detection);
        detection
            .clustering
            .groups()
            .iter()
            .map(|members| {
                let c = detection.clustering.cluster_of[members[0].index()] as usize;
                let s = &spreads.clusters[c];
                serde_json::json!({
                    "cluster": c,
                    "pages": members.len(),
                    "sites": s.sites,
                    "first": s.first.iter().map(|&i| docs[i].key.clone()).collect::<Vec<_>>(),
                    "first_sites": s.first.iter().map(|&i| docs[i].site.registrable.clone()).collect::<Vec<_>>(),
                    "first_published": s.first_at.map(|a| a.iso()),
                    "span_seconds": s.span_seconds,
                    "dated_by_page": s.dated_by_page,
                })
            })
            .collect()
    }

    /// Per language (when the pages were signed while read): pages, spot signatures per 1,000
    /// terms and, with gold, the pairwise quality of `detection` within it; most pages first.
    pub fn languages(&self, detection: &Detection) -> Vec<LanguageRow> {
        let mut by: BTreeMap<&'static str, (usize, u64, u64)> = BTreeMap::new();
        for s in &self.signing {
            let e = by.entry(s.language.unwrap_or("?")).or_default();
            e.0 += 1;
            e.1 += u64::from(s.terms);
            e.2 += u64::from(s.signatures);
        }
        let mut rows: Vec<LanguageRow> = by
            .into_iter()
            .map(|(language, (n, terms, sigs))| LanguageRow {
                language,
                pages: n,
                signatures_per_1000_terms: 1000.0 * sigs as f64 / terms.max(1) as f64,
                pairwise: self.gold.is_known().then(|| {
                    pairwise_within(&detection.clustering, &self.gold.cluster_of, |d| {
                        self.signing[d].language.unwrap_or("?") == language
                    })
                }),
            })
            .collect();
        rows.sort_by(|a, b| b.pages.cmp(&a.pages).then(a.language.cmp(b.language)));
        rows
    }

    /// What pages `a` and `b` share without their sites' frames: the aligned passages, each
    /// page's reuse share, and by their publication dates which came first and how the later
    /// derives.
    pub fn compare(&self, a: DocId, b: DocId, cutoffs: &Cutoffs) -> Result<Comparison> {
        let (ca, cb) = (self.core(a)?, self.core(b)?);
        let alignment = crate::passages::align_pair(&ca, &cb, &AlignOptions::default());
        let docs = self.docs();
        let derivation = crate::passages::derivation(
            (alignment.share_a(), alignment.share_b()),
            docs[a.index()].published,
            docs[b.index()].published,
            cutoffs,
        );
        // The pages' keys as every table has them: their captures.
        let (ka, kb) = (docs[a.index()].capture(), docs[b.index()].capture());
        let keys = (ka.as_str(), kb.as_str());
        // Two pages named by hand: no detector scored them.
        let passages = PassageRow::of_pair(keys, None, (&ca, &cb), &alignment, &derivation);
        Ok(Comparison {
            alignment,
            derivation,
            passages,
        })
    }

    /// A page's decoded text ([`crate::archive::page_text`]), from the last few read.
    pub fn page_text(&self, doc: DocId) -> Result<Arc<str>> {
        let lock = || self.texts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, text)) = lock().iter().find(|(d, _)| *d == doc) {
            return Ok(text.clone());
        }
        let page = self
            .docs()
            .get(doc.index())
            .ok_or_else(|| Error::InvalidParameter(format!("no document {}", doc.0)))?;
        // Read outside the lock: another pair may be read meanwhile.
        let text: Arc<str> = archive::page_text(page)?.into();
        let mut texts = lock();
        if !texts.iter().any(|(d, _)| *d == doc) {
            if texts.len() == CACHED_PAGES {
                texts.pop_front();
            }
            texts.push_back((doc, text.clone()));
        }
        Ok(text)
    }

    /// How many pages [`Session::page_text`] holds now.
    pub fn cached_pages(&self) -> usize {
        self.texts.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The core and text of page `doc` without its site's frame ([`PageCore`]).
    pub fn core(&self, doc: DocId) -> Result<PageCore> {
        let html = self.page_text(doc)?;
        let frame = self.site_frame(doc)?;
        Ok(PageCore::of_page(
            &html,
            frame.as_deref().unwrap_or(&Default::default()),
        ))
    }

    /// The frame of `doc`'s site, found from up to 40 of the site's pages the first time; none
    /// for a site of fewer than three pages.
    fn site_frame(&self, doc: DocId) -> Result<Option<Arc<HashSet<u64>>>> {
        use rayon::prelude::*;
        let docs = self.docs();
        let site_of = frame_site;
        let site = site_of(&docs[doc.index()]);
        if site.is_empty() {
            return Ok(None);
        }
        let lock = || self.frames.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = lock().get(&site) {
            return Ok(f.clone());
        }
        if docs.iter().filter(|d| site_of(d) == site).take(3).count() < 3 {
            lock().insert(site, None);
            return Ok(None);
        }
        let pages: Vec<&Document> = docs
            .iter()
            .filter(|d| site_of(d) == site)
            .take(FRAME_PAGES_READ)
            .collect();
        let cores: Vec<crate::passages::Core> = pages
            .par_iter()
            .map(|d| archive::page_text(d).map(|t| crate::passages::Core::visible(&t)))
            .collect::<Result<_>>()?;
        let refs: Vec<&crate::passages::Core> = cores.iter().collect();
        let frame = Some(Arc::new(crate::passages::frame_seeds(
            &refs,
            &Default::default(),
        )));
        lock().insert(site, frame.clone());
        Ok(frame)
    }

    /// Whether a gold standard is known.
    pub fn has_gold(&self) -> bool {
        self.gold.is_known()
    }

    /// The gold cluster name of a document, when known.
    pub fn gold_name(&self, doc: DocId) -> Option<&str> {
        let id = (*self.gold.cluster_of.get(doc.index())?)?;
        self.gold.names.get(id as usize).map(String::as_str)
    }
}

/// Two pages compared as their HTML, outside any archive ([`compare_texts`]).
#[derive(Debug, Clone)]
pub struct TextComparison {
    /// SpotSigs' similarity of the two: the multiset Jaccard of their spot signatures.
    pub spotsigs: f64,
    /// Each page's spot signatures.
    pub signatures: (usize, usize),
    /// What they share: aligned passages each way and each page's reuse share (no site frame
    /// is known for a page alone, so none is left out).
    pub alignment: PairAlignment,
    /// Every passage with its text and offsets (keys `a` and `b`).
    pub passages: Vec<PassageRow>,
}

/// Compare two pages given as HTML: their SpotSigs similarity with `params` and their aligned
/// passages.
pub fn compare_texts(
    a: &str,
    b: &str,
    params: &crate::signature::SpotSigsParams,
) -> Result<TextComparison> {
    let signer = crate::signature::spotsigs::Signer::new(params)?;
    let (sa, sb) = (signer.sign_page(a, None), signer.sign_page(b, None));
    let mut ids: HashMap<u64, u32> = HashMap::new();
    let mut set = |hashes: &[u64]| {
        let ids: Vec<u32> = hashes
            .iter()
            .map(|h| {
                let next = ids.len() as u32;
                *ids.entry(*h).or_insert(next)
            })
            .collect();
        crate::signature::set::SignatureSet::from_ids(ids)
    };
    let (set_a, set_b) = (set(&sa.hashes), set(&sb.hashes));
    let none = HashSet::new();
    let (ca, cb) = (PageCore::of_page(a, &none), PageCore::of_page(b, &none));
    let alignment = crate::passages::align_pair(&ca, &cb, &AlignOptions::default());
    let spotsigs = crate::signature::set::jaccard(&set_a, &set_b);
    let derivation = crate::passages::derivation(
        (alignment.share_a(), alignment.share_b()),
        None,
        None,
        &Cutoffs::default(),
    );
    let passages = PassageRow::of_pair(
        ("a", "b"),
        Some(spotsigs),
        (&ca, &cb),
        &alignment,
        &derivation,
    );
    Ok(TextComparison {
        spotsigs,
        signatures: (sa.hashes.len(), sb.hashes.len()),
        alignment,
        passages,
    })
}

/// Keep gold known from folder names, a gold file or a file beside the archives in `project`
/// with its source, for exports and the workbench (the source names `import-gold` writes:
/// folder names, or `file:<path>`).
pub fn store_gold(
    project: &mut Project,
    docs: &[Document],
    gold: &GoldStandard,
    source: &str,
) -> Result<()> {
    let by_key: BTreeMap<String, String> = docs
        .iter()
        .zip(&gold.cluster_of)
        .filter_map(|(d, c)| {
            let name = gold.names.get((*c)? as usize)?;
            Some((d.capture(), name.clone()))
        })
        .collect();
    let source = if source == "folder names" {
        source.to_string()
    } else {
        format!("file:{source}")
    };
    project.import_gold(&by_key, &source)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz")
    }

    #[test]
    fn options_key_separates_spotsigs_from_the_rest() {
        let a = DetectorOptions::default();
        let mut b = a.clone();
        b.spotsigs.min_signatures += 1;
        assert_ne!(
            options_key(Algo::SpotSigs, &a),
            options_key(Algo::SpotSigs, &b)
        );
        assert_eq!(
            options_key(Algo::Shingles, &a),
            options_key(Algo::Shingles, &b)
        );
    }

    /// Opening signs SpotSigs while reading, holds no page of a gzip-per-record archive, and
    /// its run finds what a run prepared from the held pages finds; the other detectors read
    /// the pages again and find what they find on held pages.
    #[test]
    fn an_opening_signs_while_reading_and_holds_no_page() {
        let progress = Progress::new();
        let mut options = DetectorOptions::default();
        options.spotsigs.min_signatures += 1;
        let open = OpenOptions {
            sign: Some(options.clone()),
            ..Default::default()
        };
        let session = Session::open(&[sample()], &open, &progress).unwrap();
        assert!(session.docs().iter().all(|d| !d.html.is_held()));
        assert_eq!(session.signing.len(), session.docs().len());
        let key = (Algo::SpotSigs, options_key(Algo::SpotSigs, &options));
        assert_eq!(session.prepared_keys(), [key]);
        let held = archive::load(&[sample()], &ReadOptions::default(), &progress).unwrap();
        // The session holds its pages in capture order.
        let n = held.docs.len();
        let held = held.into_capture_order(vec![(); n]).0;
        assert!(held.docs.iter().all(|d| d.html.is_held()));
        for algo in [
            Algo::SpotSigs,
            Algo::Shingles,
            Algo::Projection,
            Algo::Chunks,
        ] {
            let spec = RunSpec::default_for(algo);
            let ours = session.run(algo, &options, &spec, &progress).unwrap();
            // SpotSigs came from the opening; the others were prepared by the run.
            assert_eq!(ours.prepare_seconds.is_none(), algo == Algo::SpotSigs);
            let theirs = detector(algo, &options)
                .unwrap()
                .prepare(&held.docs, &progress)
                .unwrap()
                .detect(&spec, &progress)
                .unwrap();
            assert_eq!(ours.detection.pairs(), theirs.pairs(), "{algo:?}");
            assert_eq!(
                ours.detection.clustering.cluster_of, theirs.clustering.cluster_of,
                "{algo:?}"
            );
            // A second run at another threshold prepares nothing again.
            let again = session.rerun(&ours, 0.9, &progress).unwrap();
            assert!(again.prepare_seconds.is_none());
            assert_eq!(again.detection.spec.matching.threshold, 0.9);
        }
        // The sample's gold was found beside it, and every run is scored against it.
        assert!(session.has_gold());
        let run = session
            .run(
                Algo::SpotSigs,
                &options,
                &RunSpec::default_for(Algo::SpotSigs),
                &progress,
            )
            .unwrap();
        assert!(run.metrics.unwrap().pairwise.f1 > 0.5);
        assert_eq!(session.cluster_rows(&run.detection).count(), n);
        assert_eq!(
            session.pair_rows(&run.detection).count(),
            run.detection.pairs().len()
        );
        let languages = session.languages(&run.detection);
        assert_eq!(languages.iter().map(|l| l.pages).sum::<usize>(), n);
    }

    /// The pair view's pages come from the archive, the last few from memory, the same text.
    #[test]
    fn the_pages_last_read_are_kept_a_few() {
        let session =
            Session::open(&[sample()], &OpenOptions::default(), &Progress::new()).unwrap();
        assert_eq!(session.cached_pages(), 0);
        for round in 0..2 {
            for i in 0..CACHED_PAGES as u32 + 4 {
                let text = session.page_text(DocId(i)).unwrap();
                let doc = &session.docs()[i as usize];
                assert_eq!(&*text, archive::page_text(doc).unwrap(), "{round} {i}");
            }
        }
        assert_eq!(session.cached_pages(), CACHED_PAGES);
        let first = session.page_text(DocId(CACHED_PAGES as u32 + 3)).unwrap();
        let again = session.page_text(DocId(CACHED_PAGES as u32 + 3)).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "a page read last is not read again"
        );
        assert!(session.page_text(DocId(1_000_000)).is_err());
    }

    /// Inputs without an HTML page are refused, naming what they hold; seeded mode without
    /// seeds or gold is refused.
    #[test]
    fn clear_errors_for_what_cannot_be_worked_on() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("info-only.warc");
        let record = "WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
                      WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        std::fs::write(&empty, record).unwrap();
        let err = Session::open(&[empty], &OpenOptions::default(), &Progress::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no HTML page"), "{err}");

        let page = dir.path().join("pages");
        std::fs::create_dir(&page).unwrap();
        std::fs::write(page.join("a.html"), "<p>the one page of this folder</p>").unwrap();
        let session = Session::open(&[page], &OpenOptions::default(), &Progress::new()).unwrap();
        assert!(!session.has_gold());
        let mut spec = RunSpec::default_for(Algo::SpotSigs);
        spec.matching.mode = crate::matching::Mode::Seeded;
        let err = session
            .run(
                Algo::SpotSigs,
                &DetectorOptions::default(),
                &spec,
                &Progress::new(),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("seeded mode needs"), "{err}");
    }
}
