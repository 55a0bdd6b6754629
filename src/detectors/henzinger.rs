//! Alg. B, MinHash-LSH, Alg. C, simhash64 and the combined algorithm as detectors (Henzinger,
//! SIGIR 2006, §2, §3.3, §3.5): documents in, [`Prepared`] collections out.
//!
//! - `shingles`: supershingle vectors; candidates share a (position, supershingle); score =
//!   B-similarity / `m'`, so Henzinger's "B-similar iff ≥ 2" is the threshold `2/6`.
//! - `minhash`: MinHash signatures; at each run LSH bands are chosen for the run's threshold
//!   (datasketch's rule) unless fixed; a candidate is a pair when its Jaccard estimate reaches the
//!   threshold (a bare datasketch `query` returns unverified candidates).
//! - `simhash` / `simhash64`: bit strings; candidates by pieces (12 × 32 bits) or permuted
//!   tables (6 blocks, 3 bits), or every pair; score = agreeing bits / `b`.
//! - `combined` (§3.5): "B-similar pairs … kept when C-similarity ≥ 355": the candidates are the
//!   pairs with at least `combined_min_b` equal supershingles, the score their C-similarity / 384.

use std::sync::Arc;

use rayon::prelude::*;

use super::{
    LiteratureOptions, PairScorer, ScoredPrepared, SimhashCandidates, candidate_counts,
    check_threshold, detection_from_pairs, scored, term_hashes,
};
use crate::detect::{Algo, Detection, Prepared, RunSpec};
use crate::engine::Progress;
use crate::matching::lsh::{Banding, bucket_pairs, lsh_candidates, optimal_bands};
use crate::matching::pieces::{PieceScheme, similar_pairs};
use crate::signature::shingles::{
    b_similarity, jaccard_estimate, minhash_vectors, supershingle_vectors,
};
use crate::signature::simhash::{BitString, SimhashParams, c_similarity, simhashes};
use crate::{DocId, Document, Result};

/// Keys for candidate generation: supershingle `j` of a page keyed with its position.
fn positional_keys(vectors: &[Vec<u64>]) -> Vec<Vec<u64>> {
    vectors
        .iter()
        .map(|v| {
            v.iter()
                .enumerate()
                .map(|(j, &s)| {
                    crate::token::mix64(s ^ (j as u64).wrapping_mul(0x2545_f491_4f6c_dd1d))
                })
                .collect()
        })
        .collect()
}

/// Pairs sharing at least one supershingle, with their B-similarity.
pub fn b_similar_pairs(vectors: &[Vec<u64>], min_b: u32) -> Vec<(u32, u32, u32)> {
    bucket_pairs(&positional_keys(vectors))
        .into_par_iter()
        .filter_map(|(a, b)| {
            let s = b_similarity(&vectors[a as usize], &vectors[b as usize]);
            (s >= min_b).then_some((a, b, s))
        })
        .collect()
}

/// Alg. B.
pub fn prepare_shingles(
    docs: &[Document],
    o: &LiteratureOptions,
    progress: &Progress,
) -> Result<Arc<dyn Prepared>> {
    let tokens = term_hashes(docs, o.henzinger_tokens, progress)?;
    progress.stage("supershingles", 0);
    let vectors = supershingle_vectors(&tokens, &o.shingles)?;
    progress.check()?;
    progress.stage("pairs", 0);
    let m_prime = o.shingles.supershingles().max(1) as f64;
    let pairs = b_similar_pairs(&vectors, 1)
        .into_iter()
        .map(|(a, b, s)| scored(a, b, f64::from(s) / m_prime))
        .collect();
    Ok(Arc::new(ScoredPrepared {
        algo: Algo::Shingles,
        n: docs.len(),
        unsigned: vectors.iter().filter(|v| v.is_empty()).count(),
        pairs,
        scorer: PairScorer::Supershingles(vectors),
    }))
}

