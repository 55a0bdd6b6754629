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

/// Return freed memory to the system as soon as it is freed. This build does not otherwise
/// purge on time: measured on 109,538 generated pages (`run --mode allpairs`), peak RSS
/// 402 -> 312 MB with mimalloc's documented 10 ms. With 10 ms a burst of frees still stays
/// resident: joining a file's documents into one vector (a 137 MB copy on 328,586 pages, its
/// chunks freed as they are copied, all within a few ms) raised RSS by the whole copy and made
/// the run's peak; immediately, the 300k-page run peaks at 707 MB instead of 801 MB at the
/// same wall time. A user's `MIMALLOC_PURGE_DELAY` wins.
fn tune_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's own options, which it reads under its own
        // synchronisation; no pointer is passed.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    }
}

fn main() {
    tune_allocator();
    let args = cli::Cli::parse();
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
