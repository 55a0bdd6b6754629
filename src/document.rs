//! Documents: what an archive reader produces and every later stage consumes.
//!
//! A [`Document`] is one HTML page: its identity the way the web-archiving field names it
//! (`WARC-Record-ID`, target URL, capture date), where its record lives (file, byte offset,
//! length — the raw page is re-read on demand through [`crate::archive::read_raw`], never kept in
//! a project), its site by two rules, its title and the decoded page.
//!
//! Sites: [`henzinger_site`] is the rule of henzinger §3 ("the domain name if it has at most one
//! dot, else the domain name minus the string before the first dot"), [`registrable_domain`] is
//! the public-suffix-list rule most tools use today.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

/// Index of a document inside one loaded [`crate::archive::Collection`]. Stable for a given
/// set of input files: collections are sorted by (input order, byte offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DocId(pub u32);

impl DocId {
    /// The index as `usize`, for slices.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How the bytes of a record are stored in its file, so it can be read again by offset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Storage {
    /// Plain bytes at `offset..offset+length` of the file.
    Plain,
    /// One gzip member that starts at `offset` (compressed length `length`).
    GzipMember,
    /// A gzip stream covering the whole file; `offset`/`length` are in the *decompressed* stream.
    GzipWhole,
    /// An entry of a zip file (WACZ or zip of pages), boxed: a [`Storage`] is 16 bytes, not
    /// 32, in every document. Written as the struct variant it replaced.
    ZipEntry(Box<ZipEntry>),
}

/// Where a record is inside a zip file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZipEntry {
    /// Name of the entry inside the zip.
    pub entry: String,
    /// How the record is stored inside that entry (offsets are relative to the entry's data).
    pub inner: Storage,
}

impl Storage {
    /// The record stored as `inner` inside the zip entry `entry`.
    pub fn zip_entry(entry: String, inner: Storage) -> Storage {
        Storage::ZipEntry(Box::new(ZipEntry { entry, inner }))
    }

    /// Whether one record is read again cheaply from its offset: plain bytes or a gzip member
    /// of its own. A whole-file gzip stream must be inflated from its start and a zip entry
    /// found in the zip's directory (and inflated from the entry's start) for every record.
    pub fn rereads_cheaply(&self) -> bool {
        matches!(self, Storage::Plain | Storage::GzipMember)
    }
}

/// Where a document's record lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordLocation {
    /// The file that was opened, shared by every record of the file (a path per page was ~90
    /// bytes at a million pages).
    pub file: Arc<Path>,
    /// Byte offset of the record (see [`Storage`] for what it is relative to).
    pub offset: u64,
    /// Length in bytes of the record (compressed length for a gzip member).
    pub length: u64,
    /// How the record is stored.
    pub storage: Storage,
}

/// How many distinct strings [`shared`] keeps before it starts again.
const SHARED_MAX: usize = 1 << 16;

/// One copy, shared, of a short string that many pages repeat: a site, a media type, a
/// charset. Held per page, these were ~72 bytes of small allocations a page (~80 MB at a
/// million pages; docs/benchmarks.md, "Memory"); shared, each page holds a pointer. The table
/// keeps at most [`SHARED_MAX`] strings and is emptied when full, so a crawl of a million
/// distinct hosts costs a bounded table, its pages then holding copies of their own as before.
pub fn shared(s: &str) -> Arc<str> {
    static TABLE: LazyLock<Mutex<HashSet<Arc<str>>>> = LazyLock::new(Default::default);
    let mut table = TABLE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(a) = table.get(s) {
        return a.clone();
    }
    if table.len() >= SHARED_MAX {
        table.clear();
    }
    let a: Arc<str> = Arc::from(s);
    table.insert(a.clone());
    a
}

/// The two site rules of a page's host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Site {
    /// henzinger §3's rule, e.g. `cs.berkeley.edu` for `www.cs.berkeley.edu` ([`shared`]).
    pub henzinger: Arc<str>,
    /// Registrable domain (public suffix + 1), e.g. `berkeley.edu` ([`shared`]).
    pub registrable: Arc<str>,
}

impl Site {
    /// The site a person is shown: henzinger's, else the registrable one (a page without a URL
    /// has only the site its links point to).
    pub fn shown(&self) -> &str {
        if self.henzinger.is_empty() {
            &self.registrable
        } else {
            &self.henzinger
        }
    }

    /// The site of a page read without a URL (a folder or zip of pages): the registrable domain
    /// its links point to ([`link_site`]), empty when none; henzinger's rule is left to the
    /// paper's analyses.
    pub fn of_links(html: &str) -> Site {
        Site {
            henzinger: shared(""),
            registrable: shared(&link_site(html).unwrap_or_default()),
        }
    }

    /// Both site rules for a URL; empty strings when the URL has no host.
    pub fn of_url(url: &str) -> Site {
        match host_of(url) {
            Some(host) => Site {
                henzinger: shared(&henzinger_site(&host)),
                registrable: shared(&registrable_domain(&host)),
            },
            None => Site::default(),
        }
    }
}

