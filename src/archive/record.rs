//! What every format reader shares, below the pipeline that drives them: the page a reader
//! finds ([`RawPage`]), the context it reports into ([`Ctx`]: counts, warnings, revisits left
//! for other files, the sink of page batches), the loop over records with progress, cancel and
//! gzip-member recovery ([`read_records`]), and a document template per record ([`new_doc`]).
//!
//! In: records parsed by `warc.rs`, `arc.rs`, `wacz.rs`, `folder.rs`. Out: batches of
//! undecoded pages to the sink `pipeline.rs` sets up. The formats import this module and never
//! the pipeline; the pipeline imports the formats.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;

use super::FileReport;
use crate::document::{Document, PageText, RecordLocation, Storage};
use crate::progress::Progress;
use crate::{Error, Result};

/// Pages per batch sent from the reader thread, and the payload bytes that close a batch early.
const BATCH_PAGES: usize = 64;
const BATCH_BYTES: usize = 8 << 20;

/// Where a record sits: the file a location names, and how the storage inside the stream
/// becomes the storage of the location (WACZ wraps it in a zip entry).
pub(crate) struct Container<'a> {
    /// The file a location names.
    pub file: &'a std::sync::Arc<std::path::Path>,
    /// Turns the storage inside the stream into the storage of the location.
    pub wrap: &'a dyn Fn(Storage) -> Storage,
}

/// A page found by a reader, not yet decoded.
pub(crate) struct RawPage {
    /// The document with everything but `html`, `charset` and (usually) `title` filled in.
    pub doc: Document,
    /// Sort key inside its file: the byte offset of its own record.
    pub order: u64,
    /// Where the page bytes are.
    pub body: Body,
    /// `charset` of the HTTP `Content-Type`, when given.
    pub http_charset: Option<String>,
}

/// The bytes of a page, or where to fetch them (a revisit's original).
pub(crate) enum Body {
    /// The payload, HTTP head removed.
    Bytes(Vec<u8>),
    /// A WARC revisit's original, found in its own file: re-read, and the revisit takes the
    /// original's key (as `revisit_of`), HTTP status and content type from its record.
    Original(RecordLocation),
    /// A loose page not read yet: the decoding thread reads it. Read on the reader thread and
    /// freed on a decoding one, each page's buffer was fresh memory the kernel had to zero (an
    /// eighth of `run`'s CPU on goldset-dev); read where it is decoded, into a buffer that
    /// thread keeps for its next page, and the reads run in parallel. With its size as listed
    /// (0 when unknown), which the read makes room for.
    File(PathBuf, u64),
}

/// A revisit whose original was not in its own file: [`super::load`] looks in the others.
pub(crate) struct PendingRevisit {
    /// The revisit's document (identity filled, no page).
    pub doc: Document,
    /// Its record offset.
    pub order: u64,
    /// `WARC-Refers-To`.
    pub refers_to: Option<String>,
    /// `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`.
    pub refers_to_capture: Option<(String, String)>,
    /// `WARC-Payload-Digest` of the revisit.
    pub digest: Option<String>,
}

/// What a format reader works with: where to send pages, the report to fill, progress.
pub(crate) struct Ctx<'a> {
    /// The input.
    pub path: &'a Path,
    /// The input, as the locations of its records share it.
    pub file: std::sync::Arc<Path>,
    /// Counts and warnings.
    pub report: FileReport,
    /// Progress, in bytes.
    pub progress: &'a Progress,
    /// Revisits not resolved inside the file.
    pub pending: Vec<PendingRevisit>,
    /// Page titles by URL (WACZ `pages.jsonl`), used before `<title>`.
    pub titles: HashMap<String, String>,
    /// Added to every page's sort key (WACZ: which WARC inside it).
    pub order_base: u64,
    batch: Vec<RawPage>,
    batch_bytes: usize,
    sink: Sink,
}

/// Where a reader's batches of pages go.
pub(crate) enum Sink {
    /// To the decoding thread of the pipeline.
    Channel(SyncSender<Vec<RawPage>>),
    /// Decoded right here, one by one (in-memory scans); an `Err` is a warning.
    Decode(fn(RawPage) -> std::result::Result<Document, String>),
}

