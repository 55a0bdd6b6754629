//! Export a project to files that open in pandas, R and a spreadsheet, and read them back.
//!
//! In: a [`Project`]. Out: CSV, TSV, JSON Lines or Parquet ([`Format`], by extension or
//! told); the same flat row types serve all four, so every format of a table holds the same
//! columns. Every row that names a page carries its identity the way the field writes it:
//! capture key, `WARC-Record-ID`, URL, 14-digit timestamp (as pywb and the Wayback Machine
//! write it) and ISO date, file, offset, record length, payload digest, HTTP status, MIME type
//! and site. The timestamp's column is `capture_timestamp` (`a_timestamp`, `b_timestamp` in
//! pairs): pandas' `read_json` takes a column whose name begins with `timestamp` for epoch
//! seconds and gives 1970 dates without a word. Positions a person sees are 1-based.
//!
//! - [`PageRow`]: every page, its cluster in a run (after hand edits), its codes (a JSON
//!   array, so a code name may hold any character) and its gold cluster with its source;
//! - [`PairRow`]: every pair of a sample with score, stratum, the stratum's population and
//!   drawn count and the pair's weight (population / drawn, so weighted estimates can be
//!   recomputed), one row per annotator's current label (a pair nobody labelled has one row
//!   with empty label columns), and its settlement (verdict, reason, note, who, when);
//! - [`RunRow`]: every run with its parameters (JSON), seed, code version and total time (the
//!   per-step trace stays in the project: it reached 77 KB per cell);
//! - [`CodeRow`]: every code decision on a page with its provenance.
//!
//! [`import`] reads pair and code exports back and gold clusters from a `doc,cluster` file.

pub mod dataset;
pub mod format;
pub mod import;
pub mod shard;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use format::{
    Format, check_output, columns, read_rows, record_batch, rows_of_batch, write_file,
    write_file_streamed, write_rows, write_rows_streamed,
};

use crate::document::timestamp14;
use crate::store::runs::PageIdentity;
use crate::store::{Project, RunId, SampleId};
use crate::{Error, Result};

/// A page, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageRow {
    /// The page's key in the project: its capture (`<timestamp> <URL> <digest>`).
    pub key: String,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// Target URL.
    pub url: Option<String>,
    /// 14-digit capture timestamp (`20140325121225`).
    #[serde(rename = "capture_timestamp")]
    pub timestamp: Option<String>,
    /// Capture date, ISO 8601.
    pub date: Option<String>,
    /// Archive file (absolute path).
    pub file: Option<String>,
    /// Byte offset of the record in the file.
    pub offset: Option<u64>,
    /// Length of the record in the file.
    pub length: Option<u64>,
    /// Payload digest (`sha1:…`: the archive's, or computed the same way for a record without
    /// one; `xxh3:…` for a loose page).
    pub digest: Option<String>,
    /// HTTP status.
    pub status: Option<u16>,
    /// MIME type.
    pub mime: Option<String>,
    /// Site: registrable domain by the public suffix list.
    pub site: Option<String>,
    /// The page's `<title>`.
    pub title: Option<String>,
    /// The cluster's title: the headline its pages' titles agree on, without their sites'
    /// own words ([`crate::headline`]); beside `title`, the page's own as written (empty
    /// without a run).
    pub story_title: Option<String>,
    /// The day the page says it was published (`2006-05-03`), or its capture day
    /// ([`crate::dates`]).
    pub published_day: Option<String>,
    /// The same with its time and offset when the page gives one (ISO 8601).
    pub published: Option<String>,
    /// Where the date was found: `meta`, `json-ld`, `time`, `url`, `text`, `capture`.
    pub published_source: Option<String>,
    /// The run whose clusters `cluster` numbers (a cluster number means nothing without it).
    pub run: Option<i64>,
    /// Cluster in the exported run (after hand edits).
    pub cluster: Option<i64>,
    /// Codes applied to the page, by name, as a JSON array (`["a","b;c"]`).
    pub codes: String,
    /// Gold cluster, when known.
    pub gold: Option<String>,
    /// Where the gold cluster came from (`folders`, `file:<path>`, `import`).
    pub gold_source: Option<String>,
}

