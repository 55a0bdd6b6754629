//! The common interface of every near-duplicate detector: documents in, an immutable
//! [`Detection`] out — scored pairs, declarations, clusters with representatives, and the
//! instrumentation of the run.
//!
//! A detector works in two steps so that the expensive part is done once:
//!
//! 1. [`Detector::prepare`]: per-document work (tokenize, sign), parallel over documents, giving
//!    a [`Prepared`] collection.
//! 2. [`Prepared::detect`]: one matching run for a [`RunSpec`] (threshold, mode, seed, …).
//!    Cheap enough to sweep thresholds × seeds; runs are independent and may go in parallel.
//!
//! [`Detection::recluster`] gives the clusters at another threshold without matching again when
//! the run kept every pair at or above its threshold (all-pairs mode) — what the workbench's
//! threshold slider wants.
//!
//! [`Algo`] lists every detector; only SpotSigs exists now, and shingles, minhash, simhash,
//! simhash64, combined, chunks and projection will join behind the same trait. Both steps take a
//! [`Progress`] and stop with [`crate::Error::Cancelled`] when asked to.

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cluster::{ClusterRule, Clustering};
use crate::engine::Progress;
use crate::matching::{self, MatchOutcome, MatchParams, ScoredPair};
use crate::signature::spotsigs::Signer;
use crate::signature::{SignedCollection, SpotSigsParams};
use crate::{Document, Error, Result};

/// Every detector samecore knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Algo {
    /// SpotSigs (Workbench paper; Theobald et al. SIGIR 2008).
    SpotSigs,
    /// Broder shingling, Alg. B of Henzinger §2 ([`crate::detectors`]).
    Shingles,
    /// MinHash + LSH bands.
    MinHash,
    /// Charikar random projections, Alg. C of Henzinger §2 (384 bits).
    Simhash,
    /// 64-bit simhash with permuted tables.
    Simhash64,
    /// Henzinger's combined algorithm (§3.5).
    Combined,
    /// Exact and chunk overlap (Shivakumar & Garcia-Molina).
    Chunks,
    /// Random projection + Hyperlink Map (Di Iorio et al.).
    Projection,
}

impl Algo {
    /// Every algorithm, for loops in tests and benchmarks.
    pub const ALL: [Algo; 8] = [
        Algo::SpotSigs,
        Algo::Shingles,
        Algo::MinHash,
        Algo::Simhash,
        Algo::Simhash64,
        Algo::Combined,
        Algo::Chunks,
        Algo::Projection,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Algo::SpotSigs => "spotsigs",
            Algo::Shingles => "shingles",
            Algo::MinHash => "minhash",
            Algo::Simhash => "simhash",
            Algo::Simhash64 => "simhash64",
            Algo::Combined => "combined",
            Algo::Chunks => "chunks",
            Algo::Projection => "projection",
        }
    }

    /// The threshold used when none is given, chosen on goldset-dev.
    pub fn default_threshold(self) -> f64 {
        match self {
            Algo::SpotSigs => DEFAULT_SPOTSIGS_THRESHOLD,
            other => crate::detectors::default_threshold(other),
        }
    }
}

impl std::str::FromStr for Algo {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Algo::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                let known: Vec<&str> = Algo::ALL.iter().map(|a| a.name()).collect();
                Error::InvalidParameter(format!(
                    "unknown algorithm {s:?} (known: {})",
                    known.join(", ")
                ))
            })
    }
}

/// SpotSigs' default Jaccard threshold (chosen on goldset-dev, see `crate::eval`).
pub const DEFAULT_SPOTSIGS_THRESHOLD: f64 = 0.25;

/// Parameters of every detector; each reads its own part.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DetectorOptions {
    /// SpotSigs signature parameters.
    pub spotsigs: SpotSigsParams,
    /// Parameters of the other detectors ([`crate::detectors`]).
    pub literature: crate::detectors::LiteratureOptions,
}

