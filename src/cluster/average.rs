//! Average-linkage clusters (UPGMA; Sokal & Michener 1958) over a run's scored pairs: a member
//! must be similar to its cluster as a whole, not only to one member of it.
//!
//! Transitive closure and representative links both let a cluster grow through a chain: page
//! A matches B through the story, B matches C through the site's frame, and C's unrelated
//! story joins A's cluster although A and C share nothing. Average linkage merges two clusters
//! only while the mean similarity over *all* their cross pairs — a pair below the run's
//! threshold, or not scored, counts 0 — stays at or above the threshold. One strong link
//! through a frame page then weighs `1/(|A|·|B|)` of the decision, so chains stop at the first
//! cluster that is not similar as a whole, while a story whose copies all resemble each other
//! still gathers every copy.
//!
//! In: the number of documents, the scored pairs at or above the threshold. Out: clusters and,
//! per cluster, its *medoid* as representative (the member with the highest sum of
//! similarities inside it, ties to the smallest id). Deterministic: merges go by mean
//! similarity, ties to the smaller cluster ids, and sums are taken in pair order.
//! Cost: `O(P log P)` for `P` pairs plus the neighbour lists moved at each merge (the smaller
//! one is merged into the larger).

use std::collections::{BinaryHeap, HashMap};

use super::{Clustering, UnionFind};

use crate::matching::ScoredPair;

/// A candidate merge: mean similarity (as ordered bits of a non-negative `f64`), then the two
/// cluster roots, smallest first preferred on ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Merge {
    mean_bits: u64,
    a: std::cmp::Reverse<u32>,
    b: std::cmp::Reverse<u32>,
}

/// Average-linkage clusters of `n` documents from `pairs` (each with its score), merging while
/// the mean cross similarity is at least `threshold`.
pub fn average_link(n: usize, pairs: &[ScoredPair], threshold: f64) -> Clustering {
    // Sum of cross similarities between clusters, keyed by cluster root.
    let mut links: Vec<HashMap<u32, f64>> = vec![HashMap::new(); n];
    for p in pairs.iter().filter(|p| p.score >= threshold && p.a != p.b) {
        *links[p.a.index()].entry(p.b.0).or_default() += p.score;
        *links[p.b.index()].entry(p.a.0).or_default() += p.score;
    }
    let mut size = vec![1u64; n];
    let mut alive = vec![true; n];
    let mut heap = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<Merge>, a: u32, b: u32, sum: f64, size: &[u64]| {
        let mean = sum / (size[a as usize] * size[b as usize]) as f64;
        if mean >= threshold {
            let (a, b) = (a.min(b), a.max(b));
            heap.push(Merge {
                mean_bits: mean.to_bits(),
                a: std::cmp::Reverse(a),
                b: std::cmp::Reverse(b),
            });
        }
    };
    for (a, l) in links.iter().enumerate() {
        for (&b, &sum) in l {
            if (a as u32) < b {
                push(&mut heap, a as u32, b, sum, &size);
            }
        }
    }
    let mut uf = UnionFind::new(n);
    while let Some(m) = heap.pop() {
        let (a, b) = (m.a.0, m.b.0);
        if !alive[a as usize] || !alive[b as usize] {
            continue;
        }
        // A stale entry: the clusters changed since it was pushed.
        let sum = links[a as usize].get(&b).copied().unwrap_or(0.0);
        let mean = sum / (size[a as usize] * size[b as usize]) as f64;
        if mean.to_bits() != m.mean_bits {
            continue;
        }
        // Keep the root with more neighbours and move the other's list into it.
        let (keep, gone) = if links[a as usize].len() >= links[b as usize].len() {
            (a, b)
        } else {
            (b, a)
        };
        alive[gone as usize] = false;
        size[keep as usize] += size[gone as usize];
        uf.union_into(gone, keep);
        let moved = std::mem::take(&mut links[gone as usize]);
        links[keep as usize].remove(&gone);
        let mut touched: Vec<u32> = Vec::with_capacity(moved.len());
        for (c, s) in moved {
            if c == keep {
                continue;
            }
            if let Some(l) = links[c as usize].remove(&gone) {
                *links[c as usize].entry(keep).or_default() += l;
            }
            *links[keep as usize].entry(c).or_default() += s;
            touched.push(c);
        }
        // Every neighbour's mean with the grown cluster changed.
        let mut neighbours: Vec<(u32, f64)> =
            links[keep as usize].iter().map(|(&c, &s)| (c, s)).collect();
        neighbours.sort_unstable_by_key(|&(c, _)| c);
        for (c, s) in neighbours {
            push(&mut heap, keep, c, s, &size);
        }
    }
    medoids(n, pairs, threshold, &mut uf)
}

/// Number the clusters of `uf` and pick each one's medoid over the `pairs` at or above
/// `threshold` inside it.
fn medoids(n: usize, pairs: &[ScoredPair], threshold: f64, uf: &mut UnionFind) -> Clustering {
    let mut within = vec![0.0f64; n];
    for p in pairs.iter().filter(|p| p.score >= threshold) {
        if uf.find(p.a.0) == uf.find(p.b.0) {
            within[p.a.index()] += p.score;
            within[p.b.index()] += p.score;
        }
    }
    // Highest sum first, then the smallest id: the key is smallest for the medoid.
    Clustering::from_union_find(uf, |d| (std::cmp::Reverse(within[d].to_bits()), d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DocId;

    fn pair(a: u32, b: u32, s: f64) -> ScoredPair {
        ScoredPair::new(DocId(a), DocId(b), s)
    }

    #[test]
    fn a_chain_through_one_link_does_not_merge_two_stories() {
        // Story 0-1-2 (all pairs 0.8), story 3-4-5 (all 0.8), one frame link 2-3 at 0.6.
        let mut pairs = Vec::new();
        for (a, b) in [(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5)] {
            pairs.push(pair(a, b, 0.8));
        }
        pairs.push(pair(2, 3, 0.6));
        let c = average_link(6, &pairs, 0.3);
        assert_eq!(c.groups().len(), 2, "{c:?}");
        assert_ne!(c.cluster_of[2], c.cluster_of[3]);
        // Transitive closure would have made one cluster of the two.
        let t = Clustering::transitive(
            pairs.iter().map(|p| (p.a, p.b)),
            &[None; 6],
            &[0, 1, 2, 3, 4, 5],
        );
        assert_eq!(t.groups().len(), 1);
    }

    #[test]
    fn a_story_whose_copies_resemble_each_other_gathers_them_all() {
        let mut pairs = Vec::new();
        for a in 0..5u32 {
            for b in a + 1..5 {
                pairs.push(pair(a, b, if b == 4 { 0.35 } else { 0.9 }));
            }
        }
        let c = average_link(6, &pairs, 0.3);
        assert_eq!(c.groups(), vec![(0..5).map(DocId).collect::<Vec<_>>()]);
        // The medoid: the member most similar to the others (not page 4).
        assert_eq!(c.representative_of(DocId(4)), DocId(0));
        assert_eq!(c.representative_of(DocId(5)), DocId(5));
    }
}
