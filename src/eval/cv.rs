//! Cross-validation over gold clusters, so a parameter chosen on goldset-dev is judged on pages
//! it was not chosen on: documents with gold clusters in, per fold the threshold chosen on the
//! other folds and the metrics at that threshold on this fold out.
//!
//! The gold clusters (not the documents: two copies of one story must never sit on both sides)
//! are shuffled with a seed and dealt into `k` folds. For each fold the detector signs the
//! *training* documents alone (collection statistics such as the IDF band see only them), the
//! threshold with the best mean objective over the seeds is chosen on them, and the *test*
//! documents are then signed and matched alone at that threshold. Documents without a gold
//! cluster take no part. Report both folds: an in-sample best does not generalise.
//!
//! The link rules ([`crate::matching::MatchParams::link_share`] and
//! [`crate::matching::MatchParams::cross_links`]) can be chosen with the threshold:
//! [`CvPlan::link_shares`] and [`CvPlan::cross_links`] list the values tried, and each training
//! sweep runs at every combination, so the test figure is a nested estimate of what was chosen,
//! not of values picked by looking at the test folds. One deal of clusters into halves can be
//! lucky or unlucky (a deal that puts all the easy stories in one half chooses low), so
//! [`CvPlan`] is run for several deal seeds and reported as mean ± sd over the deals.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::metrics::Metrics;
use super::sweep::{SweepRow, sweep};
use crate::detectors::{Detector, RunSpec};
use crate::progress::Progress;
use crate::{Document, Error, Result};

/// What a threshold is chosen for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Objective {
    /// Pairwise F1.
    #[default]
    PairF1,
    /// B-cubed F1.
    BcubedF1,
    /// Harmonic mean of document-level precision and recall.
    DocumentF1,
}

impl Objective {
    /// The value of `m` to maximise.
    pub fn of(self, m: &Metrics) -> f64 {
        match self {
            Objective::PairF1 => m.pairwise.f1,
            Objective::BcubedF1 => m.bcubed.f1,
            Objective::DocumentF1 => {
                let (p, r) = (m.document.precision, m.document.recall);
                if p + r > 0.0 {
                    2.0 * p * r / (p + r)
                } else {
                    0.0
                }
            }
        }
    }
}

impl std::str::FromStr for Objective {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "pair-f1" => Ok(Objective::PairF1),
            "b3-f1" => Ok(Objective::BcubedF1),
            "doc-f1" => Ok(Objective::DocumentF1),
            other => Err(Error::InvalidParameter(format!(
                "unknown objective {other:?} (pair-f1, b3-f1, doc-f1)"
            ))),
        }
    }
}

/// How the gold clusters are dealt and what is chosen on the training folds.
#[derive(Debug, Clone, PartialEq)]
pub struct CvPlan {
    /// Number of folds (2 to the number of gold clusters).
    pub folds: usize,
    /// Seed of the deal of gold clusters into folds.
    pub deal: u64,
    /// What the training folds maximise.
    pub objective: Objective,
    /// Link shares tried with every threshold on the training folds; empty: the base run's
    /// share alone.
    pub link_shares: Vec<f64>,
    /// Cross-link fractions tried likewise; empty: the base run's alone.
    pub cross_links: Vec<f64>,
}

impl CvPlan {
    /// `folds` folds of deal 0 for pair F1, the base run's link share.
    pub fn new(folds: usize) -> Self {
        CvPlan {
            folds,
            deal: 0,
            objective: Objective::PairF1,
            link_shares: Vec::new(),
            cross_links: Vec::new(),
        }
    }
}

/// One fold's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoldResult {
    /// Seed of the deal of clusters into folds this fold belongs to.
    #[serde(default)]
    pub deal: u64,
    /// The fold (0-based).
    pub fold: usize,
    /// The link share chosen on the training folds (with `train.threshold`).
    #[serde(default)]
    pub link_share: f64,
    /// The cross-link fraction chosen on the training folds.
    #[serde(default)]
    pub cross_links: f64,
    /// Gold clusters held out (tested on).
    pub test_clusters: Vec<String>,
    /// Training and test documents.
    pub documents: (usize, usize),
    /// The row of the training sweep at the chosen threshold.
    pub train: SweepRow,
    /// The test documents at the chosen threshold.
    pub test: SweepRow,
}

/// The fold of each gold cluster: clusters shuffled with `seed` and dealt round-robin.
pub fn fold_of_clusters(clusters: usize, folds: usize, seed: u64) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..clusters).collect();
    ids.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let mut fold = vec![0; clusters];
    for (i, &c) in ids.iter().enumerate() {
        fold[c] = i % folds.max(1);
    }
    fold
}