/// The identity columns of one page of a pair, prefixed `a_` or `b_` in [`PairRow`].
struct Side {
    key: String,
    record_id: Option<String>,
    url: Option<String>,
    timestamp: Option<String>,
    date: Option<String>,
    file: Option<String>,
    offset: Option<u64>,
    length: Option<u64>,
    digest: Option<String>,
    status: Option<u16>,
    mime: Option<String>,
    site: Option<String>,
}

impl From<&PageIdentity> for Side {
    fn from(p: &PageIdentity) -> Side {
        Side {
            key: p.key.clone(),
            record_id: p.record_id.clone(),
            url: p.url.clone(),
            timestamp: p.date.as_deref().and_then(timestamp14),
            date: p.date.clone(),
            file: p.file.clone(),
            offset: p.offset,
            length: p.length,
            digest: p.digest.clone(),
            status: p.status,
            mime: p.mime.clone(),
            site: p.site.clone(),
        }
    }
}

/// One annotator's label on one sampled pair, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    /// The sample's name.
    pub sample: String,
    /// Position in the sample, 1-based (as `samecore label` shows it and `--settle` takes it).
    pub position: u32,
    /// First page: key, record id, URL, timestamp, date, file, offset, length, digest,
    /// status, MIME type, site.
    pub a_key: String,
    #[allow(missing_docs)]
    pub a_record_id: Option<String>,
    #[allow(missing_docs)]
    pub a_url: Option<String>,
    #[allow(missing_docs)]
    pub a_timestamp: Option<String>,
    #[allow(missing_docs)]
    pub a_date: Option<String>,
    #[allow(missing_docs)]
    pub a_file: Option<String>,
    #[allow(missing_docs)]
    pub a_offset: Option<u64>,
    #[allow(missing_docs)]
    pub a_length: Option<u64>,
    #[allow(missing_docs)]
    pub a_digest: Option<String>,
    #[allow(missing_docs)]
    pub a_status: Option<u16>,
    #[allow(missing_docs)]
    pub a_mime: Option<String>,
    #[allow(missing_docs)]
    pub a_site: Option<String>,
    /// Second page: the same columns.
    pub b_key: String,
    #[allow(missing_docs)]
    pub b_record_id: Option<String>,
    #[allow(missing_docs)]
    pub b_url: Option<String>,
    #[allow(missing_docs)]
    pub b_timestamp: Option<String>,
    #[allow(missing_docs)]
    pub b_date: Option<String>,
    #[allow(missing_docs)]
    pub b_file: Option<String>,
    #[allow(missing_docs)]
    pub b_offset: Option<u64>,
    #[allow(missing_docs)]
    pub b_length: Option<u64>,
    #[allow(missing_docs)]
    pub b_digest: Option<String>,
    #[allow(missing_docs)]
    pub b_status: Option<u16>,
    #[allow(missing_docs)]
    pub b_mime: Option<String>,
    #[allow(missing_docs)]
    pub b_site: Option<String>,
    /// Detector score.
    pub score: Option<f64>,
    /// Stratum.
    pub stratum: String,
    /// Pairs of the run in this stratum.
    pub stratum_population: Option<u64>,
    /// Pairs drawn from it.
    pub stratum_drawn: Option<u64>,
    /// The pair's weight in a stratified estimate: population / drawn.
    pub weight: Option<f64>,
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
    /// The settlement's reason.
    pub settled_reason: Option<String>,
    /// The settlement's note.
    pub settled_note: Option<String>,
    /// Who settled it.
    pub settled_by: Option<String>,
    /// When.
    pub settled_at: Option<String>,
}

impl PairRow {
    fn set_a(&mut self, s: Side) {
        self.a_key = s.key;
        self.a_record_id = s.record_id;
        self.a_url = s.url;
        self.a_timestamp = s.timestamp;
        self.a_date = s.date;
        self.a_file = s.file;
        self.a_offset = s.offset;
        self.a_length = s.length;
        self.a_digest = s.digest;
        self.a_status = s.status;
        self.a_mime = s.mime;
        self.a_site = s.site;
    }

