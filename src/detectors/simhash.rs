//! Charikar's random projections, Henzinger's Alg. C (SIGIR 2006, §2, §3.3) as a detector:
//! tokens (Henzinger's by default) in, 384-bit strings out
//! ([`crate::signature::simhash`]). Candidates come from 12 pieces of 32 bits (two strings
//! agreeing on ≥ 372 bits share a piece), or from every pair below the pieces' tolerance.
//! Score: agreeing bits / 384, so the paper's "C-similar iff ≥ 372 agreeing bits" is the
//! threshold `372/384`. [`SimhashPrepared`] serves the 64-bit variant of
//! [`super::simhash64`] as well.

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::scored::{candidate_counts, detection_from_pairs, scored, term_hashes};
use super::{Algo, Detection, Detector, DetectorInfo, PAIR_MODES, Prepared, RunSpec};
use crate::matching::pieces::{PieceScheme, similar_pairs};
use crate::progress::Progress;
use crate::signature::simhash::{BitString, SimhashParams, c_similarity, simhashes};
use crate::token::TokenSource;
use crate::{DocId, Document, Result};

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "simhash",
    finds: "near-identical pages by their weighted terms (Alg. C, 384 bits)",
    score: "agreeing bits / 384 of the pages' simhashes",
    default_threshold: 0.80,
    paper_threshold: 372.0 / 384.0,
    modes: PAIR_MODES,
};

/// How simhash candidates are generated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SimhashCandidates {
    /// Pieces when they are complete at the run's threshold (at least `b − k` agreeing bits),
    /// else every pair: always complete, fast at the paper thresholds.
    #[default]
    Auto,
    /// Pieces / permuted tables (Henzinger §3.3, Manku et al.): fast, complete only within the
    /// scheme's tolerance; below it, only the pairs that happen to share a piece.
    Pieces,
    /// Every pair compared: complete at any threshold, quadratic.
    AllPairs,
}

/// Parameters of a simhash detector (384 or 64 bits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimhashOptions {
    /// Tokens (Henzinger §2 by default).
    pub tokens: TokenSource,
    /// Seed of the projections.
    pub seed: u64,
    /// Candidate generation.
    pub candidates: SimhashCandidates,
}

impl Default for SimhashOptions {
    fn default() -> Self {
        SimhashOptions {
            tokens: TokenSource::Henzinger,
            seed: 0,
            candidates: SimhashCandidates::Auto,
        }
    }
}

/// A simhash detector of `bits` bits behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct SimhashDetector {
    algo: Algo,
    bits: usize,
    options: SimhashOptions,
}

impl SimhashDetector {
    /// Alg. C: 384 bits, 12 pieces of 32.
    pub fn new(options: &SimhashOptions) -> Result<Self> {
        Ok(Self::with_bits(Algo::Simhash, 384, options))
    }

    /// A detector of `bits` bits registered as `algo` (for [`super::simhash64`]).
    pub fn with_bits(algo: Algo, bits: usize, options: &SimhashOptions) -> Self {
        SimhashDetector {
            algo,
            bits,
            options: options.clone(),
        }
    }
}

impl Detector for SimhashDetector {
    fn algo(&self) -> Algo {
        self.algo
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        let bits = self.bits;
        let tokens = term_hashes(docs, o.tokens, progress)?;
        progress.stage("simhash", 0);
        let strings = simhashes(&tokens, &SimhashParams { bits, seed: o.seed })?;
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
        let piece_pairs = match o.candidates {
            SimhashCandidates::Pieces | SimhashCandidates::Auto => {
                similar_pairs(&usable, &scheme, 0)?
            }
            SimhashCandidates::AllPairs => Vec::new(),
        };
        Ok(Arc::new(SimhashPrepared {
            algo: self.algo,
            strings: usable,
            bits,
            candidates: o.candidates,
            piece_pairs,
            complete_from: (scheme.bits - scheme.tolerance) as u32,
            empty: tokens.iter().filter(|t| t.is_empty()).count(),
        }))
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

impl SimhashPrepared {
    /// Every pair of usable strings agreeing on at least `min_agree` bits, and the candidates
    /// per document (all others).
    fn all_pairs(
        &self,
        min_agree: u32,
        progress: &Progress,
    ) -> (Vec<crate::matching::ScoredPair>, Vec<u32>) {
        progress.stage("all pairs", self.len() as u64);
        let bits = self.bits as f64;
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
        spec.check(self.algo)?;
        let bits = self.bits as f64;
        let min_agree = (spec.matching.threshold * bits - 1e-9).ceil().max(0.0) as u32;
        let use_pieces = match self.candidates {
            SimhashCandidates::Pieces => true,
            SimhashCandidates::Auto => min_agree >= self.complete_from,
            SimhashCandidates::AllPairs => false,
        };
        let (pairs, counts) = if use_pieces {
            let counts =
                candidate_counts(self.len(), self.piece_pairs.iter().map(|&(a, b, _)| (a, b)));
            let pairs = self
                .piece_pairs
                .iter()
                .filter(|p| p.2 >= min_agree)
                .map(|&(a, b, c)| scored(a, b, f64::from(c) / bits))
                .collect();
            (pairs, counts)
        } else {
            self.all_pairs(min_agree, progress)
        };
        progress.check()?;
        detection_from_pairs(self.algo, spec, self.len(), pairs, &counts)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let (x, y) = (self.strings.get(a.index())?, self.strings.get(b.index())?);
        (!x.is_empty() && !y.is_empty()).then(|| f64::from(c_similarity(x, y)) / self.bits as f64)
    }
}