/// The registrable domain most absolute `href`s of `html` point to, when any does (ties go to
/// the name first in order, so the answer does not depend on link order): the site of a page
/// read without a URL (a folder or zip of pages), for the site frame, exports and strata.
pub fn link_site(html: &str) -> Option<String> {
    // Links are counted by host as written (a slice of the page), and each distinct host is
    // lowercased and mapped to its registrable domain once: goldset-dev's 1,117 pages hold
    // 119,489 absolute links but 15,996 hosts counted page by page. A string, a lowercased copy
    // and a public-suffix lookup per link cost `run` on goldset-dev 8.8 % more instructions
    // (1.953 G against 1.782 G, callgrind).
    //
    // Three links in four (goldset-dev) point to the host of the link before them: such a link
    // is counted to that host by comparing its bytes, not by classing them and hashing the host
    // again (the host ends where the next byte is not a host byte, so it is the same slice).
    let bytes = html.as_bytes();
    let mut by_host: HashMap<&str, u32, HostHashed> = HashMap::default();
    let (mut last, mut last_count) = ("", 0u32);
    let finder = memchr::memmem::Finder::new(b"href");
    for at in finder.find_iter(bytes) {
        let Some(eq) = skip_white(html, at + 4).filter(|&i| bytes[i] == b'=') else {
            continue;
        };
        let Some(mut from) = skip_white(html, eq + 1) else {
            continue;
        };
        while matches!(bytes.get(from), Some(b'"' | b'\'')) {
            from += 1;
        }
        let rest = &bytes[from..];
        let scheme = |s: &[u8]| rest.len() >= s.len() && rest[..s.len()].eq_ignore_ascii_case(s);
        let skip = if scheme(b"https://") {
            8
        } else if scheme(b"http://") {
            7
        } else {
            continue;
        };
        // The host: ASCII letters, digits, dots and hyphens (so a slice of the page at
        // character boundaries), by a byte table (testing the classes byte by byte was 2 % of
        // a goldset-dev run's instructions).
        let tail = &rest[skip..];
        if !last.is_empty()
            && tail.starts_with(last.as_bytes())
            && tail
                .get(last.len())
                .is_none_or(|&b| HOST_BYTE[usize::from(b)] == 0)
        {
            last_count += 1;
            continue;
        }
        let (mut len, mut dot) = (0, false);
        while let Some(&b) = tail.get(len) {
            match HOST_BYTE[usize::from(b)] {
                0 => break,
                2 => dot = true,
                _ => {}
            }
            len += 1;
        }
        if dot {
            if last_count > 0 {
                *by_host.entry(last).or_default() += last_count;
            }
            (last, last_count) = (&html[from + skip..from + skip + len], 1);
        }
    }
    if last_count > 0 {
        *by_host.entry(last).or_default() += last_count;
    }
    let mut counts: HashMap<String, u32, HostHashed> = HashMap::default();
    for (host, n) in by_host {
        *counts
            .entry(registrable_domain(&host.to_ascii_lowercase()))
            .or_default() += n;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(site, _)| site)
}

/// Maps keyed by a page's link hosts, hashed by xxh3 (std's SipHash of each host was 1.7 % of
/// a goldset-dev run's instructions, callgrind). Which site wins does not depend on the hash:
/// ties go by name.
type HostHashed = std::hash::BuildHasherDefault<HostHasher>;

/// The [`std::hash::Hasher`] of [`HostHashed`]: each write is hashed with the hash so far as
/// the seed.
#[derive(Debug, Default, Clone, Copy)]
struct HostHasher(u64);

impl std::hash::Hasher for HostHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.0);
    }

    /// A `str` key ends its hash with one byte (0xff) after its bytes: folded in here, not by a
    /// second XXH3 (half of the 271 k writes of a goldset-dev run). The same byte after every
    /// key flips the same bits of every hash, so keys spread as before.
    fn write_u8(&mut self, i: u8) {
        self.0 ^= u64::from(i);
    }
}

/// For [`link_site`]: 1 for an ASCII letter, digit or hyphen, 2 for a dot, else 0.
const HOST_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c == b'.' {
            2
        } else if c.is_ascii_alphanumeric() || c == b'-' {
            1
        } else {
            0
        };
        b += 1;
    }
    table
};

/// Where `html[from..]` starts once white space (as `str::trim_start` has it) is skipped;
/// `None` at the end of the page. `from` is a character boundary.
fn skip_white(html: &str, from: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    let mut i = from;
    // `char::is_whitespace` in ASCII: tab, line feed, vertical tab, form feed, carriage
    // return, space.
    while bytes
        .get(i)
        .is_some_and(|b| matches!(b, b'\t'..=b'\r' | b' '))
    {
        i += 1;
    }
    match bytes.get(i) {
        None => None,
        Some(&b) if b < 0x80 => Some(i),
        // Unicode white space is rare in markup: the slow way.
        Some(_) => {
            let rest = html[i..].trim_start();
            (!rest.is_empty()).then(|| html.len() - rest.len())
        }
    }
}

/// Lowercased host of a URL, without port or credentials.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    let host = parsed
        .host_str()?
        .trim_end_matches('.')
        .to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// henzinger §3: "the domain name of the page if the domain name has at most one dot ... it is
