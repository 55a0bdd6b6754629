//! A small WARC 1.1 writer: one gzip member per record, as crawlers write `.warc.gz`.
//!
//! In: record fields and blocks (HTTP messages built by [`http_response`] / [`http_request`]).
//! Out: the bytes of one gzip member per record, ready to append to a file.
//!
//! What it implements of the WARC 1.1 standard (ISO 28500:2017): the record layout (§4: version
//! line, named fields, `Content-Length` of the block, block, two CRLFs), `warcinfo` (§6.2),
//! `request` / `response` (§6.4, §6.5) with `WARC-Concurrent-To`, `revisit` with the
//! identical-payload-digest profile (§6.7.2: `WARC-Refers-To`, `WARC-Refers-To-Target-URI`,
//! `WARC-Refers-To-Date`, and a block that holds only the HTTP header), `WARC-Block-Digest` and
//! `WARC-Payload-Digest` as `sha1:` + base32 (the convention of Heritrix and warcio), and record
//! ids `<urn:uuid:…>` derived from the seed so that output is byte-for-byte reproducible.

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;

/// The revisit profile URI of WARC 1.1 for a capture whose payload did not change.
pub const REVISIT_PROFILE: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// A record id `<urn:uuid:…>` (version-4 layout) from 128 bits.
pub fn record_id(bits: u128) -> String {
    let mut b = bits.to_be_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// RFC 4648 base32 (upper case, no padding needed for 20 bytes).
fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let mut buffer: u64 = 0;
    let mut bits = 0u32;
    for &byte in bytes {
        buffer = (buffer << 8) | u64::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((buffer >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((buffer << (5 - bits)) & 31) as usize] as char);
    }
    while !out.len().is_multiple_of(8) {
        out.push('=');
    }
    out
}

/// `sha1:<base32>` of `data`, the digest form of `WARC-Payload-Digest` / `WARC-Block-Digest`.
pub fn sha1_digest(data: &[u8]) -> String {
    format!(
        "sha1:{}",
        base32(&sha1_smol::Sha1::from(data).digest().bytes())
    )
}

/// An HTTP/1.1 response message: status line, headers (plus `Content-Length`), body.
/// Returns the message and the offset where the body (the WARC payload) starts.
pub fn http_response(
    status: u16,
    reason: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> (Vec<u8>, usize) {
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
    for (name, value) in headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let offset = head.len();
    let mut message = head.into_bytes();
    message.extend_from_slice(body);
    (message, offset)
}

/// An HTTP/1.1 GET request message for `path` on `host`.
pub fn http_request(host: &str, path: &str, user_agent: &str, referer: Option<&str>) -> Vec<u8> {
    let mut message = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {user_agent}\r\n\
         Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\nAccept-Encoding: identity\r\n"
    );
    if let Some(referer) = referer {
        message.push_str(&format!("Referer: {referer}\r\n"));
    }
    message.push_str("Connection: close\r\n\r\n");
    message.into_bytes()
}

/// One WARC record before serialisation.
#[derive(Debug, Clone)]
pub struct WarcRecord<'a> {
    /// `WARC-Type`.
    pub warc_type: &'static str,
    /// `WARC-Record-ID`, `<urn:uuid:…>`.
    pub id: &'a str,
    /// `WARC-Date`.
    pub date: &'a str,
    /// Further named fields in the order they are written (`WARC-Target-URI`, digests, ...).
    pub fields: Vec<(&'static str, String)>,
    /// `Content-Type` of the block.
    pub content_type: &'static str,
    /// The record block.
    pub block: &'a [u8],
}

impl WarcRecord<'_> {
    /// The uncompressed record: version line, fields, `Content-Length`, blank line, block, CRLF CRLF.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "WARC/1.1\r\nWARC-Type: {}\r\nWARC-Record-ID: {}\r\nWARC-Date: {}\r\n",
            self.warc_type, self.id, self.date
        );
        for (name, value) in &self.fields {
            head.push_str(name);
            head.push_str(": ");
            head.push_str(value);
            head.push_str("\r\n");
        }
        head.push_str(&format!(
            "Content-Type: {}\r\nContent-Length: {}\r\n\r\n",
            self.content_type,
            self.block.len()
        ));
        let mut bytes = Vec::with_capacity(head.len() + self.block.len() + 4);
        bytes.extend_from_slice(head.as_bytes());
        bytes.extend_from_slice(self.block);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    }

    /// The record as one gzip member (header mtime 0, so the bytes are reproducible).
    pub fn to_gzip_member(&self, level: u32) -> std::io::Result<Vec<u8>> {
        let raw = self.to_bytes();
        let mut encoder =
            GzEncoder::new(Vec::with_capacity(raw.len() / 3), Compression::new(level));
        encoder.write_all(&raw)?;
        encoder.finish()
    }
}

