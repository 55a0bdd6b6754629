//! `samecore export --project FILE.samecore TABLE --out FILE`: write one table of a project as
//! CSV, TSV, JSON Lines or Parquet (by the file's extension, or `--format`; an unknown extension
//! is an error), ready for pandas, R or a spreadsheet: `pages` (identity, cluster in `--run`, codes, gold), `pairs` (a `--sample` with
//! scores and labels), `runs` (parameters, seed, version, timings) or `codes` (every code
//! decision with provenance). `--out -` writes to stdout. `--import-labels` /
//! `--import-codes FILE` read such a pairs / codes export back into the project instead.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use samecore::export::{self, Format, import};
use samecore::store::{Project, RunId};

/// The tables of a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Table {
    /// Every page with cluster (in --run), codes and gold cluster.
    Pages,
    /// The pairs of --sample with scores and labels.
    Pairs,
    /// Every run with its parameters.
    Runs,
    /// Every code decision on a page, with provenance.
    Codes,
    /// Every pair's derivation class as coders decided it (the latest decision), with who and
    /// when.
    Derivations,
    /// Every coded value of the codebook's variables, long: unit, variable, coder, role, value,
    /// label, codebook version, when (a coder's own and the final values).
    Values,
    /// The data set for the analysis, wide: a row per story or page, a column per variable and
    /// its label; the final value, else the one its coders agree on (the rest named).
    Dataset,
    /// The reliability data as tidycomm's test_icr takes them: a row per unit and coder, a
    /// column per scored variable.
    Reliability,
}

/// Arguments of `samecore export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// What to export.
    #[arg(required_unless_present_any = ["import_labels", "import_codes"])]
    pub table: Option<Table>,
    /// Output file (`-` for stdout).
    #[arg(long, short, required_unless_present_any = ["import_labels", "import_codes"])]
    pub out: Option<PathBuf>,
    /// csv, tsv, jsonl or parquet; default by the file's extension (csv for stdout).
    #[arg(long)]
    pub format: Option<Format>,
    /// For pages: the run whose clusters to write (default: the latest run).
    #[arg(long)]
    pub run: Option<i64>,
    /// For pairs: the sample.
    #[arg(long)]
    pub sample: Option<String>,
    /// Read a pairs export (labels and settlements) back into the project. Its pages must be
    /// in the project (read the archives into it first); all or nothing.
    #[arg(long, value_name = "FILE", conflicts_with = "table")]
    pub import_labels: Option<PathBuf>,
    /// Read a codes export back into the project.
    #[arg(long, value_name = "FILE", conflicts_with = "table")]
    pub import_codes: Option<PathBuf>,
}

/// Run `samecore export`.
pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    // Importing may start a new project; exporting from a file that is not there is a typo.
    let options = samecore::store::OpenOptions {
        create: args.import_labels.is_some() || args.import_codes.is_some(),
        ..Default::default()
    };
    let mut project = Project::open_with(&args.project, &options)
        .with_context(|| format!("cannot open project {}", args.project.display()))?;
    if args.import_labels.is_some() || args.import_codes.is_some() {
        if let Some(path) = &args.import_labels {
            let r = import::import_labels(&mut project, path, args.format)?;
            eprintln!(
                "{}: {} rows; {} labels and {} settlements written{}",
                path.display(),
                r.rows,
                r.written,
                r.settlements,
                if r.samples_created > 0 {
                    format!("; {} sample(s) made from the export", r.samples_created)
                } else {
                    String::new()
                }
            );
        }
        if let Some(path) = &args.import_codes {
            let r = import::import_codes(&mut project, path, args.format)?;
            eprintln!(
                "{}: {} rows, {} code decisions written",
                path.display(),
                r.rows,
                r.written
            );
        }
        return Ok(());
    }
    let (Some(table), Some(out)) = (args.table, &args.out) else {
        bail!("say what to export and where: TABLE --out FILE");
    };
    let to_stdout = out.as_os_str() == "-";
    project.inputs()?.check(out, "--out")?;
    let format = match (args.format, to_stdout) {
        (Some(f), _) => f,
        (None, true) => Format::Csv,
        (None, false) => {
            Format::of_path(out).map_err(|e| anyhow::anyhow!("{e}, or give --format"))?
        }
    };
    let n = match table {
        Table::Pages => {
            let run = match args.run {
                Some(id) => Some(RunId(id)),
                None => project.runs()?.last().map(|r| r.id),
            };
            write(&export::page_rows(&project, run)?, out, to_stdout, format)?
        }
        Table::Pairs => {
            let sample = match &args.sample {
                Some(name) => project.sample_by_name(name)?,
                // One sample: that one.
                None => {
                    let mut all = project.samples()?;
                    match all.len() {
                        1 => all.remove(0),
                        0 => bail!("the project has no sample to export pairs of"),
                        _ => {
                            let names: Vec<String> =
                                all.iter().map(|s| format!("{:?}", s.name)).collect();
                            bail!(
                                "exporting pairs needs --sample NAME (samples: {})",
                                names.join(", ")
                            )
                        }
                    }
                }
            };
            write(
                &export::pair_rows(&project, sample.id)?,
                out,
                to_stdout,
                format,
            )?
        }
        Table::Runs => write(&export::run_rows(&project)?, out, to_stdout, format)?,
        Table::Codes => write(&export::code_rows(&project)?, out, to_stdout, format)?,
        Table::Derivations => write(&export::derivation_rows(&project)?, out, to_stdout, format)?,
        Table::Values => write(
            &export::dataset::value_rows(&project)?,
            out,
            to_stdout,
            format,
        )?,
        Table::Dataset | Table::Reliability => {
            anyhow::ensure!(!to_stdout, "this table is written to a file (--out FILE)");
            let data = if table == Table::Dataset {
                export::dataset::dataset(&project)?
            } else {
                export::dataset::reliability(&project)?
            };
            export::dataset::write_dataset(&data, out, Some(format))?
        }
    };
    if !to_stdout {
        eprintln!("{n} rows written to {}", out.display());
    }
    Ok(())
}

fn write<T: serde::Serialize + serde::de::DeserializeOwned + Default>(
    rows: &[T],
    out: &std::path::Path,
    to_stdout: bool,
    format: Format,
) -> anyhow::Result<usize> {
    if to_stdout {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        let n = export::write_rows(rows, &mut lock, format)?;
        lock.flush()?;
        Ok(n)
    } else {
        Ok(export::write_file(rows, out, Some(format))?)
    }
}
