//! Archive readers end to end: small archives built in a temp dir, bad input, and (when
//! `../shared/data` is present) the real WARC files cross-checked against warcio's counts.

use std::path::{Path, PathBuf};

use samecore::archive::{self, ReadOptions};
use samecore::engine::Progress;

fn shared(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("SAMECORE_REQUIRE_SHARED").as_deref() != Ok("1"),
        "{} is missing and SAMECORE_REQUIRE_SHARED=1",
        path.display()
    );
    eprintln!("skipped: {} is absent", path.display());
    None
}

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
    let keys: Vec<&str> = coll.docs.iter().map(|d| d.key.as_str()).collect();
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
    assert!(coll.docs[1].html.contains("body"));
    let report = &coll.reports[0];
    assert_eq!(report.format, "folder");
    assert_eq!(report.records.get("file"), Some(&6));
    assert_eq!(report.documents, 4);
    assert_eq!(report.skipped.get("not-html"), Some(&1));
    assert_eq!(report.skipped.get("empty"), Some(&1));
    let raw = archive::read_raw(&coll.docs[1].location).unwrap();
    assert_eq!(raw, b"<html><title>Smoke  one</title>body</html>");
}

#[test]
fn goldset_dev_loads_with_clusters() {
    let Some(gold) = shared("data/goldset-dev") else {
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
