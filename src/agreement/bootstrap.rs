//! A bootstrap distribution of Krippendorff's alpha ([`bootstrap_alpha`]): a percentile
//! confidence interval and the probability q that alpha falls short of a required minimum, by
//! either of the two [`BootstrapMethod`]s (Krippendorff's own resampling is in `kalpha`). The
//! resampling units are run here, and the blocks of resamples shared among threads.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::kalpha;
use super::krippendorff::{Pairable, expected_disagreement, points_into, unit_disagreement};
use super::{AgreementError, Alpha, Level, ReliabilityData};

/// How [`bootstrap_alpha`] resamples.
///
/// - [`Krippendorff`](Self::Krippendorff) (the default): the algorithm of the KALPHA macro of
///   Hayes & Krippendorff (2007), "Answering the call for a standard reliability measure for
///   coding data" (*Communication Methods and Measures* 1(1), 77–89), which Krippendorff wrote
///   down in "Algorithm for bootstrapping a distribution of α" (manuscript, 2006, revised 2011).
///   Read here from KALPHA's SPSS source (version 3.0, 2011) and two ports that follow the
///   manuscript, Stata's `kalpha` (Klein & Reckmann, 1.3.0) and R's `kripp.boot` (Proutskova &
///   Gruszczynski). Each resample draws M pairs of values with replacement from the observed
///   coincidences, cell {c, k} with probability o_cc/n (c = k) or 2·o_ck/n (c ≠ k) — the pairs
///   of values within units, each weighted 1/(m_u − 1) — and takes α* = 1 − D_o*/D_e, D_o* the
///   mean δ² of the draws and D_e the data's, held fixed. With: (1) M = min(25·Q,
///   round(n·(m − 1)/2)), Q the number of non-zero cells of the coincidence matrix, m the number
///   of coders with a value; (2) α* < −1 set to −1; (3) a resample of agreeing pairs only
///   (α* = 1) may lack variation, α = 1 − 0/0 there, and is set to 0: all of them when the
///   matrix has a single non-zero diagonal cell, else as many as expected, round(R · Σ_c
///   (o_cc/n)^M) of the R resamples. KALPHA 3.0 raises o_cc/n to the number of pairs there, the
///   ports to M as the manuscript does; this module follows the ports. KALPHA also rounds R down
///   to a multiple of 1,000; this module takes R as given. Cost: O(1) a draw (an alias table
///   over the coincidence cells), O(M) a resample.
/// - [`Units`](Self::Units): a cluster bootstrap — the N units resampled with replacement and
///   alpha recomputed from each resample, D_e included (a resample with one distinct value gets
///   α* = 0, as in (3)); α* is not floored at −1. Gwet (2015, "Standard error of Krippendorff's
///   alpha coefficient") and Zapf et al. (2016, *BMC Medical Research Methodology* 16:93) argue
///   that Krippendorff's resampling, which holds D_e and the number of pairs fixed, understates
///   alpha's sampling variance; this one does not. Cost: O(N) draws a resample, then O(P·m) in
///   the P distinct patterns of m values among the units (few for codes) and O(V) in the V
///   distinct values — O(V²) at the ratio level, whose D_e has no shortcut: fine for codes, slow
///   for thousands of distinct measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BootstrapMethod {
    /// Krippendorff's algorithm as Hayes & Krippendorff's KALPHA runs it: M pairs of values drawn
    /// from the coincidences, D_e held fixed.
    #[default]
    Krippendorff,
    /// Units resampled with replacement and alpha recomputed whole.
    Units,
}

/// The settings of [`bootstrap_alpha`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapConfig {
    /// The number R of resamples (≥ 1; default 10,000).
    pub resamples: usize,
    /// The seed of the ChaCha8 generator (default 0): the same seed gives the same result.
    pub seed: u64,
    /// The confidence of the interval, in (0, 1) (default 0.95).
    pub confidence: f64,
    /// How to resample (default [`BootstrapMethod::Krippendorff`]).
    pub method: BootstrapMethod,
    /// Threads to share the resamples (default 0: one per core the system reports). The result
    /// is the same for any number: resamples are made in blocks of 1,000, block b from stream b
    /// of the seeded generator.
    pub threads: usize,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        Self {
            resamples: 10_000,
            seed: 0,
            confidence: 0.95,
            method: BootstrapMethod::Krippendorff,
            threads: 0,
        }
    }
}

