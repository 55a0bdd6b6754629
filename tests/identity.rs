//! One capture is one page, and identical pages are one cluster: an ARC written from
//! the records of a real WARC and that WARC, read together, give each capture once; pages with
//! equal payload digests share a cluster in every detector.

use std::io::Read;
use std::path::PathBuf;

use samecore::archive::{self, ReadOptions};
use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
use samecore::progress::Progress;

mod common;

/// An ARC (version 1) of the `response` records of a WARC: the same captures, keyed the ARC
/// way (no record ids, no payload digests).
fn arc_of_warc(warc_gz: &std::path::Path) -> Vec<u8> {
    let mut data = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(warc_gz).unwrap())
        .read_to_end(&mut data)
        .unwrap();
    let version = "1 0 samecore-test\nURL IP-address Archive-date Content-type Archive-length\n";
    let mut out = format!(
        "filedesc://test.arc 0.0.0.0 20080430204825 text/plain {}\n{version}\n",
        version.len()
    )
    .into_bytes();
    let mut at = 0;
    let mut records = 0;
    while let Some(start) = find(&data[at..], b"WARC/").map(|i| at + i) {
        let head_end = start + find(&data[start..], b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&data[start..head_end]).into_owned();
        let field = |name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                .map(str::to_string)
        };
        let len: usize = field("Content-Length").unwrap().trim().parse().unwrap();
        let block = &data[head_end + 4..head_end + 4 + len];
        at = head_end + 4 + len;
        let (Some("response"), Some(uri), Some(date)) = (
            field("WARC-Type").as_deref(),
            field("WARC-Target-URI"),
            field("WARC-Date"),
        ) else {
            continue;
        };
        if !uri.starts_with("http") {
            continue;
        }
        let ts: String = date.chars().filter(char::is_ascii_digit).take(14).collect();
        let ip = field("WARC-IP-Address").unwrap_or_else(|| "0.0.0.0".into());
        out.extend_from_slice(format!("{uri} {ip} {ts} text/html {}\n", block.len()).as_bytes());
        out.extend_from_slice(block);
        out.push(b'\n');
        records += 1;
    }
    assert!(records > 100, "{records} response records");
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn an_arc_and_a_warc_of_one_crawl_give_each_capture_once() {
    let Some(warc) = common::shared("data/warc/aut__IAH-20080430204825-00000-blackbook.warc.gz")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let arc = dir.path().join("blackbook.arc");
    std::fs::write(&arc, arc_of_warc(&warc)).unwrap();
    let load = |paths: &[PathBuf]| {
        archive::load(paths, &ReadOptions::default(), &Progress::new()).unwrap()
    };
    let alone = load(std::slice::from_ref(&warc));
    let arc_alone = load(std::slice::from_ref(&arc));
    assert_eq!(alone.docs.len(), 94);
    assert_eq!(arc_alone.docs.len(), alone.docs.len());
    // The ARC's pages have the WARC's captures: the same keys in a project.
    let keys = |c: &archive::Collection| {
        let mut k: Vec<String> = c.docs.iter().map(|d| d.capture()).collect();
        k.sort();
        k
    };
    assert_eq!(keys(&arc_alone), keys(&alone));
    for both in [
        vec![warc.clone(), arc.clone()],
        vec![arc.clone(), warc.clone()],
    ] {
        let c = load(&both);
        assert_eq!(c.docs.len(), 94, "{both:?}");
    }
}

#[test]
fn identical_pages_share_a_cluster_in_every_detector() {
    let Some(dir) = common::shared("data/warc") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let coll = archive::load(&files, &ReadOptions::default(), &Progress::new()).unwrap();
    let groups = detectors::exact::digest_groups(&coll.docs);
    // 27: ipwb's 5mementos file writes one payload digest on five records whose payloads
    // differ; they are not identical pages (the digest is checked against the bytes read).
    assert_eq!(groups.len(), 27);
    assert!(groups.iter().flatten().all(|d| {
        !coll.docs[d.index()]
            .location
            .file
            .to_string_lossy()
            .contains("5mementos")
    }));
    for algo in Algo::ALL
        .into_iter()
        .filter(|a| *a != Algo::SpotSigsReference)
    {
        let det = detectors::detector(algo, &DetectorOptions::default()).unwrap();
        let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
        let d = prep
            .detect(&RunSpec::default_for(algo), &Progress::new())
            .unwrap();
        for g in &groups {
            let c = d.clustering.cluster_of[g[0].index()];
            assert!(
                g.iter().all(|x| d.clustering.cluster_of[x.index()] == c),
                "{algo:?}: identical pages {g:?} split"
            );
        }
        assert_eq!(d.exact.groups, 27, "{algo:?}");
    }
}

