//! The workbench under load: time from "Open" to the first clusters, the UI thread's frame
//! time while loading and detection run in the background (target: p99 under 16 ms, the UI
//! never stalls), the time from asking for a pair of the first clusters to its comparison shown
//! (both pages read again from the archive; target under 100 ms) and the peak RSS.
//!
//! It first measures the frame time of a cluster's timeline with 1,000 members
//! (`SAMECORE_BENCH_TIMELINE_ONLY=1` stops there).
//!
//! `cargo bench --bench workbench` opens, in a headless egui_kittest harness with real
//! background jobs: the project's sample archive, goldset-dev (when ../shared is there), and a
//! generated archive of 100k pages (made once under target/bench-data; pass another archive
//! with SAMECORE_BENCH_ARCHIVE, e.g. the million pages `cargo bench --bench scale` writes to
//! target/bench-data/synth-1000000.warc.gz), watched until 60 s after its first clusters: its
//! coarse P/R sweep takes far longer than the run whose frames are measured
//! (`SAMECORE_BENCH_BIG=0` skips it). Each frame is one `Harness::step` (the app's whole `ui`
//! pass plus egui's layout and tessellation, no GPU), stepped every 16 ms as a window would.

/// `../shared` data, skipped when absent (a failure with `SAMECORE_REQUIRE_SHARED=1`).
#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use samecore::gui::Workbench;
use samecore::progress::Progress;
use samecore::synth::{SynthOptions, write_warc};

/// The allocator of the `samecore` binary, so memory and speed are the window's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Measure {
    first_clusters: Option<Duration>,
    sweep_done: Option<Duration>,
    frames: Vec<Duration>,
    /// Per frame: the time in the app's own `ui` pass (the rest is egui's layout/tessellation).
    app_times: Vec<Duration>,
    /// Per frame: the UI thread's CPU time (all of the step).
    cpu: Vec<Duration>,
    /// Per frame: the UI thread's page faults.
    faults: Vec<u64>,
    /// Per frame: what the app showed (tab, runs, busy), to say where a slow frame was.
    context: Vec<String>,
    documents: usize,
    /// Time from asking for a pair of the first clusters (as a click does) to its comparison
    /// shown: both pages read again from the archive, tokenized and diffed.
    pairs: Vec<Duration>,
    /// The cluster filter typed into, once the watch is over.
    filter: Option<FilterMeasure>,
}

/// The cluster list's filter, typed into as a person types.
struct FilterMeasure {
    needle: String,
    /// Every frame from the first keystroke to the filtered list.
    frames: Vec<Duration>,
    /// From the last keystroke to the filtered list shown.
    result: Duration,
    /// What the list said then.
    said: String,
}

/// Pairs of the first clusters with two members or more, at most `n`.
fn first_pairs(app: &Workbench, n: usize) -> Vec<(samecore::DocId, samecore::DocId)> {
    app.runs().first().map_or_else(Vec::new, |run| {
        run.clusters
            .iter()
            .filter(|c| c.members.len() >= 2)
            .take(n)
            .map(|c| (c.members[0], c.members[1]))
            .collect()
    })
}

/// CPU time of the calling thread: a frame whose wall time is far above it waited for a core.
#[cfg(target_os = "linux")]
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu() -> Duration {
    Duration::ZERO
}

/// Page faults of the calling thread so far (a fresh huge page costs its zeroing).
#[cfg(target_os = "linux")]
fn thread_faults() -> u64 {
    // SAFETY: `usage` is a valid, writable rusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    usage.ru_minflt as u64
}

#[cfg(not(target_os = "linux"))]
fn thread_faults() -> u64 {
    0
}

