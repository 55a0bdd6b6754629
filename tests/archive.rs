//! Archive readers end to end: small archives built in a temp dir, bad input, and (when
//! `../shared/data` is present) the real WARC files cross-checked against warcio's counts.

use std::path::{Path, PathBuf};

use samecore::archive::{self, ReadOptions};
use samecore::progress::Progress;

mod common;

#[path = "archive/bad_input.rs"]
mod bad_input;

fn write(dir: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn folder_of_pages_keys_gold_titles_and_raw_reread() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Smoking/s12.htm",
        b"<html><title>Smoke  one</title>body</html>",
    );
    write(
        dir.path(),
        "Smoking/s2.HTML",
        b"<html><title>Smoke two</title></html>",
    );
    write(dir.path(), "Cars/sub/c1.html", b"<title>Car</title>");
    write(dir.path(), "loose.htm", b"<title>Loose</title>");
    write(dir.path(), "Cars/logo.png", b"\x89PNG");
    write(dir.path(), "Cars/empty.htm", b"");
    let coll = archive::load(
        &[dir.path().to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    let keys: Vec<&str> = coll.docs.iter().map(|d| &*d.key).collect();
    assert_eq!(
        keys,
        [
            "Cars/sub/c1.html",
            "Smoking/s12.htm",
            "Smoking/s2.HTML",
            "loose.htm"
        ]
    );
    let gold: Vec<Option<&str>> = coll.docs.iter().map(|d| d.gold.as_deref()).collect();
    assert_eq!(gold, [Some("Cars"), Some("Smoking"), Some("Smoking"), None]);
    assert_eq!(coll.docs[1].title.as_deref(), Some("Smoke one"));
    assert!(coll.docs[1].html.text().contains("body"));
    let report = &coll.reports[0];
    assert_eq!(report.format, "folder");
    assert_eq!(report.records.get("file"), Some(&6));
    assert_eq!(report.documents, 4);
    assert_eq!(report.skipped.get("not-html"), Some(&1));
    assert_eq!(report.skipped.get("empty"), Some(&1));
    let raw = archive::read_raw(&coll.docs[1].location).unwrap();
    assert_eq!(raw, b"<html><title>Smoke  one</title>body</html>");
    // The pages are read by the decoding threads: each location has its page's length, and
    // the report counts the bytes of the pages read.
    let lengths: Vec<u64> = coll.docs.iter().map(|d| d.location.length).collect();
    assert_eq!(lengths, [18, 42, 37, 20]);
    assert_eq!(report.bytes, 18 + 42 + 37 + 20);
}

/// A page that cannot be read is a warning naming it and a skip; the others are read.
#[cfg(unix)]
#[test]
fn an_unreadable_page_of_a_folder_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.html", b"<title>A</title>");
    std::os::unix::fs::symlink(dir.path().join("gone.html"), dir.path().join("broken.html"))
        .unwrap();
    let coll = archive::load(
        &[dir.path().to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    assert_eq!(coll.docs.len(), 1);
    let report = &coll.reports[0];
    // A symlink that leads nowhere is named as such (not counted silently as a page).
    assert_eq!(report.skipped.get("symlink"), Some(&1));
    assert!(
        report.warnings.iter().any(|w| {
            let w = w.to_string();
            w.contains("broken.html") && w.contains("leads nowhere")
        }),
        "{:?}",
        report.warnings
    );
    assert_eq!(report.bytes, 16);
}

#[test]
fn goldset_dev_loads_with_clusters() {
    let Some(gold) = common::shared("data/goldset-dev") else {
        return;
    };
    let coll = archive::load(&[gold], &ReadOptions::default(), &Progress::new()).unwrap();
    assert_eq!(coll.docs.len(), 1117);
    let clusters: std::collections::BTreeSet<&str> =
        coll.docs.iter().filter_map(|d| d.gold.as_deref()).collect();
    assert_eq!(clusters.len(), 34);
    assert!(
        coll.docs
            .iter()
            .all(|d| !d.html.is_empty() && !d.charset.is_empty())
    );
}

// ---------------------------------------------------------------------------------------------
// Builders for small archives.

fn http_page(status: &str, content_type: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn record(kind: &str, uri: &str, id: &str, extra: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2024-05-0{}T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:{id}>\r\n",
        id.len() % 9 + 1
    );
    if kind == "response" || kind == "revisit" || kind == "request" {
        head.push_str("Content-Type: application/http; msgtype=response\r\n");
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    let mut out = head.into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A WARC with one record of every kind the reader must tell apart. Returns the records.
fn sample_records() -> Vec<Vec<u8>> {
    let page_a = "<html><head><title>Page A</title></head><body>story a</body></html>";
    let page_b =
        "<html><head><meta charset=\"windows-1252\"><title>Caf\u{e9} B</title></head></html>";
    let (page_b_bytes, _, _) = encoding_rs::WINDOWS_1252.encode(page_b);
    let mut resp_b = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    resp_b.extend_from_slice(&page_b_bytes);
    vec![
        record(
            "warcinfo",
            "",
            "info",
            &[("Content-Type", "application/warc-fields")],
            b"software: test\r\n",
        ),
        record(
            "request",
            "http://a.example.com/",
            "req-a",
            &[],
            b"GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        ),
        record(
            "response",
            "http://a.example.com/",
            "resp-a",
            &[("WARC-Payload-Digest", "sha1:AAAA")],
            &http_page("200 OK", "text/html; charset=utf-8", page_a),
        ),
        record(
            "response",
            "http://www.b.example.co.uk/x",
            "resp-b",
            &[],
            &resp_b,
        ),
        record(
            "response",
            "http://a.example.com/logo.png",
            "resp-png",
            &[],
            &http_page("200 OK", "image/png", "PNG"),
        ),
        record(
            "response",
            "http://a.example.com/gone",
            "resp-404",
            &[],
            &http_page("404 Not Found", "text/html", "<p>no</p>"),
        ),
        record(
            "response",
            "http://a.example.com/empty",
            "resp-empty",
            &[],
            &http_page("200 OK", "text/html", ""),
        ),
        record(
            "revisit",
            "http://a.example.com/",
            "rev-a",
            &[
                ("WARC-Refers-To", "<urn:uuid:resp-a>"),
                ("WARC-Payload-Digest", "sha1:AAAA"),
            ],
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
        ),
        record(
            "revisit",
            "http://c.example.com/",
            "rev-lost",
            &[("WARC-Payload-Digest", "sha1:ZZZZ")],
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
        ),
        record(
            "metadata",
            "http://a.example.com/",
            "meta",
            &[("Content-Type", "application/warc-fields")],
            b"via: x\r\n",
        ),
    ]
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, bytes).unwrap();
    enc.finish().unwrap()
}

fn read_all(path: &Path) -> (Vec<samecore::Document>, samecore::archive::FileReport) {
    let mut docs = Vec::new();
    let report = archive::read_file(path, &ReadOptions::default(), &Progress::new(), &mut |d| {
        docs.push(d)
    })
    .unwrap();
    (docs, report)
}

fn counts(report: &samecore::archive::FileReport) -> Vec<(String, u64)> {
    report
        .records
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

fn check_sample(docs: &[samecore::Document], report: &samecore::archive::FileReport) {
    assert_eq!(
        counts(report),
        [
            ("metadata", 1),
            ("request", 1),
            ("response", 5),
            ("revisit", 2),
            ("warcinfo", 1)
        ]
        .map(|(k, v)| (k.to_string(), v))
    );
    assert_eq!(report.html_responses, 3, "a, b, empty");
    assert_eq!(report.documents, 3, "a, b and the revisit of a");
    let skipped: Vec<(&str, u64)> = report
        .skipped
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        skipped,
        [
            ("empty", 1),
            ("not-html", 1),
            ("revisit-unresolved", 1),
            ("status-404", 1)
        ]
    );
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let keys: Vec<&str> = docs.iter().map(|d| &*d.key).collect();
    assert_eq!(
        keys,
        ["<urn:uuid:resp-a>", "<urn:uuid:resp-b>", "<urn:uuid:rev-a>"]
    );
    let a = &docs[0];
    assert_eq!(a.title.as_deref(), Some("Page A"));
    assert_eq!(a.url.as_deref(), Some("http://a.example.com/"));
    assert_eq!(a.status, Some(200));
    assert_eq!(a.content_type.as_deref(), Some("text/html"));
    assert_eq!(a.payload_digest.as_deref(), Some("sha1:AAAA"));
    assert_eq!(&*a.site.registrable, "example.com");
    assert_eq!(&*a.charset, "utf-8");
    let b = &docs[1];
    assert_eq!(&*b.charset, "windows-1252");
    assert_eq!(b.title.as_deref(), Some("Caf\u{e9} B"));
    assert_eq!(&*b.site.henzinger, "b.example.co.uk");
    assert_eq!(&*b.site.registrable, "example.co.uk");
    let rev = &docs[2];
    assert_eq!(rev.revisit_of.as_deref(), Some("<urn:uuid:resp-a>"));
    assert_eq!(rev.html, a.html);
    assert_eq!(rev.title.as_deref(), Some("Page A"));
    for doc in docs {
        let raw = archive::read_raw(&doc.location).unwrap();
        assert!(
            String::from_utf8_lossy(&raw).contains("<title>"),
            "{}",
            doc.key
        );
    }
    assert_eq!(
        archive::read_raw(&a.location).unwrap(),
        b"<html><head><title>Page A</title></head><body>story a</body></html>"
    );
}

/// A revisit takes the latest capture before it in its file (by record id, else URL and date,
/// else digest), and not one after it; its key, status and content type are its original's,
/// read again with the original's page. Plain and gzip-per-record alike.
#[test]
fn a_revisit_resolves_to_the_latest_original_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let page = |text: &str| {
        http_page(
            "200 OK",
            "text/html; charset=utf-8",
            &format!("<html><head><title>{text}</title></head><body>{text}</body></html>"),
        )
    };
    let revisit_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    let records = [
        record(
            "response",
            "http://x.example.com/",
            "o1",
            &[("WARC-Payload-Digest", "sha1:SAME")],
            &page("first"),
        ),
        record(
            "revisit",
            "http://y.example.com/",
            "r1",
            &[("WARC-Payload-Digest", "sha1:SAME")],
            revisit_head,
        ),
        record(
            "response",
            "http://z.example.com/",
            "o2",
            &[("WARC-Payload-Digest", "sha1:SAME")],
            &page("second"),
        ),
        record(
            "revisit",
            "http://w.example.com/",
            "r2",
            &[("WARC-Payload-Digest", "sha1:SAME")],
            revisit_head,
        ),
        record(
            "revisit",
            "http://v.example.com/",
            "r3",
            &[
                ("WARC-Refers-To", "<urn:uuid:o3>"),
                ("WARC-Payload-Digest", "sha1:OTHER"),
            ],
            revisit_head,
        ),
        record(
            "response",
            "http://u.example.com/",
            "o3",
            &[("WARC-Payload-Digest", "sha1:OTHER")],
            &page("third"),
        ),
    ];
    let plain = write(dir.path(), "r.warc", &records.concat());
    let members = write(
        dir.path(),
        "r.warc.gz",
        &records.iter().flat_map(|r| gzip(r)).collect::<Vec<u8>>(),
    );
    for path in [&plain, &members] {
        let (docs, report) = read_all(path);
        let by_key = |k: &str| docs.iter().find(|d| *d.key == *format!("<urn:uuid:{k}>"));
        let (r1, r2) = (by_key("r1").unwrap(), by_key("r2").unwrap());
        assert_eq!(r1.revisit_of.as_deref(), Some("<urn:uuid:o1>"));
        assert_eq!(r1.title.as_deref(), Some("first"));
        assert_eq!(r2.revisit_of.as_deref(), Some("<urn:uuid:o2>"));
        assert_eq!(r2.title.as_deref(), Some("second"));
        assert_eq!(r2.location, by_key("o2").unwrap().location);
        assert_eq!(r2.content_type.as_deref(), Some("text/html"));
        assert_eq!(r2.status, Some(200));
        // Its own identity stays.
        assert_eq!(r2.url.as_deref(), Some("http://w.example.com/"));
        // r3's original comes after it: not resolved inside the file.
        assert!(by_key("r3").is_none());
        assert_eq!(report.skipped.get("revisit-unresolved"), Some(&1));
        assert_eq!(report.documents, 5, "{}", path.display());
    }
    // Loaded, the documents are in record order, the revisits in their places.
    let coll = archive::load(&[members], &ReadOptions::default(), &Progress::new()).unwrap();
    let keys: Vec<&str> = coll.docs.iter().map(|d| &*d.key).collect();
    assert_eq!(
        &keys[..4],
        [
            "<urn:uuid:o1>",
            "<urn:uuid:r1>",
            "<urn:uuid:o2>",
            "<urn:uuid:r2>"
        ]
    );
}

#[test]
fn warc_plain_gzip_per_record_and_gzip_whole_read_alike() {
    let dir = tempfile::tempdir().unwrap();
    let records = sample_records();
    let plain = write(dir.path(), "s.warc", &records.concat());
    let per_record: Vec<u8> = records.iter().flat_map(|r| gzip(r)).collect();
    let members = write(dir.path(), "s.warc.gz", &per_record);
    let whole = write(dir.path(), "whole.warc.gz", &gzip(&records.concat()));
    for (path, storage) in [
        (&plain, samecore::document::Storage::Plain),
        (&members, samecore::document::Storage::GzipMember),
        (&whole, samecore::document::Storage::GzipWhole),
    ] {
        let (docs, report) = read_all(path);
        check_sample(&docs, &report);
        assert_eq!(docs[1].location.storage, storage, "{}", path.display());
    }
    // Offsets point at the records: the second page's record starts where the plain file says.
    let (docs, _) = read_all(&plain);
    let start = records[..3].iter().map(Vec::len).sum::<usize>() as u64;
    assert_eq!(docs[1].location.offset, start);
    assert_eq!(docs[1].location.length, records[3].len() as u64);
    let (docs, _) = read_all(&members);
    let start: usize = records[..3].iter().map(|r| gzip(r).len()).sum();
    assert_eq!(
        (docs[1].location.offset, docs[1].location.length),
        (start as u64, gzip(&records[3]).len() as u64)
    );
}

#[test]
fn cancel_stops_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.warc", &sample_records().concat());
    let progress = Progress::new();
    progress.cancel();
    let err =
        archive::read_file(&path, &ReadOptions::default(), &progress, &mut |_| {}).unwrap_err();
    assert!(matches!(err, samecore::Error::Cancelled));
}

fn arc_file() -> Vec<u8> {
    let version = "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
    let mut out = format!(
        "filedesc://t.arc 0.0.0.0 20080430204825 text/plain {}\n{version}\n",
        version.len()
    )
    .into_bytes();
    for (url, status, ctype, body) in [
        (
            "http://www.news.example.com/a",
            "200 OK",
            "text/html",
            "<title>Arc page</title>hello",
        ),
        (
            "http://www.news.example.com/i.gif",
            "200 OK",
            "image/gif",
            "GIF89a",
        ),
        (
            "http://www.news.example.com/x",
            "500 Oops",
            "text/html",
            "err",
        ),
    ] {
        let block = http_page(status, ctype, body);
        out.extend_from_slice(
            format!("{url} 10.0.0.1 20080430204826 {ctype} {}\n", block.len()).as_bytes(),
        );
        out.extend_from_slice(&block);
        out.push(b'\n');
    }
    out
}

#[test]
fn arc_plain_and_gzip() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(dir.path(), "t.arc", &arc_file());
    let gz = write(dir.path(), "t.arc.gz", &gzip(&arc_file()));
    for path in [plain, gz] {
        let (docs, report) = read_all(&path);
        assert_eq!(
            counts(&report),
            [("response".to_string(), 3), ("warcinfo".to_string(), 1)]
        );
        assert_eq!((report.html_responses, report.documents), (1, 1));
        assert_eq!(report.skipped.get("status-500"), Some(&1));
        let doc = &docs[0];
        assert_eq!(&*doc.key, "http://www.news.example.com/a 20080430204826");
        assert_eq!(doc.date.as_deref(), Some("2008-04-30T20:48:26Z"));
        assert_eq!(doc.title.as_deref(), Some("Arc page"));
        assert_eq!(&*doc.site.henzinger, "news.example.com");
        assert_eq!(
            archive::read_raw(&doc.location).unwrap(),
            b"<title>Arc page</title>hello"
        );
    }
}

fn zip_of(entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes, stored) in entries {
        let method = if *stored {
            zip::CompressionMethod::Stored
        } else {
            zip::CompressionMethod::Deflated
        };
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        writer.start_file(*name, options).unwrap();
        std::io::Write::write_all(&mut writer, bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

#[test]
fn wacz_stored_and_deflated_with_page_titles() {
    let dir = tempfile::tempdir().unwrap();
    let warc = sample_records().concat();
    let warc_gz: Vec<u8> = sample_records().iter().flat_map(|r| gzip(r)).collect();
    let pages = b"{\"format\":\"json-pages-1.0\"}\n{\"url\":\"http://a.example.com/\",\"ts\":\"2024\",\"title\":\"Listed  title\"}\n";
    for (name, stored) in [("stored.wacz", true), ("deflated.wacz", false)] {
        let bytes = zip_of(&[
            ("datapackage.json", b"{}", true),
            ("archive/data.warc", &warc, stored),
            ("archive/more.warc.gz", &warc_gz, stored),
            ("pages/pages.jsonl", pages, false),
        ]);
        let path = write(dir.path(), name, &bytes);
        let (docs, report) = read_all(&path);
        assert_eq!(report.format, "wacz");
        assert_eq!(report.documents, 6, "{name}");
        assert_eq!(report.records.get("response"), Some(&10));
        assert_eq!(docs[0].title.as_deref(), Some("Listed title"));
        assert_eq!(docs[1].title.as_deref(), Some("Caf\u{e9} B"));
        for doc in &docs {
            let raw = archive::read_raw(&doc.location).unwrap();
            assert!(
                String::from_utf8_lossy(&raw).contains("<title>"),
                "{name} {}",
                doc.key
            );
        }
    }
}

#[test]
fn zip_of_pages_strips_top_folder_and_refuses_parent_paths() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = zip_of(&[
        ("gold/Smoking/s1.htm", b"<title>One</title>", false),
        ("gold/Smoking/s2.htm", b"<title>Two</title>", true),
        ("gold/Cars/c1.html", b"<title>Car</title>", false),
        ("gold/../evil.htm", b"<title>Evil</title>", false),
        ("../outside.htm", b"<title>Out</title>", false),
    ]);
    let path = write(dir.path(), "pages.zip", &bytes);
    let (docs, report) = read_all(&path);
    let keys: Vec<&str> = docs.iter().map(|d| &*d.key).collect();
    assert_eq!(keys, ["Cars/c1.html", "Smoking/s1.htm", "Smoking/s2.htm"]);
    assert_eq!(docs[1].gold.as_deref(), Some("Smoking"));
    assert_eq!(report.skipped.get("unsafe-path"), Some(&2));
    assert_eq!(report.warnings.len(), 2);
    assert!(report.warnings[0].message.contains("unsafe path"));
    assert_eq!(
        archive::read_raw(&docs[2].location).unwrap(),
        b"<title>Two</title>"
    );
}

#[derive(serde::Deserialize)]
struct Reference {
    records: std::collections::BTreeMap<String, u64>,
    html_responses: u64,
}

/// Regenerate the fixture with `python3 tests/fixtures/warcio_counts.py ../shared/data/warc/* >
/// tests/fixtures/warcio_counts.json`.
#[test]
fn real_warcs_match_warcio_counts() {
    let Some(dir) = common::shared("data/warc") else {
        return;
    };
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/warcio_counts.json");
    let reference: std::collections::BTreeMap<String, Reference> =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        reference.len(),
        "every shared file has reference counts"
    );
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expected = &reference[&name];
        let (docs, report) = read_all(&path);
        assert_eq!(report.records, expected.records, "{name}");
        assert_eq!(report.html_responses, expected.html_responses, "{name}");
        // The only warning real files give: ipwb's test file reuses one WARC-Record-ID for
        // seven captures (real crawlers do this); the pages are told apart by capture.
        let unexpected: Vec<_> = report
            .warnings
            .iter()
            .filter(|w| !w.message.contains("reuse a WARC-Record-ID"))
            .collect();
        assert!(unexpected.is_empty(), "{name}: {unexpected:?}");
        assert_eq!(
            report.warnings.len(),
            usize::from(name == "ipwb__5mementos.warc"),
            "{name}: {:?}",
            report.warnings
        );
        assert!(
            docs.len() as u64
                >= report.html_responses - report.skipped.get("empty").copied().unwrap_or(0)
        );
        for doc in docs.iter().step_by(7) {
            let raw = archive::read_raw(&doc.location).unwrap();
            assert!(!raw.is_empty(), "{name} {}", doc.key);
        }
    }
}