/// The combined algorithm (§3.5).
pub fn prepare_combined(
    docs: &[Document],
    o: &LiteratureOptions,
    progress: &Progress,
) -> Result<Arc<dyn Prepared>> {
    let tokens = term_hashes(docs, o.henzinger_tokens, progress)?;
    progress.stage("signatures", 0);
    let vectors = supershingle_vectors(&tokens, &o.shingles)?;
    let strings = simhashes(
        &tokens,
        &SimhashParams {
            bits: 384,
            seed: o.simhash_seed,
        },
    )?;
    progress.check()?;
    progress.stage("pairs", 0);
    let pairs = b_similar_pairs(&vectors, o.combined_min_b.max(1))
        .into_iter()
        .map(|(a, b, _)| {
            let c = c_similarity(&strings[a as usize], &strings[b as usize]);
            scored(a, b, f64::from(c) / 384.0)
        })
        .collect();
    Ok(Arc::new(ScoredPrepared {
        algo: Algo::Combined,
        n: docs.len(),
        unsigned: vectors.iter().filter(|v| v.is_empty()).count(),
        pairs,
        scorer: PairScorer::Combined {
            supershingles: vectors,
            strings,
            min_b: o.combined_min_b.max(1),
        },
    }))
}

/// MinHash signatures, banded at run time.
#[derive(Debug, Clone)]
pub struct MinHashPrepared {
    /// One signature per document (empty for a page with no tokens).
    pub signatures: Vec<Vec<u32>>,
    /// Permutations per signature.
    pub num_perm: usize,
    /// Fixed banding, else chosen per threshold.
    pub bands: Option<Banding>,
}

impl MinHashPrepared {
    /// The banding used at `threshold`.
    pub fn banding(&self, threshold: f64) -> Result<Banding> {
        match self.bands {
            Some(b) => Ok(b),
            None => optimal_bands(threshold, self.num_perm, 0.5, 0.5),
        }
    }
}

/// MinHash + LSH.
pub fn prepare_minhash(
    docs: &[Document],
    o: &LiteratureOptions,
    progress: &Progress,
) -> Result<Arc<dyn Prepared>> {
    let tokens = term_hashes(docs, o.minhash_tokens, progress)?;
    progress.stage("minhash", 0);
    let signatures = minhash_vectors(&tokens, o.minhash_k, o.minhash_perm, o.shingles.seed);
    progress.check()?;
    Ok(Arc::new(MinHashPrepared {
        signatures,
        num_perm: o.minhash_perm,
        bands: o.minhash_bands.map(|(bands, rows)| Banding { bands, rows }),
    }))
}

impl Prepared for MinHashPrepared {
    fn algo(&self) -> Algo {
        Algo::MinHash
    }

    fn len(&self) -> usize {
        self.signatures.len()
    }

    fn unsigned(&self) -> usize {
        self.signatures.iter().filter(|s| s.is_empty()).count()
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        check_threshold(spec)?;
        progress.stage("lsh", 0);
        let banding = self.banding(spec.matching.threshold)?;
        let candidates = lsh_candidates(&self.signatures, &banding);
        progress.check()?;
        let counts = candidate_counts(self.len(), candidates.iter().copied());
        let threshold = spec.matching.threshold;
        let pairs = candidates
            .par_iter()
            .filter_map(|&(a, b)| {
                let s =
                    jaccard_estimate(&self.signatures[a as usize], &self.signatures[b as usize]);
                (s >= threshold).then(|| scored(a, b, s))
            })
            .collect();
        detection_from_pairs(Algo::MinHash, spec, self.len(), pairs, &counts)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let (x, y) = (
            self.signatures.get(a.index())?,
            self.signatures.get(b.index())?,
        );
        (!x.is_empty() && !y.is_empty()).then(|| jaccard_estimate(x, y))
    }
}

/// Simhash bit strings with their piece candidates scored.
#[derive(Debug, Clone)]
pub struct SimhashPrepared {
    /// `Simhash` (384 bits) or `Simhash64`.
    pub algo: Algo,
    /// One bit string per document.
    pub strings: Vec<BitString>,
    /// Bits per string.
    pub bits: usize,
    /// Candidate generation.
    pub candidates: SimhashCandidates,
    /// With pieces: every candidate pair and its agreeing bits, sorted.
    pub piece_pairs: Vec<(u32, u32, u32)>,
    /// Agreeing bits from which the pieces find every pair (`b − k`).
    pub complete_from: u32,
    /// Documents with no tokens.
    pub empty: usize,
}

