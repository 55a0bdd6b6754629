//! Agreement per variable from a long table of coded values: one row per (unit, coder,
//! variable, value), as reliability data are kept in R (tidycomm's `test_icr`, `irr`) and as a
//! team may bring them from any tool. Each variable becomes a units × coders matrix
//! ([`ReliabilityData`]), and gets alpha at the level asked, its bootstrap interval, percent
//! agreement, and Cohen's (two coders) and Fleiss' kappa; reviewers ask for alpha per variable.

use std::collections::{BTreeMap, BTreeSet};

use super::{
    AgreementError, BootstrapConfig, Level, ReliabilityData, alpha, bootstrap_alpha, cohen_kappa,
    fleiss_kappa, percent_agreement,
};

/// One coded value of the long table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodedValue {
    /// The unit (a story, a page).
    pub unit: String,
    /// Who coded it.
    pub coder: String,
    /// The variable.
    pub variable: String,
    /// The value as written; `None` (an empty cell) is missing.
    pub value: Option<String>,
    /// Where it came from, for messages (a line of a file).
    pub line: u64,
}

/// The agreement of one variable.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VariableAgreement {
    /// The variable.
    pub variable: String,
    /// The level alpha was computed at.
    pub level: &'static str,
    /// Krippendorff's alpha; none when every pairable value is the same (undefined).
    pub alpha: Option<f64>,
    /// Lower end of the bootstrap interval (none without an alpha).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// The share of resamples below 0.667 and 0.8: q(alpha < alpha_min).
    pub q_667: Option<f64>,
    /// q(alpha < 0.8).
    pub q_800: Option<f64>,
    /// Units with two or more values (the ones alpha reads).
    pub units: usize,
    /// Coders with a value of this variable.
    pub coders: usize,
    /// Pairable values (n of the coincidence matrix).
    pub values: usize,
    /// Percent agreement (the share of pairable values whose partner agrees).
    pub percent_agreement: Option<f64>,
    /// Cohen's kappa, with exactly two coders.
    pub cohen_kappa: Option<f64>,
    /// Fleiss' kappa over the units with the most common number of coders.
    pub fleiss_kappa: Option<f64>,
}

/// What is wrong with a long table, naming the row.
#[derive(Debug, Clone, PartialEq)]
pub enum TableError {
    /// A value that is not a number at a level that needs numbers.
    NotANumber {
        /// The row's line.
        line: u64,
        /// The value.
        value: String,
        /// The level.
        level: Level,
    },
    /// One coder gave two different values to one unit's variable.
    TwoValues {
        /// The unit.
        unit: String,
        /// The coder.
        coder: String,
        /// The variable.
        variable: String,
        /// The lines of the two values.
        lines: (u64, u64),
    },
    /// The measure itself failed (for a variable).
    Agreement {
        /// The variable.
        variable: String,
        /// Why.
        error: AgreementError,
    },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::NotANumber { line, value, level } => write!(
                f,
                "line {line}: {value:?} is not a number, and {level} values must be \
                 (give --level nominal for categories)"
            ),
            TableError::TwoValues {
                unit,
                coder,
                variable,
                lines,
            } => write!(
                f,
                "lines {} and {}: coder {coder:?} gave unit {unit:?} two values of \
                 {variable:?}; keep one",
                lines.0, lines.1
            ),
            TableError::Agreement { variable, error } => write!(f, "{variable}: {error}"),
        }
    }
}

impl std::error::Error for TableError {}

/// Alpha and the rest for every variable of `values` (sorted by name), each at `level`, the
/// interval by `boot`. A variable whose values are all the same has no alpha (and says so by
/// `None`), not an error; one with no unit coded twice is an error naming it.
pub fn per_variable(
    values: &[CodedValue],
    level: Level,
    boot: &BootstrapConfig,
) -> Result<Vec<VariableAgreement>, TableError> {
    let mut by_variable: BTreeMap<&str, Vec<&CodedValue>> = BTreeMap::new();
    for v in values {
        by_variable.entry(v.variable.as_str()).or_default().push(v);
    }
    by_variable
        .into_iter()
        .map(|(variable, rows)| one_variable(variable, &rows, level, boot))
        .collect()
}

