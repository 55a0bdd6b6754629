//! WARC 1.0 / 1.1 records (ISO 28500), plain or gzip, from any [`Source`].
//!
//! In: a record stream. Out: counts per `WARC-Type` in the report, a page for every HTML
//! response ([`HttpHead::is_html_200`]) and for every revisit whose original is found, warnings
//! for bad stretches.
//!
//! Recovery: a record is accepted only when its block ends where the next record (or the end)
//! begins. Anything else — garbage, a header line without a colon that leaves no
//! `Content-Length`, a wrong or absurd `Content-Length`, a truncated or corrupt gzip member — is
//! one warning naming the offset; the reader goes back to where the bad record's block began and
//! scans for the next line starting with `WARC/` (or the next gzip member), so every good record
//! after it still loads. Nothing is allocated from a `Content-Length`: blocks are streamed.

use std::io;

use super::block::{self, MAX_HEADER_LINES, MAX_PAGE};
use super::decode::{self, HttpHead};
use super::pipeline::key_hasher;
use super::record::{Body, Container, Ctx, PendingRevisit, RawPage, new_doc, read_records};
use super::stream::Source;
use crate::Result;
use crate::document::{RecordLocation, Storage};

/// A record header: named fields in order (names as written).
#[derive(Debug, Default)]
pub(crate) struct WarcHeader {
    fields: Vec<(String, String)>,
}

impl WarcHeader {
    /// The first value of a field, by case-insensitive name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn owned(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(|v| v.trim_matches(|c| c == '<' || c == '>').to_string())
    }
}

/// Whether a line starts a WARC record (`WARC/1.0`, `WARC/1.1`, `WARC/0.18` ...).
pub(crate) fn is_warc_line(bytes: &[u8]) -> bool {
    bytes.len() >= 6 && bytes.starts_with(b"WARC/") && bytes[5].is_ascii_digit()
}

/// A header as read: the fields plus the problems seen in it.
pub(crate) enum HeaderRead {
    /// A header (maybe with warnings about single lines).
    Header(WarcHeader, Vec<String>),
    /// The first line is not a WARC version line.
    NotWarc,
    /// The stream ended (or the line limit was hit) before the blank line.
    Unterminated,
}

/// Read a record header at the current position (blank lines already skipped).
pub(crate) fn read_header<S: Source>(src: &mut S) -> io::Result<HeaderRead> {
    let Some(first) = block::read_line(src)? else {
        return Ok(HeaderRead::Unterminated);
    };
    if !is_warc_line(&first.bytes) {
        return Ok(HeaderRead::NotWarc);
    }
    let mut header = WarcHeader::default();
    let mut problems = Vec::new();
    for _ in 0..MAX_HEADER_LINES {
        let Some(line) = block::read_line(src)? else {
            return Ok(HeaderRead::Unterminated);
        };
        if line.bytes.is_empty() {
            return Ok(HeaderRead::Header(header, problems));
        }
        let text = String::from_utf8_lossy(&line.bytes);
        // A line starting with a space continues the previous field's value.
        if text.starts_with([' ', '\t'])
            && let Some((_, value)) = header.fields.last_mut()
        {
            value.push(' ');
            value.push_str(text.trim());
            continue;
        }
        match text.split_once(':') {
            Some((name, value)) => header
                .fields
                .push((name.trim().to_string(), value.trim().to_string())),
            None => problems.push(format!(
                "header line without a colon ({:?}) ignored",
                short(&text)
            )),
        }
    }
    Ok(HeaderRead::Unterminated)
}

fn short(text: &str) -> String {
    text.chars().take(60).collect()
}

/// An original record found in the file, for the index of originals: where it lives (its
/// offset, its length and how it is stored in the stream; its file is the one being read) and
/// a 64-bit hash ([`Originals::hash`]) of each key it is found by, 0 for a key it lacks. The
/// rest a revisit takes from its original (key, status, content type) is read again with the
/// original's page, on the decoding thread ([`Body::Original`]). 40 bytes a record.
struct Original {
    offset: u64,
    /// The record's length, shifted left by two, and its [`StreamStorage`] in the low bits.
    length_storage: u64,
    /// Record id, URL and date, payload digest.
    keys: [u64; 3],
}

