//! Clusters from matches: per-document match decisions or scored pairs in, a [`Clustering`]
//! (cluster id per document, one representative per cluster) out.
//!
//! Two ways, chosen by [`ClusterRule`]:
//!
//! - **Representative** (the SpotSigs matching procedures, Workbench paper §3.3): a document
//!   declared a duplicate joins the cluster of the document it matched. Following these
//!   "duplicate of" links to a document that was not declared a duplicate (an indexed one)
//!   gives the cluster and its representative. With Full matching or duplicates added to the
//!   index, links may form a cycle; its earliest-processed member then represents it.
//! - **Transitive closure**: every scored pair at or above the threshold joins its two
//!   documents (union-find), as Henzinger's and Shivakumar's pair-based methods do.
//! - **Average linkage** ([`average`]): clusters merge while the mean similarity over all
//!   their cross pairs stays at or above the threshold, so a chain through one frame page
//!   cannot join two stories; needs every pair at or above the threshold (all-pairs runs).
//!
//! Cluster ids are numbered by their smallest member [`DocId`], so output is deterministic.

pub mod average;

use serde::{Deserialize, Serialize};

use crate::DocId;
pub use crate::union_find::UnionFind;

/// How matches become clusters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClusterRule {
    /// A duplicate joins the cluster of the document it was declared a duplicate of.
    #[default]
    Representative,
    /// Every scored pair at or above the threshold links its two documents.
    Transitive,
    /// Clusters merge while their mean cross similarity is at least the threshold
    /// ([`average`]); the representative is each cluster's medoid.
    Average,
    /// Representative clusters in which every member is similar to its cluster's centre (the
    /// representative) at the threshold; a member that is not starts a cluster of its own with
    /// the members linked through it ([`Clustering::centred`]).
    Centre,
}

impl ClusterRule {
    /// Every rule.
    pub const ALL: [ClusterRule; 4] = [
        ClusterRule::Representative,
        ClusterRule::Transitive,
        ClusterRule::Average,
        ClusterRule::Centre,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            ClusterRule::Representative => "representative",
            ClusterRule::Transitive => "transitive",
            ClusterRule::Average => "average",
            ClusterRule::Centre => "centre",
        }
    }
}

impl std::str::FromStr for ClusterRule {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "representative" | "rep" => Ok(ClusterRule::Representative),
            "transitive" | "closure" => Ok(ClusterRule::Transitive),
            "average" | "upgma" => Ok(ClusterRule::Average),
            "centre" | "center" | "star" => Ok(ClusterRule::Centre),
            _ => Err(crate::Error::InvalidParameter(format!(
                "unknown cluster rule {s:?} (expected representative, transitive, average or centre)"
            ))),
        }
    }
}

/// A partition of a collection's documents into clusters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clustering {
    /// Cluster index of each document (by [`DocId`]); clusters are numbered by smallest member.
    pub cluster_of: Vec<u32>,
    /// The representative document of each cluster.
    pub representatives: Vec<DocId>,
}

impl Clustering {
    /// Every document alone.
    pub fn singletons(n: usize) -> Self {
        Clustering {
            cluster_of: (0..n as u32).collect(),
            representatives: (0..n as u32).map(DocId).collect(),
        }
    }

    /// Representative clusters from "duplicate of" links (`matched[d] = Some(d')`).
    ///
    /// `rank[d]` is the document's position in processing order; in a cycle of links the member
    /// with the lowest rank represents the cluster.
    pub fn from_matches(matched: &[Option<DocId>], rank: &[u32]) -> Self {
        let mut uf = UnionFind::new(matched.len());
        for (d, m) in matched.iter().enumerate() {
            if let Some(of) = m {
                uf.union(d as u32, of.0);
            }
        }
        // The root of a link chain is a document that matched nothing.
        Self::from_union_find(&mut uf, |d| {
            (matched[d].is_some(), rank.get(d).copied().unwrap_or(0))
        })
    }