#[test]
fn revisits_resolve_across_files_in_load() {
    let Some(dir) = common::shared("data/warc") else {
        return;
    };
    let crawl1 = dir.join("ukwa__datagovuk_crawl1_BL-20140325121225068.warc.gz");
    let crawl2 = dir.join("ukwa__datagovuk_crawl2_revisits_BL-20140325122341434.warc.gz");
    let alone = archive::load(
        std::slice::from_ref(&crawl2),
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    let unresolved = alone.reports[0]
        .skipped
        .get("revisit-unresolved")
        .copied()
        .unwrap_or(0);
    assert!(unresolved > 0);
    let both = archive::load(&[crawl1, crawl2], &ReadOptions::default(), &Progress::new()).unwrap();
    let report = &both.reports[1];
    let still = report
        .skipped
        .get("revisit-unresolved")
        .copied()
        .unwrap_or(0);
    assert!(
        still < unresolved,
        "{still} of {unresolved} still unresolved"
    );
    let revisits: Vec<_> = both
        .docs
        .iter()
        .filter(|d| d.revisit_of.is_some())
        .collect();
    assert_eq!(revisits.len() as u64, unresolved - still);
    assert!(revisits.iter().all(|d| !d.html.is_empty()));
    assert_eq!(
        report.documents,
        alone.reports[0].documents + revisits.len() as u64
    );
}

#[test]
fn info_cli_prints_one_json_object_per_file_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let warc = write(dir.path(), "s.warc", &sample_records().concat());
    let arc = write(dir.path(), "t.arc.gz", &gzip(&arc_file()));
    let text = common::samecore([
        "info".as_ref(),
        "--json".as_ref(),
        warc.as_os_str(),
        arc.as_os_str(),
    ]);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["file"], warc.display().to_string());
    assert_eq!(lines[0]["records"]["response"], 5);
    assert_eq!(lines[0]["html_responses"], 3);
    assert_eq!(lines[0]["documents"], 3);
    assert_eq!(lines[0]["skipped"]["status-404"], 1);
    assert!(lines[0]["warnings"].as_array().unwrap().is_empty());
    assert_eq!(lines[1]["format"], "arc.gz");
    assert_eq!(lines[1]["records"]["warcinfo"], 1);
    let text = common::samecore(["info".as_ref(), warc.as_os_str()]);
    assert!(text.contains("html responses: 3"), "{text}");
    assert!(text.contains("MB/s"), "{text}");
    let bad = write(dir.path(), "empty.warc", b"");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args(["info"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.trim_end().ends_with(&bad.display().to_string()),
        "{err}"
    );

    // A text file named .warc is named for what it holds; an empty folder gives `run` nothing
    // to match: an error that says what the input held, not an empty result.
    let notes = write(dir.path(), "notes.warc", b"meeting notes, not an archive\n");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
        .arg("run")
        .arg(&notes)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.contains("text, not an archive"),
        "{err}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
        .arg("run")
        .arg(&empty)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("no HTML page to work on") && err.contains("0 record(s)"),
        "{err}"
    );

    // Outputs that cannot be written are refused before the archive is read, naming the file
    // asked for.
    for (flag, out, says) in [
        (
            "--clusters",
            dir.path().join("c.txt"),
            "use .csv, .tsv, .jsonl or .parquet",
        ),
        ("--pairs", dir.path().join("nodir/p.csv"), "no such folder"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
            .arg("run")
            .arg(&warc)
            .arg(flag)
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success() && err.contains(says), "{err}");
        assert!(
            !err.contains("partial") && !err.contains("--format"),
            "{err}"
        );
    }
}

