//! Duplicate groups with winners, and their incremental update when a new crawl arrives
//! ("Incremental and parallel near-duplicate clustering", §5 and §5.1–5.2).
//!
//! In: documents, a detector's scored pairs (any [`crate::detectors::Detection`]), and a similarity
//! function for single pairs (any [`crate::detectors::Prepared::similarity`]). Out: [`Groups`] — a
//! partition into transitive duplicate groups, each with a *winner* — plus the members that fail
//! the re-check against their winner ([`Groups::recheck`]) and the tier counts of an incremental
//! update ([`Groups::add_pages`]).
//!
//! - §5: "we choose to cluster duplicates in a transitive relationship … Two duplicate groups are
//!   merged if there exists a duplicate pair between one page from the first group and another
//!   page from the second group." The winner is chosen *in the group* by rules ([`winner_key`]):
//!   a static URL over a dynamic one, then the shorter URL, then the earliest capture, then the
//!   smaller id ("URLs with a long length may be less preferred compared to a shorter one and a
//!   dynamic page may be less preferred compared to a static URL").
//! - §5.2: "the system verifies again the similarity of a queried page with its group winner. If
//!   the similarity falls below a threshold, we will not report this page to be a duplicate of
//!   this winner" — [`Groups::recheck`] lists those members.
//! - §5.1, two tiers: a page of the new crawl whose URL already belongs to a group is checked
//!   against that group's winner only (tier 1: "an updated page q1 stays within this group if
//!   F(q1, R) is true", `R` the winner's signature); a page with no group, or that fails tier 1,
//!   is compared with every page (tier 2), joins the group of each page it matches (merging
//!   groups, transitively), or stays alone.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cluster::UnionFind;
use crate::matching::ScoredPair;
use crate::{DocId, Document};

/// Whether a URL looks dynamic: a query string, matrix parameters, a `cgi-bin` path, or a
/// script extension.
pub fn is_dynamic(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let path = lower.split('#').next().unwrap_or("");
    if path.contains('?') || path.contains(';') || path.contains("/cgi-bin/") {
        return true;
    }
    const SCRIPTS: [&str; 8] = [
        ".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".cfm", ".do",
    ];
    SCRIPTS.iter().any(|ext| path.ends_with(ext))
}

/// The winner rule's sort key of a document: smaller wins. Static before dynamic, shorter URL,
/// earlier capture (an unknown date last), smaller id. A page without a URL counts as dynamic
/// with an infinitely long URL, so any page with a URL beats it.
pub fn winner_key(doc: &Document, id: DocId) -> (bool, usize, bool, String, DocId) {
    let (dynamic, len) = match &doc.url {
        Some(u) => (is_dynamic(u), u.len()),
        None => (true, usize::MAX),
    };
    let date = doc.date.clone().unwrap_or_default();
    (dynamic, len, date.is_empty(), date, id)
}

/// One duplicate group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The page kept; the others are losers.
    pub winner: DocId,
    /// Members, ascending (the winner included).
    pub members: Vec<DocId>,
}

/// Duplicate groups of a collection (only groups of two or more pages are listed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Groups {
    /// Groups ordered by their smallest member.
    pub groups: Vec<Group>,
    /// Group index of each document, `None` for a page without duplicates.
    pub group_of: Vec<Option<u32>>,
}

/// A member whose similarity with its winner is below the threshold (or cannot be told).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WeakMember {
    /// The member.
    pub doc: DocId,
    /// Its group's winner.
    pub winner: DocId,
    /// Their similarity, when the detector can score the pair.
    pub similarity: Option<f64>,
}

/// What an incremental update did (§5.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateReport {
    /// New pages whose URL belonged to a group, checked against its winner (tier 1).
    pub tier1_checked: usize,
    /// Of those, pages that stayed in the group without any other comparison.
    pub tier1_stayed: usize,
    /// Pages sent to full comparison (tier 2): no group by URL, or failed tier 1.
    pub tier2_checked: usize,
    /// Of those, pages that matched at least one page.
    pub tier2_matched: usize,
    /// Similarity computations made by tier 1.
    pub tier1_comparisons: u64,
    /// Similarity computations made by tier 2.
    pub tier2_comparisons: u64,
    /// Groups after the update.
    pub groups_after: usize,
}

