//! `samecore synth`: generate a synthetic news archive (WARC or a folder of pages) and its gold
//! file — the project's sample archive and benchmark inputs of any size. A thin layer over
//! [`samecore::synth`].

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use samecore::progress::Progress;
use samecore::synth::{self, SynthOptions};

use super::progress_bar::{COUNT, with_progress_bar};

/// Output layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SynthFormat {
    /// One `.warc.gz` (WARC 1.1, one gzip member per record).
    Warc,
    /// A folder of `.html` files, one sub-folder per gold cluster.
    Folder,
}

/// Generate a synthetic news archive with known same-core clusters.
///
/// Example: `samecore synth --pages 100000 --out big.warc.gz --gold big.gold.tsv --seed 7`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Output `.warc.gz` file (or folder with `--format folder`).
    #[arg(long)]
    pub out: PathBuf,
    /// Gold file to write: `doc<TAB>cluster`, doc = WARC-Record-ID (or relative path).
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// Seed of every random choice; the same seed and options give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of HTML pages (status-200 HTML responses; revisits not counted). Default 300
    /// unless --target-bytes is given.
    #[arg(long)]
    pub pages: Option<u64>,
    /// Stop once the output reaches this size, e.g. `1G`, `250M`, `64k` (powers of 1024).
    #[arg(long, value_parser = parse_size)]
    pub target_bytes: Option<u64>,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = SynthFormat::Warc)]
    pub format: SynthFormat,
    /// gzip level of each WARC record (0–9).
    #[arg(long, default_value_t = 6)]
    pub level: u32,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Replace an existing output file and gold file (a folder must be new or empty anyway:
    /// pages of another archive would join its story folders).
    #[arg(long)]
    pub overwrite: bool,
}

/// Refuse to write over what is there: an existing file unless `overwrite`, a folder that is
/// not empty always, and a `.warc` name for the gzipped WARC.
fn check_outputs(args: &SynthArgs) -> anyhow::Result<()> {
    let out = &args.out;
    match args.format {
        SynthFormat::Warc => {
            let name = out.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.as_deref().is_some_and(|n| n.ends_with(".warc")) {
                bail!(
                    "{} would hold a gzipped WARC: name it .warc.gz",
                    out.display()
                );
            }
            if out.is_dir() {
                bail!(
                    "{} is a folder: give a file name, or --format folder",
                    out.display()
                );
            }
            if out.exists() && !args.overwrite {
                bail!(
                    "{} exists: give another name, or --overwrite",
                    out.display()
                );
            }
        }
        SynthFormat::Folder => {
            if out.is_file() {
                bail!(
                    "{} is a file: give a folder for --format folder",
                    out.display()
                );
            }
            let empty = !out.exists()
                || std::fs::read_dir(out)
                    .with_context(|| format!("cannot read {}", out.display()))?
                    .next()
                    .is_none();
            if !empty {
                bail!(
                    "{} is not empty: give a new or empty folder (another archive's pages would \
                     join its story folders)",
                    out.display()
                );
            }
        }
    }
    // The gold beside the archive is another file (and neither replaces a project, even with
    // --overwrite).
    if let Some(gold) = &args.gold {
        samecore::guard::Inputs::new()
            .input(out)
            .check(gold, "--gold")?;
        samecore::guard::Inputs::new().check(gold, "--gold")?;
    }
    if args.format == SynthFormat::Warc {
        samecore::guard::Inputs::new().check(out, "--out")?;
    }
    if let Some(gold) = args.gold.as_ref().filter(|g| g.exists() && !args.overwrite) {
        bail!(
            "{} exists: give another name, or --overwrite",
            gold.display()
        );
    }
    Ok(())
}

/// Parse `1G`, `250M`, `64k`, `123` (powers of 1024) into bytes.
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("not a size: {text:?}"))?;
    let scale: u64 = match unit
        .trim()
        .to_ascii_lowercase()
        .trim_end_matches(['b', 'i'])
    {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        other => return Err(format!("unknown size unit {other:?} in {text:?}")),
    };
    Ok((number * scale as f64).round() as u64)
}

/// Run `samecore synth`.
pub fn run(args: SynthArgs) -> anyhow::Result<()> {
    if args.level > 9 {
        bail!("--level must be 0..=9, not {}", args.level);
    }
    check_outputs(&args)?;
    let options = SynthOptions {
        seed: args.seed,
        pages: args.pages.or(if args.target_bytes.is_some() {
            None
        } else {
            Some(300)
        }),
        target_bytes: args.target_bytes,
        level: args.level,
        ..SynthOptions::default()
    };
    let mut gold = match &args.gold {
        Some(path) => {
            Some(BufWriter::new(File::create(path).with_context(|| {
                format!("cannot create {}", path.display())
            })?))
        }
        None => None,
    };
    let progress = Progress::new();
    let report = with_progress_bar(
        &progress,
        COUNT,
        || -> anyhow::Result<synth::SynthReport> {
            let gold = gold.as_mut().map(|g| g as &mut dyn Write);
            match args.format {
                SynthFormat::Warc => {
                    let file = File::create(&args.out)
                        .with_context(|| format!("cannot create {}", args.out.display()))?;
                    let mut out = BufWriter::with_capacity(1 << 20, file);
                    let name = args.out.file_name().map_or_else(
                        || "synth.warc.gz".to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    );
                    Ok(synth::write_warc(
                        &options, &name, &mut out, gold, &progress,
                    )?)
                }
                SynthFormat::Folder => {
                    Ok(synth::write_folder(&options, &args.out, gold, &progress)?)
                }
            }
        },
    )?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{}: {} HTML pages, {} revisits, {} other responses, {} records, {} clusters, \
             {:.1} MB in {:.1} s ({:.1} MB/s)",
            args.out.display(),
            report.pages,
            report.revisits,
            report.others,
            report.records,
            report.clusters,
            report.bytes as f64 / 1e6,
            report.seconds,
            report.bytes as f64 / 1e6 / report.seconds.max(1e-9)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("250M"), Ok(250 << 20));
        assert_eq!(parse_size("64kB"), Ok(64 << 10));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("123"), Ok(123));
        assert!(parse_size("12x").is_err());
        assert!(parse_size("G").is_err());
    }
}