/// the domain name minus the string before the first dot, if the domain name has two or more dots".
pub fn henzinger_site(host: &str) -> String {
    let host = host.trim_end_matches('.');
    if host.matches('.').count() >= 2 {
        match host.split_once('.') {
            Some((_, rest)) => rest.to_string(),
            None => host.to_string(),
        }
    } else {
        host.to_string()
    }
}

/// The registrable domain by the public suffix list (`news.bbc.co.uk` -> `bbc.co.uk`); the host
/// itself when it has none (an IP address, `localhost`).
pub fn registrable_domain(host: &str) -> String {
    let host = host.trim_end_matches('.');
    match psl::domain_str(host) {
        Some(domain) => domain.to_string(),
        None => host.to_string(),
    }
}

/// Where a document's `WARC-Record-ID` is held.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum RecordId {
    /// The record has none.
    #[default]
    Absent,
    /// It is the document's key.
    Key,
    /// It differs from the key.
    Other(Box<str>),
}

/// One HTML page read from an archive.
///
/// Its strings are `Box<str>`, not `String`: a page holds twelve, at 16 bytes each instead of
/// 24 (about 100 MB at a million pages, where the documents are most of what a run holds;
/// docs/benchmarks.md, "Common signatures").
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    /// The key a person and the CLI's TSV files use: the `WARC-Record-ID` for WARC, the ARC's
    /// `URL date` pair for ARC, the path relative to the input folder (or zip) for loose pages.
    pub key: Box<str>,
    /// Where the record lives.
    pub location: RecordLocation,
    /// `WARC-Record-ID`, when the archive has one: [`Document::record_id`]. For a WARC it is
    /// the key, and not held twice (~70 bytes a page).
    pub(crate) record_id: RecordId,
    /// Target URL of the capture (`WARC-Target-URI`, ARC URL); none for loose files.
    pub url: Option<Box<str>>,
    /// Capture date as written in the archive (`WARC-Date`, ARC 14-digit date), ISO 8601 when
    /// it could be normalised.
    pub date: Option<Box<str>>,
    /// HTTP status of the response (200 for loose files).
    pub status: Option<u16>,
    /// `Content-Type` of the HTTP response (media type only, lowercased; [`shared`]).
    pub content_type: Option<Arc<str>>,
    /// `WARC-Payload-Digest`, when present.
    pub payload_digest: Option<Box<str>>,
    /// Site of the URL by both rules.
    pub site: Site,
    /// `<title>` of the page (or the WACZ `pages.jsonl` title), whitespace-collapsed.
    pub title: Option<Box<str>>,
    /// The charset the page was decoded with (`utf-8`, `windows-1252`, ...; [`shared`]).
    pub charset: Arc<str>,
    /// Gold cluster: the first-level sub-folder name for folder/zip input, else from a gold file.
    pub gold: Option<Box<str>>,
    /// For a page whose capture was recorded as a revisit: the key of the capture it repeats.
    pub revisit_of: Option<Box<str>>,
    /// The digest this page's capture key carries ([`Document::capture`]) when it is not the
    /// record's own `payload_digest`: computed from the payload when the record had none, or
    /// a revisit's original's; `Some("")` when it is `payload_digest`; `None` until the page
    /// is decoded. The key itself (~150 bytes: timestamp, URL and digest, all held in other
    /// fields) is written when asked for, not held for every page.
    #[serde(default)]
    pub capture_digest: Option<Box<str>>,
    /// XXH3-64 of the payload the page was first decoded from (0: unknown): a page read again
    /// from its record is checked against it, so an archive changed on disk since it was read
    /// is an error naming the file, not another page's text under this page's name
    /// ([`crate::archive::page_text`]).
    #[serde(default)]
    pub payload_check: u64,
    /// When the page says it was published, and where it says so ([`crate::dates`], [`crate::calendar`]); the
    /// capture time (source `capture`) when it says nothing, `None` only without either.
    /// A revisit's is read from its original's text.
    #[serde(default)]
    pub published: Option<crate::calendar::Published>,
    /// The decoded page (markup included), kept compressed. Empty in metadata-only collections.
    pub html: PageText,
}

/// A decoded page as the collection keeps it: LZ4-compressed (the block format of `lz4_flex`),
/// shared between a capture and its revisits, and decompressed on each pass that reads it; or
/// not held at all (the default), when the page is read again from its record on demand
/// ([`crate::archive::page_text`]).
///
/// Why: every detector pass, the word statistics and the pair view read pages, but they read
/// them one at a time, while a plain `String` per page kept the whole archive's text in memory
/// for the life of the workbench (3.7 GB for the 100k-page generated archive). LZ4 shrinks HTML
/// several-fold and decompresses faster than the tokenizers read, so a pass costs little more.
/// The figures are in docs/benchmarks.md (`samecore info`/`run`, `cargo bench --bench workbench`).
#[derive(Clone, Default)]
pub struct PageText {
    compressed: Option<Arc<[u8]>>,
    len: usize,
}

impl PageText {
    /// Compress `text`.
    pub fn new(text: &str) -> PageText {
        if text.is_empty() {
            return PageText {
                compressed: Some(Arc::from(&[][..])),
                len: 0,
            };
        }
        PageText {
            compressed: Some(lz4_flex::block::compress(text.as_bytes()).into()),
            len: text.len(),
        }
    }

