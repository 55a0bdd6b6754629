//! Coders' packages end to end through the command line: a round assigned to three coders,
//! coded in their packages (two from the terminal, one through the library), merged in every
//! order and twice — the project's values and alpha the same each time —; packages edited by
//! hand, cut short, foreign or of another project refused with their reason and the project
//! unchanged; a merge killed at several points leaves the project whole and completes when run
//! again. And the project made by the previous release (schema v5) opens with every value.

mod common;

use std::path::{Path, PathBuf};

fn run(args: &[&str]) -> (bool, String, String) {
    common::samecore_with_input(args, "")
}

fn ok(args: &[&str]) -> String {
    let (ok, out, err) = run(args);
    assert!(ok, "samecore {args:?}: {err}");
    out
}

fn refused(args: &[&str]) -> String {
    let (ok, out, err) = run(args);
    assert!(!ok, "samecore {args:?} should fail: {out}");
    err
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v5.samecore")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A project with a round of six stories for ana, ben and cleo, and their three packages.
fn assigned(dir: &Path) -> (PathBuf, [PathBuf; 3]) {
    let project = dir.join("study.samecore");
    std::fs::copy(fixture(), &project).unwrap();
    let p = s(&project);
    // The fixture names the sample archive where it was made: point it at this checkout's.
    let archives = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives");
    ok(&["relocate", "--project", p, s(&archives)]);
    ok(&[
        "round",
        "--project",
        p,
        "--by",
        "lead",
        "new",
        "r2",
        "--size",
        "6",
        "--coders",
        "ana,ben,cleo",
        "--seed",
        "7",
    ]);
    let out = ok(&[
        "assign",
        "--project",
        p,
        "--round",
        "r2",
        "--by",
        "lead",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: Vec<PathBuf> = report["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| PathBuf::from(p["file"].as_str().unwrap()))
        .collect();
    assert_eq!(files.len(), 3);
    (
        project,
        [files[0].clone(), files[1].clone(), files[2].clone()],
    )
}

/// The stories of a package, by cluster.
fn clusters(package: &Path) -> Vec<i64> {
    let p = samecore::package::Package::open_read(package).unwrap();
    p.units().unwrap().iter().map(|u| u.cluster).collect()
}

/// Code the three packages: ana and ben from the terminal, cleo through the library.
fn code(packages: &[PathBuf; 3]) {
    let stories = clusters(&packages[0]);
    for (i, c) in stories.iter().enumerate() {
        let c = c.to_string();
        let ana = ["1", "2", "3", "1", "2", "98"][i];
        ok(&[
            "code",
            "--package",
            s(&packages[0]),
            "value",
            "--cluster",
            &c,
            "tone",
            ana,
        ]);
        let ben = ["1", "2", "3", "3", "2", "1"][i];
        ok(&[
            "code",
            "--package",
            s(&packages[1]),
            "value",
            "--cluster",
            &c,
            "tone",
            ben,
        ]);
    }
    // ben takes his last one back and gives another.
    ok(&["code", "--package", s(&packages[1]), "undo-value"]);
    let last = stories[5].to_string();
    ok(&[
        "code",
        "--package",
        s(&packages[1]),
        "value",
        "--cluster",
        &last,
        "tone",
        "98",
    ]);
    let mut cleo = samecore::package::Package::open(&packages[2]).unwrap();
    for (i, v) in ["1", "2", "2", "1"].iter().enumerate() {
        cleo.set_value(i as i64, "tone", v).unwrap();
    }
    // A value outside the list is refused in the package too.
    assert!(cleo.set_value(0, "tone", "7").is_err());
}

fn export_values(project: &Path, dir: &Path) -> Vec<u8> {
    let out = dir.join("values.csv");
    ok(&["export", "values", "--project", s(project), "-o", s(&out)]);
    std::fs::read(&out).unwrap()
}

fn alpha(project: &Path) -> String {
    ok(&[
        "agreement",
        "--project",
        s(project),
        "--json",
        "--seed",
        "1",
    ])
}

#[test]
fn packages_merged_in_any_order_and_twice_give_the_same_project() {
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    code(&packages);
    let orders: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut seen: Option<(Vec<u8>, String)> = None;
    for (n, order) in orders.iter().enumerate() {
        let copy = dir.path().join(format!("copy{n}.samecore"));
        std::fs::copy(&project, &copy).unwrap();
        for &i in order {
            ok(&["merge", "--project", s(&copy), s(&packages[i])]);
        }
        let once = (export_values(&copy, dir.path()), alpha(&copy));
        // Again, all three at once: nothing new.
        let again = ok(&[
            "merge",
            "--project",
            s(&copy),
            "--json",
            s(&packages[0]),
            s(&packages[1]),
            s(&packages[2]),
        ]);
        let report: serde_json::Value = serde_json::from_str(&again).unwrap();
        for p in report["packages"].as_array().unwrap() {
            assert_eq!(p["values_in"], 0, "{again}");
        }
        assert_eq!((export_values(&copy, dir.path()), alpha(&copy)), once);
        match &seen {
            None => seen = Some(once),
            Some(first) => assert_eq!(&once, first, "order {order:?}"),
        }
    }
    let (values, _) = seen.unwrap();
    let text = String::from_utf8(values).unwrap();
    // Every coder's own values, ben's undone one not counted.
    assert_eq!(
        text.lines()
            .filter(|l| l.contains(",tone,cleo,coder,"))
            .count(),
        4
    );
    for c in clusters(&packages[0]) {
        let row = format!("run 1 cluster {c},story,1,{c},tone,ana,coder,");
        assert!(
            text.lines().any(|l| l.starts_with(&row)),
            "ana on {c}: {text}"
        );
    }
    let merged = dir.path().join("copy0.samecore");
    let project = samecore::store::Project::open(&merged).unwrap();
    let ben: Vec<_> = project
        .values()
        .unwrap()
        .into_iter()
        .filter(|v| v.coder == "ben" && v.variable == "tone")
        .collect();
    let last = clusters(&packages[1])[5];
    let on_last = ben
        .iter()
        .find(|v| matches!(v.unit, samecore::store::values::Unit::Story { cluster, .. } if cluster == last))
        .unwrap();
    assert_eq!(on_last.answer, samecore::codebook::Answer::NotApplicable);
}

#[test]
fn a_changed_cut_foreign_or_strange_package_is_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    code(&packages);
    let before = export_values(&project, dir.path());
    let p = s(&project);

    // Its texts edited by hand.
    let edited = dir.path().join("edited.samecore-package");
    std::fs::copy(&packages[0], &edited).unwrap();
    {
        let conn = rusqlite::Connection::open(&edited).unwrap();
        conn.execute(
            "UPDATE units SET core = 'something else' WHERE position = 0",
            [],
        )
        .unwrap();
    }
    let err = refused(&["merge", "--project", p, s(&packages[1]), s(&edited)]);
    assert!(err.contains("changed after it was written"), "{err}");

    // The signature's input made unreadable and the signature emptied.
    let unsigned = dir.path().join("unsigned.samecore-package");
    std::fs::copy(&packages[0], &unsigned).unwrap();
    {
        let conn = rusqlite::Connection::open(&unsigned).unwrap();
        conn.execute("INSERT INTO meta (key, value) VALUES ('zz', x'00ff')", [])
            .unwrap();
        conn.execute("UPDATE meta SET value = '' WHERE key = 'mac'", [])
            .unwrap();
    }
    let err = refused(&["merge", "--project", p, s(&unsigned)]);
    assert!(err.contains("changed after it was written"), "{err}");

    // A value of a page variable, a value from the future, written in by hand.
    let first = "(SELECT min(id) FROM coded WHERE carried = 0)";
    for (what, set, said) in [
        (
            "page variable",
            "variable = 'genre'",
            "not a story variable",
        ),
        ("future", "at = '2999-01-01T00:00:00.000Z'", "in the future"),
        ("bad time", "at = 'tomorrow'", "no time samecore writes"),
    ] {
        let bad = dir
            .path()
            .join(format!("{}.samecore-package", what.replace(' ', "_")));
        std::fs::copy(&packages[0], &bad).unwrap();
        rusqlite::Connection::open(&bad)
            .unwrap()
            .execute(&format!("UPDATE coded SET {set} WHERE id = {first}"), [])
            .unwrap();
        let err = refused(&["merge", "--project", p, s(&bad)]);
        assert!(err.contains(said), "{what}: {err}");
    }

    // Cut short at several places.
    let bytes = std::fs::read(&packages[0]).unwrap();
    for cut in [0, 10, 100, 4096, bytes.len() / 2, bytes.len() - 1] {
        let short = dir.path().join(format!("short{cut}.samecore-package"));
        std::fs::write(&short, &bytes[..cut]).unwrap();
        let err = refused(&["merge", "--project", p, s(&short)]);
        assert!(
            err.contains("not a samecore package") || err.contains("damaged or cut short"),
            "cut at {cut}: {err}"
        );
    }

    // A foreign SQLite file (the project itself) and a text file.
    let err = refused(&["merge", "--project", p, s(&fixture())]);
    assert!(err.contains("not a samecore package"), "{err}");
    let text = dir.path().join("notes.samecore-package");
    std::fs::write(&text, "hello").unwrap();
    assert!(refused(&["merge", "--project", p, s(&text)]).contains("not a samecore package"));

    // A package of another project.
    let other = tempfile::tempdir().unwrap();
    let (_, theirs) = assigned(other.path());
    let err = refused(&["merge", "--project", p, s(&theirs[0])]);
    assert!(err.contains("another project"), "{err}");

    // A package opened as a project is named and left as it was.
    let bytes_before = std::fs::read(&packages[2]).unwrap();
    let out = dir.path().join("x.csv");
    let err = refused(&[
        "export",
        "pages",
        "--project",
        s(&packages[2]),
        "-o",
        s(&out),
    ]);
    assert!(err.contains("a coder's package, not a project"), "{err}");
    assert_eq!(std::fs::read(&packages[2]).unwrap(), bytes_before);

    assert_eq!(
        export_values(&project, dir.path()),
        before,
        "nothing changed"
    );
    // And the good ones still go in.
    ok(&["merge", "--project", p, s(&packages[0]), s(&packages[1])]);
    assert_ne!(export_values(&project, dir.path()), before);
}

#[cfg(unix)]
#[test]
fn a_merge_killed_at_any_point_leaves_the_project_whole_and_runs_again() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    code(&packages);
    let reference = dir.path().join("reference.samecore");
    std::fs::copy(&project, &reference).unwrap();
    ok(&[
        "merge",
        "--project",
        s(&reference),
        s(&packages[0]),
        s(&packages[1]),
        s(&packages[2]),
    ]);
    let want = export_values(&reference, dir.path());
    for delay_ms in [0u64, 1, 3, 6, 10, 20, 40] {
        let copy = dir.path().join(format!("killed{delay_ms}.samecore"));
        std::fs::copy(&project, &copy).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_samecore"))
            .args([
                "merge",
                "--project",
                s(&copy),
                s(&packages[0]),
                s(&packages[1]),
                s(&packages[2]),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let opened = samecore::store::Project::open(&copy).unwrap();
        assert!(
            opened.integrity_problems().unwrap().is_empty(),
            "after {delay_ms} ms"
        );
        drop(opened);
        ok(&[
            "merge",
            "--project",
            s(&copy),
            s(&packages[0]),
            s(&packages[1]),
            s(&packages[2]),
        ]);
        assert_eq!(
            export_values(&copy, dir.path()),
            want,
            "after {delay_ms} ms"
        );
    }
}

/// A project made by the previous release (schema v5: a codebook, a round, two coders' values
/// on stories and a page, an undone value, a final one) opens at v6 with a backup beside it
/// and every value as that release exported it.
#[test]
fn a_v5_project_opens_with_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("old.samecore");
    std::fs::copy(fixture(), &project).unwrap();
    let opened = samecore::store::Project::open(&project).unwrap();
    assert_eq!(
        (opened.migration().from, opened.migration().to),
        (5, samecore::store::SCHEMA_VERSION)
    );
    assert!(
        opened
            .migration()
            .backup
            .as_ref()
            .is_some_and(|b| b.exists())
    );
    drop(opened);
    let now = String::from_utf8(export_values(&project, dir.path())).unwrap();
    let then = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v5-values.csv"),
    )
    .unwrap();
    assert_eq!(now.trim_end(), then.trim_end());
}

/// A package's page is inert: a hostile page (script, refresh, remote image, iframe, file:
/// link) is in it only as the safe view, which loads and runs nothing.
#[test]
fn the_page_in_a_package_runs_nothing_and_fetches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, packages) = assigned(dir.path());
    let p = samecore::package::Package::open_read(&packages[0]).unwrap();
    for u in p.units().unwrap() {
        assert!(u.view.contains("default-src 'none'"));
        assert!(u.view.contains("<iframe sandbox "));
        assert!(!u.view.to_lowercase().contains("http-equiv=\"refresh\""));
        assert!(!u.core.is_empty());
    }
    let hostile = "<html><head><meta http-equiv=refresh content='0;url=http://evil.example/'>\
        <script>fetch('http://evil.example/')</script></head><body>\
        <img src='http://tracker.example/p.gif'><iframe src='http://evil.example/f'></iframe>\
        <a href='file:///etc/passwd'>x</a><p>story</p></body></html>";
    let view = samecore::safe_view::inert_html(hostile, "http://news.example/a", None);
    assert!(
        !view.contains("url=http://evil.example/"),
        "the refresh is gone"
    );
    assert!(view.contains("default-src 'none'") && view.contains("<iframe sandbox "));
}