impl<'a> Ctx<'a> {
    /// A context reading `path` (a `format` file) into `sink`.
    pub fn new(path: &'a Path, format: &str, progress: &'a Progress, sink: Sink) -> Self {
        Ctx {
            path,
            file: path.into(),
            report: FileReport::new(path, format),
            progress,
            pending: Vec::new(),
            titles: HashMap::new(),
            order_base: 0,
            batch: Vec::new(),
            batch_bytes: 0,
            sink,
        }
    }

    /// Send a page on to be decoded.
    pub fn emit(&mut self, mut page: RawPage) -> Result<()> {
        page.order += self.order_base;
        if page.doc.title.is_none()
            && let Some(title) = page.doc.url.as_deref().and_then(|u| self.titles.get(u))
        {
            page.doc.title = Some(title.as_str().into());
        }
        if let Body::Bytes(b) = &page.body {
            self.batch_bytes += b.len();
        }
        self.batch.push(page);
        if self.batch.len() >= BATCH_PAGES || self.batch_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Send what is left of the current batch.
    pub fn flush(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.batch_bytes = 0;
        let batch = std::mem::take(&mut self.batch);
        match &self.sink {
            // The receiver only hangs up when it stopped early (cancel): stop reading too.
            Sink::Channel(tx) => tx.send(batch).map_err(|_| Error::Cancelled),
            &Sink::Decode(finish) => {
                for page in batch {
                    let order = page.order;
                    match finish(page) {
                        Ok(_) => self.report.documents += 1,
                        Err(message) => self.warn(order, message),
                    }
                }
                Ok(())
            }
        }
    }

    /// Record a warning at `offset` of this input.
    pub fn warn(&mut self, offset: u64, message: impl Into<String>) {
        let path = self.path.to_path_buf();
        self.report.warn(&path, offset, message);
    }
}

/// A document template for a record: identity and HTTP facts, no page yet.
#[allow(clippy::too_many_arguments)]
pub(crate) fn new_doc(
    key: String,
    location: RecordLocation,
    record_id: Option<String>,
    url: Option<String>,
    date: Option<String>,
    status: Option<u16>,
    content_type: Option<String>,
    payload_digest: Option<String>,
) -> Document {
    let site = url
        .as_deref()
        .map(crate::document::Site::of_url)
        .unwrap_or_default();
    let mut doc = Document {
        key: key.into(),
        location,
        record_id: Default::default(),
        url: url.map(Into::into),
        date: date.map(Into::into),
        status,
        content_type: content_type.as_deref().map(crate::document::shared),
        payload_digest: payload_digest.map(Into::into),
        site,
        title: None,
        charset: Default::default(),
        gold: None,
        revisit_of: None,
        capture_digest: None,
        payload_check: 0,
        published: None,
        html: PageText::default(),
    };
    doc.set_record_id(record_id);
    doc
}

/// A path for messages and keys: `/`-separated, relative to `base`.
pub(crate) fn relative_key(base: &Path, path: &Path) -> String {
    let rel: PathBuf = path
        .strip_prefix(base)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf());
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Drive a record parser over `src` until the end: report progress in file bytes, stop on
/// cancel, and after a damaged stretch (a bad gzip member) skip to the next member with a
/// warning, so every good record before and after it still loads. `next_record` parses one
/// record (or one bad stretch) and says `Ok(false)` at the end. Shared by the WARC and ARC
/// readers.
pub(crate) fn read_records<S: super::stream::Source>(
    src: &mut S,
    ctx: &mut Ctx<'_>,
    mut next_record: impl FnMut(&mut S, &mut Ctx<'_>) -> std::io::Result<bool>,
) -> Result<()> {
    let mut reported = 0u64;
    loop {
        ctx.progress.check()?;
        let now = src.file_pos();
        ctx.progress.advance(now.saturating_sub(reported));
        reported = reported.max(now);
        match next_record(src, ctx) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => {
                // A send refused because the job was cancelled surfaces here as an error too.
                ctx.progress.check()?;
                let at = src.damaged_offset();
                match src.recover() {
                    Ok(Some(resumed)) => ctx.warn(
                        at,
                        format!(
                            "damaged gzip data ({e}); reading resumed at the next gzip member \
                             (offset {resumed}); the damage starts"
                        ),
                    ),
                    Ok(None) => {
                        ctx.warn(at, format!("damaged or truncated data at the end ({e})"));
                        return Ok(());
                    }
                    Err(_) => return Err(Error::io(e, ctx.path)),
                }
            }
        }
    }
}
