//! Frame-aware signatures: a site's frame (navigation, teasers, footers that recur on its
//! pages) must not make two pages of that site similar. Per-document signature multisets and
//! each document's site in; the same multisets without the signatures that occur on more than
//! a share of their site's pages out.
//!
//! SpotSigs' spot signatures already favour running text over markup, but a large site's frame
//! is running text too ("… the latest news …", "… is a registered trademark …"): on
//! goldset-dev most wrong pairs join pages of one site (forbes.com pages about coffee, condoms
//! and the media score 0.5 against each other) through such signatures. The Workbench paper's
//! remedy is a collection-wide IDF band (SIGIR 2008 §5), which drops signatures by how many
//! documents of the whole archive hold them — a number that grows with the archive, so a band
//! that helps at 1,000 pages erases small clusters at 100,000. Counting within a site instead
//! measures what a frame is: text a site repeats on most of its pages, whatever the size of
//! the archive.
//!
//! A page's site is its URL's registrable domain; a page without a URL (a folder of saved
//! pages) takes the registrable domain most of its absolute links point to (a site links to
//! itself in its own frame), see [`crate::document::link_site`]. Sites with fewer than
//! [`SiteFrame::min_pages`] pages are left alone: there is no telling frame from story there.
//!
//! A site's copies of one page count once ([`SiteFrame::copies`]): a frame is text a site
//! repeats on *different* pages. Without this, a site whose pages in the archive are recaptures
//! of one article, or copies of one story under several URLs, has its story counted as its frame
//! and loses it — on goldset-dev four webmd.com copies of the caffeine story kept nothing of it,
//! and three journaltimes.com copies of a Saddam story lost 60–70 % of their signatures.
//! Copies are found by prefix filtering (Bayardo et al., "Scaling up all pairs similarity
//! search", WWW 2007 §4: with signatures ordered rarest first, two sets at Jaccard `t` or more
//! share one of their first `|x| - ⌈t·|x|⌉ + 1`), so a site's rare signatures do the work and
//! its frame signatures are never looked up.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use crate::union_find::UnionFind;

use serde::{Deserialize, Serialize};

/// When a signature counts as a site's frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SiteFrame {
    /// A signature on more than this share of a site's pages is dropped from them.
    pub max_share: f64,
    /// Sites with fewer pages keep every signature.
    pub min_pages: usize,
    /// Pages of a site whose distinct signatures reach this Jaccard similarity (directly or
    /// through other such pages) are copies of one page and count as one page, both in the
    /// site's number of pages and in a signature's count; `None` counts every page (runs
    /// stored before copies were counted once read as `None`).
    #[serde(default)]
    pub copies: Option<f64>,
}

/// Default of [`SiteFrame::copies`]: on goldset-dev, two pages of one site and one story are at
/// 0.98 (median) and 0.6 or more in 86 % of cases; two pages of one site and different stories
/// are at 0.33 at most with content blocks and 0.42 at most with whole-page text.
pub const DEFAULT_COPIES: f64 = 0.8;

impl Default for SiteFrame {
    fn default() -> Self {
        // 0.9: a frame is on (nearly) every page of its site; a lower share also takes the
        // story of a site whose pages in the archive are mostly copies of one story
        // (goldset-dev, docs/research-log.md, "The site frame at 0.9").
        SiteFrame {
            max_share: 0.9,
            min_pages: 3,
            copies: Some(DEFAULT_COPIES),
        }
    }
}

/// Drop from each document the signatures that occur on more than `frame.max_share` of the
/// pages of its site (`sites[d]`, none for an unknown site) and, when `frame.copies` says so,
/// on more than that share of the site's groups of copies too (a site of fewer groups than
/// `frame.min_pages` keeps everything). Sites are worked on in parallel. Returns how many
/// signature occurrences were dropped.
pub fn drop_site_frame(raw: &mut [Vec<u64>], sites: &[Option<&str>], frame: &SiteFrame) -> usize {
    let mut by_site: HashMap<&str, Vec<usize>> = HashMap::new();
    for (d, site) in sites.iter().enumerate() {
        if let Some(s) = site {
            by_site.entry(s).or_default().push(d);
        }
    }
    let mut sites: Vec<(&str, Vec<usize>)> = by_site.into_iter().collect();
    sites.sort();
    let shared: &[Vec<u64>] = raw;
    let frames: Vec<(Vec<usize>, FrameSet)> = sites
        .into_par_iter()
        .filter_map(|(_, pages)| {
            let sets: Vec<&Vec<u64>> = pages.iter().map(|&d| &shared[d]).collect();
            let frame = site_frame(&sets, frame);
            (!frame.is_empty()).then_some((pages, frame))
        })
        .collect();
    let mut dropped = 0;
    for (pages, frame) in frames {
        for d in pages {
            let before = raw[d].len();
            raw[d].retain(|h| !frame.contains(h));
            dropped += before - raw[d].len();
        }
    }
    dropped
}

