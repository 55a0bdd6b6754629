//! The near-duplicate detectors of the literature behind the common [`crate::detect::Detector`]
//! trait, on the same footing as SpotSigs: same documents in, same [`Detection`] out (scored
//! pairs, declarations, clusters), so `samecore run|eval --algo NAME` and the sweeps treat them
//! alike.
//!
//! Which one should you use?
//!
//! | `--algo` | what | paper | score in `[0, 1]` |
//! | --- | --- | --- | --- |
//! | `shingles` | Broder Alg. B: supershingles | Henzinger §2 | equal supershingles / `m'` |
//! | `minhash` | MinHash + LSH bands (datasketch-style) | Broder; Indyk–Motwani | Jaccard estimate |
//! | `simhash` | Charikar Alg. C, 384 bits, 12 pieces of 32 | Henzinger §2, §3.3 | agreeing bits / 384 |
//! | `simhash64` | 64-bit simhash, permuted tables | Manku et al. 2007 | agreeing bits / 64 |
//! | `combined` | B-similar pairs kept if C-similar enough | Henzinger §3.5 | agreeing bits / 384 |
//! | `chunks` | exact copies, then shared chunks (lines, words) | Shivakumar & Garcia-Molina §2 | shared / smaller chunk count |
//! | `projection` | random projection + Hyperlink Map | Di Iorio et al. §2–3 | `1 − ‖ΔR‖∞` |
//!
//! On same-core news pages (goldset-dev: one story in many sites' frames) none of them comes
//! near SpotSigs (pairwise F1 0.93): MinHash-LSH on 4-word shingles of the text is the best of
//! them (0.75 at Jaccard 0.12, mean of 5 signature seeds, 0.70–0.83), then 4-word chunks (0.61), Alg. C at 0.80 (0.54), projection
//! (0.29), simhash64 (0.32); Alg. B and the combined algorithm, built to find pages that are
//! *almost identical*, find next to nothing there (F1 < 0.01) — as Henzinger's paper would
//! predict for pages whose frames differ. Use them for what they were made for: mirrors,
//! recrawls and URL-only differences (see `benches/henzinger_counts.rs`).
//!
//! **MinHash-LSH against datasketch** (`python3 benches/datasketch_compare.py`; same terms,
//! word 4-shingles, 128 permutations, threshold 0.4, LSH 32×4 on both sides, candidates checked
//! by the Jaccard estimate on both sides; only MinHash + LSH + check is timed):
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
//!
//! Every detector finds *all* pairs at or above its threshold that its candidate scheme
//! reaches (so runs keep `pairs_complete` and re-cluster at higher thresholds without matching
//! again); declarations are then made as Incremental matching would make them from those pairs
//! ([`crate::matching::declarations_from_pairs`], seeded order), and clusters follow the run's
//! [`crate::cluster::ClusterRule`]. Per-document work (tokens, signatures, candidate pairs) is done
//! once in `prepare`, in parallel; a run only filters and clusters.
//!
//! [`report`] has Henzinger's breakdowns: same-site / different-site pairs, pairs per B- and
//! C-similarity, degree distributions.

pub mod henzinger;
pub mod overlap;
pub mod report;

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::detect::{Algo, Detection, Detector, Prepared, RunSpec};
use crate::engine::Progress;
use crate::matching::{
    self, DocTrace, MatchOutcome, Mode, ScoredPair, Trace, declarations_from_pairs,
};
use crate::signature::chunks::Chunking;
use crate::signature::projection::ProjectionParams;
use crate::signature::shingles::ShingleParams;
use crate::token::{TokenSource, term_hash};
use crate::{DocId, Document, Error, Result};

/// Default thresholds, chosen on goldset-dev (best pairwise F1 of a sweep; see the report of
/// issue 6 and `tests/detectors.rs`). Paper defaults are in [`paper_threshold`].
pub fn default_threshold(algo: Algo) -> f64 {
    match algo {
        Algo::SpotSigs => crate::detect::DEFAULT_SPOTSIGS_THRESHOLD,
        Algo::Shingles => 1.0 / 6.0,
        Algo::MinHash => 0.12,
        Algo::Simhash => 0.80,
        Algo::Simhash64 => 0.82,
        Algo::Combined => 355.0 / 384.0,
        Algo::Chunks => 0.04,
        Algo::Projection => 0.86,
    }
}

