//! The `samecore` binary: no subcommand opens the workbench, a subcommand runs headless.

mod cli;

/// mimalloc instead of the system allocator: with glibc's, reading a 1 GB archive held 3.1 GB
/// resident although the heap never exceeded a few MB (pages are decoded on rayon threads
/// and freed on the reader's), see docs/benchmarks.md ("Matching that scales").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    // A command keeps freed memory over small inputs, in 4 KiB pages; the workbench may open a
    // million pages later, so it returns it at once (`engine::memory`). Only input files are
    // sized here (a folder's pages are counted by its reader as it lists them), so this is
    // done before the command starts.
    let inputs: Vec<std::path::PathBuf> = match args.command {
        Some(_) => std::env::args_os().skip(1).map(Into::into).collect(),
        None => Vec::new(),
    };
    if samecore::engine::memory::tune_for_inputs(&inputs, args.command.is_some()) {
        samecore::engine::memory::no_transparent_huge_pages();
    }
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
