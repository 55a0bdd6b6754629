//! All-pairs chunk overlap (Shivakumar & Garcia-Molina, WebDB 1998, §2): per-document chunk
//! fingerprints in, the *Overlap table* — every pair sharing at least `T` fingerprints, with the
//! count — out; plus exact-copy identity sets and the replica-count histogram of their Fig. 1.
//!
//! The steps of §2.2:
//!
//! 1. **Exact copies first** ([`identity_sets`]): documents with the same whole-document
//!    fingerprint form an identity set whose smallest id is its *center*; only centers take part
//!    in the chunk overlap, which "reduces the work required by the subsequent, less efficient
//!    steps".
//! 2. **Overlap** by one of two methods (same result, different cost):
//!    - [`sort_based`] (§2.1): sort (fingerprint, doc); emit every pair inside a run of equal
//!      fingerprints; sort the pairs and keep those occurring at least `T` times. Its cost is the
//!      cross-product it stores.
//!    - [`coarse_counting`] (§2.2, step 3): one scan adds 1 to `A[h(d_i, d_j)]` for every pair
//!      sharing a fingerprint, `A` an array of `m` counters; buckets with `A ≥ T` become a
//!      bitmap; a second scan keeps pairs whose bucket is heavy as candidates; a last pass counts
//!      their shared fingerprints exactly and drops the false positives. Nothing quadratic is
//!      stored.
//!
//! A fingerprint repeated inside one document counts once ("share F fingerprints").

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::token::mix64;
use crate::{Error, Result};

/// Per document, the center of its identity set (itself when it has no exact copy or no
/// fingerprint); `whole[d]` is `None` for a document with no text.
pub fn identity_sets(whole: &[Option<u64>]) -> Vec<u32> {
    let mut entries: Vec<(u64, u32)> = whole
        .iter()
        .enumerate()
        .filter_map(|(d, f)| f.map(|f| (f, d as u32)))
        .collect();
    entries.sort_unstable();
    let mut center: Vec<u32> = (0..whole.len() as u32).collect();
    for run in entries.chunk_by(|x, y| x.0 == y.0) {
        let c = run[0].1;
        for &(_, d) in run {
            center[d as usize] = c;
        }
    }
    center
}

/// A pair of documents with the number of distinct fingerprints they share; `a < b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Overlap {
    /// Smaller id.
    pub a: u32,
    /// Larger id.
    pub b: u32,
    /// Shared distinct fingerprints (`F`).
    pub shared: u32,
}

/// Sorted, distinct `(fingerprint, doc)` entries of the documents with `active[d]`.
fn entries(chunks: &[Vec<u64>], active: &[bool]) -> Vec<(u64, u32)> {
    let mut e: Vec<(u64, u32)> = chunks
        .iter()
        .enumerate()
        .filter(|(d, _)| active.get(*d).copied().unwrap_or(true))
        .flat_map(|(d, c)| c.iter().map(move |&f| (f, d as u32)))
        .collect();
    e.par_sort_unstable();
    e.dedup();
    e
}

/// Every pair inside each run of equal fingerprints.
fn run_pairs(run: &[(u64, u32)]) -> impl Iterator<Item = (u32, u32)> + '_ {
    (0..run.len()).flat_map(move |i| (i + 1..run.len()).map(move |j| (run[i].1, run[j].1)))
}

/// The sort-based method (§2.1): pairs of `active` documents sharing at least `t` fingerprints.
pub fn sort_based(chunks: &[Vec<u64>], active: &[bool], t: u32) -> Vec<Overlap> {
    let e = entries(chunks, active);
    let mut pairs: Vec<(u32, u32)> = e.chunk_by(|x, y| x.0 == y.0).flat_map(run_pairs).collect();
    pairs.par_sort_unstable();
    pairs
        .chunk_by(|x, y| x == y)
        .filter(|run| run.len() as u32 >= t.max(1))
        .map(|run| Overlap {
            a: run[0].0,
            b: run[0].1,
            shared: run.len() as u32,
        })
        .collect()
}

/// What coarse counting did, for the cost comparison with the sort-based method.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoarseStats {
    /// Counters in `A` (`m`).
    pub buckets: usize,
    /// Buckets marked heavy in the bitmap.
    pub heavy_buckets: usize,
    /// Pair occurrences scanned (one per pair per shared fingerprint).
    pub pair_occurrences: u64,
    /// Distinct candidate pairs in heavy buckets (`F`).
    pub candidates: usize,
    /// Candidates dropped by the exact count.
    pub false_positives: usize,
}

#[inline]
fn bucket_of(a: u32, b: u32, m: usize, seed: u64) -> usize {
    (mix64(seed ^ ((u64::from(a) << 32) | u64::from(b))) % m as u64) as usize
}