/// The threshold the algorithm's paper uses, as a score of this module: Alg. B 2 of 6
/// supershingles, Alg. C 372 of 384 bits, the combined algorithm 355, simhash64 3 differing bits
/// of 64 (Manku et al.), datasketch's default LSH threshold 0.5, the chunk overlap's `T` alone
/// (score 0). Di Iorio et al. give no value of `D`: projection's is its default.
pub fn paper_threshold(algo: Algo) -> f64 {
    match algo {
        Algo::SpotSigs => crate::detect::DEFAULT_SPOTSIGS_THRESHOLD,
        Algo::Shingles => 2.0 / 6.0,
        Algo::MinHash => 0.5,
        Algo::Simhash => 372.0 / 384.0,
        Algo::Simhash64 => 61.0 / 64.0,
        Algo::Combined => 355.0 / 384.0,
        Algo::Chunks => 0.0,
        Algo::Projection => default_threshold(Algo::Projection),
    }
}

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

/// Parameters of the detectors of this module (SpotSigs has its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiteratureOptions {
    /// Tokens of Alg. B, Alg. C, simhash64 and the combined algorithm (Henzinger §2 by default).
    pub henzinger_tokens: TokenSource,
    /// Alg. B parameters (`k, m, l`, seed).
    pub shingles: ShingleParams,
    /// Tokens of MinHash.
    pub minhash_tokens: TokenSource,
    /// Tokens per MinHash shingle.
    pub minhash_k: usize,
    /// MinHash permutations (min-values).
    pub minhash_perm: usize,
    /// LSH `(bands, rows)`; `None` picks them for the threshold as datasketch does.
    pub minhash_bands: Option<(usize, usize)>,
    /// Seed of the projections of Alg. C and simhash64.
    pub simhash_seed: u64,
    /// Simhash candidate generation.
    pub simhash_candidates: SimhashCandidates,
    /// Minimum B-similarity of the combined algorithm's first stage (2 in §3.5).
    pub combined_min_b: u32,
    /// Chunking of the chunk-overlap detector.
    pub chunking: Chunking,
    /// Minimum shared chunks `T`.
    pub chunk_min_shared: u32,
    /// Counters of coarse counting; 0 uses the sort-based method.
    pub chunk_buckets: usize,
    /// Tokens of the random projection's bag of words.
    pub projection_tokens: TokenSource,
    /// Random projection and Hyperlink Map parameters.
    pub projection: ProjectionParams,
}

impl Default for LiteratureOptions {
    fn default() -> Self {
        LiteratureOptions {
            henzinger_tokens: TokenSource::Henzinger,
            shingles: ShingleParams::default(),
            minhash_tokens: TokenSource::Text,
            minhash_k: 4,
            minhash_perm: 128,
            minhash_bands: None,
            simhash_seed: 0,
            simhash_candidates: SimhashCandidates::Auto,
            combined_min_b: 2,
            chunking: Chunking::Words(4),
            chunk_min_shared: 3,
            chunk_buckets: 0,
            projection_tokens: TokenSource::Text,
            projection: ProjectionParams::default(),
        }
    }
}

/// Term hashes of every document's terms under `source`, in parallel.
pub fn term_hashes(
    docs: &[Document],
    source: TokenSource,
    progress: &Progress,
) -> Result<Vec<Vec<u64>>> {
    progress.stage("tokens", docs.len() as u64);
    let out: Vec<Vec<u64>> = docs
        .par_iter()
        .map(|d| {
            if progress.is_cancelled() {
                return Vec::new();
            }
            let mut v = Vec::new();
            source.for_each_term(&d.html.text(), d.url.as_deref(), |t| v.push(term_hash(t)));
            progress.advance(1);
            v
        })
        .collect();
    progress.check()?;
    Ok(out)
}