/// A bootstrap distribution of alpha and what is read from it.
#[derive(Debug, Clone, PartialEq)]
pub struct AlphaBootstrap {
    /// Alpha of the data themselves.
    pub point: Alpha,
    /// The point estimate, `point.alpha` (always defined here).
    pub alpha: f64,
    /// How it was resampled.
    pub method: BootstrapMethod,
    /// The number R of resamples.
    pub resamples: usize,
    /// Draws per resample: M pairs of values (Krippendorff) or the number of units (Units).
    pub draws: usize,
    /// The interval's confidence.
    pub confidence: f64,
    /// The lower end of the percentile interval.
    pub low: f64,
    /// The upper end of the percentile interval.
    pub high: f64,
    /// q for α_min = 0.667: the share of resamples with α* < 0.667.
    pub below_667: f64,
    /// q for α_min = 0.800: the share of resamples with α* < 0.8.
    pub below_800: f64,
    /// Resamples set to α* = 0 for want of variation (rule (3) of [`BootstrapMethod`]).
    pub no_variation: usize,
    /// The R values α*, sorted.
    distribution: Vec<f64>,
}

impl AlphaBootstrap {
    /// q(α_min): the share of resamples with α* < `alpha_min`.
    pub fn share_below(&self, alpha_min: f64) -> f64 {
        let below = self.distribution.partition_point(|a| *a < alpha_min);
        below as f64 / self.distribution.len() as f64
    }

    /// The resampled alphas α*, in ascending order.
    pub fn distribution(&self) -> &[f64] {
        &self.distribution
    }
}

/// The bootstrap distribution of alpha of `data` at `level`, its percentile interval and
/// q(α < 0.667), q(α < 0.8), by `config.method` (see [`BootstrapMethod`]).
///
/// The interval is KALPHA's percentile one: of the R sorted α*, the ⌊R·(1 − c)/2⌋-th and the
/// (⌊R·(1 + c)/2⌋ + 1)-th (1-based, kept within 1..R) for confidence c — the 250th and the
/// 9,751st of 10,000 at 95 %. q(α_min) is the share of α* < α_min.
///
/// Deterministic: the same data, level and config give the same result, whatever the number of
/// threads. Nothing is allocated per resample.
///
/// Errors: those of [`alpha`](super::alpha()); [`AgreementError::NoVariation`] when alpha itself is
/// undefined; [`AgreementError::InvalidConfig`] for no resamples or a confidence outside (0, 1).
pub fn bootstrap_alpha(
    data: &ReliabilityData,
    level: Level,
    config: &BootstrapConfig,
) -> Result<AlphaBootstrap, AgreementError> {
    if config.resamples == 0 {
        return Err(AgreementError::InvalidConfig {
            reason: "no resamples",
        });
    }
    if !(config.confidence > 0.0 && config.confidence < 1.0) {
        return Err(AgreementError::InvalidConfig {
            reason: "confidence not in (0, 1)",
        });
    }
    let pairable = Pairable::new(data, level)?;
    let (point, points) = pairable.alpha(level);
    let Some(alpha) = point.alpha else {
        return Err(AgreementError::NoVariation);
    };
    let mut distribution = vec![0.0; config.resamples];
    let (draws, no_variation) = match config.method {
        BootstrapMethod::Krippendorff => kalpha::resample(
            &pairable,
            level,
            &points,
            point.expected,
            config,
            &mut distribution,
        ),
        BootstrapMethod::Units => units(&pairable, level, &points, config, &mut distribution),
    };
    distribution.sort_unstable_by(f64::total_cmp);
    let r = distribution.len();
    let tail = (1.0 - config.confidence) / 2.0;
    // 1-based ranks as KALPHA takes them; the 1e-9 keeps 0.975 · 10,000 from flooring to 9,749
    let low = ((tail * r as f64 + 1e-9).floor() as usize).clamp(1, r);
    let high = (((1.0 - tail) * r as f64 + 1e-9).floor() as usize + 1).clamp(1, r);
    let mut result = AlphaBootstrap {
        point,
        alpha,
        method: config.method,
        resamples: r,
        draws,
        confidence: config.confidence,
        low: distribution[low - 1],
        high: distribution[high - 1],
        below_667: 0.0,
        below_800: 0.0,
        no_variation,
        distribution,
    };
    result.below_667 = result.share_below(0.667);
    result.below_800 = result.share_below(0.8);
    Ok(result)
}