/// A package of chosen stories (a round of a selection of clusters, not a draw), in the order
/// given; a cluster the run does not have is refused.
#[test]
fn a_selection_of_clusters_goes_into_a_package_in_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    let p = s(&project);
    let mut chosen = clusters(&packages[0]);
    chosen.truncate(2);
    chosen.reverse();
    let list = format!("{},{}", chosen[0], chosen[1]);
    ok(&[
        "round",
        "--project",
        p,
        "new",
        "picked",
        "--clusters",
        &list,
        "--coders",
        "dana",
    ]);
    let err = refused(&[
        "round",
        "--project",
        p,
        "new",
        "bad",
        "--clusters",
        "999999",
        "--coders",
        "dana",
    ]);
    assert!(err.contains("no cluster 999999"), "{err}");
    let out = ok(&["assign", "--project", p, "--round", "picked", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let file = PathBuf::from(report["packages"][0]["file"].as_str().unwrap());
    assert_eq!(clusters(&file), chosen);
}

/// A package restored from a copy after it was merged, and coded again there, reuses row
/// numbers for other values: the merge refuses it rather than drop them as "already there".
#[test]
fn a_package_coded_again_in_an_older_copy_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    let p = s(&project);
    let copy = dir.path().join("copy.samecore-package");
    std::fs::copy(&packages[0], &copy).unwrap();
    let c = clusters(&packages[0])[0].to_string();
    ok(&[
        "code",
        "--package",
        s(&packages[0]),
        "value",
        "--cluster",
        &c,
        "tone",
        "1",
    ]);
    ok(&["merge", "--project", p, s(&packages[0])]);
    ok(&[
        "code",
        "--package",
        s(&copy),
        "value",
        "--cluster",
        &c,
        "tone",
        "3",
    ]);
    let before = export_values(&project, dir.path());
    let err = refused(&["merge", "--project", p, s(&copy)]);
    assert!(
        err.contains("not the one merged from this package before"),
        "{err}"
    );
    assert_eq!(export_values(&project, dir.path()), before);
}

