//! Thin bridges: a declared link that is nearly all that joins two groups of pages.
//!
//! Declarations form a forest: each declared duplicate points at an earlier page. A link
//! `d → p` splits its tree in two — the pages linked through `d` (its subtree, `A`) and the
//! rest (`B`). When the two are one story, many of the `|A|·|B|` page pairs across are links
//! themselves (copies of a story resemble each other); when a story rode in on one page that
//! shares a frame, a follow-up's quotes or a network's boilerplate with the other, almost none
//! are. [`cut_thin_bridges`] un-declares every link across which fewer than a given fraction of
//! the page pairs are linked — the check the issue of chained clusters asks for: a member must
//! be similar to enough of its cluster, not only to one member of it.
//!
//! Both sides must have at least [`MIN_SIDE`] pages: whether one page belongs with a group is
//! what the link share ([`super::MatchParams::link_share`]) judges. Every link is judged on the
//! forest as declared, all at once, in `O((n + links) log n)`: an Euler tour numbers each
//! subtree as one range, so the links inside a subtree are counted with a Fenwick tree, the
//! links taken in descending order of their lower end (bucketed by it, not sorted).

use crate::DocId;

/// Pages each side of a link must have for the link to be judged.
pub const MIN_SIDE: usize = 2;

/// Each page's links, both directions, in one flat list: page `d`'s are
/// `to[start[d]..start[d + 1]]`, in the order they were given, each the other page and the
/// link's tag (what the caller names it by: the declarations give the pair's index).
///
/// Why flat: one allocation of exactly the links' size, where a list per page grown by
/// doubling is an allocation per page (a million at a million pages) with up to half of each
/// unused. On goldset-dev (81,516 link ends on 1,109 pages) the instructions are the same
/// either way (callgrind, 19.1 M against 18.8 M for the whole of the declarations). Why a tag
/// and not the score: eight bytes a link end instead of sixteen. The list is fresh memory
/// written once, on one thread: with scores, goldset-dev's took 1.3 MB, about 300 page
/// faults, and building it 0.99 ms (with tags 0.78 ms; medians of 14 runs).
#[derive(Debug, Clone, PartialEq)]
pub struct Links {
    start: Vec<u32>,
    to: Vec<(DocId, u32)>,
}

