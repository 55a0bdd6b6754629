//! Henzinger's combined algorithm (SIGIR 2006, §3.5) as a detector: "B-similar pairs … kept
//! when C-similarity ≥ 355". The candidates are the pairs with at least `min_b` equal
//! supershingles (Alg. B, [`super::shingles`]); their score is the C-similarity / 384 of their
//! Alg. C strings ([`super::simhash`]), so the paper's rule is the threshold `355/384`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::scored::{PairScore, ScoredPrepared, scored, term_hashes};
use super::shingles::b_similar_pairs;
use super::{Algo, Detector, DetectorInfo, PAIR_MODES, Prepared};
use crate::progress::Progress;
use crate::signature::shingles::{ShingleParams, b_similarity, supershingle_vectors};
use crate::signature::simhash::{SimhashParams, c_similarity, simhashes};
use crate::token::TokenSource;
use crate::{Document, Result};

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "combined",
    finds: "near-identical pages: Alg. B pairs confirmed by Alg. C",
    score: "agreeing bits / 384 of B-similar pairs",
    default_threshold: 355.0 / 384.0,
    paper_threshold: 355.0 / 384.0,
    modes: PAIR_MODES,
};

/// Parameters of the combined algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CombinedOptions {
    /// Tokens of both stages (Henzinger §2 by default).
    pub tokens: TokenSource,
    /// Alg. B parameters.
    pub shingles: ShingleParams,
    /// Seed of Alg. C's projections.
    pub simhash_seed: u64,
    /// Equal supershingles needed by the first stage (2 in §3.5).
    pub min_b: u32,
}

impl Default for CombinedOptions {
    fn default() -> Self {
        CombinedOptions {
            tokens: TokenSource::Henzinger,
            shingles: ShingleParams::default(),
            simhash_seed: 0,
            min_b: 2,
        }
    }
}

/// The combined algorithm behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct CombinedDetector {
    options: CombinedOptions,
}

impl CombinedDetector {
    /// A detector with these parameters, checked.
    pub fn new(options: &CombinedOptions) -> Result<Self> {
        options.shingles.validate()?;
        Ok(CombinedDetector {
            options: options.clone(),
        })
    }
}

/// Scores a pair: agreeing bits / 384 of pairs with at least `min_b` equal supershingles.
#[derive(Debug, Clone)]
pub struct CombinedScore {
    /// Supershingle vectors.
    pub supershingles: Vec<Vec<u64>>,
    /// 384-bit strings.
    pub strings: Vec<Vec<u64>>,
    /// Equal supershingles needed.
    pub min_b: u32,
}

impl PairScore for CombinedScore {
    fn score(&self, a: usize, b: usize) -> Option<f64> {
        let (x, y) = (self.supershingles.get(a)?, self.supershingles.get(b)?);
        let b_sim = b_similarity(x, y);
        (!x.is_empty() && b_sim >= self.min_b)
            .then(|| f64::from(c_similarity(&self.strings[a], &self.strings[b])) / 384.0)
    }
}

impl Detector for CombinedDetector {
    fn algo(&self) -> Algo {
        Algo::Combined
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        let tokens = term_hashes(docs, o.tokens, progress)?;
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
        let min_b = o.min_b.max(1);
        let pairs = b_similar_pairs(&vectors, min_b)
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
            scorer: CombinedScore {
                supershingles: vectors,
                strings,
                min_b,
            },
        }))
    }
}
