//! Bad input: every kind of damage a real crawl shows gives a warning naming the file and the
//! offset, and every good record before and after it still loads; plus the fuzz regressions
//! and a seeded mutation fuzzer that runs with the tests.

use std::path::{Path, PathBuf};

use samecore::archive::{self, ReadOptions};
use samecore::progress::Progress;

use super::{arc_file, gzip, read_all, sample_records, write};

/// Reads `bytes` as `name` and checks that all good sample documents are there.
fn assert_recovers(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    expect_docs: usize,
) -> samecore::archive::FileReport {
    let path = write(dir, name, bytes);
    let (docs, report) = read_all(&path);
    assert_eq!(
        docs.len(),
        expect_docs,
        "{name}: {:?} {:?}",
        report.warnings,
        report.skipped
    );
    assert!(!report.warnings.is_empty(), "{name} must warn");
    for warning in &report.warnings {
        let text = warning.to_string();
        assert!(text.ends_with(&path.display().to_string()), "{text}");
        assert!(text.contains(" at offset "), "{text}");
    }
    report
}

#[test]
fn bad_plain_records_warn_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let r = sample_records();
    // Garbage between records.
    let mut garbage = r[..3].concat();
    garbage.extend_from_slice(b"this is not a record\r\n\x00\x01 more junk\n");
    garbage.extend_from_slice(&r[3..].concat());
    let report = assert_recovers(dir.path(), "garbage.warc", &garbage, 3);
    let at = r[..3].iter().map(Vec::len).sum::<usize>() as u64;
    assert_eq!(report.warnings[0].offset, at);
    // Content-Length too long (eats the next record) and too short.
    for (name, delta) in [("long.warc", 40i64), ("short.warc", -10)] {
        let bad = String::from_utf8_lossy(&r[3]).into_owned();
        let len_line = bad
            .lines()
            .find(|l| l.starts_with("Content-Length"))
            .unwrap()
            .to_string();
        let n: i64 = len_line[16..].trim().parse().unwrap();
        let bad = bad.replacen(&len_line, &format!("Content-Length: {}", n + delta), 1);
        let mut bytes = r[..3].concat();
        bytes.extend_from_slice(bad.as_bytes());
        bytes.extend_from_slice(&r[4..].concat());
        let report = assert_recovers(dir.path(), name, &bytes, 2);
        assert_eq!(report.skipped.get("bad-record"), Some(&1), "{name}");
        assert_eq!(
            report.records.get("metadata"),
            Some(&1),
            "{name}: records after the bad one"
        );
    }
    // A record claiming 2 GB in the middle.
    let text = String::from_utf8_lossy(&r[4]).into_owned();
    let head_end = text.find("\r\n\r\n").unwrap();
    let at = text[..head_end].rfind("Content-Length: ").unwrap();
    let huge = format!(
        "{}Content-Length: 2147483648{}",
        &text[..at],
        &text[head_end..]
    );
    let mut bytes = r[..4].concat();
    bytes.extend_from_slice(huge.as_bytes());
    bytes.extend_from_slice(&r[5..].concat());
    let report = assert_recovers(dir.path(), "huge.warc", &bytes, 3);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.message.contains("Content-Length")),
        "{:?}",
        report.warnings
    );
    // A header line without a colon: warned about, record kept.
    let nocolon =
        String::from_utf8_lossy(&r[2]).replacen("WARC-Date", "Broken line\r\nWARC-Date", 1);
    let mut bytes = r[..2].concat();
    bytes.extend_from_slice(nocolon.as_bytes());
    bytes.extend_from_slice(&r[3..].concat());
    let report = assert_recovers(dir.path(), "nocolon.warc", &bytes, 3);
    assert!(report.warnings[0].message.contains("without a colon"));
}