impl Links {
    /// The links of `n` pages from `pairs` (each `(a, b, tag)` once, both ends below `n`);
    /// `pairs` is called twice, to count and to fill, and must give the same pairs each time.
    pub fn new<I: Iterator<Item = (DocId, DocId, u32)>>(n: usize, pairs: impl Fn() -> I) -> Self {
        let mut start = vec![0u32; n + 1];
        for (a, b, _) in pairs() {
            start[a.index() + 1] += 1;
            start[b.index() + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut to = vec![(DocId(0), 0); start[n] as usize];
        for (a, b, tag) in pairs() {
            to[next[a.index()] as usize] = (b, tag);
            next[a.index()] += 1;
            to[next[b.index()] as usize] = (a, tag);
            next[b.index()] += 1;
        }
        Links { start, to }
    }

    /// The pages these links are among.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Whether there are no pages.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Page `d`'s links: the other end and the link's tag.
    pub fn of(&self, d: usize) -> &[(DocId, u32)] {
        &self.to[self.start[d] as usize..self.start[d + 1] as usize]
    }
}

/// Un-declare (`matched[d] = None`) every link `d → p` of `matched` across which fewer than
/// `fraction` of the page pairs of its two sides are linked in `links`. The page `d` then
/// represents the pages linked through it.
pub fn cut_thin_bridges(matched: &mut [Option<(DocId, f64)>], links: &Links, fraction: f64) {
    let n = matched.len();
    if fraction <= 0.0 || n == 0 {
        return;
    }
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    let mut is_root = vec![false; n];
    for (d, m) in matched.iter().enumerate() {
        match m {
            Some((p, _)) if p.index() < n && p.index() != d => children[p.index()].push(d as u32),
            _ => {
                roots.push(d as u32);
                is_root[d] = true;
            }
        }
    }
    let tour = Tour::new(&children, &roots, n);
    // Links inside one tree, as Euler positions (lo <= hi), and each page's count of them.
    let mut inside: Vec<(u32, u32)> = Vec::new();
    let mut degree_at = vec![0u64; tour.len as usize + 1];
    for d in 0..n.min(links.len()) {
        for &(x, _) in links.of(d) {
            let x = x.index();
            if x <= d || x >= n || !tour.visited(d) || tour.tree[d] != tour.tree[x] {
                continue;
            }
            let (a, b) = (tour.tin[d], tour.tin[x]);
            inside.push((a.min(b), a.max(b)));
            degree_at[a as usize + 1] += 1;
            degree_at[b as usize + 1] += 1;
        }
    }
    for i in 1..degree_at.len() {
        degree_at[i] += degree_at[i - 1];
    }
    // The links inside by lower end: a count per position, then the upper ends in place (no
    // sort; the sorts were most of goldset-dev's cutting, which runs on one thread).
    let len = tour.len as usize;
    let mut from = vec![0u32; len + 1];
    for &(lo, _) in &inside {
        from[lo as usize + 1] += 1;
    }
    for i in 1..from.len() {
        from[i] += from[i - 1];
    }
    let mut fill = from.clone();
    let mut upper = vec![0u32; inside.len()];
    for &(lo, hi) in &inside {
        upper[fill[lo as usize] as usize] = hi;
        fill[lo as usize] += 1;
    }
    let mut page_at = vec![u32::MAX; len];
    for d in (0..n).filter(|&d| tour.visited(d)) {
        page_at[tour.tin[d] as usize] = d as u32;
    }
    // Judged links deepest-numbered first: at each position, from the last, the links whose
    // lower end is there join those counted, then the link of the page there is judged.
    let mut fenwick = Fenwick::new(len);
    let mut cut = Vec::new();
    for pos in (0..len).rev() {
        for &hi in &upper[from[pos] as usize..from[pos + 1] as usize] {
            fenwick.add(hi as usize);
        }
        let d = page_at[pos] as usize;
        if is_root[d] {
            continue;
        }
        let (tin, tout) = (tour.tin[d], tour.tout[d]);
        let within = fenwick.count_below(tout as usize);
        let degrees = degree_at[tout as usize] - degree_at[tin as usize];
        let across = degrees - 2 * within;
        let root = tour.tree[d] as usize;
        let a = u64::from(tout - tin);
        let b = u64::from(tour.tout[root] - tour.tin[root]) - a;
        if a >= MIN_SIDE as u64
            && b >= MIN_SIDE as u64
            && (across as f64) < fraction * (a * b) as f64
        {
            cut.push(d);
        }
    }
    for d in cut {
        matched[d] = None;
    }
}

/// An Euler tour of a forest: the subtree of `d` is the positions `tin[d]..tout[d]`.
struct Tour {
    tin: Vec<u32>,
    tout: Vec<u32>,
    /// The root of each page's tree (`u32::MAX`: not reached from a root).
    tree: Vec<u32>,
    len: u32,
}

impl Tour {
    fn new(children: &[Vec<u32>], roots: &[u32], n: usize) -> Self {
        let mut tour = Tour {
            tin: vec![0; n],
            tout: vec![0; n],
            tree: vec![u32::MAX; n],
            len: 0,
        };
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for &r in roots {
            tour.enter(r, r);
            stack.push((r, 0));
            while let Some((x, i)) = stack.last_mut() {
                let x = *x as usize;
                if let Some(&c) = children[x].get(*i) {
                    *i += 1;
                    tour.enter(c, r);
                    stack.push((c, 0));
                } else {
                    tour.tout[x] = tour.len;
                    stack.pop();
                }
            }
        }
        tour
    }

    fn enter(&mut self, d: u32, root: u32) {
        self.tin[d as usize] = self.len;
        self.tree[d as usize] = root;
        self.len += 1;
    }

    fn visited(&self, d: usize) -> bool {
        self.tree[d] != u32::MAX
    }
}

/// Counts of positions, with the count of those below a bound in `O(log n)`.
struct Fenwick(Vec<u32>);

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick(vec![0; n + 1])
    }

