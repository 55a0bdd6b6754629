//! Numbers from labels: judged pairs in, precision with confidence intervals and agreement
//! between annotators out.
//!
//! - Precision follows henzinger §3.2–3.3: the fraction of judged pairs that are *correct*;
//!   undecided pairs count in the denominator (her "overall precision"), and their share is
//!   reported next to it.
//! - [`wilson`]: the Wilson score interval, which behaves at 0 / n and n / n where the normal
//!   interval collapses.
//! - [`stratified_precision`]: per stratum a Wilson interval; overall the stratum precisions
//!   weighted by each stratum's share of the run's pairs (`N_h / N`), that is each judged pair
//!   weighted by its inverse inclusion probability `N_h / n_h`, and a Wilson interval at Kish's
//!   effective sample size `(Σw)² / Σw²` (Kish 1965, the design effect of weighting). That is
//!   the threshold curve's interval too, so the headline and the curve agree on the same pairs,
//!   and a sample of one stratum gets exactly that stratum's Wilson interval. Wilson rather than
//!   a normal interval on `Σ W_h² p_h (1 − p_h) / n_h`, which is 0 for strata judged all
//!   correct. Kish's size ignores what stratification gains, so the interval errs wide; no
//!   finite-population correction is made. Strata with no judged pair are left out of the
//!   weights and listed, so the estimate says what it covers.
//! - [`threshold_curve`]: precision and relative recall against the threshold, for the P/R plot
//!   when an archive has no gold clusters (henzinger §3.5's R, Figure 7 and Table 11).
//! - [`cohen_kappa`]: agreement of two annotators beyond chance, and the pairs to settle.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::Verdict;
use super::sample::Stratum;
use crate::store::samples::{LabelRecord, Settlement};

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A proportion with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The point estimate.
    pub estimate: f64,
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

/// Wilson score interval of `successes` out of `n` (none when `n` is 0).
pub fn wilson(successes: u64, n: u64, z: f64) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    Some(wilson_p(successes as f64 / n as f64, n as f64, z))
}

/// Wilson interval for proportion `p` at (possibly effective, fractional) sample size `n > 0`.
fn wilson_p(p: f64, n: f64, z: f64) -> Interval {
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At p = 0 and p = 1 the bound is exactly 0 or 1; say so rather than 0.999…
    Interval {
        estimate: p,
        lo: if p <= 0.0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        hi: if p >= 1.0 {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    }
}

/// Counts of verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCounts {
    /// Correct pairs.
    pub correct: u64,
    /// Incorrect pairs.
    pub incorrect: u64,
    /// Undecided pairs.
    pub undecided: u64,
}

impl VerdictCounts {
    /// Count one verdict.
    pub fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Correct => self.correct += 1,
            Verdict::Incorrect => self.incorrect += 1,
            Verdict::Undecided => self.undecided += 1,
        }
    }

    /// All judged pairs.
    pub fn judged(&self) -> u64 {
        self.correct + self.incorrect + self.undecided
    }
}

/// The estimate for one stratum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StratumEstimate {
    /// The stratum's name.
    pub name: String,
    /// Pairs of the run in it.
    pub population: u64,
    /// Verdicts of its judged pairs.
    pub counts: VerdictCounts,
    /// Precision with its Wilson interval; none with no judged pair.
    pub precision: Option<Interval>,
}

/// Precision of a run estimated from a sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrecisionEstimate {
    /// Per stratum, by name.
    pub strata: Vec<StratumEstimate>,
    /// All strata together, weighted by population; none with no judged pair.
    pub overall: Option<Interval>,
    /// Verdicts over all judged pairs (unweighted).
    pub counts: VerdictCounts,
    /// Strata with pairs in the run but no judged pair (not covered by `overall`).
    pub uncovered: Vec<String>,
}