/// The cheap charset detection (`decode::detect`: UTF-8 without the detector, long ASCII runs
/// not fed) guesses what feeding `chardetng` every byte guesses, on every page of goldset-dev
/// and the real WARCs, whole and cut at a third (a partial sample).
#[test]
fn cheap_charset_detection_equals_full_detection_on_real_pages() {
    let (Some(gold), Some(warcs)) = (common::goldset(), common::shared("data/warc")) else {
        return;
    };
    let mut inputs = vec![gold];
    inputs.extend(
        std::fs::read_dir(&warcs)
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    let options = ReadOptions {
        keep_html: samecore::archive::KeepHtml::None,
        ..Default::default()
    };
    let mut checked = 0;
    for input in inputs {
        let collection = archive::load(&[input], &options, &Progress::new()).unwrap();
        for doc in collection.docs.iter().filter(|d| d.revisit_of.is_none()) {
            let bytes = archive::read_raw(&doc.location).unwrap();
            let tld = archive::decode::tld_of(doc.url.as_deref());
            for cut in [bytes.len(), bytes.len() / 3] {
                let sample = &bytes[..cut];
                assert_eq!(
                    archive::decode::detect(sample, tld.as_deref()),
                    archive::decode::detect_by_feeding_all(sample, tld.as_deref()),
                    "{} cut at {cut}",
                    doc.key
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 2 * 1117, "{checked}");
}

/// A folder of WARC files (how crawls are delivered) is read as those archives, not as a
/// folder of loose pages that holds none.
#[test]
fn a_folder_of_warcs_reads_its_archives() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(&sample, dir.path().join("crawl.warc.gz")).expect("copy");
    std::fs::write(dir.path().join("README.txt"), "not an archive").expect("write");
    let read = |path: &Path| {
        archive::load(
            &[path.to_path_buf()],
            &ReadOptions::default(),
            &Progress::new(),
        )
        .expect("load")
    };
    let folder = read(dir.path());
    let file = read(&sample);
    assert_eq!(folder.docs.len(), file.docs.len());
    assert!(folder.docs.len() > 400);
    assert_eq!(
        folder.reports.len(),
        1,
        "one report per archive of the folder"
    );
}

/// A page the collection does not hold is read again from its record as the very text the
/// reading decoded — on the sample, the same records in a whole-file gzip stream, every real
/// WARC alone and all together (revisits read their original's record, in their file or
/// another) and goldset-dev — and the workbench's reading holds exactly the pages whose record
/// cannot be read again cheaply by its offset. A record cut short since is an error, not a
/// shorter page.
#[test]
fn a_page_read_again_is_the_page_first_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sample = root.join("sample_archives/news-sample.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let mut plain = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(&sample).unwrap()),
        &mut plain,
    )
    .unwrap();
    let whole = write(dir.path(), "whole.warc.gz", &gzip(&plain));
    let cut = write(dir.path(), "cut.warc", &plain);
    let mut inputs = vec![vec![sample], vec![whole.clone()], vec![cut.clone()]];
    inputs.extend(common::goldset().map(|g| vec![g]));
    if let Some(warcs) = common::shared("data/warc") {
        let mut all: Vec<PathBuf> = std::fs::read_dir(&warcs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        all.sort();
        inputs.extend(all.iter().map(|w| vec![w.clone()]));
        inputs.push(all);
    }
    let bare = ReadOptions {
        keep_html: samecore::archive::KeepHtml::Unseekable,
        ..Default::default()
    };
    let (mut reread, mut held_pages) = (0, 0);
    for input in &inputs {
        let held = archive::load(input, &ReadOptions::default(), &Progress::new()).unwrap();
        let read = archive::load(input, &bare, &Progress::new()).unwrap();
        assert_eq!(held.docs.len(), read.docs.len(), "{input:?}");
        for (h, d) in held.docs.iter().zip(&read.docs) {
            assert_eq!(h.key, d.key);
            assert_eq!(
                d.html.is_held(),
                !d.location.storage.rereads_cheaply(),
                "{}",
                d.key
            );
            if d.html.is_held() {
                held_pages += 1;
            } else {
                reread += 1;
            }
            let text = archive::page_text(d).unwrap();
            assert!(text == h.html.text(), "{} of {input:?}", d.key);
        }
        if input == std::slice::from_ref(&whole) {
            assert!(read.docs.iter().all(|d| d.html.is_held()));
        }
    }
    assert!(reread > 0 && held_pages > 0, "{reread} {held_pages}");
    // The plain copy cut inside its last page's record: that page is an error, the others read.
    let read = archive::load(std::slice::from_ref(&cut), &bare, &Progress::new()).unwrap();
    let last = read.docs.iter().max_by_key(|d| d.location.offset).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&cut).unwrap();
    file.set_len(last.location.offset + last.location.length / 2)
        .unwrap();
    let err = archive::page_text(last).unwrap_err().to_string();
    assert!(err.contains("shorter"), "{err}");
    assert!(archive::page_text(&read.docs[0]).is_ok());
}

/// A page read without a URL (a folder or zip of pages) takes the site most of its links point
/// to, so exports, same-site strata and the site frame see one site; a page without links has
/// none.
#[test]
fn pages_of_a_folder_take_the_site_of_their_links() {
    let dir = tempfile::tempdir().unwrap();
    let links = r#"<a href="https://www.example.org/a">a</a> <a href="http://news.example.org/b">b</a>
        <a href="https://ads.other.net/x">x</a><p>story</p>"#;
    write(dir.path(), "s/linked.html", links.as_bytes());
    write(dir.path(), "s/bare.html", b"<p>no links here</p>");
    let coll = archive::load(
        &[dir.path().to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    let site = |name: &str| {
        let doc = coll.docs.iter().find(|d| d.key.ends_with(name)).unwrap();
        assert_eq!(doc.url, None);
        doc.site.registrable.clone()
    };
    assert_eq!(&*site("linked.html"), "example.org");
    assert_eq!(&*site("bare.html"), "");
}

/// `info` on several files reads them as `run` does: revisits whose originals are in another
/// file resolve (the UK Web Archive's second crawl of data.gov.uk revisits the first).
#[test]
fn info_resolves_revisits_across_the_files_given_together() {
    let Some(warcs) = common::shared("data/warc") else {
        return;
    };
    let crawls: Vec<PathBuf> = ["crawl1", "crawl2"]
        .iter()
        .map(|c| {
            std::fs::read_dir(&warcs)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.to_string_lossy().contains(&format!("datagovuk_{c}")))
                .unwrap()
        })
        .collect();
    let reports = |files: &[PathBuf]| -> Vec<serde_json::Value> {
        let mut args: Vec<&std::ffi::OsStr> = vec!["info".as_ref(), "--json".as_ref()];
        args.extend(files.iter().map(|f| f.as_os_str()));
        common::samecore(args)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let alone = reports(&crawls[1..]);
    let together = reports(&crawls);
    assert!(alone[0]["skipped"]["revisit-unresolved"].as_u64() > Some(0));
    assert!(
        together[1]["skipped"].get("revisit-unresolved").is_none(),
        "{together:?}"
    );
    assert!(together[1]["documents"].as_u64() > alone[0]["documents"].as_u64());
    assert_eq!(
        together[0]["documents"],
        reports(&crawls[..1])[0]["documents"]
    );
}
