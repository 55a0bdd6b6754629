//! The `samecore` binary: no subcommand opens the workbench, a subcommand runs headless.

mod cli;

/// mimalloc instead of the system allocator: with glibc's, reading a 1 GB archive held 3.1 GB
/// resident although the heap never exceeded a few MB (pages are decoded on rayon threads
/// and freed on the reader's), see the README's measurements.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    let result = match args.command {
        Some(command) => cli::run(command),
        None => open_workbench(args.archives),
    };
    if let Err(err) = result {
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