/// A project made before ARC records took the WARC's SHA-1 keyed them by XXH3: the page is
/// found again by its file, offset and URL and re-keyed, so its labels and codes stay.
#[test]
fn a_page_keyed_by_the_old_digest_is_rekeyed_in_place() {
    use samecore::store::Project;
    use samecore::store::runs::PageIdentity;
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path().join("p.samecore")).unwrap();
    let page = |key: &str, digest: &str| PageIdentity {
        key: key.into(),
        url: Some("http://www.example.com/a".into()),
        file: Some("/archives/crawl.arc.gz".into()),
        offset: Some(1234),
        digest: Some(digest.into()),
        ..Default::default()
    };
    let old = page(
        "20080430204826 http://www.example.com/a xxh3:0123456789abcdef",
        "xxh3:0123456789abcdef",
    );
    let new = page(
        "20080430204826 http://www.example.com/a sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
        "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
    );
    let first = project.upsert_pages(None, &[old]).unwrap();
    let again = project
        .upsert_pages(None, std::slice::from_ref(&new))
        .unwrap();
    assert_eq!(first, again);
    let stored = project.page_by_key(&new.key).unwrap().unwrap();
    assert_eq!(stored.identity.digest, new.digest);
    assert_eq!(project.pages().unwrap().len(), 1);
}

/// The seven shared WARCs in one order and in the reverse order, into one project: the same
/// cluster of every page, and a cluster number without its run is refused once the project has
/// two runs (cluster 99 of run 1 was cluster 115 of run 2, and `code apply --cluster
/// 99` coded a one-page cluster of run 2).
#[test]
fn cluster_numbers_do_not_depend_on_the_order_of_the_archives() {
    let Some(dir) = common::shared("data/warc") else {
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p.samecore");
    let p = project.to_str().unwrap();
    let mut clusters = Vec::new();
    for (i, order) in [files.clone(), files.iter().rev().cloned().collect()]
        .into_iter()
        .enumerate()
    {
        let out = tmp.path().join(format!("c{i}.tsv"));
        let mut args = vec!["run".to_string()];
        args.extend(order);
        args.extend(["--project", p, "--clusters", out.to_str().unwrap()].map(String::from));
        common::samecore(&args);
        let text = std::fs::read_to_string(&out).unwrap();
        let mut rows: Vec<(String, String)> = text
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[3].to_string(), f[1].to_string()) // key, cluster
            })
            .collect();
        rows.sort();
        clusters.push(rows);
    }
    assert_eq!(clusters[0].len(), 260);
    assert_eq!(clusters[0], clusters[1]);
    // Two runs now: a bare cluster number is ambiguous.
    let (ok, _, err) = common::samecore_with_input(
        &[
            "code",
            "--project",
            p,
            "--by",
            "ann",
            "apply",
            "health",
            "--cluster",
            "3",
            "--new",
        ],
        "",
    );
    assert!(
        !ok && err.contains("of which run") && err.contains("--run"),
        "{err}"
    );
    let (ok, out, err) = common::samecore_with_input(
        &[
            "code",
            "--project",
            p,
            "--by",
            "ann",
            "apply",
            "health",
            "--cluster",
            "3",
            "--run",
            "2",
            "--new",
        ],
        "",
    );
    assert!(ok && out.contains("(run 2)"), "{out}{err}");
}