impl Groups {
    /// Transitive groups of `pairs` with score at least `threshold`, winners by [`winner_key`].
    pub fn build(docs: &[Document], pairs: &[ScoredPair], threshold: f64) -> Groups {
        let mut uf = UnionFind::new(docs.len());
        for p in pairs.iter().filter(|p| p.score >= threshold) {
            if p.a.index() < docs.len() && p.b.index() < docs.len() {
                uf.union(p.a.0, p.b.0);
            }
        }
        Self::from_union_find(docs, &mut uf)
    }

    fn from_union_find(docs: &[Document], uf: &mut UnionFind) -> Groups {
        let n = docs.len();
        let mut by_root: HashMap<u32, Vec<DocId>> = HashMap::new();
        for d in 0..n as u32 {
            by_root.entry(uf.find(d)).or_default().push(DocId(d));
        }
        let mut members: Vec<Vec<DocId>> = by_root.into_values().filter(|m| m.len() > 1).collect();
        members.sort_by_key(|m| m[0]);
        let mut group_of = vec![None; n];
        let groups = members
            .into_iter()
            .enumerate()
            .map(|(g, members)| {
                for d in &members {
                    group_of[d.index()] = Some(g as u32);
                }
                let winner = members
                    .iter()
                    .copied()
                    .min_by_key(|&d| winner_key(&docs[d.index()], d))
                    .unwrap_or(members[0]);
                Group { winner, members }
            })
            .collect();
        Groups { groups, group_of }
    }

    /// Members whose `similarity` with their winner is below `threshold` or unknown (§5.2), in
    /// group order.
    pub fn recheck(
        &self,
        similarity: impl Fn(DocId, DocId) -> Option<f64> + Sync,
        threshold: f64,
    ) -> Vec<WeakMember> {
        self.groups
            .par_iter()
            .flat_map_iter(|g| {
                let similarity = &similarity;
                g.members
                    .iter()
                    .filter(move |&&d| d != g.winner)
                    .filter_map(move |&d| {
                        let s = similarity(d, g.winner);
                        (s.is_none_or(|s| s < threshold)).then_some(WeakMember {
                            doc: d,
                            winner: g.winner,
                            similarity: s,
                        })
                    })
            })
            .collect()
    }