/// One matching run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Threshold, mode, guess, seed and the other matching options.
    pub matching: MatchParams,
    /// How matches become clusters.
    pub rule: ClusterRule,
}

impl RunSpec {
    /// The default run of `algo`: its default threshold, incremental best guess, seed 0,
    /// representative clusters.
    pub fn default_for(algo: Algo) -> Self {
        RunSpec {
            matching: MatchParams {
                threshold: algo.default_threshold(),
                ..MatchParams::default()
            },
            rule: ClusterRule::default(),
        }
    }
}

/// A detector: parameters in, per-document preparation out.
pub trait Detector: Send + Sync {
    /// Which algorithm this is.
    fn algo(&self) -> Algo;

    /// Tokenize and sign every document (in parallel); the result serves many runs.
    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>>;
}

/// A prepared collection, ready for matching runs.
pub trait Prepared: Send + Sync {
    /// Which algorithm prepared it.
    fn algo(&self) -> Algo;

    /// Number of documents.
    fn len(&self) -> usize;

    /// Whether there are no documents.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Documents left out of matching (too few signatures, empty pages).
    fn unsigned(&self) -> usize;

    /// One matching run.
    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection>;

    /// The similarity of two documents on this detector's scale (what its threshold is
    /// compared with), when it can be told for a single pair; `None` otherwise (a document was
    /// left out, or the detector only scores candidate pairs).
    fn similarity(&self, a: crate::DocId, b: crate::DocId) -> Option<f64> {
        let _ = (a, b);
        None
    }
}

/// The immutable result of one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Detection {
    /// Which algorithm ran.
    pub algo: Algo,
    /// What was run.
    pub spec: RunSpec,
    /// Declarations, scored pairs and instrumentation.
    pub outcome: MatchOutcome,
    /// Clusters by `spec.rule`.
    pub clustering: Clustering,
}

impl Detection {
    /// Build the clusters of a matching outcome by `rule`.
    pub fn new(algo: Algo, spec: RunSpec, outcome: MatchOutcome) -> Self {
        let clustering = cluster(&outcome, spec.rule, spec.matching.threshold);
        Detection {
            algo,
            spec,
            outcome,
            clustering,
        }
    }

    /// Scored pairs (every computed pair at or above the threshold), sorted by ids.
    pub fn pairs(&self) -> &[ScoredPair] {
        &self.outcome.pairs
    }

    /// Clusters at a higher `threshold` without matching again; `None` when this run did not
    /// keep every pair (only all-pairs runs do) or `threshold` is below the run's.
    pub fn recluster(&self, threshold: f64, rule: ClusterRule) -> Option<Clustering> {
        if !self.outcome.pairs_complete || threshold < self.spec.matching.threshold {
            return None;
        }
        let m = &self.spec.matching;
        let n_seeds = if m.mode == matching::Mode::AllPairs {
            m.seeds.len()
        } else {
            0
        };
        let matched = matching::declarations_from_pairs(
            self.outcome.matched.len(),
            &self.outcome.pairs,
            &self.outcome.order,
            n_seeds,
            threshold,
            m.guess,
            m.add_duplicates,
        );
        let outcome = MatchOutcome {
            order: self.outcome.order.clone(),
            matched,
            pairs: self
                .outcome
                .pairs
                .iter()
                .filter(|p| p.score >= threshold)
                .copied()
                .collect(),
            pairs_complete: true,
            trace: Default::default(),
        };
        Some(cluster(&outcome, rule, threshold))
    }
}

fn cluster(outcome: &MatchOutcome, rule: ClusterRule, threshold: f64) -> Clustering {
    let links = outcome.links();
    let rank = outcome.rank();
    match rule {
        ClusterRule::Representative => Clustering::from_matches(&links, &rank),
        ClusterRule::Transitive => Clustering::transitive(
            outcome
                .pairs
                .iter()
                .filter(|p| p.score >= threshold)
                .map(|p| (p.a, p.b)),
            &links,
            &rank,
        ),
    }
}

