//! How mimalloc (the allocator of the `samecore` binary and of the Python extension) returns
//! freed memory to the system, chosen by what a piece of work reads.
//!
//! Over large inputs, and in the workbench (which may open a million pages later), freed memory
//! is returned as soon as it is freed. This build does not otherwise purge on time: measured on
//! 109,538 generated pages (`run --mode allpairs`), peak RSS 402 -> 312 MB with mimalloc's
//! documented 10 ms. With 10 ms a burst of frees still stays resident: joining a file's
//! documents into one vector (a 137 MB copy on 328,586 pages, its chunks freed as they are
//! copied, all within a few ms) raised RSS by the whole copy and made the run's peak;
//! immediately, the 300k-page run peaks at 707 MB instead of 801 MB at the same wall time.
//!
//! Work over at most [`KEEP_FREED_UP_TO`] of input keeps what it frees for its next
//! allocations: returning it and faulting fresh pages back in (the kernel zeroes each one) cost
//! a fifth of `run` on goldset-dev (53 MB: 191 -> 156 ms; docs/benchmarks.md, "Against the
//! published SpotSigs code"), while the memory kept is small beside such inputs. A user's
//! `MIMALLOC_PURGE_DELAY` wins. Without mimalloc as the global allocator this changes nothing.
//!
//! Input files are sized when the work starts; a folder's pages are counted by the folder reader
//! as it lists them ([`folder_listed`]), and work that passes the limit there returns freed
//! memory (and, in the binary, gets huge pages back) from then on. A walk of every folder at
//! the start, beside the reader's own, asked each page's size twice: without it `run` on
//! goldset-dev made 1,163 `statx` calls instead of 2,313 and took 72.7 instead of 75.0 ms
//! (40 alternating runs, medians).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// `mi_option_purge_delay` in the mimalloc v3 that `libmimalloc-sys` builds (its `mimalloc.h`
/// enum; the crate names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Inputs up to this size keep freed memory.
pub const KEEP_FREED_UP_TO: u64 = 512 << 20;

/// Set mimalloc's purge delay for work reading `inputs`: keep freed memory when they hold at
/// most [`KEEP_FREED_UP_TO`] and `may_keep` (false for the workbench), else return it at once.
/// Files are sized now; folders among the inputs are counted as the reader lists them
/// ([`folder_listed`]). Returns whether the inputs are that small as far as is known now
/// (whatever `MIMALLOC_PURGE_DELAY` says).
pub fn tune_for_inputs(inputs: &[PathBuf], may_keep: bool) -> bool {
    let (files, folders) = files_bytes(inputs, KEEP_FREED_UP_TO);
    let small = BUDGET.start(files, folders, may_keep);
    keep_freed(small);
    small
}

/// A folder's pages were listed, `bytes` of them: counted toward [`KEEP_FREED_UP_TO`] for
/// work that [`tune_for_inputs`] found small so far; past it, freed memory is returned from
/// now on and huge pages are allowed again if [`no_transparent_huge_pages`] had stopped them.
pub fn folder_listed(bytes: u64) {
    if BUDGET.count(bytes) {
        keep_freed(false);
        if SMALL_PAGES.swap(false, Ordering::Relaxed) {
            #[cfg(target_os = "linux")]
            // SAFETY: one system call on the calling process, no pointer passed.
            unsafe {
                libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
            }
        }
    }
}

/// Pages longer than this make the work return freed memory at once ([`long_page`]).
pub const LONG_PAGE: usize = 8 << 20;

/// A page longer than [`LONG_PAGE`] is being read: from now on freed memory is returned at
/// once, whatever the inputs' size. Each of such a page's buffers (its dates' text, its core
/// text, its terms) is as large as the page and freed before the next is made; kept, each
/// stayed resident and added to the peak (a 24 MB one-line page in a folder peaked at 4.8
/// times its size over the run's footprint).
pub fn long_page() {
    if !LONG.swap(true, Ordering::Relaxed) {
        keep_freed(false);
    }
}

/// Whether [`long_page`] was called.
static LONG: AtomicBool = AtomicBool::new(false);

/// mimalloc's purge delay: never return freed memory (`keep`), or at once.
fn keep_freed(keep: bool) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's own options, which it reads under its own
        // synchronisation; no pointer is passed.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, if keep { -1 } else { 0 }) };
    }
}

/// What the work has read so far, against [`KEEP_FREED_UP_TO`].
struct Budget {
    /// Bytes counted: the input files', then the folders' pages as they are listed.
    counted: AtomicU64,
    /// Whether folders' pages are still counted: the work is small so far and has folders.
    watching: AtomicBool,
}

static BUDGET: Budget = Budget::new();

/// Whether [`no_transparent_huge_pages`] turned huge pages off for this process.
static SMALL_PAGES: AtomicBool = AtomicBool::new(false);