/// A site's frame: signature hashes, mixed already, so each is its own bucket hash (SipHash
/// over them was 3.2 M of a goldset-dev run's 1.30 G instructions: a look-up per signature of
/// every page of a site with a frame).
type FrameSet = HashSet<u64, crate::token::TermHashed>;

/// The frame of one site whose pages hold `pages` (signature multisets): what
/// [`drop_site_frame`] drops from them.
///
/// The site's pages are worked on as rank lists ([`ranked`]): four bytes a signature, where
/// hashed copies of every page plus a `(df, hash)` copy for the prefix filter were 24 (on the
/// million-page generated archive two large sites at once took a `samecore run` 390 MB above
/// what it held, the run's peak).
fn site_frame(pages: &[&Vec<u64>], frame: &SiteFrame) -> FrameSet {
    let min_pages = frame.min_pages.max(2);
    if pages.len() < min_pages {
        return FrameSet::default();
    }
    let (sets, hash_of, df) = ranked(pages);
    let on_most = |n: usize, of: usize| n as f64 > frame.max_share * of as f64;
    // Ranks go by page count, so the signatures on most pages are the highest ranks.
    let first_candidate = df.partition_point(|&n| !on_most(n as usize, pages.len()));
    let Some(t) = frame.copies else {
        return hash_of[first_candidate..].iter().copied().collect();
    };
    if first_candidate == hash_of.len() {
        return FrameSet::default();
    }
    // Copies of one page count once: a candidate stays the frame only if it is on most groups.
    let (group, groups) = copy_groups(&sets, t);
    if groups < min_pages {
        return FrameSet::default();
    }
    let mut held: Vec<(u32, u32)> = sets
        .iter()
        .zip(&group)
        .flat_map(|(set, &g)| {
            let start = set.partition_point(|&r| (r as usize) < first_candidate);
            set[start..].iter().map(move |&r| (r, g))
        })
        .collect();
    held.sort_unstable();
    held.dedup();
    let mut by_groups = vec![0usize; hash_of.len() - first_candidate];
    for (r, _) in held {
        by_groups[r as usize - first_candidate] += 1;
    }
    (by_groups.iter().enumerate())
        .filter(|&(_, &n)| on_most(n, groups))
        .map(|(k, _)| hash_of[first_candidate + k])
        .collect()
}

/// A site's pages as rank lists: each page's distinct signatures as their ranks in the site's
/// rarest-first order (on how many of the pages, then hash: the order every prefix of
/// [`copy_groups`] is cut in), ascending; the hash of each rank; and the number of pages each
/// rank is on (ascending).
pub fn ranked(pages: &[&Vec<u64>]) -> (Vec<Vec<u32>>, Vec<u64>, Vec<u32>) {
    // Signature hashes are mixed already: each is its own bucket hash.
    let mut df: HashMap<u64, u32, crate::token::TermHashed> = HashMap::default();
    let mut distinct = Vec::new();
    for page in pages {
        distinct.clear();
        distinct.extend_from_slice(page);
        distinct.sort_unstable();
        distinct.dedup();
        for &h in &distinct {
            *df.entry(h).or_default() += 1;
        }
    }
    let mut order: Vec<(u32, u64)> = df.iter().map(|(&h, &n)| (n, h)).collect();
    order.sort_unstable();
    let mut rank = df;
    for (r, &(_, h)) in order.iter().enumerate() {
        rank.insert(h, r as u32);
    }
    let sets = pages
        .iter()
        .map(|page| {
            let mut ranks: Vec<u32> = page.iter().map(|h| rank[h]).collect();
            ranks.sort_unstable();
            ranks.dedup();
            ranks.shrink_to_fit();
            ranks
        })
        .collect();
    let (counts, hashes) = order.into_iter().unzip();
    (sets, hashes, counts)
}

