//! Archive readers: WARC 1.0/1.1 (plain, gzip per record, gzip whole file), ARC v1/v2, WACZ, a
//! folder of `.html`/`.htm` pages, or a zip of them -> a stream of [`Document`]s.
//!
//! In: paths. Out: [`Document`]s (one per HTML page, see [`decode::HttpHead::is_html_200`])
//! and a [`FileReport`] per input with record counts per WARC type, skips per reason and
//! warnings. This is the "read" stage of ARCHITECTURE.md; the identity of a page follows the
//! field's practice (`WARC-Record-ID`, target URL, capture date, plus file and offset so that the
//! raw page can be read again by [`read_raw`] instead of being kept).
//!
//! Memory stays bounded: a file is streamed record by record, only HTML payloads are kept (and
//! only until they are decoded), a `Content-Length` is never allocated up front.
//!
//! Parallelism: inside a file one thread reads and decompresses while the calling thread decodes
//! batches of pages (charset + title) on the rayon pool; [`load`] reads files in parallel.
//!
//! Why a reader of our own rather than the `warc` or `rust_warc` crates (ARCHITECTURE.md, "Choices
//! measured"): we need recovery from garbage between records, wrong `Content-Length`s, truncated
//! gzip members and absurd lengths, with every good record before and after still loading, and a
//! byte offset per record for re-reading. `rust_warc` stops at the first error and buffers whole
//! bodies; `warc` loses the record after a wrong length, runs on libflate/nom 7 and gives no
//! compressed member offsets. Ours is a plain line/length parser over flate2 (zlib-rs), and it is
//! as fast as decompression allows: measured on this machine (release build, 2 busy cores) on a 100
//! MB `.warc.gz` of 33,000 per-record members (449 MB decompressed, 40 copies of the 2008
//! archive.org sample), `samecore info` used 0.69 s of CPU (about 650 MB/s decompressed, the
//! 650–860 MB/s flate2 alone reaches here; `gzip -dc` needs 1.77 s of CPU for the same file), 0.9 s
//! wall and 20 MB of memory; the uncompressed 449 MB file took 0.57 s wall.

mod arc;
mod block;
pub mod decode;
mod folder;
mod kept;
mod pipeline;
mod raw;
mod record;
mod stream;
mod wacz;
mod warc;

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::document::{Document, RecordLocation};
use crate::progress::Progress;
use crate::{Error, Result};

#[doc(hidden)]
pub use block::{MAX_PAGE, MAX_ZIP_RATIO, RATIO_FLOOR};
pub use pipeline::{PageFn, read_file};
pub use pipeline::{scan_bytes, scan_page};

/// What to keep while reading.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Which decoded pages [`Document::html`] holds (default: all); a page not held is read
    /// again from its record when a pass needs it ([`page_text`]).
    pub keep_html: KeepHtml,
    /// Whether each page's publication date is read while it is decoded
    /// ([`crate::document::Document::published`]; default on). A pass that stores, exports or
    /// shows nothing of pages over time (`samecore run` without `--project`, `--clusters` or
    /// `--json`, `eval`, `sign`) leaves it off: it costs a scan of every page.
    pub publication_dates: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            keep_html: KeepHtml::All,
            publication_dates: true,
        }
    }
}

/// Which decoded pages a collection holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepHtml {
    /// Every page (tests, a CLI run of a detector that is not signed while reading).
    All,
    /// None: a metadata-only collection (`info`, a run signed while reading).
    None,
    /// Only pages whose record cannot be read again cheaply by its offset (see
    /// [`crate::document::Storage::rereads_cheaply`]): the workbench, which reads the others
    /// again when a pass or a view needs them, so a million pages fit in memory.
    Unseekable,
}

impl KeepHtml {
    /// Whether a page stored at `location` is held.
    pub(crate) fn keeps(self, location: &RecordLocation) -> bool {
        match self {
            KeepHtml::All => true,
            KeepHtml::None => false,
            KeepHtml::Unseekable => !location.storage.rereads_cheaply(),
        }
    }
}

/// A bad record or a bad stretch of a file: it was skipped and the rest was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadWarning {
    /// The file.
    pub file: PathBuf,
    /// Byte offset where the problem was found (in the decompressed stream for a gzip file
    /// read as one stream; in the file otherwise).
    pub offset: u64,
    /// What was wrong and what was done about it.
    pub message: String,
}

