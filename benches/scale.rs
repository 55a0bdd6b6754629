//! Growth with the archive: wall time, peak RSS and pages per second of `samecore info` and
//! `samecore run` (all-pairs and incremental) on generated archives of growing size.
//!
//! `cargo bench --bench scale` generates, once, `target/bench-data/synth-N.warc.gz` for each N of
//! `SAMECORE_SCALE_PAGES` (comma-separated HTML page counts; default `100000,300000`; add
//! `1000000` for the million-page archive, about 6.5 GB and 5 minutes to write) and runs the
//! release `samecore` binary on it as a child process, one command at a time, so the figures are
//! a user's. Peak RSS is the child's own (`wait4`'s `ru_maxrss`, Linux only). Each size's line
//! ends with the ratio to the previous size, which is what "matching that scales" is about.
//! Nothing is asserted: the machines these run on are shared, so the numbers are for reading,
//! and the targets (issue "a million pages": ≤ 15 min and ≤ 2 GB for `run` at 1M pages, `info`
//! within 1.5× `gzip -dc`) are printed beside them.
//!
//! The workbench on these archives is `cargo bench --bench workbench` with
//! `SAMECORE_BENCH_ARCHIVE=target/bench-data/synth-N.warc.gz` (it opens the archive in the real
//! app, so it is a separate benchmark).

use std::process::Command;

mod common;

use common::{generated, run_child};

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    let sizes: Vec<u64> = std::env::var("SAMECORE_SCALE_PAGES")
        .unwrap_or_else(|_| "100000,300000".into())
        .split(',')
        .filter_map(|s| s.trim().replace('_', "").parse().ok())
        .collect();
    let binary = env!("CARGO_BIN_EXE_samecore");
    let commands: [(&str, &[&str]); 3] = [
        ("info", &["info"]),
        ("run allpairs", &["run", "--mode", "allpairs"]),
        ("run incremental", &["run", "--mode", "incremental"]),
    ];
    println!("binary: {binary}; sizes: {sizes:?}");
    println!(
        "{:>9} {:<16} {:>9} {:>10} {:>10} {:>12}",
        "pages", "command", "wall s", "peak MB", "pages/s", "vs previous"
    );
    let mut previous: Vec<Option<(u64, f64)>> = vec![None; commands.len()];
    for &pages in &sizes {
        let archive = generated(binary, pages, 7);
        let mut gzip = Command::new("gzip");
        gzip.arg("-dc")
            .arg(&archive)
            .stdout(std::process::Stdio::null());
        let gz = run_child(&mut gzip);
        println!(
            "{pages:>9} {:<16} {:>9.1} {:>10} {:>10} {:>12}",
            "gzip -dc",
            gz.wall.as_secs_f64(),
            "-",
            "-",
            "(for info)"
        );
        for (i, (name, args)) in commands.iter().enumerate() {
            let mut command = Command::new(binary);
            command
                .args(*args)
                .arg(&archive)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let usage = run_child(&mut command);
            let wall = usage.wall.as_secs_f64();
            let growth = previous[i].map_or_else(String::new, |(n, w)| {
                format!("{:.1}x for {:.1}x", wall / w, pages as f64 / n as f64)
            });
            println!(
                "{pages:>9} {name:<16} {wall:>9.1} {:>10} {:>10.0} {growth:>12}{}",
                usage
                    .peak_kb
                    .map_or_else(|| "-".into(), |kb| format!("{:.0}", kb as f64 / 1024.0)),
                pages as f64 / wall,
                if usage.ok { "" } else { "  FAILED" }
            );
            previous[i] = Some((pages, wall));
        }
    }
    println!(
        "targets at 1M pages: run (both modes) <= 900 s and <= 2048 MB; info <= 1.5x gzip -dc"
    );
}
