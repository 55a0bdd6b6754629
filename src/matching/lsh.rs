//! Candidate pairs from shared keys: the sort-based step every signature scheme here uses, and
//! locality-sensitive hashing (LSH) banding over MinHash signatures.
//!
//! In: per document a list of 64-bit keys (Alg. B supershingles with their position, LSH band
//! hashes, simhash pieces, chunk fingerprints). Out: the sorted, distinct pairs `(a, b)`, `a < b`,
//! of documents that share at least one key — Henzinger §3.1 ("they were sorted and for each
//! pair of pages with an identical supershingle we determined its B-similarity") and step (2) of
//! Shivakumar & Garcia-Molina's sort-based method.
//!
//! LSH banding (Indyk–Motwani; the scheme of datasketch's `MinHashLSH`): a MinHash signature of
//! `bands × rows` values is cut into `bands` bands; two documents are candidates when any band is
//! identical, which happens with probability `1 − (1 − s^rows)^bands` at Jaccard `s`.
//! [`optimal_bands`] picks `(bands, rows)` for a threshold the way datasketch does: it minimises
//! the sum of the false-positive area below the threshold and the false-negative area above it.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::token::mix64;
use crate::{Error, Result};

/// Every distinct pair of documents that share a key. `keys[d]` are document `d`'s keys; a key
/// repeated inside one document counts once. Pairs come sorted.
pub fn bucket_pairs(keys: &[Vec<u64>]) -> Vec<(u32, u32)> {
    let mut entries: Vec<(u64, u32)> = keys
        .iter()
        .enumerate()
        .flat_map(|(d, ks)| ks.iter().map(move |&k| (k, d as u32)))
        .collect();
    entries.par_sort_unstable();
    entries.dedup();
    pairs_from_sorted_entries(&entries)
}

/// The pairs inside each run of equal keys of a sorted `(key, doc)` list, distinct and sorted.
pub fn pairs_from_sorted_entries(entries: &[(u64, u32)]) -> Vec<(u32, u32)> {
    let runs: Vec<&[(u64, u32)]> = entries.chunk_by(|x, y| x.0 == y.0).collect();
    let mut pairs: Vec<(u32, u32)> = runs
        .par_iter()
        .flat_map_iter(|run| {
            (0..run.len()).flat_map(move |i| {
                (i + 1..run.len()).map(move |j| {
                    let (a, b) = (run[i].1, run[j].1);
                    (a.min(b), a.max(b))
                })
            })
        })
        .filter(|(a, b)| a != b)
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}

/// Parameters of MinHash LSH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Banding {
    /// Number of bands.
    pub bands: usize,
    /// Min-values per band.
    pub rows: usize,
}

impl Banding {
    /// Probability that two documents of Jaccard `s` share at least one band.
    pub fn collision_probability(&self, s: f64) -> f64 {
        1.0 - (1.0 - s.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// One key per band of a MinHash signature; the band index is part of the key so equal
    /// values in different bands do not collide. Empty for an empty signature.
    pub fn band_keys<T: Copy + Into<u64>>(&self, signature: &[T]) -> Vec<u64> {
        if signature.len() < self.bands * self.rows {
            return Vec::new();
        }
        (0..self.bands)
            .map(|b| {
                let band = &signature[b * self.rows..(b + 1) * self.rows];
                band.iter()
                    .fold(mix64(b as u64 ^ 0x1b5_ba9d), |h, &v| mix64(h ^ v.into()))
            })
            .collect()
    }
}

/// Integrate `f` over `[a, b]` with Simpson's rule on `n` (even) intervals.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    if b <= a {
        return 0.0;
    }
    let h = (b - a) / n as f64;
    let mut sum = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    sum * h / 3.0
}

/// The `(bands, rows)` with `bands · rows ≤ num_perm` that minimise
/// `fp_weight · ∫₀ᵗ P(s) ds + fn_weight · ∫ₜ¹ (1 − P(s)) ds` — datasketch's `_optimal_param`.
pub fn optimal_bands(
    threshold: f64,
    num_perm: usize,
    fp_weight: f64,
    fn_weight: f64,
) -> Result<Banding> {
    if !(0.0..=1.0).contains(&threshold) || num_perm == 0 {
        return Err(Error::InvalidParameter(format!(
            "LSH needs a threshold in [0, 1] and at least one permutation (got {threshold}, {num_perm})"
        )));
    }
    let mut best = (f64::INFINITY, Banding { bands: 1, rows: 1 });
    for bands in 1..=num_perm {
        for rows in 1..=num_perm / bands {
            let banding = Banding { bands, rows };
            let fp = integrate(|s| banding.collision_probability(s), 0.0, threshold, 64);
            let fnr = integrate(
                |s| 1.0 - banding.collision_probability(s),
                threshold,
                1.0,
                64,
            );
            let error = fp_weight * fp + fn_weight * fnr;
            if error < best.0 {
                best = (error, banding);
            }
        }
    }
    Ok(best.1)
}

/// Candidate pairs of MinHash LSH: documents sharing at least one band.
pub fn lsh_candidates<T: Copy + Into<u64> + Sync>(
    signatures: &[Vec<T>],
    banding: &Banding,
) -> Vec<(u32, u32)> {
    let keys: Vec<Vec<u64>> = signatures
        .par_iter()
        .map(|s| banding.band_keys(s))
        .collect();
    bucket_pairs(&keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_pairs_are_distinct_sorted_and_ignore_repeats() {
        let keys = vec![vec![1, 2, 2], vec![2, 3], vec![3, 1], vec![9]];
        assert_eq!(bucket_pairs(&keys), [(0, 1), (0, 2), (1, 2)]);
        assert!(bucket_pairs(&[vec![5], vec![]]).is_empty());
    }

    #[test]
    fn optimal_bands_match_datasketch_choices() {
        // datasketch 2.0 MinHashLSH(num_perm=128): (b, r) per threshold, printed by
        // `MinHashLSH(threshold=t, num_perm=128).b, .r`.
        for (t, bands, rows) in [(0.3, 37, 3), (0.5, 25, 5), (0.7, 14, 9), (0.9, 5, 25)] {
            let b = optimal_bands(t, 128, 0.5, 0.5).unwrap_or(Banding { bands: 0, rows: 0 });
            assert_eq!((b.bands, b.rows), (bands, rows), "threshold {t}");
        }
        assert!(optimal_bands(1.5, 128, 0.5, 0.5).is_err());
    }

    #[test]
    fn band_keys_collide_only_on_equal_bands() {
        let banding = Banding { bands: 3, rows: 2 };
        let a = [1u64, 2, 3, 4, 5, 6];
        let b = [1u64, 2, 9, 9, 9, 9];
        let (ka, kb) = (banding.band_keys(&a), banding.band_keys(&b));
        assert_eq!(ka[0], kb[0]);
        assert_ne!(ka[1], kb[1]);
        assert!(banding.band_keys(&[1u64, 2]).is_empty());
        let c = [3u64, 4, 1, 2, 5, 6];
        assert_ne!(banding.band_keys(&c)[1], ka[0]);
        assert_eq!(
            lsh_candidates(&[a.to_vec(), b.to_vec(), vec![]], &banding),
            [(0, 1)]
        );
    }
}
