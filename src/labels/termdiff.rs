//! Term differences of judged pairs (henzinger §3.2, Figures 2 and 4): two token sequences in,
//! the number of tokens a `diff` of them reports out, and the distribution over a sample.
//!
//! "To determine the term difference of a pair we executed the Linux `diff` command over the
//! two token sequences and used the number of tokens that were returned": the tokens deleted
//! from the first page plus the tokens inserted into the second. We diff with `similar`'s Myers
//! algorithm under a deadline, so a pathological pair cannot stall the workbench (past the
//! deadline the diff is still correct, only perhaps not minimal).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffTag, capture_diff_slices_deadline};

use super::Verdict;
use crate::Result;
use crate::store::runs::Page;
use crate::store::{PageId, Project, SampleId};

/// How long one pair's diff may take before it settles for a non-minimal answer.
pub const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// Tokens deleted from `a` plus tokens inserted into `b`.
pub fn term_difference<T: AsRef<str>>(a: &[T], b: &[T]) -> usize {
    let a: Vec<&str> = a.iter().map(AsRef::as_ref).collect();
    let b: Vec<&str> = b.iter().map(AsRef::as_ref).collect();
    let deadline = Instant::now() + DIFF_DEADLINE;
    capture_diff_slices_deadline(Algorithm::Myers, &a, &b, Some(deadline))
        .iter()
        .map(|op| {
            let (tag, old, new) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => 0,
                DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => old.len() + new.len(),
            }
        })
        .sum()
}

/// The distribution of term differences in a sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TermDiffDistribution {
    /// Term difference -> number of pairs, per verdict (unjudged pairs under none).
    pub counts: BTreeMap<u64, BTreeMap<Option<Verdict>, u64>>,
    /// Number of pairs.
    pub pairs: u64,
    /// Mean term difference.
    pub mean: f64,
    /// Median term difference.
    pub median: u64,
}

impl TermDiffDistribution {
    /// The distribution of `(term difference, verdict)` values.
    pub fn from_pairs(values: &[(u64, Option<Verdict>)]) -> Self {
        let mut out = TermDiffDistribution::default();
        if values.is_empty() {
            return out;
        }
        for (d, v) in values {
            *out.counts.entry(*d).or_default().entry(*v).or_default() += 1;
        }
        let mut sorted: Vec<u64> = values.iter().map(|(d, _)| *d).collect();
        sorted.sort_unstable();
        out.pairs = sorted.len() as u64;
        out.mean = sorted.iter().map(|&d| d as f64).sum::<f64>() / sorted.len() as f64;
        out.median = sorted[(sorted.len() - 1) / 2];
        out
    }

    /// The fraction of pairs with a term difference below `limit` (her "90 % had a term
    /// difference less than 42").
    pub fn share_below(&self, limit: u64) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        let below: u64 = self
            .counts
            .range(..limit)
            .flat_map(|(_, per)| per.values())
            .sum();
        below as f64 / self.pairs as f64
    }
}

/// The term difference of one sampled pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairTermDifference {
    /// The pair's position in the sample.
    pub position: u32,
    /// Its term difference; none when a page could not be re-read from its archive.
    pub difference: Option<u64>,
}

/// Term differences of every pair of a sample: both pages are re-read from their archives by
/// their stored record location and tokenized as in henzinger §2
/// ([`crate::token::henzinger`]; bytes decoded as UTF-8 with replacement, which leaves her
/// alphanumeric terms of ASCII pages intact). A page that cannot be re-read gives none.
pub fn sample_term_differences(
    project: &Project,
    sample: SampleId,
) -> Result<Vec<PairTermDifference>> {
    let mut tokens: BTreeMap<PageId, Option<Vec<String>>> = BTreeMap::new();
    let mut terms_of = |page: &Page| -> Option<Vec<String>> {
        tokens
            .entry(page.id)
            .or_insert_with(|| {
                let location = project.locate(page).ok()?;
                let bytes = crate::archive::read_raw(&location).ok()?;
                let html = String::from_utf8_lossy(&bytes);
                Some(crate::token::henzinger::terms(
                    &html,
                    page.identity.url.as_deref(),
                ))
            })
            .clone()
    };
    let mut out = Vec::new();
    for pair in project.sample_pairs(sample)? {
        let a = terms_of(&pair.a);
        let b = terms_of(&pair.b);
        out.push(PairTermDifference {
            position: pair.position,
            difference: match (a, b) {
                (Some(a), Some(b)) => Some(term_difference(&a, &b) as u64),
                _ => None,
            },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_token_counts_twice_like_diff() {
        let a = ["the", "page", "at", "10", "am"];
        let b = ["the", "page", "at", "11", "am"];
        assert_eq!(term_difference(&a, &b), 2);
        assert_eq!(term_difference(&a, &a), 0);
        let c = ["the", "page", "at", "10", "am", "extra", "words"];
        assert_eq!(term_difference(&a, &c), 2);
    }

    #[test]
    fn distribution_mean_median_share() {
        let d = TermDiffDistribution::from_pairs(&[
            (2, Some(Verdict::Correct)),
            (2, Some(Verdict::Correct)),
            (10, Some(Verdict::Incorrect)),
            (300, None),
        ]);
        assert_eq!(d.pairs, 4);
        assert_eq!(d.median, 2);
        assert!((d.mean - 78.5).abs() < 1e-9);
        assert!((d.share_below(42) - 0.75).abs() < 1e-9);
        assert_eq!(d.counts[&2][&Some(Verdict::Correct)], 2);
    }
}
