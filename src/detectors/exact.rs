//! Exact duplicates first (Shivakumar & Garcia-Molina, "Finding near-replicas of documents on
//! the web", §3: identical pages are found by a whole-document fingerprint before chunks are
//! compared): pages whose payload digests are equal — the same bytes, captured again or read
//! from a second archive — always share a cluster, whatever a detector made of them. A page
//! too short for SpotSigs' minimum of signatures, or one a link rule held apart, joins its
//! identical twins.
//!
//! In: a detector's [`Prepared`] collection and the documents' digests
//! ([`crate::Document::digest`]). Out: a [`Prepared`] whose every [`Detection`] has the clusters
//! of identical pages merged (the merged cluster keeps the representative of the larger one),
//! a scored pair of 1 between each twin and its group's anchor, the twin declared a duplicate of
//! the anchor when it had to move, and the counts in [`Detection::exact`]. Every detector but
//! `spotsigs-reference` (the published code, pair for pair) runs through it.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Algo, Detection, Prepared, RunSpec};
use crate::matching::ScoredPair;
use crate::progress::Progress;
use crate::union_find::UnionFind;
use crate::{DocId, Document, Result};

/// What the exact-duplicate step found and did in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactDuplicates {
    /// Groups of two or more pages with one payload digest.
    pub groups: usize,
    /// Pages in those groups.
    pub pages: usize,
    /// Pages the detector had put apart from their identical twins, joined to them.
    pub joined: usize,
}

/// Pages grouped by payload digest, groups of two or more, each sorted by id. The digest an
/// archive declares is checked against the bytes read (their XXH3, [`Document::payload_check`]):
/// a WARC that writes one digest on records of different payloads (a test file of ipwb's does)
/// does not make them identical.
pub fn digest_groups(docs: &[Document]) -> Vec<Vec<DocId>> {
    let mut by: HashMap<(&str, u64), Vec<DocId>> = HashMap::new();
    for (i, d) in docs.iter().enumerate() {
        if let Some(digest) = d.digest() {
            by.entry((digest, d.payload_check))
                .or_default()
                .push(DocId(i as u32));
        }
    }
    let mut groups: Vec<Vec<DocId>> = by.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_unstable();
    groups
}

/// `inner` with identical pages kept together.
pub fn wrap(inner: Arc<dyn Prepared>, docs: &[Document]) -> Arc<dyn Prepared> {
    Arc::new(ExactFirst {
        inner,
        groups: digest_groups(docs),
    })
}

struct ExactFirst {
    inner: Arc<dyn Prepared>,
    groups: Vec<Vec<DocId>>,
}

impl Prepared for ExactFirst {
    fn algo(&self) -> Algo {
        self.inner.algo()
    }

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn unsigned(&self) -> usize {
        self.inner.unsigned()
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        let mut d = self.inner.detect(spec, progress)?;
        join_identical(&mut d, &self.groups);
        Ok(d)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let twins = self.groups.iter().any(|g| g.contains(&a) && g.contains(&b));
        if twins {
            Some(1.0)
        } else {
            self.inner.similarity(a, b)
        }
    }
}

