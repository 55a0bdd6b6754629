//! The project store: on-disk and in-memory basics, crash safety (`kill -9` while labelling),
//! two instances on one file, migration of an old schema with a backup, export / import
//! round-trips, and cluster coding with provenance and reconciliation.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use samecore::Error;
use samecore::coding::{self, Coverage};
use samecore::export::{self, Format, import};
use samecore::labels::sample::{self, SamplePlan};
use samecore::labels::{LabelInput, Reason, Verdict};
use samecore::store::codes::CodeSource;
use samecore::store::runs::{ClusterMember, PageIdentity, RunRecord, ScoredPair};
use samecore::store::{OpenOptions, PageId, Project, RunId, SCHEMA_VERSION, SampleId};

/// 12 pages on 3 sites; a run whose clusters are {0,1,2,3}, {4,5,6}, {7,8} and singletons, with
/// every pair inside a cluster scored.
fn fixture(project: &mut Project) -> (RunId, Vec<PageId>) {
    let archive = project.add_archive("crawl.warc.gz").unwrap();
    let identities: Vec<PageIdentity> = (0..12)
        .map(|i| PageIdentity {
            key: format!("<urn:uuid:{i:04}>"),
            record_id: Some(format!("<urn:uuid:{i:04}>")),
            url: Some(format!("http://site{}.example.org/story/{i}", i % 3)),
            date: Some(format!("2024-01-{:02}T00:00:00Z", i + 1)),
            file: Some("crawl.warc.gz".into()),
            offset: Some(1000 * i as u64),
            length: Some(900),
            site: Some(format!("site{}.example.org", i % 3)),
            location: None,
            ..PageIdentity::default()
        })
        .collect();
    let pages = project.upsert_pages(Some(archive), &identities).unwrap();
    let groups: [&[usize]; 3] = [&[0, 1, 2, 3], &[4, 5, 6], &[7, 8]];
    let mut pairs = Vec::new();
    let mut members = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (x, &i) in group.iter().enumerate() {
            members.push(ClusterMember {
                page: pages[i],
                cluster: g as i64,
                representative: x == 0,
            });
            for &j in &group[x + 1..] {
                pairs.push(ScoredPair {
                    a: pages[j],
                    b: pages[i],
                    score: 0.5 + 0.04 * (i + j) as f64,
                });
            }
        }
    }
    for (n, &i) in [9, 10, 11].iter().enumerate() {
        members.push(ClusterMember {
            page: pages[i],
            cluster: 3 + n as i64,
            representative: true,
        });
    }
    let run = project
        .add_run(
            &RunRecord {
                detector: "spotsigs".into(),
                params: serde_json::json!({"threshold": 0.5, "chains": 1}),
                seed: Some(42),
                code_version: "0.1.0".into(),
                elapsed_ms: Some(1234),
                timings: serde_json::json!({"tokenize": 1000, "match": 234}),
            },
            &pairs,
            &members,
        )
        .unwrap();
    (run, pages)
}

fn uniform_sample(project: &mut Project, run: RunId, name: &str) -> SampleId {
    let pairs = project.run_pairs(run).unwrap();
    let drawn = sample::draw(&pairs, &SamplePlan::Uniform { size: 100 }, 3).unwrap();
    project.add_sample(name, Some(run), false, &drawn).unwrap()
}

