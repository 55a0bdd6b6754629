//! All-pairs SpotSigs matching (Theobald, Siddharth, Paepcke, SIGIR 2008 §4): signature sets in,
//! every pair whose multiset Jaccard reaches the threshold out.
//!
//! - **Partitions by signature count.** `J(A,B) <= min(|A|,|B|)/max(|A|,|B|)`, so a document
//!   only meets documents whose size lies in `[t·|A|, |A|]`. Documents are processed in
//!   ascending size and every index list is kept in that order, so the valid stretch of a list
//!   starts at a binary-searched position — the limit of ever finer partitions.
//! - **Inverted index walked in ascending list length.** A document's signatures are visited
//!   rarest first (by collection document frequency).
//! - **Early termination of the list walk.** A document first met after the signatures still
//!   unvisited carry less than `t·|A|` of `A`'s mass cannot reach `t` (`J <= ∩/|A|`), so the
//!   walk stops there; a candidate whose partial count plus that unvisited mass cannot reach `t`
//!   is dropped without a merge. A pair must also share `min_shared` signatures
//!   ([`super::MatchParams::min_shared`]), so the walk stops once fewer are left unvisited.
//! - **Verification without a merge.** A candidate's count over the walked lists is exact, so
//!   its intersection with `A` is completed by looking up only `A`'s unwalked signatures (a
//!   few binary searches in the candidate; fewer than `t·|A|` of them) instead of the paper's
//!   early-terminating merge of both sets: at 100k generated pages matching took 3.6 s
//!   instead of 4.5 s, with the same pairs.
//!
//! - **Exact duplicates are matched once.** Documents with identical signature multisets (the
//!   same page captured every day of a year, a wire story whose frames the site filter removed)
//!   are collapsed to their first member before the walk: the others are neither walked nor
//!   indexed, and their pairs are copied from the first member's afterwards (identical
//!   multisets score the same against any third page, and 1 between themselves). The work
//!   grows with the distinct pages, not with the square of a group's size; the pairs listed
//!   are the same as without the collapse.
//!
//! - **Walked in parallel.** The index of first members is built in size order before any
//!   walk (an entry names a document by its rank in that order), and a document reads only
//!   the stretch of each list below its own rank (found by galloping from where the thread's
//!   last walk of that list ended, [`super::seek`]): exactly what the paper's walk-then-insert
//!   loop sees, so the documents are walked on every core with the same pairs.
//!
//! Declarations (which document is a duplicate of which) are then made from the pairs as
//! Incremental or Seeded matching would make them, in the seeded random order
//! ([`super::declarations_from_pairs`]).

use std::collections::HashMap;
use std::time::Instant;

use rayon::prelude::*;

use super::{
    DocTrace, MatchOutcome, MatchParams, Mode, ScoredPair, Trace, completed,
    declarations_from_pairs, document_frequencies, index_sizes, may_match, processing_order, seek,
    walk_may_stop, walk_order,
};
use crate::progress::Progress;
use crate::signature::SignatureSet;
use crate::signature::set::similarity;
use crate::{DocId, Result};