    /// Add the pages `docs[self.group_of.len()..]` (a new crawl appended to the collection) to
    /// the groups in two tiers (§5.1); `similarity` scores any two documents of `docs`.
    pub fn add_pages(
        &mut self,
        docs: &[Document],
        similarity: impl Fn(DocId, DocId) -> Option<f64> + Sync,
        threshold: f64,
    ) -> UpdateReport {
        let old = self.group_of.len().min(docs.len());
        let mut report = UpdateReport::default();
        let mut uf = UnionFind::new(docs.len());
        for g in &self.groups {
            for m in &g.members {
                uf.union(g.winner.0, m.0);
            }
        }
        let mut group_by_url: HashMap<&str, u32> = HashMap::new();
        for (d, g) in self.group_of.iter().enumerate() {
            if let (Some(g), Some(u)) = (g, docs[d].url.as_deref()) {
                group_by_url.entry(u).or_insert(*g);
            }
        }
        let passes = |a: DocId, b: DocId| similarity(a, b).is_some_and(|s| s >= threshold);
        for (q, page) in docs.iter().enumerate().skip(old) {
            let q_id = DocId(q as u32);
            // Tier 1: a recrawled URL is checked against its group's winner only.
            if let Some(&g) = page.url.as_deref().and_then(|u| group_by_url.get(u)) {
                report.tier1_checked += 1;
                report.tier1_comparisons += 1;
                let winner = self.groups[g as usize].winner;
                if passes(q_id, winner) {
                    report.tier1_stayed += 1;
                    uf.union(winner.0, q as u32);
                    continue;
                }
            }
            // Tier 2: full comparison with every page before it.
            report.tier2_checked += 1;
            report.tier2_comparisons += q as u64;
            let matches: Vec<u32> = (0..q as u32)
                .into_par_iter()
                .filter(|&d| passes(q_id, DocId(d)))
                .collect();
            if !matches.is_empty() {
                report.tier2_matched += 1;
            }
            for d in matches {
                uf.union(d, q as u32);
            }
        }
        *self = Self::from_union_find(docs, &mut uf);
        report.groups_after = self.groups.len();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(url: Option<&str>, date: Option<&str>) -> Document {
        Document {
            date: date.map(str::to_string),
            ..Document::from_page("", url, "")
        }
    }

    fn p(a: u32, b: u32, s: f64) -> ScoredPair {
        ScoredPair::new(DocId(a), DocId(b), s)
    }

    #[test]
    fn dynamic_urls() {
        assert!(is_dynamic("http://a.com/x.php"));
        assert!(is_dynamic("http://a.com/x.html?id=3"));
        assert!(is_dynamic("http://a.com/cgi-bin/x"));
        assert!(!is_dynamic("http://a.com/news/story.html"));
    }

    #[test]
    fn groups_are_transitive_and_winners_follow_the_rules() {
        let docs = [
            doc(Some("http://a.com/story.php?id=1"), Some("2020-01-01")),
            doc(
                Some("http://a.com/a-much-longer-static-story-url.html"),
                Some("2021-01-01"),
            ),
            doc(Some("http://b.com/story.html"), Some("2022-01-01")),
            doc(Some("http://c.com/story.html"), Some("2019-01-01")),
            doc(None, None),
            doc(Some("http://d.com/x"), None),
        ];
        let g = Groups::build(
            &docs,
            &[p(0, 1, 0.9), p(1, 2, 0.8), p(3, 4, 0.95), p(2, 5, 0.1)],
            0.5,
        );
        assert_eq!(g.groups.len(), 2);
        // Static beats dynamic; among the static ones the shorter URL wins.
        assert_eq!(g.groups[0].members, [DocId(0), DocId(1), DocId(2)]);
        assert_eq!(g.groups[0].winner, DocId(2));
        // Same URL length: the earlier capture wins; a page without URL never does.
        assert_eq!(g.groups[1].winner, DocId(3));
        assert_eq!(
            g.group_of,
            [Some(0), Some(0), Some(0), Some(1), Some(1), None]
        );
    }

    #[test]
    fn recheck_reports_members_below_threshold_against_the_winner() {
        let docs = [
            doc(Some("http://a.com/1"), None),
            doc(Some("http://a.com/22"), None),
            doc(Some("http://a.com/333"), None),
        ];
        let g = Groups::build(&docs, &[p(0, 1, 0.9), p(1, 2, 0.9)], 0.5);
        assert_eq!(g.groups[0].winner, DocId(0));
        // 2 matched 1, but not the winner 0: the transitive chain is reported.
        let sim = |a: DocId, b: DocId| Some(if a.0 + b.0 == 2 { 0.2 } else { 0.9 });
        let weak = g.recheck(sim, 0.5);
        assert_eq!(
            weak,
            [WeakMember {
                doc: DocId(2),
                winner: DocId(0),
                similarity: Some(0.2)
            }]
        );
    }

    #[test]
    fn incremental_update_uses_tier_one_for_recrawls_and_tier_two_otherwise() {
        // Old crawl: 0 ~ 1 (one group), 2 alone. New crawl: 3 recrawls 0's URL and still
        // matches, 4 recrawls 1's URL but changed (matches 2 instead), 5 is new and matches
        // nothing.
        let mut docs = vec![
            doc(Some("http://a.com/x"), None),
            doc(Some("http://b.com/x"), None),
            doc(Some("http://c.com/y"), None),
        ];
        let mut g = Groups::build(&docs, &[p(0, 1, 0.9)], 0.5);
        docs.push(doc(Some("http://a.com/x"), None));
        docs.push(doc(Some("http://b.com/x"), None));
        docs.push(doc(Some("http://e.com/z"), None));
        let similar = [(0, 1), (0, 3), (1, 3), (2, 4)];
        let sim = |a: DocId, b: DocId| {
            let key = (a.0.min(b.0), a.0.max(b.0));
            Some(if similar.contains(&key) { 0.9 } else { 0.1 })
        };
        let r = g.add_pages(&docs, sim, 0.5);
        assert_eq!(
            r,
            UpdateReport {
                tier1_checked: 2,
                tier1_stayed: 1,
                tier2_checked: 2,
                tier2_matched: 1,
                tier1_comparisons: 2,
                tier2_comparisons: 4 + 5,
                groups_after: 2,
            }
        );
        assert_eq!(g.groups[0].members, [DocId(0), DocId(1), DocId(3)]);
        assert_eq!(g.groups[1].members, [DocId(2), DocId(4)]);
        assert_eq!(g.group_of[5], None);
    }
}
