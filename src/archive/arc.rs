//! ARC files (the Internet Archive's format before WARC), version 1 and 2, plain or gzip.
//!
//! In: a record stream. Out: the file header (`filedesc://`) counted as `warcinfo` and every
//! other record as `response` — the way warcio counts ARC (`arc2warc`) — and a page for every
//! HTML response. A record header is one line: `URL IP DATE MIME LENGTH` (v1) or
//! `URL IP DATE MIME STATUS CHECKSUM LOCATION OFFSET FILENAME LENGTH` (v2). Keys are
//! `"<url> <14-digit date>"`. Recovery is the WARC reader's: a record must end where the next
//! header line (or the end) begins; otherwise the reader goes back and scans for the next line
//! that parses as an ARC header.

use std::io;

use super::block::{self, MAX_PAGE};
use super::decode;
use super::record::{Body, Container, Ctx, RawPage, new_doc, read_records};
use super::stream::Source;
use crate::Result;
use crate::document::RecordLocation;

/// One parsed ARC header line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArcHeader {
    pub url: String,
    pub date: String,
    pub mime: String,
    pub length: u64,
}

/// Parse an ARC header line; `None` when it is not one.
pub(crate) fn parse_arc_line(line: &[u8]) -> Option<ArcHeader> {
    let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
    let text = std::str::from_utf8(&line[..end])
        .ok()?
        .trim_end_matches('\r');
    let fields: Vec<&str> = text.split(' ').filter(|f| !f.is_empty()).collect();
    let n = fields.len();
    if n < 5 {
        return None;
    }
    let length_field = fields[n - 1];
    if length_field.len() > 15 || !length_field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (url, date, mime) = if n == 10 {
        (fields[0].to_string(), fields[2], fields[3])
    } else {
        (fields[..n - 4].join("%20"), fields[n - 3], fields[n - 2])
    };
    if date.len() < 8 || date.len() > 17 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !(url.contains("://") || url.starts_with("filedesc:") || url.starts_with("dns:")) {
        return None;
    }
    Some(ArcHeader {
        url,
        date: date.to_string(),
        mime: mime.to_ascii_lowercase(),
        length: length_field.parse().ok()?,
    })
}

fn is_arc_line(bytes: &[u8]) -> bool {
    parse_arc_line(bytes).is_some()
}

/// `20080430204825` -> `2008-04-30T20:48:25Z`; the input when it is not 14 digits.
pub(crate) fn iso_date(date: &str) -> String {
    if date.len() == 14 && date.bytes().all(|b| b.is_ascii_digit()) {
        format!(
            "{}-{}-{}T{}:{}:{}Z",
            &date[0..4],
            &date[4..6],
            &date[6..8],
            &date[8..10],
            &date[10..12],
            &date[12..14]
        )
    } else {
        date.to_string()
    }
}

/// Read all records of an ARC stream.
pub(crate) fn read_arc<S: Source>(
    src: &mut S,
    ctx: &mut Ctx<'_>,
    container: &Container<'_>,
) -> Result<()> {
    read_records(src, ctx, |src, ctx| next_record(src, ctx, container))
}