    fn set_b(&mut self, s: Side) {
        self.b_key = s.key;
        self.b_record_id = s.record_id;
        self.b_url = s.url;
        self.b_timestamp = s.timestamp;
        self.b_date = s.date;
        self.b_file = s.file;
        self.b_offset = s.offset;
        self.b_length = s.length;
        self.b_digest = s.digest;
        self.b_status = s.status;
        self.b_mime = s.mime;
        self.b_site = s.site;
    }
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
    /// Scored pairs.
    pub pairs: u64,
    /// Clusters of two or more pages.
    pub clusters: u64,
}

/// One page of `samecore run --clusters`: the reader's key first (what gold files and
/// `--seeds` name), its cluster, then its identity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterFileRow {
    /// The reader's key: record id, ARC `URL date`, or the path inside a folder or zip.
    pub doc: String,
    /// Cluster, numbered from 0 by smallest member.
    pub cluster: u32,
    /// Whether the page represents its cluster.
    pub representative: bool,
    /// The capture key (as in a project).
    pub key: String,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// Target URL.
    pub url: Option<String>,
    /// 14-digit capture timestamp.
    #[serde(rename = "capture_timestamp")]
    pub timestamp: Option<String>,
    /// Archive file as given.
    pub file: String,
    /// Byte offset of the record.
    pub offset: u64,
    /// Length of the record.
    pub length: u64,
    /// Payload digest.
    pub digest: Option<String>,
    /// Site: registrable domain by the public suffix list.
    pub site: String,
    /// The reader key of the page of its cluster it was linked through (none for a page alone).
    pub linked_through: Option<String>,
    /// That link's score.
    pub link_score: Option<f64>,
    /// The page's language as SpotSigs chose its antecedents by (ISO 639-1), when known.
    pub language: Option<String>,
    /// The page's `<title>`.
    pub title: Option<String>,
    /// The cluster's title: the headline its pages' titles agree on, without their sites'
    /// own words ([`crate::headline`]); beside `title`, the page's own as written.
    pub story_title: Option<String>,
    /// The day the page says it was published, or its capture day ([`crate::dates`]).
    pub published_day: Option<String>,
    /// The same with its time and offset when the page gives one (ISO 8601).
    pub published: Option<String>,
    /// Where the date was found: `meta`, `json-ld`, `time`, `url`, `text`, `capture`.
    pub published_source: Option<String>,
    /// Whether the page is among the first publishers of its cluster's story (ties are all
    /// first; never for a page alone) ([`crate::dates::spread`]).
    pub first_publisher: bool,
    /// How long after the first publishers the page published, in seconds.
    pub lag_seconds: Option<i64>,
}

/// One capture of `samecore history --out`: a URL's capture against the one before it
/// ([`crate::history`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryRow {
    /// The URL as its first capture wrote it.
    pub url: String,
    /// Which capture of the URL this is (1 for the first).
    pub capture: u32,
    /// When it was captured (ISO 8601).
    pub captured: Option<String>,
    /// When the capture before it was.
    pub previous_captured: Option<String>,
    /// `first`, `identical`, `frame-only` or `core-changed`.
    pub change: String,
    /// Similarity of the core to the previous capture's (Jaccard of word 3-shingles).
    pub core_similarity: Option<f64>,
    /// Whether the archive recorded it as a revisit.
    pub revisit: bool,
    /// Payload digest.
    pub digest: Option<String>,
    /// The capture's key (as in a project).
    pub key: String,
    /// The previous capture's key.
    pub previous_key: Option<String>,
    /// The page's `<title>`.
    pub title: Option<String>,
    /// The day the page says it was published (or its capture day).
    pub published_day: Option<String>,
}

