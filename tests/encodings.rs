//! Pages in legacy encodings read right in every reader: a page per
//! encoding, made here with `encoding_rs`, declared in the HTTP header (WARC, ARC, WACZ), in a
//! `<meta>` (folders, zips), or not at all (statistical detection, with and without the URL's
//! country domain to help), must decode to the text it was made from.

use std::path::{Path, PathBuf};

use samecore::archive::{self, ReadOptions};
use samecore::progress::Progress;

/// (WHATWG label, country domain, text in that encoding's language).
const PAGES: &[(&str, &str, &str)] = &[
    (
        "shift_jis",
        "jp",
        "日本語のニュース記事です。東京で国際会議が開かれ、各国の代表が新しい経済政策について話し合いました。",
    ),
    (
        "euc-jp",
        "jp",
        "日本語のニュース記事です。大阪で展示会が開かれ、多くの企業が新しい製品を発表しました。",
    ),
    (
        "gb18030",
        "cn",
        "中华人民共和国国务院今天发布了新的经济政策，专家认为这将促进国内消费和投资的增长。",
    ),
    (
        "gbk",
        "cn",
        "北京市政府宣布将在明年扩建地铁网络，新线路预计将连接城市东部和西部的主要商业区。",
    ),
    (
        "big5",
        "tw",
        "臺灣的新聞報導說，政府宣布了新的能源政策，希望在十年內大幅提高再生能源的比例。",
    ),
    (
        "euc-kr",
        "kr",
        "대한민국 정부는 오늘 새로운 경제 정책을 발표했다. 전문가들은 이 정책이 내수 시장을 살릴 것이라고 말했다.",
    ),
    (
        "windows-1251",
        "ru",
        "Правительство России объявило о новой экономической политике. Эксперты считают, что это поможет росту.",
    ),
    (
        "koi8-r",
        "ru",
        "Министерство образования сообщило о реформе школьных программ, которая начнётся в следующем году.",
    ),
    (
        "iso-8859-2",
        "pl",
        "Rząd ogłosił nową politykę gospodarczą. Zażółć gęślą jaźń, powiedział minister w środę w Łodzi.",
    ),
    (
        "iso-8859-7",
        "gr",
        "Η κυβέρνηση ανακοίνωσε νέα οικονομική πολιτική. Οι ειδικοί λένε ότι θα βοηθήσει την ανάπτυξη.",
    ),
    (
        "iso-8859-9",
        "tr",
        "Türkiye hükümeti yeni ekonomik politikayı açıkladı. Uzmanlar büyümeyi destekleyeceğini söylüyor, dedi.",
    ),
    (
        "windows-1256",
        "eg",
        "أعلنت الحكومة عن سياسة اقتصادية جديدة وقال الخبراء إنها ستساعد على نمو الاقتصاد في العام المقبل",
    ),
];

/// The page's HTML (the text in the title and three times in the body), encoded.
fn page(label: &str, text: &str, meta: bool) -> Vec<u8> {
    let enc = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
    let head = if meta {
        format!("<meta charset=\"{label}\">")
    } else {
        String::new()
    };
    let html = format!(
        "<html><head>{head}<title>{text}</title></head><body><p>{text}</p><p>{text}</p><p>{text}</p></body></html>"
    );
    let (bytes, _, unmappable) = enc.encode(&html);
    assert!(!unmappable, "{label} cannot encode its own text");
    bytes.into_owned()
}