#[test]
fn in_memory_and_on_disk_projects_hold_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.samecore");
    for mut project in [Project::in_memory().unwrap(), Project::open(&path).unwrap()] {
        let (run, pages) = fixture(&mut project);
        let info = project.run(run).unwrap();
        assert_eq!(info.record.params["threshold"], 0.5);
        assert_eq!(info.record.seed, Some(42));
        assert_eq!(info.pairs, 6 + 3 + 1);
        assert_eq!(info.clusters, 3);
        let pairs = project.run_pairs(run).unwrap();
        assert!(
            pairs.iter().all(|p| p.pair.a < p.pair.b),
            "stored smaller page first"
        );
        // 0 and 3 are both on site0, 0 and 1 are not.
        let same = |a: usize, b: usize| {
            pairs
                .iter()
                .find(|p| p.pair.a == pages[a] && p.pair.b == pages[b])
                .unwrap()
                .same_site
        };
        assert_eq!(same(0, 3), Some(true));
        assert_eq!(same(0, 1), Some(false));
        // Re-adding a page by key keeps its id and fills what was missing.
        let again = project
            .upsert_pages(
                None,
                &[PageIdentity {
                    key: "<urn:uuid:0000>".into(),
                    ..PageIdentity::default()
                }],
            )
            .unwrap();
        assert_eq!(again, vec![pages[0]]);
        let page = project.page(pages[0]).unwrap().unwrap();
        assert_eq!(page.identity.offset, Some(0));
        assert_eq!(
            page.identity.url.as_deref(),
            Some("http://site0.example.org/story/0")
        );
        assert!(project.integrity_problems().unwrap().is_empty());
    }
    // Reopening the file finds everything again, at the current schema.
    let project = Project::open(&path).unwrap();
    assert_eq!(project.runs().unwrap().len(), 1);
    assert_eq!(project.migration().from, SCHEMA_VERSION);
    // Archives are stored by absolute path (and relative to the project file).
    let archives = project.archives().unwrap();
    assert_eq!(archives.len(), 1);
    assert!(
        Path::new(&archives[0]).is_absolute() && archives[0].ends_with("crawl.warc.gz"),
        "{archives:?}"
    );
}

const CHILD_ENV: &str = "SAMECORE_TEST_LABEL_CHILD";

/// The child side of the kill test: label in a loop, print each committed count.
fn label_forever(path: &str) {
    use std::io::Write;
    let mut project = Project::open(path).unwrap();
    let sample = project.sample_by_name("kill").unwrap().id;
    let started = std::time::Instant::now();
    let mut out = std::io::stdout().lock();
    for n in 1u64.. {
        let verdict = Verdict::ALL[(n % 3) as usize];
        project
            .add_label(sample, (n % 10) as u32, "child", &LabelInput::new(verdict))
            .unwrap();
        writeln!(out, "LABELS {n}").unwrap();
        out.flush().unwrap();
        if started.elapsed() > Duration::from_secs(60) {
            break; // never outlive a parent that forgot us
        }
    }
}