/// Estimate precision from `judged` (stratum name, verdict) pairs of a sample with `strata`.
/// Judgements in a stratum that is not listed are counted in a stratum of their own whose
/// population is its number of judged pairs.
pub fn stratified_precision(
    strata: &[Stratum],
    judged: &[(String, Verdict)],
    z: f64,
) -> PrecisionEstimate {
    let mut counts: BTreeMap<&str, VerdictCounts> = BTreeMap::new();
    let mut all = VerdictCounts::default();
    for (name, v) in judged {
        counts.entry(name.as_str()).or_default().add(*v);
        all.add(*v);
    }
    let mut populations: BTreeMap<&str, u64> = strata
        .iter()
        .map(|s| (s.name.as_str(), s.population))
        .collect();
    for (name, c) in &counts {
        populations.entry(name).or_insert(c.judged());
    }
    let mut out = Vec::new();
    let mut uncovered = Vec::new();
    let covered: u64 = populations
        .iter()
        .filter(|(n, _)| counts.get(*n).is_some_and(|c| c.judged() > 0))
        .map(|(_, p)| *p)
        .sum();
    // Each judged pair stands for `population / judged` pairs of its stratum; the interval is
    // Wilson's at Kish's effective sample size (Σw)² / Σw², as the threshold curve's
    // ([`threshold_curve`]), so one stratum gets exactly its own Wilson interval and the
    // headline equals the curve's point that holds every judged pair.
    let (mut w_all, mut w_correct, mut w_sq) = (0.0, 0.0, 0.0);
    for (name, population) in &populations {
        let c = counts.get(name).copied().unwrap_or_default();
        let n = c.judged();
        if n == 0 {
            if *population > 0 {
                uncovered.push(name.to_string());
            }
        } else if covered > 0 {
            let w = *population as f64 / n as f64;
            w_all += w * n as f64;
            w_sq += w * w * n as f64;
            w_correct += w * c.correct as f64;
        }
        out.push(StratumEstimate {
            name: name.to_string(),
            population: *population,
            counts: c,
            precision: wilson(c.correct, n, z),
        });
    }
    let overall = (all.judged() > 0 && w_all > 0.0).then(|| {
        let n_eff = (w_all * w_all / w_sq).max(1.0);
        wilson_p((w_correct / w_all).clamp(0.0, 1.0), n_eff, z)
    });
    PrecisionEstimate {
        strata: out,
        overall,
        counts: all,
        uncovered,
    }
}

/// The verdict that counts for each pair of a sample.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolved {
    /// Position -> verdict.
    pub verdicts: BTreeMap<u32, Verdict>,
    /// Positions whose annotators disagree and that nobody settled (left out of `verdicts`).
    pub unsettled: Vec<u32>,
}

/// Decide each pair's verdict: with `annotator`, that person's label only; else a settlement
/// wins, and without one the annotators' common verdict when they all agree.
pub fn resolve(
    labels: &[LabelRecord],
    settlements: &[Settlement],
    annotator: Option<&str>,
) -> Resolved {
    let mut by_pos: BTreeMap<u32, BTreeSet<Verdict>> = BTreeMap::new();
    for l in labels {
        if annotator.is_none_or(|a| a == l.annotator) {
            by_pos
                .entry(l.position)
                .or_default()
                .insert(l.label.verdict);
        }
    }
    let mut out = Resolved::default();
    // Settlements are the team's decision, not one annotator's: counting only `annotator`
    // leaves them out.
    let settlements = if annotator.is_some() {
        &[][..]
    } else {
        settlements
    };
    for (pos, verdicts) in by_pos {
        if verdicts.len() == 1 {
            out.verdicts.extend(verdicts.first().map(|v| (pos, *v)));
        } else {
            out.unsettled.push(pos);
        }
    }
    for s in settlements {
        out.verdicts.insert(s.position, s.label.verdict);
    }
    out.unsettled
        .retain(|p| !settlements.iter().any(|s| s.position == *p));
    out
}

/// A pair two annotators judged differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disagreement {
    /// The pair's position, from 0; written and read from 1, as every position a person or a
    /// script sees (`label --settle POS=…`, the exports).
    #[serde(with = "one_based")]
    pub position: u32,
    /// The first annotator's verdict.
    pub first: Verdict,
    /// The second annotator's verdict.
    pub second: Verdict,
}

/// A 0-based position as the 1-based number people and scripts use.
mod one_based {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(p: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::from(*p) + 1)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let n = u32::deserialize(d)?;
        n.checked_sub(1)
            .ok_or_else(|| serde::de::Error::custom("positions start at 1"))
    }
}

/// Agreement of two annotators on the pairs both judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Pairs both judged.
    pub items: u64,
    /// Observed agreement.
    pub observed: f64,
    /// Agreement expected by chance from each annotator's verdict shares.
    pub expected: f64,
    /// Cohen's kappa; none when chance agreement is 1 (both used one and the same verdict
    /// only) or nothing was judged by both.
    pub kappa: Option<f64>,
    /// The pairs they disagree on, by position.
    pub disagreements: Vec<Disagreement>,
}

