//! Incremental, Seeded and Full matching (Workbench paper §3.3.2–3.3.5, Fig. 8): signature sets
//! in, declarations and scored pairs out.
//!
//! The index maps a signature to the `(document, count)` entries of the indexed documents that
//! contain it. For the document at hand its signatures' lists are walked once, summing
//! `min(count)` per colliding document; that sum is the multiset intersection, so the Jaccard of
//! every collision comes out of the walk without a second lookup index (the paper's Fig. 8 does
//! "compare all remaining spot sigs … using a different lookup index"). The length bound drops
//! an index entry as soon as `min(N_X,N_Y)/max(N_X,N_Y)` is below the threshold, before any
//! counting for it. Lists are walked rarest first and the walk stops once the signatures left
//! cannot make a new collision reach the threshold; the collisions met before the stop whose
//! count is still partial are completed by looking up the unwalked signatures in them
//! (`Walker::collide`). Neither changes a declaration or a pair.
//!
//! With `add_duplicates` (the default) every signed document is indexed after its walk,
//! declared or not, so what a walk meets does not depend on earlier declarations: the pairs
//! are then every pair at or above the threshold but those between two seeds, found by the
//! all-pairs walk on every core at half the work, and the declarations are made from them in
//! the processing order (`from_all_pairs`); the pairs and declarations are the loop's (a test
//! compares them), the trace counts the all-pairs walk. Only there does a link share apply
//! (`MatchParams::link_share`: judging a link against both pages' best scores needs every
//! pair first). Without `add_duplicates`, and in Full mode, the loop below runs, as the paper's.

use std::time::Instant;

use super::{
    CommonLimit, CommonUse, DocTrace, Guess, MatchOutcome, MatchParams, Mode, ScoredPair, Trace,
    allpairs, common_limit_on, completed, declarations_from_pairs, distinct_document_frequencies,
    document_frequencies, first_copies, index_sizes, is_rare, may_match, processing_order,
    rare_prefix, walk_may_stop, walk_order,
};
use crate::progress::Progress;
use crate::signature::SignatureSet;
use crate::signature::set::similarity;
use crate::{DocId, Result};

/// Run Incremental, Seeded or Full matching (`params.mode`); All-pairs goes elsewhere.
pub fn run(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
) -> Result<MatchOutcome> {
    run_with(sets, params, progress, true)
}

