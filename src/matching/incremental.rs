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
//! count is still partial are completed by a merge (`Index::collide`). Neither changes a
//! declaration or a pair.

use std::time::Instant;

use super::{
    DocTrace, Guess, MatchOutcome, MatchParams, Mode, ScoredPair, Trace, document_frequencies,
    may_match, processing_order, walk_may_stop,
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
    let mut rank = vec![0u32; n];
    for (i, d) in order.iter().enumerate() {
        rank[d.index()] = i as u32;
    }
    let vocabulary = sets
        .iter()
        .filter_map(|s| s.ids.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut index = Index::new(vocabulary, sets);
    let full = params.mode == Mode::Full;
    if full {
        for &d in &order {
            index.add(d, &sets[d.index()]);
        }
    }
    let t = params.threshold;
    let mut matched = vec![None; n];
    let mut pairs = Vec::new();
    let mut trace = Trace {
        docs: Vec::with_capacity(n),
        index_size: Vec::new(),
    };
    let every = params.index_every.max(1);
    progress.stage("matching", n as u64);
    let mut collided: Vec<(u32, u32)> = Vec::new();
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
            index.collide(set, sets, params, skip_self, &mut collided, &mut dt);
            let mut best: Option<(DocId, f64)> = None;
            // The walk above already gave every collision's intersection, so every pair at or
            // above the threshold is recorded; the guess only decides the declaration.
            for &(x, inter) in &collided {
                dt.compared += 1;
                let score = similarity(inter, set.total, sets[x as usize].total);
                if score < t || inter < params.min_shared {
                    continue;
                }
                pairs.push(ScoredPair::new(d, DocId(x), score));
                let r = rank[x as usize];
                let better = match (best, params.guess) {
                    (None, _) => true,
                    (Some((b, _)), Guess::First) => r < rank[b.index()],
                    (Some((b, bs)), Guess::Best) => {
                        score > bs || (score == bs && r < rank[b.index()])
                    }
                };
                if better {
                    best = Some((DocId(x), score));
                }
            }
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

/// The inverted index of the indexed documents, with a reusable accumulator.
struct Index {
    postings: Vec<Vec<(u32, u32)>>,
    /// Documents holding each signature: lists are walked in ascending order of it.
    df: Vec<u32>,
    /// The set at hand's `(signature, count)` in walking order (scratch).
    walk: Vec<(u32, u32)>,
    /// Indexed documents met, in the order first met (scratch).
    order: Vec<u32>,
    totals: Vec<u32>,
    acc: Vec<u32>,
    stamp: Vec<u32>,
    round: u32,
    docs: usize,
}

impl Index {
    /// An empty index for `sets`, each list allocated for every document that holds its
    /// signature (all of them are indexed unless declared duplicates without
    /// `add_duplicates`), so lists do not grow by doubling.
    fn new(vocabulary: usize, sets: &[SignatureSet]) -> Self {
        let n = sets.len();
        let df = document_frequencies(sets.iter(), vocabulary);
        Index {
            postings: df.iter().map(|&f| Vec::with_capacity(f as usize)).collect(),
            df,
            walk: Vec::new(),
            order: Vec::new(),
            totals: vec![0; n],
            acc: vec![0; n],
            stamp: vec![0; n],
            round: 0,
            docs: 0,
        }
    }

    fn add(&mut self, d: DocId, set: &SignatureSet) {
        for (&id, &c) in set.ids.iter().zip(&set.counts) {
            self.postings[id as usize].push((d.0, c));
        }
        self.totals[d.index()] = set.total;
        self.docs += 1;
    }

    /// Colliding indexed documents with their intersection sizes, in the order they were first
    /// met; documents outside the length bound are counted in `trace.avoided` instead.
    ///
    /// The set's lists are walked rarest first, and no list is walked once the signatures left
    /// carry less than `max(t·|A|, min_shared)` of the set: a document not met by then shares
    /// less than that with it, so cannot reach the threshold (`J <= ∩/|A|`) — the early stop of
    /// all-pairs (SIGIR 2008 §4), exact. A document met before the stop whose count could
    /// still reach the threshold with the unwalked signatures gets its intersection from a merge
    /// of the two sets; the others are counted in `trace.avoided`.
    fn collide(
        &mut self,
        set: &SignatureSet,
        sets: &[SignatureSet],
        params: &MatchParams,
        skip: Option<DocId>,
        out: &mut Vec<(u32, u32)>,
        trace: &mut DocTrace,
    ) {
        let t = params.threshold;
        let m = params.min_shared.max(1);
        self.round += 1;
        let round = self.round;
        let n_d = f64::from(set.total);
        let (lo, hi) = if params.length_bound && t > 0.0 {
            (t * n_d - 1e-9, n_d / t + 1e-9)
        } else {
            (0.0, f64::INFINITY)
        };
        // Scratch buffers kept between documents (taken out while `self` is borrowed).
        let mut walk = std::mem::take(&mut self.walk);
        walk.clear();
        walk.extend(set.ids.iter().copied().zip(set.counts.iter().copied()));
        walk.sort_by_key(|&(id, _)| (self.df[id as usize], id));
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        // Mass of the set in lists not walked yet.
        let mut rest = set.total;
        for &(id, c) in &walk {
            if walk_may_stop(rest, set.total, t, m) {
                break;
            }
            rest -= c;
            for &(x, cx) in &self.postings[id as usize] {
                let xi = x as usize;
                if self.stamp[xi] != round {
                    self.stamp[xi] = round;
                    if skip.is_some_and(|s| s.0 == x) {
                        self.acc[xi] = u32::MAX;
                        continue;
                    }
                    trace.colliding += 1;
                    let n_x = f64::from(self.totals[xi]);
                    if n_x < lo || n_x > hi {
                        trace.avoided += 1;
                        self.acc[xi] = u32::MAX;
                        continue;
                    }
                    self.acc[xi] = 0;
                    order.push(x);
                }
                if self.acc[xi] != u32::MAX {
                    self.acc[xi] += c.min(cx);
                }
            }
        }
        out.clear();
        for &x in &order {
            let xi = x as usize;
            let n_x = self.totals[xi];
            let upper = (self.acc[xi] + rest).min(set.total).min(n_x);
            if !may_match(upper, set.total, n_x, t, m) {
                trace.avoided += 1;
                continue;
            }
            let inter = if rest == 0 {
                self.acc[xi]
            } else {
                set.intersection(&sets[xi])
            };
            out.push((x, inter));
        }
        self.walk = walk;
        self.order = order;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::jaccard;

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
