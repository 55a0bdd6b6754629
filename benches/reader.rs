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
//!
//! With `SAMECORE_SPOTSIGS_JAVA` naming a checkout of the published SpotSigs code built beside
//! it, it then times that code against `samecore run` on goldset-dev, end to end, processes
//! alternating (`--java-rounds N`, default 5: each round the Java code once and samecore three
//! times), and prints both medians and their ratio:
//!
//! ```text
//! git clone https://github.com/luismmontielg/spotsigs /tmp/spotsigs && cd /tmp/spotsigs
//! unzip -q colt-1.2.0.zip colt/lib/colt.jar && javac -nowarn -d classes -cp colt/lib/colt.jar src/*.java
//! SAMECORE_SPOTSIGS_JAVA=/tmp/spotsigs cargo bench --bench reader -- --java-rounds 5
//! ```
//!
//! The Java code is run as its `spotsigs.sh` runs it (`java -Xmx1024m … SpotSigsIndexer
//! goldset-dev spotsigs.config`, the checkout's config) but on every page (the script's third
//! argument caps the files read), in a scratch folder holding the shared data's
//! `spotsigs-reference/stopwords.txt`, which it loads from its class path.

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
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|r| r.parse().ok())
    };
    let repeat = option("--repeat").unwrap_or(5);
    let java_rounds = option("--java-rounds").unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<PathBuf> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
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
    if let Some(java) = std::env::var_os("SAMECORE_SPOTSIGS_JAVA") {
        against_java(Path::new(&java), &root.join("../shared/data"), java_rounds);
    }
}

/// The published SpotSigs code (a checkout built as the module doc says) against `samecore
/// run`, both on goldset-dev, `rounds` times alternating; medians and their ratio.
fn against_java(java: &Path, data: &Path, rounds: usize) {
    let gold = data.join("goldset-dev");
    let stopwords = data.join("spotsigs-reference/stopwords.txt");
    assert!(
        gold.is_dir() && stopwords.is_file(),
        "the Java comparison needs ../shared/data's goldset-dev and spotsigs-reference"
    );
    let scratch = std::env::temp_dir().join(format!("samecore-java-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::copy(&stopwords, scratch.join("stopwords.txt")).unwrap();
    let class_path = [
        scratch.clone(),
        java.join("classes"),
        java.join("colt/lib/colt.jar"),
    ]
    .map(|p| p.display().to_string())
    .join(":");
    let timed = |cmd: &mut Command| {
        let t = Instant::now();
        let status = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{cmd:?} failed");
        t.elapsed()
    };
    let java_run = || {
        timed(
            Command::new("java")
                .current_dir(&scratch)
                .args(["-Xmx1024m", "-cp", &class_path, "SpotSigsIndexer"])
                .arg(&gold)
                .arg(java.join("spotsigs.config")),
        )
    };
    let ours_run = || {
        timed(
            Command::new(env!("CARGO_BIN_EXE_samecore"))
                .arg("run")
                .arg(&gold),
        )
    };
    // One of each first, not counted: the page cache and the JIT's files warm.
    java_run();
    ours_run();
    let (mut theirs, mut ours) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        theirs.push(java_run());
        for _ in 0..3 {
            ours.push(ours_run());
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (t, o) = (median(&mut theirs), median(&mut ours));
    println!(
        "goldset-dev end to end: the published Java code {:.3} s (median of {}, best {:.3} s); \
         samecore run {:.1} ms (median of {}, best {:.1} ms); samecore {:.1}x faster by medians",
        t.as_secs_f64(),
        theirs.len(),
        theirs[0].as_secs_f64(),
        o.as_secs_f64() * 1e3,
        ours.len(),
        ours[0].as_secs_f64() * 1e3,
        t.as_secs_f64() / o.as_secs_f64()
    );
}