/// Every pair of `sets` with multiset Jaccard at least `threshold` (> 0), sorted by ids, with a
/// trace entry per signed document (in ascending size order).
pub fn all_pairs(
    sets: &[SignatureSet],
    threshold: f64,
    min_shared: u32,
    progress: &Progress,
) -> Result<(Vec<ScoredPair>, Vec<DocTrace>)> {
    let t = threshold.max(1e-9);
    let m = min_shared.max(1);
    let n = sets.len();
    let vocabulary = sets
        .iter()
        .filter_map(|s| s.ids.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut by_size: Vec<u32> = (0..n as u32)
        .filter(|&d| !sets[d as usize].is_empty())
        .collect();
    by_size.sort_by_key(|&d| (sets[d as usize].total, d));
    // Exact duplicates: `first[d]` is the smallest id with `d`'s multiset.
    let mut first: Vec<u32> = (0..n as u32).collect();
    {
        let mut seen: HashMap<(&[u32], &[u32]), u32> = HashMap::with_capacity(by_size.len());
        for &d in &by_size {
            let set = &sets[d as usize];
            let f = *seen.entry((&set.ids, &set.counts)).or_insert(d);
            first[d as usize] = f.min(d);
        }
    }
    // Document frequencies over distinct multisets: the order lists are walked in.
    let df = document_frequencies(
        by_size
            .iter()
            .filter(|&&d| first[d as usize] == d)
            .map(|&d| &sets[d as usize]),
        vocabulary,
    );
    // Every first member is indexed with all its signatures, in size order, before any walk:
    // each list's length is its df, allocated once and exactly (growth by doubling left a
    // third of the index unused). A list entry names a document by its rank in (size, id)
    // order, so lists are in rank order, and a document meets only the stretch before its own
    // rank, which is what the paper's walk-then-insert sees: documents are walked in parallel
    // with the same result. Ranks also make the size bounds of a stretch comparisons of the
    // entries themselves, and a candidate's size one read of `totals`, instead of a look-up
    // of every document met in `sets`.
    let mut postings: Vec<Vec<(u32, u32)>> =
        df.iter().map(|&f| Vec::with_capacity(f as usize)).collect();
    for (rank, &d) in by_size.iter().enumerate() {
        if first[d as usize] == d {
            let a = &sets[d as usize];
            for (&id, &c) in a.ids.iter().zip(&a.counts) {
                postings[id as usize].push((rank as u32, c));
            }
        }
    }
    let totals: Vec<u32> = by_size.iter().map(|&d| sets[d as usize].total).collect();
    let index = Index {
        sets,
        by_size: &by_size,
        totals: &totals,
        postings: &postings,
        df: &df,
    };
    progress.stage("all pairs", by_size.len() as u64);
    let walked: Vec<(Vec<ScoredPair>, DocTrace)> = by_size
        .par_iter()
        .enumerate()
        .map_init(
            || Walk::new(by_size.len(), postings.len()),
            |walk, (rank, &d)| {
                if rank % 64 == 0 {
                    progress.check()?;
                }
                let walked = if first[d as usize] == d {
                    walk.pairs_of(&index, rank as u32, t, m)
                } else {
                    // A copy: its pairs are its first member's (below).
                    (Vec::new(), DocTrace::new(DocId(d)))
                };
                progress.advance(1);
                Ok(walked)
            },
        )
        .collect::<Result<_>>()?;
    let mut pairs = Vec::new();
    let mut traces = Vec::with_capacity(walked.len());
    for (found, trace) in walked {
        pairs.extend(found);
        traces.push(trace);
    }
    let pairs = with_copies(pairs, &first, sets, m);
    Ok((pairs, traces))
}

/// The pairs of the collapsed walk (between first members) with every copy's: each pair
/// repeated for every copy of either side, and every two members of a group paired at 1 when
/// they share `min_shared` signatures. Sorted by ids.
fn with_copies(
    mut pairs: Vec<ScoredPair>,
    first: &[u32],
    sets: &[SignatureSet],
    min_shared: u32,
) -> Vec<ScoredPair> {
    let mut members: HashMap<u32, Vec<u32>> = HashMap::new();
    for (d, &f) in first.iter().enumerate() {
        if f != d as u32 {
            members.entry(f).or_insert_with(|| vec![f]).push(d as u32);
        }
    }
    if members.is_empty() {
        pairs.sort_by_key(|p| (p.a, p.b));
        return pairs;
    }
    let group = |f: u32| members.get(&f).map_or(&[f][..], Vec::as_slice).to_vec();
    let mut out = Vec::with_capacity(pairs.len());
    for p in &pairs {
        if !members.contains_key(&p.a.0) && !members.contains_key(&p.b.0) {
            out.push(*p);
            continue;
        }
        for x in group(p.a.0) {
            for y in group(p.b.0) {
                out.push(ScoredPair::new(DocId(x), DocId(y), p.score));
            }
        }
    }
    for (&f, group) in &members {
        if sets[f as usize].total < min_shared {
            continue;
        }
        let one = similarity(
            sets[f as usize].total,
            sets[f as usize].total,
            sets[f as usize].total,
        );
        for (i, &x) in group.iter().enumerate() {
            for &y in &group[i + 1..] {
                out.push(ScoredPair::new(DocId(x), DocId(y), one));
            }
        }
    }
    out.sort_by_key(|p| (p.a, p.b));
    out
}

/// All-pairs matching: every pair at or above the threshold, then declarations in the seeded
/// order (seeds first when `params.seeds` is not empty).
pub fn run(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
) -> Result<MatchOutcome> {
    let (pairs, traces) = all_pairs(sets, params.threshold, params.min_shared, progress)?;
    let signed: Vec<bool> = sets.iter().map(|s| !s.is_empty()).collect();
    Ok(outcome_from_pairs(&signed, pairs, traces, params))
}

/// The outcome of all-pairs matching from its pairs (every pair at or above the threshold,
/// sorted by ids), wherever they were computed (here, or by the Spark job and imported):
/// declarations in the seeded order (seeds first when `params.seeds` is not empty) and the
/// index sizes. `signed[d]` says whether document `d` took part in matching.
pub fn outcome_from_pairs(
    signed: &[bool],
    pairs: Vec<ScoredPair>,
    traces: Vec<DocTrace>,
    params: &MatchParams,
) -> MatchOutcome {
    let n = signed.len();
    let seeds = if params.mode == Mode::AllPairs {
        &params.seeds[..]
    } else {
        &[]
    };
    let order = processing_order(n, params.seed, seeds);
    let n_seeds = seeds.len().min(order.len());
    let matched = declarations_from_pairs(
        n,
        &pairs,
        &order,
        n_seeds,
        params.threshold,
        params.guess,
        params.add_duplicates,
        params.link_rules(),
    );
    let index_size = index_sizes(&order, params.index_every, |_, d| {
        signed[d.index()] && (matched[d.index()].is_none() || params.add_duplicates)
    });
    MatchOutcome {
        order,
        matched,
        pairs,
        pairs_complete: true,
        trace: Trace {
            docs: traces,
            index_size,
        },
    }
}

/// What a walk reads: the signature sets, the signed documents in (size, id) order (a
/// document's rank is its position here) with their sizes, the full index (lists of (rank,
/// count), in rank order) and the document frequencies.
struct Index<'a> {
    sets: &'a [SignatureSet],
    by_size: &'a [u32],
    totals: &'a [u32],
    postings: &'a [Vec<(u32, u32)>],
    df: &'a [u32],
}

