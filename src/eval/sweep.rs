//! Sweeps: a prepared collection, a base run, thresholds and seeds in; one row per threshold with
//! the mean and standard deviation of every metric over the seeds out.
//!
//! The Workbench paper averages randomized (Incremental) runs over three orders (§5.2); here every
//! (threshold, seed) run is an independent job on the rayon pool. Each run is sequential and
//! seeded, and results are gathered in job order, so the table is identical whatever the number
//! of threads. Modes without randomness ([`crate::matching::Mode::Full`]) run once per threshold.

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::metrics::{Metrics, Prf, evaluate, impure_clusters};
use crate::detectors::{Prepared, RunSpec};
use crate::matching::{Mode, gold_seeds};
use crate::progress::Progress;
use crate::{Error, Result};

/// Mean and sample standard deviation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (0 for one run).
    pub sd: f64,
}

impl Aggregate {
    /// Of a list of values.
    pub fn of(values: &[f64]) -> Self {
        if values.is_empty() {
            return Aggregate::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let sd = if values.len() > 1 {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Aggregate { mean, sd }
    }
}

/// One threshold of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// The threshold.
    pub threshold: f64,
    /// Runs averaged.
    pub runs: usize,
    /// Mean of each metric.
    pub mean: Metrics,
    /// Standard deviation of each metric.
    pub sd: Metrics,
    /// Clusters with two or more members.
    pub groups: Aggregate,
    /// Clusters of 5 or more pages with gold purity below 0.9 ([`super::metrics::impure_clusters`]).
    #[serde(default)]
    pub impure: Aggregate,
    /// Similarity computations made.
    pub comparisons: Aggregate,
    /// Wall time of one run in seconds.
    pub seconds: Aggregate,
}

/// Parse `from:to:step` (inclusive, e.g. `0.1:0.9:0.05`) or a comma list (`0.3,0.5`).
pub fn parse_thresholds(spec: &str) -> Result<Vec<f64>> {
    let bad = || {
        Error::InvalidParameter(format!(
            "thresholds {spec:?}: expected from:to:step or a comma list of numbers in [0, 1]"
        ))
    };
    let num = |s: &str| s.trim().parse::<f64>().map_err(|_| bad());
    let out: Vec<f64> = if spec.contains(':') {
        let parts: Vec<&str> = spec.split(':').collect();
        let [from, to, step] = parts[..] else {
            return Err(bad());
        };
        let (from, to, step) = (num(from)?, num(to)?, num(step)?);
        if step <= 0.0 || to < from {
            return Err(bad());
        }
        let count = ((to - from) / step + 1e-9).floor() as usize + 1;
        // Round to 1e-9 so 0.1 + 3 * 0.05 prints as 0.25.
        (0..count)
            .map(|i| ((from + i as f64 * step) * 1e9).round() / 1e9)
            .collect()
    } else {
        spec.split(',').map(num).collect::<Result<_>>()?
    };
    if out.is_empty() || out.iter().any(|t| !(0.0..=1.0).contains(t)) {
        return Err(bad());
    }
    Ok(out)
}

/// What one (threshold, seed) run of a sweep measured.
struct RunResult {
    metrics: [f64; 9],
    groups: f64,
    impure: f64,
    comparisons: f64,
    seconds: f64,
}

fn metrics_from(cols: &[f64]) -> Metrics {
    Metrics {
        pairwise: Prf {
            precision: cols[0],
            recall: cols[1],
            f1: cols[2],
        },
        document: Prf {
            precision: cols[3],
            recall: cols[4],
            f1: cols[5],
        },
        bcubed: Prf {
            precision: cols[6],
            recall: cols[7],
            f1: cols[8],
        },
    }
}

/// Pages from which a sweep's runs go one at a time.
pub const SEQUENTIAL_FROM: usize = 100_000;

/// Run `base` at every threshold with every seed and evaluate against `gold`.
///
/// In Seeded mode without explicit seeds, each run seeds one document per gold cluster
/// ([`gold_seeds`]) chosen with its own seed.
pub fn sweep(
    prepared: &dyn Prepared,
    base: &RunSpec,
    thresholds: &[f64],
    seeds: &[u64],
    gold: &[Option<u32>],
    progress: &Progress,
) -> Result<Vec<SweepRow>> {
    let seeds: Vec<u64> = if base.matching.mode.is_randomized() {
        seeds.to_vec()
    } else {
        seeds.iter().take(1).copied().collect()
    };
    let jobs: Vec<(usize, u64)> = (0..thresholds.len())
        .flat_map(|t| seeds.iter().map(move |&s| (t, s)))
        .collect();
    progress.stage("sweep", jobs.len() as u64);
    // Each run reports to a private progress; the shared one counts finished runs and cancels.
    let one = |&(t, seed): &(usize, u64)| -> Result<RunResult> {
        progress.check()?;
        let mut spec = base.clone();
        spec.matching.threshold = thresholds[t];
        spec.matching.seed = seed;
        if spec.matching.mode == Mode::Seeded && spec.matching.seeds.is_empty() {
            spec.matching.seeds = gold_seeds(gold, seed);
        }
        let started = Instant::now();
        let detection = prepared.detect(&spec, &Progress::new())?;
        let seconds = started.elapsed().as_secs_f64();
        let m = evaluate(&detection.clustering, gold);
        let mut cols = [0.0; 9];
        for (c, (_, v)) in cols.iter_mut().zip(m.columns()) {
            *c = v;
        }
        let groups = detection.clustering.groups().len() as f64;
        let impure = impure_clusters(&detection.clustering, gold) as f64;
        let comparisons = detection.outcome.trace.comparisons() as f64;
        progress.advance(1);
        Ok(RunResult {
            metrics: cols,
            groups,
            impure,
            comparisons,
            seconds,
        })
    };
    // Runs side by side while each is small; from `SEQUENTIAL_FROM` pages one at a time, as
    // each run's matching then uses every core itself, and two at once held two indexes (on
    // a million pages the workbench's sweep took it from 1.9 to 3.2 GB).
    let results: Vec<Result<RunResult>> = if prepared.len() < SEQUENTIAL_FROM {
        jobs.par_iter().map(one).collect()
    } else {
        jobs.iter().map(one).collect()
    };
    let results: Vec<_> = results.into_iter().collect::<Result<_>>()?;
    let per = seeds.len();
    Ok(thresholds
        .iter()
        .enumerate()
        .map(|(t, &threshold)| {
            let runs = &results[t * per..(t + 1) * per];
            let col =
                |k: usize| Aggregate::of(&runs.iter().map(|r| r.metrics[k]).collect::<Vec<_>>());
            let aggs: Vec<Aggregate> = (0..9).map(col).collect();
            SweepRow {
                threshold,
                runs: per,
                mean: metrics_from(&aggs.iter().map(|a| a.mean).collect::<Vec<_>>()),
                sd: metrics_from(&aggs.iter().map(|a| a.sd).collect::<Vec<_>>()),
                groups: Aggregate::of(&runs.iter().map(|r| r.groups).collect::<Vec<_>>()),
                impure: Aggregate::of(&runs.iter().map(|r| r.impure).collect::<Vec<_>>()),
                comparisons: Aggregate::of(&runs.iter().map(|r| r.comparisons).collect::<Vec<_>>()),
                seconds: Aggregate::of(&runs.iter().map(|r| r.seconds).collect::<Vec<_>>()),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_ranges_parse_inclusively() {
        let t = parse_thresholds("0.1:0.9:0.05").unwrap();
        assert_eq!(t.len(), 17);
        assert_eq!(t[3], 0.25);
        assert_eq!(*t.last().unwrap(), 0.9);
        assert_eq!(parse_thresholds("0.3, 0.5").unwrap(), [0.3, 0.5]);
        for bad in ["0.1:0.9", "0.5:0.1:0.1", "0:1:0", "x", "1.5", ""] {
            assert!(parse_thresholds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn aggregate_is_mean_and_sample_sd() {
        let a = Aggregate::of(&[1.0, 2.0, 3.0]);
        assert_eq!(a.mean, 2.0);
        assert!((a.sd - 1.0).abs() < 1e-12);
        assert_eq!(Aggregate::of(&[4.0]).sd, 0.0);
    }
}
