//! `samecore codebook --project P show | write FILE | read FILE | versions`: the codebook of
//! variables. It is versioned inside the project (every value records the version it was coded
//! under) and kept as one human-readable file beside it: `write` puts the current version in a
//! file, `read` makes a new version from one (checked: a duplicate name, an unknown level or
//! kind, a bad list is refused and nothing changes).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use samecore::codebook::{Codebook, Kind};

/// Arguments of `samecore codebook`.
#[derive(Debug, Args)]
pub struct CodebookArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// Who changes the codebook (default: $USER).
    #[arg(long, global = true)]
    pub by: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub action: CodebookAction,
}

/// The codebook's actions.
#[derive(Debug, Subcommand)]
pub enum CodebookAction {
    /// Every variable: question, level, kind, unit and numbered values.
    Show,
    /// Write the current codebook to a file (JSON; default `<project>.codebook.json`), or as a
    /// readable document for a methods appendix (`--markdown`, a `.md` file).
    Write {
        /// The file.
        file: Option<PathBuf>,
        /// Write Markdown (a document, not read back) instead of the codebook's file.
        #[arg(long)]
        markdown: bool,
    },
    /// Make the codebook in a file the project's next version.
    Read {
        /// The file.
        file: PathBuf,
        /// Why it changed (kept with the version).
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Every version, with who made it and when.
    Versions,
}

/// Run `samecore codebook`.
pub fn run(args: CodebookArgs) -> anyhow::Result<()> {
    let mut project = super::open_existing(&args.project)?;
    let by = super::who(&args.by, "lead");
    let mut out = super::stdout_for(false);
    match args.action {
        CodebookAction::Show => show(&project.codebook()?, &mut out)?,
        CodebookAction::Write { file, markdown } => {
            let file = file.unwrap_or_else(|| {
                let mut name = args.project.as_os_str().to_owned();
                name.push(if markdown {
                    ".codebook.md"
                } else {
                    ".codebook.json"
                });
                PathBuf::from(name)
            });
            project.inputs()?.check(&file, "the codebook file")?;
            let book = project.codebook()?;
            let text = if markdown {
                book.to_markdown()
            } else {
                book.to_file_text()?
            };
            std::fs::write(&file, text)
                .with_context(|| format!("cannot write {}", file.display()))?;
            writeln!(
                out,
                "codebook version {} ({} variables) written to {}",
                book.version,
                book.variables.len(),
                file.display()
            )?;
        }
        CodebookAction::Read { file, note } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let book = Codebook::from_file_text(&text)
                .with_context(|| format!("{} (the codebook is unchanged)", file.display()))?;
            let before = project.codebook()?.version;
            let version = project.save_codebook(&book, &by, &note)?;
            if version == before {
                writeln!(out, "the codebook is already this one (version {version})")?;
            } else {
                writeln!(
                    out,
                    "codebook version {version}: {} variables",
                    book.variables.len()
                )?;
            }
        }
        CodebookAction::Versions => {
            for (version, who, at, note) in project.codebook_versions()? {
                writeln!(out, "{version:>4}  {at}  {who:<12} {note}")?;
            }
        }
    }
    Ok(())
}

fn show(book: &Codebook, out: &mut dyn Write) -> anyhow::Result<()> {
    if book.variables.is_empty() {
        writeln!(
            out,
            "no variables yet: write them in a file and `samecore codebook read FILE` (the tag \
             codes are the variable \"codes\": `samecore code list`)"
        )?;
        return Ok(());
    }
    writeln!(out, "codebook version {}", book.version)?;
    for v in &book.variables {
        writeln!(
            out,
            "\n{} ({}, {:?}, on a {})",
            v.name,
            v.level,
            v.kind,
            v.unit.name()
        )?;
        if !v.question.is_empty() {
            writeln!(out, "  {}", v.question)?;
        }
        if !v.instructions.is_empty() {
            writeln!(out, "  {}", v.instructions)?;
        }
        if matches!(v.kind, Kind::One | Kind::Several) {
            for value in &v.values {
                writeln!(out, "    {:>3} = {}", value.code, value.label)?;
            }
        }
        if let Some(n) = v.not_applicable {
            writeln!(out, "    {n:>3} = not applicable")?;
        }
        if let Some(n) = v.cannot_code {
            writeln!(out, "    {n:>3} = cannot code")?;
        }
    }
    Ok(())
}
