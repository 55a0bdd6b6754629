//! `samecore agreement --values FILE --level nominal|ordinal|interval|ratio [--json]`:
//! Krippendorff's alpha per variable, with its bootstrap interval and q(alpha < 0.667 / 0.8),
//! percent agreement and Cohen's / Fleiss' kappa, from a long table made anywhere (CSV, TSV,
//! JSON Lines or Parquet with the columns `unit`, `coder`, `variable`, `value`; an empty value
//! is missing), so a team can check samecore's alpha against its own tools and use it for data
//! coded elsewhere.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use samecore::agreement::{BootstrapConfig, BootstrapMethod, Level, per_variable};

/// Arguments of `samecore agreement`.
#[derive(Debug, Args)]
pub struct AgreementArgs {
    /// A long table of coded values: columns unit, coder, variable, value (CSV, TSV, JSON Lines
    /// or Parquet); an empty value is missing.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "project",
        conflicts_with = "project"
    )]
    pub values: Option<PathBuf>,
    /// The project: its coders' values, each variable at the level its codebook gives.
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// The level of measurement every variable is read at: nominal (any labels), ordinal,
    /// interval or ratio (numbers).
    #[arg(long, default_value = "nominal")]
    pub level: Level,
    /// Bootstrap resamples for the interval (Hayes & Krippendorff 2007).
    #[arg(long, default_value_t = 10_000)]
    pub resamples: usize,
    /// Seed of the bootstrap: the same seed gives the same interval.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// With --project: list the disagreements still open (unit, each coder's value), what the
    /// lead settles with `samecore code value … --final`.
    #[arg(long, requires = "project")]
    pub disagreements: bool,
    /// Resample units instead of pairs of values (wider intervals; Gwet 2015).
    #[arg(long)]
    pub by_units: bool,
    /// One JSON object: {"variables": [{"variable", "alpha", "units", "coders", "low", "high",
    /// …}]}.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore agreement`.
pub fn run(args: AgreementArgs) -> anyhow::Result<()> {
    if let (true, Some(path)) = (args.disagreements, &args.project) {
        let project = super::open_existing(path)?;
        let open = samecore::coding::reliability::disagreements(&project)?;
        let mut out = super::stdout_for(args.json);
        if args.json {
            serde_json::to_writer_pretty(&mut out, &open)?;
            writeln!(out)?;
            return Ok(());
        }
        for d in &open {
            let said: Vec<String> = d
                .values
                .iter()
                .map(|(coder, value, label)| match label {
                    Some(l) => format!("{coder}: {value} ({l})"),
                    None => format!("{coder}: {value}"),
                })
                .collect();
            writeln!(
                out,
                "{:<14} {:<28} {}",
                d.variable,
                d.unit,
                said.join(" | ")
            )?;
        }
        writeln!(out, "{} disagreements open", open.len())?;
        return Ok(());
    }
    let boot = BootstrapConfig {
        resamples: args.resamples,
        seed: args.seed,
        method: if args.by_units {
            BootstrapMethod::Units
        } else {
            BootstrapMethod::Krippendorff
        },
        ..BootstrapConfig::default()
    };
    let table = match (&args.values, &args.project) {
        (Some(file), _) => {
            let values = samecore::export::import::read_coded_values(file)?;
            anyhow::ensure!(!values.is_empty(), "no coded value in {}", file.display());
            per_variable(&values, args.level, &boot)
                .map_err(|e| anyhow::anyhow!("{e}: {}", file.display()))?
        }
        (None, Some(path)) => {
            let project = super::open_existing(path)?;
            let table = samecore::coding::reliability::agreement(&project, &boot)?;
            anyhow::ensure!(
                !table.is_empty(),
                "no variable of {} has values of two coders yet (samecore code value …)",
                path.display()
            );
            table
        }
        (None, None) => anyhow::bail!("give --values FILE or --project P"),
    };
    let mut out = super::stdout_for(args.json);
    if args.json {
        // A struct, not a map: each variable's fields in their order (variable first).
        #[derive(serde::Serialize)]
        struct Table<'a> {
            variables: &'a [samecore::agreement::VariableAgreement],
        }
        serde_json::to_writer_pretty(&mut out, &Table { variables: &table })?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<20} {:>7} {:>16} {:>7} {:>7} {:>6} {:>6} {:>6} {:>7} {:>7}",
        "variable",
        "alpha",
        "95% interval",
        "q<.667",
        "q<.8",
        "units",
        "coders",
        "agree",
        "cohen",
        "fleiss"
    )?;
    let num = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    for v in &table {
        let interval = match (v.low, v.high) {
            (Some(l), Some(h)) => format!("[{l:.3}, {h:.3}]"),
            _ => "-".into(),
        };
        writeln!(
            out,
            "{:<20} {:>7} {:>16} {:>7} {:>7} {:>6} {:>6} {:>6} {:>7} {:>7}",
            samecore::terminal::escape(&v.variable),
            num(v.alpha),
            interval,
            num(v.q_667),
            num(v.q_800),
            v.units,
            v.coders,
            num(v.percent_agreement),
            num(v.cohen_kappa),
            num(v.fleiss_kappa)
        )?;
    }
    writeln!(
        out,
        "({} alpha; interval and q from {} bootstrap resamples of {}, seed {}; \"-\": undefined, \
         every pairable value the same)",
        if args.project.is_some() {
            "each variable's own level".to_string()
        } else {
            args.level.to_string()
        },
        args.resamples,
        if args.by_units {
            "units"
        } else {
            "pairs of values"
        },
        args.seed
    )?;
    Ok(())
}