/// What a file holds decides how it is read, not its name: a PDF, a text file or an
/// HTML page named `.warc.gz` is named for what it is; an ARC named `.warc.gz` is read as the
/// ARC it is; a run with an input that is no archive stores nothing unless `--keep-going`.
#[test]
fn inputs_are_read_by_what_they_hold_and_non_archives_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let gz = |bytes: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, bytes).unwrap();
        e.finish().unwrap()
    };
    for (name, bytes, says) in [
        (
            "doc.warc.gz",
            b"%PDF-1.4\n%\xe2\xe3\n1 0 obj".to_vec(),
            "a PDF document",
        ),
        (
            "notes.warc",
            b"meeting notes\nsecond line\n".to_vec(),
            "text",
        ),
        (
            "notes.warc.gz",
            gz(b"meeting notes\n"),
            "gzip-compressed text",
        ),
        (
            "page.warc",
            b"<!DOCTYPE html><html><body>hi</body></html>".to_vec(),
            "an HTML page",
        ),
    ] {
        let path = write(name, &bytes);
        let err = archive::check_input(&path).unwrap_err().to_string();
        assert!(err.contains(says) && err.ends_with(name), "{name}: {err}");
        let (ok, _, err) = common::samecore_with_input(&["info", path.to_str().unwrap()], "");
        assert!(!ok && err.contains(says), "{name}: {err}");
    }
    // An ARC saved under a WARC's name is read as an ARC.
    let version = "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
    let block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>Arc page</title>hello";
    let arc = format!(
        "filedesc://t.arc 0.0.0.0 20080430204825 text/plain {}\n{version}\n\
         http://www.example.com/a 10.0.0.1 20080430204826 text/html {}\n{block}\n",
        version.len(),
        block.len()
    );
    let arc = arc.as_bytes();
    let arc_path = write("crawl.warc.gz", &gz(arc));
    let c = archive::load(
        std::slice::from_ref(&arc_path),
        &ReadOptions::default(),
        &Progress::new(),
    )
    .unwrap();
    assert_eq!(c.docs.len(), 1);
    assert_eq!(c.reports[0].format, "arc.gz");
    // A run with one input that is no archive: refused, nothing stored; --keep-going leaves
    // the input out and runs.
    let project = dir.path().join("p.samecore");
    let bad = dir.path().join("doc.warc.gz");
    let args = [
        "run",
        arc_path.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
    ];
    let (ok, _, err) = common::samecore_with_input(&args, "");
    assert!(!ok && err.contains("nothing was read or stored"), "{err}");
    assert!(!project.exists());
    let mut keep = args.to_vec();
    keep.push("--keep-going");
    let (ok, out, err) = common::samecore_with_input(&keep, "");
    assert!(
        ok && err.contains("left out") && out.contains("stored as run 1"),
        "{out}{err}"
    );
}