/// The documents (and their gold) of the clusters `keep` says yes to, gold renumbered.
fn subset(
    docs: &[Document],
    gold: &[Option<u32>],
    keep: impl Fn(u32) -> bool,
) -> (Vec<Document>, Vec<Option<u32>>) {
    docs.iter()
        .zip(gold)
        .filter_map(|(d, g)| g.filter(|&c| keep(c)).map(|c| (d.clone(), Some(c))))
        .unzip()
}

/// `plan.folds`-fold cross-validation of `detector` with the run `base` over `thresholds` ×
/// `plan.link_shares` × `seeds`. `names` are the gold cluster names, `gold` the cluster of each
/// document.
#[allow(clippy::too_many_arguments)]
pub fn cross_validate(
    detector: &dyn Detector,
    docs: &[Document],
    gold: &[Option<u32>],
    names: &[String],
    base: &RunSpec,
    thresholds: &[f64],
    seeds: &[u64],
    plan: &CvPlan,
    progress: &Progress,
) -> Result<Vec<FoldResult>> {
    let folds = plan.folds;
    if folds < 2 || folds > names.len() {
        return Err(Error::InvalidParameter(format!(
            "cross-validation needs 2 to {} folds (one gold cluster each at least), got {folds}",
            names.len()
        )));
    }
    let grid = |values: &[f64], what: &str, base: f64| {
        if let Some(v) = values.iter().find(|v| !(0.0..=1.0).contains(*v)) {
            return Err(Error::InvalidParameter(format!(
                "{what} {v} is not in [0, 1]"
            )));
        }
        Ok(if values.is_empty() {
            vec![base]
        } else {
            values.to_vec()
        })
    };
    let shares = grid(&plan.link_shares, "link share", base.matching.link_share)?;
    let crosses = grid(&plan.cross_links, "cross links", base.matching.cross_links)?;
    let fold_of = fold_of_clusters(names.len(), folds, plan.deal);
    let mut out = Vec::with_capacity(folds);
    for k in 0..folds {
        let (train_docs, train_gold) = subset(docs, gold, |c| fold_of[c as usize] != k);
        let (test_docs, test_gold) = subset(docs, gold, |c| fold_of[c as usize] == k);
        let prepared = detector.prepare(&train_docs, progress)?;
        // Ties go to the later candidate: within one setting of the link rules the higher
        // threshold (as with one setting alone), across settings the later share of the list,
        // then the later cross-link fraction.
        let mut best: Option<(RunSpec, SweepRow)> = None;
        for &share in &shares {
            for &cross in &crosses {
                let mut spec = base.clone();
                spec.matching.link_share = share;
                spec.matching.cross_links = cross;
                let rows = sweep(
                    prepared.as_ref(),
                    &spec,
                    thresholds,
                    seeds,
                    &train_gold,
                    progress,
                )?;
                for row in rows {
                    if best
                        .as_ref()
                        .is_none_or(|(_, b)| objective_cmp(plan.objective, &row, b).is_ge())
                    {
                        best = Some((spec.clone(), row));
                    }
                }
            }
        }
        let (spec, best) =
            best.ok_or_else(|| Error::InvalidParameter("no threshold to choose from".into()))?;
        let prepared = detector.prepare(&test_docs, progress)?;
        let test = sweep(
            prepared.as_ref(),
            &spec,
            &[best.threshold],
            seeds,
            &test_gold,
            progress,
        )?
        .remove(0);
        let mut test_clusters: Vec<String> = (0..names.len())
            .filter(|&c| fold_of[c] == k)
            .map(|c| names[c].clone())
            .collect();
        test_clusters.sort();
        out.push(FoldResult {
            deal: plan.deal,
            fold: k,
            link_share: spec.matching.link_share,
            cross_links: spec.matching.cross_links,
            test_clusters,
            documents: (train_docs.len(), test_docs.len()),
            train: best,
            test,
        });
    }
    Ok(out)
}

fn objective_cmp(objective: Objective, a: &SweepRow, b: &SweepRow) -> std::cmp::Ordering {
    objective.of(&a.mean).total_cmp(&objective.of(&b.mean))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_are_dealt_evenly_and_reproducibly() {
        let f = fold_of_clusters(7, 2, 3);
        assert_eq!(f, fold_of_clusters(7, 2, 3));
        assert_eq!(f.iter().filter(|&&k| k == 0).count(), 4);
        assert_ne!(f, fold_of_clusters(7, 2, 4));
        assert_eq!("b3-f1".parse::<Objective>().unwrap(), Objective::BcubedF1);
    }
}