thread_local! {
    static APP_CPU: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
    static APP_TIME: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// Watch `paths` open, run and sweep; stop at `limit`, or `after_first` after the first
/// clusters (on a large archive the sweep takes far longer than the run being measured).
fn open_and_watch(paths: Vec<PathBuf>, limit: Duration, after_first: Option<Duration>) -> Measure {
    let mut app = Workbench::new(false);
    let started = Instant::now();
    app.open(paths);
    // Archived pages carry any character; a real window draws a box for a missing glyph.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .allow_missing_glyphs()
        .build_ui_state(
            |ui, app: &mut Workbench| {
                let t = Instant::now();
                let c0 = thread_cpu();
                app.ui(ui);
                APP_TIME.with(|c| c.set(c.get() + t.elapsed()));
                APP_CPU.with(|c| c.set(c.get() + thread_cpu().saturating_sub(c0)));
            },
            app,
        );
    let mut m = Measure {
        first_clusters: None,
        sweep_done: None,
        frames: Vec::new(),
        app_times: Vec::new(),
        cpu: Vec::new(),
        faults: Vec::new(),
        context: Vec::new(),
        documents: 0,
        pairs: Vec::new(),
        filter: None,
    };
    // The pairs still to show, and the one asked for (since when).
    let mut to_show: Vec<(samecore::DocId, samecore::DocId)> = Vec::new();
    let mut asked: Option<((samecore::DocId, samecore::DocId), Instant)> = None;
    while started.elapsed() < limit {
        let t = Instant::now();
        APP_TIME.with(|c| c.set(Duration::ZERO));
        APP_CPU.with(|c| c.set(Duration::ZERO));
        let c0 = thread_cpu();
        let f0 = thread_faults();
        h.step();
        m.frames.push(t.elapsed());
        m.cpu.push(thread_cpu().saturating_sub(c0));
        m.faults.push(thread_faults() - f0);
        m.app_times.push(APP_TIME.with(|c| c.get()));
        let app = h.state();
        m.context.push(format!(
            "t={:.2}s runs={} busy={}",
            started.elapsed().as_secs_f64(),
            app.runs().len(),
            app.is_busy()
        ));
        if m.first_clusters.is_none() && !app.runs().is_empty() {
            m.first_clusters = Some(started.elapsed());
            m.documents = app.workspace().map_or(0, |w| w.collection.docs.len());
            to_show = first_pairs(app, 10);
            to_show.reverse();
        }
        if let Some(((a, b), since)) = asked
            && app.pair().is_some_and(|p| p.a == a && p.b == b)
        {
            m.pairs.push(since.elapsed());
            asked = None;
        }
        if asked.is_none()
            && let Some((a, b)) = to_show.pop()
        {
            let app = h.state_mut();
            app.compare(a, b);
            asked = Some(((a, b), Instant::now()));
        }
        let app = h.state();
        if m.first_clusters.is_some() && !app.is_busy() && asked.is_none() && to_show.is_empty() {
            m.sweep_done = Some(started.elapsed());
            break;
        }
        if let (Some(first), Some(after)) = (m.first_clusters, after_first)
            && started.elapsed() > first + after
        {
            break;
        }
        if let Some(msg) = app.messages().iter().find(|m| m.contains("failed")) {
            panic!("{msg}");
        }
        std::thread::sleep(Duration::from_millis(16).saturating_sub(t.elapsed()));
    }
    if m.first_clusters.is_some() {
        m.filter = type_into_filter(&mut h);
    }
    m
}

/// Type a word of the first cluster's title into the cluster list's filter, a character every
/// seven frames (about eight a second), and step frames until the list says how many clusters
/// match: the frames meanwhile, and the time from the last keystroke to the answer.
fn type_into_filter(h: &mut Harness<'_, Workbench>) -> Option<FilterMeasure> {
    let app = h.state();
    let run = app.runs().first()?;
    let docs = &app.workspace()?.collection.docs;
    let title = run
        .clusters
        .iter()
        .find(|c| c.members.len() > 1)?
        .raw_title(docs);
    let needle = title
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| w.chars().count() >= 6)?
        .to_lowercase();
    h.get_by_label("Filter:").focus();
    h.step();
    let mut frames = Vec::new();
    let mut frame = |h: &mut Harness<'_, Workbench>| {
        let t = Instant::now();
        h.step();
        frames.push(t.elapsed());
        std::thread::sleep(Duration::from_millis(16).saturating_sub(t.elapsed()));
    };
    let mut typed = Instant::now();
    for (i, c) in needle.chars().enumerate() {
        if i > 0 {
            for _ in 0..7 {
                frame(h);
            }
        }
        h.get_by_label("Filter:").type_text(&c.to_string());
        typed = Instant::now();
    }
    let said = loop {
        if let Some(n) = h.query_by_label_contains("clusters match the filter") {
            let n = n.accesskit_node();
            break n.label().or_else(|| n.value()).unwrap_or_default();
        }
        if typed.elapsed() > Duration::from_secs(300) {
            break "no answer within 300 s".into();
        }
        frame(h);
    };
    Some(FilterMeasure {
        needle,
        result: typed.elapsed(),
        frames,
        said,
    })
}