#[test]
fn kill_9_while_labelling_loses_at_most_the_label_in_flight() {
    if let Ok(path) = std::env::var(CHILD_ENV) {
        label_forever(&path);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kill.samecore");
    {
        let mut project = Project::open(&path).unwrap();
        let (run, _) = fixture(&mut project);
        uniform_sample(&mut project, run, "kill");
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "kill_9_while_labelling_loses_at_most_the_label_in_flight",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut last = 0u64;
    while last < 150 {
        let line = lines
            .next()
            .expect("child stopped before labelling")
            .unwrap();
        if let Some(n) = line.strip_prefix("LABELS ") {
            last = n.parse().unwrap();
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    for line in lines {
        if let Some(n) = line.unwrap().strip_prefix("LABELS ") {
            last = n.parse().unwrap();
        }
    }
    let project = Project::open(&path).unwrap();
    assert!(project.integrity_problems().unwrap().is_empty());
    let sample = project.sample_by_name("kill").unwrap().id;
    let written = project.label_history_len(sample).unwrap();
    assert!(
        written == last || written == last + 1,
        "child reported {last} committed labels, the file holds {written}"
    );
    assert_eq!(
        project.labels(sample).unwrap().len(),
        10.min(written as usize)
    );
}

#[test]
fn a_second_instance_gets_a_clear_busy_error_and_no_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.samecore");
    let sample = {
        let mut project = Project::open(&path).unwrap();
        let (run, _) = fixture(&mut project);
        uniform_sample(&mut project, run, "s")
    };
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let options = OpenOptions {
        busy_timeout: Duration::from_millis(200),
        create: false,
    };
    let mut project = Project::open_with(&path, &options).unwrap();
    let started = std::time::Instant::now();
    let err = project
        .add_label(sample, 0, "ann", &LabelInput::new(Verdict::Correct))
        .unwrap_err();
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "waited before giving up"
    );
    assert!(matches!(err, Error::ProjectBusy { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("busy") && message.contains("busy.samecore"),
        "{message}"
    );
    blocker.execute_batch("COMMIT").unwrap();
    project
        .add_label(sample, 0, "ann", &LabelInput::new(Verdict::Correct))
        .unwrap();

    // Two instances writing at once both get through, nothing lost.
    let threads: Vec<_> = ["left", "right"]
        .into_iter()
        .map(|who| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut p = Project::open(&path).unwrap();
                for i in 0..40 {
                    let v = if i % 2 == 0 {
                        Verdict::Correct
                    } else {
                        Verdict::Incorrect
                    };
                    p.add_label(sample, i % 10, who, &LabelInput::new(v))
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(project.label_history_len(sample).unwrap(), 81);
    assert!(project.integrity_problems().unwrap().is_empty());
}

/// The schema of samecore's first release, kept verbatim so old files can be made in tests.
const V1_SCHEMA: &str = r#"
CREATE TABLE archives (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    opened_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    archive_id INTEGER REFERENCES archives(id) ON DELETE SET NULL,
    key TEXT NOT NULL UNIQUE,
    record_id TEXT,
    url TEXT,
    date TEXT,
    file TEXT,
    offset INTEGER,
    length INTEGER,
    site TEXT
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    detector TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT '{}',
    seed INTEGER,
    code_version TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    elapsed_ms INTEGER,
    timings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE run_pairs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    a INTEGER NOT NULL REFERENCES documents(id),
    b INTEGER NOT NULL REFERENCES documents(id),
    score REAL NOT NULL,
    PRIMARY KEY (run_id, a, b),
    CHECK (a < b)
) WITHOUT ROWID;
CREATE TABLE run_clusters (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    cluster INTEGER NOT NULL,
    representative INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, doc_id)
) WITHOUT ROWID;
CREATE TABLE samples (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    method TEXT NOT NULL,
    seed INTEGER NOT NULL,
    blind INTEGER NOT NULL DEFAULT 0,
    spec TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE sample_pairs (
    sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    a INTEGER NOT NULL REFERENCES documents(id),
    b INTEGER NOT NULL REFERENCES documents(id),
    score REAL,
    stratum TEXT NOT NULL DEFAULT 'all',
    PRIMARY KEY (sample_id, position),
    UNIQUE (sample_id, a, b)
);
CREATE TABLE labels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sample_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    annotator TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('correct', 'incorrect', 'undecided')),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    FOREIGN KEY (sample_id, position) REFERENCES sample_pairs(sample_id, position)
        ON DELETE CASCADE
);
CREATE TABLE codes (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE page_codes (
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    code_id INTEGER NOT NULL REFERENCES codes(id) ON DELETE CASCADE,
    PRIMARY KEY (doc_id, code_id)
) WITHOUT ROWID;
"#;

fn make_v1_project(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(V1_SCHEMA).unwrap();
    conn.execute_batch(
        "PRAGMA user_version = 1;
         INSERT INTO archives (path) VALUES ('old.warc');
         INSERT INTO documents (id, archive_id, key, url, site) VALUES
           (1, 1, 'a', 'http://x.org/1', 'x.org'), (2, 1, 'b', 'http://x.org/2', 'x.org');
         INSERT INTO runs (id, detector, params, code_version) VALUES (1, 'spotsigs', '{}', '0.0.9');
         INSERT INTO run_pairs (run_id, a, b, score) VALUES (1, 1, 2, 0.9);
         INSERT INTO run_clusters (run_id, doc_id, cluster, representative) VALUES
           (1, 1, 0, 1), (1, 2, 0, 0);
         INSERT INTO samples (id, name, run_id, method, seed) VALUES (1, 'old', 1, 'uniform', 5);
         INSERT INTO sample_pairs (sample_id, position, a, b, score) VALUES (1, 0, 1, 2, 0.9);
         INSERT INTO labels (sample_id, position, annotator, verdict) VALUES (1, 0, 'ann', 'correct');
         INSERT INTO codes (id, name) VALUES (1, 'protest');
         INSERT INTO page_codes (doc_id, code_id) VALUES (1, 1);",
    )
    .unwrap();
}

#[test]
fn an_old_schema_migrates_with_a_backup_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.samecore");
    make_v1_project(&path);
    let mut project = Project::open(&path).unwrap();
    let migration = project.migration().clone();
    assert_eq!((migration.from, migration.to), (1, SCHEMA_VERSION));
    let backup = migration.backup.expect("a backup was taken");
    assert_eq!(backup.parent(), path.parent());
    assert!(
        backup
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains(".v1")
    );
    // The backup is the old file, untouched.
    let old = rusqlite::Connection::open(&backup).unwrap();
    let v: i64 = old
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 1);
    let n: i64 = old
        .query_row("SELECT count(*) FROM labels", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    // The migrated file keeps the data and takes the new columns.
    let sample = project.sample_by_name("old").unwrap().id;
    let labels = project.labels(sample).unwrap();
    assert_eq!(labels.len(), 1);
    assert_eq!(labels[0].label, LabelInput::new(Verdict::Correct));
    let codes = project.page_codes().unwrap();
    assert_eq!(codes.len(), 1);
    assert_eq!(
        (codes[0].applied, codes[0].source),
        (true, CodeSource::Page)
    );
    project
        .add_label(
            sample,
            0,
            "ann",
            &LabelInput::new(Verdict::Undecided).because(Reason::PrefilledForm),
        )
        .unwrap();
    assert!(project.integrity_problems().unwrap().is_empty());
    drop(project);
    // A second open migrates nothing and takes no backup.
    let project = Project::open(&path).unwrap();
    assert_eq!(project.migration().backup, None);
}

#[test]
fn files_that_are_not_current_projects_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.samecore");
    std::fs::write(&junk, vec![b'x'; 8192]).unwrap();
    let err = Project::open(&junk).unwrap_err();
    assert!(matches!(err, Error::BadProject { .. }), "{err:?}");
    assert!(err.to_string().contains("junk.samecore"));

    let newer = dir.path().join("newer.samecore");
    drop(Project::open(&newer).unwrap());
    let conn = rusqlite::Connection::open(&newer).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    let err = Project::open(&newer).unwrap_err();
    assert!(err.to_string().contains("newer"), "{err}");

    let other = dir.path().join("other.sqlite");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE t (x)").unwrap();
    drop(conn);
    let before = std::fs::read(&other).unwrap();
    assert!(matches!(
        Project::open(&other),
        Err(Error::BadProject { .. })
    ));
    // Byte for byte as it was: not switched to WAL (header bytes 18-19), no -wal file left.
    assert_eq!(std::fs::read(&other).unwrap(), before);
    assert_eq!(&before[18..20], &[1, 1]);
    assert!(!dir.path().join("other.sqlite-wal").exists());

    let missing = dir.path().join("missing.samecore");
    let options = OpenOptions {
        create: false,
        ..OpenOptions::default()
    };
    assert!(Project::open_with(&missing, &options).is_err());
    assert!(!missing.exists());
}

#[test]
fn cluster_codes_propagate_with_provenance_and_pages_override() {
    let mut project = Project::in_memory().unwrap();
    let (run, pages) = fixture(&mut project);
    let protest = project
        .add_code("protest", "coverage of a protest")
        .unwrap();
    let strike = project.add_code("strike", "").unwrap();
    assert!(
        project.add_code(" protest ", "").is_err(),
        "names are unique"
    );

    // Page 1 decided on its own not to be a protest before the cluster was coded.
    project.code_page(pages[1], protest, false, "bob").unwrap();
    assert_eq!(
        project
            .code_cluster(run, 0, protest, "ann", CodeSource::Cluster)
            .unwrap(),
        3
    );
    let codes = project.page_codes().unwrap();
    let of = |p: PageId| codes.iter().find(|c| c.page == p).unwrap();
    assert!(of(pages[0]).applied && of(pages[0]).source == CodeSource::Cluster);
    assert_eq!(
        (of(pages[0]).run, of(pages[0]).cluster),
        (Some(run), Some(0))
    );
    assert_eq!(of(pages[0]).applied_by, "ann");
    assert!(!of(pages[1]).applied && of(pages[1]).source == CodeSource::Page);

    // Rename and merge keep the pages.
    project.rename_code(strike, "labour").unwrap();
    project
        .code_cluster(run, 1, strike, "ann", CodeSource::Cluster)
        .unwrap();
    project.code_page(pages[0], strike, true, "ann").unwrap();
    project.merge_codes(strike, protest).unwrap();
    let book = project.codes().unwrap();
    assert_eq!(book.len(), 1);
    assert_eq!(
        book[0].pages,
        3 + 3,
        "cluster 0 minus the override, plus cluster 1"
    );

    // Hand edits: move a page out, split, merge.
    let alone = project.move_page_out(run, pages[3]).unwrap();
    assert_eq!(project.cluster_of(run, pages[3]).unwrap(), Some(alone));
    let split = project
        .split_cluster(run, 1, &[pages[5], pages[6]])
        .unwrap();
    assert!(
        project.split_cluster(run, 1, &[pages[0]]).is_err(),
        "not a member"
    );
    project.merge_clusters(run, 2, split).unwrap();
    let clusters = project.run_clusters(run).unwrap();
    let c2 = clusters.iter().find(|c| c.id == 2).unwrap();
    assert_eq!(c2.members, vec![pages[5], pages[6], pages[7], pages[8]]);
    assert!(c2.edited);
    // Codes stayed on the pages.
    assert!(
        project
            .page_codes()
            .unwrap()
            .iter()
            .any(|c| c.page == pages[3] && c.applied)
    );
    project.reset_cluster_edits(run).unwrap();
    assert_eq!(project.cluster_of(run, pages[3]).unwrap(), Some(0));
}

#[test]
fn a_new_run_is_reconciled_with_existing_codes() {
    let mut project = Project::in_memory().unwrap();
    let (run, pages) = fixture(&mut project);
    let code = project.add_code("election", "").unwrap();
    project
        .code_cluster(run, 0, code, "ann", CodeSource::Cluster)
        .unwrap();
    project.code_page(pages[2], code, false, "ann").unwrap();
    // A new run groups 0, 1, 9, 10 and 2, 11 differently.
    let members: Vec<ClusterMember> = [(0, 0), (1, 0), (9, 0), (10, 0), (2, 1), (11, 1), (3, 1)]
        .iter()
        .map(|&(p, c)| ClusterMember {
            page: pages[p],
            cluster: c,
            representative: false,
        })
        .collect();
    let record = RunRecord {
        detector: "shingling".into(),
        params: serde_json::json!({}),
        seed: None,
        code_version: "0.1.0".into(),
        elapsed_ms: None,
        timings: serde_json::json!({}),
    };
    let second = project.add_run(&record, &[], &members).unwrap();
    let plan = coding::reconcile(&project, second).unwrap();
    assert_eq!(plan.len(), 2);
    assert_eq!(plan[0].codes[0].coverage, Coverage::Partial);
    assert_eq!(plan[0].codes[0].undecided, vec![pages[9], pages[10]]);
    assert_eq!(plan[1].codes[0].coverage, Coverage::Conflict);
    // Propagate where at least half the members carry the code; conflicts are left alone.
    assert_eq!(
        coding::propagate(&mut project, second, "ann", 0.5).unwrap(),
        2
    );
    let codes = project.page_codes().unwrap();
    let p9 = codes.iter().find(|c| c.page == pages[9]).unwrap();
    assert_eq!(
        (p9.source, p9.run, p9.cluster),
        (CodeSource::Reconciled, Some(second), Some(0))
    );
    assert!(!codes.iter().any(|c| c.page == pages[11]));
    assert!(coding::propagate(&mut project, second, "ann", 0.0).is_err());
}

#[test]
fn exports_round_trip_labels_and_codes() {
    let dir = tempfile::tempdir().unwrap();
    for format in Format::ALL {
        let mut source = Project::in_memory().unwrap();
        let (run, pages) = fixture(&mut source);
        let sample = uniform_sample(&mut source, run, "round");
        let note = "menu differs, \"quoted\", with comma\nand a line break";
        source
            .add_label(
                sample,
                0,
                "ann",
                &LabelInput {
                    verdict: Verdict::Undecided,
                    reason: Some(Reason::DifferentMinorItem),
                    note: note.into(),
                },
            )
            .unwrap();
        source
            .add_label(sample, 1, "ann", &LabelInput::new(Verdict::Correct))
            .unwrap();
        source
            .add_label(sample, 1, "bob", &LabelInput::new(Verdict::Incorrect))
            .unwrap();
        let code = source.add_code("ads", "").unwrap();
        source
            .code_cluster(run, 1, code, "ann", CodeSource::Cluster)
            .unwrap();
        source.code_page(pages[5], code, false, "bob").unwrap();

        source
            .settle(sample, 1, "lead", &LabelInput::new(Verdict::Correct))
            .unwrap();
        let ext = format.name();
        let pairs_file = dir.path().join(format!("pairs.{ext}"));
        let codes_file = dir.path().join(format!("codes.{ext}"));
        let pairs = export::pair_rows(&source, sample).unwrap();
        assert_eq!(
            pairs.len(),
            10 + 1,
            "one row per label, one for each unlabelled pair"
        );
        export::write_file(&pairs, &pairs_file, None).unwrap();
        export::write_file(&export::code_rows(&source).unwrap(), &codes_file, None).unwrap();
        let pages_file = dir.path().join(format!("pages.{ext}"));
        let page_rows = export::page_rows(&source, Some(run)).unwrap();
        assert_eq!(
            export::write_file(&page_rows, &pages_file, None).unwrap(),
            12
        );
        let back: Vec<export::PageRow> = export::read_rows(&pages_file, None).unwrap();
        assert_eq!(back, page_rows);

        let mut target = Project::in_memory().unwrap();
        // Without the pages, nothing is imported.
        let refused = import::import_labels(&mut target, &pairs_file, Some(format));
        assert!(
            matches!(&refused, Err(samecore::Error::InvalidParameter(m)) if m.contains("not in this project")),
            "{refused:?}"
        );
        assert!(target.samples().unwrap().is_empty() && target.pages().unwrap().is_empty());
        let identities: Vec<_> = source
            .pages()
            .unwrap()
            .into_iter()
            .map(|p| p.identity)
            .collect();
        target.upsert_pages(None, &identities).unwrap();
        let report = import::import_labels(&mut target, &pairs_file, Some(format)).unwrap();
        assert_eq!(
            (report.rows, report.written, report.settlements),
            (11, 3, 1)
        );
        import::import_codes(&mut target, &codes_file, None).unwrap();
        let imported = target.sample_by_name("round").unwrap().id;
        let strip = |labels: Vec<samecore::store::samples::LabelRecord>| -> Vec<_> {
            labels
                .into_iter()
                .map(|l| (l.annotator, l.label, l.created_at))
                .collect()
        };
        assert_eq!(
            strip(target.labels(imported).unwrap()),
            strip(source.labels(sample).unwrap())
        );
        let keys = |p: &Project| -> Vec<_> {
            p.page_codes()
                .unwrap()
                .into_iter()
                .map(|c| {
                    (
                        c.key,
                        c.code,
                        c.applied,
                        c.source,
                        c.cluster,
                        c.applied_by,
                        c.applied_at,
                    )
                })
                .collect()
        };
        assert_eq!(keys(&target), keys(&source));
        // Settlements, strata populations and positions come back as they were.
        let settled = |p: &Project, s: SampleId| -> Vec<_> {
            p.settlements(s)
                .unwrap()
                .into_iter()
                .map(|s| (s.position, s.label, s.settled_by, s.settled_at))
                .collect()
        };
        assert_eq!(settled(&target, imported), settled(&source, sample));
        assert_eq!(
            target
                .sample_strata(imported)
                .unwrap()
                .iter()
                .map(|s| (s.population, s.drawn))
                .collect::<Vec<_>>(),
            source
                .sample_strata(sample)
                .unwrap()
                .iter()
                .map(|s| (s.population, s.drawn))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            target.sample_pairs(imported).unwrap().len(),
            source.sample_pairs(sample).unwrap().len()
        );
        // Importing the same file again writes nothing new.
        let again = import::import_labels(&mut target, &pairs_file, Some(format)).unwrap();
        assert_eq!(again.written, 0);
        assert_eq!(target.label_history_len(imported).unwrap(), 3);
    }
}

#[test]
fn empty_csv_exports_still_have_a_header_and_runs_export() {
    let project = Project::in_memory().unwrap();
    let mut out = Vec::new();
    export::write_rows(&export::code_rows(&project).unwrap(), &mut out, Format::Csv).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "key,record_id,url,capture_timestamp,date,code,applied,source,run,cluster,applied_by,applied_at,description\n"
    );
    let mut project = Project::in_memory().unwrap();
    fixture(&mut project);
    let runs = export::run_rows(&project).unwrap();
    let mut out = Vec::new();
    export::write_rows(&runs, &mut out, Format::Jsonl).unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(line["detector"], "spotsigs");
    let params: serde_json::Value = serde_json::from_str(line["params"].as_str().unwrap()).unwrap();
    assert_eq!(params["chains"], 1);
}

#[test]
fn gold_clusters_import_from_csv_and_tsv() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::in_memory().unwrap();
    fixture(&mut project);
    let csv = dir.path().join("gold.csv");
    std::fs::write(
        &csv,
        "doc,cluster\n<urn:uuid:0000>,A\n<urn:uuid:0001>,A\nunknown,B\n",
    )
    .unwrap();
    assert_eq!(
        import::import_gold(&mut project, &csv, None).unwrap(),
        (3, 2)
    );
    let tsv = dir.path().join("gold.tsv");
    std::fs::write(&tsv, "doc\tcluster\n<urn:uuid:0002>\tC\n").unwrap();
    assert_eq!(
        import::import_gold(&mut project, &tsv, None).unwrap(),
        (1, 1)
    );
    assert_eq!(project.gold().unwrap().len(), 4);
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "page,group\nx,1\n").unwrap();
    let err = import::import_gold(&mut project, &bad, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("doc") && err.contains("bad.csv"), "{err}");
    std::fs::write(&bad, "doc,cluster\nx,1\nx,2\n").unwrap();
    assert!(
        import::import_gold(&mut project, &bad, None)
            .unwrap_err()
            .to_string()
            .contains("line 3")
    );

    // A pages export is refused (its `cluster` is the detector's), unless told the column;
    // nothing of the real gold is touched by the refusal.
    let before = project.gold_with_source().unwrap();
    let run = project.runs().unwrap()[0].id;
    let pages = dir.path().join("pages.csv");
    export::write_file(
        &export::page_rows(&project, Some(run)).unwrap(),
        &pages,
        None,
    )
    .unwrap();
    let err = import::import_gold(&mut project, &pages, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pages export") && err.contains("--column gold"),
        "{err}"
    );
    assert_eq!(project.gold_with_source().unwrap(), before);
    let (read, _) = import::import_gold(&mut project, &pages, Some("gold")).unwrap();
    assert_eq!(read, 3, "only the pages with gold");
    let source = &project.gold_with_source().unwrap()["<urn:uuid:0000>"].1;
    assert!(
        source.starts_with("file:") && source.ends_with("pages.csv"),
        "{source}"
    );
    // The same export as Parquet and JSON Lines reads back the same way.
    for ext in ["parquet", "jsonl"] {
        let other = dir.path().join(format!("pages.{ext}"));
        export::write_file(
            &export::page_rows(&project, Some(run)).unwrap(),
            &other,
            None,
        )
        .unwrap();
        assert!(
            import::import_gold(&mut project, &other, None).is_err(),
            "{ext}"
        );
        let (read, _) = import::import_gold(&mut project, &other, Some("gold")).unwrap();
        assert_eq!(read, 3, "{ext}");
    }
}
