//! Bounded memory, checked: the heap that `samecore run --algo spotsigs` and the workbench's
//! opening and first run need per page.
//!
//! A counting allocator records the peak of live heap bytes while generated archives are read,
//! signed while read (`archive::load_with`, no page text kept) and matched all-pairs — by the
//! CLI's path, and by the workbench's (`Session::open` signing while it reads, the run from what it signed,
//! the cluster summaries the window lists). The peaks of two archive sizes give the bytes each
//! further page costs, which must stay under [`BOUND_PER_PAGE`]; constant costs (the reader's
//! batches, the thread pool) cancel out. The same measurement of a path that holds every
//! page's text (LZ4-compressed, as the workbench did before it read pages again on demand)
//! must exceed the bound, so the bound tells the two apart.
//!
//! One test in this binary: the counter is process-wide, and a second test running beside it
//! would be counted too. Timing belongs to the benchmarks, not here.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use samecore::archive::{self, ReadOptions};
use samecore::detectors::spotsigs::SpotSigsDetector;
use samecore::detectors::{Algo, Detector, RunSpec};
use samecore::matching::Mode;
use samecore::progress::Progress;
use samecore::signature::SpotSigsParams;
use samecore::synth::{self, SynthOptions};

/// Heap bytes a further page may cost on the streaming path, everything from reading to
/// clusters included. Measured: 2.0 KB on both paths (identity strings, raw and interned
/// signatures, the index, pairs; the workbench's cluster summaries), against 10 KB when the
/// text is held.
const BOUND_PER_PAGE: usize = 4 * 1024;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded to the system allocator with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn generate(dir: &Path, pages: u64) -> PathBuf {
    let path = dir.join(format!("synth-{pages}.warc.gz"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let options = SynthOptions {
        pages: Some(pages),
        ..SynthOptions::default()
    };
    synth::write_warc(&options, "synth.warc.gz", &mut file, None, &Progress::new()).unwrap();
    drop(file);
    path
}

/// Peak live heap bytes above what was live before, while `work` ran.
fn peak_of(work: impl FnOnce() -> usize) -> (usize, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let pages = work();
    (PEAK.load(Ordering::Relaxed) - before, pages)
}

fn allpairs() -> RunSpec {
    let mut spec = RunSpec::default_for(Algo::SpotSigs);
    spec.matching.mode = Mode::AllPairs;
    spec
}

/// `samecore run`'s path: signed while read, nothing of the text kept.
fn streaming(path: &Path) -> usize {
    let detector = SpotSigsDetector::new(&SpotSigsParams::default()).unwrap();
    let progress = Progress::new();
    let options = ReadOptions {
        keep_html: samecore::archive::KeepHtml::None,
        ..Default::default()
    };
    let (collection, raw) =
        archive::load_with(&[path.to_path_buf()], &options, &progress, &|d, t| {
            detector.raw_page(d, t)
        })
        .unwrap();
    let prepared = detector.prepare_raw(raw, &collection.docs);
    let detection = prepared.detect(&allpairs(), &progress).unwrap();
    assert!(!detection.pairs().is_empty());
    collection.docs.len()
}

/// The workbench's path: opened (signed while read, text not held), the first run made from
/// what the opening signed, and the summaries of its clusters.
#[cfg(feature = "gui")]
fn workbench(path: &Path) -> usize {
    use samecore::detectors::{Algo, DetectorOptions};
    use samecore::gui::model::{Workspace, workspace::summarize};
    let progress = Progress::new();
    let options = DetectorOptions::default();
    let open = samecore::session::OpenOptions {
        sign: Some(options.clone()),
        ..Default::default()
    };
    let ws = Workspace::open(&[path.to_path_buf()], &open, &progress).unwrap();
    let run = ws
        .run(Algo::SpotSigs, &options, &allpairs(), &progress)
        .unwrap();
    assert_eq!(run.prepare_seconds, None, "signed while read");
    let detection = &run.detection;
    assert!(!detection.pairs().is_empty());
    let clusters = summarize(&ws, detection);
    assert!(!clusters.is_empty());
    ws.collection.docs.len()
}

/// The path that holds every page's text: read whole, then prepare.
fn holding(path: &Path) -> usize {
    let detector = SpotSigsDetector::new(&SpotSigsParams::default()).unwrap();
    let progress = Progress::new();
    let collection =
        archive::load(&[path.to_path_buf()], &ReadOptions::default(), &progress).unwrap();
    let prepared = detector.prepare(&collection.docs, &progress).unwrap();
    let detection = prepared.detect(&allpairs(), &progress).unwrap();
    assert!(!detection.pairs().is_empty());
    collection.docs.len()
}

#[test]
fn memory_per_page_stays_under_the_bound_when_pages_are_signed_while_read() {
    let dir = std::env::temp_dir().join(format!("samecore-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let small = generate(&dir, 1_000);
    let large = generate(&dir, 4_000);
    let per_page = |run: fn(&Path) -> usize| {
        let (peak_small, n_small) = peak_of(|| run(&small));
        let (peak_large, n_large) = peak_of(|| run(&large));
        assert!(n_large > n_small, "{n_small} {n_large}");
        peak_large.saturating_sub(peak_small) / (n_large - n_small)
    };
    let streamed = per_page(streaming);
    #[cfg(feature = "gui")]
    let opened = per_page(workbench);
    #[cfg(not(feature = "gui"))]
    let opened = 0;
    let held = per_page(holding);
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!(
        "heap per further page: signed while read {streamed} B, the workbench {opened} B, text \
         held {held} B"
    );
    assert!(
        streamed <= BOUND_PER_PAGE,
        "signed while read: {streamed} B per page, bound {BOUND_PER_PAGE}"
    );
    assert!(
        opened <= BOUND_PER_PAGE,
        "the workbench's opening and run: {opened} B per page, bound {BOUND_PER_PAGE}"
    );
    assert!(
        held > BOUND_PER_PAGE,
        "the text-holding path ({held} B per page) should not fit the bound"
    );
}