impl fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at offset {}: {}",
            self.message,
            self.offset,
            self.file.display()
        )
    }
}

/// What reading one input found; `samecore info --json` prints one per line.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileReport {
    /// The input as given.
    pub file: PathBuf,
    /// `warc`, `warc.gz`, `arc`, `arc.gz`, `wacz`, `folder` or `zip`.
    pub format: String,
    /// Records per WARC type (`response`, `request`, `revisit`, `warcinfo`, ...; an ARC file
    /// header counts as `warcinfo`, ARC records as `response`; loose pages as `file`).
    pub records: BTreeMap<String, u64>,
    /// Response records with HTTP status 200 and an HTML media type.
    pub html_responses: u64,
    /// Documents produced (HTML responses with a payload plus resolved revisits).
    pub documents: u64,
    /// Records not turned into documents, per reason (`not-html`, `status-404`, `empty`,
    /// `revisit-unresolved`, `not-http`, `bad-record`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Problems found; the reader went on after each.
    pub warnings: Vec<ReadWarning>,
    /// Bytes of the input read.
    pub bytes: u64,
    /// Wall time spent reading it.
    pub seconds: f64,
}

impl FileReport {
    pub(crate) fn new(file: &Path, format: &str) -> Self {
        FileReport {
            file: file.to_path_buf(),
            format: format.to_string(),
            ..FileReport::default()
        }
    }

    pub(crate) fn count_record(&mut self, kind: &str) {
        *self.records.entry(kind.to_string()).or_default() += 1;
    }

    pub(crate) fn skip(&mut self, reason: &str) {
        *self.skipped.entry(reason.to_string()).or_default() += 1;
    }

    pub(crate) fn unskip(&mut self, reason: &str) {
        if let Some(n) = self.skipped.get_mut(reason) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.skipped.remove(reason);
            }
        }
    }

    pub(crate) fn warn(&mut self, file: &Path, offset: u64, message: impl Into<String>) {
        self.warnings.push(ReadWarning {
            file: file.to_path_buf(),
            offset,
            message: message.into(),
        });
    }
}

/// Everything read from a set of inputs.
#[derive(Debug, Clone, Default)]
pub struct Collection {
    /// Documents sorted by (input order, record offset), or by capture after
    /// [`Collection::into_capture_order`]; `DocId(i)` is `docs[i]`.
    pub docs: Vec<Document>,
    /// One report per input, in input order.
    pub reports: Vec<FileReport>,
}

impl Collection {
    /// Refuse a collection without a page when `inputs` were given, naming what each input
    /// holds (records, what was skipped, warnings): nothing can be worked on, and `samecore
    /// info` says more.
    pub fn check_pages(&self, inputs: &[PathBuf]) -> Result<()> {
        if !self.docs.is_empty() || inputs.is_empty() {
            return Ok(());
        }
        let what: Vec<String> = self
            .reports
            .iter()
            .map(|r| {
                let records: u64 = r.records.values().sum();
                let skipped: Vec<String> = r
                    .skipped
                    .iter()
                    .map(|(why, n)| format!("{n} {why}"))
                    .collect();
                format!(
                    "{} ({}): {records} record(s){}{}",
                    r.file.display(),
                    r.format,
                    if skipped.is_empty() {
                        String::new()
                    } else {
                        format!(", skipped {}", skipped.join(", "))
                    },
                    if r.warnings.is_empty() {
                        String::new()
                    } else {
                        format!(", {} warning(s)", r.warnings.len())
                    }
                )
            })
            .collect();
        Err(crate::Error::InvalidParameter(format!(
            "no HTML page to work on in {}; `samecore info` says what is in them",
            what.join("; ")
        )))
    }

    /// The documents in capture order (by [`Document::capture`]: capture time, URL, digest;
    /// a loose page by its path), with what was made of each page while reading moved along:
    /// the order, and so every document id, cluster number and randomized processing order
    /// after it, is then the same whatever order the archives were given in. The reports keep
    /// input order.
    pub fn into_capture_order<T>(self, made: Vec<T>) -> (Collection, Vec<T>) {
        assert_eq!(made.len(), self.docs.len(), "one made value per page");
        // The pages are reordered where they are (a million pages' documents are a few
        // hundred MB: a sorted copy beside them was the peak of a run's memory).
        let (mut docs, mut made) = (self.docs, made);
        // Compared piece by piece, not written out: a million pages' written keys were ~200 MB.
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.par_sort_by(|&a, &b| docs[a].cmp_capture(&docs[b]));
        pipeline::apply_permutation(&mut order, |a, b| {
            docs.swap(a, b);
            made.swap(a, b);
        });
        (
            Collection {
                docs,
                reports: self.reports,
            },
            made,
        )
    }
}