/// One scored pair of `samecore run --pairs`: both reader keys and the score first, then both
/// pages' capture key, URL, timestamp and record id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairFileRow {
    /// First page's reader key.
    pub a_doc: String,
    /// Second page's reader key.
    pub b_doc: String,
    /// The detector's score.
    pub score: f64,
    /// First page's capture key.
    pub a_key: String,
    /// Second page's capture key.
    pub b_key: String,
    /// First page's URL.
    pub a_url: Option<String>,
    /// Second page's URL.
    pub b_url: Option<String>,
    /// First page's 14-digit timestamp.
    pub a_timestamp: Option<String>,
    /// Second page's 14-digit timestamp.
    pub b_timestamp: Option<String>,
    /// First page's record id.
    pub a_record_id: Option<String>,
    /// Second page's record id.
    pub b_record_id: Option<String>,
}

impl ClusterFileRow {
    /// The row of `doc` in `cluster`, linked through `link` (the page and the score,
    /// [`crate::detectors::Detection::linked_through`]).
    pub fn new(
        doc: &crate::Document,
        cluster: u32,
        representative: bool,
        link: Option<(&crate::Document, f64)>,
    ) -> ClusterFileRow {
        ClusterFileRow {
            doc: doc.key.to_string(),
            cluster,
            story_title: None,
            representative,
            key: doc.capture(),
            record_id: doc.record_id().map(str::to_string),
            url: doc.url.as_deref().map(String::from),
            timestamp: doc.date.as_deref().and_then(timestamp14),
            file: doc.location.file.to_string_lossy().into_owned(),
            offset: doc.location.offset,
            length: doc.location.length,
            digest: doc.digest().map(str::to_string),
            site: doc.site.registrable.to_string(),
            linked_through: link.map(|(d, _)| d.key.to_string()),
            link_score: link.map(|(_, s)| (s * 1e6).round() / 1e6),
            language: None,
            title: doc.title.as_deref().map(String::from),
            published_day: doc.published.map(|p| p.at.ymd()),
            published: doc.published.map(|p| p.at.iso()),
            published_source: doc.published.map(|p| p.source.name().to_string()),
            first_publisher: false,
            lag_seconds: None,
        }
    }
}

impl PairFileRow {
    /// The row of a pair of `a` and `b` scored `score`.
    pub fn new(a: &crate::Document, b: &crate::Document, score: f64) -> PairFileRow {
        PairFileRow {
            a_doc: a.key.to_string(),
            b_doc: b.key.to_string(),
            score,
            a_key: a.capture(),
            b_key: b.capture(),
            a_url: a.url.as_deref().map(String::from),
            b_url: b.url.as_deref().map(String::from),
            a_timestamp: a.date.as_deref().and_then(timestamp14),
            b_timestamp: b.date.as_deref().and_then(timestamp14),
            a_record_id: a.record_id().map(str::to_string),
            b_record_id: b.record_id().map(str::to_string),
        }
    }
}

/// One aligned passage of a pair, as `samecore passages --out` writes it, with its pair's
/// shares and derivation ([`crate::passages`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PassageRow {
    /// First page's capture key.
    pub a_key: String,
    /// Second page's capture key.
    pub b_key: String,
    /// The detector's score of the pair; empty for two pages compared by hand (no detector
    /// scored them).
    pub score: Option<f64>,
    /// Whose core the passage is in: `a` (found in B's text) or `b` (found in A's text).
    pub in_page: String,
    /// Which passage of that page (1 for the first).
    pub passage: u32,
    /// Byte offsets of the passage in its page's core text (`start..end`).
    pub start: u32,
    /// End in its page's core text.
    pub end: u32,
    /// Byte offsets where it was found in the other page's visible text.
    pub other_start: u32,
    /// End in the other page's text.
    pub other_end: u32,
    /// Words of the passage in its page's core.
    pub words: u32,
    /// Words matched exactly.
    pub matched: u32,
    /// The passage's text in its page's core.
    pub text: String,
    /// Share of A's core in the pair's passages.
    pub a_share: f64,
    /// Share of B's core in the pair's passages.
    pub b_share: f64,
    /// `a-first`, `b-first` or `undated` (by publication dates).
    pub direction: String,
    /// The derived page's class: `wholly`, `partially`, `non`.
    pub derivation: String,
}

