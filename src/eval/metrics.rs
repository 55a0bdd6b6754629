//! Cluster-quality metrics against gold clusters (ARCHITECTURE.md, "Evaluation protocol").
//!
//! All three are computed on a [`Clustering`]:
//!
//! - **Pairwise**: precision / recall / F1 over all pairs inside predicted clusters vs all pairs
//!   inside gold clusters.
//! - **Document-level** (Workbench paper §3.2): every document that is not its cluster's
//!   representative is read as the declaration "duplicate of the representative"; it is correct
//!   when both share a gold cluster. Precision = correct / declarations; recall = correct /
//!   (documents − gold clusters). For Incremental matching with representative clusters this is
//!   exactly the paper's count of the matcher's own declarations.
//! - **B-cubed**: per document, the share of its predicted cluster that is in its gold cluster
//!   (precision) and the share of its gold cluster found in its predicted cluster (recall),
//!   averaged over documents; F1 of the two averages.
//!
//! A document without gold counts as a gold cluster of its own.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::cluster::Clustering;

/// Precision, recall and F1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// Harmonic mean of the two (0 when both are 0).
    pub f1: f64,
}

impl Prf {
    /// From precision and recall.
    pub fn new(precision: f64, recall: f64) -> Self {
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Prf {
            precision,
            recall,
            f1,
        }
    }

    /// From counts; an empty denominator gives 1 (nothing claimed, nothing to find).
    pub fn from_counts(correct: u64, claimed: u64, expected: u64) -> Self {
        let ratio = |a: u64, b: u64| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        Prf::new(ratio(correct, claimed), ratio(correct, expected))
    }
}

/// The three metrics of one clustering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Pairwise P/R/F1.
    pub pairwise: Prf,
    /// The Workbench paper's document-level P/R (F1 for convenience).
    pub document: Prf,
    /// B-cubed P/R/F1.
    pub bcubed: Prf,
}

