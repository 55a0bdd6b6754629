//! The reading pipeline shared by every format: a reader thread parses records and sends
//! batches of undecoded pages; the calling thread decodes each batch on the rayon pool (charset,
//! text, title) and hands documents to the sink in record order.
//!
//! In: a path and a format reader. Out: documents to a sink plus a [`FileReport`], and for
//! [`super::load`] the revisits that must be resolved against other files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::time::Instant;

use rayon::prelude::*;

use super::stream::{GzSource, PlainSource};
use super::warc::Container;
use super::{FileReport, Format, ReadOptions, decode};
use crate::document::{Document, PageText, RecordLocation, Storage};
use crate::progress::Progress;
use crate::{Error, Result};

/// Pages per batch sent from the reader thread, and the payload bytes that close a batch early.
const BATCH_PAGES: usize = 64;
const BATCH_BYTES: usize = 8 << 20;

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
    /// Re-read this record (a resolved revisit points at its original).
    Reread(RecordLocation),
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
    /// Where batches go; `None` decodes them right here (in-memory scans).
    tx: Option<SyncSender<Vec<RawPage>>>,
}

impl Ctx<'_> {
    /// Send a page on to be decoded.
    pub fn emit(&mut self, mut page: RawPage) -> Result<()> {
        page.order += self.order_base;
        if page.doc.title.is_none()
            && let Some(title) = page.doc.url.as_ref().and_then(|u| self.titles.get(u))
        {
            page.doc.title = Some(title.clone());
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

    fn flush(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.batch_bytes = 0;
        let batch = std::mem::take(&mut self.batch);
        match &self.tx {
            // The receiver only hangs up when it stopped early (cancel): stop reading too.
            Some(tx) => tx.send(batch).map_err(|_| Error::Cancelled),
            None => {
                for page in batch {
                    let order = page.order;
                    match finish(page, &ReadOptions::default()) {
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

/// One file's documents (with their sort keys), its report and its unresolved revisits.
pub(crate) struct FileOutcome {
    pub docs: Vec<(u64, Document)>,
    pub report: FileReport,
    pub pending: Vec<PendingRevisit>,
}

/// Stream one file's documents to `sink`; `progress` gets stage "reading <file>" with bytes as
/// units and is checked for cancel between records. Revisits whose original is not in this file
/// are counted as skipped `revisit-unresolved`.
pub fn read_file(
    path: &Path,
    opts: &ReadOptions,
    progress: &Progress,
    sink: &mut dyn FnMut(Document),
) -> Result<FileReport> {
    let format = super::detect(path)?;
    progress.stage(
        &format!("reading {}", path.display()),
        input_size(path, format),
    );
    let (report, _pending) = run(path, format, opts, progress, &mut |_, d| sink(d))?;
    Ok(report)
}

/// Read one of several inputs for [`super::load`], which set the progress stage for all of them.
pub(crate) fn read_file_outcome(
    path: &Path,
    format: Format,
    opts: &ReadOptions,
    progress: &Progress,
) -> Result<FileOutcome> {
    let mut docs = Vec::new();
    let (report, pending) = run(path, format, opts, progress, &mut |order, d| {
        docs.push((order, d))
    })?;
    Ok(FileOutcome {
        docs,
        report,
        pending,
    })
}

fn run(
    path: &Path,
    format: Format,
    opts: &ReadOptions,
    progress: &Progress,
    sink: &mut dyn FnMut(u64, Document),
) -> Result<(FileReport, Vec<PendingRevisit>)> {
    let started = Instant::now();
    let (tx, rx) = sync_channel::<Vec<RawPage>>(2);
    let mut decoded_docs = 0u64;
    let mut late_warnings = Vec::new();
    let mut late_skips = Vec::new();
    let result = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut ctx = Ctx {
                path,
                report: FileReport::new(path, format.name()),
                progress,
                pending: Vec::new(),
                titles: HashMap::new(),
                order_base: 0,
                batch: Vec::new(),
                batch_bytes: 0,
                tx: Some(tx),
            };
            let read = read_format(format, &mut ctx).and_then(|()| ctx.flush());
            read.map(|()| (ctx.report, ctx.pending))
        });
        for batch in rx {
            let finished: Vec<(u64, Result<Document, String>)> = batch
                .into_par_iter()
                .map(|page| (page.order, finish(page, opts)))
                .collect();
            for (order, doc) in finished {
                match doc {
                    Ok(doc) => {
                        decoded_docs += 1;
                        sink(order, doc);
                    }
                    Err(message) => {
                        late_warnings.push((order, message));
                        late_skips.push("revisit-unreadable");
                    }
                }
            }
            if progress.is_cancelled() {
                break;
            }
        }
        reader.join()
    });
    let outcome = match result {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    progress.check()?;
    let (mut report, pending) = outcome?;
    report.documents += decoded_docs;
    for (offset, message) in late_warnings {
        report.warn(path, offset, message);
    }
    for reason in late_skips {
        report.skip(reason);
    }
    for _ in &pending {
        report.skip("revisit-unresolved");
    }
    report.bytes = input_size(path, format);
    report.seconds = started.elapsed().as_secs_f64();
    Ok((report, pending))
}

fn read_format(format: Format, ctx: &mut Ctx<'_>) -> Result<()> {
    let path = ctx.path;
    let identity = |s: Storage| s;
    let container = Container {
        file: path,
        wrap: &identity,
    };
    let open = || std::fs::File::open(path).map_err(|e| Error::io(e, path));
    match format {
        Format::Warc => super::warc::read_warc(&mut PlainSource::new(open()?), ctx, &container),
        Format::WarcGz => super::warc::read_warc(&mut GzSource::new(open()?), ctx, &container),
        Format::Arc => super::arc::read_arc(&mut PlainSource::new(open()?), ctx, &container),
        Format::ArcGz => super::arc::read_arc(&mut GzSource::new(open()?), ctx, &container),
        Format::Wacz => super::wacz::read_wacz(ctx),
        Format::Folder => super::folder::read_folder(ctx),
        Format::ZipPages => super::folder::read_zip_pages(ctx),
    }
}

/// Bytes of an input: the file size, or the sum of page sizes of a folder.
pub(crate) fn input_size(path: &Path, format: Format) -> u64 {
    match format {
        Format::Folder => super::folder::folder_size(path),
        _ => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    }
}

/// Decode a page: charset, text, title. An unreadable revisit original is an error message.
pub(crate) fn finish(page: RawPage, opts: &ReadOptions) -> Result<Document, String> {
    let RawPage {
        mut doc,
        body,
        http_charset,
        ..
    } = page;
    let (bytes, charset) = match body {
        Body::Bytes(b) => (b, http_charset),
        Body::Reread(location) => match super::read_payload(&location) {
            Ok((head, bytes)) => (bytes, head.and_then(|h| h.charset)),
            Err(e) => return Err(format!("revisit original could not be re-read ({e})")),
        },
    };
    let tld = decode::tld_of(doc.url.as_deref());
    let (html, used) = decode::decode_page(&bytes, charset.as_deref(), tld.as_deref());
    if doc.title.is_none() {
        doc.title = decode::extract_title(&html);
    }
    doc.charset = used;
    if opts.keep_html {
        doc.html = PageText::new(&html);
    }
    Ok(doc)
}

/// Resolve revisits left pending in one file against the documents of all files, and fix the
/// reports' counts.
pub(crate) fn resolve_across_files(outcomes: &mut [FileOutcome], opts: &ReadOptions) {
    if outcomes.iter().all(|o| o.pending.is_empty()) {
        return;
    }
    let mut by_id: HashMap<String, (usize, usize)> = HashMap::new();
    let mut by_capture: HashMap<(String, String), (usize, usize)> = HashMap::new();
    let mut by_digest: HashMap<String, (usize, usize)> = HashMap::new();
    for (f, outcome) in outcomes.iter().enumerate() {
        for (i, (_, doc)) in outcome.docs.iter().enumerate() {
            if doc.revisit_of.is_some() {
                continue;
            }
            if let Some(id) = &doc.record_id {
                by_id.insert(id.clone(), (f, i));
            }
            if let (Some(url), Some(date)) = (&doc.url, &doc.date) {
                by_capture.insert((url.clone(), date.clone()), (f, i));
            }
            if let Some(digest) = &doc.payload_digest {
                by_digest.entry(digest.clone()).or_insert((f, i));
            }
        }
    }
    for f in 0..outcomes.len() {
        let pending = std::mem::take(&mut outcomes[f].pending);
        for revisit in pending {
            let hit = revisit
                .refers_to
                .as_ref()
                .and_then(|id| by_id.get(id))
                .or_else(|| {
                    revisit
                        .refers_to_capture
                        .as_ref()
                        .and_then(|c| by_capture.get(c))
                })
                .or_else(|| revisit.digest.as_ref().and_then(|d| by_digest.get(d)))
                .copied();
            let Some((of, oi)) = hit else {
                outcomes[f].pending.push(revisit);
                continue;
            };
            let original = &outcomes[of].docs[oi].1;
            let mut doc = revisit.doc;
            doc.revisit_of = Some(original.key.clone());
            doc.location = original.location.clone();
            doc.title = original.title.clone();
            doc.charset = original.charset.clone();
            if opts.keep_html {
                doc.html = original.html.clone();
            }
            let report = &mut outcomes[f].report;
            report.unskip("revisit-unresolved");
            report.documents += 1;
            outcomes[f].docs.push((revisit.order, doc));
        }
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
    Document {
        key,
        location,
        record_id,
        url,
        date,
        status,
        content_type,
        payload_digest,
        site,
        title: None,
        charset: String::new(),
        gold: None,
        revisit_of: None,
        html: PageText::default(),
    }
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

/// Parse WARC (or, with `arc`, ARC) bytes held in memory — plain or gzip, told by the first
/// bytes — decoding every page on this thread. The entry point of the cargo-fuzz targets and
/// their regression tests; it must never panic, whatever the bytes.
pub fn scan_bytes(data: &[u8], arc: bool) -> FileReport {
    let path = Path::new("<memory>");
    let progress = Progress::new();
    let mut ctx = Ctx {
        path,
        report: FileReport::new(path, if arc { "arc" } else { "warc" }),
        progress: &progress,
        pending: Vec::new(),
        titles: HashMap::new(),
        order_base: 0,
        batch: Vec::new(),
        batch_bytes: 0,
        tx: None,
    };
    let identity = |s: Storage| s;
    let container = Container {
        file: path,
        wrap: &identity,
    };
    let cursor = std::io::Cursor::new(data);
    let gz = data.starts_with(&[0x1f, 0x8b]);
    let read = match (arc, gz) {
        (false, false) => {
            super::warc::read_warc(&mut PlainSource::new(cursor), &mut ctx, &container)
        }
        (false, true) => super::warc::read_warc(&mut GzSource::new(cursor), &mut ctx, &container),
        (true, false) => super::arc::read_arc(&mut PlainSource::new(cursor), &mut ctx, &container),
        (true, true) => super::arc::read_arc(&mut GzSource::new(cursor), &mut ctx, &container),
    };
    let flushed = read.and_then(|()| ctx.flush());
    if let Err(e) = flushed {
        ctx.warn(0, e.to_string());
    }
    for _ in &ctx.pending {
        ctx.report.skip("revisit-unresolved");
    }
    ctx.report.bytes = data.len() as u64;
    ctx.report
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
                            "damaged gzip data ({e}); skipped to the next gzip member at offset {resumed}"
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