    fn add(&mut self, pos: usize) {
        let mut i = pos + 1;
        while i < self.0.len() {
            self.0[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    /// How many added positions are `< bound`.
    fn count_below(&self, bound: usize) -> u64 {
        let mut i = bound.min(self.0.len() - 1);
        let mut sum = 0u64;
        while i > 0 {
            sum += u64::from(self.0[i]);
            i -= i & i.wrapping_neg();
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn d(i: u32) -> DocId {
        DocId(i)
    }

    fn adjacency(n: usize, pairs: &[(u32, u32)]) -> Links {
        Links::new(n, || {
            (pairs.iter().enumerate()).map(|(i, &(a, b))| (d(a), d(b), i as u32))
        })
    }

    #[test]
    fn each_page_lists_its_links_both_ways_in_the_order_given() {
        let links = adjacency(4, &[(0, 2), (2, 1), (0, 1)]);
        assert_eq!(links.len(), 4);
        assert_eq!(links.of(0), &[(d(2), 0), (d(1), 2)]);
        assert_eq!(links.of(1), &[(d(2), 1), (d(0), 2)]);
        assert_eq!(links.of(2), &[(d(0), 0), (d(1), 1)]);
        assert!(links.of(3).is_empty());
        assert!(adjacency(0, &[]).is_empty());
    }

    #[test]
    fn a_story_that_rode_in_on_one_link_is_cut_off_and_a_story_is_not() {
        // Story {0, 1, 2} all linked; story {3, 4, 5} all linked; 3 declared a duplicate of 2
        // through their one shared link: 1 of the 9 pairs across is linked.
        let links = adjacency(6, &[(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5), (2, 3)]);
        let declared = || {
            vec![
                None,
                Some((d(0), 0.9)),
                Some((d(1), 0.9)),
                Some((d(2), 0.2)),
                Some((d(3), 0.9)),
                Some((d(4), 0.9)),
            ]
        };
        let mut m = declared();
        cut_thin_bridges(&mut m, &links, 0.2);
        assert_eq!(m[3], None, "1/9 of the pairs across is below 0.2");
        assert_eq!(m[1], Some((d(0), 0.9)));
        assert_eq!(m[2], Some((d(1), 0.9)));
        assert_eq!(m[4], Some((d(3), 0.9)));
        // 1/9 is not below 0.1: the link holds.
        let mut m = declared();
        cut_thin_bridges(&mut m, &links, 0.1);
        assert_eq!(m, declared());
        // Off.
        let mut m = declared();
        cut_thin_bridges(&mut m, &links, 0.0);
        assert_eq!(m, declared());
        // A single page on one side is not judged: 5 hangs on 4 alone.
        let links = adjacency(6, &[(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)]);
        let mut m = declared();
        cut_thin_bridges(&mut m, &links, 0.5);
        assert_eq!(m[5], Some((d(4), 0.9)));
    }

    /// The count of linked pairs across every link, by brute force.
    fn brute(matched: &[Option<(DocId, f64)>], links: &Links, f: f64) -> Vec<bool> {
        let n = matched.len();
        let parent = |x: usize| matched[x].map(|(p, _)| p.index());
        let root = |mut x: usize| {
            while let Some(p) = parent(x) {
                x = p;
            }
            x
        };
        let under = |x: usize, top: usize| {
            let mut y = x;
            loop {
                if y == top {
                    return true;
                }
                match parent(y) {
                    Some(p) => y = p,
                    None => return false,
                }
            }
        };
        (0..n)
            .map(|x| {
                if parent(x).is_none() {
                    return false;
                }
                let r = root(x);
                let a: Vec<usize> = (0..n).filter(|&y| under(y, x)).collect();
                let b: Vec<usize> = (0..n).filter(|&y| root(y) == r && !under(y, x)).collect();
                if a.len() < MIN_SIDE || b.len() < MIN_SIDE {
                    return false;
                }
                let across = a
                    .iter()
                    .map(|&u| {
                        links
                            .of(u)
                            .iter()
                            .filter(|(v, _)| b.contains(&v.index()))
                            .count()
                    })
                    .sum::<usize>();
                (across as f64) < f * (a.len() * b.len()) as f64
            })
            .collect()
    }

    #[test]
    fn every_link_is_judged_as_a_brute_force_count_judges_it() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for round in 0..200 {
            let n = rng.random_range(1..40usize);
            // A random forest: each page links to an earlier one, or to none.
            let matched: Vec<Option<(DocId, f64)>> = (0..n)
                .map(|x| {
                    (x > 0 && rng.random_bool(0.7)).then(|| (d(rng.random_range(0..x as u32)), 0.3))
                })
                .collect();
            let mut pairs = Vec::new();
            for a in 0..n as u32 {
                for b in a + 1..n as u32 {
                    if rng.random_bool(0.2) {
                        pairs.push((a, b));
                    }
                }
            }
            let links = adjacency(n, &pairs);
            let f = [0.05, 0.1, 0.3, 0.6][round % 4];
            let want = brute(&matched, &links, f);
            let mut got = matched.clone();
            cut_thin_bridges(&mut got, &links, f);
            for x in 0..n {
                assert_eq!(
                    got[x].is_none() && matched[x].is_some(),
                    want[x],
                    "round {round} page {x}"
                );
            }
        }
    }
}