fn report(name: &str, m: &Measure) {
    // The first frame builds the font atlas and lays everything out once: startup, not a stall.
    let first = m.frames.first().map_or(0.0, |d| d.as_secs_f64() * 1e3);
    let mut f: Vec<f64> = m
        .frames
        .iter()
        .skip(1)
        .map(|d| d.as_secs_f64() * 1e3)
        .collect();
    f.sort_by(f64::total_cmp);
    let q = |p: f64| {
        f.get(((f.len().max(1) - 1) as f64 * p) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "{name}: {} pages; open -> first clusters {}; -> P/R curves {}; first frame {first:.1} ms; \
         {} more frames: median {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        m.documents,
        m.first_clusters.map_or("not reached".into(), |d| format!(
            "{:.2} s",
            d.as_secs_f64()
        )),
        m.sweep_done.map_or("not reached".into(), |d| format!(
            "{:.2} s",
            d.as_secs_f64()
        )),
        f.len(),
        q(0.5),
        q(0.95),
        q(0.99),
        f.last().copied().unwrap_or(0.0),
    );
    if !m.pairs.is_empty() {
        let mut p: Vec<f64> = m.pairs.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        p.sort_by(f64::total_cmp);
        println!(
            "  a pair asked for -> shown ({} pairs of the first clusters, read again from the \
             archive): median {:.1} ms, max {:.1} ms",
            p.len(),
            p[p.len() / 2],
            p[p.len() - 1]
        );
    }
    if let Some(f) = &m.filter {
        let mut ms: Vec<f64> = f.frames.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        println!(
            "  cluster filter typed ({:?}, a character every 7 frames): answer {:.2} s after the \
             last keystroke ({}); {} frames meanwhile: median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            f.needle,
            f.result.as_secs_f64(),
            f.said,
            ms.len(),
            ms.get(ms.len() / 2).copied().unwrap_or(0.0),
            ms.get(((ms.len().max(1) - 1) as f64 * 0.99) as usize)
                .copied()
                .unwrap_or(0.0),
            ms.last().copied().unwrap_or(0.0),
        );
    }
    if let Some(peak) = peak_rss() {
        println!("  peak RSS of the process so far: {peak}");
    }
    let mut slowest: Vec<usize> = (1..m.frames.len()).collect();
    slowest.sort_by_key(|&i| std::cmp::Reverse(m.frames[i]));
    for &i in slowest.iter().take(3) {
        println!(
            "  slow frame {i}: {:.1} ms, of which on the CPU {:.1} ms, {} page faults (app ui {:.1} ms), {}",
            m.frames[i].as_secs_f64() * 1e3,
            m.cpu[i].as_secs_f64() * 1e3,
            m.faults[i],
            m.app_times[i].as_secs_f64() * 1e3,
            m.context[i]
        );
    }
    assert!(
        m.first_clusters.is_some(),
        "{name}: no clusters within the time limit"
    );
}

/// The process's peak resident set (`VmHWM`), as Linux reports it.
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.trim_start_matches("VmHWM:").trim().to_string())
}

fn generated(pages: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let path = dir.join(format!("synth-{pages}.warc.gz"));
    let gold = dir.join(format!("synth-{pages}.gold.tsv"));
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("bench data dir");
        let options = SynthOptions {
            seed: 7,
            pages: Some(pages),
            ..SynthOptions::default()
        };
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("archive"));
        let mut g = std::io::BufWriter::new(std::fs::File::create(&gold).expect("gold"));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        write_warc(&options, &name, &mut out, Some(&mut g), &Progress::new()).expect("synth");
    }
    path
}

/// One story carried by `n` sites over ten days (each page dated by `article:published_time`),
/// written once under target/bench-data: a cluster of `n` members for the timeline.
fn spread_archive(n: usize) -> PathBuf {
    use samecore::synth::warc_writer as w;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("spread-{n}.warc"));
    if path.exists() {
        return path;
    }
    let story: String = (0..40)
        .map(|i| {
            format!(
                "The council said on day {i} that the bridge over the river is closed to all \
                 of the cars and that the repairs will take a year or more to finish. "
            )
        })
        .collect();
    let mut out = Vec::new();
    for i in 0..n {
        let site = format!("site{i}.example");
        let minutes = i as u64 * 14_400 / n as u64; // ten days
        let published = samecore::synth::clock::Instant(1_709_251_200 + minutes * 60);
        let nav: String = (0..10)
            .map(|k| format!("<li><a href=\"/s{k}\">{site} section {k}</a></li>"))
            .collect();
        let html = format!(
            "<html><head><title>Bridge | {site}</title><meta property=\"article:published_time\" \
             content=\"{}\"></head><body><ul>{nav}</ul><h1>Bridge closes</h1><p>{story}</p>\
             </body></html>",
            published.warc_date()
        );
        let (message, offset) = w::http_response(
            200,
            "OK",
            &[("Content-Type", "text/html; charset=utf-8".into())],
            html.as_bytes(),
        );
        let id = w::record_id(i as u128 + 1);
        let date = published.plus(3600).warc_date();
        let url = format!("https://{site}/news/bridge");
        out.extend(w::response(&id, &date, &url, "127.0.0.1", &message, offset).to_bytes());
    }
    std::fs::write(&path, out).unwrap();
    path
}

