//! `samecore relocate --project FILE.samecore FOLDER`: tell a project where its archives are
//! now. Archives are found again by themselves when the project and its archives moved
//! together (paths relative to the project file are stored too); this is for the other case,
//! an archive folder moved on its own. Every archive not found is looked for by name in FOLDER
//! (two levels deep) and recorded at its new place with its pages; labels and codes stay.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `samecore relocate`.
#[derive(Debug, Args)]
pub struct RelocateArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// The folder the archives are in now (omit it to only list where they are).
    pub folder: Option<PathBuf>,
}

/// Run `samecore relocate`.
pub fn run(args: RelocateArgs) -> anyhow::Result<()> {
    let mut project = super::open_existing(&args.project)?;
    if let Some(folder) = &args.folder {
        if !folder.is_dir() {
            anyhow::bail!("{} is not a folder", folder.display());
        }
        for (old, new) in project.relocate(folder)? {
            println!("moved: {old} -> {}", new.display());
        }
    }
    let mut missing = 0;
    for place in project.archive_places()? {
        match &place.found {
            Some(at) => println!("found: {}", at.display()),
            None => {
                missing += 1;
                println!("missing: {}", place.path);
            }
        }
    }
    if missing > 0 {
        anyhow::bail!(
            "{missing} archive(s) not found; give the folder they are in now: \
             samecore relocate --project {} FOLDER",
            args.project.display()
        );
    }
    Ok(())
}