/// The small ways a command could leave something wrong behind: a mistyped
/// project path for `sample` creates nothing, an unknown sample lists the samples, and the
/// pairs of a project's only sample export without naming it.
#[test]
fn small_mistakes_are_named_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.samecore");
    let p = p.to_str().unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample_archives/news-sample.warc.gz"
    );
    common::samecore(["run", sample, "--project", p]);
    let typo = dir.path().join("typo").join("p.samecore");
    let (ok, _, err) = common::samecore_with_input(
        &["sample", "--project", typo.to_str().unwrap(), "--size", "5"],
        "",
    );
    assert!(!ok && err.contains("no such project"), "{err}");
    assert!(!typo.exists() && !typo.parent().unwrap().exists());
    common::samecore(["sample", "--project", p, "--name", "first", "--size", "5"]);
    let (ok, _, err) = common::samecore_with_input(
        &["label", "--project", p, "--sample", "frist", "--report"],
        "",
    );
    assert!(!ok && err.contains("samples: \"first\""), "{err}");
    let out = dir.path().join("pairs.csv");
    common::samecore([
        "export",
        "--project",
        p,
        "pairs",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
}

/// A page read again from its record is checked against what was first read there:
/// an archive rewritten in place so that its offsets still parse is an error naming the file,
/// not another page's text under this page's name.
#[test]
fn a_page_read_again_from_a_changed_archive_is_an_error() {
    let warc = |body: &str| {
        let block = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><title>t</title>{body}</html>"
        );
        format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/a\r\nWARC-Date: 2024-05-01T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.warc");
    std::fs::write(&path, warc("<p>the story of one</p>")).unwrap();
    let options = ReadOptions {
        keep_html: archive::KeepHtml::None,
        ..Default::default()
    };
    let c = archive::load(std::slice::from_ref(&path), &options, &Progress::new()).unwrap();
    let doc = &c.docs[0];
    assert!(archive::page_text(doc).unwrap().contains("story of one"));
    // The same length, another story.
    std::fs::write(&path, warc("<p>the story of two</p>")).unwrap();
    let err = archive::page_text(doc).unwrap_err().to_string();
    assert!(
        err.contains("the archive changed since it was read") && err.ends_with("a.warc"),
        "{err}"
    );
}

/// `relocate` finds a folder of pages that was renamed, by the files it holds (before:
/// `mv arch1 arch2; relocate … arch2` said "missing: arch1").
#[test]
fn relocate_finds_a_renamed_folder_of_pages() {
    let dir = tempfile::tempdir().unwrap();
    let arch1 = dir.path().join("arch1");
    for (rel, text) in [
        (
            "storyA/a1.html",
            "<title>A</title><p>the first story, told at length</p>",
        ),
        (
            "storyA/a2.html",
            "<title>A</title><p>the first story, told at length</p>",
        ),
        (
            "storyB/b1.html",
            "<title>B</title><p>another story altogether</p>",
        ),
    ] {
        let p = arch1.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let project = dir.path().join("p.samecore");
    let p = project.to_str().unwrap();
    common::samecore(["run", arch1.to_str().unwrap(), "--project", p]);
    let arch2 = dir.path().join("arch2");
    std::fs::rename(&arch1, &arch2).unwrap();
    let (ok, out, _) = common::samecore_with_input(&["relocate", "--project", p], "");
    assert!(!ok && out.contains("missing"), "{out}");
    let out = common::samecore(["relocate", "--project", p, arch2.to_str().unwrap()]);
    assert!(out.contains("moved:") && out.contains("found:"), "{out}");
    assert!(!out.contains("missing"), "{out}");
}

/// Terminal labelling of a folder corpus in a blind sample names pages by their titles, not by
/// their paths, which name the gold story.
#[test]
fn a_blind_sample_of_a_folder_corpus_shows_titles_not_paths() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let story = "the mayor opened the new bridge over the river on monday and said the city \
                 had waited twenty years for it while traffic was diverted through the old town";
    for (rel, site) in [
        ("Secret_Story/a.htm", "alpha"),
        ("Secret_Story/b.htm", "beta"),
    ] {
        let p = corpus.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(
            p,
            format!("<title>Bridge opens</title><a href=\"http://{site}.example/\">{site}</a><p>{story}</p>"),
        )
        .unwrap();
    }
    let project = dir.path().join("p.samecore");
    let p = project.to_str().unwrap();
    common::samecore(["run", corpus.to_str().unwrap(), "--project", p]);
    common::samecore([
        "sample",
        "--project",
        p,
        "--name",
        "b",
        "--size",
        "1",
        "--blind",
    ]);
    let (ok, out, err) = common::samecore_with_input(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "b",
            "--annotator",
            "ann",
        ],
        "q\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("A: Bridge opens"), "{out}");
    assert!(!out.contains("Secret_Story"), "{out}");
}

/// One key and one record id per page in every table of every front end: a notebook that joins
/// a run's clusters with the project's pages or codes on `key` loses no page (a folder page was
/// `S/a.htm xxh3:…` in one and `S/a.htm` in the other). Checked on goldset-dev (loose pages)
/// and a real WARC, through the session (what Python and the workbench call) and the project's
/// exports (what the CLI writes).
#[test]
fn one_key_and_one_record_id_per_page_in_every_table() {
    use samecore::session::{OpenOptions, Session};
    let inputs: Vec<PathBuf> = [
        common::goldset(),
        common::shared("data/warc/pywb__iana.warc.gz"),
        common::shared("data/warc/ipwb__5mementos.warc"),
    ]
    .into_iter()
    .flatten()
    .collect();
    for input in inputs {
        let progress = Progress::new();
        let options = OpenOptions {
            sign: Some(DetectorOptions::default()),
            publication_dates: true,
            ..OpenOptions::default()
        };
        let session = Session::open(std::slice::from_ref(&input), &options, &progress).unwrap();
        let spec = RunSpec::default_for(Algo::SpotSigs);
        let run = session
            .run(
                Algo::SpotSigs,
                &DetectorOptions::default(),
                &spec,
                &progress,
            )
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut project = samecore::store::Project::open(dir.path().join("p.samecore")).unwrap();
        let id = session
            .save(&mut project, &run.detection, serde_json::json!({}), None)
            .unwrap();
        let identity = |key: &str, record: &Option<String>| (key.to_string(), record.clone());
        let session_pages: std::collections::BTreeSet<_> = session
            .page_rows()
            .map(|r| identity(&r.key, &r.record_id))
            .collect();
        let clusters: std::collections::BTreeSet<_> = session
            .cluster_rows(&run.detection)
            .map(|r| identity(&r.key, &r.record_id))
            .collect();
        let stored: std::collections::BTreeSet<_> = samecore::export::page_rows(&project, Some(id))
            .unwrap()
            .iter()
            .map(|r| identity(&r.key, &r.record_id))
            .collect();
        assert_eq!(session_pages, clusters, "{}", input.display());
        assert_eq!(session_pages, stored, "{}", input.display());
        for r in session.pair_rows(&run.detection) {
            assert!(clusters.contains(&identity(&r.a_key, &r.a_record_id)));
            assert!(clusters.contains(&identity(&r.b_key, &r.b_record_id)));
        }
        // A code on every page of the largest cluster: its rows join on the same keys.
        let page = project.pages().unwrap()[0].id;
        let code = project.add_code("joined", "").unwrap();
        project.code_page(page, code, true, "test").unwrap();
        for row in samecore::export::code_rows(&project).unwrap() {
            assert!(
                stored.contains(&identity(&row.key, &row.record_id)),
                "{}",
                row.key
            );
        }
    }
}