/// The kinds of input samecore reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// WARC, uncompressed.
    Warc,
    /// WARC, gzip (per record or whole file).
    WarcGz,
    /// ARC, uncompressed.
    Arc,
    /// ARC, gzip.
    ArcGz,
    /// WACZ.
    Wacz,
    /// A folder of pages.
    Folder,
    /// A zip of pages.
    ZipPages,
}

impl Format {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Warc => "warc",
            Format::WarcGz => "warc.gz",
            Format::Arc => "arc",
            Format::ArcGz => "arc.gz",
            Format::Wacz => "wacz",
            Format::Folder => "folder",
            Format::ZipPages => "zip",
        }
    }
}

/// Whether a file name is an archive's (`.warc`, `.arc`, either gzipped, `.wacz`).
fn is_archive_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [".warc", ".warc.gz", ".arc", ".arc.gz", ".wacz"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// The inputs with every folder that holds archive files (a crawl's folder of WARCs) replaced by
/// those files in name order; other folders stay folders of loose pages. Without this a folder
/// of WARCs read as loose pages and gave no page at all.
pub fn expand_folders_of_archives(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut archives: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| Error::io(e, path))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .is_some_and(|n| is_archive_name(&n.to_string_lossy()))
            })
            .collect();
        if archives.is_empty() {
            out.push(path.clone());
        } else {
            archives.sort();
            out.extend(archives);
        }
    }
    Ok(out)
}

/// Tell what an input is from what it holds (its first 64 KB, decompressed), not its name: an
/// ARC called `.warc.gz` is an ARC. The name counts once: a file called `.warc` whose first
/// bytes are damaged is read as a WARC when a WARC record starts within those 64 KB.
pub(crate) fn detect(path: &Path) -> Result<Format> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(e, path))?;
    if meta.is_dir() {
        return Ok(Format::Folder);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mut head = [0u8; 64];
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(e, path))?;
    let n = read_up_to(&mut file, &mut head).map_err(|e| Error::io(e, path))?;
    let head = &head[..n];
    if head.is_empty() {
        return Err(not_an_archive(path, "empty file"));
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Ok(
            if name.ends_with(".wacz") || zip_has(path, "datapackage.json") {
                Format::Wacz
            } else {
                Format::ZipPages
            },
        );
    }
    // What the file holds decides, not its name: the first 64 KB (decompressed) are looked at.
    let gzip = head.starts_with(&[0x1f, 0x8b]);
    let mut inner = vec![0u8; SNIFF];
    let file = std::fs::File::open(path).map_err(|e| Error::io(e, path))?;
    // What could be read: a damaged gzip member further on does not hide the records before it.
    let n = if gzip {
        read_prefix(&mut flate2::read::MultiGzDecoder::new(file), &mut inner)
    } else {
        read_prefix(&mut { file }, &mut inner)
    };
    inner.truncate(n);
    let start = inner.trim_ascii_start();
    let is_arc = start.starts_with(b"filedesc:") || arc::parse_arc_line(start).is_some();
    // A WARC at the start, or (a file named as one) a WARC record after some garbage, which
    // the reader skips with a warning.
    let is_warc = warc::is_warc_line(start)
        || ((name.ends_with(".warc") || name.ends_with(".warc.gz"))
            && memchr::memmem::find(&inner, b"\nWARC/1.").is_some());
    match (is_warc, is_arc, gzip) {
        (true, _, false) => Ok(Format::Warc),
        (true, _, true) => Ok(Format::WarcGz),
        (false, true, false) => Ok(Format::Arc),
        (false, true, true) => Ok(Format::ArcGz),
        _ => Err(not_an_archive(
            path,
            &format!(
                "{}, not an archive samecore can read (expected WARC, ARC, WACZ, a zip or a \
                 folder of pages)",
                what_it_holds(start, gzip)
            ),
        )),
    }
}