    /// Representative clusters split where a chain drifts from its centre: the clusters of
    /// [`Clustering::from_matches`], then, walking each cluster's link tree from its
    /// representative, a member stays with its centre only if `similar(member, centre)`
    /// (a scored pair at the threshold); otherwise it becomes the centre of a new cluster,
    /// and the members linked through it are checked against it. A page that joined through
    /// a frame page of its site, not through the story, so no longer rides in on the chain.
    pub fn centred(
        matched: &[Option<DocId>],
        rank: &[u32],
        similar: impl Fn(DocId, DocId) -> bool,
    ) -> Self {
        let n = matched.len();
        let base = Self::from_matches(matched, rank);
        let mut linked_to_me: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (d, m) in matched.iter().enumerate() {
            if let Some(of) = m
                && of.index() < n
                && of.index() != d
            {
                linked_to_me[of.index()].push(d as u32);
            }
        }
        // Unvisited members (a link cycle's other members) keep their base representative.
        let mut centre: Vec<u32> = (0..n)
            .map(|d| base.representatives[base.cluster_of[d] as usize].0)
            .collect();
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::new();
        for r in &base.representatives {
            seen[r.index()] = true;
            queue.push_back(r.0);
            while let Some(d) = queue.pop_front() {
                let c = centre[d as usize];
                for &x in &linked_to_me[d as usize] {
                    if std::mem::replace(&mut seen[x as usize], true) {
                        continue;
                    }
                    centre[x as usize] = if similar(DocId(x), DocId(c)) { c } else { x };
                    queue.push_back(x);
                }
            }
        }
        let mut uf = UnionFind::new(n);
        for (d, &c) in centre.iter().enumerate() {
            uf.union(d as u32, c);
        }
        Self::from_union_find(&mut uf, |d| {
            (centre[d] != d as u32, rank.get(d).copied().unwrap_or(0))
        })
    }

    /// Transitive closure of `pairs`; the representative of a cluster is its member that
    /// `matched` says was not a duplicate, earliest by `rank` (else the earliest member).
    pub fn transitive(
        pairs: impl IntoIterator<Item = (DocId, DocId)>,
        matched: &[Option<DocId>],
        rank: &[u32],
    ) -> Self {
        let mut uf = UnionFind::new(matched.len());
        for (a, b) in pairs {
            uf.union(a.0, b.0);
        }
        Self::from_union_find(&mut uf, |d| {
            (matched[d].is_some(), rank.get(d).copied().unwrap_or(0))
        })
    }

    /// Number the sets of `uf` by smallest member and pick the member with the smallest `key`
    /// as representative.
    fn from_union_find<K: Ord>(uf: &mut UnionFind, key: impl Fn(usize) -> K) -> Self {
        let n = uf.len();
        let mut id_of_root = vec![u32::MAX; n];
        let mut cluster_of = Vec::with_capacity(n);
        let mut representatives: Vec<DocId> = Vec::new();
        for d in 0..n {
            let root = uf.find(d as u32) as usize;
            if id_of_root[root] == u32::MAX {
                id_of_root[root] = representatives.len() as u32;
                representatives.push(DocId(d as u32));
            }
            let c = id_of_root[root];
            cluster_of.push(c);
            let current = representatives[c as usize].index();
            if key(d) < key(current) {
                representatives[c as usize] = DocId(d as u32);
            }
        }
        Clustering {
            cluster_of,
            representatives,
        }
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.cluster_of.len()
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.cluster_of.is_empty()
    }

    /// Number of clusters (singletons included).
    pub fn cluster_count(&self) -> usize {
        self.representatives.len()
    }

    /// The representative of `doc`'s cluster.
    pub fn representative_of(&self, doc: DocId) -> DocId {
        self.representatives[self.cluster_of[doc.index()] as usize]
    }