/// Groups of copies among one site's pages (`sets`: each page's distinct signatures as
/// ascending ranks in the site's rarest-first order, [`ranked`]): pages joined when their
/// Jaccard similarity is at least `t`, and their groups joined transitively. Returns each
/// page's group (numbered from 0 in page order) and the number of groups. Identical sets
/// (pages without signatures among them) are one group.
///
/// All-pairs prefix filtering (Bayardo et al. 2007, Algorithm "All-Pairs-1"): sets in
/// increasing size, each probing with its first `|x| - ⌈t·|x|⌉ + 1` rarest signatures and
/// indexing only its first `|x| - ⌈2t/(1+t)·|x|⌉ + 1`, which every later (larger) set at `t`
/// must share one of.
pub fn copy_groups(sets: &[Vec<u32>], t: f64) -> (Vec<u32>, usize) {
    let mut uf = UnionFind::new(sets.len());
    // Identical sets first; only their first pages are compared.
    let mut first: HashMap<&[u32], u32> = HashMap::new();
    let mut reps: Vec<u32> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        match first.entry(set.as_slice()) {
            Entry::Occupied(e) => uf.union(i as u32, *e.get()),
            Entry::Vacant(e) => {
                e.insert(i as u32);
                reps.push(i as u32);
            }
        }
    }
    drop(first);
    reps.sort_by_key(|&i| (sets[i as usize].len(), i));
    // Ranks are mixed into bucket hashes by a bijection (ranks are dense, not mixed).
    let key = |r: u32| u64::from(r).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut index: HashMap<u64, Vec<u32>, crate::token::TermHashed> = HashMap::default();
    let mut asked = vec![u32::MAX; reps.len()];
    for (r, &rep) in reps.iter().enumerate() {
        let x = &sets[rep as usize];
        for &h in &x[..prefix_len(x.len(), t)] {
            for &o in index.get(&key(h)).map_or(&[][..], Vec::as_slice) {
                if asked[o as usize] == r as u32 {
                    continue;
                }
                asked[o as usize] = r as u32;
                if jaccard_at_least(x, &sets[reps[o as usize] as usize], t) {
                    uf.union(rep, reps[o as usize]);
                }
            }
        }
        for &h in &x[..prefix_len(x.len(), 2.0 * t / (1.0 + t))] {
            index.entry(key(h)).or_default().push(r as u32);
        }
    }
    let mut number: HashMap<u32, u32> = HashMap::new();
    let group: Vec<u32> = (0..sets.len() as u32)
        .map(|i| {
            let root = uf.find(i);
            let next = number.len() as u32;
            *number.entry(root).or_insert(next)
        })
        .collect();
    (group, number.len())
}

/// How many of a set's first (rarest) elements another set must share one of to overlap it in
/// a share `t` of its size or more: `n - ⌈t·n⌉ + 1`, one more against rounding, at most `n`.
fn prefix_len(n: usize, t: f64) -> usize {
    let at_least = (t * n as f64).ceil() as usize;
    (n + 2).saturating_sub(at_least).min(n)
}