#[test]
fn bad_gzip_members_warn_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<Vec<u8>> = sample_records().iter().map(|r| gzip(r)).collect();
    // Member 3 (page b) truncated in the middle.
    let mut bytes = members[..3].concat();
    let cut_at = bytes.len() as u64;
    bytes.extend_from_slice(&members[3][..members[3].len() / 2]);
    bytes.extend_from_slice(&members[4..].concat());
    let report = assert_recovers(dir.path(), "trunc.warc.gz", &bytes, 2);
    assert_eq!(report.warnings[0].offset, cut_at);
    assert_eq!(report.records.get("metadata"), Some(&1));
    // Garbage between members.
    let mut bytes = members[..3].concat();
    bytes.extend_from_slice(b"GARBAGE\x1f\x8b but not gzip");
    bytes.extend_from_slice(&members[3..].concat());
    assert_recovers(dir.path(), "junk.warc.gz", &bytes, 3);
    // The last member's trailer cut: its record's data is whole, so it loads, with a warning.
    let mut bytes = members.concat();
    bytes.truncate(bytes.len() - 5);
    let report = assert_recovers(dir.path(), "end.warc.gz", &bytes, 3);
    assert_eq!(report.records.get("metadata"), Some(&1));
    // The last member cut in its middle: that record is lost, the others load.
    let mut bytes = members.concat();
    bytes.truncate(bytes.len() - members[members.len() - 1].len() / 2);
    let report = assert_recovers(dir.path(), "mid.warc.gz", &bytes, 3);
    assert_eq!(report.records.get("metadata"), None);
    assert_eq!(report.records.get("revisit"), Some(&2));
}

#[test]
fn empty_and_foreign_files_are_clear_errors_naming_the_file_last() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.warc", b"");
    let err = archive::read_file(
        &empty,
        &ReadOptions::default(),
        &Progress::new(),
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(err.to_string(), format!("empty file: {}", empty.display()));
    let text = write(dir.path(), "notes.txt", b"just some notes\n");
    let err = archive::load(
        std::slice::from_ref(&text),
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap_err();
    assert!(
        err.to_string().ends_with(&text.display().to_string()),
        "{err}"
    );
    let missing = dir.path().join("missing.warc");
    let err = archive::read_file(
        &missing,
        &ReadOptions::default(),
        &Progress::new(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().ends_with("missing.warc"), "{err}");
    // A .warc that holds only garbage is named for what it holds, not read as an
    // empty WARC with a warning.
    let junk = write(dir.path(), "junk.warc", b"\x00\x01\x02 not a warc at all\n");
    let err = archive::check_input(&junk).unwrap_err().to_string();
    assert!(err.starts_with("binary data, not an archive"), "{err}");
    assert!(err.ends_with("junk.warc"), "{err}");
}

/// Inputs under `tests/fixtures/fuzz/{warc,arc}`: the fuzz seeds plus every input cargo-fuzz
/// found crashing (named `crash-*`), kept so the bugs they found stay fixed.
#[test]
fn fuzz_regressions_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let mut seen = 0;
    for (sub, arc) in [("warc", false), ("arc", true)] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let report = archive::scan_bytes(&bytes, arc);
            let records: u64 = report.records.values().sum();
            assert!(report.documents <= records, "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 6, "the seed inputs are there");
}

/// A seeded mutation fuzzer that runs with the tests: flips, inserts, deletes and splices
/// bytes of good archives (plain and gzip, WARC and ARC) and checks nothing panics and the
/// counts stay consistent. cargo-fuzz (fuzz/) goes much further; this keeps the basics in CI.
#[test]
fn seeded_mutations_never_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20260522);
    let warc = sample_records().concat();
    let bases: Vec<(Vec<u8>, bool)> = vec![
        (warc.clone(), false),
        (
            sample_records().iter().flat_map(|r| gzip(r)).collect(),
            false,
        ),
        (gzip(&warc), false),
        (arc_file(), true),
        (gzip(&arc_file()), true),
    ];
    for round in 0..3000 {
        let (base, arc) = &bases[round % bases.len()];
        let mut bytes = base.clone();
        for _ in 0..rng.random_range(1..6) {
            let at = rng.random_range(0..bytes.len());
            match rng.random_range(0..5) {
                0 => bytes[at] ^= 1 << rng.random_range(0..8),
                1 => bytes.insert(at, rng.random()),
                2 => {
                    bytes.remove(at);
                }
                3 => {
                    let end = (at + rng.random_range(1..64)).min(bytes.len());
                    bytes.drain(at..end);
                }
                _ => {
                    let digits = format!("{}", rng.random_range(0..u64::MAX));
                    bytes.splice(at..at, digits.bytes());
                }
            }
            if bytes.is_empty() {
                bytes.push(b'W');
            }
        }
        let report = archive::scan_bytes(&bytes, *arc);
        let records: u64 = report.records.values().sum();
        assert!(report.documents <= records, "round {round}");
    }
}