/// Cohen's kappa between annotators `first` and `second` over the pairs both labelled.
pub fn cohen_kappa(labels: &[LabelRecord], first: &str, second: &str) -> Agreement {
    let of = |who: &str| -> BTreeMap<u32, Verdict> {
        labels
            .iter()
            .filter(|l| l.annotator == who)
            .map(|l| (l.position, l.label.verdict))
            .collect()
    };
    let (a, b) = (of(first), of(second));
    let mut items = 0u64;
    let mut agree = 0u64;
    let mut margin_a = [0u64; 3];
    let mut margin_b = [0u64; 3];
    let mut disagreements = Vec::new();
    let idx = |v: Verdict| Verdict::ALL.iter().position(|x| *x == v).unwrap_or(0);
    for (pos, va) in &a {
        let Some(vb) = b.get(pos) else { continue };
        items += 1;
        margin_a[idx(*va)] += 1;
        margin_b[idx(*vb)] += 1;
        if va == vb {
            agree += 1;
        } else {
            disagreements.push(Disagreement {
                position: *pos,
                first: *va,
                second: *vb,
            });
        }
    }
    if items == 0 {
        return Agreement {
            items,
            observed: 0.0,
            expected: 0.0,
            kappa: None,
            disagreements,
        };
    }
    let n = items as f64;
    let observed = agree as f64 / n;
    let expected: f64 = (0..3)
        .map(|k| (margin_a[k] as f64 / n) * (margin_b[k] as f64 / n))
        .sum();
    let kappa = ((1.0 - expected).abs() > 1e-12).then(|| (observed - expected) / (1.0 - expected));
    Agreement {
        items,
        observed,
        expected,
        kappa,
        disagreements,
    }
}

/// Agreement of three or more annotators: Fleiss' kappa (Fleiss 1971, "Measuring nominal
/// scale agreement among many raters") over the pairs every one of them judged, so each item
/// has the same number of ratings as the statistic assumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleissAgreement {
    /// The annotators.
    pub annotators: Vec<String>,
    /// Pairs all of them judged.
    pub items: u64,
    /// Mean observed agreement over those pairs (P̄).
    pub observed: f64,
    /// Agreement expected by chance from the pooled verdict shares (P̄e).
    pub expected: f64,
    /// Fleiss' kappa; none when no pair was judged by all, or chance agreement is 1.
    pub kappa: Option<f64>,
}

/// Fleiss' kappa over the pairs judged by every annotator in `labels` (their current labels).
pub fn fleiss_kappa(labels: &[LabelRecord]) -> FleissAgreement {
    let mut by_pos: BTreeMap<u32, BTreeMap<&str, Verdict>> = BTreeMap::new();
    let mut annotators: BTreeSet<&str> = BTreeSet::new();
    for l in labels {
        annotators.insert(&l.annotator);
        by_pos
            .entry(l.position)
            .or_default()
            .insert(&l.annotator, l.label.verdict);
    }
    let raters = annotators.len();
    let idx = |v: Verdict| Verdict::ALL.iter().position(|x| *x == v).unwrap_or(0);
    let mut totals = [0u64; 3];
    let mut p_sum = 0.0;
    let mut items = 0u64;
    for verdicts in by_pos.values().filter(|v| v.len() == raters && raters >= 2) {
        let mut counts = [0u64; 3];
        for v in verdicts.values() {
            counts[idx(*v)] += 1;
        }
        let n = raters as f64;
        let agree: f64 = counts
            .iter()
            .map(|&c| (c * c.saturating_sub(1)) as f64)
            .sum();
        p_sum += agree / (n * (n - 1.0));
        for k in 0..3 {
            totals[k] += counts[k];
        }
        items += 1;
    }
    let names = annotators.iter().map(|a| a.to_string()).collect();
    if items == 0 {
        return FleissAgreement {
            annotators: names,
            items,
            observed: 0.0,
            expected: 0.0,
            kappa: None,
        };
    }
    let all = (items * raters as u64) as f64;
    let expected: f64 = totals.iter().map(|&t| (t as f64 / all).powi(2)).sum();
    let observed = p_sum / items as f64;
    let kappa = ((1.0 - expected).abs() > 1e-12).then(|| (observed - expected) / (1.0 - expected));
    FleissAgreement {
        annotators: names,
        items,
        observed,
        expected,
        kappa,
    }
}