/// How a record is stored in the stream it is read from, in two bits of an [`Original`]'s
/// length (a [`Storage`] also names the zip entries a container wraps a stream's storage in).
#[derive(Clone, Copy)]
enum StreamStorage {
    Plain,
    GzipMember,
    GzipWhole,
}

impl StreamStorage {
    fn of(storage: &Storage) -> Option<StreamStorage> {
        match storage {
            Storage::Plain => Some(StreamStorage::Plain),
            Storage::GzipMember => Some(StreamStorage::GzipMember),
            Storage::GzipWhole => Some(StreamStorage::GzipWhole),
            Storage::ZipEntry(_) => None,
        }
    }

    fn storage(self) -> Storage {
        match self {
            StreamStorage::Plain => Storage::Plain,
            StreamStorage::GzipMember => Storage::GzipMember,
            StreamStorage::GzipWhole => Storage::GzipWhole,
        }
    }

    fn from_bits(bits: u64) -> StreamStorage {
        match bits & 3 {
            0 => StreamStorage::Plain,
            1 => StreamStorage::GzipMember,
            _ => StreamStorage::GzipWhole,
        }
    }
}

/// Captures seen in this file, for resolving its revisits once the file is read: every
/// original ([`Original`]: its place and the hashes of its keys), and the revisits met, each
/// with how many originals came before it. The keys are put in order only when the file has
/// a revisit.
///
/// Why not maps looked up as each revisit comes: three hash maps of every record's keys, each
/// naming a record of the original's key, status and content type, were about 450 MB at a
/// million pages (`samecore run`'s peak was there, freed only when the file was read), for
/// the revisits a crawl mostly does not have; three sorted vectors of 128-bit hashes were
/// still 96 bytes a record (~107 MB, at the peak). One vector of 40-byte records is ~45 MB.
/// A revisit still resolves to the latest capture before it with the same record id (else
/// URL and date, else digest), as before. Two different keys share a 64-bit hash with
/// probability 2^-64 per pair: for 10^5 revisits in a file of 10^6 records, about 5 x 10^-9.
#[derive(Default)]
struct Originals {
    records: Vec<Original>,
    revisits: Vec<(PendingRevisit, u32)>,
}

/// Which of an [`Original`]'s keys.
const BY_ID: usize = 0;
const BY_CAPTURE: usize = 1;
const BY_DIGEST: usize = 2;

impl Originals {
    /// The 64-bit hash of a key's parts (never 0, which stands for no key).
    fn hash(parts: &[&str]) -> u64 {
        key_hasher(parts).digest().max(1)
    }

    /// Index an original record: where it is in the stream (`storage` before any container
    /// wraps it) and the keys it is found by.
    fn add(&mut self, storage: Storage, offset: u64, length: u64, keys: OriginalKeys<'_>) {
        // A stream's records are never stored as zip entries (a container wraps them so).
        let Some(storage) = StreamStorage::of(&storage) else {
            return;
        };
        let capture = match (keys.url, keys.date) {
            (Some(url), Some(date)) => Originals::hash(&[url, date]),
            _ => 0,
        };
        self.records.push(Original {
            offset,
            length_storage: (length << 2) | storage as u64,
            keys: [
                keys.record_id.map_or(0, |id| Originals::hash(&[id])),
                capture,
                keys.digest.map_or(0, |d| Originals::hash(&[d])),
            ],
        });
    }

