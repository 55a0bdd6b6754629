//! The project file on real archives: page identity (repeated record ids, the same archive
//! twice, copies, symlinks), archives found again from another directory and after a move.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use samecore::Error;
use samecore::store::Project;

fn warc(name: &str) -> Option<PathBuf> {
    common::shared(&format!("data/warc/{name}"))
}

/// Run the binary in `dir`; (success, stdout, stderr).
fn samecore_in(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_samecore"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn counts(project: &Path) -> (usize, Vec<u64>) {
    let p = Project::open(project).unwrap();
    let runs = p.runs().unwrap().iter().map(|r| r.pairs).collect();
    (p.pages().unwrap().len(), runs)
}

#[test]
fn repeated_record_ids_are_seven_pages_and_info_warns() {
    let Some(file) = warc("ipwb__5mementos.warc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = file.to_string_lossy().into_owned();
    let (ok, _, err) = samecore_in(dir.path(), &["run", &file, "--project", "x.samecore"]);
    assert!(ok, "{err}");
    assert!(err.contains("reuse a WARC-Record-ID"), "{err}");
    let project = Project::open(dir.path().join("x.samecore")).unwrap();
    let pages = project.pages().unwrap();
    assert_eq!(pages.len(), 7);
    // All seven share one record id and keep it; their keys (the capture) differ.
    assert!(
        pages
            .iter()
            .all(|p| p.identity.record_id == pages[0].identity.record_id)
    );
    let run = project.runs().unwrap()[0].id;
    let members: usize = project
        .run_clusters(run)
        .unwrap()
        .iter()
        .map(|c| c.members.len())
        .sum();
    assert_eq!(members, 7);
    let (ok, out, _) = samecore_in(dir.path(), &["info", &file]);
    assert!(ok && out.contains("warnings:       1"), "{out}");
}

#[test]
fn the_same_capture_is_one_page_whatever_file_it_is_read_from() {
    let Some(file) = warc("pywb__iana.warc.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.warc.gz");
    std::fs::copy(&file, &copy).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&file, dir.path().join("link.warc.gz")).unwrap();
    let file = file.to_string_lossy().into_owned();
    let (ok, _, err) = samecore_in(dir.path(), &["run", &file, "--project", "one.samecore"]);
    assert!(ok, "{err}");
    let (single_pages, single_runs) = counts(&dir.path().join("one.samecore"));
    assert!(single_pages > 5);

    // The same archive twice: the same pages and the same pairs, with a warning.
    let (ok, _, err) = samecore_in(
        dir.path(),
        &["run", &file, &file, "--project", "twice.samecore"],
    );
    assert!(ok, "{err}");
    assert!(err.contains("repeat a capture already read"), "{err}");
    assert_eq!(
        counts(&dir.path().join("twice.samecore")),
        (single_pages, single_runs.clone())
    );

    // A copy and a symlink, run into the first project: no new page.
    for other in ["copy.warc.gz", "link.warc.gz"] {
        if !dir.path().join(other).exists() {
            continue;
        }
        let (ok, _, err) = samecore_in(dir.path(), &["run", other, "--project", "one.samecore"]);
        assert!(ok, "{other}: {err}");
        let (pages, runs) = counts(&dir.path().join("one.samecore"));
        assert_eq!(pages, single_pages, "{other}");
        assert_eq!(runs.last(), single_runs.last(), "{other}");
    }
}

