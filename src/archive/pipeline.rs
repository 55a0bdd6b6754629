//! The reading pipeline shared by every format: a reader thread parses records and sends
//! batches of undecoded pages; rayon's global pool decodes them as one stream (charset, text,
//! title), and the calling thread hands documents to the sink in record order. A folder's
//! reader only lists its pages: the decoding threads read them
//! ([`super::record::Body::File`]).
//!
//! In: a path and a format reader. Out: documents to a sink plus a [`FileReport`], and for
//! [`super::load`] the revisits that must be resolved against other files.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use rayon::prelude::*;

use super::record::{Body, Container, Ctx, PendingRevisit, RawPage, Sink};
use super::stream::{GzSource, PlainSource};
use super::{FileReport, Format, KeepHtml, ReadOptions, decode};
use crate::document::{Document, PageText, Storage};
use crate::progress::Progress;
use crate::{Error, Result};

/// One file's documents, their sort keys and what the page function made of each (three
/// parallel vectors, so that [`super::load_with`] can hand the documents on without a copy),
/// its report and its unresolved revisits.
pub(crate) struct FileOutcome<T> {
    pub orders: Vec<u64>,
    pub docs: Vec<Document>,
    pub made: Vec<T>,
    pub report: FileReport,
    pub pending: Vec<PendingRevisit>,
}

impl<T> FileOutcome<T> {
    /// Put the documents in record order (revisits resolved across files come last) and keep
    /// those for which `keep` says yes, in place: no second copy of the file's documents.
    pub fn sort_and_retain(&mut self, mut keep: impl FnMut(&Document) -> bool) {
        if !self.orders.is_sorted() {
            let mut perm: Vec<usize> = (0..self.orders.len()).collect();
            perm.sort_by_key(|&i| self.orders[i]);
            apply_permutation(&mut perm, |a, b| {
                self.orders.swap(a, b);
                self.docs.swap(a, b);
                self.made.swap(a, b);
            });
        }
        let keeps: Vec<bool> = self.docs.iter().map(&mut keep).collect();
        let mut flags = keeps.iter();
        self.docs.retain(|_| *flags.next().unwrap_or(&true));
        let mut flags = keeps.iter();
        self.made.retain(|_| *flags.next().unwrap_or(&true));
        let mut flags = keeps.iter();
        self.orders.retain(|_| *flags.next().unwrap_or(&true));
    }
}

/// Rearrange in place so that position `i` ends up holding what was at `perm[i]`, by swaps
/// along the permutation's cycles (`perm` is consumed: left as the identity).
pub(crate) fn apply_permutation(perm: &mut [usize], mut swap: impl FnMut(usize, usize)) {
    for start in 0..perm.len() {
        let mut i = start;
        while perm[i] != start {
            let next = perm[i];
            swap(i, next);
            perm[i] = i;
            i = next;
        }
        perm[i] = i;
    }
}

/// Stream one file's documents to `sink`; `progress` gets stage `reading <file>` with bytes as
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
    let (report, _pending) = run(path, format, opts, progress, &|_, _| (), &mut |_, d, ()| {
        sink(d)
    })?;
    Ok(report)
}

/// Read one of several inputs for [`super::load_with`], which set the progress stage for all
/// of them; `page` is applied to each decoded page while its text is in hand.
///
/// What is kept of a page is copied on this thread as it arrives: built on the reader and
/// decoding threads, its strings sat among those threads' short-lived buffers, and the
/// allocator could not give back a page of memory holding one of them (a 300k-page read held
/// ~90 MB more than it used; the copies live together and the other threads' memory is freed
/// whole).
pub(crate) fn read_file_outcome<T: Send + Clone>(
    path: &Path,
    format: Format,
    opts: &ReadOptions,
    progress: &Progress,
    page: &PageFn<'_, T>,
) -> Result<FileOutcome<T>> {
    let (mut orders, mut docs, mut made) = (Chunked::new(), Chunked::new(), Chunked::new());
    let (report, pending) = run(path, format, opts, progress, page, &mut |order, d, t| {
        orders.push(order);
        docs.push(d.clone());
        made.push(t.clone());
    })?;
    Ok(FileOutcome {
        orders: orders.into_vec(),
        docs: docs.into_vec(),
        made: made.into_vec(),
        report,
        pending,
    })
}

