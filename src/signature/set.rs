//! Collection-level signatures: per-document multisets of 64-bit hashes in, dense sorted
//! multisets out, after the filters of Theobald et al. (SIGIR 2008 §5): signatures whose
//! collection IDF lies outside a band are dropped, and documents left with fewer than a minimum
//! number of signatures take no part in matching.
//!
//! Similarity is the multiset Jaccard (SIGIR 2008 §3): the sum over signatures of the smaller
//! count divided by the sum of the larger count, which equals `∩ / (|A| + |B| − ∩)` with
//! `∩ = Σ min` — the form the inverted-index matchers use.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::DocId;

/// One document's signatures: dense ids sorted ascending, with their multiplicities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignatureSet {
    /// Signature ids, ascending, distinct.
    pub ids: Vec<u32>,
    /// How often each id occurs, parallel to `ids`.
    pub counts: Counts,
    /// Sum of `counts`: the multiset's size `|A|` (the paper's `N_X`).
    pub total: u32,
}

/// How often each signature of a set occurs: a byte each while every count fits in one, else
/// four. A signature rarely repeats on a page (3 of 36 per page on the 100k generated
/// archive), so a byte is nearly always enough: at a million pages four bytes a count were
/// ~115 MB more, held from signing to the end of matching. One form per multiset (four bytes
/// only when a count needs them), so equal multisets compare and hash equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Counts {
    /// Every count below 256.
    Small(Box<[u8]>),
    /// Some count of 256 or more.
    Large(Box<[u32]>),
}

impl Default for Counts {
    fn default() -> Self {
        Counts::Small(Box::default())
    }
}

impl Counts {
    /// The counts of `counts`, in the smaller form that holds them.
    pub fn new(counts: &[u32]) -> Counts {
        match counts.iter().all(|&c| c <= u32::from(u8::MAX)) {
            true => Counts::Small(counts.iter().map(|&c| c as u8).collect()),
            false => Counts::Large(counts.into()),
        }
    }