    /// Every revisit met, with its original when one came before it in the file: emitted to be
    /// decoded from the original's record, or left pending for the other files.
    fn resolve(mut self, ctx: &mut Ctx<'_>, container: &Container<'_>) -> Result<()> {
        if self.revisits.is_empty() {
            return Ok(());
        }
        let records = &self.records;
        // Per key: the records that have it, by (hash, record number).
        let order = |k: usize| {
            let mut order: Vec<u32> = (0..records.len() as u32)
                .filter(|&r| records[r as usize].keys[k] != 0)
                .collect();
            order.sort_unstable_by_key(|&r| (records[r as usize].keys[k], r));
            order
        };
        let index = [order(BY_ID), order(BY_CAPTURE), order(BY_DIGEST)];
        // The latest record below `before` whose key `k` hashes to `hash`.
        let latest = |k: usize, hash: u64, before: u32| {
            let of = |r: u32| (records[r as usize].keys[k], r);
            let end = index[k].partition_point(|&r| of(r) < (hash, before));
            index[k][..end]
                .last()
                .filter(|&&r| records[r as usize].keys[k] == hash)
                .copied()
        };
        for (revisit, before) in std::mem::take(&mut self.revisits) {
            let found = revisit
                .refers_to
                .as_ref()
                .and_then(|id| latest(BY_ID, Originals::hash(&[id]), before))
                .or_else(|| {
                    revisit
                        .refers_to_capture
                        .as_ref()
                        .and_then(|(u, d)| latest(BY_CAPTURE, Originals::hash(&[u, d]), before))
                })
                .or_else(|| {
                    revisit
                        .digest
                        .as_ref()
                        .and_then(|d| latest(BY_DIGEST, Originals::hash(&[d]), before))
                });
            match found {
                Some(r) => {
                    let original = &records[r as usize];
                    let location = RecordLocation {
                        file: container.file.clone(),
                        offset: original.offset,
                        length: original.length_storage >> 2,
                        storage: (container.wrap)(
                            StreamStorage::from_bits(original.length_storage).storage(),
                        ),
                    };
                    let mut doc = revisit.doc;
                    doc.location = location.clone();
                    ctx.emit(RawPage {
                        doc,
                        order: revisit.order,
                        body: Body::Original(location),
                        http_charset: None,
                    })?;
                }
                None => ctx.pending.push(revisit),
            }
        }
        Ok(())
    }
}

/// The keys an original is found by.
struct OriginalKeys<'a> {
    record_id: Option<&'a str>,
    url: Option<&'a str>,
    date: Option<&'a str>,
    digest: Option<&'a str>,
}

/// Read all records of a WARC stream.
pub(crate) fn read_warc<S: Source>(
    src: &mut S,
    ctx: &mut Ctx<'_>,
    container: &Container<'_>,
) -> Result<()> {
    let mut originals = Originals::default();
    read_records(src, ctx, |src, ctx| {
        next_record(src, ctx, container, &mut originals)
    })?;
    originals.resolve(ctx, container)
}

/// A record's key: its `WARC-Record-ID`, else its target URL and date.
pub(crate) fn record_key(header: &WarcHeader) -> String {
    match header.get("WARC-Record-ID") {
        Some(id) => id.to_string(),
        None => format!(
            "{} {}",
            header.owned("WARC-Target-URI").as_deref().unwrap_or(""),
            header.get("WARC-Date").unwrap_or("")
        ),
    }
}

