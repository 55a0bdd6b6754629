//! MinHash + LSH bands (Broder 1997; Indyk–Motwani banding as datasketch does it) as a
//! detector: word `k`-shingles of the page text in, MinHash signatures of `perm` min-values
//! out ([`crate::signature::shingles::minhash_vectors`]). At each run the LSH bands are chosen
//! for the run's threshold (datasketch's rule, equal weight to false positives and negatives)
//! unless fixed, and a candidate becomes a pair when its Jaccard estimate reaches the threshold
//! (a bare datasketch `query` returns unverified candidates). Score: the Jaccard estimate.
//!
//! **Against datasketch** (`python3 benches/datasketch_compare.py`; same terms, word 4-shingles,
//! 128 permutations, threshold 0.4, LSH 32×4 on both sides, candidates checked by the Jaccard
//! estimate on both sides; only MinHash + LSH + check is timed):
//! - goldset-dev, 30 hash seeds (`--seeds 30`): samecore 0.023 s on 2 threads vs datasketch
//!   0.92 s, median 37.5× (24.7–44.3×). Pair F1 0.576 ± 0.035 vs 0.582 ± 0.027 (sd). Over 130
//!   seeds (1–130) the paired difference is −0.004 ± 0.004 (standard error; 95% interval
//!   −0.012 to +0.004): equal within the noise, since one seed's F1 moves by ±0.03 with the hash
//!   functions, far more than the two sides differ. At threshold 0.3 (30 seeds): 0.344 vs
//!   0.345, difference −0.001 ± 0.024; at 0.5: 0.423 vs 0.430, −0.007 ± 0.006.
//! - the generated 100k-page archive (109,565 pages, `--gold` its gold file), seeds 1–3: 3.07 /
//!   2.21 / 2.66 s vs 70.4 / 70.5 / 78.4 s, i.e. 23.0× / 31.9× / 29.4×; pair F1 0.348 / 0.298 /
//!   0.375 vs 0.323 / 0.361 / 0.334. Generated pages share template phrases, so which common
//!   shingles win a min-hash varies a lot with the seed on both sides: LSH candidates were 19.3 M
//!   (samecore, seed 1) vs 3.1 M (datasketch, seed 1).

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::scored::{candidate_counts, detection_from_pairs, scored, term_hashes};
use super::{Algo, Detection, Detector, DetectorInfo, PAIR_MODES, Prepared, RunSpec};
use crate::matching::lsh::{Banding, lsh_candidates, optimal_bands};
use crate::progress::Progress;
use crate::signature::shingles::{jaccard_estimate, minhash_vectors};
use crate::token::TokenSource;
use crate::{DocId, Document, Error, Result};

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "minhash",
    finds: "pages sharing most of their 4-word shingles of text",
    score: "estimated Jaccard similarity of the pages' word shingles",
    default_threshold: 0.12,
    paper_threshold: 0.5,
    modes: PAIR_MODES,
};

/// Parameters of MinHash + LSH.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinHashOptions {
    /// Tokens (visible text by default).
    pub tokens: TokenSource,
    /// Tokens per shingle.
    pub k: usize,
    /// Permutations (min-values).
    pub perm: usize,
    /// LSH `(bands, rows)`; `None` picks them for the threshold as datasketch does.
    pub bands: Option<(usize, usize)>,
    /// Seed of the hash functions.
    pub seed: u64,
}

impl Default for MinHashOptions {
    fn default() -> Self {
        MinHashOptions {
            tokens: TokenSource::Text,
            k: 4,
            perm: 128,
            bands: None,
            seed: 0,
        }
    }
}

/// MinHash + LSH behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct MinHashDetector {
    options: MinHashOptions,
}

impl MinHashDetector {
    /// A detector with these parameters, checked.
    pub fn new(options: &MinHashOptions) -> Result<Self> {
        if options.k == 0 || options.perm == 0 {
            return Err(Error::InvalidParameter(
                "MinHash needs k > 0 and at least one permutation".to_string(),
            ));
        }
        if let Some((b, r)) = options.bands
            && (b == 0 || r == 0 || b * r > options.perm)
        {
            return Err(Error::InvalidParameter(format!(
                "LSH bands {b} x rows {r} do not fit {} permutations",
                options.perm
            )));
        }
        Ok(MinHashDetector {
            options: options.clone(),
        })
    }
}

impl Detector for MinHashDetector {
    fn algo(&self) -> Algo {
        Algo::MinHash
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        let tokens = term_hashes(docs, o.tokens, progress)?;
        progress.stage("minhash", 0);
        let signatures = minhash_vectors(&tokens, o.k, o.perm, o.seed);
        progress.check()?;
        Ok(Arc::new(MinHashPrepared {
            signatures,
            num_perm: o.perm,
            bands: o.bands.map(|(bands, rows)| Banding { bands, rows }),
        }))
    }
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
        spec.check(Algo::MinHash)?;
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
