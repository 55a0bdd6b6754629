//! The common interface of every detector: documents in, an immutable [`Detection`] out —
//! scored pairs, declarations, clusters with representatives, and the instrumentation of the
//! run.
//!
//! A detector works in two steps so that the expensive part is done once:
//!
//! 1. [`Detector::prepare`]: per-document work (tokenize, sign), parallel over documents, giving
//!    a [`Prepared`] collection.
//! 2. [`Prepared::detect`]: one matching run for a [`RunSpec`] (threshold, mode, seed, …).
//!    Cheap enough to sweep thresholds × seeds (the workbench's threshold slider runs it
//!    again); runs are independent and may go in parallel.
//!
//! Both steps take a [`Progress`] and stop with [`crate::Error::Cancelled`] when asked to.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Algo;
use crate::cluster::{ClusterRule, Clustering};
use crate::matching::{MatchOutcome, MatchParams, ScoredPair};
use crate::progress::Progress;
use crate::{Document, Error, Result};

/// One matching run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Threshold, mode, guess, seed and the other matching options.
    pub matching: MatchParams,
    /// How matches become clusters.
    pub rule: ClusterRule,
}

impl RunSpec {
    /// The default run of `algo`: its default threshold and link rules, incremental best
    /// guess, seed 0, representative clusters.
    pub fn default_for(algo: Algo) -> Self {
        let mut matching = MatchParams {
            threshold: algo.default_threshold(),
            common: algo.default_common(),
            ..MatchParams::default()
        };
        matching.set_link_rules(algo.default_link_rules());
        RunSpec {
            matching,
            rule: ClusterRule::default(),
        }
    }

    /// `Ok` when `algo` can run this: a threshold in `[0, 1]` and a mode it supports.
    pub fn check(&self, algo: Algo) -> Result<()> {
        crate::matching::check_threshold(self.matching.threshold)?;
        let share = self.matching.link_share;
        if !(0.0..=1.0).contains(&share) {
            return Err(Error::InvalidParameter(format!(
                "link share {share} is not in [0, 1]"
            )));
        }
        let cross = self.matching.cross_links;
        if !(0.0..=1.0).contains(&cross) {
            return Err(Error::InvalidParameter(format!(
                "cross links {cross} is not in [0, 1]"
            )));
        }
        let mode = self.matching.mode;
        if !algo.supports(mode) {
            let modes: Vec<&str> = algo.info().modes.iter().map(|m| m.name()).collect();
            return Err(Error::InvalidParameter(format!(
                "{} does not run in {} mode (it runs in: {})",
                algo.name(),
                mode.name(),
                modes.join(", ")
            )));
        }
        Ok(())
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
    /// Clusters by `spec.rule`, identical pages together ([`super::exact`]).
    pub clustering: Clustering,
    /// What the exact-duplicate step found and joined ([`super::exact`]).
    #[serde(default)]
    pub exact: super::exact::ExactDuplicates,
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
            exact: Default::default(),
        }
    }

    /// Scored pairs (every computed pair at or above the threshold), sorted by ids.
    pub fn pairs(&self) -> &[ScoredPair] {
        &self.outcome.pairs
    }

    /// For every document, the page of its own cluster it was linked through, with that
    /// link's score: its declared match under the representative rule, else (and for a
    /// representative) its strongest scored pair inside the cluster; `None` for a page alone.
    /// A member whose link is weak joined on little evidence: the workbench lists those first.
    pub fn linked_through(&self) -> Vec<Option<(crate::DocId, f64)>> {
        let cluster = &self.clustering.cluster_of;
        let n = cluster.len();
        let mut out: Vec<Option<(crate::DocId, f64)>> = vec![None; n];
        let declared = matches!(
            self.spec.rule,
            ClusterRule::Representative | ClusterRule::Centre
        );
        if declared {
            for (d, m) in self.outcome.matched.iter().enumerate().take(n) {
                if let Some((x, s)) = *m
                    && cluster.get(x.index()) == Some(&cluster[d])
                {
                    out[d] = Some((x, s));
                }
            }
        }
        let threshold = self.spec.matching.threshold;
        for p in self.outcome.pairs.iter().filter(|p| p.score >= threshold) {
            let (a, b) = (p.a.index(), p.b.index());
            if a >= n || b >= n || cluster[a] != cluster[b] {
                continue;
            }
            for (x, y) in [(a, p.b), (b, p.a)] {
                if declared && self.outcome.matched.get(x).is_some_and(Option::is_some) {
                    continue;
                }
                if out[x].is_none_or(|(_, s)| p.score > s) {
                    out[x] = Some((y, p.score));
                }
            }
        }
        out
    }
}

fn cluster(outcome: &MatchOutcome, rule: ClusterRule, threshold: f64) -> Clustering {
    let links = outcome.links();
    let rank = outcome.rank();
    match rule {
        ClusterRule::Representative => Clustering::from_matches(&links, &rank),
        ClusterRule::Centre => {
            let key = |a: crate::DocId, b: crate::DocId| (a.0.min(b.0), a.0.max(b.0));
            let similar: std::collections::HashSet<(u32, u32)> = outcome
                .pairs
                .iter()
                .filter(|p| p.score >= threshold)
                .map(|p| key(p.a, p.b))
                .collect();
            Clustering::centred(&links, &rank, |a, b| similar.contains(&key(a, b)))
        }
        ClusterRule::Average => {
            crate::cluster::average::average_link(outcome.matched.len(), &outcome.pairs, threshold)
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::Mode;

    #[test]
    fn a_mode_a_detector_does_not_run_is_refused() {
        let mut spec = RunSpec::default_for(Algo::MinHash);
        assert!(spec.check(Algo::MinHash).is_ok());
        spec.matching.mode = Mode::Full;
        let e = spec.check(Algo::MinHash).unwrap_err().to_string();
        assert!(e.contains("minhash does not run in full mode"), "{e}");
        assert!(spec.check(Algo::SpotSigs).is_ok());
        spec.matching.threshold = 1.5;
        assert!(spec.check(Algo::SpotSigs).is_err());
    }

    #[test]
    fn each_member_is_linked_through_its_match_or_its_strongest_pair() {
        use crate::DocId;
        // 0 - 1 (0.9), 1 - 2 (0.4): one chain of three under transitive closure.
        let outcome = MatchOutcome {
            order: vec![DocId(0), DocId(1), DocId(2)],
            matched: vec![None, Some((DocId(0), 0.9)), Some((DocId(1), 0.4))],
            pairs: vec![
                ScoredPair::new(DocId(0), DocId(1), 0.9),
                ScoredPair::new(DocId(1), DocId(2), 0.4),
            ],
            pairs_complete: true,
            trace: Default::default(),
        };
        let mut spec = RunSpec::default_for(Algo::SpotSigs);
        spec.matching.threshold = 0.3;
        let d = Detection::new(Algo::SpotSigs, spec.clone(), outcome.clone());
        let links = d.linked_through();
        assert_eq!(links[1], Some((DocId(0), 0.9)));
        assert_eq!(links[2], Some((DocId(1), 0.4)));
        // The representative is linked through its strongest pair.
        assert_eq!(links[0], Some((DocId(1), 0.9)));
        spec.rule = ClusterRule::Transitive;
        let t = Detection::new(Algo::SpotSigs, spec, outcome);
        assert_eq!(t.linked_through()[1], Some((DocId(0), 0.9)));
    }
}