/// Parse one record (or one bad stretch); `Ok(false)` at the end.
fn next_record<S: Source>(
    src: &mut S,
    ctx: &mut Ctx<'_>,
    container: &Container<'_>,
    originals: &mut Originals,
) -> io::Result<bool> {
    if !block::skip_blank(src)? {
        return Ok(false);
    }
    let start = src.mark();
    let at = src.warn_offset(start);
    let (header, problems) = match read_header(src)? {
        HeaderRead::Header(h, p) => (h, p),
        HeaderRead::NotWarc => {
            src.rewind(start)?;
            let skipped = block::scan_to_line(src, &is_warc_line)?;
            let what = skipped.map_or("to the end".to_string(), |n| format!("{n} bytes"));
            ctx.warn(
                at,
                format!("garbage where a WARC record should start; skipped {what}"),
            );
            return Ok(skipped.is_some());
        }
        HeaderRead::Unterminated => {
            ctx.warn(
                at,
                "record header does not end with a blank line; record skipped",
            );
            ctx.report.skip("bad-record");
            src.rewind(start)?;
            block::read_line(src)?;
            let found = block::scan_to_line(src, &is_warc_line)?;
            return Ok(found.is_some());
        }
    };
    for problem in problems {
        ctx.warn(at, problem);
    }
    let kind = header
        .get("WARC-Type")
        .unwrap_or("unknown")
        .to_ascii_lowercase();
    let length = header
        .get("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok());
    let Some(length) = length else {
        ctx.warn(
            at,
            format!("{kind} record without a valid Content-Length; skipped"),
        );
        ctx.report.skip("bad-record");
        let found = block::scan_to_line(src, &is_warc_line)?;
        return Ok(found.is_some());
    };
    let block_start = src.mark();
    let http_record = matches!(kind.as_str(), "response" | "revisit");
    let mut wants_page = |kept: &[u8]| {
        kind == "response" && decode::parse_http_head(kept).is_some_and(|h| h.is_html_200())
    };
    let read = if http_record {
        block::read_block(src, length, &mut wants_page)?
    } else {
        block::read_block(src, length, &mut |_| false)?
    };
    let block_ok = read.read == length;
    // ISO 28500 ends a record with CRLF CRLF (some writers use LF LF): with that after the
    // block the length was right even if garbage follows; without it, the next record must
    // start right there.
    let separator = match block::skip_newlines(src, usize::MAX) {
        Ok(n) => n >= 2,
        // Damaged data after the block (the next gzip member): this record is whole; the
        // error comes back on the next read and is recovered from there.
        Err(_) => true,
    };
    let (storage, offset, record_len) = src.locate(start);
    let boundary = match src.fill_buf() {
        Ok(next) => {
            separator
                || next.is_empty()
                || is_warc_line(next)
                || next.len() < 6 && next.starts_with(b"WARC/")
        }
        // A damaged next member: this record is whole; the caller recovers at the next call.
        Err(_) => true,
    };
    if !block_ok || !boundary {
        let why = if block_ok {
            "does not end where the next record starts"
        } else {
            "runs past the end of the stream"
        };
        ctx.warn(
            at,
            format!("{kind} record with a wrong Content-Length ({length} {why}); record skipped"),
        );
        ctx.report.skip("bad-record");
        src.rewind(block_start)?;
        let found = block::scan_to_line(src, &is_warc_line)?;
        return Ok(found.is_some());
    }
    ctx.report.count_record(&kind);
    let location = RecordLocation {
        file: container.file.clone(),
        offset,
        length: record_len,
        storage: (container.wrap)(storage.clone()),
    };
    if http_record {
        let page = Record {
            header: &header,
            block: read.kept,
            block_len: length,
            stream_storage: storage,
            location,
            order: start.pos,
            at,
        };
        if let Err(e) = page_of_record(page, &kind, ctx, originals) {
            // Only a closed channel (cancel) fails here.
            return Err(io::Error::other(e.to_string()));
        }
    }
    Ok(true)
}

struct Record<'a> {
    header: &'a WarcHeader,
    block: Vec<u8>,
    block_len: u64,
    /// How the record is stored in the stream read (`location`'s, before a container wraps it).
    stream_storage: Storage,
    location: RecordLocation,
    order: u64,
    at: u64,
}

fn is_http_uri(uri: &str) -> bool {
    let lower = uri
        .trim_start_matches('<')
        .get(..8)
        .unwrap_or(uri)
        .to_ascii_lowercase();
    lower.starts_with("http:") || lower.starts_with("https:")
}