/// `Ok` when `path` is something samecore reads (a folder, or a file whose content is WARC,
/// ARC, WACZ or a zip); else the error that names what it holds, as reading it would give.
pub fn check_input(path: &Path) -> Result<()> {
    detect(path).map(|_| ())
}

/// Bytes of a file (decompressed) that [`detect`] looks at.
const SNIFF: usize = 64 * 1024;

/// Whether the first 4 KB of `start` read as text: valid UTF-8 (the cut may fall inside a
/// character) without control characters other than white space.
fn looks_like_text(start: &[u8]) -> bool {
    let cut = &start[..start.len().min(4096)];
    let valid = match std::str::from_utf8(cut) {
        Ok(t) => Some(t),
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&cut[..e.valid_up_to()]).ok(),
        Err(_) => None,
    };
    valid.is_some_and(|t| {
        t.chars()
            .all(|c| !c.is_control() || c.is_ascii_whitespace())
    })
}

/// What a file that is not an archive seems to hold, by its first bytes, for the message.
fn what_it_holds(start: &[u8], gzip: bool) -> String {
    let lower: Vec<u8> = start.iter().take(512).map(u8::to_ascii_lowercase).collect();
    let kind = if start.starts_with(b"%PDF") {
        "a PDF document"
    } else if start.starts_with(b"\x89PNG") || start.starts_with(b"GIF8") {
        "an image"
    } else if start.starts_with(&[0xff, 0xd8, 0xff]) {
        "a JPEG image"
    } else if lower.starts_with(b"<!doctype html")
        || lower.starts_with(b"<html")
        || memchr::memmem::find(&lower, b"<html").is_some()
    {
        "an HTML page (to read loose pages, open the folder that holds them)"
    } else if start.is_empty() {
        "nothing"
    } else if looks_like_text(start) {
        "text"
    } else {
        "binary data"
    };
    if gzip {
        format!("gzip-compressed {kind}")
    } else {
        kind.to_string()
    }
}

fn zip_has(path: &Path, entry: &str) -> bool {
    std::fs::File::open(path)
        .ok()
        .and_then(|f| zip::ZipArchive::new(f).ok())
        .is_some_and(|z| z.index_for_name(entry).is_some())
}

pub(crate) fn not_an_archive(path: &Path, reason: &str) -> Error {
    Error::NotAnArchive {
        reason: reason.to_string(),
        path: path.to_path_buf(),
    }
}

/// Fill `buf` from `reader` as far as it goes, stopping at the end or at an error; the bytes
/// read.
fn read_prefix(reader: &mut impl Read, buf: &mut [u8]) -> usize {
    fill(reader, buf, true).unwrap_or(0)
}

/// Fill as much of `buf` as the reader has; returns how much was read.
pub(crate) fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    fill(reader, buf, false)
}

/// Fill `buf` from `reader` until it is full or the reader ends; at an error, what was read so
/// far (`keep_on_error`) or the error.
fn fill(reader: &mut impl Read, buf: &mut [u8], keep_on_error: bool) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) if keep_on_error => break,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Read several inputs, files in parallel; documents come sorted by (input order, offset) and
/// revisits left unresolved inside their own file are resolved against the other inputs.
pub fn load(paths: &[PathBuf], opts: &ReadOptions, progress: &Progress) -> Result<Collection> {
    load_with(paths, opts, progress, &|_, _| ()).map(|(collection, _)| collection)
}

/// [`load`], applying `page` to every page while its decoded text is in hand, in parallel:
/// what a pass needs of each page is made in the reading pass, so a collection read with
/// `keep_html: false` holds no page text and the archive is decompressed once. Returns the
/// collection and, parallel to its documents, what `page` made of each (a revisit gets a copy
/// of what was made of the capture it repeats).
pub fn load_with<T: Send + Clone>(
    paths: &[PathBuf],
    opts: &ReadOptions,
    progress: &Progress,
    page: &PageFn<'_, T>,
) -> Result<(Collection, Vec<T>)> {
    load_with_unresolved(paths, opts, progress, page).map(|(c, made, _)| (c, made))
}