/// Number of distinct values two sorted, deduplicated slices share.
pub fn shared_count(x: &[u64], y: &[u64]) -> u32 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Coarse counting (§2.2 step 3) with `m` counters hashed by `seed`: the same pairs as
/// [`sort_based`], found without storing the cross-product.
pub fn coarse_counting(
    chunks: &[Vec<u64>],
    active: &[bool],
    t: u32,
    m: usize,
    seed: u64,
) -> Result<(Vec<Overlap>, CoarseStats)> {
    if m == 0 {
        return Err(Error::InvalidParameter(
            "coarse counting needs at least one counter".to_string(),
        ));
    }
    let t = t.max(1);
    let e = entries(chunks, active);
    let runs: Vec<&[(u64, u32)]> = e.chunk_by(|x, y| x.0 == y.0).collect();
    // Hashing scan: A[h(di, dj)] += 1 for every pair sharing a fingerprint.
    let mut counters = vec![0u32; m];
    let mut occurrences = 0u64;
    for run in &runs {
        for (a, b) in run_pairs(run) {
            let c = &mut counters[bucket_of(a, b, m, seed)];
            *c = c.saturating_add(1);
            occurrences += 1;
        }
    }
    let bitmap: Vec<bool> = counters.iter().map(|&c| c >= t).collect();
    drop(counters);
    // Candidate-selection scan.
    let mut candidates: Vec<(u32, u32)> = runs
        .par_iter()
        .flat_map_iter(|run| run_pairs(run).filter(|&(a, b)| bitmap[bucket_of(a, b, m, seed)]))
        .collect();
    candidates.par_sort_unstable();
    candidates.dedup();
    // Exact count of the candidates.
    let sets: Vec<Vec<u64>> = chunks
        .par_iter()
        .map(|c| {
            let mut s = c.clone();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    let overlaps: Vec<Overlap> = candidates
        .par_iter()
        .filter_map(|&(a, b)| {
            let shared = shared_count(&sets[a as usize], &sets[b as usize]);
            (shared >= t).then_some(Overlap { a, b, shared })
        })
        .collect();
    let stats = CoarseStats {
        buckets: m,
        heavy_buckets: bitmap.iter().filter(|&&h| h).count(),
        pair_occurrences: occurrences,
        candidates: candidates.len(),
        false_positives: candidates.len() - overlaps.len(),
    };
    Ok((overlaps, stats))
}

/// Fig. 1 bucket labels of [`replica_histogram`].
pub const REPLICA_BUCKETS: [&str; 6] = ["1", "2", "3-10", "11-100", "101-1000", ">1000"];

/// The replica-count histogram of Fig. 1: per bucket of "number of replicas of a document
/// (itself included)", the number of documents. `replicas[d]` is that number for document `d`
/// (for instance the size of its cluster).
pub fn replica_histogram(replicas: &[usize]) -> [u64; 6] {
    let mut h = [0u64; 6];
    for &r in replicas {
        let bucket = match r {
            0 | 1 => 0,
            2 => 1,
            3..=10 => 2,
            11..=100 => 3,
            101..=1000 => 4,
            _ => 5,
        };
        h[bucket] += 1;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Vec<u64>> {
        vec![
            vec![1, 2, 3, 4, 5],
            vec![1, 2, 3, 9, 9],
            vec![1, 2, 3, 4, 8],
            vec![7],
            vec![1, 20, 30],
        ]
    }

    #[test]
    fn sort_based_counts_shared_fingerprints() {
        let all = vec![true; 5];
        let o = sort_based(&docs(), &all, 3);
        assert_eq!(
            o,
            [
                Overlap {
                    a: 0,
                    b: 1,
                    shared: 3
                },
                Overlap {
                    a: 0,
                    b: 2,
                    shared: 4
                },
                Overlap {
                    a: 1,
                    b: 2,
                    shared: 3
                },
            ]
        );
        let some = [true, false, true, true, true];
        assert_eq!(
            sort_based(&docs(), &some, 3),
            [Overlap {
                a: 0,
                b: 2,
                shared: 4
            }]
        );
    }

    #[test]
    fn coarse_counting_finds_the_same_pairs_even_with_few_buckets() {
        let all = vec![true; 5];
        let exact = sort_based(&docs(), &all, 3);
        for m in [1, 2, 3, 1000] {
            let (o, stats) = coarse_counting(&docs(), &all, 3, m, 9).unwrap_or_default();
            assert_eq!(o, exact, "m = {m}");
            assert!(stats.candidates >= exact.len());
            assert_eq!(stats.candidates - stats.false_positives, exact.len());
        }
        // One bucket holds every pair: all sharing pairs are candidates, the exact count drops
        // the ones below T.
        let (_, one) = coarse_counting(&docs(), &all, 3, 1, 9).unwrap_or_default();
        assert_eq!(one.false_positives, 3);
        assert!(coarse_counting(&docs(), &all, 3, 0, 9).is_err());
    }

    #[test]
    fn identity_sets_use_the_smallest_id_as_center() {
        let whole = [Some(5), Some(6), Some(5), None, Some(6), Some(5)];
        assert_eq!(identity_sets(&whole), [0, 1, 0, 3, 1, 0]);
    }

    #[test]
    fn histogram_buckets() {
        assert_eq!(
            replica_histogram(&[1, 1, 2, 5, 10, 11, 5000]),
            [2, 1, 2, 1, 0, 1]
        );
    }
}