/// Merge the clusters of each group of identical pages in `d` (see the module doc).
pub fn join_identical(d: &mut Detection, groups: &[Vec<DocId>]) {
    let n = d.clustering.cluster_of.len();
    let groups: Vec<&Vec<DocId>> = groups
        .iter()
        .filter(|g| g.iter().all(|x| x.index() < n))
        .collect();
    let mut exact = ExactDuplicates {
        groups: groups.len(),
        pages: groups.iter().map(|g| g.len()).sum(),
        joined: 0,
    };
    let old = d.clustering.clone();
    let mut size = vec![0usize; old.representatives.len()];
    for &c in &old.cluster_of {
        size[c as usize] += 1;
    }
    let mut uf = UnionFind::new(old.representatives.len());
    let mut extra = Vec::new();
    for g in &groups {
        // The anchor: the member in the largest cluster (the first such member).
        let anchor = *g
            .iter()
            .max_by_key(|x| {
                (
                    size[old.cluster_of[x.index()] as usize],
                    std::cmp::Reverse(x.0),
                )
            })
            .unwrap_or(&g[0]);
        let ca = old.cluster_of[anchor.index()];
        for &m in g.iter().filter(|&&m| m != anchor) {
            let cm = old.cluster_of[m.index()];
            if cm != ca && uf.find(cm) != uf.find(ca) {
                exact.joined += 1;
                d.outcome.matched[m.index()] = Some((anchor, 1.0));
            }
            uf.union(cm, ca);
            extra.push(ScoredPair::new(anchor.min(m), anchor.max(m), 1.0));
        }
    }
    d.exact = exact;
    if extra.is_empty() {
        return;
    }
    d.outcome.pairs.extend(extra);
    // A twin pair the detector scored too keeps the 1 of identical pages.
    d.outcome.pairs.sort_by(|x, y| {
        (x.a, x.b)
            .cmp(&(y.a, y.b))
            .then(y.score.total_cmp(&x.score))
    });
    d.outcome.pairs.dedup_by_key(|p| (p.a, p.b));
    if exact.joined == 0 {
        return;
    }
    // Merged clusters, numbered again by smallest member; each keeps the representative of its
    // largest part.
    let mut best: HashMap<u32, u32> = HashMap::new();
    for c in 0..old.representatives.len() as u32 {
        let root = uf.find(c);
        let e = best.entry(root).or_insert(c);
        if size[c as usize] > size[*e as usize] {
            *e = c;
        }
    }
    let mut number: HashMap<u32, u32> = HashMap::new();
    let mut cluster_of = Vec::with_capacity(n);
    let mut representatives = Vec::new();
    for doc in 0..n {
        let root = uf.find(old.cluster_of[doc]);
        let next = number.len() as u32;
        let c = *number.entry(root).or_insert_with(|| {
            representatives.push(old.representatives[best[&root] as usize]);
            next
        });
        cluster_of.push(c);
    }
    d.clustering = crate::cluster::Clustering {
        cluster_of,
        representatives,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Clustering;
    use crate::matching::MatchOutcome;

    #[test]
    fn identical_pages_share_a_cluster_and_the_larger_keeps_its_representative() {
        // Clusters {0, 1, 2} (rep 1) and {3}, {4}; 2 and 4 are identical, 3 alone.
        let outcome = MatchOutcome {
            order: (0..5).map(DocId).collect(),
            matched: vec![
                Some((DocId(1), 0.5)),
                None,
                Some((DocId(1), 0.4)),
                None,
                None,
            ],
            pairs: vec![],
            pairs_complete: false,
            trace: Default::default(),
        };
        let mut d = Detection::new(
            Algo::SpotSigs,
            RunSpec::default_for(Algo::SpotSigs),
            outcome,
        );
        assert_eq!(d.clustering.cluster_of, [0, 0, 0, 1, 2]);
        join_identical(&mut d, &[vec![DocId(2), DocId(4)]]);
        assert_eq!(
            d.clustering,
            Clustering {
                cluster_of: vec![0, 0, 0, 1, 0],
                representatives: vec![DocId(1), DocId(3)],
            }
        );
        assert_eq!(d.outcome.matched[4], Some((DocId(2), 1.0)));
        assert_eq!(d.outcome.pairs, [ScoredPair::new(DocId(2), DocId(4), 1.0)]);
        assert_eq!(
            d.exact,
            ExactDuplicates {
                groups: 1,
                pages: 2,
                joined: 1
            }
        );
        assert_eq!(d.linked_through()[4], Some((DocId(2), 1.0)));
        // Already together: nothing moves, the pair is still there.
        let before = d.clustering.clone();
        join_identical(&mut d, &[vec![DocId(0), DocId(2)]]);
        assert_eq!(d.clustering, before);
        assert_eq!(d.exact.joined, 0);
    }
}
