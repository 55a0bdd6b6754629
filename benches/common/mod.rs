//! What the benchmarks that run the release binary share: a child's wall time and peak RSS,
//! and the generated archives in `target/bench-data`.
#![allow(dead_code)] // each benchmark uses part of this

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One child's wall time and peak resident set (KB; `None` where it cannot be read).
pub struct Usage {
    pub wall: Duration,
    pub peak_kb: Option<u64>,
    pub ok: bool,
}

#[cfg(target_os = "linux")]
pub fn run_child(command: &mut Command) -> Usage {
    let started = Instant::now();
    let child = command.spawn().expect("spawn samecore");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; both out-pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    // The child was reaped by wait4; forget the handle so it is not waited for again.
    std::mem::forget(child);
    Usage {
        wall,
        peak_kb: (waited == pid).then_some(usage.ru_maxrss as u64),
        ok: waited == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
    }
}

#[cfg(not(target_os = "linux"))]
pub fn run_child(command: &mut Command) -> Usage {
    let started = Instant::now();
    let status = command.status().expect("run samecore");
    Usage {
        wall: started.elapsed(),
        peak_kb: None,
        ok: status.success(),
    }
}

/// The generated archive of `pages` HTML pages, written once by `samecore synth` (a child, so
/// this process stays small: a spawned child's peak RSS starts from its parent's) through a
/// `.part` file, so an interrupted run does not leave a short archive behind.
pub fn generated(binary: &str, pages: u64, seed: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    // Seed 7 is the archive every benchmark shares; another seed is another archive.
    let name = if seed == 7 {
        format!("synth-{pages}")
    } else {
        format!("synth-{pages}-seed{seed}")
    };
    let path = dir.join(format!("{name}.warc.gz"));
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("bench data dir");
    let part = dir.join(format!("{name}.part.warc.gz"));
    let mut synth = Command::new(binary);
    synth
        .args([
            "synth",
            "--seed",
            &seed.to_string(),
            "--pages",
            &pages.to_string(),
            "--overwrite",
            "--out",
        ])
        .arg(&part)
        .stdout(std::process::Stdio::null());
    let usage = run_child(&mut synth);
    assert!(usage.ok, "samecore synth failed");
    std::fs::rename(&part, &path).expect("rename archive");
    println!(
        "generated {} in {:.0} s",
        path.display(),
        usage.wall.as_secs_f64()
    );
    path
}