/// A candidate's slot in a walk's scratch: the rank of the document whose walk last met it
/// and the signatures it shares with that document in the lists walked so far (one slot, so
/// one cache line, per document met).
#[derive(Clone, Copy)]
struct Slot {
    stamp: u32,
    shared: u32,
}

/// One thread's scratch for walks: a slot per rank, the candidates met, the document's
/// signatures in walk order, and per list where the last walk's stretch began and ended.
///
/// Why the stretch ends are kept: a thread walks a run of consecutive ranks, so the stretch
/// of a list moves forward by about one entry between two of its walks; finding it by
/// galloping from where it was ([`seek`]) reads one or two cache lines where a binary search
/// of a list of 100k entries missed the cache a dozen times (a third of the walk's time).
struct Walk {
    slots: Vec<Slot>,
    candidates: Vec<u32>,
    order: Vec<(u32, u32)>,
    stretches: Vec<(u32, u32)>,
}

impl Walk {
    fn new(n: usize, lists: usize) -> Walk {
        Walk {
            stretches: vec![(0, 0); lists],
            slots: vec![
                Slot {
                    stamp: u32::MAX,
                    shared: 0
                };
                n
            ],
            candidates: Vec::new(),
            order: Vec::new(),
        }
    }

    /// The pairs of the document of rank `r` with the documents of lower rank.
    fn pairs_of(
        &mut self,
        index: &Index<'_>,
        r: u32,
        t: f64,
        m: u32,
    ) -> (Vec<ScoredPair>, DocTrace) {
        let started = Instant::now();
        let d = index.by_size[r as usize];
        let a = &index.sets[d as usize];
        let n_a = f64::from(a.total);
        let min_size = (t * n_a - 1e-9).ceil().max(0.0) as u32;
        // Ranks below `min_rank` are too small to reach `t` with `a`.
        let min_rank = index.totals[..r as usize].partition_point(|&s| s < min_size) as u32;
        let mut trace = DocTrace::new(DocId(d));
        let mut pairs = Vec::new();
        walk_order(a, index.df, &mut self.order);
        self.candidates.clear();
        // Mass of `a` in lists not walked yet, and how many lists were walked.
        let mut rest = a.total;
        let mut walked = 0;
        for &(id, c) in &self.order {
            if walk_may_stop(rest, a.total, t, m) {
                break;
            }
            rest -= c;
            walked += 1;
            let list = &index.postings[id as usize];
            let (from, to) = &mut self.stretches[id as usize];
            *to = seek(list, *to as usize, r) as u32;
            let list = &list[..*to as usize];
            *from = seek(list, *from as usize, min_rank) as u32;
            let from = *from as usize;
            trace.avoided += from as u32;
            for &(x, cx) in &list[from..] {
                let slot = &mut self.slots[x as usize];
                if slot.stamp != r {
                    slot.stamp = r;
                    slot.shared = 0;
                    self.candidates.push(x);
                }
                slot.shared += c.min(cx);
            }
        }
        // The signatures of `a` whose lists were not walked: only these are looked up in a
        // candidate to complete its intersection.
        let unwalked = &self.order[walked..];
        trace.colliding = self.candidates.len() as u32;
        for &x in &self.candidates {
            let total_b = index.totals[x as usize];
            let shared = self.slots[x as usize].shared;
            let upper = (shared + rest).min(a.total).min(total_b);
            if !may_match(upper, a.total, total_b, t, m) {
                trace.avoided += 1;
                continue;
            }
            trace.compared += 1;
            let xd = index.by_size[x as usize];
            let shared = if rest == 0 {
                shared
            } else {
                completed(shared, unwalked, &index.sets[xd as usize])
            };
            let score = similarity(shared, a.total, total_b);
            if score >= t && shared >= m {
                pairs.push(ScoredPair::new(DocId(d), DocId(xd), score));
            }
        }
        trace.nanos = started.elapsed().as_nanos() as u64;
        (pairs, trace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::Guess;
    use crate::signature::jaccard;
    use rand::{Rng, SeedableRng};

    fn random_sets(n: usize, seed: u64) -> Vec<SignatureSet> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let bases: Vec<Vec<u32>> = (0..4)
            .map(|_| (0..30).map(|_| rng.random_range(0..200)).collect())
            .collect();
        (0..n)
            .map(|_| {
                let base = &bases[rng.random_range(0..bases.len())];
                let mut ids: Vec<u32> = Vec::new();
                for &id in base {
                    if rng.random_bool(0.8) {
                        ids.push(id);
                    }
                }
                for _ in 0..rng.random_range(0..12) {
                    ids.push(rng.random_range(0..200));
                }
                SignatureSet::from_ids(ids)
            })
            .collect()
    }

    /// Short pages (2–7 signatures of 40) among the long ones: pairs that share one or two;
    /// and exact copies of some pages, long and short, spread among them.
    fn with_short_sets(n: usize, seed: u64) -> Vec<SignatureSet> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5107);
        let mut sets = random_sets(n, seed);
        for _ in 0..n / 2 {
            let len = rng.random_range(2..=7);
            sets.push(SignatureSet::from_ids(
                (0..len).map(|_| rng.random_range(0..40u32)),
            ));
        }
        for _ in 0..n / 4 {
            let copy = sets[rng.random_range(0..sets.len())].clone();
            let at = rng.random_range(0..=sets.len());
            sets.insert(at, copy);
        }
        sets
    }

    #[test]
    fn copies_of_a_page_are_walked_once() {
        let distinct = random_sets(60, 3);
        let mut sets = distinct.clone();
        for _ in 0..400 {
            sets.push(distinct[7].clone());
        }
        let work = |sets: &[SignatureSet]| {
            let (pairs, traces) = all_pairs(sets, 0.3, 2, &Progress::new()).unwrap();
            let colliding: u64 = traces.iter().map(|t| u64::from(t.colliding)).sum();
            (pairs, colliding)
        };
        let (few, once) = work(&distinct);
        let (many, copies) = work(&sets);
        // 400 more copies cost no more walking ...
        assert_eq!(once, copies);
        // ... yet every pair is listed: the copies among themselves and with page 7 at 1, and
        // each of page 7's partners with every copy.
        let partners = few.iter().filter(|p| p.a.0 == 7 || p.b.0 == 7).count();
        assert_eq!(many.len(), few.len() + 401 * 400 / 2 + 400 * partners);
        assert!(many.iter().filter(|p| p.a.0 >= 60).all(|p| p.score == 1.0));
    }

    #[test]
    fn all_pairs_equals_brute_force() {
        for seed in 0..4 {
            let sets = with_short_sets(80, seed);
            for t in [0.1, 0.3, 0.5, 0.7, 0.9, 1.0] {
                for m in [1, 2, 3] {
                    let (pairs, _) = all_pairs(&sets, t, m, &Progress::new()).unwrap();
                    let mut brute = Vec::new();
                    for i in 0..sets.len() {
                        for j in i + 1..sets.len() {
                            let s = jaccard(&sets[i], &sets[j]);
                            let shared = sets[i].intersection(&sets[j]);
                            if s >= t && s > 0.0 && shared >= m {
                                brute.push((i as u32, j as u32));
                            }
                        }
                    }
                    let got: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a.0, p.b.0)).collect();
                    assert_eq!(got, brute, "seed {seed} t {t} min_shared {m}");
                }
            }
        }
    }

    #[test]
    fn declarations_agree_with_incremental_matching() {
        let sets = with_short_sets(120, 9);
        for (seed, guess, add_duplicates, min_shared) in [
            (0, Guess::Best, true, 1),
            (1, Guess::Best, false, 1),
            (2, Guess::First, true, 1),
            (3, Guess::First, false, 1),
            (4, Guess::Best, true, 2),
            (5, Guess::First, false, 3),
        ] {
            let p = MatchParams {
                threshold: 0.2,
                seed,
                guess,
                add_duplicates,
                min_shared,
                ..MatchParams::default()
            };
            let inc = super::super::incremental::run(&sets, &p, &Progress::new()).unwrap();
            let ap = run(
                &sets,
                &MatchParams {
                    mode: Mode::AllPairs,
                    ..p.clone()
                },
                &Progress::new(),
            )
            .unwrap();
            assert_eq!(inc.links(), ap.links(), "seed {seed}");
            assert_eq!(inc.trace.final_index_size(), ap.trace.final_index_size());
        }
    }
}