/// A `response` record for an HTTP message whose payload starts at `payload_offset`.
pub fn response<'a>(
    id: &'a str,
    date: &'a str,
    uri: &str,
    ip: &str,
    message: &'a [u8],
    payload_offset: usize,
) -> WarcRecord<'a> {
    let payload = message.get(payload_offset..).unwrap_or_default();
    WarcRecord {
        warc_type: "response",
        id,
        date,
        fields: vec![
            ("WARC-Target-URI", uri.to_string()),
            ("WARC-IP-Address", ip.to_string()),
            ("WARC-Block-Digest", sha1_digest(message)),
            ("WARC-Payload-Digest", sha1_digest(payload)),
        ],
        content_type: "application/http;msgtype=response",
        block: message,
    }
}

/// A `request` record made at the same time as the response `concurrent_to`.
pub fn request<'a>(
    id: &'a str,
    date: &'a str,
    uri: &str,
    concurrent_to: &str,
    message: &'a [u8],
) -> WarcRecord<'a> {
    WarcRecord {
        warc_type: "request",
        id,
        date,
        fields: vec![
            ("WARC-Target-URI", uri.to_string()),
            ("WARC-Concurrent-To", concurrent_to.to_string()),
            ("WARC-Block-Digest", sha1_digest(message)),
        ],
        content_type: "application/http;msgtype=request",
        block: message,
    }
}

/// What a `revisit` record points back to.
#[derive(Debug, Clone)]
pub struct RefersTo {
    /// `WARC-Record-ID` of the earlier response.
    pub id: String,
    /// Its `WARC-Target-URI`.
    pub uri: String,
    /// Its `WARC-Date`.
    pub date: String,
    /// Its `WARC-Payload-Digest` (equal to this capture's, by the profile's definition).
    pub payload_digest: String,
}

/// A `revisit` record (identical-payload-digest profile): the block is the HTTP header only.
pub fn revisit<'a>(
    id: &'a str,
    date: &'a str,
    uri: &str,
    refers: &RefersTo,
    http_header: &'a [u8],
) -> WarcRecord<'a> {
    WarcRecord {
        warc_type: "revisit",
        id,
        date,
        fields: vec![
            ("WARC-Target-URI", uri.to_string()),
            ("WARC-Profile", REVISIT_PROFILE.to_string()),
            ("WARC-Refers-To", refers.id.clone()),
            ("WARC-Refers-To-Target-URI", refers.uri.clone()),
            ("WARC-Refers-To-Date", refers.date.clone()),
            ("WARC-Payload-Digest", refers.payload_digest.clone()),
            ("WARC-Block-Digest", sha1_digest(http_header)),
        ],
        content_type: "application/http;msgtype=response",
        block: http_header,
    }
}

/// The `warcinfo` record that opens a file.
pub fn warcinfo<'a>(
    id: &'a str,
    date: &'a str,
    filename: &str,
    fields: &'a [u8],
) -> WarcRecord<'a> {
    WarcRecord {
        warc_type: "warcinfo",
        id,
        date,
        fields: vec![("WARC-Filename", filename.to_string())],
        content_type: "application/warc-fields",
        block: fields,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_and_sha1_match_known_values() {
        // RFC 4648 test vectors.
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI======");
        assert_eq!(base32(b"f"), "MY======");
        // sha1("") = da39a3ee..., whose base32 is the well-known value below.
        assert_eq!(sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
    }

    #[test]
    fn record_layout_and_ids() {
        let id = record_id(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        assert_eq!(id, "<urn:uuid:01234567-89ab-4def-8123-456789abcdef>");
        let (message, offset) =
            http_response(200, "OK", &[("Content-Type", "text/plain".into())], b"hi");
        assert_eq!(&message[offset..], b"hi");
        let record = response(
            &id,
            "2024-03-01T00:00:00Z",
            "http://a.example/",
            "10.0.0.1",
            &message,
            offset,
        );
        let bytes = record.to_bytes();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.starts_with("WARC/1.1\r\nWARC-Type: response\r\n"));
        assert!(text.contains(&format!(
            "Content-Length: {}\r\n\r\nHTTP/1.1 200 OK",
            message.len()
        )));
        assert!(text.ends_with("hi\r\n\r\n"));
    }
}
