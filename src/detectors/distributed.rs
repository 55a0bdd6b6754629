//! A SpotSigs all-pairs run (`samecore run --mode allpairs`) in pieces that machines compute
//! apart: what the Spark job in `spark/` (`samecore_run.py`) calls on its executors and its
//! driver, through the Python package's extension. Each piece is the single machine's own code
//! on part of the input, so the pieces together give its pairs and clusters, page for page.
//!
//! A run is, after signing and the collection-wide filters:
//! 1. **pairs**: [`crate::matching::allpairs::all_pairs_part`], a part of the documents walked
//!    against the index of all (one part per task; an executor builds the index once for all
//!    the parts it walks, [`crate::matching::allpairs::Prepared`]);
//! 2. **declarations** ([`crate::matching::declarations_from_pairs`]): with duplicates added to
//!    the index (the default), every page processed before a page is indexed, so a page's match
//!    is its best link to a page earlier in the processing order ([`processing_ranks`]) — a
//!    choice among its own pairs, made by page wherever its pairs are (the job: an aggregation
//!    by page after the link share's two aggregations of best scores);
//! 3. **thin bridges** ([`crate::matching::bridges::cut_thin_bridges`]): a link is judged by
//!    the pages of its own tree of declarations and the links among them, nothing outside it, so
//!    every tree is judged apart ([`cut_tree`], a tree at a time in the task holding it);
//! 4. **clusters and identical pages** ([`finish`]): the representative clusters of the
//!    declarations left and the pages of one payload joined ([`super::exact::join_identical`]).
//!    This step needs every page's declaration and every group of identical pages at once, not
//!    the pairs: it runs on one machine in memory proportional to the pages.
//!
//! What `run --clusters` says of each cluster besides its members is made in two more pieces
//! of [`crate::headline`]: every page's headline, learnt from the titles of its own site's
//! pages alone (`Titles::of_one_site`, a task per range of sites), then each cluster's story title and
//! its first publishers and lags (`cluster_story`, a task per range of clusters).

use super::detection::{Detection, RunSpec};
use super::{Algo, exact};
use crate::matching::bridges::{Links, cut_thin_bridges};
use crate::matching::{Mode, processing_order};
use crate::{DocId, Error, Result};

/// The run `samecore run --mode allpairs` makes by default: SpotSigs' default threshold, link
/// rules and common-signature limit, all-pairs matching, seed 0, the representative rule.
pub fn default_spec() -> RunSpec {
    let mut spec = RunSpec::default_for(Algo::SpotSigs);
    spec.matching.mode = Mode::AllPairs;
    spec
}

/// Each document's position in the processing order of `n` documents under `seed` (no seeds
/// first, as `run` without `--seeds`): `rank[d]`.
pub fn processing_ranks(n: usize, seed: u64) -> Vec<u32> {
    let mut rank = vec![0u32; n];
    for (i, d) in processing_order(n, seed, &[]).iter().enumerate() {
        rank[d.index()] = i as u32;
    }
    rank
}

/// The declarations of one tree of `parent.len()` pages (numbered from 0 within the tree) to
/// un-declare: each page's parent (`None` for the root), the links among the tree's pages, and
/// the share of page pairs across a link that must be links for it to hold. The pages whose
/// link is cut, ascending.
pub fn cut_tree(parent: &[Option<u32>], links: &[(u32, u32)], fraction: f64) -> Result<Vec<u32>> {
    let n = parent.len();
    if let Some(&(a, b)) = (links.iter()).find(|&&(a, b)| a as usize >= n || b as usize >= n) {
        return Err(Error::InvalidParameter(format!(
            "link ({a}, {b}) names a page outside the tree of {n} pages"
        )));
    }
    if let Some(p) = parent.iter().flatten().find(|&&p| p as usize >= n) {
        return Err(Error::InvalidParameter(format!(
            "parent {p} is outside the tree of {n} pages"
        )));
    }
    let mut matched: Vec<Option<(DocId, f64)>> =
        parent.iter().map(|p| p.map(|p| (DocId(p), 1.0))).collect();
    let links = Links::new(n, || links.iter().map(|&(a, b)| (DocId(a), DocId(b), 0)));
    cut_thin_bridges(&mut matched, &links, fraction);
    Ok((0..n as u32)
        .filter(|&d| parent[d as usize].is_some() && matched[d as usize].is_none())
        .collect())
}

