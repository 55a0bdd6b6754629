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

use std::path::{Path, PathBuf};

/// `mi_option_purge_delay` in the mimalloc v3 that `libmimalloc-sys` builds (its `mimalloc.h`
/// enum; the crate names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Inputs up to this size keep freed memory.
pub const KEEP_FREED_UP_TO: u64 = 512 << 20;

/// Set mimalloc's purge delay for work reading `inputs`: keep freed memory when they hold at
/// most [`KEEP_FREED_UP_TO`] and `may_keep` (false for the workbench), else return it at once.
/// Returns whether the inputs are that small (whatever `MIMALLOC_PURGE_DELAY` says).
pub fn tune_for_inputs(inputs: &[PathBuf], may_keep: bool) -> bool {
    let small = may_keep && bytes_up_to(inputs, KEEP_FREED_UP_TO) <= KEEP_FREED_UP_TO;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's own options, which it reads under its own
        // synchronisation; no pointer is passed.
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, if small { -1 } else { 0 })
        };
    }
    small
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
    #[cfg(target_os = "linux")]
    // SAFETY: one system call on the calling process, no pointer passed; on failure the
    // kernel's default stays, which is harmless.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// The bytes of the files among `paths` (folders walked), counted until they pass `limit`
/// (more than `limit` then); a walk past 100,000 entries counts as more. Paths that are not
/// there count nothing.
///
/// A folder's entries are sized from the listing (`fstatat` beside the open folder, the type
/// from the entry itself), not by a look-up of each whole path: on goldset-dev's 1,117 pages the
/// path look-ups were about 1 % of a `run`'s CPU, on this thread beside the reading ones. A
/// symbolic link is followed, as a look-up of its path follows it.
pub fn bytes_up_to(paths: &[PathBuf], limit: u64) -> u64 {
    let mut total = 0u64;
    let mut entries = 0u32;
    let mut stack: Vec<PathBuf> = paths.to_vec();
    while let Some(path) = stack.pop() {
        if total > limit || entries > 100_000 {
            return limit + 1;
        }
        entries += 1;
        let Ok(meta) = std::fs::metadata(Path::new(&path)) else {
            continue;
        };
        if meta.is_file() {
            total += meta.len();
        } else if meta.is_dir()
            && let Ok(listing) = std::fs::read_dir(&path)
        {
            // Pages counted as the folder is listed; folders and links go on the stack.
            for entry in listing.flatten() {
                if total > limit || entries > 100_000 {
                    break;
                }
                match entry.file_type() {
                    Ok(t) if t.is_file() => {
                        entries += 1;
                        total += entry.metadata().map_or(0, |m| m.len());
                    }
                    Ok(t) if !t.is_dir() && !t.is_symlink() => entries += 1,
                    _ => stack.push(entry.path()),
                }
            }
        }
    }
    if entries > 100_000 {
        return limit + 1;
    }
    total.min(limit + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_counted_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.html"), vec![b'x'; 1000]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b.html"), vec![b'x'; 500]).unwrap();
        let both = [dir.path().to_path_buf(), dir.path().join("missing")];
        assert_eq!(bytes_up_to(&both, 10_000), 1500);
        assert_eq!(bytes_up_to(&both, 600), 601);
        assert_eq!(bytes_up_to(&[], 600), 0);
    }

    /// Links to a page and to a folder count what they point to, as a look-up of their paths
    /// would.
    #[cfg(unix)]
    #[test]
    fn linked_pages_and_folders_are_counted_by_what_they_point_to() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.html"), vec![b'x'; 1000]).unwrap();
        std::fs::write(outside.path().join("c.html"), vec![b'x'; 200]).unwrap();
        let link = |to: &Path, name: &str| std::os::unix::fs::symlink(to, dir.path().join(name));
        link(&outside.path().join("c.html"), "link.html").unwrap();
        link(outside.path(), "linked-folder").unwrap();
        link(&outside.path().join("missing.html"), "dangling.html").unwrap();
        assert_eq!(bytes_up_to(&[dir.path().to_path_buf()], 10_000), 1400);
    }
}
