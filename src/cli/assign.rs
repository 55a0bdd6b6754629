//! `samecore assign --project P --round R`: one package per coder of a reliability round, each a
//! single file with the round's stories (titles, URLs, sites, dates, core texts, the pages made
//! inert), the codebook and the coder's earlier values, for coding on another machine without
//! the archive or the project; `samecore merge` brings the work back.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

/// Arguments of `samecore assign`.
#[derive(Debug, Args)]
pub struct AssignArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// The reliability round whose stories the coders code.
    #[arg(long, required_unless_present = "sample", conflicts_with = "sample")]
    pub round: Option<String>,
    /// A sample of pairs to judge instead (its pages and their sites' frames are read again
    /// from the archives); name the coders with --coders.
    #[arg(long)]
    pub sample: Option<String>,
    /// Only these of the round's coders (comma-separated; default: all of them); for a
    /// sample, who judges its pairs.
    #[arg(long, value_delimiter = ',')]
    pub coders: Option<Vec<String>>,
    /// The folder the packages are written to (default: the project's).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Who writes them (default: $USER).
    #[arg(long)]
    pub by: Option<String>,
    /// A JSON report instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore assign`.
pub fn run(args: AssignArgs) -> anyhow::Result<()> {
    let mut project = super::open_existing(&args.project)?;
    let by = super::who(&args.by, "lead");
    let folder = args.out.unwrap_or_else(|| {
        args.project
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
    });
    let (written, what, name) = match (&args.round, &args.sample) {
        (Some(round), _) => (
            samecore::package::assign(&mut project, round, args.coders.as_deref(), &folder, &by)?,
            ("stories", "values", "round"),
            round,
        ),
        (None, Some(sample)) => (
            samecore::package::assign_sample(
                &mut project,
                sample,
                args.coders.as_deref().unwrap_or_default(),
                &folder,
                &by,
            )?,
            ("pairs", "decisions", "sample"),
            sample,
        ),
        (None, None) => anyhow::bail!("say what to assign: --round R or --sample S"),
    };
    let mut out = super::stdout_for(args.json);
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::json!({ what.2: name, "packages": written })
        )?;
        return Ok(());
    }
    for p in &written {
        writeln!(
            out,
            "{}: {} {} ({} earlier {} carried), {} -> {}",
            p.coder,
            p.units,
            what.0,
            p.carried,
            what.1,
            human_bytes(p.bytes),
            p.file.display()
        )?;
    }
    Ok(())
}

/// `1.2 MB` style sizes.
fn human_bytes(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else {
        format!("{:.0} KB", (n as f64 / 1e3).ceil())
    }
}
