//! `samecore import-gold --project FILE.samecore GOLD`: read gold clusters from a file with a
//! header row naming a `doc` (or `key`) and a `cluster` column — CSV, or TSV like the gold files
//! of `samecore synth` — into the project, where they serve evaluation and exports. `doc` is a
//! page's key (capture key, reader key or record id); keys not (yet) in the project are kept
//! too. A samecore pages export is refused unless `--column` says which column is gold.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use samecore::export::import;
use samecore::store::Project;

/// Arguments of `samecore import-gold`.
#[derive(Debug, Args)]
pub struct ImportGoldArgs {
    /// The project file (created when missing).
    #[arg(long)]
    pub project: PathBuf,
    /// The gold file: `doc,cluster` (or tab-separated) with a header row.
    pub gold: PathBuf,
    /// The column that holds the gold cluster (default `cluster`); needed for a samecore pages
    /// export, whose `cluster` column is a detector's clusters (its gold is `gold`).
    #[arg(long)]
    pub column: Option<String>,
}

/// Run `samecore import-gold`.
pub fn run(args: ImportGoldArgs) -> anyhow::Result<()> {
    let mut project = Project::open(&args.project)
        .with_context(|| format!("cannot open project {}", args.project.display()))?;
    let gold = import::read_gold(&args.gold, args.column.as_deref())?;
    let clusters: BTreeSet<&String> = gold.values().collect();
    let matched = project.import_gold(&gold, &format!("file:{}", args.gold.display()))?;
    println!(
        "{} pages in {} gold clusters read from {}; {} of them are pages of the project",
        gold.len(),
        clusters.len(),
        args.gold.display(),
        matched
    );
    if matched < gold.len() {
        eprintln!(
            "warning: {} of them name no page of the project (a page is named by its key, as \
             `export pages` writes it, or its record id); they are kept for pages added later",
            gold.len() - matched
        );
    }
    Ok(())
}