/// One point of the labels-based precision / recall curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThresholdPoint {
    /// The score threshold.
    pub threshold: f64,
    /// Judged pairs at or above it.
    pub judged: u64,
    /// Estimated precision of the pairs at or above it; none with no judged pair.
    pub precision: Option<Interval>,
    /// Estimated share of all correct pairs (at the run's own threshold) that are still at or
    /// above it: henzinger §3.5's "R", a recall relative to the run, for want of true recall.
    pub relative_recall: Option<f64>,
}

/// Precision and relative recall against the threshold from judged pairs, for the P/R plot of an
/// archive without gold clusters. `judged` holds (score, stratum, verdict); each judged pair
/// stands for `population / judged` pairs of its stratum (its inverse inclusion probability),
/// so stratified samples give unbiased curves. Intervals are Wilson at Kish's effective sample
/// size `(Σw)² / Σw²`.
pub fn threshold_curve(
    strata: &[Stratum],
    judged: &[(f64, String, Verdict)],
    thresholds: &[f64],
    z: f64,
) -> Vec<ThresholdPoint> {
    let mut per_stratum: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, s, _) in judged {
        *per_stratum.entry(s.as_str()).or_default() += 1;
    }
    let weight = |stratum: &str| -> f64 {
        let n = per_stratum.get(stratum).copied().unwrap_or(1).max(1) as f64;
        match strata.iter().find(|s| s.name == stratum) {
            Some(s) if s.population > 0 => s.population as f64 / n,
            _ => 1.0,
        }
    };
    let correct_total: f64 = judged
        .iter()
        .filter(|(_, _, v)| *v == Verdict::Correct)
        .map(|(_, s, _)| weight(s))
        .sum();
    thresholds
        .iter()
        .map(|&t| {
            let (mut w_all, mut w_correct, mut w_sq, mut n) = (0.0, 0.0, 0.0, 0u64);
            for (_, s, v) in judged.iter().filter(|(score, _, _)| *score >= t) {
                let w = weight(s);
                w_all += w;
                w_sq += w * w;
                n += 1;
                if *v == Verdict::Correct {
                    w_correct += w;
                }
            }
            let precision = (n > 0 && w_all > 0.0).then(|| {
                let n_eff = (w_all * w_all / w_sq).max(1.0);
                wilson_p(w_correct / w_all, n_eff, z)
            });
            ThresholdPoint {
                threshold: t,
                judged: n,
                precision,
                relative_recall: (correct_total > 0.0).then(|| w_correct / correct_total),
            }
        })
        .collect()
}

/// A threshold a researcher can defend from judged pairs: the lowest threshold of `curve`
/// whose precision interval's lower bound reaches `target`. Pairs at or above it are what a
/// run at that threshold keeps, so the bound is the precision claim for such a run. `None`
/// when no point qualifies. Undecided pairs count as not correct, as everywhere in these
/// estimates.
pub fn recommend_threshold(curve: &[ThresholdPoint], target: f64) -> Option<&ThresholdPoint> {
    curve
        .iter()
        .filter(|p| p.precision.is_some_and(|i| i.lo >= target))
        .min_by(|a, b| a.threshold.total_cmp(&b.threshold))
}