impl PassageRow {
    /// Every aligned passage of the pair of pages keyed `keys`, scored `score`: A's core found
    /// in B's text (`in_page` `a`), then B's core in A's text, with the pair's shares and
    /// derivation.
    pub fn of_pair(
        keys: (&str, &str),
        score: Option<f64>,
        (pa, pb): (&crate::passages::PageCore, &crate::passages::PageCore),
        alignment: &crate::passages::PairAlignment,
        derivation: &crate::passages::PairDerivation,
    ) -> Vec<PassageRow> {
        let direction = serde_json::to_value(derivation.direction)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let (share_a, share_b) = (alignment.share_a(), alignment.share_b());
        [
            ("a", pa, pb, &alignment.a_in_b),
            ("b", pb, pa, &alignment.b_in_a),
        ]
        .into_iter()
        .flat_map(|(side, own, other, found)| {
            let direction = direction.clone();
            found.passages.iter().enumerate().map(move |(k, p)| {
                let (start, end) = own.core.bytes_of(p.a.clone());
                let (other_start, other_end) = other.text.bytes_of(p.b.clone());
                PassageRow {
                    a_key: keys.0.to_string(),
                    b_key: keys.1.to_string(),
                    score,
                    in_page: side.into(),
                    passage: k as u32 + 1,
                    start,
                    end,
                    other_start,
                    other_end,
                    words: p.a.end - p.a.start,
                    matched: p.matched,
                    text: own.core.text_of(p.a.clone()).to_string(),
                    a_share: share_a,
                    b_share: share_b,
                    direction: direction.clone(),
                    derivation: derivation.class.name().into(),
                }
            })
        })
        .collect()
    }
}

/// A coder's derivation decision on a pair, as exported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DerivationExportRow {
    /// The source page's capture key.
    pub source_key: String,
    /// Its URL.
    pub source_url: Option<String>,
    /// The derived page's capture key.
    pub derived_key: String,
    /// Its URL.
    pub derived_url: Option<String>,
    /// `wholly`, `partially` or `non`.
    pub class: String,
    /// Who decided.
    pub by: String,
    /// When.
    pub at: String,
    /// The coder's note.
    pub note: String,
}

/// The current derivation decisions of a project, one row per pair.
pub fn derivation_rows(project: &Project) -> Result<Vec<DerivationExportRow>> {
    let pages: BTreeMap<_, _> = project
        .pages()?
        .into_iter()
        .map(|p| (p.id, p.identity))
        .collect();
    Ok(project
        .derivations()?
        .into_iter()
        .map(|d| {
            let (s, t) = (pages.get(&d.source), pages.get(&d.derived));
            DerivationExportRow {
                source_key: s.map(|p| p.key.clone()).unwrap_or_default(),
                source_url: s.and_then(|p| p.url.clone()),
                derived_key: t.map(|p| p.key.clone()).unwrap_or_default(),
                derived_url: t.and_then(|p| p.url.clone()),
                class: d.class.name().into(),
                by: d.by,
                at: d.at,
                note: d.note,
            }
        })
        .collect())
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
    /// 14-digit capture timestamp.
    #[serde(rename = "capture_timestamp")]
    pub timestamp: Option<String>,
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
    /// The code's description in the codebook (empty when it has none; missing in exports
    /// before it was written).
    #[serde(default)]
    pub description: String,
}