/// Check a run's threshold.
pub(crate) fn check_threshold(spec: &RunSpec) -> Result<()> {
    let t = spec.matching.threshold;
    if !(0.0..=1.0).contains(&t) {
        return Err(Error::InvalidParameter(format!(
            "threshold {t} is not in [0, 1]"
        )));
    }
    Ok(())
}

/// A [`Detection`] from every pair at or above the threshold: declarations as Incremental
/// matching (or Seeded, with its seeds first) would make them in the run's seeded order.
/// `candidates[d]` is the number of candidates of document `d` that were scored (the trace).
pub fn detection_from_pairs(
    algo: Algo,
    spec: &RunSpec,
    n: usize,
    mut pairs: Vec<ScoredPair>,
    candidates: &[u32],
) -> Result<Detection> {
    check_threshold(spec)?;
    let m = &spec.matching;
    if let Some(bad) = m.seeds.iter().find(|d| d.index() >= n) {
        return Err(Error::InvalidParameter(format!(
            "seed document {} is not in the collection",
            bad.0
        )));
    }
    pairs.retain(|p| p.score >= m.threshold);
    pairs.sort_by_key(|p| (p.a, p.b));
    let (first, index_first) = if m.mode == Mode::Seeded {
        (&m.seeds[..], m.seeds.len())
    } else {
        (&[][..], 0)
    };
    let order = matching::processing_order(n, m.seed, first);
    let matched = declarations_from_pairs(
        n,
        &pairs,
        &order,
        index_first,
        m.threshold,
        m.guess,
        m.add_duplicates,
    );
    let trace = Trace {
        docs: order
            .iter()
            .map(|&d| DocTrace {
                doc: d,
                colliding: candidates.get(d.index()).copied().unwrap_or(0),
                compared: candidates.get(d.index()).copied().unwrap_or(0),
                avoided: 0,
                nanos: 0,
            })
            .collect(),
        index_size: Vec::new(),
    };
    let outcome = MatchOutcome {
        order,
        matched,
        pairs,
        pairs_complete: true,
        trace,
    };
    Ok(Detection::new(algo, spec.clone(), outcome))
}

/// Candidates per document of a pair list.
pub(crate) fn candidate_counts(n: usize, pairs: impl IntoIterator<Item = (u32, u32)>) -> Vec<u32> {
    let mut c = vec![0u32; n];
    for (a, b) in pairs {
        c[a as usize] += 1;
        c[b as usize] += 1;
    }
    c
}

/// A scored pair from raw ids.
pub(crate) fn scored(a: u32, b: u32, score: f64) -> ScoredPair {
    ScoredPair::new(DocId(a), DocId(b), score)
}

/// Every detector of this module behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct LiteratureDetector {
    algo: Algo,
    options: LiteratureOptions,
}

impl LiteratureDetector {
    /// The detector for `algo` (any but SpotSigs) with `options`, parameters checked.
    pub fn new(algo: Algo, options: &LiteratureOptions) -> Result<Self> {
        if algo == Algo::SpotSigs {
            return Err(Error::InvalidParameter(
                "SpotSigs is not a detector of crate::detectors".to_string(),
            ));
        }
        options.shingles.validate()?;
        options.chunking.validate()?;
        options.projection.validate()?;
        if options.minhash_k == 0 || options.minhash_perm == 0 {
            return Err(Error::InvalidParameter(
                "MinHash needs k > 0 and at least one permutation".to_string(),
            ));
        }
        if let Some((b, r)) = options.minhash_bands
            && (b == 0 || r == 0 || b * r > options.minhash_perm)
        {
            return Err(Error::InvalidParameter(format!(
                "LSH bands {b} x rows {r} do not fit {} permutations",
                options.minhash_perm
            )));
        }
        Ok(LiteratureDetector {
            algo,
            options: options.clone(),
        })
    }

    /// The parameters.
    pub fn options(&self) -> &LiteratureOptions {
        &self.options
    }
}