/// The thresholds at which a curve of `judged` pairs changes: their distinct scores, ascending.
pub fn judged_scores(judged: &[(f64, String, Verdict)]) -> Vec<f64> {
    let mut t: Vec<f64> = judged.iter().map(|(s, _, _)| *s).collect();
    t.sort_by(f64::total_cmp);
    t.dedup();
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_textbook_values() {
        // 8 of 10 at 95 %: Wilson interval 0.4902 .. 0.9433 (Newcombe 1998, method 3).
        let i = wilson(8, 10, Z95).unwrap();
        assert!((i.lo - 0.4902).abs() < 1e-3, "{i:?}");
        assert!((i.hi - 0.9433).abs() < 1e-3, "{i:?}");
        let zero = wilson(0, 20, Z95).unwrap();
        assert_eq!(zero.lo, 0.0);
        assert!(zero.hi > 0.1 && zero.hi < 0.2);
        assert!(wilson(0, 0, Z95).is_none());
    }

    #[test]
    fn threshold_curve_weights_by_inclusion_probability() {
        let strata = [
            Stratum {
                name: "low".into(),
                lo: Some(0.5),
                hi: Some(0.8),
                same_site: None,
                population: 80,
                drawn: 2,
            },
            Stratum {
                name: "high".into(),
                lo: Some(0.8),
                hi: Some(1.0),
                same_site: None,
                population: 20,
                drawn: 2,
            },
        ];
        let judged = [
            (0.6, "low".to_string(), Verdict::Incorrect),
            (0.7, "low".to_string(), Verdict::Correct),
            (0.85, "high".to_string(), Verdict::Correct),
            (0.95, "high".to_string(), Verdict::Correct),
        ];
        let curve = threshold_curve(&strata, &judged, &[0.5, 0.8, 0.99], Z95);
        // Weights: low pairs 40 each, high pairs 10 each. At 0.5: (40 + 20) / 100 correct.
        let p = curve[0].precision.unwrap();
        assert!((p.estimate - 0.6).abs() < 1e-12);
        assert_eq!(curve[0].relative_recall, Some(1.0));
        assert_eq!(curve[1].precision.unwrap().estimate, 1.0);
        assert!((curve[1].relative_recall.unwrap() - 20.0 / 60.0).abs() < 1e-12);
        assert_eq!((curve[2].judged, curve[2].precision), (0, None));
    }

    #[test]
    fn the_headline_interval_is_the_strata_and_the_curves() {
        let stratum = |name: &str, population| Stratum {
            name: name.into(),
            lo: None,
            hi: None,
            same_site: None,
            population,
            drawn: 10,
        };
        // One stratum, 7 of 10 correct: the headline is that stratum's Wilson interval.
        let judged: Vec<(String, Verdict)> = (0..10)
            .map(|i| {
                (
                    "all".into(),
                    if i < 7 {
                        Verdict::Correct
                    } else {
                        Verdict::Incorrect
                    },
                )
            })
            .collect();
        let one = stratified_precision(&[stratum("all", 592)], &judged, Z95);
        let wilson_7_10 = wilson(7, 10, Z95).unwrap();
        let overall = one.overall.unwrap();
        assert!((overall.lo - wilson_7_10.lo).abs() < 1e-12, "{overall:?}");
        assert!((overall.hi - wilson_7_10.hi).abs() < 1e-12, "{overall:?}");
        assert_eq!(one.strata[0].precision, Some(wilson_7_10));

        // Two strata of unequal weight, every pair correct: the headline is the curve's point
        // that holds every judged pair, and a stratum judged all correct is not certain.
        let strata = [stratum("low", 500), stratum("high", 20)];
        let mut scored: Vec<(f64, String, Verdict)> = Vec::new();
        for i in 0..6 {
            scored.push((0.2 + i as f64 * 0.01, "low".into(), Verdict::Correct));
        }
        for i in 0..15 {
            scored.push((0.8 + i as f64 * 0.01, "high".into(), Verdict::Correct));
        }
        let judged: Vec<(String, Verdict)> =
            scored.iter().map(|(_, s, v)| (s.clone(), *v)).collect();
        let headline = stratified_precision(&strata, &judged, Z95).overall.unwrap();
        let curve = threshold_curve(&strata, &scored, &[0.0], Z95);
        let point = curve[0].precision.unwrap();
        assert_eq!(curve[0].judged, 21);
        assert!(
            (headline.lo - point.lo).abs() < 1e-12,
            "{headline:?} {point:?}"
        );
        assert_eq!((headline.estimate, headline.hi), (1.0, 1.0));
        assert!(
            headline.lo < wilson(21, 21, Z95).unwrap().lo,
            "{headline:?}"
        );
    }

    #[test]
    fn the_recommended_threshold_is_the_lowest_from_which_the_bound_holds() {
        let strata = vec![Stratum {
            name: "all".into(),
            lo: None,
            hi: None,
            same_site: None,
            population: 60,
            drawn: 60,
        }];
        // 20 wrong pairs just above 0.2, 40 right ones from 0.5 up.
        let mut judged: Vec<(f64, String, Verdict)> = Vec::new();
        for i in 0..20 {
            judged.push((0.2 + i as f64 * 0.001, "all".into(), Verdict::Incorrect));
        }
        for i in 0..40 {
            judged.push((0.5 + i as f64 * 0.01, "all".into(), Verdict::Correct));
        }
        let curve = threshold_curve(&strata, &judged, &judged_scores(&judged), Z95);
        let t = recommend_threshold(&curve, 0.9).expect("a threshold");
        assert!((t.threshold - 0.5).abs() < 1e-9, "{t:?}");
        assert!(t.precision.unwrap().lo >= 0.9);
        assert!(recommend_threshold(&curve, 0.999).is_none());
    }
}