impl Metrics {
    /// The metrics as `(name, value)` in a fixed order, for tables.
    pub fn columns(&self) -> [(&'static str, f64); 9] {
        [
            ("pair_p", self.pairwise.precision),
            ("pair_r", self.pairwise.recall),
            ("pair_f1", self.pairwise.f1),
            ("doc_p", self.document.precision),
            ("doc_r", self.document.recall),
            ("doc_f1", self.document.f1),
            ("b3_p", self.bcubed.precision),
            ("b3_r", self.bcubed.recall),
            ("b3_f1", self.bcubed.f1),
        ]
    }
}

/// Size from which a cluster counts in [`impure_clusters`]: a coder reads a cluster this large
/// as a group instead of page by page.
pub const IMPURE_MIN_SIZE: usize = 5;
/// Gold purity below which such a cluster counts as impure.
pub const IMPURE_MAX_PURITY: f64 = 0.9;

/// Clusters of at least [`IMPURE_MIN_SIZE`] documents whose gold purity (the share of the
/// largest gold cluster among its members; a member without gold is its own cluster) is below
/// [`IMPURE_MAX_PURITY`]: the clusters a coder would trust and should not.
pub fn impure_clusters(clustering: &Clustering, gold: &[Option<u32>]) -> usize {
    let mut members: HashMap<u32, Vec<usize>> = HashMap::new();
    for (d, &c) in clustering.cluster_of.iter().enumerate() {
        members.entry(c).or_default().push(d);
    }
    members
        .values()
        .filter(|m| m.len() >= IMPURE_MIN_SIZE)
        .filter(|m| {
            let mut counts: HashMap<u32, usize> = HashMap::new();
            let with_gold = m.iter().filter_map(|&d| gold.get(d).copied().flatten());
            for g in with_gold {
                *counts.entry(g).or_default() += 1;
            }
            // A member without gold counts once, so it never raises the largest share.
            let top = counts.values().copied().max().unwrap_or(1).max(1);
            (top as f64) / (m.len() as f64) < IMPURE_MAX_PURITY
        })
        .count()
}

fn pairs(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// Pairwise precision and recall over the pairs of documents that both pass `keep` (e.g. the
/// pages of one language): the pairs of [`evaluate`]'s pairwise figure inside that subset.
pub fn pairwise_within(
    clustering: &Clustering,
    gold: &[Option<u32>],
    keep: impl Fn(usize) -> bool,
) -> Prf {
    let mut pred_size: HashMap<u32, u64> = HashMap::new();
    let mut gold_size: HashMap<u32, u64> = HashMap::new();
    let mut both: HashMap<(u32, u32), u64> = HashMap::new();
    for d in (0..clustering.len()).filter(|&d| keep(d)) {
        let p = clustering.cluster_of[d];
        *pred_size.entry(p).or_default() += 1;
        // A document without gold is a gold cluster of its own: it adds no gold pair.
        if let Some(g) = gold.get(d).copied().flatten() {
            *gold_size.entry(g).or_default() += 1;
            *both.entry((p, g)).or_default() += 1;
        }
    }
    let sum = |m: &mut dyn Iterator<Item = u64>| m.map(pairs).sum::<u64>();
    Prf::from_counts(
        sum(&mut both.values().copied()),
        sum(&mut pred_size.values().copied()),
        sum(&mut gold_size.values().copied()),
    )
}

/// Evaluate `clustering` against `gold` (gold cluster per document, by [`crate::DocId`]).
pub fn evaluate(clustering: &Clustering, gold: &[Option<u32>]) -> Metrics {
    let n = clustering.len();
    // Documents without gold become singleton gold clusters numbered after the real ones.
    let max_gold = gold.iter().flatten().max().map_or(0, |&m| m as u64 + 1);
    let gold_of = |d: usize| -> u64 {
        match gold.get(d).copied().flatten() {
            Some(g) => u64::from(g),
            None => max_gold + d as u64,
        }
    };
    let mut pred_size: HashMap<u32, u64> = HashMap::new();
    let mut gold_size: HashMap<u64, u64> = HashMap::new();
    let mut both: HashMap<(u32, u64), u64> = HashMap::new();
    for d in 0..n {
        let (p, g) = (clustering.cluster_of[d], gold_of(d));
        *pred_size.entry(p).or_default() += 1;
        *gold_size.entry(g).or_default() += 1;
        *both.entry((p, g)).or_default() += 1;
    }
    let tp: u64 = both.values().map(|&c| pairs(c)).sum();
    let pred_pairs: u64 = pred_size.values().map(|&c| pairs(c)).sum();
    let gold_pairs: u64 = gold_size.values().map(|&c| pairs(c)).sum();
    let pairwise = Prf::from_counts(tp, pred_pairs, gold_pairs);

    let (mut declared, mut correct) = (0u64, 0u64);
    for d in 0..n {
        let rep = clustering.representatives[clustering.cluster_of[d] as usize].index();
        if rep != d {
            declared += 1;
            if gold_of(d) == gold_of(rep) {
                correct += 1;
            }
        }
    }
    let findable = n as u64 - gold_size.len() as u64;
    let document = Prf::from_counts(correct, declared, findable);

    let (mut bp, mut br) = (0.0, 0.0);
    for d in 0..n {
        let (p, g) = (clustering.cluster_of[d], gold_of(d));
        let common = both[&(p, g)] as f64;
        bp += common / pred_size[&p] as f64;
        br += common / gold_size[&g] as f64;
    }
    let bcubed = if n == 0 {
        Prf::new(1.0, 1.0)
    } else {
        Prf::new(bp / n as f64, br / n as f64)
    };
    Metrics {
        pairwise,
        document,
        bcubed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DocId;

    fn clustering(cluster_of: &[u32], reps: &[u32]) -> Clustering {
        Clustering {
            cluster_of: cluster_of.to_vec(),
            representatives: reps.iter().copied().map(DocId).collect(),
        }
    }

    #[test]
    fn perfect_clustering_scores_one() {
        let c = clustering(&[0, 0, 1, 1, 1], &[0, 2]);
        let m = evaluate(&c, &[Some(7), Some(7), Some(3), Some(3), Some(3)]);
        for (_, v) in m.columns() {
            assert!((v - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn hand_computed_example() {
        // gold: {0,1,2} {3,4}; predicted: {0,1} {2,3,4} with representatives 0 and 3.
        let c = clustering(&[0, 0, 1, 1, 1], &[0, 3]);
        let gold = [Some(0), Some(0), Some(0), Some(1), Some(1)];
        let m = evaluate(&c, &gold);
        // pairs: predicted 1 + 3 = 4; gold 3 + 1 = 4; true (0,1) (3,4) = 2
        assert!((m.pairwise.precision - 0.5).abs() < 1e-12);
        assert!((m.pairwise.recall - 0.5).abs() < 1e-12);
        // declarations: 1->0 right, 2->3 wrong, 4->3 right; findable 5 - 2 = 3
        assert!((m.document.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((m.document.recall - 2.0 / 3.0).abs() < 1e-12);
        // B3 precision: 1,1,1/3,2/3,2/3 -> 11/15; recall: 2/3,2/3,1/3,1,1 -> 11/15
        assert!((m.bcubed.precision - 11.0 / 15.0).abs() < 1e-12);
        assert!((m.bcubed.recall - 11.0 / 15.0).abs() < 1e-12);
    }

    #[test]
    fn impure_clusters_count_large_mixed_clusters_only() {
        // {0..5} five of gold 1, one of gold 2: purity 5/6 < 0.9; {6..9} mixed but 4 pages.
        let c = clustering(&[0, 0, 0, 0, 0, 0, 1, 1, 1, 1], &[0, 6]);
        let mut gold = vec![Some(1); 6];
        gold[5] = Some(2);
        gold.extend([Some(3), Some(4), Some(5), Some(6)]);
        assert_eq!(impure_clusters(&c, &gold), 1);
        // Ten of one gold and one other: purity 10/11 >= 0.9.
        let c = clustering(&[0; 11], &[0]);
        let mut gold = vec![Some(1); 10];
        gold.push(Some(2));
        assert_eq!(impure_clusters(&c, &gold), 0);
        // Five pages without gold are five stories.
        assert_eq!(impure_clusters(&clustering(&[0; 5], &[0]), &[None; 5]), 1);
    }

    #[test]
    fn all_singletons_have_full_precision_and_no_recall() {
        let c = Clustering::singletons(4);
        let m = evaluate(&c, &[Some(0), Some(0), Some(1), None]);
        assert_eq!(m.pairwise.precision, 1.0);
        assert_eq!(m.pairwise.recall, 0.0);
        assert_eq!(m.document.recall, 0.0);
        assert!((m.bcubed.recall - (0.5 + 0.5 + 1.0 + 1.0) / 4.0).abs() < 1e-12);
    }
}