    /// The page's text, decompressed.
    pub fn text(&self) -> String {
        let Some(compressed) = &self.compressed else {
            return String::new();
        };
        // The bytes were compressed from a `str` by `new`, so both steps succeed; a failure
        // would be a bug, shown as an empty page rather than a crash of the workbench.
        let bytes = lz4_flex::block::decompress(compressed, self.len).unwrap_or_default();
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Length of the text in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the page has no text (or was not kept).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the text is held (an empty page's included); a page not held reads as empty.
    pub fn is_held(&self) -> bool {
        self.compressed.is_some()
    }

    /// Bytes held in memory for this page (shared with revisits of the same capture).
    pub fn stored_bytes(&self) -> usize {
        self.compressed.as_ref().map_or(0, |c| c.len())
    }
}

impl From<String> for PageText {
    fn from(text: String) -> PageText {
        PageText::new(&text)
    }
}

impl From<&str> for PageText {
    fn from(text: &str) -> PageText {
        PageText::new(text)
    }
}

impl PartialEq for PageText {
    fn eq(&self, other: &PageText) -> bool {
        self.len == other.len && self.text() == other.text()
    }
}

impl std::fmt::Debug for PageText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PageText({} bytes, {} stored)",
            self.len,
            self.stored_bytes()
        )
    }
}

impl Serialize for PageText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for PageText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PageText, D::Error> {
        String::deserialize(d).map(PageText::from)
    }
}

impl Document {
    /// A page that did not come from an archive record (tests, pages fed from elsewhere): status
    /// 200, UTF-8, its site from `url` (else from its links), stored as a plain file named by
    /// `key`.
    pub fn from_page(key: &str, url: Option<&str>, html: impl AsRef<str>) -> Document {
        Document {
            key: key.into(),
            location: RecordLocation {
                file: Path::new(key).into(),
                offset: 0,
                length: 0,
                storage: Storage::Plain,
            },
            record_id: RecordId::Absent,
            url: url.map(Into::into),
            date: None,
            status: Some(200),
            content_type: Some("text/html".into()),
            payload_digest: None,
            site: url.map_or_else(|| Site::of_links(html.as_ref()), Site::of_url),
            title: None,
            charset: "utf-8".into(),
            gold: None,
            revisit_of: None,
            capture_digest: Some(content_digest(html.as_ref().as_bytes()).into()),
            payload_check: 0,
            published: None,
            html: PageText::new(html.as_ref()),
        }
    }
}

impl Document {
    /// The record's `WARC-Record-ID`, when it has one.
    pub fn record_id(&self) -> Option<&str> {
        match &self.record_id {
            RecordId::Absent => None,
            RecordId::Key => Some(&self.key),
            RecordId::Other(id) => Some(id),
        }
    }

    /// Set the record's `WARC-Record-ID` (held once when it is the key: set the key first).
    pub fn set_record_id(&mut self, id: Option<String>) {
        self.record_id = match id {
            None => RecordId::Absent,
            Some(id) if *id == *self.key => RecordId::Key,
            Some(id) => RecordId::Other(id.into()),
        };
    }

    /// The payload digest the capture key carries: the record's own `WARC-Payload-Digest`, or
    /// the one computed when it had none ([`content_digest`]); none before decoding.
    pub fn digest(&self) -> Option<&str> {
        self.payload_digest
            .as_deref()
            .or(self.capture_digest.as_deref())
            .filter(|d| !d.is_empty())
    }

    /// The capture itself, as [`capture_key`] writes it: what makes this page one page of a
    /// project, whatever file, copy or offset it was read from. Empty until the page is decoded.
    pub fn capture(&self) -> String {
        let digest = match self.capture_digest.as_deref() {
            None => return String::new(),
            Some("") => self.payload_digest.as_deref(),
            Some(d) => Some(d),
        };
        capture_key(
            &self.key,
            self.url.as_deref(),
            self.date.as_deref(),
            digest,
            b"",
        )
    }

    /// How [`Document::capture`] of `self` and of `other` compare, without writing either:
    /// the byte pieces the key would be joined from are compared in turn (sorting a million
    /// pages by written keys held ~200 MB of them at once, the peak of a `samecore run`).
    pub fn cmp_capture(&self, other: &Document) -> std::cmp::Ordering {
        let (mut ts_a, mut ts_b) = ([0u8; 14], [0u8; 14]);
        cmp_pieces(
            &self.capture_pieces(&mut ts_a),
            &other.capture_pieces(&mut ts_b),
        )
    }