/// A revisit left unresolved by the inputs read together: what would find its original in
/// other inputs (the record it refers to, else the capture, else its payload digest, tried in
/// that order), and which input it is in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnresolvedRevisit {
    /// Its input's position among the inputs given (folders of archives expanded).
    pub input: usize,
    /// `WARC-Refers-To`.
    pub refers_to: Option<String>,
    /// `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`.
    pub refers_to_capture: Option<(String, String)>,
    /// `WARC-Payload-Digest`.
    pub digest: Option<String>,
}

/// [`load_with`], and the revisits it could not resolve: what lets a reader of the inputs one
/// at a time (a Spark task per file) find the inputs that hold their originals.
pub fn load_with_unresolved<T: Send + Clone>(
    paths: &[PathBuf],
    opts: &ReadOptions,
    progress: &Progress,
    page: &PageFn<'_, T>,
) -> Result<(Collection, Vec<T>, Vec<UnresolvedRevisit>)> {
    let expanded = expand_folders_of_archives(paths)?;
    let paths = expanded.as_slice();
    // Every input is checked before any is read: a bad one is reported at once.
    let formats = paths
        .iter()
        .map(|p| detect(p))
        .collect::<Result<Vec<_>>>()?;
    let total = paths
        .iter()
        .zip(&formats)
        .map(|(p, f)| pipeline::input_size(p, *f))
        .sum();
    let stage = match paths {
        [one] => format!(
            "reading {}",
            one.file_name().unwrap_or(one.as_os_str()).to_string_lossy()
        ),
        _ => format!("reading {} archives", paths.len()),
    };
    progress.stage(&stage, total);
    let read = |(path, format): (&PathBuf, Format)| {
        pipeline::read_file_outcome(path, format, opts, progress, page)
    };
    let outcomes: Vec<Result<pipeline::FileOutcome<T>>> = if rayon::current_thread_index().is_some()
    {
        // Called inside the pool: its threads take the files (one waiting on a thread of its
        // own would be a decoder fewer, and with a pool of one thread, none).
        paths.par_iter().zip(formats).map(read).collect()
    } else if let ([path], [format]) = (paths, formats.as_slice()) {
        // One file: taken on this thread, no thread started for it.
        vec![read((path, *format))]
    } else {
        // Files are taken by as many threads as the pool has, each its own file's reader and
        // taker: none of them is a thread of the pool, which decodes the pages of all.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let slots: Vec<std::sync::Mutex<Option<Result<pipeline::FileOutcome<T>>>>> =
            paths.iter().map(|_| Default::default()).collect();
        std::thread::scope(|scope| {
            for _ in 0..rayon::current_num_threads().clamp(1, paths.len().max(1)) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let (Some(path), Some(&format)) = (paths.get(i), formats.get(i)) else {
                            break;
                        };
                        let outcome = read((path, format));
                        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                    }
                });
            }
        });
        (slots.into_iter())
            .map(|slot| {
                (slot.into_inner().unwrap_or_else(|e| e.into_inner())).expect("every file was read")
            })
            .collect()
    };
    let mut per_file = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        per_file.push(outcome?);
    }
    pipeline::resolve_across_files(&mut per_file, opts, page);
    let unresolved = (per_file.iter().enumerate())
        .flat_map(|(input, o)| {
            o.pending.iter().map(move |r| UnresolvedRevisit {
                input,
                refers_to: r.refers_to.clone(),
                refers_to_capture: r.refers_to_capture.clone(),
                digest: r.digest.clone(),
            })
        })
        .collect();
    let mut collection = Collection::default();
    let mut made = Vec::new();
    // Several files: room for all their pages at once, so that appending them does not grow
    // the collection by doubling (each doubling a copy of every page read so far).
    let pages = per_file.iter().map(|o| o.docs.len()).sum();
    if per_file.len() > 1 {
        collection.docs.reserve_exact(pages);
        made.reserve_exact(pages);
    }
    // Captures seen so far, by a 128-bit hash of the capture key (a clone of every key was
    // ~200 bytes a page at the peak of a read), with room for every page from the start.
    let mut seen: HashSet<u128> = HashSet::with_capacity(pages);
    let single = per_file.len() == 1;
    for mut outcome in per_file {
        let mut report = std::mem::take(&mut outcome.report);
        let mut repeated: Option<(u64, u64)> = None;
        outcome.sort_and_retain(|doc| {
            let kept = doc.capture_digest.is_none()
                || seen.insert(xxhash_rust::xxh3::xxh3_128(doc.capture().as_bytes()));
            if !kept {
                let (n, _) = repeated.get_or_insert((0, doc.location.offset));
                *n += 1;
                report.documents = report.documents.saturating_sub(1);
                report.skip("repeated-capture");
            }
            kept
        });
        // One file's vectors become the collection's: it is never copied.
        if single {
            collection.docs = outcome.docs;
            made = outcome.made;
        } else {
            collection.docs.append(&mut outcome.docs);
            made.append(&mut outcome.made);
        }
        if let Some((n, first)) = repeated {
            let file = report.file.clone();
            report.warn(
                &file,
                first,
                format!(
                    "{n} page(s) repeat a capture already read (same URL, capture time and \
                     payload: the same archive given twice, a copy, or overlapping archives); \
                     each is kept once"
                ),
            );
        }
        collection.reports.push(report);
    }
    Ok((collection, made, unresolved))
}

