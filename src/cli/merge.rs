//! `samecore merge --project P PACKAGE…`: the coders' packages brought into the project, each
//! value under its coder with when it was given (see [`samecore::package::merge`]): a package
//! merged again adds nothing, packages merge in any order to the same project, and a package
//! of another project, edited by hand, cut short or not a package at all is refused with its
//! reason and nothing changes.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

/// Arguments of `samecore merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// The packages.
    #[arg(required = true)]
    pub packages: Vec<PathBuf>,
    /// Who merges (default: $USER).
    #[arg(long)]
    pub by: Option<String>,
    /// A JSON report instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore merge`.
pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let mut project = super::open_existing(&args.project)?;
    let by = super::who(&args.by, "lead");
    let report = samecore::package::merge(&mut project, &args.packages, &by)?;
    let mut out = super::stdout_for(args.json);
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
        return Ok(());
    }
    for p in &report.packages {
        writeln!(out, "{} <- {}", p.summary(), p.file.display())?;
        for c in &p.conflicts {
            writeln!(
                out,
                "  conflict: {} on {}: {} ({}) counts over {} ({}); both are in the log",
                c.variable, c.unit, c.kept, c.kept_at, c.earlier, c.earlier_at
            )?;
        }
    }
    Ok(())
}