    /// The pieces [`Document::capture`] joins ([`capture_pieces`]), the 14-digit timestamp
    /// written into `ts`; none before the page is decoded.
    fn capture_pieces<'a>(&'a self, ts: &'a mut [u8; 14]) -> [&'a str; 5] {
        let digest = match self.capture_digest.as_deref() {
            None => return [""; 5],
            Some("") => self.payload_digest.as_deref(),
            Some(d) => Some(d),
        };
        let digest = match digest.map(str::trim) {
            Some(d) if !d.is_empty() => d,
            // `capture_key`'s digest of an empty payload.
            _ => {
                static EMPTY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
                EMPTY.get_or_init(|| content_digest(b""))
            }
        };
        capture_pieces(
            &self.key,
            self.url.as_deref(),
            self.date.as_deref(),
            digest,
            ts,
        )
    }

    /// Mark the page decoded, its capture key carrying `digest` (`None`: the record's own
    /// `payload_digest`) when it is not blank, else [`content_digest`] of `payload` (the choice
    /// [`capture_key`] makes).
    pub fn set_capture_digest(&mut self, digest: Option<&str>, payload: &[u8]) {
        self.set_capture_digest_with(digest, || content_digest(payload));
    }

    /// [`Document::set_capture_digest`], the payload's [`content_digest`] made by `content`
    /// only when it is needed (the reader has the payload's hash already).
    pub(crate) fn set_capture_digest_with(
        &mut self,
        digest: Option<&str>,
        content: impl FnOnce() -> String,
    ) {
        let digest = digest.or(self.payload_digest.as_deref());
        let used = match digest.map(str::trim) {
            Some(d) if !d.is_empty() => d.to_string(),
            _ => content(),
        };
        let own = self.payload_digest.as_deref().map(str::trim);
        self.capture_digest = Some(if own == Some(used.as_str()) {
            Box::default()
        } else {
            used.into()
        });
    }
}

/// Strings given in pieces, compared as the strings the pieces join to.
fn cmp_pieces(a: &[&str], b: &[&str]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut i, mut at_a, mut j, mut at_b) = (0, 0, 0, 0);
    loop {
        while i < a.len() && at_a == a[i].len() {
            (i, at_a) = (i + 1, 0);
        }
        while j < b.len() && at_b == b[j].len() {
            (j, at_b) = (j + 1, 0);
        }
        let (x, y) = match (a.get(i), b.get(j)) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => (&x.as_bytes()[at_a..], &y.as_bytes()[at_b..]),
        };
        let n = x.len().min(y.len());
        match x[..n].cmp(&y[..n]) {
            Ordering::Equal => (at_a, at_b) = (at_a + n, at_b + n),
            unequal => return unequal,
        }
    }
}

/// The 14-digit capture timestamp the Wayback Machine and pywb write (`20140325121225`) of a
/// date as a reader stores it (ISO 8601 or already 14 digits); none when it has fewer than 14
/// digits.
pub fn timestamp14(date: &str) -> Option<String> {
    let mut ts = [0u8; 14];
    timestamp14_into(date, &mut ts).then(|| String::from_utf8_lossy(&ts).into_owned())
}

/// [`timestamp14`] written into `ts`; whether `date` has 14 digits.
fn timestamp14_into(date: &str, ts: &mut [u8; 14]) -> bool {
    let mut n = 0;
    for b in date.bytes().filter(u8::is_ascii_digit).take(14) {
        ts[n] = b;
        n += 1;
    }
    n == 14
}

/// The payload digest the WARC world writes (`WARC-Payload-Digest`): SHA-1 of the payload as
/// the record stores it (after the HTTP head, before undoing chunking or compression), in
/// base32, `sha1:<32 letters>`. An archive record without one (every ARC record, a WARC
/// record that lacks the header) gets this one, so an ARC and a WARC of one crawl give each
/// capture one digest and one key (the digests Heritrix wrote in the shared 2008 WARC are
/// exactly this, all 261 of them).
pub fn payload_sha1(payload: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let bytes = sha1_smol::Sha1::from(payload).digest().bytes();
    let mut out = String::with_capacity(37);
    out.push_str("sha1:");
    // 160 bits are exactly 32 groups of 5: no padding.
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
        }
    }
    out
}

/// The digest of a loose page (a file in a folder or zip, with no URL or capture time):
/// XXH3-64 of its bytes, written `xxh3:<hex>`
/// (a WARC's own `WARC-Payload-Digest`, `sha1:<base32>`, is used when the record has one; the
/// prefix says which it is). XXH3 rather than SHA-1 because it runs at memory speed and this is
/// an identity, not a security check.
pub fn content_digest(payload: &[u8]) -> String {
    content_digest_of_hash(payload_hash(payload))
}

/// XXH3-64 of a payload: the hash of [`content_digest`] and of a document's `payload_check`.
///
/// By `twox-hash`, which picks AVX2 at run time where the processor has it; `xxhash-rust`
/// (the crate's other XXH3, for short keys) uses SSE2 in a portable build. Hashing
/// goldset-dev's 54 MB of pages took 35.8 M instructions of `run`'s 1.34 G that way, and
/// takes 15.4 M this way (callgrind, on a processor with AVX2).
pub fn payload_hash(payload: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(payload)
}

/// [`content_digest`] of a payload whose XXH3-64 is `hash`.
pub fn content_digest_of_hash(hash: u64) -> String {
    format!("xxh3:{hash:016x}")
}