    /// Members of each cluster, ascending, clusters in id order.
    pub fn members(&self) -> Vec<Vec<DocId>> {
        let mut out = vec![Vec::new(); self.representatives.len()];
        for (d, &c) in self.cluster_of.iter().enumerate() {
            out[c as usize].push(DocId(d as u32));
        }
        out
    }

    /// Clusters with at least two members, largest first (ties by id).
    pub fn groups(&self) -> Vec<Vec<DocId>> {
        let mut g: Vec<Vec<DocId>> = self.members().into_iter().filter(|m| m.len() > 1).collect();
        g.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> Vec<DocId> {
        v.iter().copied().map(DocId).collect()
    }

    #[test]
    fn representative_clusters_follow_links_to_the_indexed_document() {
        // 2 -> 0, 3 -> 2 (a duplicate added to the index), 4 alone, 1 -> 4
        let matched = [None, Some(DocId(4)), Some(DocId(0)), Some(DocId(2)), None];
        let c = Clustering::from_matches(&matched, &[0, 1, 2, 3, 4]);
        assert_eq!(c.members(), [ids(&[0, 2, 3]), ids(&[1, 4])]);
        assert_eq!(c.representatives, ids(&[0, 4]));
        assert_eq!(c.representative_of(DocId(3)), DocId(0));
        assert_eq!(c.groups(), [ids(&[0, 2, 3]), ids(&[1, 4])]);
    }

    #[test]
    fn cycles_are_represented_by_the_earliest_processed_member() {
        let matched = [Some(DocId(1)), Some(DocId(0)), None];
        let c = Clustering::from_matches(&matched, &[5, 3, 0]);
        assert_eq!(c.cluster_of, [0, 0, 1]);
        assert_eq!(c.representatives, ids(&[1, 2]));
    }

    #[test]
    fn transitive_closure_joins_chains() {
        let matched = [None, Some(DocId(0)), None, None, Some(DocId(3))];
        let c = Clustering::transitive(
            [
                (DocId(0), DocId(1)),
                (DocId(1), DocId(2)),
                (DocId(3), DocId(4)),
            ],
            &matched,
            &[0, 1, 2, 3, 4],
        );
        assert_eq!(c.members(), [ids(&[0, 1, 2]), ids(&[3, 4])]);
        assert_eq!(c.cluster_count(), 2);
        assert_eq!(Clustering::singletons(3).cluster_count(), 3);
    }

    #[test]
    fn rule_names_parse() {
        assert_eq!(
            "transitive".parse::<ClusterRule>().ok(),
            Some(ClusterRule::Transitive)
        );
        assert!("x".parse::<ClusterRule>().is_err());
    }

    #[test]
    fn centred_clusters_split_a_chain_that_drifts_from_its_centre() {
        // 1 -> 0, 2 -> 1, 3 -> 2: a chain from the representative 0. Page 2 is similar to 0,
        // page 3 only to 2 (it joined through 2): 3 starts its own cluster.
        let matched = [None, Some(DocId(0)), Some(DocId(1)), Some(DocId(2))];
        let rank = [0, 1, 2, 3];
        let similar = |a: DocId, b: DocId| {
            let (a, b) = (a.0.min(b.0), a.0.max(b.0));
            matches!((a, b), (0, 1) | (0, 2) | (1, 2) | (2, 3))
        };
        let c = Clustering::centred(&matched, &rank, similar);
        assert_eq!(c.cluster_of, [0, 0, 0, 1]);
        assert_eq!(c.representatives, [DocId(0), DocId(3)]);
        // Without the check, one cluster.
        assert_eq!(
            Clustering::from_matches(&matched, &rank).cluster_of,
            [0, 0, 0, 0]
        );
        // Everything similar to the centre: the representative clusters unchanged.
        let c = Clustering::centred(&matched, &rank, |_, _| true);
        assert_eq!(c, Clustering::from_matches(&matched, &rank));
        assert_eq!(
            "centre".parse::<ClusterRule>().ok(),
            Some(ClusterRule::Centre)
        );
    }
}
