//! The `samecore` binary: no subcommand opens the workbench, a subcommand runs headless.

mod cli;

/// mimalloc instead of the system allocator: with glibc's, reading a 1 GB archive held 3.1 GB
/// resident although the heap never exceeded a few MB (pages are decoded on rayon threads
/// and freed on the reader's), see docs/benchmarks.md ("Matching that scales").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

/// `mi_option_purge_delay` in the mimalloc v3 that `libmimalloc-sys` builds (its `mimalloc.h`
/// enum; the crate names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How mimalloc returns freed memory to the system, by what the command reads.
///
/// A command over large inputs (and the workbench, which may open a million pages later)
/// returns freed memory as soon as it is freed. This build does not otherwise purge on time:
/// measured on 109,538 generated pages (`run --mode allpairs`), peak RSS 402 -> 312 MB with
/// mimalloc's documented 10 ms. With 10 ms a burst of frees still stays resident: joining a
/// file's documents into one vector (a 137 MB copy on 328,586 pages, its chunks freed as they
/// are copied, all within a few ms) raised RSS by the whole copy and made the run's peak;
/// immediately, the 300k-page run peaks at 707 MB instead of 801 MB at the same wall time.
///
/// A command whose inputs hold at most [`KEEP_FREED_UP_TO`] keeps what it frees for its next
/// allocations: returning it and faulting fresh pages back in (the kernel zeroes each one)
/// cost a fifth of `run` on goldset-dev (53 MB: 191 -> 156 ms; docs/benchmarks.md, "Against
/// the published SpotSigs code"), while the memory kept is small beside such inputs. A user's
/// `MIMALLOC_PURGE_DELAY` wins.
fn tune_allocator(headless: bool) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    let keep = headless && input_bytes_up_to(KEEP_FREED_UP_TO) <= KEEP_FREED_UP_TO;
    // SAFETY: sets one of mimalloc's own options, which it reads under its own
    // synchronisation; no pointer is passed.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, if keep { -1 } else { 0 }) };
}

/// Inputs up to this size keep freed memory ([`tune_allocator`]).
const KEEP_FREED_UP_TO: u64 = 512 << 20;

/// The bytes of the files the command line names (folders walked), counted until they pass
/// `limit` (more than `limit` then); a folder of more than 100,000 entries counts as more.
fn input_bytes_up_to(limit: u64) -> u64 {
    let mut total = 0u64;
    let mut entries = 0u32;
    let mut stack: Vec<std::path::PathBuf> = std::env::args_os()
        .skip(1)
        .map(std::path::PathBuf::from)
        .collect();
    while let Some(path) = stack.pop() {
        if total > limit || entries > 100_000 {
            return limit + 1;
        }
        entries += 1;
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_file() {
            total += meta.len();
        } else if meta.is_dir()
            && let Ok(dir) = std::fs::read_dir(&path)
        {
            stack.extend(dir.flatten().map(|e| e.path()));
        }
    }
    total
}

fn main() {
    let args = cli::Cli::parse();
    tune_allocator(args.command.is_some());
    let result = match args.command {
        Some(command) => cli::run(command),
        None => open_workbench(args.archives),
    };
    if let Err(err) = result {
        // The reader of our output went away (`samecore … | head`): nothing to say.
        let broken_pipe = err.chain().any(|e| {
            e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        });
        if broken_pipe {
            std::process::exit(0);
        }
        eprintln!("samecore: {err:#}");
        std::process::exit(1);
    }
}

#[cfg(feature = "gui")]
fn open_workbench(archives: Vec<std::path::PathBuf>) -> anyhow::Result<()> {
    samecore::gui::run(archives)
        .map_err(|e| anyhow::anyhow!("could not open the workbench window: {e}"))
}

#[cfg(not(feature = "gui"))]
fn open_workbench(_archives: Vec<std::path::PathBuf>) -> anyhow::Result<()> {
    anyhow::bail!(
        "this samecore was built without the `gui` feature; use a subcommand (see --help)"
    )
}
