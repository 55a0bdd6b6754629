//! Broder shingling, Henzinger's Alg. B (SIGIR 2006, §2) as a detector: tokens (Henzinger's
//! tokenization by default) in, supershingle vectors out (`k = 8`, `m = 84`, `l = 14`, so
//! `m' = 6` supershingles a page; [`crate::signature::shingles`]). Candidates share a
//! (position, supershingle); score = B-similarity / `m'`, so Henzinger's "B-similar iff ≥ 2
//! equal supershingles" is the threshold `2/6`.

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::scored::{PairScore, ScoredPrepared, scored, term_hashes};
use super::{Algo, Detector, DetectorInfo, PAIR_MODES, Prepared};
use crate::matching::lsh::bucket_pairs;
use crate::progress::Progress;
use crate::signature::shingles::{ShingleParams, b_similarity, supershingle_vectors};
use crate::token::TokenSource;
use crate::{Document, Result};

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "shingles",
    finds: "near-identical pages (mirrors, recrawls); not the same story in another frame",
    score: "equal supershingles / supershingles per page (m' = 6)",
    default_threshold: 1.0 / 6.0,
    paper_threshold: 2.0 / 6.0,
    modes: PAIR_MODES,
};

/// Parameters of Alg. B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShinglesOptions {
    /// Tokens (Henzinger §2 by default).
    pub tokens: TokenSource,
    /// `k, m, l` and the seed of the fingerprinting functions.
    pub params: ShingleParams,
}

impl Default for ShinglesOptions {
    fn default() -> Self {
        ShinglesOptions {
            tokens: TokenSource::Henzinger,
            params: ShingleParams::default(),
        }
    }
}

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

/// Pairs sharing at least one supershingle, with their B-similarity when it is at least
/// `min_b`.
pub fn b_similar_pairs(vectors: &[Vec<u64>], min_b: u32) -> Vec<(u32, u32, u32)> {
    bucket_pairs(&positional_keys(vectors))
        .into_par_iter()
        .filter_map(|(a, b)| {
            let s = b_similarity(&vectors[a as usize], &vectors[b as usize]);
            (s >= min_b).then_some((a, b, s))
        })
        .collect()
}

/// Alg. B behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct ShinglesDetector {
    options: ShinglesOptions,
}

impl ShinglesDetector {
    /// A detector with these parameters, checked.
    pub fn new(options: &ShinglesOptions) -> Result<Self> {
        options.params.validate()?;
        Ok(ShinglesDetector {
            options: options.clone(),
        })
    }
}

/// Supershingle vectors score a pair: equal supershingles / `m'`.
#[derive(Debug, Clone)]
pub struct Supershingles(pub Vec<Vec<u64>>);

impl PairScore for Supershingles {
    fn score(&self, a: usize, b: usize) -> Option<f64> {
        let (x, y) = (self.0.get(a)?, self.0.get(b)?);
        (!x.is_empty() && !y.is_empty()).then(|| f64::from(b_similarity(x, y)) / x.len() as f64)
    }
}

impl Detector for ShinglesDetector {
    fn algo(&self) -> Algo {
        Algo::Shingles
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        let tokens = term_hashes(docs, o.tokens, progress)?;
        progress.stage("supershingles", 0);
        let vectors = supershingle_vectors(&tokens, &o.params)?;
        progress.check()?;
        progress.stage("pairs", 0);
        let m_prime = o.params.supershingles().max(1) as f64;
        let pairs = b_similar_pairs(&vectors, 1)
            .into_iter()
            .map(|(a, b, s)| scored(a, b, f64::from(s) / m_prime))
            .collect();
        Ok(Arc::new(ScoredPrepared {
            algo: Algo::Shingles,
            n: docs.len(),
            unsigned: vectors.iter().filter(|v| v.is_empty()).count(),
            pairs,
            scorer: Supershingles(vectors),
        }))
    }
}