/// Resamples per block: block b draws from stream b of the seed, whichever thread runs it.
const BLOCK: usize = 1_000;

/// Runs `work` on `out` in blocks of [`BLOCK`] resamples, each with its own generator, on
/// `config.threads` threads; returns the sum of what `work` returns.
pub(super) fn in_blocks<F>(out: &mut [f64], config: &BootstrapConfig, work: F) -> usize
where
    F: Fn(&mut ChaCha8Rng, &mut [f64]) -> usize + Sync,
{
    let run = |block: usize, chunk: &mut [f64]| {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        rng.set_stream(block as u64);
        work(&mut rng, chunk)
    };
    let blocks = out.len().div_ceil(BLOCK);
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, blocks.max(1));
    if threads == 1 {
        return out
            .chunks_mut(BLOCK)
            .enumerate()
            .map(|(b, chunk)| run(b, chunk))
            .sum();
    }
    let mut shares: Vec<Vec<(usize, &mut [f64])>> = (0..threads).map(|_| Vec::new()).collect();
    for (b, chunk) in out.chunks_mut(BLOCK).enumerate() {
        shares[b % threads].push((b, chunk));
    }
    let run = &run;
    std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| {
                scope.spawn(move || {
                    share
                        .into_iter()
                        .map(|(b, chunk)| run(b, chunk))
                        .sum::<usize>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .sum::<usize>()
    })
}