fn v6_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v6.samecore")
}

/// The label columns of a pairs export (position, annotator, verdict, reason, note), sorted.
fn label_rows(project: &Path, sample: &str) -> Vec<String> {
    let out = ok(&[
        "export",
        "pairs",
        "--project",
        s(project),
        "--sample",
        sample,
        "--format",
        "jsonl",
        "-o",
        "-",
    ]);
    let mut rows: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["annotator"].as_str().is_some_and(|a| !a.is_empty()))
        .map(|r| {
            format!(
                "{} {} {} {} {}",
                r["position"], r["annotator"], r["verdict"], r["reason"], r["note"]
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The derivation classes that count, as (source key, derived key, class, by).
fn classes(project: &Path) -> Vec<(String, String, String, String)> {
    let p = samecore::store::Project::open(project).unwrap();
    let key = |id| p.page(id).unwrap().unwrap().identity.key;
    p.derivations()
        .unwrap()
        .into_iter()
        .map(|d| {
            (
                key(d.source),
                key(d.derived),
                d.class.name().to_string(),
                d.by,
            )
        })
        .collect()
}

/// A project of the previous release with sample `pairs1` (ana's and ben's labels, one of
/// them undone, and two derivation classes), its pairs assigned to ana and cy.
fn sample_assigned(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let project = dir.join("pairs.samecore");
    std::fs::copy(v6_fixture(), &project).unwrap();
    let archives = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives");
    ok(&["relocate", "--project", s(&project), s(&archives)]);
    let out = ok(&[
        "assign",
        "--project",
        s(&project),
        "--sample",
        "pairs1",
        "--coders",
        "ana,cy",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: Vec<PathBuf> = report["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| PathBuf::from(p["file"].as_str().unwrap()))
        .collect();
    // ana's three labels and her derivation class come along; cy has none.
    assert_eq!(report["packages"][0]["carried"], 4, "{report}");
    assert_eq!(report["packages"][1]["carried"], 0, "{report}");
    (project, files[0].clone(), files[1].clone())
}

/// A sample's pairs judged in two packages (cy at the terminal's prompt, ana from a file of
/// answers and a derivation class through the library) and merged in both orders and twice:
/// the labels and classes the same each time, each under its coder with when it was decided;
/// an undo in the package comes through; a package whose pages were edited is refused.
#[test]
fn a_sample_judged_in_packages_merges_in_any_order_and_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (project, ana, cy) = sample_assigned(dir.path());
    // The package opens with both pages of each pair and their sites' frames.
    let package = samecore::package::Package::open_read(&cy).unwrap();
    assert_eq!(package.pair_count().unwrap(), 12);
    let first = package.pair(0).unwrap();
    assert!(first.a.html.contains("<html") || first.a.html.contains("<HTML"));
    assert!(first.score.is_some() && first.a.title.is_some());
    drop(package);
    // cy: correct, incorrect with reason 3 and a note, undo it, undecided; then quit.
    let (done, out, err) =
        common::samecore_with_input(&["label", "--package", s(&cy)], "c\ni3 a note\nz\nu\nq\n");
    assert!(done, "{err}");
    assert!(out.contains("2 of 12 pairs labelled by cy"), "{out}");
    let answers = dir.path().join("ana.txt");
    std::fs::write(&answers, "1 c\n2 i\n4 u7 prefilled form\n").unwrap();
    ok(&["label", "--package", s(&ana), "--answers", s(&answers)]);
    let mut p = samecore::package::Package::open(&ana).unwrap();
    p.set_derivation(3, false, samecore::passages::Derivation::Wholly, "")
        .unwrap();
    drop(p);
    // Reports and other coders' names belong to the project.
    refused(&["label", "--package", s(&ana), "--report"]);
    refused(&["label", "--package", s(&ana), "--annotator", "cy"]);

    let mut results = Vec::new();
    for order in [[&ana, &cy], [&cy, &ana]] {
        let copy = dir.path().join(format!("copy-{}.samecore", results.len()));
        std::fs::copy(&project, &copy).unwrap();
        let out = ok(&[
            "merge",
            "--project",
            s(&copy),
            s(order[0]),
            s(order[1]),
            "--json",
        ]);
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        let by_coder = |c: &str| {
            report["packages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["coder"] == c)
                .cloned()
                .unwrap()
        };
        assert_eq!(by_coder("cy")["labels_in"], 3, "{report}");
        assert_eq!(by_coder("ana")["labels_in"], 3, "{report}");
        assert_eq!(by_coder("ana")["derivations_in"], 1, "{report}");
        // A label carried from the project and changed is a revision, not a conflict.
        assert!(by_coder("ana")["conflicts"].as_array().unwrap().is_empty());
        // Again: nothing new.
        let again: serde_json::Value = serde_json::from_str(&ok(&[
            "merge",
            "--project",
            s(&copy),
            s(order[1]),
            s(order[0]),
            "--json",
        ]))
        .unwrap();
        for p in again["packages"].as_array().unwrap() {
            assert_eq!(p["labels_in"], 0, "{again}");
            assert_eq!(p["derivations_in"], 0, "{again}");
        }
        results.push((label_rows(&copy, "pairs1"), classes(&copy)));
    }
    assert_eq!(results[0], results[1]);
    let (labels, derived) = &results[0];
    let has = |row: &str| labels.iter().any(|l| l == row);
    assert!(has(r#"1 "cy" "correct" null """#), "{labels:#?}");
    assert!(has(r#"2 "cy" "undecided" null """#), "{labels:#?}");
    assert!(has(r#"2 "ana" "incorrect" null """#), "{labels:#?}");
    assert!(
        has(r#"4 "ana" "undecided" "prefilled_form" "prefilled form""#),
        "{labels:#?}"
    );
    // ben's labels stay as they were.
    assert!(
        has(r#"3 "ben" "incorrect" "message_id" "frames only""#),
        "{labels:#?}"
    );
    // ana's class of the fourth pair: its left page derives from its right.
    let p = samecore::package::Package::open_read(&ana).unwrap();
    let pair = p.pair(3).unwrap();
    assert!(
        derived.contains(&(
            pair.b.key.clone(),
            pair.a.key.clone(),
            "wholly".to_string(),
            "ana".to_string()
        )),
        "{derived:#?}"
    );

    // A package whose page was edited by hand is refused, and nothing changes.
    let edited = dir.path().join("edited.samecore-package");
    std::fs::copy(&cy, &edited).unwrap();
    let conn = rusqlite::Connection::open(&edited).unwrap();
    conn.execute(
        "UPDATE pages SET title = 'changed' WHERE id = (SELECT min(id) FROM pages)",
        [],
    )
    .unwrap();
    drop(conn);
    let before = label_rows(&project, "pairs1");
    let err = refused(&["merge", "--project", s(&project), s(&edited)]);
    assert!(err.contains("changed after it was written"), "{err}");
    assert_eq!(label_rows(&project, "pairs1"), before);
}

/// A project made by the previous release (schema v6: a sample with labels of two annotators,
/// one undone, and two derivation classes of one pair) opens with every label and class.
#[test]
fn a_v6_project_opens_with_every_label_and_class() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("old.samecore");
    std::fs::copy(v6_fixture(), &project).unwrap();
    let opened = samecore::store::Project::open(&project).unwrap();
    assert_eq!(
        (opened.migration().from, opened.migration().to),
        (6, samecore::store::SCHEMA_VERSION)
    );
    drop(opened);
    let then = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v6-pairs.csv"),
    )
    .unwrap();
    // The export has no comma inside a field here (keys, URLs, these notes).
    let mut lines = then.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (pos, who, verdict, reason, note) = (
        at("position"),
        at("annotator"),
        at("verdict"),
        at("reason"),
        at("note"),
    );
    let mut expected: Vec<String> = lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .filter(|f| !f[who].is_empty())
        .map(|f| {
            let reason = if f[reason].is_empty() {
                "null".to_string()
            } else {
                format!("{:?}", f[reason])
            };
            format!(
                "{} {:?} {:?} {reason} {:?}",
                f[pos], f[who], f[verdict], f[note]
            )
        })
        .collect();
    expected.sort();
    assert_eq!(label_rows(&project, "pairs1"), expected);
    let derived = classes(&project);
    assert_eq!(derived.len(), 1, "{derived:?}");
    assert_eq!(
        (derived[0].2.as_str(), derived[0].3.as_str()),
        ("wholly", "ben")
    );
}

/// A round sent again after the codebook changed carries the coder's earlier values (coded
/// under version 1, they keep it), so nothing is coded twice; the new values are of version 2.
#[test]
fn a_round_sent_again_under_a_revised_codebook_keeps_each_value_s_version() {
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    code(&packages);
    ok(&["merge", "--project", s(&project), s(&packages[0])]);
    let mut p = samecore::store::Project::open(&project).unwrap();
    let mut book = p.codebook().unwrap();
    let v1 = book.version;
    let ana_v1 = |p: &samecore::store::Project| {
        (p.values().unwrap().iter())
            .filter(|v| v.coder == "ana" && v.version == v1)
            .count()
    };
    let before = ana_v1(&p);
    let mut extra = book.variables[0].clone();
    extra.name = "tone_again".into();
    book.variables.push(extra);
    let v2 = p.save_codebook(&book, "lead", "a second tone").unwrap();
    assert!(v2 > v1);
    drop(p);
    // A package already there (ben's holds values not merged yet) is not written over.
    let ben = std::fs::read(&packages[1]).unwrap();
    let err = refused(&[
        "assign",
        "--project",
        s(&project),
        "--round",
        "r2",
        "--coders",
        "ben",
    ]);
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read(&packages[1]).unwrap(), ben);
    // ana's was merged: the lead moves it away and sends her a new one.
    std::fs::remove_file(&packages[0]).unwrap();
    let out = ok(&[
        "assign",
        "--project",
        s(&project),
        "--round",
        "r2",
        "--coders",
        "ana",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["packages"][0]["carried"], 6, "{report}");
    let file = PathBuf::from(report["packages"][0]["file"].as_str().unwrap());
    let mut package = samecore::package::Package::open(&file).unwrap();
    assert_eq!(package.info.codebook.version, v2);
    // Her six earlier answers are there, each of the version it was coded under.
    let carried = package.values().unwrap();
    assert_eq!(carried.len(), 6);
    assert!(
        carried
            .iter()
            .all(|v| v.version == v1 && v.variable == "tone")
    );
    package.set_value(0, "tone_again", "2").unwrap();
    drop(package);
    let merged: serde_json::Value = serde_json::from_str(&ok(&[
        "merge",
        "--project",
        s(&project),
        s(&file),
        "--json",
    ]))
    .unwrap();
    assert_eq!(merged["packages"][0]["values_in"], 1, "{merged}");
    let p = samecore::store::Project::open(&project).unwrap();
    let values: Vec<_> = p
        .values()
        .unwrap()
        .into_iter()
        .filter(|v| v.coder == "ana")
        .collect();
    assert_eq!(ana_v1(&p), before);
    assert!(
        values
            .iter()
            .any(|v| v.version == v2 && v.variable == "tone_again")
    );
}

/// A codebook with a page variable: the round's package carries every page of its stories with
/// its core text; the page variable is coded on one of them (from the terminal by URL, through
/// the library by key), undone and given again, and merges onto that page of the project.
#[test]
fn a_page_variable_is_coded_on_a_story_s_page_in_a_package_and_merged() {
    let dir = tempfile::tempdir().unwrap();
    let (project, packages) = assigned(dir.path());
    let package = samecore::package::Package::open_read(&packages[0]).unwrap();
    let units = package.units().unwrap();
    let members = package.members(0).unwrap();
    assert_eq!(members.len() as i64, units[0].pages, "{members:?}");
    assert!(members.iter().all(|m| !m.core.is_empty()));
    let (first, url) = (
        members[0].key.clone(),
        members[0]
            .url
            .clone()
            .expect("the sample archive's pages have URLs"),
    );
    drop(package);
    ok(&[
        "code",
        "--package",
        s(&packages[0]),
        "value",
        "genre",
        "1",
        "--page",
        &url,
    ]);
    ok(&["code", "--package", s(&packages[0]), "undo-value"]);
    ok(&[
        "code",
        "--package",
        s(&packages[0]),
        "value",
        "genre",
        "2",
        "--page",
        &url,
    ]);
    // A story variable is not given on a page, nor a page of another story.
    refused(&[
        "code",
        "--package",
        s(&packages[0]),
        "value",
        "tone",
        "1",
        "--page",
        &url,
    ]);
    let mut p = samecore::package::Package::open(&packages[0]).unwrap();
    assert!(p.set_page_value(1, &first, "genre", "1").is_err());
    let listed = ok(&["code", "--package", s(&packages[0]), "list"]);
    assert!(listed.contains(&format!("page {url}  genre=2")), "{listed}");
    drop(p);
    ok(&["merge", "--project", s(&project), s(&packages[0])]);
    let project = samecore::store::Project::open(&project).unwrap();
    let page = project
        .pages_named(&first)
        .unwrap()
        .into_iter()
        .find(|p| p.identity.key == first)
        .unwrap();
    let on_page: Vec<_> = project
        .values()
        .unwrap()
        .into_iter()
        .filter(|v| v.coder == "ana" && v.unit == samecore::store::values::Unit::Page(page.id))
        .collect();
    assert_eq!(on_page.len(), 1, "{on_page:?}");
    assert_eq!(
        on_page[0].answer,
        samecore::codebook::Answer::Value("2".into())
    );
}

/// A package written by the previous release (layout 1, with one value) and the project that
/// wrote it: the package is coded on with this release and merges with both values.
#[test]
fn a_package_of_the_previous_release_is_coded_on_and_merged() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages");
    let project = dir.path().join("lead.samecore");
    let package = dir.path().join("home-ana.samecore-package");
    std::fs::copy(fixtures.join("v6-lead.samecore"), &project).unwrap();
    std::fs::copy(fixtures.join("v1-home-ana.samecore-package"), &package).unwrap();
    let mut p = samecore::package::Package::open(&package).unwrap();
    assert_eq!(p.info.format, 1);
    assert_eq!(p.values().unwrap().len(), 1);
    assert!(p.members(0).unwrap().is_empty());
    let open = p.units().unwrap()[1].position;
    p.set_value(open, "tone", "3").unwrap();
    drop(p);
    let report: serde_json::Value = serde_json::from_str(&ok(&[
        "merge",
        "--project",
        s(&project),
        s(&package),
        "--json",
    ]))
    .unwrap();
    assert_eq!(report["packages"][0]["values_in"], 2, "{report}");
}

/// A label merged from a laptop whose clock runs ahead does not outlive a later decision in
/// the project: the project's new label is stamped after it and counts.
#[test]
fn a_decision_in_the_project_after_a_merge_counts_whatever_the_laptop_s_clock() {
    let dir = tempfile::tempdir().unwrap();
    let (project, _ana, cy) = sample_assigned(dir.path());
    let mut p = samecore::package::Package::open(&cy).unwrap();
    p.add_label(
        0,
        &samecore::labels::LabelInput::new(samecore::labels::Verdict::Incorrect),
    )
    .unwrap();
    drop(p);
    // The laptop's clock was an hour ahead.
    let conn = rusqlite::Connection::open(&cy).unwrap();
    conn.execute(
        "UPDATE labels SET at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 hour')",
        [],
    )
    .unwrap();
    drop(conn);
    ok(&["merge", "--project", s(&project), s(&cy)]);
    let answers = dir.path().join("cy.txt");
    std::fs::write(&answers, "1 c\n").unwrap();
    ok(&[
        "label",
        "--project",
        s(&project),
        "--sample",
        "pairs1",
        "--annotator",
        "cy",
        "--answers",
        s(&answers),
    ]);
    let rows = label_rows(&project, "pairs1");
    assert!(
        rows.contains(&r#"1 "cy" "correct" null """#.to_string()),
        "{rows:#?}"
    );
}
