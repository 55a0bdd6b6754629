//! Turning a batch of [`Capture`]s into output: WARC records (gzip members) or loose `.html`
//! files, and the gold lines that go with them.
//!
//! In: captures of one batch in capture-time order. Out: a [`WarcBatch`] (bytes to append,
//! gold `(record id, cluster)` pairs, counts) or a list of [`LoosePage`]s.
//!
//! Each fetch becomes a `request` record (with `WARC-Concurrent-To` naming its response) and then
//! its `response`, or its `revisit` (identical-payload-digest profile) for an unchanged recapture.
//! Gold lists every HTML page by the `WARC-Record-ID` of its response, and every revisit of a page
//! by the revisit's own id, in the page's cluster (that is the key the archive readers give a
//! revisit document).

use std::collections::HashMap;

use super::corpus::{Capture, CaptureKind};
use super::mix;
use super::sites::SITES;
use super::warc_writer::{self, RefersTo};
use crate::{Error, Result};

/// User agent of the synthetic crawler.
pub const USER_AGENT: &str = "samecore-synth/0.1 (+https://example.org/samecore)";

/// The output of one batch as WARC.
#[derive(Debug, Default)]
pub struct WarcBatch {
    /// Concatenated gzip members.
    pub bytes: Vec<u8>,
    /// `(WARC-Record-ID, cluster)` for each HTML page and each revisit of one.
    pub gold: Vec<(String, String)>,
    /// HTML responses with status 200.
    pub pages: u64,
    /// Revisit records.
    pub revisits: u64,
    /// Non-HTML responses and non-200 responses.
    pub others: u64,
    /// WARC records written.
    pub records: u64,
}

/// The record id of the `role`-th record of capture `serial` (0 response/revisit, 1 request).
pub fn capture_record_id(seed: u64, serial: u64, role: u64) -> String {
    let high = mix(seed, &[0x5741_5243, serial, role]);
    let low = mix(seed, &[0x4944_5331, serial, role]);
    warc_writer::record_id((u128::from(high) << 64) | u128::from(low))
}

/// Host and path-with-query of an absolute URL.
fn host_and_path(uri: &str) -> (&str, &str) {
    let rest = uri.split_once("://").map_or(uri, |(_, rest)| rest);
    match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/"),
    }
}

fn server_of(site: usize) -> &'static str {
    ["nginx", "Apache", "cloudflare", "nginx/1.24.0"][site % 4]
}

/// Serialise one batch as WARC records, one gzip member each, at compression `level`.
pub fn warc_batch(seed: u64, captures: &[Capture], level: u32) -> Result<WarcBatch> {
    let mut out = WarcBatch::default();
    let mut earlier: HashMap<u64, (RefersTo, usize)> = HashMap::new();
    for capture in captures {
        let date = capture.at.warc_date();
        let id = capture_record_id(seed, capture.serial, 0);
        let request_id = capture_record_id(seed, capture.serial, 1);
        let (host, path) = host_and_path(&capture.uri);
        let ip = format!("192.0.2.{}", 10 + capture.site);
        let mut headers = vec![
            ("Date", capture.at.http_date()),
            ("Server", server_of(capture.site).to_string()),
            ("Content-Type", capture.content_type().to_string()),
        ];
        let (status, reason, body): (u16, &str, &[u8]) = match &capture.kind {
            CaptureKind::Page { body, .. } | CaptureKind::Asset { body, .. } => (200, "OK", body),
            CaptureKind::Status {
                status,
                location,
                body,
            } => {
                if let Some(location) = location {
                    headers.push(("Location", location.clone()));
                }
                let reason = if *status == 301 {
                    "Moved Permanently"
                } else {
                    "Not Found"
                };
                (*status, reason, body)
            }
            CaptureKind::Revisit { .. } => (200, "OK", &[]),
        };
        headers.push(("Cache-Control", "max-age=300".to_string()));
        let request_message = warc_writer::http_request(host, path, USER_AGENT, None);
        let request = warc_writer::request(&request_id, &date, &capture.uri, &id, &request_message);
        out.bytes
            .extend(request.to_gzip_member(level).map_err(io_error)?);
        let member = match &capture.kind {
            CaptureKind::Revisit { of, cluster } => {
                let Some((refers, length)) = earlier.get(of) else {
                    return Err(Error::InvalidParameter(format!(
                        "synth: revisit of capture {of} that was not written before it"
                    )));
                };
                // The header the server sent again; the payload is the earlier one.
                let body_stand_in = vec![0u8; *length];
                let (message, offset) =
                    warc_writer::http_response(status, reason, &headers, &body_stand_in);
                let record =
                    warc_writer::revisit(&id, &date, &capture.uri, refers, &message[..offset]);
                out.revisits += 1;
                out.gold.push((id.clone(), cluster.clone()));
                record.to_gzip_member(level)
            }
            kind => {
                let (message, offset) = warc_writer::http_response(status, reason, &headers, body);
                let record = warc_writer::response(&id, &date, &capture.uri, &ip, &message, offset);
                if let CaptureKind::Page { cluster, .. } = kind {
                    let digest = record
                        .fields
                        .iter()
                        .find(|(name, _)| *name == "WARC-Payload-Digest")
                        .map(|(_, value)| value.clone())
                        .unwrap_or_default();
                    let refers = RefersTo {
                        id: id.clone(),
                        uri: capture.uri.clone(),
                        date: date.clone(),
                        payload_digest: digest,
                    };
                    earlier.insert(capture.serial, (refers, body.len()));
                    out.pages += 1;
                    out.gold.push((id.clone(), cluster.clone()));
                } else {
                    out.others += 1;
                }
                record.to_gzip_member(level)
            }
        };
        out.bytes.extend(member.map_err(io_error)?);
        out.records += 2;
    }
    Ok(out)
}

fn io_error(source: std::io::Error) -> Error {
    Error::io(source, "<gzip member in memory>")
}

/// One page of a folder-of-pages output.
#[derive(Debug)]
pub struct LoosePage {
    /// Path relative to the output folder, `<cluster>/<site>-<serial>.html`.
    pub path: String,
    /// Gold cluster (also the sub-folder name, which the folder reader takes as gold).
    pub cluster: String,
    /// The page bytes in the site's charset.
    pub body: Vec<u8>,
}

/// The HTML pages of a batch as loose files. Revisits are left out (they would be byte-identical
/// files); non-HTML and error responses too, as a folder of pages has no place for them.
pub fn loose_pages(captures: Vec<Capture>) -> Vec<LoosePage> {
    captures
        .into_iter()
        .filter_map(|capture| match capture.kind {
            CaptureKind::Page {
                cluster,
                site,
                body,
            } => Some(LoosePage {
                path: format!("{cluster}/{}-{:010}.html", site_slug(site), capture.serial),
                cluster,
                body,
            }),
            _ => None,
        })
        .collect()
}

fn site_slug(site: usize) -> String {
    let host = host_and_path(SITES[site % SITES.len()].origin).0;
    host.split('.')
        .find(|p| *p != "www")
        .unwrap_or("site")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_urls() {
        assert_eq!(
            host_and_path("https://a.example/x/y?z=1"),
            ("a.example", "/x/y?z=1")
        );
        assert_eq!(host_and_path("http://a.example"), ("a.example", "/"));
        assert_eq!(site_slug(0), "millbrookcourier");
        assert_ne!(capture_record_id(1, 2, 0), capture_record_id(1, 2, 1));
    }
}