/// A 128-bit hash (XXH3) of strings, for the maps that find a revisit's original: keys of 16
/// bytes instead of clones of record ids, URLs, dates and digests (~270 bytes a page, held
/// for a whole file). Two different keys share a hash with probability about 2^-128 per pair.
pub(crate) fn key_hash(parts: &[&str]) -> u128 {
    key_hasher(parts).digest128()
}

/// XXH3 fed with `parts`, each ended by a zero byte.
pub(crate) fn key_hasher(parts: &[&str]) -> xxhash_rust::xxh3::Xxh3 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    h
}

/// Most items a chunk of [`Chunked`] holds.
const CHUNK: usize = 1 << 14;

/// A vector grown in chunks that are never moved, joined once at the end into one vector of
/// exact capacity.
///
/// Why: a `Vec` of a file's documents (~420 bytes each inline) grows by doubling, and each
/// doubling copies, so for a moment the old and the new buffer are both resident: at a
/// million pages that moment (436 MB of old buffer) was the peak of a whole `samecore run`.
/// Chunks double up to [`CHUNK`] items and are then all that size; joining moves them into
/// the final buffer one at a time and frees each at once, so about one copy plus a chunk is
/// resident (the final buffer's pages are touched only as it fills).
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Chunked<T> {
    fn new() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }

    fn push(&mut self, item: T) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < chunk.capacity() => chunk.push(item),
            _ => {
                let mut chunk = Vec::with_capacity(self.len.clamp(16, CHUNK));
                chunk.push(item);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    fn into_vec(self) -> Vec<T> {
        let mut joined = Vec::with_capacity(self.len);
        for mut chunk in self.chunks {
            joined.append(&mut chunk);
        }
        joined
    }
}

/// A decoded page and what the page function made of it, or why it could not be read.
type Finished<T> = Result<(Document, T), Unfinished>;

/// Why a page gave no document: the reason it is counted as skipped under, and the warning
/// that says so, if any (an empty page is skipped without one).
pub(crate) struct Unfinished {
    reason: &'static str,
    warning: Option<String>,
}

/// What a reader applies to each decoded page, with the page's text.
pub type PageFn<'a, T> = dyn Fn(&Document, &str) -> T + Sync + 'a;