/// Alg. C (384 bits, 12 pieces) or simhash64 (permuted tables).
pub fn prepare_simhash(
    docs: &[Document],
    o: &LiteratureOptions,
    bits: usize,
    progress: &Progress,
) -> Result<Arc<dyn Prepared>> {
    let tokens = term_hashes(docs, o.henzinger_tokens, progress)?;
    progress.stage("simhash", 0);
    let strings = simhashes(
        &tokens,
        &SimhashParams {
            bits,
            seed: o.simhash_seed,
        },
    )?;
    progress.check()?;
    let scheme = if bits == 384 {
        PieceScheme::henzinger()
    } else {
        PieceScheme::manku()
    };
    // A page without tokens has an all-zero string; keep it out of matching.
    let usable: Vec<BitString> = strings
        .iter()
        .zip(&tokens)
        .map(|(s, t)| if t.is_empty() { Vec::new() } else { s.clone() })
        .collect();
    let piece_pairs = match o.simhash_candidates {
        SimhashCandidates::Pieces | SimhashCandidates::Auto => similar_pairs(&usable, &scheme, 0)?,
        SimhashCandidates::AllPairs => Vec::new(),
    };
    Ok(Arc::new(SimhashPrepared {
        algo: if bits == 384 {
            Algo::Simhash
        } else {
            Algo::Simhash64
        },
        strings: usable,
        bits,
        candidates: o.simhash_candidates,
        piece_pairs,
        complete_from: (scheme.bits - scheme.tolerance) as u32,
        empty: tokens.iter().filter(|t| t.is_empty()).count(),
    }))
}

impl Prepared for SimhashPrepared {
    fn algo(&self) -> Algo {
        self.algo
    }

    fn len(&self) -> usize {
        self.strings.len()
    }

    fn unsigned(&self) -> usize {
        self.empty
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        check_threshold(spec)?;
        let bits = self.bits as f64;
        let min_agree = (spec.matching.threshold * bits - 1e-9).ceil().max(0.0) as u32;
        let use_pieces = match self.candidates {
            SimhashCandidates::Pieces => true,
            SimhashCandidates::Auto => min_agree >= self.complete_from,
            SimhashCandidates::AllPairs => false,
        };
        let (pairs, counts) = match use_pieces {
            true => {
                let counts =
                    candidate_counts(self.len(), self.piece_pairs.iter().map(|&(a, b, _)| (a, b)));
                let pairs = self
                    .piece_pairs
                    .iter()
                    .filter(|p| p.2 >= min_agree)
                    .map(|&(a, b, c)| scored(a, b, f64::from(c) / bits))
                    .collect();
                (pairs, counts)
            }
            false => {
                progress.stage("all pairs", self.len() as u64);
                let n = self.len() as u32;
                let pairs = (0..n)
                    .into_par_iter()
                    .flat_map_iter(|a| {
                        progress.advance(1);
                        let sa = &self.strings[a as usize];
                        (a + 1..n).filter_map(move |b| {
                            let sb = &self.strings[b as usize];
                            if sa.is_empty() || sb.is_empty() {
                                return None;
                            }
                            let c = c_similarity(sa, sb);
                            (c >= min_agree).then(|| scored(a, b, f64::from(c) / bits))
                        })
                    })
                    .collect();
                let usable = self.strings.iter().filter(|s| !s.is_empty()).count() as u32;
                (pairs, vec![usable.saturating_sub(1); self.len()])
            }
        };
        progress.check()?;
        detection_from_pairs(self.algo, spec, self.len(), pairs, &counts)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let (x, y) = (self.strings.get(a.index())?, self.strings.get(b.index())?);
        (!x.is_empty() && !y.is_empty()).then(|| f64::from(c_similarity(x, y)) / self.bits as f64)
    }
}