/// The page rows of a project (clusters from `run`, when given), by key.
pub fn page_rows(project: &Project, run: Option<RunId>) -> Result<Vec<PageRow>> {
    let pages = project.pages()?;
    let mut cluster_of = BTreeMap::new();
    let mut story_title = std::collections::HashMap::new();
    if let Some(run) = run {
        project.run(run)?;
        let clusters = project.run_clusters(run)?;
        story_title = crate::headline::of_run_clusters(&pages, &clusters);
        for c in clusters {
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
    let gold = project.gold_with_source()?;
    let mut rows = Vec::new();
    for p in pages {
        let (gold, gold_source) = gold_of(&gold, &p.identity).unzip();
        let cluster = cluster_of.get(&p.id).copied();
        rows.push(PageRow {
            run: cluster.and(run.map(|r| r.0)),
            cluster,
            story_title: cluster.and_then(|c| story_title.get(&c).cloned().flatten()),
            codes: serde_json::to_string(&codes.remove(&p.id).unwrap_or_default())?,
            gold,
            gold_source,
            ..PageRow::of_identity(&p.identity)
        });
    }
    rows.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(rows)
}

impl PageRow {
    /// The row of a page by its identity: no run, cluster, codes or gold.
    fn of_identity(identity: &PageIdentity) -> PageRow {
        let s = Side::from(identity);
        PageRow {
            title: identity.title.clone(),
            published_day: identity
                .published
                .as_deref()
                .map(|d| d[..d.len().min(10)].to_string()),
            published: identity.published.clone(),
            published_source: identity.published_source.clone(),
            key: s.key,
            record_id: s.record_id,
            url: s.url,
            timestamp: s.timestamp,
            date: s.date,
            file: s.file,
            offset: s.offset,
            length: s.length,
            digest: s.digest,
            status: s.status,
            mime: s.mime,
            site: s.site,
            run: None,
            cluster: None,
            story_title: None,
            codes: "[]".into(),
            gold: None,
            gold_source: None,
        }
    }

    /// The row of a page read from an archive (not yet in a project): its identity, title and
    /// publication date, its gold cluster and the gold's source when known.
    pub fn of_document(doc: &crate::Document, gold: Option<(&str, &str)>) -> PageRow {
        PageRow {
            gold: gold.map(|g| g.0.to_string()),
            gold_source: gold.map(|g| g.1.to_string()),
            ..PageRow::of_identity(&PageIdentity::from(doc))
        }
    }
}

/// A page's gold cluster: gold files name pages by capture key, reader key or record id.
fn gold_of(
    gold: &BTreeMap<String, (String, String)>,
    identity: &PageIdentity,
) -> Option<(String, String)> {
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
    let strata: BTreeMap<String, _> = project
        .sample_strata(sample)?
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect();
    let mut rows = Vec::new();
    for pair in project.sample_pairs(sample)? {
        let stratum = strata.get(&pair.stratum);
        let settled = settlements.get(&pair.position);
        let mut base = PairRow {
            sample: info.name.clone(),
            position: pair.position + 1,
            score: pair.score,
            stratum: pair.stratum.clone(),
            stratum_population: stratum.map(|s| s.population),
            stratum_drawn: stratum.map(|s| s.drawn),
            weight: stratum
                .filter(|s| s.drawn > 0)
                .map(|s| s.population as f64 / s.drawn as f64),
            settled_verdict: settled.map(|s| s.label.verdict.as_str().to_string()),
            settled_reason: settled.and_then(|s| s.label.reason.map(|r| r.as_str().to_string())),
            settled_note: settled.map(|s| s.label.note.clone()),
            settled_by: settled.map(|s| s.settled_by.clone()),
            settled_at: settled.map(|s| s.settled_at.clone()),
            ..PairRow::default()
        };
        base.set_a(Side::from(&pair.a.identity));
        base.set_b(Side::from(&pair.b.identity));
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
                pairs: r.pairs,
                clusters: r.clusters,
            })
        })
        .collect()
}

/// The code rows of a project, by (key, code).
pub fn code_rows(project: &Project) -> Result<Vec<CodeRow>> {
    let pages: BTreeMap<_, _> = project.pages()?.into_iter().map(|p| (p.id, p)).collect();
    let descriptions: BTreeMap<String, String> = project
        .codes()?
        .into_iter()
        .map(|c| (c.name, c.description))
        .collect();
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
                timestamp: identity.date.as_deref().and_then(timestamp14),
                date: identity.date,
                applied: pc.applied,
                source: pc.source.as_str().to_string(),
                run: pc.run.map(|r| r.0),
                cluster: pc.cluster,
                applied_by: pc.applied_by,
                applied_at: pc.applied_at,
                description: descriptions.get(&pc.code).cloned().unwrap_or_default(),
                code: pc.code,
            }
        })
        .collect())
}