fn run<T: Send>(
    path: &Path,
    format: Format,
    opts: &ReadOptions,
    progress: &Progress,
    page: &PageFn<'_, T>,
    sink: &mut dyn FnMut(u64, Document, T),
) -> Result<(FileReport, Vec<PendingRevisit>)> {
    let started = Instant::now();
    let ahead = if format == Format::Folder {
        LISTED_BATCHES_AHEAD
    } else {
        2
    };
    let (tx, rx) = sync_channel::<Vec<RawPage>>(ahead);
    let mut decoded_docs = 0u64;
    let mut record_ids: HashSet<u64> = HashSet::new();
    let mut repeated_ids: Option<(u64, String)> = None;
    let mut late_warnings = Vec::new();
    let mut late_skips = Vec::new();
    // A folder's pages are read (and so counted) where they are decoded.
    let mut folder_bytes = 0u64;
    let result = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut ctx = Ctx::new(path, format.name(), progress, Sink::Channel(tx));
            let read = read_format(format, &mut ctx).and_then(|()| ctx.flush());
            read.map(|()| (ctx.report, ctx.pending))
        });
        let mut handle = |order: u64, doc: Finished<T>| match doc {
            Ok((doc, made)) => {
                decoded_docs += 1;
                if format == Format::Folder {
                    folder_bytes += doc.location.length;
                    progress.advance(doc.location.length);
                }
                if let Some(id) = doc.record_id()
                    && doc.revisit_of.is_none()
                    && !record_ids.insert(xxhash_rust::xxh3::xxh3_64(id.as_bytes()))
                {
                    let entry = repeated_ids.get_or_insert((0, id.to_string()));
                    entry.0 += 1;
                }
                sink(order, doc, made);
            }
            Err(Unfinished { reason, warning }) => {
                if let Some(message) = warning {
                    late_warnings.push((order, message));
                }
                late_skips.push(reason);
            }
        };
        // The pool decodes the pages as one stream, a page to whichever thread is free, driven
        // from a thread of its own; this thread takes the pages back in record order. Batch
        // by batch, each batch waited for its slowest page with the other thread idle, and
        // its documents were handed on with both idle: 7 of a goldset-dev read's 56 ms.
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        scope.spawn(move || {
            rx.into_iter()
                .flatten()
                .take_while(|_| !progress.is_cancelled())
                .enumerate()
                .par_bridge()
                .for_each_init(
                    || Outbox::new(done_tx.clone()),
                    |outbox, (seq, raw)| {
                        let order = raw.order;
                        outbox.put((seq, (order, finish_with(raw, opts, page))));
                    },
                );
        });
        let mut in_order = InOrder::default();
        'taking: while let Some(decoded) = next_decoded(&done_rx) {
            for (seq, page) in decoded {
                in_order.put(seq, page, |(order, doc)| handle(order, doc));
            }
            if progress.is_cancelled() {
                break 'taking;
            }
        }
        drop(done_rx);
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
    if let Some((n, id)) = repeated_ids {
        report.warn(
            path,
            0,
            format!(
                "{n} page(s) reuse a WARC-Record-ID already used in this file (e.g. {id}); \
                 samecore tells pages apart by capture (URL, capture time, payload digest)"
            ),
        );
    }
    for _ in &pending {
        report.skip("revisit-unresolved");
    }
    // A folder's pages were counted as they were read: not walked again.
    report.bytes = match format {
        Format::Folder => folder_bytes,
        _ => input_size(path, format),
    };
    report.seconds = started.elapsed().as_secs_f64();
    Ok((report, pending))
}

/// Batches of a folder's listed pages the reader thread may send ahead of the decoding
/// threads (a batch of records carries their bytes, up to 8 MB: two of those). A listed page
/// is its path, not its bytes, so 64 batches (4,096 pages) hold well under 2 MB; with two, the
/// decoding threads both waited, several times a run, while the reader listed and stated the
/// next folder.
const LISTED_BATCHES_AHEAD: usize = 64;

/// Most decoded pages a decoding thread holds before it sends them on together: one wake-up
/// of the taking thread per page was 2,200 context switches of a goldset-dev read and 14 ms of
/// CPU.
const OUTBOX_PAGES: usize = 32;

/// A decoding thread's pages not yet sent to the taking thread; what it holds is sent when it
/// is full and when it is dropped (the thread's share of the stream is done).
struct Outbox<M> {
    held: Vec<M>,
    to: std::sync::mpsc::Sender<Vec<M>>,
}

impl<M> Outbox<M> {
    fn new(to: std::sync::mpsc::Sender<Vec<M>>) -> Self {
        Outbox {
            held: Vec::with_capacity(OUTBOX_PAGES),
            to,
        }
    }

    fn put(&mut self, m: M) {
        self.held.push(m);
        if self.held.len() >= OUTBOX_PAGES {
            self.send();
        }
    }

    fn send(&mut self) {
        let held = std::mem::replace(&mut self.held, Vec::with_capacity(OUTBOX_PAGES));
        // The receiver is gone only when the taking thread stopped (cancel): nothing to keep.
        let _ = self.to.send(held);
    }
}

impl<M> Drop for Outbox<M> {
    fn drop(&mut self) {
        if !self.held.is_empty() {
            self.send();
        }
    }
}