/// A uniform index in 0..n from one 64-bit draw (Lemire's multiply-shift; bias ≤ n/2⁶⁴).
#[inline]
pub(super) fn index(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// The units bootstrap into `out`; returns (units per resample, resamples set to 0).
///
/// Units with the same multiset of values weigh alike in alpha, so a resample only counts how
/// often each such pattern was drawn.
fn units(
    pairable: &Pairable,
    level: Level,
    points: &[f64],
    config: &BootstrapConfig,
    out: &mut [f64],
) -> (usize, usize) {
    // patterns: each unit's sorted codes, deduplicated
    let mut keyed: Vec<(Vec<u32>, usize)> = pairable
        .unit_codes()
        .enumerate()
        .map(|(u, codes)| {
            let mut sorted = codes.to_vec();
            sorted.sort_unstable();
            (sorted, u)
        })
        .collect();
    keyed.sort_unstable();
    let u = keyed.len();
    let mut pattern_of = vec![0u32; u];
    let mut patterns: Vec<Vec<u32>> = Vec::new();
    for (codes, unit) in keyed {
        if patterns.last() != Some(&codes) {
            patterns.push(codes);
        }
        pattern_of[unit] = (patterns.len() - 1) as u32;
    }
    // n·D_o of each pattern, fixed unless ordinal (whose points move with the marginals)
    let fixed: Vec<f64> = patterns
        .iter()
        .map(|p| unit_disagreement(level, points, p))
        .collect();
    let zeroed = in_blocks(out, config, |rng, chunk| {
        let mut weights = vec![0u32; patterns.len()];
        let mut counts = vec![0.0; pairable.values.len()];
        let mut moving = points.to_vec();
        let mut zeroed = 0;
        for alpha in chunk.iter_mut() {
            weights.fill(0);
            for _ in 0..u {
                weights[pattern_of[index(rng, u)] as usize] += 1;
            }
            counts.fill(0.0);
            // n, and the smallest and largest value drawn (patterns are sorted)
            let (mut n, mut lowest, mut highest) = (0.0, u32::MAX, 0);
            for (pattern, &w) in patterns.iter().zip(&weights) {
                if w > 0 {
                    for &c in pattern {
                        counts[c as usize] += f64::from(w);
                    }
                    n += f64::from(w) * pattern.len() as f64;
                    lowest = lowest.min(pattern[0]);
                    highest = highest.max(pattern[pattern.len() - 1]);
                }
            }
            if lowest == highest {
                *alpha = 0.0;
                zeroed += 1;
                continue;
            }
            let observed: f64 = if level == Level::Ordinal {
                points_into(level, &pairable.values, &counts, &mut moving);
                let drawn = patterns.iter().zip(&weights).filter(|(_, w)| **w > 0);
                drawn
                    .map(|(p, &w)| f64::from(w) * unit_disagreement(level, &moving, p))
                    .sum()
            } else {
                weights
                    .iter()
                    .zip(&fixed)
                    .map(|(&w, d)| f64::from(w) * d)
                    .sum()
            };
            *alpha = 1.0 - observed / n / expected_disagreement(level, &moving, &counts, n);
        }
        zeroed
    });
    (u, zeroed)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{coders, paper_example};
    use super::*;

    /// 400 units × 3 coders of values 1..5: the truth plus noise, some gaps.
    fn synthetic() -> ReliabilityData {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let rows = (0..200)
            .map(|_| {
                let truth = 1 + index(&mut rng, 5) as i64;
                (0..3)
                    .map(|_| {
                        let roll = index(&mut rng, 10);
                        let v = match roll {
                            0 => None,
                            1 => Some(truth + 1),
                            2 => Some(1 + index(&mut rng, 5) as i64),
                            _ => Some(truth),
                        };
                        v.map(|v| v.clamp(1, 5) as f64)
                    })
                    .collect()
            })
            .collect();
        ReliabilityData::from_units(rows).unwrap()
    }

    #[test]
    fn deterministic_for_a_seed_and_around_the_point() {
        let data = synthetic();
        for method in [BootstrapMethod::Krippendorff, BootstrapMethod::Units] {
            for level in Level::ALL {
                let config = BootstrapConfig {
                    resamples: 400,
                    seed: 11,
                    method,
                    ..Default::default()
                };
                let a = bootstrap_alpha(&data, level, &config).unwrap();
                let b = bootstrap_alpha(&data, level, &config).unwrap();
                assert_eq!(a, b);
                assert!(
                    a.low <= a.alpha && a.alpha <= a.high,
                    "{method:?} {level}: {a:?}"
                );
                assert!(a.high - a.low < 0.2, "{method:?} {level}: {a:?}");
                let mean = a.distribution().iter().sum::<f64>() / a.resamples as f64;
                assert!(
                    (mean - a.alpha).abs() < 0.02,
                    "{method:?} {level}: {mean} {a:?}"
                );
                let other = BootstrapConfig { seed: 12, ..config };
                assert_ne!(
                    a.distribution(),
                    bootstrap_alpha(&data, level, &other)
                        .unwrap()
                        .distribution()
                );
                assert!(a.below_667 <= a.below_800);
                assert_eq!(a.share_below(0.8), a.below_800);
                assert_eq!(a.share_below(-2.0), 0.0);
                assert_eq!(a.share_below(2.0), 1.0);
            }
        }
    }

    #[test]
    fn krippendorff_draws_on_the_paper_example() {
        let data = paper_example();
        let config = BootstrapConfig::default();
        let boot = bootstrap_alpha(&data, Level::Nominal, &config).unwrap();
        // Q = 5 diagonal + 2·6 off-diagonal non-zero cells = 17; round(n(m − 1)/2) = 40·3/2 = 60
        assert_eq!(boot.draws, 60);
        assert!((boot.alpha - 0.743).abs() < 5e-4);
        assert!(boot.low < boot.alpha && boot.alpha < boot.high, "{boot:?}");
        assert_eq!(boot.resamples, 10_000);
        // the mean of D_o* is D_o: the mean of α* is α (up to the −1 floor and rule (3))
        let mean = boot.distribution().iter().sum::<f64>() / 10_000.0;
        assert!((mean - boot.alpha).abs() < 0.01, "{mean}");
        assert!(boot.distribution().windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn perfect_agreement_and_errors() {
        // all pairs agree over two values: every α* = 1 but for rule (3): M = min(25·2,
        // round(16·1/2)) = 8 draws, and round(10,000 · 2 · (1/2)⁸) = 78 resamples set to 0
        let data = coders(&["1 1 2 2 1 2 1 2", "1 1 2 2 1 2 1 2"]);
        let boot = bootstrap_alpha(&data, Level::Nominal, &BootstrapConfig::default()).unwrap();
        assert_eq!((boot.draws, boot.no_variation), (8, 78));
        assert_eq!((boot.low, boot.high), (1.0, 1.0));
        assert_eq!(boot.share_below(0.5), 0.0078);
        // tiny data: p_cc^M is not negligible, some resamples are set to 0
        let tiny = coders(&["1 2", "1 2"]);
        let config = BootstrapConfig {
            resamples: 1_000,
            ..Default::default()
        };
        let boot = bootstrap_alpha(&tiny, Level::Nominal, &config).unwrap();
        // M = min(25·2, round(4·1/2)) = 2: P(both draws in one cell) = 2·(1/2)² = 1/2
        assert_eq!((boot.draws, boot.no_variation), (2, 500));
        let units = BootstrapConfig {
            method: BootstrapMethod::Units,
            ..config
        };
        let boot = bootstrap_alpha(&tiny, Level::Nominal, &units).unwrap();
        assert!(
            boot.no_variation > 300 && boot.no_variation < 700,
            "{}",
            boot.no_variation
        );
        let same = coders(&["3 3", "3 3"]);
        let result = bootstrap_alpha(&same, Level::Ordinal, &BootstrapConfig::default());
        assert_eq!(result, Err(AgreementError::NoVariation));
        let none = BootstrapConfig {
            resamples: 0,
            ..Default::default()
        };
        assert!(bootstrap_alpha(&data, Level::Nominal, &none).is_err());
        let wide = BootstrapConfig {
            confidence: 1.0,
            ..Default::default()
        };
        assert!(bootstrap_alpha(&data, Level::Nominal, &wide).is_err());
    }

    #[test]
    fn same_result_on_any_number_of_threads() {
        let data = synthetic();
        for method in [BootstrapMethod::Krippendorff, BootstrapMethod::Units] {
            let config = |threads| BootstrapConfig {
                resamples: 1_500,
                threads,
                method,
                ..Default::default()
            };
            let one = bootstrap_alpha(&data, Level::Interval, &config(1)).unwrap();
            for threads in [2, 0] {
                assert_eq!(
                    one,
                    bootstrap_alpha(&data, Level::Interval, &config(threads)).unwrap()
                );
            }
        }
    }

    #[test]
    fn a_units_resample_is_alpha_of_the_units_drawn() {
        // the pairable units only, so the bootstrap's unit indices are the rows'
        let rows: Vec<Vec<Option<f64>>> = (synthetic().units().iter())
            .filter(|row| row.iter().flatten().count() >= 2)
            .cloned()
            .collect();
        let data = ReliabilityData::from_units(rows.clone()).unwrap();
        for seed in 0..3 {
            for level in Level::ALL {
                let config = BootstrapConfig {
                    resamples: 1,
                    seed,
                    method: BootstrapMethod::Units,
                    ..Default::default()
                };
                let boot = bootstrap_alpha(&data, level, &config).unwrap();
                // block 0's generator, drawing the units as the bootstrap does
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(0);
                let drawn: Vec<_> = (0..rows.len())
                    .map(|_| rows[index(&mut rng, rows.len())].clone())
                    .collect();
                let direct =
                    super::super::alpha(&ReliabilityData::from_units(drawn).unwrap(), level)
                        .unwrap();
                let resampled = boot.distribution()[0];
                assert!(
                    (resampled - direct.alpha.unwrap()).abs() < 1e-12,
                    "{level}: {resampled} {direct:?}"
                );
            }
        }
    }
}
