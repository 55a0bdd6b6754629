//! What changed between two runs of one detector on the same archives (after a threshold or an
//! antecedent change): the clusters the new run split or merged, the pages that changed
//! cluster, and the metric deltas — so tuning is seen, not guessed.
//!
//! A page "moved" when its new cluster's main origin (the earlier cluster most of its members
//! came from) is not the page's own earlier cluster. Clusters of one page count as clusters.

use std::collections::HashMap;

use crate::cluster::Clustering;
use crate::eval::metrics::Metrics;

/// An earlier cluster whose pages the new run put into several clusters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The earlier cluster.
    pub before: u32,
    /// Its size.
    pub size: usize,
    /// The new clusters holding its pages, with how many each (largest first).
    pub into: Vec<(u32, usize)>,
}

/// A new cluster that joins pages of several earlier clusters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    /// The new cluster.
    pub after: u32,
    /// Its size.
    pub size: usize,
    /// The earlier clusters its pages came from, with how many each (largest first).
    pub from: Vec<(u32, usize)>,
}

/// The changes from one clustering to the next.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunChanges {
    /// Earlier clusters split, largest first.
    pub splits: Vec<Split>,
    /// New clusters merged from several, largest first.
    pub merges: Vec<Merge>,
    /// Pages that changed cluster.
    pub moved: usize,
    /// Metrics before and after, when gold is known.
    pub metrics: Option<(Metrics, Metrics)>,
}

/// What `new` changed from `old` (the same detector on the same archives), metric deltas
/// included when gold is known. Run by the job that made `new`, not on the UI thread.
pub fn between(old: &super::AlgoRun, new: &super::AlgoRun) -> std::sync::Arc<RunChanges> {
    std::sync::Arc::new(compare(
        &old.detection.clustering,
        &new.detection.clustering,
        old.metrics.zip(new.metrics),
    ))
}

/// Compare `before` with `after` (the same documents).
pub fn compare(
    before: &Clustering,
    after: &Clustering,
    metrics: Option<(Metrics, Metrics)>,
) -> RunChanges {
    let n = before.cluster_of.len().min(after.cluster_of.len());
    // (before, after) -> pages
    let mut overlap: HashMap<(u32, u32), usize> = HashMap::new();
    let mut size_before: HashMap<u32, usize> = HashMap::new();
    let mut size_after: HashMap<u32, usize> = HashMap::new();
    for d in 0..n {
        let (b, a) = (before.cluster_of[d], after.cluster_of[d]);
        *overlap.entry((b, a)).or_default() += 1;
        *size_before.entry(b).or_default() += 1;
        *size_after.entry(a).or_default() += 1;
    }
    let mut into: HashMap<u32, Vec<(u32, usize)>> = HashMap::new();
    let mut from: HashMap<u32, Vec<(u32, usize)>> = HashMap::new();
    for (&(b, a), &k) in &overlap {
        into.entry(b).or_default().push((a, k));
        from.entry(a).or_default().push((b, k));
    }
    let by_size = |v: &mut Vec<(u32, usize)>| v.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let mut splits: Vec<Split> = into
        .into_iter()
        .filter(|(_, parts)| parts.len() > 1)
        .map(|(b, mut parts)| {
            by_size(&mut parts);
            Split {
                before: b,
                size: size_before[&b],
                into: parts,
            }
        })
        .collect();
    let mut main_origin: HashMap<u32, u32> = HashMap::new();
    let mut merges = Vec::new();
    for (a, mut parts) in from {
        by_size(&mut parts);
        main_origin.insert(a, parts[0].0);
        if parts.len() > 1 {
            merges.push(Merge {
                after: a,
                size: size_after[&a],
                from: parts,
            });
        }
    }
    let moved = (0..n)
        .filter(|&d| main_origin.get(&after.cluster_of[d]) != Some(&before.cluster_of[d]))
        .count();
    splits.sort_by(|x, y| y.size.cmp(&x.size).then(x.before.cmp(&y.before)));
    merges.sort_by(|x, y| y.size.cmp(&x.size).then(x.after.cmp(&y.after)));
    RunChanges {
        splits,
        merges,
        moved,
        metrics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DocId;

    fn clustering(of: &[u32]) -> Clustering {
        Clustering {
            cluster_of: of.to_vec(),
            representatives: (0..of.len() as u32).map(DocId).collect(),
        }
    }

    #[test]
    fn a_split_a_merge_and_the_pages_that_moved() {
        // before: {0,1,2,3} {4} {5}; after: {0,1} {2,3,4} {5}
        let before = clustering(&[0, 0, 0, 0, 4, 5]);
        let after = clustering(&[0, 0, 2, 2, 2, 5]);
        let c = compare(&before, &after, None);
        assert_eq!(
            c.splits,
            vec![Split {
                before: 0,
                size: 4,
                into: vec![(0, 2), (2, 2)]
            }]
        );
        assert_eq!(
            c.merges,
            vec![Merge {
                after: 2,
                size: 3,
                from: vec![(0, 2), (4, 1)]
            }]
        );
        // Cluster 2's main origin is cluster 0 (2 of its 3 pages): page 4 moved. Pages 2 and
        // 3 stayed with part of their cluster, which counts as staying.
        assert_eq!(c.moved, 1);
        let same = compare(&before, &before, None);
        assert!(same.splits.is_empty() && same.merges.is_empty() && same.moved == 0);
    }
}
