//! What the detectors that score every candidate pair share (all but SpotSigs): their terms,
//! and the step from a list of scored pairs to a [`Detection`].
//!
//! They find *all* pairs at or above the threshold that their candidate scheme reaches, so a
//! run keeps `pairs_complete`; declarations are then made as Incremental matching would make
//! them from those pairs ([`crate::matching::declarations_from_pairs`], in the run's seeded
//! order, with the seeds first in Seeded mode), and clusters follow the run's
//! [`crate::cluster::ClusterRule`].

use super::{Algo, Detection, Prepared, RunSpec};
use crate::matching::{
    self, DocTrace, MatchOutcome, Mode, ScoredPair, Trace, declarations_from_pairs,
};
use crate::progress::Progress;
use crate::token::{TokenSource, term_hash};
use crate::{DocId, Document, Error, Result};

/// Term hashes of every document's terms under `source`, in parallel.
pub fn term_hashes(
    docs: &[Document],
    source: TokenSource,
    progress: &Progress,
) -> Result<Vec<Vec<u64>>> {
    progress.stage("tokens", docs.len() as u64);
    crate::archive::map_pages(docs, progress, |d, html| page_term_hashes(source, d, html))
}

/// Term hashes of one page's terms under `source`, from its decoded text.
pub fn page_term_hashes(source: TokenSource, doc: &Document, html: &str) -> Vec<u64> {
    let mut v = Vec::new();
    source.for_each_term(html, doc.url.as_deref(), |t| v.push(term_hash(t)));
    v
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
    spec.check(algo)?;
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
        m.link_rules(),
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
        ..Trace::default()
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
pub fn candidate_counts(n: usize, pairs: impl IntoIterator<Item = (u32, u32)>) -> Vec<u32> {
    let mut c = vec![0u32; n];
    for (a, b) in pairs {
        c[a as usize] += 1;
        c[b as usize] += 1;
    }
    c
}

/// A scored pair from raw ids.
pub fn scored(a: u32, b: u32, score: f64) -> ScoredPair {
    ScoredPair::new(DocId(a), DocId(b), score)
}

/// How a detector scores any one pair of its documents (for the pair view), from its
/// per-document signatures.
pub trait PairScore: Send + Sync {
    /// The score of documents `a` and `b`, `None` when one has no signature or the pair is not
    /// a candidate of the detector.
    fn score(&self, a: usize, b: usize) -> Option<f64>;
}

/// A prepared collection whose candidate pairs are all scored already: a run filters them by
/// its threshold. `S` scores a single pair.
#[derive(Debug, Clone)]
pub struct ScoredPrepared<S> {
    /// Which algorithm.
    pub algo: Algo,
    /// Documents.
    pub n: usize,
    /// Documents with nothing to sign (no tokens, no chunks).
    pub unsigned: usize,
    /// Every candidate pair with its score, sorted by ids.
    pub pairs: Vec<ScoredPair>,
    /// What scores a single pair.
    pub scorer: S,
}

impl<S: PairScore> Prepared for ScoredPrepared<S> {
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