impl Budget {
    const fn new() -> Budget {
        Budget {
            counted: AtomicU64::new(0),
            watching: AtomicBool::new(false),
        }
    }

    /// Start counting for work whose files hold `files` bytes, with `folders` among its inputs;
    /// whether it is small so far.
    fn start(&self, files: u64, folders: bool, may_keep: bool) -> bool {
        let small = may_keep && files <= KEEP_FREED_UP_TO;
        self.counted.store(files, Ordering::Relaxed);
        self.watching.store(small && folders, Ordering::Relaxed);
        small
    }

    /// Count `bytes` of listed pages; true exactly once, when they take small work past the
    /// limit.
    fn count(&self, bytes: u64) -> bool {
        if !self.watching.load(Ordering::Relaxed) {
            return false;
        }
        let before = self.counted.fetch_add(bytes, Ordering::Relaxed);
        before.saturating_add(bytes) > KEEP_FREED_UP_TO
            && self.watching.swap(false, Ordering::Relaxed)
    }
}

/// Have the kernel back this process's memory with 4 KiB pages from now on, not transparent
/// huge pages (Linux: `prctl(PR_SET_THP_DISABLE)`, which also covers memory mimalloc has already
/// asked huge pages for; elsewhere nothing). The binary does this for small inputs (those
/// [`tune_for_inputs`] keeps freed memory for); the Python extension leaves its host process as
/// it is.
///
/// mimalloc asks for huge pages where the system allows them, and the kernel then zeroes 2 MiB
/// at a page's first touch, of which a small run uses little. Measured side by side with huge
/// pages off (`MIMALLOC_ALLOW_THP=0`) and on: `run` on goldset-dev peaked at 42 MB instead of
/// 100 MB (one run each) and took 54 ms of system time instead of 72 (20 runs each,
/// alternating). At a million
/// generated pages (`run --mode allpairs`) the peak was 1,361 MB instead of 1,411 MB but the
/// run took 334 s instead of 303 s (matching 162 s instead of 137 s: its postings are read at
/// random, where huge pages save TLB misses), so large inputs and the workbench keep them.
pub fn no_transparent_huge_pages() {
    SMALL_PAGES.store(true, Ordering::Relaxed);
    #[cfg(target_os = "linux")]
    // SAFETY: one system call on the calling process, no pointer passed; on failure the
    // kernel's default stays, which is harmless.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// The bytes of the files among `paths` (up to `limit + 1`; links followed), and whether any
/// of them is a folder, which is not walked: its pages are counted as the reader lists them.
/// Paths that are not there count nothing.
fn files_bytes(paths: &[PathBuf], limit: u64) -> (u64, bool) {
    let (mut total, mut folders) = (0u64, false);
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => total = total.saturating_add(meta.len()),
            Ok(meta) if meta.is_dir() => folders = true,
            _ => {}
        }
    }
    (total.min(limit + 1), folders)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_sized_and_folders_left_to_the_reader() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.warc"), dir.path().join("b.warc"));
        std::fs::write(&a, vec![b'x'; 1000]).unwrap();
        std::fs::write(&b, vec![b'x'; 500]).unwrap();
        let missing = dir.path().join("missing");
        assert_eq!(
            files_bytes(&[a.clone(), b.clone(), missing.clone()], 10_000),
            (1500, false)
        );
        assert_eq!(files_bytes(&[a.clone(), b.clone()], 600), (601, false));
        assert_eq!(files_bytes(&[dir.path().to_path_buf()], 600), (0, true));
        assert_eq!(files_bytes(&[], 600), (0, false));
        // A link to a file counts what it points to.
        #[cfg(unix)]
        {
            let link = dir.path().join("link.warc");
            std::os::unix::fs::symlink(&a, &link).unwrap();
            assert_eq!(files_bytes(&[link], 10_000), (1000, false));
        }
    }

    #[test]
    fn listed_pages_take_small_work_past_the_limit_once() {
        let budget = Budget::new();
        // Files only: nothing listed is counted.
        assert!(budget.start(1000, false, true));
        assert!(!budget.count(KEEP_FREED_UP_TO));
        // Files and folders: counted until the limit is passed, which is said once.
        assert!(budget.start(1000, true, true));
        assert!(!budget.count(KEEP_FREED_UP_TO - 1000));
        assert!(budget.count(1));
        assert!(!budget.count(1 << 30));
        // Work that is not small from the start (large files, or the workbench) is never
        // counted.
        assert!(!budget.start(KEEP_FREED_UP_TO + 1, true, true));
        assert!(!budget.count(1));
        assert!(!budget.start(0, true, false));
        assert!(!budget.count(KEEP_FREED_UP_TO + 1));
    }
}