/// The detection of `n` pages from their declarations (after [`cut_tree`]) and the groups of
/// identical pages (two or more ids each, by payload digest and check): the representative
/// clusters, identical pages joined, and the pairs of 1 that joining adds (its `outcome.pairs`
/// holds only those: the matching pairs stay where they were found).
pub fn finish(
    n: usize,
    matched: Vec<Option<(DocId, f64)>>,
    groups: &[Vec<DocId>],
    spec: &RunSpec,
) -> Result<Detection> {
    if matched.len() != n {
        return Err(Error::InvalidParameter(format!(
            "{} declarations for {n} pages",
            matched.len()
        )));
    }
    if let Some((d, _)) =
        (matched.iter().enumerate()).find(|(_, m)| m.is_some_and(|(p, _)| p.index() >= n))
    {
        return Err(Error::InvalidParameter(format!(
            "page {d} is declared a duplicate of a page outside the {n} pages"
        )));
    }
    let order = processing_order(n, spec.matching.seed, &[]);
    let outcome = crate::matching::MatchOutcome {
        order,
        matched,
        pairs: Vec::new(),
        pairs_complete: true,
        trace: Default::default(),
    };
    let mut detection = Detection::new(Algo::SpotSigs, spec.clone(), outcome);
    exact::join_identical(&mut detection, groups);
    Ok(detection)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::allpairs::{Part, all_pairs, all_pairs_part};
    use crate::matching::{ScoredPair, declarations_from_pairs};
    use crate::progress::Progress;
    use crate::signature::SignatureSet;
    use rand::{Rng, SeedableRng};

    /// Sets of a few stories, each page a story's signatures with some dropped and noise
    /// added, and a frame shared by the pages of each "site".
    fn sets(n: usize, seed: u64) -> Vec<SignatureSet> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let stories: Vec<Vec<u32>> = (0..12)
            .map(|s| (0..25).map(|i| 1000 + s * 100 + i).collect())
            .collect();
        (0..n)
            .map(|_| {
                let story = &stories[rng.random_range(0..stories.len())];
                let site = rng.random_range(0..4u32);
                let mut ids: Vec<u32> = story
                    .iter()
                    .copied()
                    .filter(|_| rng.random_bool(0.7))
                    .collect();
                ids.extend((0..6).map(|i| site * 10 + i));
                ids.extend((0..rng.random_range(0..8)).map(|_| rng.random_range(0..3000)));
                SignatureSet::from_ids(ids)
            })
            .collect()
    }

    /// Two stories of six pages each and a page that carries half of each: the link that
    /// chains them through it is a thin bridge.
    fn bridged() -> Vec<SignatureSet> {
        let story = |base: u32, drop: u32| -> Vec<u32> {
            (0..30)
                .filter(|i| i % 6 != drop)
                .map(|i| base + i)
                .collect()
        };
        let mut sets: Vec<SignatureSet> = Vec::new();
        for base in [5000, 6000] {
            for drop in 0..6 {
                sets.push(SignatureSet::from_ids(story(base, drop)));
            }
        }
        let half: Vec<u32> = (0..15)
            .map(|i| 5000 + i)
            .chain((0..15).map(|i| 6000 + i))
            .collect();
        sets.push(SignatureSet::from_ids(half));
        sets
    }

    /// The pieces computed apart, as the Spark job composes them, equal the single machine's
    /// run: the same pairs, declarations and clusters.
    #[test]
    fn the_pieces_give_the_single_machines_run() {
        let mut cuts = 0;
        for seed in 0..6 {
            let mut sets = sets(300, seed);
            sets.extend(bridged());
            let n = sets.len();
            let mut spec = default_spec();
            spec.matching.seed = seed;
            let m = &spec.matching;
            let (whole, _, _) =
                all_pairs(&sets, m.threshold, m.min_shared, m.common, &Progress::new()).unwrap();
            // 1. Pairs in three parts.
            let mut pairs: Vec<ScoredPair> = (0..3)
                .flat_map(|k| {
                    let part = Part { k, of: 3 };
                    (all_pairs_part(
                        &sets,
                        m.threshold,
                        m.min_shared,
                        m.common,
                        part,
                        &Progress::new(),
                    ))
                    .unwrap()
                    .0
                })
                .collect();
            pairs.sort_by_key(|p| (p.a, p.b));
            assert_eq!(pairs, whole);
            // 2. Declarations by page: link share, pages left alone, best earlier link.
            let rules = m.link_rules();
            let mut best = vec![0.0f64; n];
            for p in &pairs {
                best[p.a.index()] = best[p.a.index()].max(p.score);
                best[p.b.index()] = best[p.b.index()].max(p.score);
            }
            let links: Vec<&ScoredPair> = (pairs.iter())
                .filter(|p| {
                    p.score >= rules.share * best[p.a.index()]
                        && p.score >= rules.share * best[p.b.index()]
                })
                .collect();
            let mut best_link = vec![0.0f64; n];
            for p in &links {
                best_link[p.a.index()] = best_link[p.a.index()].max(p.score);
                best_link[p.b.index()] = best_link[p.b.index()].max(p.score);
            }
            let alone =
                |d: DocId| rules.refused_stays_alone && best_link[d.index()] < best[d.index()];
            let rank = processing_ranks(n, seed);
            let mut matched: Vec<Option<(DocId, f64)>> = vec![None; n];
            for p in links.iter().filter(|p| !alone(p.a) && !alone(p.b)) {
                for (d, x) in [(p.a, p.b), (p.b, p.a)] {
                    if rank[x.index()] < rank[d.index()] {
                        let better = match matched[d.index()] {
                            None => true,
                            Some((y, s)) => {
                                p.score > s || (p.score == s && rank[x.index()] < rank[y.index()])
                            }
                        };
                        if better {
                            matched[d.index()] = Some((x, p.score));
                        }
                    }
                }
            }
            // 3. Thin bridges tree by tree.
            let mut root: Vec<usize> = (0..n).collect();
            fn find(root: &mut [usize], matched: &[Option<(DocId, f64)>], d: usize) -> usize {
                match matched[d] {
                    None => d,
                    Some((p, _)) => {
                        let r = find(root, matched, p.index());
                        root[d] = r;
                        r
                    }
                }
            }
            for d in 0..n {
                find(&mut root, &matched, d);
            }
            let mut cut = Vec::new();
            for tree in 0..n {
                let members: Vec<usize> = (0..n).filter(|&d| root[d] == tree).collect();
                if members.len() < 2 {
                    continue;
                }
                let local = |d: usize| members.binary_search(&d).unwrap() as u32;
                let parent: Vec<Option<u32>> = (members.iter())
                    .map(|&d| matched[d].map(|(p, _)| local(p.index())))
                    .collect();
                let inside: Vec<(u32, u32)> = (links.iter())
                    .filter(|p| !alone(p.a) && !alone(p.b))
                    .filter(|p| root[p.a.index()] == tree && root[p.b.index()] == tree)
                    .map(|p| (local(p.a.index()), local(p.b.index())))
                    .collect();
                for c in cut_tree(&parent, &inside, rules.cross_links).unwrap() {
                    cut.push(members[c as usize]);
                }
            }
            cuts += cut.len();
            for d in cut {
                matched[d] = None;
            }
            let single = declarations_from_pairs(
                n,
                &whole,
                &processing_order(n, seed, &[]),
                0,
                m.threshold,
                m.guess,
                m.add_duplicates,
                rules,
            );
            assert_eq!(matched, single, "seed {seed}");
            // 4. Clusters with identical pages joined.
            let groups = vec![vec![DocId(3), DocId(40), DocId(41)]];
            let apart = finish(n, matched, &groups, &spec).unwrap();
            let mut together = Detection::new(
                Algo::SpotSigs,
                spec.clone(),
                crate::matching::allpairs::outcome_from_pairs(
                    &vec![true; n],
                    whole,
                    Vec::new(),
                    &spec.matching,
                ),
            );
            exact::join_identical(&mut together, &groups);
            assert_eq!(apart.clustering, together.clustering);
            assert_eq!(apart.outcome.matched, together.outcome.matched);
            let ones: Vec<ScoredPair> = (together.outcome.pairs.iter())
                .filter(|p| groups[0].contains(&p.a) && groups[0].contains(&p.b) && p.score == 1.0)
                .copied()
                .collect();
            assert!(apart.outcome.pairs.iter().all(|p| ones.contains(p)));
            assert_eq!(apart.outcome.pairs.len(), 2);
        }
        assert!(
            cuts > 0,
            "no thin bridge was cut: the test does not reach cut_tree's work"
        );
    }

    #[test]
    fn pieces_refuse_pages_outside_them() {
        assert!(cut_tree(&[None, Some(0)], &[(0, 2)], 0.5).is_err());
        assert!(cut_tree(&[None, Some(5)], &[], 0.5).is_err());
        assert!(finish(2, vec![None], &[], &default_spec()).is_err());
        assert!(finish(2, vec![None, Some((DocId(2), 0.5))], &[], &default_spec()).is_err());
    }
}