/// A page's decoded text: the one the collection holds, else its record read again and
/// decoded with the encoding the first reading chose (`doc.charset`, named after BOM
/// sniffing, so the same text, without detecting again; a revisit resolved in another file
/// reads its original's record as its original's charset). An encoding that has no label of
/// its own (`replacement`) is chosen again as the first reading did. `tests/archive.rs`
/// checks the text equal on every archive of the project, alone and together.
pub fn page_text(doc: &Document) -> Result<String> {
    if doc.html.is_held() {
        return Ok(doc.html.text());
    }
    let (head, bytes) = read_payload(&doc.location)?;
    if doc.payload_check != 0 && crate::document::payload_hash(&bytes) != doc.payload_check {
        return Err(Error::ArchiveChanged {
            path: doc.location.file.to_path_buf(),
            offset: doc.location.offset,
            key: doc.key.to_string(),
        });
    }
    let charset = match encoding_rs::Encoding::for_label(doc.charset.as_bytes()) {
        Some(_) => Some(doc.charset.to_string()),
        None => head.and_then(|h| h.charset),
    };
    let tld = decode::tld_of(doc.url.as_deref());
    Ok(decode::decode_page(bytes, charset.as_deref(), tld.as_deref()).0)
}

/// `f` of every document and its text ([`page_text`]), in parallel, in document order, with
/// `progress` advanced per page and a cancel honoured between pages: how every detector's
/// preparation reads a collection, held or not. A record that cannot be read again (its
/// archive moved or changed) fails the pass with the file named.
pub fn map_pages<T: Send>(
    docs: &[Document],
    progress: &Progress,
    f: impl Fn(&Document, &str) -> T + Sync,
) -> Result<Vec<T>> {
    docs.par_iter()
        .map(|d| {
            progress.check()?;
            let made = f(d, &page_text(d)?);
            progress.advance(1);
            Ok(made)
        })
        .collect()
}

/// Re-read the raw HTTP payload bytes of a document's record (the page as the server sent it,
/// HTTP headers removed; the whole file for a loose page).
pub fn read_raw(location: &RecordLocation) -> Result<Vec<u8>> {
    read_payload(location).map(|(_, bytes)| bytes)
}

/// The `<title>` of the page at `location`, read again from its record and decoded as a read
/// would (`url` gives the charset detector its country domain).
pub fn title_at(location: &RecordLocation, url: Option<&str>) -> Result<Option<String>> {
    let (head, bytes) = read_payload(location)?;
    let tld = decode::tld_of(url);
    let charset = head.and_then(|h| h.charset);
    let (html, _) = decode::decode_page(bytes, charset.as_deref(), tld.as_deref());
    Ok(decode::extract_title(&html))
}

/// The decoded page at `location`, read again from its record and decoded as a read would.
pub fn text_at(location: &RecordLocation, url: Option<&str>) -> Result<String> {
    let (head, bytes) = read_payload(location)?;
    let tld = decode::tld_of(url);
    let charset = head.and_then(|h| h.charset);
    Ok(decode::decode_page(bytes, charset.as_deref(), tld.as_deref()).0)
}

/// The HTTP head (when the record has one) and payload of the record at `location`.
pub(crate) fn read_payload(
    location: &RecordLocation,
) -> Result<(Option<decode::HttpHead>, Vec<u8>)> {
    raw::read_payload(location)
}
