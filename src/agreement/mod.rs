//! Agreement between coders: Krippendorff's alpha at the four classic levels of measurement,
//! percent agreement, Cohen's and Fleiss' kappa, and a bootstrap interval for alpha.
//!
//! In: [`ReliabilityData`], a units × coders matrix of values with gaps (Krippendorff 2011's
//! "reliability data", transposed: one row a unit, one column a coder). Out: plain numbers, no
//! I/O.
//!
//! - [`alpha`]: Krippendorff's alpha from the coincidence matrix, following Krippendorff (2011),
//!   *Computing Krippendorff's Alpha-Reliability* (Annenberg School for Communication, Departmental
//!   Papers 43): §A–§C build the coincidences and alpha = 1 − D_o/D_e, §D gives the difference
//!   functions of every metric (nominal, ordinal, interval, ratio) and works the example of
//!   4 coders × 12 units with missing values that the tests reproduce.
//! - [`percent_agreement`]: the share of pairable values whose pair partner agrees, Σ_c o_cc / n.
//! - [`cohen_kappa`] (two coders, the units both coded) and [`fleiss_kappa`] (units with the same
//!   number of raters), each a [`Kappa`].
//! - [`bootstrap_alpha`]: the distribution of alpha by Krippendorff's bootstrap as the KALPHA
//!   macro of Hayes & Krippendorff (2007) runs it, or by resampling units; a percentile interval
//!   and the probability q of failing to reach alpha_min = 0.667 and 0.800.
//!
//! Values are `f64`: codes of a nominal variable are any numbers standing for categories
//! ([`ReliabilityData::from_labels`] maps labels to such numbers). A missing value is `None`;
//! a NaN or infinite value is refused when the data are built, never taken for missing.
//!
//! Alpha is undefined when the expected disagreement D_e is 0, that is when every pairable value
//! is the same: [`Alpha::alpha`] is then `None` (never NaN), as is a kappa whose chance agreement
//! is 1. The Python `krippendorff` package (0.9) raises `ValueError` in that case when the whole
//! data matrix holds a single distinct value, and returns NaN (0/0) when other values occur only
//! in units with fewer than two values; both are `None` here. No unit with two or more values is
//! [`AgreementError::NoPairableValues`] here and a `ValueError` there.

mod bootstrap;
mod kalpha;
mod kappa;
mod krippendorff;
pub mod table;

pub use bootstrap::{AlphaBootstrap, BootstrapConfig, BootstrapMethod, bootstrap_alpha};
pub use kappa::{Kappa, cohen_kappa, fleiss_kappa};
pub use krippendorff::{Alpha, alpha, percent_agreement};
pub use table::{CodedValue, TableError, VariableAgreement, per_variable};

use std::fmt;
use std::str::FromStr;

/// Why an agreement measure could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum AgreementError {
    /// A value that is NaN or infinite (a missing value is `None`).
    NonFinite {
        /// The unit's row.
        unit: usize,
        /// The coder's column.
        coder: usize,
    },
    /// A negative value at the ratio level, whose values have an absolute zero (Krippendorff
    /// 2011, §D).
    NegativeRatio {
        /// The smallest such value.
        value: f64,
    },
    /// No unit holds two or more values (for Cohen's kappa: no unit coded by both coders), so no
    /// pair of values can be compared.
    NoPairableValues,
    /// A coder column the data do not have.
    NoSuchCoder {
        /// The column asked for.
        coder: usize,
        /// The number of coder columns.
        coders: usize,
    },
    /// Cohen's kappa of a coder with themself.
    SameCoder {
        /// The coder.
        coder: usize,
    },
    /// Alpha is undefined (D_e = 0: one value only), so it has no bootstrap distribution.
    NoVariation,
    /// A bootstrap setting out of range.
    InvalidConfig {
        /// What is wrong.
        reason: &'static str,
    },
    /// A level name that is none of nominal, ordinal, interval, ratio.
    UnknownLevel {
        /// The name given.
        name: String,
    },
}

impl fmt::Display for AgreementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { unit, coder } => {
                write!(
                    f,
                    "the value of unit {unit}, coder {coder} is not a finite number"
                )
            }
            Self::NegativeRatio { value } => {
                write!(f, "ratio-level values cannot be negative (found {value})")
            }
            Self::NoPairableValues => write!(f, "no unit has two values to compare"),
            Self::NoSuchCoder { coder, coders } => {
                write!(
                    f,
                    "there is no coder {coder} (the data have {coders} coders)"
                )
            }
            Self::SameCoder { coder } => write!(f, "coder {coder} compared with themself"),
            Self::NoVariation => {
                write!(f, "alpha is undefined: every pairable value is the same")
            }
            Self::InvalidConfig { reason } => write!(f, "invalid bootstrap setting: {reason}"),
            Self::UnknownLevel { name } => write!(
                f,
                "unknown level of measurement {name:?} (nominal, ordinal, interval or ratio)"
            ),
        }
    }
}

impl std::error::Error for AgreementError {}

/// A variable's level of measurement, which picks alpha's difference function δ²(c, k)
/// (Krippendorff 2011, §D).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// δ² = 0 if c = k, else 1.
    Nominal,
    /// δ² = (Σ_{g=c..k} n_g − (n_c + n_k)/2)² over the sorted distinct values, n_g the
    /// coincidence marginals: the squared distance of the values' mid-ranks.
    Ordinal,
    /// δ² = (c − k)².
    Interval,
    /// δ² = ((c − k)/(c + k))², for values ≥ 0 (0 when c = k = 0).
    Ratio,
}