fn next_record<S: Source>(
    src: &mut S,
    ctx: &mut Ctx<'_>,
    container: &Container<'_>,
) -> io::Result<bool> {
    if !block::skip_blank(src)? {
        return Ok(false);
    }
    let start = src.mark();
    let at = src.warn_offset(start);
    let line = block::read_line(src)?;
    let Some(header) = line.as_ref().and_then(|l| parse_arc_line(&l.bytes)) else {
        src.rewind(start)?;
        let skipped = block::scan_to_line(src, &is_arc_line)?;
        let what = skipped.map_or("to the end".to_string(), |n| format!("{n} bytes"));
        ctx.warn(
            at,
            format!("garbage where an ARC record should start; skipped {what}"),
        );
        return Ok(skipped.is_some());
    };
    let block_start = src.mark();
    let http = header.url.starts_with("http:") || header.url.starts_with("https:");
    let mut wants =
        |kept: &[u8]| http && decode::parse_http_head(kept).is_some_and(|h| h.is_html_200());
    let read = block::read_block(src, header.length, &mut wants)?;
    let block_ok = read.read == header.length;
    // Damaged data after the block (the next gzip member) is met again on the next read.
    let _ = block::skip_newlines(src, usize::MAX);
    let (storage, offset, record_len) = src.locate(start);
    let boundary = match src.fill_buf() {
        Ok(next) => next.is_empty() || is_arc_line(next) || !next.contains(&b'\n'),
        Err(_) => true,
    };
    if !block_ok || !boundary {
        ctx.warn(
            at,
            format!(
                "ARC record with a wrong length ({}); record skipped",
                header.length
            ),
        );
        ctx.report.skip("bad-record");
        src.rewind(block_start)?;
        let found = block::scan_to_line(src, &is_arc_line)?;
        return Ok(found.is_some());
    }
    if header.url.starts_with("filedesc:") {
        ctx.report.count_record("warcinfo");
        return Ok(true);
    }
    ctx.report.count_record("response");
    let location = RecordLocation {
        file: container.file.clone(),
        offset,
        length: record_len,
        storage: (container.wrap)(storage),
    };
    let head = if http {
        decode::parse_http_head(&read.kept)
    } else {
        None
    };
    let Some(head) = head else {
        ctx.report.skip("not-http");
        return Ok(true);
    };
    if !head.is_html_200() {
        match head.status {
            Some(200) => ctx.report.skip("not-html"),
            Some(code) => ctx.report.skip(&format!("status-{code}")),
            None => ctx.report.skip("status-unknown"),
        }
        return Ok(true);
    }
    ctx.report.html_responses += 1;
    if header.length > MAX_PAGE {
        ctx.warn(
            at,
            format!(
                "HTML page of {} bytes is larger than {MAX_PAGE}; skipped",
                header.length
            ),
        );
        ctx.report.skip("too-large");
        return Ok(true);
    }
    let body = read.kept.get(head.head_len..).unwrap_or_default().to_vec();
    // ARC has no payload digest: the one a WARC writer computes (SHA-1 of the stored body),
    // so an ARC and a WARC of one crawl give each capture one key.
    let digest = crate::document::payload_sha1(&body);
    let payload = decode::http_payload(&head, body, MAX_PAGE);
    if payload.iter().all(u8::is_ascii_whitespace) {
        ctx.report.skip("empty");
        return Ok(true);
    }
    let doc = new_doc(
        format!("{} {}", header.url, header.date),
        location,
        None,
        Some(header.url.clone()),
        Some(iso_date(&header.date)),
        head.status,
        head.content_type.clone(),
        Some(digest),
    );
    let page = RawPage {
        doc,
        order: start.pos,
        body: Body::Bytes(payload),
        http_charset: head.charset,
    };
    ctx.emit(page)
        .map_err(|e| io::Error::other(e.to_string()))?;
    Ok(true)
}

/// Read back the ARC record at the current position: HTTP head (if any) and payload.
pub(crate) fn read_record_payload<S: Source>(
    src: &mut S,
) -> io::Result<(Option<decode::HttpHead>, Vec<u8>)> {
    block::skip_blank(src)?;
    let header = block::read_line(src)?
        .and_then(|l| parse_arc_line(&l.bytes))
        .ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, "no ARC record at this offset")
        })?;
    let read = block::read_block(src, header.length.min(MAX_PAGE), &mut |_| true)?;
    if read.read < header.length.min(MAX_PAGE) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the record is shorter than its header says (the archive changed?)",
        ));
    }
    Ok(match decode::parse_http_head(&read.kept) {
        Some(head) => {
            let body = read.kept.get(head.head_len..).unwrap_or_default().to_vec();
            let payload = decode::http_payload(&head, body, MAX_PAGE);
            (Some(head), payload)
        }
        None => (None, read.kept),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arc_header_lines_v1_v2_and_garbage() {
        let v1 =
            parse_arc_line(b"http://ex.com/a 1.2.3.4 20080430204825 text/html 120\n").expect("v1");
        assert_eq!(
            (v1.url.as_str(), v1.date.as_str(), v1.length),
            ("http://ex.com/a", "20080430204825", 120)
        );
        let v2 =
            parse_arc_line(b"http://ex.com/ 1.2.3.4 20080430204825 text/html 200 ABC - 0 f.arc 99")
                .expect("v2");
        assert_eq!(v2.length, 99);
        assert!(parse_arc_line(b"<p>some text with 5 words 12</p>").is_none());
        assert!(parse_arc_line(b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain 76").is_some());
        assert_eq!(iso_date("20080430204825"), "2008-04-30T20:48:25Z");
    }
}