/// The identity of a capture: `<14-digit timestamp> <URL> <payload digest>` for an archive
/// record with a URL and a date (repeated `WARC-Record-ID`s, the same file given twice, a copy
/// or a symlink of it and overlapping archives all give the same capture the same key), and
/// `<reader key> <digest>` for a loose page (its path inside the folder or zip, plus its
/// content, so two folders with an `index.html` each stay two pages). `digest` is the record's
/// own payload digest; without one, [`content_digest`] of `payload`.
pub fn capture_key(
    key: &str,
    url: Option<&str>,
    date: Option<&str>,
    digest: Option<&str>,
    payload: &[u8],
) -> String {
    let digest = match digest {
        Some(d) if !d.trim().is_empty() => d.trim().to_string(),
        _ => content_digest(payload),
    };
    let mut ts = [0u8; 14];
    capture_pieces(key, url, date, &digest, &mut ts).concat()
}

/// The pieces of [`capture_key`]'s two forms, `<timestamp> <URL> <digest>` and `<key>
/// <digest>`, the timestamp written into `ts`: joined they are the key, compared piece by
/// piece they order as it ([`Document::cmp_capture`]).
fn capture_pieces<'a>(
    key: &'a str,
    url: Option<&'a str>,
    date: Option<&str>,
    digest: &'a str,
    ts: &'a mut [u8; 14],
) -> [&'a str; 5] {
    let url = url.map(str::trim).filter(|u| !u.is_empty());
    let dated = date.is_some_and(|d| timestamp14_into(d, ts));
    let ts: &'a [u8; 14] = ts;
    match (url, std::str::from_utf8(ts)) {
        (Some(url), Ok(ts)) if dated => [ts, " ", url, " ", digest],
        _ => [key, " ", digest, "", ""],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zip_entry_is_written_as_before_it_was_boxed() {
        // Projects hold record locations as JSON: the struct variant's form, read and written.
        let old = r#"{"ZipEntry":{"entry":"a.warc.gz","inner":"GzipMember"}}"#;
        let storage = Storage::zip_entry("a.warc.gz".into(), Storage::GzipMember);
        assert_eq!(serde_json::to_string(&storage).unwrap(), old);
        assert_eq!(serde_json::from_str::<Storage>(old).unwrap(), storage);
        assert_eq!(std::mem::size_of::<Storage>(), 16);
    }

    #[test]
    fn payload_sha1_is_the_warc_digest() {
        // SHA-1 in RFC 4648 base32, as WARC writers put it.
        assert_eq!(payload_sha1(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(
            payload_sha1(b"abc"),
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        );
    }

    /// Digests stored in projects and exports stay what they were: the payload hash is
    /// xxhash-rust's XXH3-64 at every length (the short-input paths up to 240 bytes, the long
    /// one past them, stripes and blocks cut anywhere), and the known XXH3-64 of empty input.
    #[test]
    fn the_payload_hash_is_the_xxh3_digests_were_made_with() {
        use rand::{Rng, SeedableRng};
        assert_eq!(payload_hash(b""), 0x2d06_8005_38d3_94c2);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut bytes = vec![0u8; 70_000];
        rng.fill(&mut bytes[..]);
        let lengths = (0..2_100).chain([4_095, 4_096, 4_097, 65_536, 70_000]);
        for len in lengths {
            let start = rng.random_range(0..8).min(bytes.len() - len);
            let payload = &bytes[start..start + len];
            assert_eq!(
                payload_hash(payload),
                xxhash_rust::xxh3::xxh3_64(payload),
                "{len} bytes"
            );
        }
    }

    #[test]
    fn a_record_id_equal_to_the_key_is_held_once_and_read_back() {
        let mut doc = Document::from_page("<urn:uuid:1>", None, "<p>x</p>");
        assert_eq!(doc.record_id(), None);
        doc.set_record_id(Some("<urn:uuid:1>".into()));
        assert_eq!(doc.record_id, RecordId::Key);
        assert_eq!(doc.record_id(), Some("<urn:uuid:1>"));
        doc.set_record_id(Some("<urn:uuid:2>".into()));
        assert_eq!(doc.record_id(), Some("<urn:uuid:2>"));
        doc.set_record_id(None);
        assert_eq!(doc.record_id(), None);
    }

    #[test]
    fn captures_compare_as_their_written_keys() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let pick = |rng: &mut rand::rngs::StdRng, options: &[&str]| -> String {
            options[rng.random_range(0..options.len())].to_string()
        };
        let docs: Vec<Document> = (0..300)
            .map(|i| {
                let url = pick(
                    &mut rng,
                    &["http://a.org/", "http://a.org/x", "http://a.org", " ", ""],
                );
                let mut doc = Document::from_page(
                    &pick(&mut rng, &["k", "k1", "<urn:uuid:1>", "a b", ""]),
                    (!url.is_empty()).then_some(url.as_str()),
                    "<p>x</p>",
                );
                doc.date = match rng.random_range(0..5) {
                    0 => None,
                    1 => Some("2024-11-09T10:22:12Z".into()),
                    2 => Some("2024-11-09T10:22:1".into()),
                    3 => Some(format!("2024-11-09T10:22:{:02}Z", rng.random_range(0..60)).into()),
                    _ => Some("20241109102212999".into()),
                };
                doc.payload_digest = match rng.random_range(0..4) {
                    0 => None,
                    1 => Some(" sha1:ABC ".into()),
                    2 => Some("sha1:AB".into()),
                    _ => Some("  ".into()),
                };
                match rng.random_range(0..4) {
                    0 => doc.capture_digest = None,
                    1 => doc.set_capture_digest(Some("sha1:ORIG"), b""),
                    _ => doc.set_capture_digest(None, format!("p{i}").as_bytes()),
                }
                doc
            })
            .collect();
        for a in &docs {
            for b in &docs {
                assert_eq!(
                    a.cmp_capture(b),
                    a.capture().cmp(&b.capture()),
                    "{:?} vs {:?}",
                    a.capture(),
                    b.capture()
                );
            }
        }
    }

    #[test]
    fn the_capture_written_on_demand_is_the_capture_key() {
        let url = "https://example.org/a";
        let mut doc = Document::from_page("<urn:uuid:1>", Some(url), "<p>x</p>");
        doc.date = Some("2024-11-09T10:22:12Z".into());
        doc.capture_digest = None;
        assert_eq!(doc.capture(), "", "not decoded yet");
        let key = |d: &Document, digest, payload: &[u8]| {
            capture_key(&d.key, d.url.as_deref(), d.date.as_deref(), digest, payload)
        };
        // The record's own digest (padded, as a header may carry it) is not held again.
        doc.payload_digest = Some(" sha1:ABC ".into());
        doc.set_capture_digest(None, b"payload");
        assert_eq!(doc.capture_digest.as_deref(), Some(""));
        assert_eq!(doc.capture(), key(&doc, Some(" sha1:ABC "), b"payload"));
        assert_eq!(
            doc.capture(),
            "20241109102212 https://example.org/a sha1:ABC"
        );
        // Without one (or a blank one), the payload's digest is kept and used.
        for own in [Some("  "), None] {
            doc.payload_digest = own.map(Into::into);
            doc.set_capture_digest(None, b"payload");
            assert_eq!(doc.capture(), key(&doc, None, b"payload"));
        }
        assert_eq!(doc.digest(), Some(content_digest(b"payload").as_str()));
        // A revisit's original's digest.
        doc.payload_digest = None;
        doc.set_capture_digest(Some("sha1:ORIG"), b"");
        assert_eq!(doc.capture(), key(&doc, Some("sha1:ORIG"), b""));
    }

    #[test]
    fn henzinger_site_rule_matches_paper_example() {
        assert_eq!(henzinger_site("www.cs.berkeley.edu"), "cs.berkeley.edu");
        assert_eq!(henzinger_site("berkeley.edu"), "berkeley.edu");
        assert_eq!(henzinger_site("www.example.com"), "example.com");
    }

    #[test]
    fn registrable_domain_knows_government_and_private_suffixes() {
        // gov.uk is a suffix, so a department's site is its own (henzinger's rule says gov.uk)
        assert_eq!(registrable_domain("data.gov.uk"), "data.gov.uk");
        assert_eq!(registrable_domain("www.data.gov.uk"), "data.gov.uk");
        assert_eq!(henzinger_site("data.gov.uk"), "gov.uk");
        // private suffixes: every blog and every GitHub page is a site of its own
        assert_eq!(registrable_domain("foo.blogspot.com"), "foo.blogspot.com");
        assert_eq!(registrable_domain("a.github.io"), "a.github.io");
        assert_eq!(
            &*Site::of_url("https://www.data.gov.uk/dataset/x").registrable,
            "data.gov.uk"
        );
    }

    #[test]
    fn registrable_domain_uses_public_suffixes() {
        assert_eq!(registrable_domain("news.bbc.co.uk"), "bbc.co.uk");
        assert_eq!(registrable_domain("www.cs.berkeley.edu"), "berkeley.edu");
    }

    #[test]
    fn the_site_of_a_page_is_where_most_of_its_links_point() {
        let html = r#"<a href="http://www.forbes.com/a">x</a> <a HREF = 'https://ads.forbes.com/b'>
            <a href="http://other.org/">o</a> <a href="/relative">r</a>"#;
        assert_eq!(link_site(html).as_deref(), Some("forbes.com"));
        assert_eq!(link_site("<p>no links</p>"), None);
    }

    /// The per-link version `link_site` replaced: a string, a lowercased copy and a
    /// public-suffix lookup for every link.
    fn link_site_per_link(html: &str) -> Option<String> {
        let mut counts: HashMap<String, u32> = HashMap::new();
        for at in memchr::memmem::Finder::new(b"href").find_iter(html.as_bytes()) {
            let rest = html[at + 4..].trim_start();
            let Some(rest) = rest.strip_prefix('=') else {
                continue;
            };
            let rest = rest.trim_start().trim_start_matches(['"', '\'']);
            let lower = rest.get(..8).unwrap_or(rest).to_ascii_lowercase();
            let skip = if lower.starts_with("https://") {
                8
            } else if lower.starts_with("http://") {
                7
            } else {
                continue;
            };
            let host: String = rest[skip..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
                .collect();
            if host.contains('.') {
                *counts
                    .entry(registrable_domain(&host.to_ascii_lowercase()))
                    .or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
            .map(|(site, _)| site)
    }

    #[test]
    fn link_sites_counted_by_host_agree_with_counting_each_link() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let parts = [
            "href",
            "HREF",
            "href =",
            "= ",
            "=",
            "\"",
            "'",
            "\"'",
            "http://",
            "HTTPS://",
            "hTtP://",
            "https:/",
            "http:",
            "www.",
            "News.",
            "bbc.co.uk",
            "BBC.CO.UK",
            "a-b.",
            "foo.blogspot.com",
            "x.github.io",
            "/path",
            "é",
            "ü.de",
            "日本",
            ":8080",
            " ",
            "\u{3000}",
            "\t",
            "\n\r",
            "\u{b}",
            "\u{c}",
            "\u{1c}",
            "\u{85}",
            "\u{a0}",
            ".",
            "-",
            "<a ",
            ">",
            "example.org",
            "EXAMPLE.org",
            "gov.uk",
        ];
        agree_on_random_pages(&mut rng, 24, |rng| {
            parts[rng.random_range(0..parts.len())].to_string()
        });
    }

    /// 20,000 pages of up to `pieces` pieces that `piece` draws: `link_site` gives each the
    /// site counting each link gives.
    fn agree_on_random_pages(
        rng: &mut rand::rngs::StdRng,
        pieces: usize,
        piece: impl Fn(&mut rand::rngs::StdRng) -> String,
    ) {
        use rand::Rng;
        for _ in 0..20_000 {
            let n = rng.random_range(0..pieces);
            let html: String = (0..n).map(|_| piece(rng)).collect();
            assert_eq!(link_site(&html), link_site_per_link(&html), "{html:?}");
        }
    }

    /// Runs of links to one host, and hosts that begin with the one before them
    /// (`a.bbc.co` before `a.bbc.co.uk`), which the shortcut for a repeated host must not
    /// count as it.
    #[test]
    fn links_to_the_host_of_the_link_before_are_counted_as_each_link_is() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        let hosts = [
            "a.bbc.co",
            "a.bbc.co.uk",
            "A.BBC.co.uk",
            "a.bbc.co.uk-x",
            "a.bbc.co.ukx",
            "news.forbes.com",
            "forbes.com",
            "b",
            "",
        ];
        let ends = ["", "/", "/x\"", ".", "-", "é", ":80", "\"", " ", "?q=1"];
        let schemes = ["http://", "https://", "HTTP://", "ftp://"];
        agree_on_random_pages(&mut rng, 30, |rng| {
            format!(
                "<a href=\"{}{}{}\">x</a>",
                schemes[rng.random_range(0..schemes.len())],
                hosts[rng.random_range(0..hosts.len())],
                ends[rng.random_range(0..ends.len())]
            )
        });
    }

    #[test]
    fn the_site_shown_is_henzingers_else_the_registrable_one() {
        assert_eq!(
            Site::of_url("http://www.cs.berkeley.edu/x").shown(),
            "cs.berkeley.edu"
        );
        let linked = Site {
            henzinger: Arc::default(),
            registrable: "forbes.com".into(),
        };
        assert_eq!(linked.shown(), "forbes.com");
        assert_eq!(Site::default().shown(), "");
    }

    #[test]
    fn site_of_url_with_port_and_case() {
        let s = Site::of_url("HTTP://WWW.CS.Berkeley.EDU:8080/index.html");
        assert_eq!(&*s.henzinger, "cs.berkeley.edu");
        assert_eq!(&*s.registrable, "berkeley.edu");
        assert_eq!(Site::of_url("not a url"), Site::default());
    }

    #[test]
    fn pages_of_one_site_share_its_strings_and_the_table_stays_bounded() {
        let a = Site::of_url("https://www.example.org/a");
        let b = Site::of_url("http://news.example.org/b");
        assert!(Arc::ptr_eq(&a.registrable, &b.registrable));
        assert_eq!(&*a.henzinger, "example.org");
        assert!(Arc::ptr_eq(&shared("text/html"), &shared("text/html")));
        // Past the bound the table starts again: strings are still right, only not shared.
        for i in 0..SHARED_MAX + 10 {
            assert_eq!(
                &*shared(&format!("host{i}.example")),
                format!("host{i}.example")
            );
        }
        assert_eq!(
            &*Site::of_url("https://www.example.org/c").registrable,
            "example.org"
        );
    }

    #[test]
    fn page_text_round_trips_compresses_and_shares() {
        let html = "<html><body>".to_string()
            + &"<p>Der Bürgermeister sagte heute, dass … 東京</p>\n".repeat(200)
            + "</body></html>";
        let page = PageText::new(&html);
        assert_eq!(page.text(), html);
        assert_eq!(page.len(), html.len());
        assert!(page.stored_bytes() * 5 < html.len(), "{page:?}");
        // A revisit's copy shares the bytes.
        let copy = page.clone();
        assert_eq!(copy, page);
        assert!(std::ptr::eq(
            copy.compressed.as_deref().unwrap_or_default(),
            page.compressed.as_deref().unwrap_or_default()
        ));
        let empty = PageText::new("");
        assert!(empty.is_empty() && empty.text().is_empty() && empty.stored_bytes() == 0);
        assert!(empty.is_held() && page.is_held() && !PageText::default().is_held());
        let json = serde_json::to_string(&page).unwrap_or_default();
        let back: PageText = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back.text(), html);
    }
}