impl Level {
    /// The four levels, nominal first.
    pub const ALL: [Level; 4] = [
        Level::Nominal,
        Level::Ordinal,
        Level::Interval,
        Level::Ratio,
    ];

    /// The level's name in lower case, as [`FromStr`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Nominal => "nominal",
            Level::Ordinal => "ordinal",
            Level::Interval => "interval",
            Level::Ratio => "ratio",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = AgreementError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|level| level.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| AgreementError::UnknownLevel {
                name: s.to_string(),
            })
    }
}

/// Reliability data: one row per unit, one column per coder, `None` where a coder gave the unit
/// no value. Rows may be shorter than others (the missing columns are `None`). Every value is
/// finite; −0.0 is stored as 0.0.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReliabilityData {
    units: Vec<Vec<Option<f64>>>,
    coders: usize,
}

impl ReliabilityData {
    /// Data from rows of units (each row: one value or `None` per coder).
    pub fn from_units(mut units: Vec<Vec<Option<f64>>>) -> Result<Self, AgreementError> {
        for (unit, row) in units.iter_mut().enumerate() {
            for (coder, slot) in row.iter_mut().enumerate() {
                if let Some(value) = slot {
                    if !value.is_finite() {
                        return Err(AgreementError::NonFinite { unit, coder });
                    }
                    *value += 0.0; // −0.0 + 0.0 = 0.0: one zero for equality
                }
            }
        }
        let coders = units.iter().map(Vec::len).max().unwrap_or(0);
        Ok(Self { units, coders })
    }

    /// Data from rows of coders, the layout of Krippendorff (2011): `coders[i][u]` is coder i's
    /// value for unit u.
    pub fn from_coders(coders: &[Vec<Option<f64>>]) -> Result<Self, AgreementError> {
        let unit_count = coders.iter().map(Vec::len).max().unwrap_or(0);
        let units = (0..unit_count)
            .map(|u| {
                coders
                    .iter()
                    .map(|row| row.get(u).copied().flatten())
                    .collect()
            })
            .collect();
        Self::from_units(units)
    }

    /// Data from labels (e.g. code names) in rows of units, for the nominal level, Cohen's and
    /// Fleiss' kappa: each label becomes its index in the returned sorted list of distinct
    /// labels.
    pub fn from_labels<T: Ord + Clone>(units: &[Vec<Option<T>>]) -> (Self, Vec<T>) {
        let mut labels: Vec<T> = units.iter().flatten().flatten().cloned().collect();
        labels.sort();
        labels.dedup();
        let rows: Vec<Vec<Option<f64>>> = units
            .iter()
            .map(|row| {
                row.iter()
                    .map(|slot| {
                        let label = slot.as_ref()?;
                        labels.binary_search(label).ok().map(|i| i as f64)
                    })
                    .collect()
            })
            .collect();
        let coders = rows.iter().map(Vec::len).max().unwrap_or(0);
        (
            Self {
                units: rows,
                coders,
            },
            labels,
        )
    }

    /// The rows of units.
    pub fn units(&self) -> &[Vec<Option<f64>>] {
        &self.units
    }

    /// The number of units (rows), pairable or not.
    pub fn unit_count(&self) -> usize {
        self.units.len()
    }

    /// The number of coder columns (the longest row).
    pub fn coder_count(&self) -> usize {
        self.coders
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds data from the paper's layout: one string per coder, `*` for a missing value.
    pub(crate) fn coders(rows: &[&str]) -> ReliabilityData {
        let rows: Vec<Vec<Option<f64>>> = rows
            .iter()
            .map(|row| row.split_whitespace().map(|v| v.parse().ok()).collect())
            .collect();
        ReliabilityData::from_coders(&rows).unwrap()
    }

    /// Krippendorff (2011), §C and §D: 4 coders × 12 units, values 1–5, 7 gaps.
    pub(crate) fn paper_example() -> ReliabilityData {
        coders(&[
            "1 2 3 3 2 1 4 1 2 * * *",
            "1 2 3 3 2 2 4 1 2 5 * 3",
            "* 3 3 3 2 3 4 2 2 5 1 *",
            "1 2 3 3 2 4 4 1 2 5 1 *",
        ])
    }

    #[test]
    fn refused_values() {
        let nan = ReliabilityData::from_units(vec![vec![Some(1.0), Some(f64::NAN)]]);
        assert_eq!(nan, Err(AgreementError::NonFinite { unit: 0, coder: 1 }));
        let negative = coders(&["-1 2", "-1 3"]);
        assert_eq!(
            alpha(&negative, Level::Ratio),
            Err(AgreementError::NegativeRatio { value: -1.0 })
        );
        assert!(alpha(&negative, Level::Interval).is_ok());
        assert_eq!("Ordinal".parse::<Level>(), Ok(Level::Ordinal));
        assert!("metric".parse::<Level>().is_err());
    }

    #[test]
    fn layouts_agree() {
        let by_coder = coders(&["1 * 3", "-0 2 *"]);
        let by_unit = ReliabilityData::from_units(vec![
            vec![Some(1.0), Some(0.0)],
            vec![None, Some(2.0)],
            vec![Some(3.0)],
        ])
        .unwrap();
        assert_eq!(by_coder.units()[..2], by_unit.units()[..2]);
        assert_eq!(by_coder.units()[2], [Some(3.0), None]);
        assert_eq!((by_coder.unit_count(), by_coder.coder_count()), (3, 2));
        assert_eq!((by_unit.unit_count(), by_unit.coder_count()), (3, 2));
        // −0 is stored as 0, so it equals 0 at every level
        assert!(by_coder.units()[0][1].is_some_and(|v| v.is_sign_positive()));
    }
}