/// [`run`]; the pairs come from the all-pairs walk ([`from_all_pairs`]) when `may_shortcut`
/// and every signed document is indexed.
fn run_with(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
    may_shortcut: bool,
) -> Result<MatchOutcome> {
    let n = sets.len();
    let seeds: &[DocId] = if params.mode == Mode::Seeded {
        &params.seeds
    } else {
        &[]
    };
    let order = processing_order(n, params.seed, seeds);
    let n_seeds = order
        .iter()
        .take_while(|d| seeds.contains(d))
        .count()
        .min(seeds.len());
    if may_shortcut && params.add_duplicates && params.mode != Mode::Full {
        return from_all_pairs(sets, params, progress, order, n_seeds);
    }
    let mut rank = vec![0u32; n];
    for (i, d) in order.iter().enumerate() {
        rank[d.index()] = i as u32;
    }
    let vocabulary = sets
        .iter()
        .filter_map(|s| s.ids.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut index = Index::new(vocabulary, sets, params.common, params.min_shared);
    let full = params.mode == Mode::Full;
    if full {
        for &d in &order {
            index.add(d, &sets[d.index()]);
        }
    }
    let mut matched = vec![None; n];
    let mut pairs = Vec::new();
    let mut trace = Trace {
        docs: Vec::with_capacity(n),
        index_size: Vec::new(),
        common: index.common_use,
    };
    let every = params.index_every.max(1);
    progress.stage("matching", n as u64);
    for (step, &d) in order.iter().enumerate() {
        if step % 64 == 0 {
            progress.check()?;
            progress.advance(if step == 0 { 0 } else { 64 });
        }
        let started = Instant::now();
        let set = &sets[d.index()];
        let mut dt = DocTrace {
            doc: d,
            colliding: 0,
            compared: 0,
            avoided: 0,
            nanos: 0,
        };
        if step < n_seeds {
            index.add(d, set);
        } else if !set.is_empty() {
            let skip_self = full.then_some(d);
            index.collide(set, sets, params, skip_self, &mut dt);
            let collided = &index.walker.out;
            let best = decide(d, set, collided, sets, &rank, params, &mut dt, &mut pairs);
            match best {
                Some(m) => {
                    matched[d.index()] = Some(m);
                    if params.add_duplicates && !full {
                        index.add(d, set);
                    }
                }
                None if !full => index.add(d, set),
                None => {}
            }
        }
        dt.nanos = started.elapsed().as_nanos() as u64;
        trace.docs.push(dt);
        if (step + 1) % every == 0 || step + 1 == n {
            trace.index_size.push((step + 1, index.docs));
        }
    }
    progress.advance((n % 64) as u64);
    pairs.sort_by_key(|p| (p.a, p.b));
    // Full matching meets every pair twice.
    pairs.dedup_by_key(|p| (p.a, p.b));
    Ok(MatchOutcome {
        order,
        matched,
        pairs,
        pairs_complete: false,
        trace,
    })
}

/// The pairs at or above the threshold among `d`'s collisions (document, intersection), added
/// to `pairs`, and the declaration the guess makes of them. The walk already gave every
/// collision's intersection, so every such pair is recorded; the guess only decides.
#[allow(clippy::too_many_arguments)]
fn decide(
    d: DocId,
    set: &SignatureSet,
    collided: &[(u32, u32)],
    sets: &[SignatureSet],
    rank: &[u32],
    params: &MatchParams,
    dt: &mut DocTrace,
    pairs: &mut Vec<ScoredPair>,
) -> Option<(DocId, f64)> {
    let mut best: Option<(DocId, f64)> = None;
    for &(x, inter) in collided {
        dt.compared += 1;
        let score = similarity(inter, set.total, sets[x as usize].total);
        if score < params.threshold || inter < params.min_shared {
            continue;
        }
        pairs.push(ScoredPair::new(d, DocId(x), score));
        let r = rank[x as usize];
        let better = match (best, params.guess) {
            (None, _) => true,
            (Some((b, _)), Guess::First) => r < rank[b.index()],
            (Some((b, bs)), Guess::Best) => score > bs || (score == bs && r < rank[b.index()]),
        };
        if better {
            best = Some((DocId(x), score));
        }
    }
    best
}

/// Incremental or Seeded matching when every signed document is indexed after its walk
/// (`add_duplicates`, the default). A document then meets every signed document before it in
/// the processing order (and every seed), whatever was declared, so the pairs the loop records
/// are exactly the pairs at or above the threshold with an earlier document: all-pairs' pairs,
/// less those between two seeds (seeds are indexed, never walked). They are found by the
/// all-pairs walk, which bounds a pair by the larger page's size and so meets half the
/// documents the loop does (at a million generated pages 44.4 G colliding documents instead
/// of 93.7 G; matching 527 s instead of 1,082 s), and the declarations are made from them in
/// the processing order as the loop makes them ([`declarations_from_pairs`]). The pairs and,
/// without a link share, the declarations are the loop's (a test compares them); the trace is the all-pairs walk's work,
/// each document's entry in processing order.
fn from_all_pairs(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
    order: Vec<DocId>,
    n_seeds: usize,
) -> Result<MatchOutcome> {
    let n = sets.len();
    let (mut pairs, walked, common) = allpairs::all_pairs_of(sets, params, progress)?;
    if n_seeds > 0 {
        let mut seed = vec![false; n];
        for d in &order[..n_seeds] {
            seed[d.index()] = true;
        }
        pairs.retain(|p| !(seed[p.a.index()] && seed[p.b.index()]));
    }
    let matched = declarations_from_pairs(
        n,
        &pairs,
        &order,
        n_seeds,
        params.threshold,
        params.guess,
        true,
        params.link_rules(),
    );
    let mut traces: Vec<Option<DocTrace>> = vec![None; n];
    for t in walked {
        traces[t.doc.index()] = Some(t);
    }
    let docs = (order.iter().enumerate())
        .map(|(step, &d)| match traces[d.index()] {
            Some(walked) if step >= n_seeds => walked,
            _ => DocTrace::new(d),
        })
        .collect();
    let index_size = index_sizes(&order, params.index_every, |step, d| {
        step < n_seeds || !sets[d.index()].is_empty()
    });
    let trace = Trace {
        docs,
        index_size,
        common,
    };
    Ok(MatchOutcome {
        order,
        matched,
        pairs,
        pairs_complete: false,
        trace,
    })
}

/// A document's size and the scratch of the walk that last met it: the walk's stamp, and the
/// signatures shared with the set at hand in the lists walked so far (`u32::MAX`: left out).
#[derive(Clone, Copy)]
struct Slot {
    total: u32,
    stamp: u32,
    acc: u32,
}

/// A walk's scratch: a slot per document (one cache line per entry met instead of three
/// arrays' worth), the documents met in the order first met, the set's signatures in walk order,
/// and the collisions found (document, intersection).
struct Walker {
    slots: Vec<Slot>,
    met: Vec<u32>,
    walk: Vec<(u32, u32)>,
    out: Vec<(u32, u32)>,
}

impl Walker {
    /// A slot for each of `n` documents, none met yet (stamp 0 is no walk's).
    fn new(n: usize) -> Walker {
        Walker {
            slots: vec![
                Slot {
                    total: 0,
                    stamp: 0,
                    acc: 0,
                };
                n
            ],
            met: Vec::new(),
            walk: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The colliding documents of `set`'s lists in `postings` with their intersection sizes,
    /// in the order first met, into `self.out`;
    /// entries outside the length bound are counted in `trace.avoided` instead, and `skip`
    /// is passed over. `stamp` must differ from every earlier walk's.
    ///
    /// The set's lists are walked rarest first, and no list is walked once the signatures left
    /// carry less than `max(t·|A|, min_shared)` of the set: a document not met by then shares
    /// less than that with it, so cannot reach the threshold (`J <= ∩/|A|`) — the early stop of
    /// all-pairs (SIGIR 2008 §4), exact. A document met before the stop whose count could
    /// still reach the threshold with the unwalked signatures gets its intersection completed
    /// from those signatures; the others are counted in `trace.avoided`.
    #[allow(clippy::too_many_arguments)]
    fn collide(
        &mut self,
        set: &SignatureSet,
        sets: &[SignatureSet],
        postings: &[Vec<(u32, u32)>],
        (df, common_df): (&[u32], u32),
        params: &MatchParams,
        stamp: u32,
        skip: Option<u32>,
        trace: &mut DocTrace,
    ) {
        let t = params.threshold;
        let m = params.min_shared.max(1);
        let n_d = f64::from(set.total);
        let (lo, hi) = if params.length_bound && t > 0.0 {
            (t * n_d - 1e-9, n_d / t + 1e-9)
        } else {
            (0.0, f64::INFINITY)
        };
        walk_order(set, df, &mut self.walk);
        self.met.clear();
        // Without a limit every signature is rare (`rare == set.total`).
        let (rare_len, rare) = rare_prefix(&self.walk, df, common_df);
        // Mass of the set in lists not walked yet (all, and rare), and how many lists were
        // walked.
        let mut rest = set.total;
        let mut rare_rest = rare;
        let mut walked = 0;
        // A page with fewer than `m` rare signatures pairs with none.
        let walk_to = if rare < m { 0 } else { rare_len };
        for &(id, c) in &self.walk[..walk_to] {
            if walk_may_stop(rest, set.total, t, m) {
                break;
            }
            rest -= c;
            rare_rest -= c;
            walked += 1;
            for &(x, cx) in &postings[id as usize] {
                let slot = &mut self.slots[x as usize];
                if slot.stamp != stamp {
                    slot.stamp = stamp;
                    if skip == Some(x) {
                        slot.acc = u32::MAX;
                        continue;
                    }
                    trace.colliding += 1;
                    let n_x = f64::from(slot.total);
                    if n_x < lo || n_x > hi {
                        trace.avoided += 1;
                        slot.acc = u32::MAX;
                        continue;
                    }
                    slot.acc = 0;
                    self.met.push(x);
                }
                if slot.acc != u32::MAX {
                    slot.acc += c.min(cx);
                }
            }
        }
        // The unwalked signatures, the rare ones first.
        let (unwalked_rare, unwalked_common) = self.walk[walked..].split_at(rare_len - walked);
        self.out.clear();
        for &x in &self.met {
            let Slot {
                total: n_x, acc, ..
            } = self.slots[x as usize];
            let upper = (acc + rest).min(set.total).min(n_x);
            if acc + rare_rest < m || !may_match(upper, set.total, n_x, t, m) {
                trace.avoided += 1;
                continue;
            }
            let b = &sets[x as usize];
            let inter_rare = completed(acc, unwalked_rare, b);
            if common_df != 0 && inter_rare < m {
                trace.avoided += 1;
                continue;
            }
            self.out
                .push((x, completed(inter_rare, unwalked_common, b)));
        }
    }
}

/// The inverted index of the indexed documents (entries name documents by id), with the
/// walk's scratch.
struct Index {
    postings: Vec<Vec<(u32, u32)>>,
    /// Documents holding each signature (distinct ones with a `common_df` limit): lists are
    /// walked in ascending order of it.
    df: Vec<u32>,
    /// The limit of [`MatchParams::common`] on these sets (0: none): only rare signatures'
    /// lists are built.
    common_df: u32,
    /// What the limit did.
    common_use: CommonUse,
    walker: Walker,
    round: u32,
    docs: usize,
}

impl Index {
    /// An empty index for `sets`, each list allocated for every document that holds its
    /// signature (all of them are indexed unless declared duplicates without
    /// `add_duplicates`), so lists do not grow by doubling.
    /// With a `common` limit (of the distinct pages), lists are walked in the order of their
    /// document frequencies over distinct multisets (what the limit is on), so that the rare
    /// ones come first.
    fn new(vocabulary: usize, sets: &[SignatureSet], common: CommonLimit, min_shared: u32) -> Self {
        let all = document_frequencies(sets.iter(), vocabulary);
        let (distinct, common_df) = if common == CommonLimit::Off {
            (None, 0)
        } else {
            let first = first_copies(sets);
            match common_limit_on(sets, &first, common) {
                0 => (None, 0),
                limit => (
                    Some(distinct_document_frequencies(sets, &first, vocabulary)),
                    limit,
                ),
            }
        };
        let common_use = distinct.as_ref().map_or_else(CommonUse::default, |df| {
            CommonUse::of(sets, df, common_df, min_shared)
        });
        // Common signatures' lists are never walked, so not built.
        let postings = (all.iter().enumerate())
            .map(|(id, &f)| {
                let rare = distinct.as_ref().is_none_or(|d| is_rare(d[id], common_df));
                Vec::with_capacity(if rare { f as usize } else { 0 })
            })
            .collect();
        let df = distinct.unwrap_or(all);
        Index {
            postings,
            common_df,
            common_use,
            df,
            walker: Walker::new(sets.len()),
            round: 0,
            docs: 0,
        }
    }

    fn add(&mut self, d: DocId, set: &SignatureSet) {
        for (id, c) in set.iter() {
            if is_rare(self.df[id as usize], self.common_df) {
                self.postings[id as usize].push((d.0, c));
            }
        }
        self.walker.slots[d.index()].total = set.total;
        self.docs += 1;
    }

    /// [`Walker::collide`] against the documents indexed so far, `skip` passed over; the
    /// collisions are in `self.walker.out`.
    fn collide(
        &mut self,
        set: &SignatureSet,
        sets: &[SignatureSet],
        params: &MatchParams,
        skip: Option<DocId>,
        trace: &mut DocTrace,
    ) {
        self.round += 1;
        let Index {
            postings,
            df,
            common_df,
            walker,
            round,
            ..
        } = self;
        walker.collide(
            set,
            sets,
            postings,
            (df, *common_df),
            params,
            *round,
            skip.map(|d| d.0),
            trace,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::jaccard;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_all_pairs_shortcut_is_the_sequential_loop() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut sets: Vec<SignatureSet> = (0..300)
            .map(|_| {
                let len = rng.random_range(0..40);
                let base = rng.random_range(0..150);
                SignatureSet::from_ids((0..len).map(|_| base + rng.random_range(0..60u32)))
            })
            .collect();
        for _ in 0..40 {
            let copy = sets[rng.random_range(0..sets.len())].clone();
            sets.push(copy);
        }
        let mut seeds: Vec<DocId> = (0..12).map(|i| DocId(i * 7)).collect();
        // Two seeds that are copies: seeds are indexed, never walked, so their pair is not found.
        let original = (0..sets.len()).find(|&i| sets[i].total >= 5).unwrap();
        sets.push(sets[original].clone());
        seeds.extend([DocId(original as u32), DocId(sets.len() as u32 - 1)]);
        for (i, (mode, guess, t, min_shared, length_bound, common_df)) in [
            (Mode::Incremental, Guess::Best, 0.3, 1, true, 0),
            (Mode::Incremental, Guess::First, 0.12, 1, true, 0),
            (Mode::Incremental, Guess::Best, 0.5, 3, false, 0),
            (Mode::Seeded, Guess::Best, 0.25, 1, true, 0),
            (Mode::Seeded, Guess::First, 0.7, 2, true, 0),
            (Mode::Incremental, Guess::Best, 0.2, 2, true, 40),
            (Mode::Seeded, Guess::First, 0.12, 1, true, 25),
        ]
        .into_iter()
        .enumerate()
        {
            let p = MatchParams {
                threshold: t,
                mode,
                guess,
                min_shared,
                length_bound,
                common: CommonLimit::Pages(common_df),
                seed: i as u64,
                seeds: seeds.clone(),
                index_every: 17,
                ..MatchParams::default()
            };
            assert!(p.add_duplicates);
            let seq = run_with(&sets, &p, &Progress::new(), false).unwrap();
            let par = run_with(&sets, &p, &Progress::new(), true).unwrap();
            assert_eq!(seq.order, par.order, "case {i}");
            assert_eq!(seq.matched, par.matched, "case {i}");
            assert_eq!(seq.pairs, par.pairs, "case {i}");
            assert!(!seq.pairs.is_empty(), "case {i}");
            assert_eq!(seq.pairs_complete, par.pairs_complete, "case {i}");
            assert_eq!(seq.trace.index_size, par.trace.index_size, "case {i}");
            let docs =
                |o: &MatchOutcome| -> Vec<_> { o.trace.docs.iter().map(|t| t.doc).collect() };
            assert_eq!(docs(&seq), docs(&par), "case {i}");
        }
    }

    fn set(ids: &[u32]) -> SignatureSet {
        SignatureSet::from_ids(ids.iter().copied())
    }

    fn sets() -> Vec<SignatureSet> {
        vec![
            set(&[1, 2, 3, 4, 5, 6]),
            set(&[1, 2, 3, 4, 5, 7]),
            set(&[10, 11, 12, 13]),
            set(&[10, 11, 12, 14]),
            set(&[1, 2, 3, 4, 5, 6, 6]),
            set(&[]),
        ]
    }

    fn params(mode: Mode, guess: Guess) -> MatchParams {
        MatchParams {
            threshold: 0.5,
            mode,
            guess,
            add_duplicates: false,
            ..MatchParams::default()
        }
    }

    #[test]
    fn incremental_finds_both_groups_with_true_scores() {
        let s = sets();
        for seed in 0..5 {
            let p = MatchParams {
                seed,
                ..params(Mode::Incremental, Guess::Best)
            };
            let out = run(&s, &p, &Progress::new()).unwrap();
            let dup = out.matched.iter().filter(|m| m.is_some()).count();
            assert_eq!(
                dup, 3,
                "seed {seed}: 3 of the 5 signed documents are duplicates"
            );
            let with_dups = MatchParams {
                add_duplicates: true,
                ..p.clone()
            };
            let grown = run(&s, &with_dups, &Progress::new()).unwrap();
            assert_eq!(grown.trace.final_index_size(), 5);
            for (d, m) in out.matched.iter().enumerate() {
                if let Some((x, score)) = m {
                    assert!((jaccard(&s[d], &s[x.index()]) - score).abs() < 1e-12);
                    assert_eq!(d < 2 || d == 4, x.index() < 2 || x.index() == 4);
                }
            }
            assert_eq!(out.trace.final_index_size(), 2);
            assert!(out.matched[5].is_none());
        }
    }

    #[test]
    fn length_bound_changes_counts_not_results() {
        let s = sets();
        for mode in [Mode::Incremental, Mode::Full] {
            let on = run(&s, &params(mode, Guess::Best), &Progress::new()).unwrap();
            let off_p = MatchParams {
                length_bound: false,
                threshold: 0.9,
                ..params(mode, Guess::Best)
            };
            let on_p = MatchParams {
                threshold: 0.9,
                ..params(mode, Guess::Best)
            };
            let a = run(&s, &on_p, &Progress::new()).unwrap();
            let b = run(&s, &off_p, &Progress::new()).unwrap();
            assert_eq!(a.matched, b.matched);
            assert!(a.trace.avoided() > 0 || a.trace.comparisons() < b.trace.comparisons());
            assert!(!on.pairs.is_empty());
        }
    }

    #[test]
    fn full_matching_matches_every_duplicate_both_ways() {
        let s = sets();
        let out = run(&s, &params(Mode::Full, Guess::Best), &Progress::new()).unwrap();
        assert_eq!(out.matched.iter().filter(|m| m.is_some()).count(), 5);
        // doc 0 is closest to doc 4 (6/7) rather than doc 1 (5/7).
        assert_eq!(out.matched[0].map(|m| m.0), Some(DocId(4)));
        assert_eq!(out.pairs.len(), 4);
    }

    #[test]
    fn seeded_indexes_seeds_first_and_first_guess_takes_the_first_collision() {
        let s = sets();
        let p = MatchParams {
            seeds: vec![DocId(1), DocId(3)],
            ..params(Mode::Seeded, Guess::First)
        };
        let out = run(&s, &p, &Progress::new()).unwrap();
        assert_eq!(&out.order[..2], &[DocId(1), DocId(3)]);
        assert!(out.matched[1].is_none() && out.matched[3].is_none());
        assert_eq!(out.matched[2].map(|m| m.0), Some(DocId(3)));
        let cancelled = Progress::new();
        cancelled.cancel();
        assert!(run(&s, &p, &cancelled).is_err());
    }
}