impl Detector for LiteratureDetector {
    fn algo(&self) -> Algo {
        self.algo
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        match self.algo {
            Algo::Shingles => henzinger::prepare_shingles(docs, o, progress),
            Algo::MinHash => henzinger::prepare_minhash(docs, o, progress),
            Algo::Simhash => henzinger::prepare_simhash(docs, o, 384, progress),
            Algo::Simhash64 => henzinger::prepare_simhash(docs, o, 64, progress),
            Algo::Combined => henzinger::prepare_combined(docs, o, progress),
            Algo::Chunks => overlap::prepare_chunks(docs, o, progress),
            Algo::Projection => overlap::prepare_projection(docs, o, progress),
            Algo::SpotSigs => Err(Error::InvalidParameter(
                "SpotSigs is not a detector of crate::detectors".to_string(),
            )),
        }
    }
}

/// A prepared collection whose candidate pairs are all scored already: a run filters them by
/// its threshold.
#[derive(Debug, Clone)]
pub struct ScoredPrepared {
    /// Which algorithm.
    pub algo: Algo,
    /// Documents.
    pub n: usize,
    /// Documents with nothing to sign (no tokens, no chunks).
    pub unsigned: usize,
    /// Every candidate pair with its score, sorted by ids.
    pub pairs: Vec<ScoredPair>,
    /// What scores a single pair.
    pub scorer: PairScorer,
}

/// The per-document signatures that score any one pair, for [`Prepared::similarity`].
#[derive(Debug, Clone)]
pub enum PairScorer {
    /// Alg. B: equal supershingles / `m'`.
    Supershingles(Vec<Vec<u64>>),
    /// Combined: agreeing bits / 384 of pairs with at least `min_b` equal supershingles.
    Combined {
        /// Supershingle vectors.
        supershingles: Vec<Vec<u64>>,
        /// 384-bit strings.
        strings: Vec<Vec<u64>>,
        /// Equal supershingles needed.
        min_b: u32,
    },
    /// Chunks: 1 for exact copies, else shared distinct chunks / the smaller distinct count.
    Chunks {
        /// Whole-document fingerprints.
        whole: Vec<Option<u64>>,
        /// Distinct chunk fingerprints, sorted.
        sets: Vec<Vec<u64>>,
    },
}

impl PairScorer {
    /// The score of documents `a` and `b`, `None` when one has no signature or the pair is not
    /// a candidate of the detector.
    pub fn score(&self, a: usize, b: usize) -> Option<f64> {
        match self {
            PairScorer::Supershingles(v) => {
                let (x, y) = (v.get(a)?, v.get(b)?);
                (!x.is_empty() && !y.is_empty()).then(|| {
                    f64::from(crate::signature::shingles::b_similarity(x, y)) / x.len() as f64
                })
            }
            PairScorer::Combined {
                supershingles,
                strings,
                min_b,
            } => {
                let (x, y) = (supershingles.get(a)?, supershingles.get(b)?);
                let b_sim = crate::signature::shingles::b_similarity(x, y);
                (!x.is_empty() && b_sim >= *min_b).then(|| {
                    f64::from(crate::signature::simhash::c_similarity(
                        &strings[a],
                        &strings[b],
                    )) / 384.0
                })
            }
            PairScorer::Chunks { whole, sets } => {
                let (x, y) = (sets.get(a)?, sets.get(b)?);
                if x.is_empty() || y.is_empty() {
                    return None;
                }
                if whole[a].is_some() && whole[a] == whole[b] {
                    return Some(1.0);
                }
                let shared = crate::matching::chunk_overlap::shared_count(x, y);
                Some((f64::from(shared) / x.len().min(y.len()) as f64).min(1.0))
            }
        }
    }
}

impl Prepared for ScoredPrepared {
    fn algo(&self) -> Algo {
        self.algo
    }

    fn len(&self) -> usize {
        self.n
    }

    fn unsigned(&self) -> usize {
        self.unsigned
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        progress.check()?;
        let counts = candidate_counts(self.n, self.pairs.iter().map(|p| (p.a.0, p.b.0)));
        let kept = self
            .pairs
            .iter()
            .filter(|p| p.score >= spec.matching.threshold)
            .copied()
            .collect();
        detection_from_pairs(self.algo, spec, self.n, kept, &counts)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        self.scorer.score(a.index(), b.index())
    }
}