/// Frame times of the Clusters tab showing the timeline of a cluster of `n` members (target:
/// p99 under 16 ms at 1,000 members), at 1024×700.
fn timeline_frames(n: usize) {
    let mut app = Workbench::new(true);
    app.open(vec![spread_archive(n)]);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        .build_ui_state(|ui, app: &mut Workbench| app.ui(ui), app);
    h.run();
    h.key_press(egui::Key::N);
    h.run();
    h.key_press(egui::Key::T);
    h.run();
    let marks = h.state().timeline_marks().len();
    let mut frames = Vec::new();
    for k in 0..300 {
        // The pointer moves over the plot, as a person reading it does (hover labels).
        let x = 400.0 + (k % 50) as f32 * 10.0;
        h.hover_at(egui::pos2(x, 600.0));
        let t = Instant::now();
        h.step();
        frames.push(t.elapsed());
    }
    frames.sort();
    let pct = |p: f64| frames[((frames.len() - 1) as f64 * p) as usize];
    println!(
        "timeline of {marks} members (of {n} pages): frame p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms \
         over {} frames at 1024x700",
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        frames.last().unwrap().as_secs_f64() * 1e3,
        frames.len()
    );
}

/// Time to show what a cluster's members copied (each member's share of the representative and
/// the core text they share, [`samecore::gui::model::shares`]) for goldset-dev's cluster closest
/// to 50 members, from a fresh workspace: every page and its site's frame read from disk
/// (target: under 200 ms).
fn cluster_shares() {
    use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
    let Some(gold) = common::goldset() else {
        return;
    };
    let ws = samecore::gui::model::Workspace::open(&[gold], &Default::default(), &Progress::new())
        .unwrap();
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let prep = det.prepare(&ws.collection.docs, &Progress::new()).unwrap();
    let d = prep
        .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
        .unwrap();
    let group = d
        .clustering
        .groups()
        .into_iter()
        .min_by_key(|g| g.len().abs_diff(50))
        .unwrap();
    let t = Instant::now();
    let dates: Vec<_> = group
        .iter()
        .map(|d| ws.collection.docs[d.index()].published)
        .collect();
    let s = samecore::gui::model::shares::cluster_shares(&ws, &group, &dates, &Progress::new())
        .unwrap();
    println!(
        "cluster shares: {} members in {:.1} ms from a fresh workspace (shared core: {} of {} words)",
        group.len(),
        t.elapsed().as_secs_f64() * 1e3,
        s.shared_words,
        s.core_words
    );
}

fn main() {
    // As `samecore::gui::run` does: background work yields to the window's thread.
    samecore::engine::job::init_background_pool();
    timeline_frames(1000);
    cluster_shares();
    if std::env::var("SAMECORE_BENCH_TIMELINE_ONLY").as_deref() == Ok("1") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sample = root.join("sample_archives/news-sample.warc.gz");
    report(
        "sample archive",
        &open_and_watch(vec![sample], Duration::from_secs(120), None),
    );
    if let Some(gold) = common::goldset() {
        report(
            "goldset-dev",
            &open_and_watch(vec![gold], Duration::from_secs(300), None),
        );
    }
    if std::env::var("SAMECORE_BENCH_BIG").as_deref() == Ok("0") {
        println!("100k archive: skipped (SAMECORE_BENCH_BIG=0)");
        return;
    }
    let big = std::env::var_os("SAMECORE_BENCH_ARCHIVE")
        .map(PathBuf::from)
        .unwrap_or_else(|| generated(100_000));
    let name = big
        .file_name()
        .map_or("archive".into(), |n| n.to_string_lossy().into_owned());
    // The sweep of a large archive takes minutes; SAMECORE_BENCH_WAIT_SWEEP=1 waits for it
    // (within the 30-minute limit), so the peak RSS covers it all.
    let wait_sweep = std::env::var("SAMECORE_BENCH_WAIT_SWEEP").as_deref() == Ok("1");
    report(
        &name,
        &open_and_watch(
            vec![big],
            Duration::from_secs(1800),
            (!wait_sweep).then_some(Duration::from_secs(60)),
        ),
    );
}