fn one_variable(
    variable: &str,
    rows: &[&CodedValue],
    level: Level,
    boot: &BootstrapConfig,
) -> Result<VariableAgreement, TableError> {
    let coders: Vec<&str> = rows
        .iter()
        .filter(|r| r.value.is_some())
        .map(|r| r.coder.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let units: Vec<&str> = rows
        .iter()
        .map(|r| r.unit.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let coder_of: BTreeMap<&str, usize> = coders.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let unit_of: BTreeMap<&str, usize> = units.iter().enumerate().map(|(i, u)| (*u, i)).collect();
    // The values as given, per cell, checked for a coder's second value.
    let mut cells: Vec<Vec<Option<(&str, u64)>>> = vec![vec![None; coders.len()]; units.len()];
    for r in rows {
        let (Some(value), Some(&c)) = (r.value.as_deref(), coder_of.get(r.coder.as_str())) else {
            continue;
        };
        let cell = &mut cells[unit_of[r.unit.as_str()]][c];
        match cell {
            Some((before, line)) if *before != value => {
                return Err(TableError::TwoValues {
                    unit: r.unit.clone(),
                    coder: r.coder.clone(),
                    variable: variable.to_string(),
                    lines: (*line, r.line),
                });
            }
            _ => *cell = Some((value, r.line)),
        }
    }
    let data = if level == Level::Nominal {
        let labels: Vec<Vec<Option<&str>>> = cells
            .iter()
            .map(|row| row.iter().map(|c| c.map(|(v, _)| v)).collect())
            .collect();
        ReliabilityData::from_labels(&labels).0
    } else {
        let mut numbers = Vec::with_capacity(cells.len());
        for row in &cells {
            let mut out = Vec::with_capacity(row.len());
            for cell in row {
                out.push(match cell {
                    None => None,
                    Some((v, line)) => {
                        Some(
                            v.trim()
                                .parse::<f64>()
                                .map_err(|_| TableError::NotANumber {
                                    line: *line,
                                    value: v.to_string(),
                                    level,
                                })?,
                        )
                    }
                });
            }
            numbers.push(out);
        }
        ReliabilityData::from_units(numbers).map_err(|error| TableError::Agreement {
            variable: variable.to_string(),
            error,
        })?
    };
    let failed = |error| TableError::Agreement {
        variable: variable.to_string(),
        error,
    };
    let point = alpha(&data, level).map_err(failed)?;
    let interval = match point.alpha {
        Some(_) => Some(bootstrap_alpha(&data, level, boot).map_err(failed)?),
        None => None,
    };
    let kappa = |k: Result<super::Kappa, AgreementError>| k.ok().and_then(|k| k.kappa);
    Ok(VariableAgreement {
        variable: variable.to_string(),
        level: level.name(),
        alpha: point.alpha,
        low: interval.as_ref().map(|b| b.low),
        high: interval.as_ref().map(|b| b.high),
        q_667: interval.as_ref().map(|b| b.below_667),
        q_800: interval.as_ref().map(|b| b.below_800),
        units: point.units,
        coders: coders.len(),
        values: point.pairable_values,
        percent_agreement: percent_agreement(&data).ok(),
        cohen_kappa: (coders.len() == 2)
            .then(|| kappa(cohen_kappa(&data, 0, 1)))
            .flatten(),
        fleiss_kappa: kappa(fleiss_kappa(&data)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(unit: &str, coder: &str, variable: &str, value: &str, line: u64) -> CodedValue {
        CodedValue {
            unit: unit.into(),
            coder: coder.into(),
            variable: variable.into(),
            value: (!value.is_empty()).then(|| value.into()),
            line,
        }
    }

    /// Krippendorff (2011) §C's 4 coders × 12 units, as a long table: alpha per level equals
    /// the paper's, whatever order the rows come in.
    #[test]
    fn the_published_example_as_a_long_table() {
        let coders = [
            "1 2 3 3 2 1 4 1 2 . . .",
            "1 2 3 3 2 2 4 1 2 5 . 3",
            ". 3 3 3 2 3 4 2 2 5 1 .",
            "1 2 3 3 2 4 4 1 2 5 1 .",
        ];
        let mut rows = Vec::new();
        let mut line = 1;
        for (c, values) in coders.iter().enumerate().rev() {
            for (u, v) in values.split(' ').enumerate() {
                line += 1;
                let v = if v == "." { "" } else { v };
                rows.push(row(&format!("u{u:02}"), &format!("c{c}"), "tone", v, line));
            }
        }
        let boot = BootstrapConfig {
            resamples: 1000,
            ..BootstrapConfig::default()
        };
        for (level, published) in [
            (Level::Nominal, 0.743),
            (Level::Ordinal, 0.815),
            (Level::Interval, 0.849),
            (Level::Ratio, 0.797),
        ] {
            let table = per_variable(&rows, level, &boot).unwrap();
            let a = table[0].alpha.unwrap();
            assert!((a - published).abs() < 5e-4, "{level}: {a}");
            assert_eq!((table[0].units, table[0].coders), (11, 4));
            assert!(table[0].low.unwrap() <= a && a <= table[0].high.unwrap());
        }
    }

    #[test]
    fn a_second_value_and_a_word_at_a_numeric_level_are_named() {
        let rows = [
            row("s1", "ana", "tone", "1", 2),
            row("s1", "ana", "tone", "2", 3),
        ];
        let e = per_variable(&rows, Level::Nominal, &BootstrapConfig::default()).unwrap_err();
        assert!(e.to_string().contains("lines 2 and 3"), "{e}");
        let rows = [
            row("s1", "ana", "tone", "positive", 2),
            row("s1", "ben", "tone", "negative", 3),
        ];
        let e = per_variable(&rows, Level::Interval, &BootstrapConfig::default()).unwrap_err();
        assert!(e.to_string().starts_with("line 2: \"positive\""), "{e}");
        // Labels are fine for nominal data; two coders give Cohen's kappa too.
        let rows = [
            row("s1", "ana", "tone", "positive", 2),
            row("s1", "ben", "tone", "positive", 3),
            row("s2", "ana", "tone", "negative", 4),
            row("s2", "ben", "tone", "negative", 5),
            row("s3", "ana", "tone", "negative", 6),
            row("s3", "ben", "tone", "positive", 7),
        ];
        let t = per_variable(&rows, Level::Nominal, &BootstrapConfig::default()).unwrap();
        assert!(t[0].cohen_kappa.is_some() && t[0].alpha.is_some());
        assert!((t[0].percent_agreement.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    }
}