/// The detector for `algo` with `options`.
pub fn detector(algo: Algo, options: &DetectorOptions) -> Result<Box<dyn Detector>> {
    match algo {
        Algo::SpotSigs => Ok(Box::new(SpotSigsDetector::new(&options.spotsigs)?)),
        other => Ok(Box::new(crate::detectors::LiteratureDetector::new(
            other,
            &options.literature,
        )?)),
    }
}

/// SpotSigs behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct SpotSigsDetector {
    signer: Signer,
}

impl SpotSigsDetector {
    /// A detector with these signature parameters.
    pub fn new(params: &SpotSigsParams) -> Result<Self> {
        Ok(SpotSigsDetector {
            signer: Signer::new(params)?,
        })
    }

    /// Sign `docs` in parallel (order and result independent of the thread count).
    pub fn sign(&self, docs: &[Document], progress: &Progress) -> Result<SignedCollection> {
        progress.stage("signatures", docs.len() as u64);
        let raw: Vec<Vec<u64>> = docs
            .par_iter()
            .map(|d| {
                if progress.is_cancelled() {
                    return Vec::new();
                }
                let h = self.signer.hashes(&d.html.text(), d.url.as_deref());
                progress.advance(1);
                h
            })
            .collect();
        progress.check()?;
        let p = self.signer.params();
        Ok(SignedCollection::build(&raw, p.idf_band, p.min_signatures))
    }
}

impl Detector for SpotSigsDetector {
    fn algo(&self) -> Algo {
        Algo::SpotSigs
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        Ok(Arc::new(SpotSigsPrepared {
            collection: self.sign(docs, progress)?,
        }))
    }
}

/// A collection's spot signatures.
#[derive(Debug, Clone)]
pub struct SpotSigsPrepared {
    /// The signature sets.
    pub collection: SignedCollection,
}

impl Prepared for SpotSigsPrepared {
    fn algo(&self) -> Algo {
        Algo::SpotSigs
    }

    fn len(&self) -> usize {
        self.collection.sets.len()
    }

    fn unsigned(&self) -> usize {
        self.collection.too_few.len()
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        let outcome = matching::run(&self.collection.sets, &spec.matching, progress)?;
        Ok(Detection::new(Algo::SpotSigs, spec.clone(), outcome))
    }

    fn similarity(&self, a: crate::DocId, b: crate::DocId) -> Option<f64> {
        let sa = self.collection.sets.get(a.index())?;
        let sb = self.collection.sets.get(b.index())?;
        (!sa.is_empty() && !sb.is_empty()).then(|| crate::signature::set::jaccard(sa, sb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::Mode;

    #[test]
    fn algo_names_parse_and_have_defaults() {
        for a in Algo::ALL {
            assert_eq!(a.name().parse::<Algo>().ok(), Some(a));
            assert!((0.0..=1.0).contains(&a.default_threshold()));
        }
        assert!("nope".parse::<Algo>().is_err());
    }

    #[test]
    fn recluster_needs_all_pairs_and_a_higher_threshold() {
        let outcome = MatchOutcome {
            order: vec![crate::DocId(0), crate::DocId(1)],
            matched: vec![None, Some((crate::DocId(0), 0.7))],
            pairs: vec![ScoredPair::new(crate::DocId(0), crate::DocId(1), 0.7)],
            pairs_complete: true,
            trace: Default::default(),
        };
        let mut spec = RunSpec::default_for(Algo::SpotSigs);
        spec.matching.mode = Mode::AllPairs;
        spec.matching.threshold = 0.3;
        let d = Detection::new(Algo::SpotSigs, spec, outcome);
        assert_eq!(d.clustering.cluster_count(), 1);
        let same = d.recluster(0.6, ClusterRule::Representative).unwrap();
        assert_eq!(same, d.clustering);
        let split = d.recluster(0.8, ClusterRule::Transitive).unwrap();
        assert_eq!(split.cluster_count(), 2);
        assert!(d.recluster(0.2, ClusterRule::Representative).is_none());
    }
}
