//! The headless command line. Each subcommand lives in its own file and is a thin layer over
//! the library; errors come back as `anyhow` chains that `main` prints.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub mod info;
pub mod synth;

/// samecore finds same-core near-duplicate pages in web archives.
///
/// With no subcommand it opens the workbench (on ARCHIVE… when given).
#[derive(Debug, Parser)]
#[command(
    name = "samecore",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do; none opens the workbench.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Archives (WARC, ARC, WACZ, folder or zip of pages) to open in the workbench.
    pub archives: Vec<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read archives and report what is in them: records per type, pages, skips, warnings.
    Info(info::InfoArgs),
    /// Generate a synthetic news archive (WARC or folder) with its gold clusters.
    Synth(synth::SynthArgs),
}

/// Run one subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Info(args) => info::run(args),
        Command::Synth(args) => synth::run(args),
    }
}
