//! What the integration tests share: the data in `../shared` (the SpotSigs gold set and real
//! WARC files), which a user's clone does not have. Tests that need it skip with a message when
//! it is absent, and fail instead when `SAMECORE_REQUIRE_SHARED=1` (as `.ci/run` sets).
//!
//! The skip message is written to the process's standard error directly, not through
//! `eprintln!`, which the test harness captures and throws away for a passing test: a user sees
//! `SKIPPED <test>: ../shared/… is absent` among the results instead of a silent "ok".
#![allow(dead_code)] // each test crate uses part of this

use std::io::Write;
use std::path::{Path, PathBuf};

/// `../shared/<rel>` beside the crate, or `None` (after saying so) when it is absent.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("SAMECORE_REQUIRE_SHARED").as_deref() != Ok("1"),
        "SAMECORE_REQUIRE_SHARED=1 but {} is missing",
        path.display()
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {} is absent (set SAMECORE_REQUIRE_SHARED=1 to make it an error)",
        path.display()
    );
    None
}

/// The development half of the SpotSigs gold set, when present.
pub fn goldset() -> Option<PathBuf> {
    shared("data/goldset-dev")
}

/// goldset-dev read with the default options, when present.
pub fn goldset_collection() -> Option<samecore::archive::Collection> {
    let path = goldset()?;
    let options = samecore::archive::ReadOptions::default();
    let progress = samecore::progress::Progress::new();
    Some(samecore::archive::load(&[path], &options, &progress).expect("read goldset-dev"))
}

/// Run the `samecore` binary with `args`; its standard output (it must succeed, else the test
/// fails with its standard error).
pub fn samecore<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().into()).collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "samecore {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Run the `samecore` binary with `args`, `stdin` piped in; (success, stdout, stderr).
pub fn samecore_with_input(args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every page's core ([`samecore::passages::cores_without_frames`]: its visible text without its site's frame, or
/// its content blocks on a site of fewer than three pages).
pub fn page_cores(docs: &[samecore::Document]) -> Vec<samecore::passages::PageCore> {
    let all: Vec<usize> = (0..docs.len()).collect();
    let site_of = |i: usize| docs[i].site.registrable.to_string();
    let read = |i: usize| samecore::archive::page_text(&docs[i]);
    let mut cores = samecore::passages::cores_without_frames(
        docs.len(),
        &all,
        &site_of,
        &read,
        &samecore::progress::Progress::new(),
    )
    .unwrap();
    (0..docs.len()).map(|i| cores.remove(&i).unwrap()).collect()
}

/// Words of the related-articles list a copy carries (`related=3` in the manifest) when its core
/// kept it: the heading and three other stories' titles, new text of the copy.
pub fn related_words(html: &str, core: &samecore::passages::Core) -> usize {
    let Some(start) = html.find("<div class=\"related-articles\">") else {
        return 0;
    };
    let end = html[start..]
        .find("</div>")
        .map_or(html.len(), |e| start + e);
    let text = samecore::token::strip::strip_tags(&html[start..end]);
    let first_title = text
        .split("Related articles")
        .nth(1)
        .unwrap_or("")
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let kept = !first_title.is_empty()
        && core
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&first_title);
    if kept {
        samecore::passages::Core::of_text(text).len()
    } else {
        0
    }
}