/// The next decoded pages from rayon's global pool: waiting on the channel, or, on a thread of
/// that pool itself (a caller inside a parallel iterator), decoding while it waits: a pool
/// thread blocked here would be one decoder fewer, and with a pool of one thread, none.
fn next_decoded<M>(done: &std::sync::mpsc::Receiver<M>) -> Option<M> {
    use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
    if rayon::current_thread_index().is_none() {
        return done.recv().ok();
    }
    loop {
        match done.try_recv() {
            Ok(m) => return Some(m),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {}
        }
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            continue;
        }
        // Nothing to decode yet (the pages may not have reached the pool): a moment's wait.
        match done.recv_timeout(std::time::Duration::from_millis(1)) {
            Ok(m) => return Some(m),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Items numbered 0, 1, 2, … that arrive in any order, handed on in their numbers' order:
/// those that come early wait here.
struct InOrder<I> {
    next: usize,
    waiting: std::collections::VecDeque<Option<I>>,
}

impl<I> Default for InOrder<I> {
    fn default() -> Self {
        InOrder {
            next: 0,
            waiting: std::collections::VecDeque::new(),
        }
    }
}

impl<I> InOrder<I> {
    /// Item `seq` has come: hand it, and every item after it that waited, to `f` once all
    /// before it have gone.
    fn put(&mut self, seq: usize, item: I, mut f: impl FnMut(I)) {
        let at = seq - self.next;
        if self.waiting.len() <= at {
            self.waiting.resize_with(at + 1, || None);
        }
        self.waiting[at] = Some(item);
        while let Some(Some(_)) = self.waiting.front() {
            if let Some(Some(item)) = self.waiting.pop_front() {
                self.next += 1;
                f(item);
            }
        }
    }
}

fn read_format(format: Format, ctx: &mut Ctx<'_>) -> Result<()> {
    let path = ctx.path;
    let identity = |s: Storage| s;
    let file = ctx.file.clone();
    let container = Container {
        file: &file,
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

/// Bytes of an input to read: the file size. A folder counts nothing here: its reader adds its
/// pages' sizes to the progress total as it lists them.
pub(crate) fn input_size(path: &Path, format: Format) -> u64 {
    match format {
        Format::Folder => 0,
        _ => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    }
}

/// Decode a page: charset, text, title. An unreadable revisit original is an error message.
pub(crate) fn finish(page: RawPage, opts: &ReadOptions) -> Result<Document, String> {
    finish_with(page, opts, &|_, _| ())
        .map(|(doc, ())| doc)
        .map_err(|u| u.warning.unwrap_or_else(|| u.reason.to_string()))
}

/// [`finish`], then `page` applied to the document and its decoded text (before the text is
/// kept or dropped).
fn finish_with<T>(page: RawPage, opts: &ReadOptions, make: &PageFn<'_, T>) -> Finished<T> {
    let RawPage {
        mut doc,
        body,
        http_charset,
        ..
    } = page;
    let (bytes, charset) = match body {
        Body::Bytes(b) => (Reused::of(b), http_charset),
        Body::Original(location) => match super::raw::read_original(&location) {
            Ok((key, head, bytes)) => {
                doc.revisit_of = Some(key.into());
                doc.status = head.as_ref().and_then(|h| h.status);
                doc.content_type = head
                    .as_ref()
                    .and_then(|h| h.content_type.as_deref().map(Into::into));
                (Reused::of(bytes), head.and_then(|h| h.charset))
            }
            Err(e) => {
                return Err(Unfinished {
                    reason: "revisit-unreadable",
                    warning: Some(format!("revisit original could not be re-read ({e})")),
                });
            }
        },
        Body::File(path, size) => match Reused::read(&path, size) {
            Ok(bytes) if bytes.bytes().is_empty() => {
                return Err(Unfinished {
                    reason: "empty",
                    warning: None,
                });
            }
            Ok(bytes) => {
                doc.location.length = bytes.bytes().len() as u64;
                (bytes, None)
            }
            Err(e) => {
                return Err(Unfinished {
                    reason: if e.kind() == std::io::ErrorKind::FileTooLarge {
                        "too-large"
                    } else {
                        "unreadable"
                    },
                    warning: Some(format!(
                        "page {} could not be read ({e}); skipped",
                        path.display()
                    )),
                });
            }
        },
    };
    if bytes.bytes().len() > crate::engine::memory::LONG_PAGE {
        crate::engine::memory::long_page();
    }
    let tld = decode::tld_of(doc.url.as_deref());
    // One hash of the payload serves both the check and, without a recorded digest, the key.
    let check = crate::document::payload_hash(bytes.bytes());
    decode::with_page_text(
        bytes.bytes(),
        charset.as_deref(),
        tld.as_deref(),
        |html, used| {
            if doc.title.is_none() {
                doc.title = decode::extract_title(html).map(Into::into);
            }
            if doc.url.is_none() {
                doc.site = crate::document::Site::of_links(html);
            }
            doc.charset = crate::document::shared(&used);
            doc.set_capture_digest_with(None, || crate::document::content_digest_of_hash(check));
            doc.payload_check = check;
            if opts.publication_dates {
                doc.published =
                    crate::dates::publication(html, doc.url.as_deref(), doc.date.as_deref());
            }
            let made = make(&doc, html);
            if opts.keep_html.keeps(&doc.location) {
                doc.html = PageText::new(html);
            }
            Ok((doc, made))
        },
    )
}

/// A page's bytes, whose buffer the thread keeps for its next page when they are dropped
/// ([`super::kept`]): a loose page is read into it, not into a fresh allocation of its size
/// (327 of the page faults of a goldset-dev `run`).
///
/// The buffer's length is what of it has ever been written (so it can be read into without
/// zeroing it again), the page the first `len` bytes.
struct Reused {
    buf: Vec<u8>,
    len: usize,
}

thread_local! {
    /// This thread's page buffer ([`Reused`]).
    static READ_BUFFER: super::kept::Slot = const { std::cell::RefCell::new(Vec::new()) };
}

impl Reused {
    /// Bytes read elsewhere, whose buffer this thread keeps afterwards.
    fn of(buf: Vec<u8>) -> Reused {
        let len = buf.len();
        Reused { buf, len }
    }

    /// The page.
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The whole file at `path`, whose listing said `size` bytes, into this thread's buffer:
    /// read to its end, whatever it holds by now. `read_to_end` asked the file for its size
    /// and position first, a `statx` and an `lseek` per page (1 % of a goldset-dev run's CPU);
    /// with room for a byte more than the listed size, the read that finds the end needs none.
    ///
    /// A read that was given room for more and returned the listed size exactly is taken as the
    /// end: a regular file's read stops short only at its end, and a file that grew since it
    /// was listed fills the byte more. That saves asking once more to be told 0 bytes (a
    /// second `read` per page, 1,117 of goldset-dev's 2,250).
    fn read(path: &Path, size: u64) -> std::io::Result<Reused> {
        use std::io::Read;
        let mut buf = super::kept::take_written(&READ_BUFFER);
        // Never more than a byte past the page-size limit, whatever the listing said.
        let room = usize::try_from(size.min(super::block::MAX_PAGE))
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        if buf.len() < room {
            // As `read_to_end`: a size no memory holds is an error, not an abort.
            buf.try_reserve(room - buf.len())
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
            buf.resize(room, 0);
        }
        let mut file = std::fs::File::open(path)?;
        let mut len = 0;
        loop {
            if len == buf.len() {
                if len as u64 > super::block::MAX_PAGE {
                    super::kept::give_back(&READ_BUFFER, buf);
                    return Err(too_large());
                }
                // Grown since it was listed: up to a byte past the limit.
                let grown = (2 * len).min(super::block::MAX_PAGE as usize + 1);
                buf.resize(grown.max(len + 1), 0);
            }
            match file.read(&mut buf[len..]) {
                Ok(0) => return Ok(Reused { buf, len }),
                Ok(n) => {
                    len += n;
                    if len as u64 == size && len < buf.len() {
                        return Ok(Reused { buf, len });
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    super::kept::give_back(&READ_BUFFER, buf);
                    return Err(e);
                }
            }
        }
    }
}

/// The error of a page past [`super::block::MAX_PAGE`].
pub(crate) fn too_large() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "larger than the page-size limit of {} bytes",
            super::block::MAX_PAGE
        ),
    )
}

impl Drop for Reused {
    fn drop(&mut self) {
        super::kept::give_back(&READ_BUFFER, std::mem::take(&mut self.buf));
    }
}

/// Resolve revisits left pending in one file against the documents of all files, and fix the
/// reports' counts.
///
/// What `page` made of a revisit is made again from its own identity (URL, site) and its
/// original's text, as for a revisit resolved inside its file, and not copied from the
/// original's: a revisit of another URL signs under its own site.
pub(crate) fn resolve_across_files<T: Clone>(
    outcomes: &mut [FileOutcome<T>],
    opts: &ReadOptions,
    page: &PageFn<'_, T>,
) {
    if outcomes.iter().all(|o| o.pending.is_empty()) {
        return;
    }
    // Keyed by hashes of the strings, not clones of them (at a million pages the clones were
    // ~300 MB at the peak of a read); a hit is checked against the document.
    let mut by_id: HashMap<u128, (usize, usize)> = HashMap::new();
    let mut by_capture: HashMap<u128, (usize, usize)> = HashMap::new();
    let mut by_digest: HashMap<u128, (usize, usize)> = HashMap::new();
    for (f, outcome) in outcomes.iter().enumerate() {
        for (i, doc) in outcome.docs.iter().enumerate() {
            if doc.revisit_of.is_some() {
                continue;
            }
            if let Some(id) = doc.record_id() {
                by_id.insert(key_hash(&[id]), (f, i));
            }
            if let (Some(url), Some(date)) = (&doc.url, &doc.date) {
                by_capture.insert(key_hash(&[url, date]), (f, i));
            }
            if let Some(digest) = &doc.payload_digest {
                by_digest.entry(key_hash(&[digest])).or_insert((f, i));
            }
        }
    }
    for f in 0..outcomes.len() {
        let pending = std::mem::take(&mut outcomes[f].pending);
        for revisit in pending {
            let doc_at = |&(of, oi): &(usize, usize)| &outcomes[of].docs[oi];
            let hit = revisit
                .refers_to
                .as_ref()
                .and_then(|id| {
                    by_id
                        .get(&key_hash(&[id]))
                        .filter(|at| doc_at(at).record_id() == Some(id.as_str()))
                })
                .or_else(|| {
                    revisit.refers_to_capture.as_ref().and_then(|(url, date)| {
                        by_capture.get(&key_hash(&[url, date])).filter(|at| {
                            let d = doc_at(at);
                            d.url.as_deref() == Some(url.as_str())
                                && d.date.as_deref() == Some(date.as_str())
                        })
                    })
                })
                .or_else(|| {
                    revisit.digest.as_ref().and_then(|digest| {
                        by_digest.get(&key_hash(&[digest])).filter(|at| {
                            doc_at(at).payload_digest.as_deref() == Some(digest.as_str())
                        })
                    })
                })
                .copied();
            let Some((of, oi)) = hit else {
                outcomes[f].pending.push(revisit);
                continue;
            };
            let original = &outcomes[of].docs[oi];
            // A page function that makes nothing (`load`) needs no text. The original was read
            // moments ago; should its record fail now, its own result stands in.
            let made = match std::mem::size_of::<T>() {
                0 => outcomes[of].made[oi].clone(),
                _ => match super::page_text(original) {
                    Ok(text) => page(&revisit.doc, &text),
                    Err(_) => outcomes[of].made[oi].clone(),
                },
            };
            let mut doc = revisit.doc;
            doc.revisit_of = Some(original.key.clone());
            set_revisit_capture(&mut doc, original);
            doc.location = original.location.clone();
            doc.payload_check = original.payload_check;
            doc.title = original.title.clone();
            // Its original's text, bounded by its own capture: the original's date, or this
            // capture when the text has none (as for a revisit resolved inside its file).
            doc.published = match original.published {
                Some(p) if p.source != crate::dates::DateSource::Capture => Some(p),
                _ => crate::dates::publication("", None, doc.date.as_deref()),
            };
            doc.charset = original.charset.clone();
            if opts.keep_html != KeepHtml::None {
                // Held exactly when the original's text is.
                doc.html = original.html.clone();
            }
            let report = &mut outcomes[f].report;
            report.unskip("revisit-unresolved");
            report.documents += 1;
            outcomes[f].orders.push(revisit.order);
            outcomes[f].docs.push(doc);
            outcomes[f].made.push(made);
        }
    }
}

/// The capture key of a revisit: its own URL and date, its digest or else its original's.
pub(crate) fn set_revisit_capture(revisit: &mut Document, original: &Document) {
    let digest = revisit
        .digest()
        .or_else(|| original.digest())
        .map(str::to_string);
    revisit.set_capture_digest(digest.as_deref(), b"");
}

/// One loose page's bytes (what a folder of pages hands on) decoded as the folder reader decodes
/// them, then through every tokenizer, the title, the publication date and the passages' core:
/// the entry point of the `page` fuzz target and its regression tests. The number of terms.
pub fn scan_page(data: &[u8]) -> usize {
    let mut terms = 0;
    super::decode::with_page_text(data, None, None, |html, _| {
        let _ = super::decode::extract_title(html);
        let _ = crate::dates::publication(html, None, None);
        for source in crate::token::TokenSource::ALL {
            source.for_each_term(html, None, |_| terms += 1);
        }
    });
    terms
}

/// Parse WARC (or, with `arc`, ARC) bytes held in memory — plain or gzip, told by the first
/// bytes — decoding every page on this thread. The entry point of the cargo-fuzz targets and
/// their regression tests; it must never panic, whatever the bytes.
pub fn scan_bytes(data: &[u8], arc: bool) -> FileReport {
    let path = Path::new("<memory>");
    let progress = Progress::new();
    let decode: fn(RawPage) -> Result<Document, String> =
        |page| finish(page, &ReadOptions::default());
    let format = if arc { "arc" } else { "warc" };
    let mut ctx = Ctx::new(path, format, &progress, Sink::Decode(decode));
    let identity = |s: Storage| s;
    let file = ctx.file.clone();
    let container = Container {
        file: &file,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(key: &str) -> Document {
        Document::from_page(key, None, "<p>page</p>")
    }

    #[test]
    fn items_that_arrive_in_any_order_go_on_in_their_numbers_order() {
        use rand::seq::SliceRandom;
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(3);
        for n in [0usize, 1, 2, 7, 500] {
            let mut arrivals: Vec<usize> = (0..n).collect();
            arrivals.shuffle(&mut rng);
            let mut in_order = InOrder::default();
            let mut out = Vec::new();
            for seq in arrivals {
                in_order.put(seq, seq * 10, |item| out.push(item));
            }
            assert_eq!(out, (0..n).map(|i| i * 10).collect::<Vec<_>>());
            assert!(in_order.waiting.is_empty());
        }
    }

    #[test]
    fn an_outbox_sends_what_it_holds_when_full_and_when_dropped() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut outbox = Outbox::new(tx);
        for i in 0..OUTBOX_PAGES + 3 {
            outbox.put(i);
        }
        assert_eq!(
            rx.try_recv().unwrap(),
            (0..OUTBOX_PAGES).collect::<Vec<_>>()
        );
        assert!(rx.try_recv().is_err());
        drop(outbox);
        assert_eq!(
            rx.try_recv().unwrap(),
            (OUTBOX_PAGES..OUTBOX_PAGES + 3).collect::<Vec<_>>()
        );
    }

    /// The keys, lengths and titles of the documents `read_file` gives for `path`.
    fn read_keys(path: &Path) -> Vec<(String, u64, Option<String>)> {
        let mut out = Vec::new();
        let progress = Progress::new();
        read_file(path, &ReadOptions::default(), &progress, &mut |d| {
            out.push((
                d.key.to_string(),
                d.location.length,
                d.title.map(|t| t.to_string()),
            ));
        })
        .unwrap();
        out
    }

    #[test]
    fn pages_come_in_record_order_from_any_thread_and_any_pool() {
        // More pages than a batch, of sizes far apart, so that decoding finishes out of order.
        let dir = tempfile::tempdir().unwrap();
        let mut expected = Vec::new();
        for i in 0..300 {
            let key = format!("p{i:03}.html");
            let body = "words of the story ".repeat(if i % 7 == 0 { 4000 } else { 1 + i % 5 });
            let html = format!("<html><title>t{i}</title><body><p>{body}</p></body></html>");
            std::fs::write(dir.path().join(&key), &html).unwrap();
            expected.push((key, html.len() as u64, Some(format!("t{i}"))));
        }
        assert_eq!(read_keys(dir.path()), expected);
        // Taken on a thread of another pool (the pages are decoded on the global one).
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(
                pool.install(|| read_keys(dir.path())),
                expected,
                "{threads}"
            );
        }
    }

    #[test]
    fn a_page_is_read_whole_whatever_size_its_listing_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.html");
        for len in [0usize, 1, 4095, 4096, 70_000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            for listed in [0, len as u64 / 2, len as u64, len as u64 + 10, 1 << 20] {
                let read = Reused::read(&path, listed).unwrap();
                assert_eq!(read.bytes(), &bytes[..], "{len} listed as {listed}");
            }
        }
        // A listed size past the page-size limit takes no more room than the limit.
        assert_eq!(Reused::read(&path, u64::MAX).unwrap().bytes().len(), 70_000);
        // A page past the limit (sparse: no disk used) is refused, whatever its listing said.
        let big = dir.path().join("big.html");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(super::super::block::MAX_PAGE + 1)
            .unwrap();
        for listed in [0, 10, super::super::block::MAX_PAGE + 1] {
            let e = Reused::read(&big, listed).err().unwrap();
            assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        }
        assert!(Reused::read(&dir.path().join("missing.html"), 10).is_err());
    }

    #[test]
    fn sort_and_retain_orders_and_filters_the_three_vectors_together() {
        let orders = vec![5u64, 1, 4, 0, 3, 2, 6];
        let mut outcome = FileOutcome {
            docs: orders.iter().map(|o| doc(&format!("d{o}"))).collect(),
            made: orders.iter().map(|o| o * 10).collect(),
            orders,
            report: FileReport::default(),
            pending: Vec::new(),
        };
        outcome.sort_and_retain(|d| &*d.key != "d3");
        assert_eq!(outcome.orders, [0, 1, 2, 4, 5, 6]);
        assert_eq!(outcome.made, [0, 10, 20, 40, 50, 60]);
        let keys: Vec<&str> = outcome.docs.iter().map(|d| &*d.key).collect();
        assert_eq!(keys, ["d0", "d1", "d2", "d4", "d5", "d6"]);
    }

    #[test]
    fn chunked_items_join_in_order_at_exact_capacity() {
        for n in [0usize, 1, 15, 16, 17, 1000, CHUNK, CHUNK + 1, 3 * CHUNK + 7] {
            let mut chunked = Chunked::new();
            for i in 0..n {
                chunked.push(i);
            }
            assert!(chunked.chunks.iter().all(|c| c.capacity() <= CHUNK));
            let joined = chunked.into_vec();
            assert_eq!(joined, (0..n).collect::<Vec<_>>());
            assert_eq!(joined.capacity(), n);
        }
    }

    #[test]
    fn apply_permutation_follows_every_cycle() {
        let mut items: Vec<char> = "abcdefgh".chars().collect();
        let mut perm = vec![3usize, 0, 1, 2, 7, 5, 4, 6];
        let want: String = perm.iter().map(|&i| items[i]).collect();
        apply_permutation(&mut perm, |a, b| items.swap(a, b));
        assert_eq!(items.iter().collect::<String>(), want);
        assert!(perm.iter().enumerate().all(|(i, &p)| i == p));
        // Random permutations, as a copy in that order would be.
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for n in [0usize, 1, 2, 3, 10, 257] {
            for _ in 0..20 {
                let mut order: Vec<usize> = (0..n).collect();
                order.shuffle(&mut rng);
                let items: Vec<u64> = (0..n).map(|_| rng.random()).collect();
                let want: Vec<u64> = order.iter().map(|&i| items[i]).collect();
                let mut got = items.clone();
                apply_permutation(&mut order, |a, b| got.swap(a, b));
                assert_eq!(got, want, "n {n}");
            }
        }
    }
}