/// Whether two sets sorted in one order are at Jaccard similarity `t` or more. The merge stops
/// as soon as the rest of the shorter side cannot make up the overlap needed.
fn jaccard_at_least(x: &[u32], y: &[u32], t: f64) -> bool {
    let (small, big) = (x.len().min(y.len()), x.len().max(y.len()));
    if big == 0 || (small as f64) < t * big as f64 {
        return big == 0;
    }
    // |x ∩ y| ≥ t/(1+t)·(|x| + |y|) is the same condition as J ≥ t.
    let needed = (t / (1.0 + t) * (x.len() + y.len()) as f64 - 1e-9).ceil() as usize;
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < x.len() && j < y.len() {
        if shared + (x.len() - i).min(y.len() - j) < needed {
            return false;
        }
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared as f64 / (x.len() + y.len() - shared) as f64 >= t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_on_most_of_a_sites_pages_are_dropped_there_only() {
        // Site a: frame signature 1 on all three pages, stories 10, 20, 30.
        let mut raw = vec![
            vec![1, 10, 10],
            vec![1, 20],
            vec![1, 30],
            vec![1, 10],
            vec![1],
        ];
        let sites = vec![Some("a"), Some("a"), Some("a"), Some("b"), None];
        let dropped = drop_site_frame(&mut raw, &sites, &SiteFrame::default());
        assert_eq!(dropped, 3);
        assert_eq!(raw[0], [10, 10]);
        assert_eq!(raw[1], [20]);
        // Site b has one page, the unknown site none: nothing to tell frame from story.
        assert_eq!(raw[3], [1, 10]);
        assert_eq!(raw[4], [1]);
    }

    fn site(name: &str, n: usize) -> Vec<Option<&str>> {
        vec![Some(name); n]
    }

    #[test]
    fn a_site_of_copies_of_one_story_keeps_the_story() {
        // Four captures of one article (the last with a changed line) and nothing else of the
        // site: counted page by page, the story is on all four and would go as the frame.
        let story: Vec<u64> = (100..120).collect();
        let mut changed = story.clone();
        changed[0] = 999;
        let raw = vec![story.clone(), story.clone(), story.clone(), changed];
        let sites = site("a", 4);
        let mut kept = raw.clone();
        assert_eq!(drop_site_frame(&mut kept, &sites, &SiteFrame::default()), 0);
        assert_eq!(kept, raw);
        let every_page = SiteFrame {
            copies: None,
            ..SiteFrame::default()
        };
        let mut lost = raw.clone();
        assert_eq!(drop_site_frame(&mut lost, &sites, &every_page), 4 * 19);
        assert_eq!(lost[0], [100]);
        assert_eq!(lost[3], [999]);
    }

    #[test]
    fn copies_count_once_and_the_frame_still_goes() {
        // Thirty copies of story A and three other stories, frame signature 1 on every page:
        // A is on 30 of 33 pages (more than 0.9) but on one of four groups; 1 is on all four.
        let a: Vec<u64> = (100..120).collect();
        let mut raw: Vec<Vec<u64>> = (0..30).map(|_| [&[1][..], &a].concat()).collect();
        for story in [200u64, 300, 400] {
            raw.push([&[1][..], &(story..story + 20).collect::<Vec<_>>()].concat());
        }
        let dropped = drop_site_frame(&mut raw, &site("a", 33), &SiteFrame::default());
        assert_eq!(dropped, 33);
        assert_eq!(raw[0], a);
        assert_eq!(raw[30], (200..220).collect::<Vec<_>>());
    }

    #[test]
    fn copy_groups_are_the_components_of_pairs_at_the_similarity() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for round in 0..200 {
            // Pages drawn as variations of a few stories, over a small vocabulary so that
            // similarities fall on both sides of the bar, some pages empty.
            let stories: Vec<Vec<u64>> = (0..rng.random_range(1..5))
                .map(|_| {
                    (0..rng.random_range(0..25))
                        .map(|_| rng.random_range(0..60))
                        .collect()
                })
                .collect();
            let sets: Vec<Vec<u64>> = (0..rng.random_range(1..30))
                .map(|_| {
                    let mut v = stories[rng.random_range(0..stories.len())].clone();
                    for _ in 0..rng.random_range(0..4) {
                        if !v.is_empty() && rng.random_bool(0.5) {
                            v.swap_remove(rng.random_range(0..v.len()));
                        } else {
                            v.push(rng.random_range(0..60));
                        }
                    }
                    v.sort_unstable();
                    v.dedup();
                    v
                })
                .collect();
            let t = [0.5, 0.8, 0.9, 1.0][round % 4];
            let (ranks, _, _) = ranked(&sets.iter().collect::<Vec<_>>());
            let (group, groups) = copy_groups(&ranks, t);
            // Brute force: every pair, exact Jaccard, union-find.
            let mut uf = UnionFind::new(sets.len());
            for i in 0..sets.len() {
                for j in i + 1..sets.len() {
                    let (x, y) = (&sets[i], &sets[j]);
                    let shared = x.iter().filter(|h| y.contains(h)).count();
                    let union = x.len() + y.len() - shared;
                    if union == 0 || shared as f64 / union as f64 >= t {
                        uf.union(i as u32, j as u32);
                    }
                }
            }
            let mut roots: Vec<u32> = (0..sets.len() as u32).map(|i| uf.find(i)).collect();
            for i in 0..sets.len() {
                for j in 0..sets.len() {
                    assert_eq!(
                        group[i] == group[j],
                        roots[i] == roots[j],
                        "round {round}, t {t}: pages {i} and {j} of {sets:?}"
                    );
                }
            }
            roots.sort_unstable();
            roots.dedup();
            assert_eq!(groups, roots.len());
        }
    }
}