#[test]
fn archives_are_found_from_anywhere_after_a_move_and_after_relocate() {
    let Some(file) = warc("pywb__iana.warc.gz") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let sub = work.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(&file, sub.join("n.warc.gz")).unwrap();
    // Run from inside sub/, the project one level up, the archive named relatively.
    let (ok, _, err) = samecore_in(&sub, &["run", "n.warc.gz", "--project", "../r.samecore"]);
    assert!(ok, "{err}");
    let readable = |project: &Path| -> Result<usize, Error> {
        let p = Project::open(project).unwrap();
        let pages = p.pages().unwrap();
        let mut n = 0;
        for page in &pages {
            samecore::archive::read_raw(&p.locate(page)?)?;
            n += 1;
        }
        Ok(n)
    };
    let all = readable(&work.join("r.samecore")).unwrap();
    assert!(all > 5);

    // Project and archives moved together: found through the path relative to the project.
    let moved = root.path().join("moved");
    std::fs::rename(&work, &moved).unwrap();
    assert_eq!(readable(&moved.join("r.samecore")).unwrap(), all);

    // The archive folder moved on its own: a clear error, then `relocate` points at it.
    std::fs::rename(moved.join("sub"), root.path().join("elsewhere")).unwrap();
    match readable(&moved.join("r.samecore")) {
        Err(e @ Error::ArchiveMissing { .. }) => {
            assert!(e.to_string().contains("samecore relocate"), "{e}")
        }
        other => panic!("expected a missing archive, got {other:?}"),
    }
    let project = moved.join("r.samecore").to_string_lossy().into_owned();
    let (ok, _, _) = samecore_in(root.path(), &["relocate", "--project", &project]);
    assert!(
        !ok,
        "relocate without a folder reports the missing archive as an error"
    );
    let (ok, out, err) = samecore_in(
        root.path(),
        &["relocate", "--project", &project, "elsewhere"],
    );
    assert!(ok, "{out}{err}");
    assert!(out.contains("moved:"), "{out}");
    assert_eq!(readable(&moved.join("r.samecore")).unwrap(), all);
}

#[test]
fn gold_from_folder_names_is_stored_with_its_source() {
    let Some(goldset) = common::goldset() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let goldset = goldset.to_string_lossy().into_owned();
    let (ok, _, err) = samecore_in(dir.path(), &["run", &goldset, "--project", "g.samecore"]);
    assert!(ok, "{err}");
    let project = Project::open(dir.path().join("g.samecore")).unwrap();
    let gold = project.gold_with_source().unwrap();
    assert_eq!(gold.len(), project.pages().unwrap().len());
    assert!(gold.values().all(|(_, source)| source == "folder names"));
    // The pages export shows it.
    let run = project.runs().unwrap()[0].id;
    let rows = samecore::export::page_rows(&project, Some(run)).unwrap();
    assert!(rows.iter().all(|r| r.gold.is_some()));
    let snuff = rows
        .iter()
        .find(|r| r.key.starts_with("Snuff/s6.htm "))
        .unwrap();
    assert_eq!(snuff.gold.as_deref(), Some("Snuff"));
}

/// Run the binary in `dir`, which must succeed; its stdout.
fn ok_in(dir: &Path, args: &[&str]) -> String {
    let (ok, out, err) = samecore_in(dir, args);
    assert!(ok, "samecore {args:?}: {err}");
    out
}

