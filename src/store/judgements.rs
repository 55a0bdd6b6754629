//! What a person decides about a pair and how pairs were drawn for them: the data of the
//! labels and samples a project file holds. [`crate::labels`] computes with these (sampling,
//! precision, agreement) and re-exports them; they live here so that the store never imports
//! the labels module (one direction: labels → store).

use serde::{Deserialize, Serialize};

use super::runs::ScoredPair;
use crate::Error;

/// A judgement of a pair (henzinger §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The two pages are near-duplicates.
    Correct,
    /// They are not.
    Incorrect,
    /// Cannot be decided (prefilled forms, a different minor item, cannot evaluate).
    Undecided,
}

impl Verdict {
    /// All verdicts, in display order.
    pub const ALL: [Verdict; 3] = [Verdict::Correct, Verdict::Incorrect, Verdict::Undecided];

    /// The name stored and exported.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Incorrect => "incorrect",
            Verdict::Undecided => "undecided",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Verdict {
    type Err = Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "correct" | "c" | "yes" | "y" => Ok(Verdict::Correct),
            "incorrect" | "i" | "no" | "n" => Ok(Verdict::Incorrect),
            "undecided" | "u" | "?" => Ok(Verdict::Undecided),
            _ => Err(Error::InvalidParameter(format!(
                "unknown verdict {s:?} (expected correct, incorrect or undecided)"
            ))),
        }
    }
}

/// Why a pair got its verdict: the difference categories of henzinger Tables 3 and 6 (for
/// correct pairs) and the undecided reasons of Tables 4 and 7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The pages differ only in (part of) their URL, e.g. parked domains.
    UrlOnly,
    /// Only a time stamp differs.
    TimeStamp,
    /// Only a session id differs.
    SessionId,
    /// Only an execution time differs.
    ExecutionTime,
    /// Only a message id differs.
    MessageId,
    /// Only a visitor count differs.
    VisitorCount,
    /// Prefilled forms with different, erasable values.
    PrefilledForm,
    /// A different minor item, like a text box on the side.
    DifferentMinorItem,
    /// The pair could not be evaluated.
    CannotEvaluate,
    /// Anything else (say what in the note).
    Other,
}

impl Reason {
    /// All reasons, in display order.
    pub const ALL: [Reason; 10] = [
        Reason::UrlOnly,
        Reason::TimeStamp,
        Reason::SessionId,
        Reason::ExecutionTime,
        Reason::MessageId,
        Reason::VisitorCount,
        Reason::PrefilledForm,
        Reason::DifferentMinorItem,
        Reason::CannotEvaluate,
        Reason::Other,
    ];

    /// The name stored and exported.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::UrlOnly => "url_only",
            Reason::TimeStamp => "time_stamp",
            Reason::SessionId => "session_id",
            Reason::ExecutionTime => "execution_time",
            Reason::MessageId => "message_id",
            Reason::VisitorCount => "visitor_count",
            Reason::PrefilledForm => "prefilled_form",
            Reason::DifferentMinorItem => "different_minor_item",
            Reason::CannotEvaluate => "cannot_evaluate",
            Reason::Other => "other",
        }
    }

    /// A label for people ("URL only", ...).
    pub fn title(self) -> &'static str {
        match self {
            Reason::UrlOnly => "URL only",
            Reason::TimeStamp => "time stamp",
            Reason::SessionId => "session id",
            Reason::ExecutionTime => "execution time",
            Reason::MessageId => "message id",
            Reason::VisitorCount => "visitor count",
            Reason::PrefilledForm => "prefilled form",
            Reason::DifferentMinorItem => "different minor item",
            Reason::CannotEvaluate => "cannot evaluate",
            Reason::Other => "other",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Reason {
    type Err = Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        let wanted = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        Reason::ALL
            .into_iter()
            .find(|r| r.as_str() == wanted)
            .ok_or_else(|| {
                let names: Vec<_> = Reason::ALL.iter().map(|r| r.as_str()).collect();
                Error::InvalidParameter(format!(
                    "unknown reason {s:?} (expected one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// One decision on a pair: verdict, optional reason, free note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelInput {
    /// Correct, incorrect or undecided.
    pub verdict: Verdict,
    /// Why, from the paper's categories.
    pub reason: Option<Reason>,
    /// Anything the annotator wants to add.
    pub note: String,
}

impl LabelInput {
    /// A verdict with no reason or note.
    pub fn new(verdict: Verdict) -> Self {
        LabelInput {
            verdict,
            reason: None,
            note: String::new(),
        }
    }

    /// The same with a reason.
    pub fn because(mut self, reason: Reason) -> Self {
        self.reason = Some(reason);
        self
    }
}

/// How to draw a sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum SamplePlan {
    /// `size` pairs uniformly at random (all of them when the run has fewer).
    Uniform {
        /// How many pairs.
        size: usize,
    },
    /// Up to `per_stratum` pairs from every similarity band (and site relation).
    Stratified {
        /// Band edges, ascending: bands are `[e0, e1)`, `[e1, e2)`, …, the last one closed.
        /// Pairs outside every band are not sampled. Empty: one band holding every score.
        edges: Vec<f64>,
        /// Pairs to draw per stratum.
        per_stratum: usize,
        /// Split each band into same-site and different-site pairs (henzinger §3.2).
        split_by_site: bool,
    },
}

impl SamplePlan {
    /// `uniform` or `stratified`.
    pub fn method(&self) -> &'static str {
        match self {
            SamplePlan::Uniform { .. } => "uniform",
            SamplePlan::Stratified { .. } => "stratified",
        }
    }
}

/// One stratum of a sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stratum {
    /// Its name, e.g. `0.8-0.9 same-site`.
    pub name: String,
    /// Lower score edge (inclusive), none when unbounded.
    pub lo: Option<f64>,
    /// Upper score edge (exclusive, inclusive for the last band), none when unbounded.
    pub hi: Option<f64>,
    /// Same site (true), different sites (false), not split or unknown (none).
    pub same_site: Option<bool>,
    /// How many of the run's pairs fall into it.
    pub population: u64,
    /// How many were drawn.
    pub drawn: u64,
}

/// A drawn pair and its stratum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrawnPair {
    /// The pair and its score.
    pub pair: ScoredPair,
    /// The name of its [`Stratum`].
    pub stratum: String,
}

/// A sample: the plan, the seed, the pairs in reviewing order and the strata sorted by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrawnSample {
    /// The plan it was drawn with.
    pub plan: SamplePlan,
    /// The seed.
    pub seed: u64,
    /// The pairs, shuffled into reviewing order.
    pub pairs: Vec<DrawnPair>,
    /// The strata.
    pub strata: Vec<Stratum>,
    /// Pairs of the run outside every band: they could not be drawn, and the estimate says
    /// nothing about them.
    #[serde(default)]
    pub left_out: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in Verdict::ALL {
            assert_eq!(v.as_str().parse::<Verdict>().unwrap(), v);
        }
        for r in Reason::ALL {
            assert_eq!(r.as_str().parse::<Reason>().unwrap(), r);
            assert_eq!(r.title().parse::<Reason>().unwrap(), r);
        }
        assert!("maybe".parse::<Verdict>().is_err());
        assert!("weather".parse::<Reason>().is_err());
    }
}