fn http(charset: Option<&str>, body: &[u8]) -> Vec<u8> {
    let ct = match charset {
        Some(c) => format!("text/html; charset={c}"),
        None => "text/html".into(),
    };
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn warc_record(uri: &str, n: usize, block: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nWARC-Date: 2024-05-01T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012}>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn arc_file(records: &[(String, Vec<u8>)]) -> Vec<u8> {
    let version = "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
    let mut out = format!(
        "filedesc://t.arc 0.0.0.0 20080430204825 text/plain {}\n{version}\n",
        version.len()
    )
    .into_bytes();
    for (url, block) in records {
        out.extend_from_slice(
            format!("{url} 10.0.0.1 20080430204826 text/html {}\n", block.len()).as_bytes(),
        );
        out.extend_from_slice(block);
        out.push(b'\n');
    }
    out
}

fn zip_of(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        writer.start_file(name.as_str(), options).unwrap();
        std::io::Write::write_all(&mut writer, bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn write(dir: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Every page of `path` as (title, decoded text), in reading order.
fn read(path: &Path) -> Vec<(String, String)> {
    let coll = archive::load(
        &[path.to_path_buf()],
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    coll.docs
        .iter()
        .map(|d| {
            (
                d.title.as_deref().unwrap_or_default().to_string(),
                archive::page_text(d).unwrap(),
            )
        })
        .collect()
}

fn check(what: &str, pages: &[(String, String)]) {
    assert_eq!(pages.len(), PAGES.len(), "{what}: pages read");
    let mut wrong = Vec::new();
    for ((label, _, text), (title, html)) in PAGES.iter().zip(pages) {
        if title != text || !html.contains(&format!("<p>{text}</p>")) {
            wrong.push(format!("{label}: title {title:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{what}: decoded wrong:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn declared_in_the_http_header_warc_arc_wacz() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<(String, Vec<u8>)> = PAGES
        .iter()
        .map(|(label, tld, text)| {
            (
                format!("http://news.example.{tld}/{label}"),
                http(Some(label), &page(label, text, false)),
            )
        })
        .collect();
    let warc: Vec<u8> = records
        .iter()
        .enumerate()
        .flat_map(|(i, (uri, block))| warc_record(uri, i, block))
        .collect();
    check("WARC", &read(&write(dir.path(), "t.warc", &warc)));
    check(
        "ARC",
        &read(&write(dir.path(), "t.arc", &arc_file(&records))),
    );
    let wacz = zip_of(&[
        ("datapackage.json".into(), b"{}".to_vec()),
        ("archive/data.warc".into(), warc),
    ]);
    check("WACZ", &read(&write(dir.path(), "t.wacz", &wacz)));
}

#[test]
fn declared_in_a_meta_tag_folder_and_zip() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(String, Vec<u8>)> = PAGES
        .iter()
        .enumerate()
        .map(|(i, (label, _, text))| (format!("pages/p{i:02}.html"), page(label, text, true)))
        .collect();
    for (name, bytes) in &files {
        write(dir.path(), name, bytes);
    }
    check("folder", &read(&dir.path().join("pages")));
    check(
        "zip",
        &read(&write(dir.path(), "pages.zip", &zip_of(&files))),
    );
    // A WARC whose header says nothing takes the meta tag too.
    let warc: Vec<u8> = files
        .iter()
        .enumerate()
        .flat_map(|(i, (_, body))| {
            warc_record(&format!("http://x.example.com/{i}"), i, &http(None, body))
        })
        .collect();
    check("WARC with meta", &read(&write(dir.path(), "m.warc", &warc)));
}

#[test]
fn undeclared_pages_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    // With the URL's country domain (chardetng's hint), as a crawl has it.
    let warc: Vec<u8> = PAGES
        .iter()
        .enumerate()
        .flat_map(|(i, (label, tld, text))| {
            warc_record(
                &format!("http://news.example.{tld}/{i}"),
                i,
                &http(None, &page(label, text, false)),
            )
        })
        .collect();
    check("WARC, detected", &read(&write(dir.path(), "d.warc", &warc)));
    // Without any hint: loose files.
    for (i, (label, _, text)) in PAGES.iter().enumerate() {
        write(
            dir.path(),
            &format!("loose/p{i:02}.html"),
            &page(label, text, false),
        );
    }
    check("folder, detected", &read(&dir.path().join("loose")));
}