fn page_of_record(
    rec: Record<'_>,
    kind: &str,
    ctx: &mut Ctx<'_>,
    originals: &mut Originals,
) -> Result<()> {
    let h = rec.header;
    let url = h.owned("WARC-Target-URI");
    let record_id = h.get("WARC-Record-ID").map(str::to_string);
    let date = h.get("WARC-Date").map(str::to_string);
    let digest = h.get("WARC-Payload-Digest").map(str::to_string);
    let key = record_key(h);
    let http = url.as_deref().is_some_and(is_http_uri) && rec.block_len > 0;
    let head: Option<HttpHead> = if http {
        decode::parse_http_head(&rec.block)
    } else {
        None
    };
    if kind == "revisit" {
        return revisit(
            rec,
            ctx,
            originals,
            head,
            key,
            (record_id, url, date, digest),
        );
    }
    let Some(head) = head else {
        ctx.report.skip("not-http");
        return Ok(());
    };
    if !head.is_html_200() {
        match head.status {
            Some(200) => ctx.report.skip("not-html"),
            Some(code) => ctx.report.skip(&format!("status-{code}")),
            None => ctx.report.skip("status-unknown"),
        }
        return Ok(());
    }
    ctx.report.html_responses += 1;
    if rec.block_len > MAX_PAGE {
        ctx.warn(
            rec.at,
            format!(
                "HTML page of {} bytes is larger than {MAX_PAGE}; skipped",
                rec.block_len
            ),
        );
        ctx.report.skip("too-large");
        return Ok(());
    }
    let body = rec
        .block
        .get(head.head_len.min(rec.block.len())..)
        .unwrap_or_default()
        .to_vec();
    // A record without `WARC-Payload-Digest` gets the one its writer would have written, so
    // the same capture in another archive (an ARC of the crawl) has the same key.
    let digest = digest
        .filter(|d| !d.trim().is_empty())
        .or_else(|| Some(crate::document::payload_sha1(&body)));
    let payload = decode::http_payload(&head, body, MAX_PAGE);
    if payload.iter().all(u8::is_ascii_whitespace) {
        ctx.report.skip("empty");
        return Ok(());
    }
    originals.add(
        rec.stream_storage,
        rec.location.offset,
        rec.location.length,
        OriginalKeys {
            record_id: record_id.as_deref(),
            url: url.as_deref(),
            date: date.as_deref(),
            digest: digest.as_deref(),
        },
    );
    let doc = new_doc(
        key,
        rec.location,
        record_id,
        url,
        date,
        head.status,
        head.content_type.clone(),
        digest,
    );
    ctx.emit(RawPage {
        doc,
        order: rec.order,
        body: Body::Bytes(payload),
        http_charset: head.charset,
    })
}

type Identity = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn revisit(
    rec: Record<'_>,
    ctx: &mut Ctx<'_>,
    originals: &mut Originals,
    head: Option<HttpHead>,
    key: String,
    (record_id, url, date, digest): Identity,
) -> Result<()> {
    if let Some(head) = &head {
        if head
            .content_type
            .as_deref()
            .is_some_and(|t| !decode::is_html_media_type(t))
        {
            ctx.report.skip("not-html");
            return Ok(());
        }
        if let Some(code) = head.status.filter(|c| !matches!(c, 200 | 304)) {
            ctx.report.skip(&format!("status-{code}"));
            return Ok(());
        }
    }
    let h = rec.header;
    let refers_to = h.get("WARC-Refers-To").map(str::to_string);
    let refers_to_capture = match (
        h.owned("WARC-Refers-To-Target-URI"),
        h.get("WARC-Refers-To-Date"),
    ) {
        (Some(u), Some(d)) => Some((u, d.to_string())),
        _ => None,
    };
    let doc = new_doc(
        key,
        rec.location,
        record_id,
        url,
        date,
        head.as_ref().and_then(|h| h.status),
        head.as_ref().and_then(|h| h.content_type.clone()),
        digest.clone(),
    );
    // Resolved once the file is read ([`Originals::resolve`]), against the originals before it.
    let before = originals.records.len() as u32;
    originals.revisits.push((
        PendingRevisit {
            doc,
            order: rec.order,
            refers_to,
            refers_to_capture,
            digest,
        },
        before,
    ));
    Ok(())
}

/// Read back the record at the current position of `src`: its key ([`record_key`]), its HTTP
/// head (if any) and payload (chunking and content encoding undone); the whole block when it
/// is not HTTP.
pub(crate) fn read_keyed_record<S: Source>(
    src: &mut S,
) -> io::Result<(String, Option<HttpHead>, Vec<u8>)> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    block::skip_blank(src)?;
    let HeaderRead::Header(header, _) = read_header(src)? else {
        return Err(bad("no WARC record at this offset"));
    };
    let length = header
        .get("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or_else(|| bad("record without a valid Content-Length"))?;
    let read = block::read_block(src, length.min(MAX_PAGE), &mut |_| true)?;
    if read.read < length.min(MAX_PAGE) {
        return Err(bad(
            "the record is shorter than its Content-Length (the archive changed?)",
        ));
    }
    let key = record_key(&header);
    let head = decode::parse_http_head(&read.kept);
    Ok(match head {
        Some(head) => {
            let body = read.kept.get(head.head_len..).unwrap_or_default().to_vec();
            let payload = decode::http_payload(&head, body, MAX_PAGE);
            (key, Some(head), payload)
        }
        None => (key, None, read.kept),
    })
}