    /// The `i`-th count.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Counts::Small(c) => u32::from(c[i]),
            Counts::Large(c) => c[i],
        }
    }

    /// How many counts.
    pub fn len(&self) -> usize {
        match self {
            Counts::Small(c) => c.len(),
            Counts::Large(c) => c.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The counts in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl SignatureSet {
    /// The multiset of `ids` (in any order, repeats counted).
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> SignatureSet {
        let mut ids: Vec<u32> = ids.into_iter().collect();
        ids.sort_unstable();
        let mut distinct = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for &id in &ids {
            match distinct.last() {
                Some(&last) if last == id => {
                    if let Some(c) = counts.last_mut() {
                        *c += 1;
                    }
                }
                _ => {
                    distinct.push(id);
                    counts.push(1);
                }
            }
        }
        distinct.shrink_to_fit();
        SignatureSet {
            ids: distinct,
            counts: Counts::new(&counts),
            total: ids.len() as u32,
        }
    }

    /// `(id, count)` of every signature, ids ascending.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ids.iter().copied().zip(self.counts.iter())
    }

    /// Whether the document has no (kept) signatures.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Sum of min counts with `other` (the multiset intersection size).
    pub fn intersection(&self, other: &SignatureSet) -> u32 {
        let (mut i, mut j, mut inter) = (0, 0, 0);
        while i < self.ids.len() && j < other.ids.len() {
            match self.ids[i].cmp(&other.ids[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    inter += self.counts.get(i).min(other.counts.get(j));
                    i += 1;
                    j += 1;
                }
            }
        }
        inter
    }
}

/// Multiset Jaccard from the intersection size and the two multiset sizes.
pub fn similarity(intersection: u32, total_a: u32, total_b: u32) -> f64 {
    let union = total_a + total_b - intersection;
    if union == 0 {
        0.0
    } else {
        f64::from(intersection) / f64::from(union)
    }
}

/// The multiset Jaccard of two documents: Σ min counts / Σ max counts (0 when both are empty).
pub fn jaccard(a: &SignatureSet, b: &SignatureSet) -> f64 {
    similarity(a.intersection(b), a.total, b.total)
}

/// A collection's signatures, ready for matching.
#[derive(Debug, Clone, Default)]
pub struct SignedCollection {
    /// One set per document, indexed by [`DocId`]; empty for documents left out.
    pub sets: Vec<SignatureSet>,
    /// Number of distinct signatures kept.
    pub vocabulary: usize,
    /// Number of distinct signatures the IDF band dropped.
    pub dropped_by_idf: usize,
    /// Documents with fewer than the minimum number of signatures (left out of matching).
    pub too_few: Vec<DocId>,
}

impl SignedCollection {
    /// Build dense sets from raw per-document hash multisets.
    ///
    /// Ids are assigned in ascending hash order, so the result does not depend on thread count
    /// or document order beyond the input's. `idf_band` is on the normalised IDF
    /// `ln(N/df)/ln(N)` with `N` the number of documents.
    pub fn build(raw: Vec<Vec<u64>>, idf_band: Option<(f64, f64)>, min_signatures: usize) -> Self {
        // Provisional ids in order of first sight, then renumbered by ascending hash. One map
        // of the distinct hashes instead of a sorted copy of every occurrence, and each page's
        // hashes freed as soon as its ids are made: the peak holds about one copy of the
        // collection's signatures, not three.
        // Signature hashes are mixed already: each is its own bucket hash.
        let mut id_of: HashMap<u64, u32, crate::token::TermHashed> = HashMap::default();
        for &h in raw.iter().flatten() {
            let next = id_of.len() as u32;
            id_of.entry(h).or_insert(next);
        }
        let mut distinct: Vec<(u64, u32)> = id_of.iter().map(|(&h, &i)| (h, i)).collect();
        distinct.sort_unstable();
        let mut rank = vec![0u32; distinct.len()];
        for (r, &(_, provisional)) in distinct.iter().enumerate() {
            rank[provisional as usize] = r as u32;
        }
        for id in id_of.values_mut() {
            *id = rank[*id as usize];
        }
        let n_distinct = distinct.len();
        drop(distinct);
        drop(rank);
        let n_docs = raw.len();
        let per_doc: Vec<Vec<(u32, u32)>> = raw
            .into_par_iter()
            .map(|hashes| {
                let mut ids: Vec<u32> = hashes.iter().map(|h| id_of[h]).collect();
                drop(hashes);
                ids.sort_unstable();
                let mut out: Vec<(u32, u32)> = Vec::new();
                for id in ids {
                    match out.last_mut() {
                        Some((last, c)) if *last == id => *c += 1,
                        _ => out.push((id, 1)),
                    }
                }
                out.shrink_to_fit();
                out
            })
            .collect();
        drop(id_of);
        let mut keep = vec![true; n_distinct];
        let mut dropped_by_idf = 0;
        if let Some((lo, hi)) = idf_band {
            let mut df = vec![0u32; n_distinct];
            for doc in &per_doc {
                for &(id, _) in doc {
                    df[id as usize] += 1;
                }
            }
            let n = n_docs.max(2) as f64;
            for (k, &d) in keep.iter_mut().zip(&df) {
                let idf = (n / f64::from(d.max(1))).ln() / n.ln();
                if idf < lo - 1e-12 || idf > hi + 1e-12 {
                    *k = false;
                    dropped_by_idf += 1;
                }
            }
        }
        // Renumber kept ids densely (order preserved, so sets stay sorted).
        let mut new_id = vec![u32::MAX; n_distinct];
        let mut vocabulary = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                new_id[i] = vocabulary;
                vocabulary += 1;
            }
        }
        let sets: Vec<SignatureSet> = per_doc
            .into_par_iter()
            .map(|mut doc| {
                doc.retain(|&(id, _)| keep[id as usize]);
                let total: u32 = doc.iter().map(|&(_, c)| c).sum();
                if (total as usize) < min_signatures.max(1) {
                    return SignatureSet::default();
                }
                let counts: Vec<u32> = doc.iter().map(|&(_, c)| c).collect();
                SignatureSet {
                    ids: doc.iter().map(|&(id, _)| new_id[id as usize]).collect(),
                    counts: Counts::new(&counts),
                    total,
                }
            })
            .collect();
        // A set is empty exactly when its page had too few signatures (at least one is kept).
        let too_few = (sets.iter().enumerate())
            .filter(|(_, set)| set.total == 0)
            .map(|(d, _)| DocId(d as u32))
            .collect();
        SignedCollection {
            sets,
            vocabulary: vocabulary as usize,
            dropped_by_idf,
            too_few,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(pairs: &[(u32, u32)]) -> SignatureSet {
        SignatureSet {
            ids: pairs.iter().map(|p| p.0).collect(),
            counts: Counts::new(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()),
            total: pairs.iter().map(|p| p.1).sum(),
        }
    }

    #[test]
    fn multiset_jaccard_is_sum_min_over_sum_max() {
        let a = set(&[(1, 2), (2, 1), (5, 3)]);
        let b = set(&[(1, 1), (5, 3), (7, 2)]);
        // min: 1 + 0 + 3 + 0 = 4; max: 2 + 1 + 3 + 2 = 8
        assert!((jaccard(&a, &b) - 0.5).abs() < 1e-12);
        assert_eq!(jaccard(&a, &a), 1.0);
        assert_eq!(jaccard(&a, &SignatureSet::default()), 0.0);
    }

    #[test]
    fn build_counts_filters_and_drops_small_documents() {
        let raw = vec![
            vec![10, 10, 20, 30],
            vec![10, 20, 40],
            vec![10, 50],
            vec![10, 20, 60, 60],
        ];
        let all = SignedCollection::build(raw.clone(), None, 0);
        assert_eq!(all.vocabulary, 6);
        assert_eq!(all.sets[0], set(&[(0, 2), (1, 1), (2, 1)]));
        assert!(all.too_few.is_empty());
        // hash 10 is in all 4 documents: idf 0, dropped by a band starting at 0.1.
        let band = SignedCollection::build(raw, Some((0.1, 1.0)), 2);
        assert_eq!(band.dropped_by_idf, 1);
        assert_eq!(band.vocabulary, 5);
        assert_eq!(band.too_few, [DocId(2)]);
        assert!(band.sets[2].is_empty());
        assert_eq!(band.sets[3].total, 3);
    }
}