#[test]
fn coding_from_the_command_line_with_undo_and_reconcile_after_a_rerun() {
    let Some(goldset) = common::goldset() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let goldset = goldset.to_string_lossy().into_owned();
    ok_in(d, &["run", &goldset, "--project", "c.samecore"]);
    let (run, biggest, member) = {
        let p = Project::open(d.join("c.samecore")).unwrap();
        let run = p.runs().unwrap()[0].id;
        let c = p
            .run_clusters(run)
            .unwrap()
            .into_iter()
            .max_by_key(|c| c.members.len())
            .unwrap();
        let member = p.page(c.members[1]).unwrap().unwrap().identity.key;
        (run, c, member)
    };
    let cluster = biggest.id.to_string();
    let code = |args: &[&str]| {
        let mut all = vec!["code", "--project", "c.samecore", "--by", "ann"];
        all.extend_from_slice(args);
        ok_in(d, &all)
    };
    code(&["add", "scandal", "--description", "stories of a scandal"]);
    let out = code(&["apply", "scandal", "--cluster", &cluster]);
    assert!(
        out.contains(&format!("applied to {} page(s)", biggest.members.len())),
        "{out}"
    );
    code(&["page", &member, "scandal", "--remove"]);
    code(&["rename", "scandal", "affair"]);
    let list = code(&["list"]);
    assert!(
        list.contains("affair") && list.contains(&format!("{} pages", biggest.members.len() - 1)),
        "{list}"
    );
    // An unknown code or page is a clear error and changes nothing.
    let (ok, _, err) = samecore_in(
        d,
        &[
            "code",
            "--project",
            "c.samecore",
            "remove",
            "nope",
            "--cluster",
            "0",
        ],
    );
    assert!(
        !ok && err.contains("no code named \"nope\"") && err.contains("affair"),
        "{err}"
    );
    // A name not in the codebook is not applied (a typo would start a code of its own)
    // unless --new says it is meant.
    let apply_new = |extra: &[&str]| {
        let mut args = vec![
            "code",
            "--project",
            "c.samecore",
            "--by",
            "ann",
            "apply",
            "afair",
            "--cluster",
        ];
        args.push(&cluster);
        args.extend_from_slice(extra);
        samecore_in(d, &args)
    };
    let (ok, _, err) = apply_new(&[]);
    assert!(
        !ok && err.contains("no code named \"afair\"") && err.contains("--new"),
        "{err}"
    );
    assert!(!code(&["list"]).contains("afair"));
    let (ok, out, err) = apply_new(&["--new"]);
    assert!(ok && out.contains("added code \"afair\""), "{err}");
    let undone = code(&["undo"]);
    assert!(undone.contains("apply \"afair\""), "{undone}");
    assert!(code(&["undo"]).contains("add code"));

    // A stricter re-run splits the coded cluster; reconcile says so and extends on request.
    ok_in(
        d,
        &[
            "run",
            &goldset,
            "--project",
            "c.samecore",
            "--threshold",
            "0.7",
        ],
    );
    let out = code(&["reconcile"]);
    assert!(out.contains("split: \"affair\""), "{out}");

    // Undo walks back through invocations, in order; someone else's later edit blocks it.
    let (ok, _, err) = samecore_in(
        d,
        &[
            "code",
            "--project",
            "c.samecore",
            "--by",
            "bob",
            "apply",
            "affair",
            "--cluster",
            &cluster,
            "--run",
            &run.to_string(),
        ],
    );
    assert!(ok, "{err}");
    let (ok, _, err) = samecore_in(
        d,
        &["code", "--project", "c.samecore", "--by", "ann", "undo"],
    );
    assert!(!ok && err.contains("bob"), "{err}");
    assert!(
        ok_in(
            d,
            &["code", "--project", "c.samecore", "--by", "bob", "undo"]
        )
        .contains("undid")
    );
    assert!(code(&["undo"]).contains("rename"));
    assert!(code(&["undo"]).contains("remove \"scandal\" on page"));
    assert!(code(&["list"]).contains(&format!("{} pages", biggest.members.len())));
    assert!(code(&["undo"]).contains("apply"));
    assert!(code(&["undo"]).contains("add code"));
    assert!(code(&["list"]).contains("codebook is empty"));
    assert!(code(&["undo"]).contains("nothing"));
}

#[test]
fn pages_of_an_older_project_are_rekeyed_in_place_and_keep_their_codes() {
    let Some(file) = warc("pywb__iana.warc.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = file.to_string_lossy().into_owned();
    ok_in(d, &["run", &file, "--project", "old.samecore"]);
    // The state a schema v2 file is in after migrating to v3: pages under the reader's key
    // (the record id), marked legacy, with a code on one of them.
    let (pages, coded) = {
        let mut p = Project::open(d.join("old.samecore")).unwrap();
        let pages = p.pages().unwrap();
        let code = p.add_code("kept", "").unwrap();
        p.code_page(pages[0].id, code, true, "ann").unwrap();
        drop(p);
        let conn = rusqlite::Connection::open(d.join("old.samecore")).unwrap();
        conn.execute_batch("UPDATE documents SET key = reader_key, legacy = 1")
            .unwrap();
        (pages.len(), pages[0].id)
    };
    ok_in(d, &["run", &file, "--project", "old.samecore"]);
    let p = Project::open(d.join("old.samecore")).unwrap();
    let now = p.pages().unwrap();
    assert_eq!(now.len(), pages, "no page was added twice");
    let page = now.iter().find(|x| x.id == coded).unwrap();
    assert!(
        page.identity.key.contains(' '),
        "re-keyed to the capture: {:?}",
        page.identity.key
    );
    let codes = p.page_codes().unwrap();
    assert_eq!(codes.len(), 1);
    assert_eq!(codes[0].page, coded);
}
