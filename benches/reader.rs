//! The reader against the tools that only move the bytes: for each input, samecore's read (every
//! record parsed, decompressed, charset-detected and decoded, no page kept) against `cat` of the
//! same files, and `gzip -dc` of the gzipped ones, best of `--repeat` each, from the page cache.
//!
//! ```text
//! cargo bench --bench reader                     # goldset-dev, each shared WARC, the sample
//! cargo bench --bench reader -- ARCHIVE... [--repeat 5]
//! ```
//!
//! Prints one line per input: bytes, samecore's time and MB/s, `cat`'s and `gzip -dc`'s, and how
//! many times their time samecore's is.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use samecore::archive::{self, KeepHtml, ReadOptions};
use samecore::progress::Progress;

fn files_of(input: &Path) -> Vec<PathBuf> {
    if input.is_dir() {
        let mut out = Vec::new();
        let mut stack = vec![input.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    } else {
        vec![input.to_path_buf()]
    }
}

fn best(repeat: usize, mut f: impl FnMut()) -> Duration {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// `tool args… FILES` with its output thrown away, best of `repeat`.
fn tool(repeat: usize, tool: &str, args: &[&str], files: &[PathBuf]) -> Option<Duration> {
    let run = || {
        Command::new(tool)
            .args(args)
            .args(files)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()
            .filter(|s| s.success())
    };
    run()?;
    Some(best(repeat, || {
        run();
    }))
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<PathBuf> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--repeat"))
        .map(|(_, a)| PathBuf::from(a))
        .collect();
    if inputs.is_empty() {
        let data = root.join("../shared/data");
        if data.exists() {
            inputs.push(data.join("goldset-dev"));
            inputs.extend(files_of(&data.join("warc")));
        }
        inputs.push(root.join("sample_archives/news-sample.warc.gz"));
    }
    let opts = ReadOptions {
        keep_html: KeepHtml::None,
        publication_dates: false,
    };
    let mb = |bytes: u64, d: Duration| bytes as f64 / 1e6 / d.as_secs_f64().max(1e-9);
    for input in &inputs {
        let files = files_of(input);
        let bytes: u64 = files
            .iter()
            .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
            .sum();
        let mut pages = 0;
        let ours = best(repeat, || {
            let c = archive::load(std::slice::from_ref(input), &opts, &Progress::new()).unwrap();
            pages = c.docs.len();
        });
        let cat = tool(repeat, "cat", &[], &files);
        let gz: Vec<PathBuf> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "gz"))
            .cloned()
            .collect();
        let gunzip = (!gz.is_empty())
            .then(|| tool(repeat, "gzip", &["-dc"], &gz))
            .flatten();
        let name = input
            .file_name()
            .map_or(input.display().to_string(), |n| n.to_string_lossy().into());
        let line = |what: &str, d: Option<Duration>| match d {
            Some(d) => format!(
                "{what} {:.1} ms ({:.0} MB/s, samecore {:.1}x its time)",
                d.as_secs_f64() * 1e3,
                mb(bytes, d),
                ours.as_secs_f64() / d.as_secs_f64().max(1e-9)
            ),
            None => format!("{what} -"),
        };
        println!(
            "{name}: {:.1} MB, {pages} pages; samecore {:.1} ms ({:.0} MB/s, two threads); {}; {}",
            bytes as f64 / 1e6,
            ours.as_secs_f64() * 1e3,
            mb(bytes, ours),
            line("cat", cat),
            line("gzip -dc", gunzip)
        );
    }
}
