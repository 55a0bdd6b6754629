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
//! - **Common signatures are not looked up (with a limit).** A pair must then share
//!   `min_shared` signatures on at most the limit's number of distinct pages
//!   ([`super::MatchParams::common`]; the idea is I-Match's and the collection-statistics
//!   choice of signatures the Workbench paper discusses in its related work, §2, and plans as
//!   IDF weighting of spot signatures, §6). Common signatures' lists are neither built nor
//!   walked; a candidate met in the rare lists is completed with them (they count in its
//!   Jaccard). A page walks at most the limit's entries per list: with a fixed limit the walk
//!   grows with the archive instead of its square; `auto`'s limit is a share of the archive,
//!   which keeps recall and still walks a tenth of the candidates at a million pages. Two
//!   stories of one topic no longer pair on its vocabulary alone.
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
    CommonLimit, CommonUse, DocTrace, MatchOutcome, MatchParams, Mode, ScoredPair, Trace,
    common_limit_on, completed, declarations_from_pairs, distinct_document_frequencies,
    first_copies, index_sizes, is_rare, may_match, processing_order, rare_mass, rare_prefix, seek,
    walk_may_stop, walk_order,
};
use crate::progress::Progress;
use crate::signature::SignatureSet;
use crate::signature::set::similarity;
use crate::{DocId, Result};

/// Every pair of `sets` with multiset Jaccard at least `threshold` (> 0) that shares
/// `min_shared` signatures that are not `common` ([`CommonLimit::pages`] of the distinct
/// pages), sorted by ids, with a trace entry per signed document (in ascending size order)
/// and what the limit did.
pub fn all_pairs(
    sets: &[SignatureSet],
    threshold: f64,
    min_shared: u32,
    common: CommonLimit,
    progress: &Progress,
) -> Result<(Vec<ScoredPair>, Vec<DocTrace>, CommonUse)> {
    all_pairs_walking(sets, threshold, min_shared, common, Part::WHOLE, progress)
}

/// One of `of` parts of [`all_pairs`]' work: the part `k` walks the documents of every `of`-th
/// rank in size order from rank `k` (ranks interleaved, so each part meets small and large
/// documents alike), against the index of every document. The parts' pairs together are
/// [`all_pairs`]' pairs, each in exactly one part: a pair is found by the walk of its larger
/// document (in (size, id) order), and a group of identical multisets is paired within itself
/// by the part that walks its first member. What the executors of the Spark job in `spark/`
/// call, one part a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// This part, below `of`.
    pub k: u32,
    /// The number of parts (at least 1).
    pub of: u32,
}

impl Part {
    /// The whole work in one part.
    pub const WHOLE: Part = Part { k: 0, of: 1 };

    /// An error unless this part is one of its number.
    fn check(self) -> Result<()> {
        if self.of == 0 || self.k >= self.of {
            return Err(crate::Error::InvalidParameter(format!(
                "part {} of {} does not exist: parts are numbered from 0 below their number",
                self.k, self.of
            )));
        }
        Ok(())
    }

    /// Whether this part walks the document of `rank`.
    fn walks(self, rank: usize) -> bool {
        rank as u64 % u64::from(self.of.max(1)) == u64::from(self.k)
    }
}

/// Part `part` of [`all_pairs`]: the pairs found by walking that part's documents, sorted by
/// ids, with their trace entries. Every part builds the whole index (the walk of a document
/// reads the lists of every smaller one): to walk several parts on one machine, build it
/// once ([`Prepared`]).
pub fn all_pairs_part(
    sets: &[SignatureSet],
    threshold: f64,
    min_shared: u32,
    common: CommonLimit,
    part: Part,
    progress: &Progress,
) -> Result<(Vec<ScoredPair>, Vec<DocTrace>, CommonUse)> {
    part.check()?;
    all_pairs_walking(sets, threshold, min_shared, common, part, progress)
}

fn all_pairs_walking(
    sets: &[SignatureSet],
    threshold: f64,
    min_shared: u32,
    common: CommonLimit,
    part: Part,
    progress: &Progress,
) -> Result<(Vec<ScoredPair>, Vec<DocTrace>, CommonUse)> {
    let prepared = Prepared::new(sets, min_shared, common);
    prepared.walk(sets, threshold, part, progress)
}

/// The index of [`all_pairs`], built once and walked by any number of parts
/// ([`Prepared::walk`]): the signed documents in (size, id) order, the exact duplicates'
/// first members, the document frequencies, every list of a rare signature and every first
/// member's common signatures. A Spark executor builds it once for all the parts it walks (a
/// million generated pages: about 2.5 s, where a part of four took 42 s to walk on a core).
pub struct Prepared {
    min_shared: u32,
    by_size: Vec<u32>,
    first: Vec<u32>,
    df: Vec<u32>,
    common_df: u32,
    common_use: CommonUse,
    postings: Vec<Vec<(u32, u32)>>,
    common_parts: CommonParts,
    totals: Vec<u32>,
}

impl Prepared {
    /// The index of `sets` for pairs that share `min_shared` signatures that are not `common`.
    pub fn new(sets: &[SignatureSet], min_shared: u32, common: CommonLimit) -> Prepared {
        let m = min_shared.max(1);
        let vocabulary = sets
            .iter()
            .filter_map(|s| s.ids.last())
            .max()
            .map_or(0, |&m| m as usize + 1);
        let mut by_size: Vec<u32> = (0..sets.len() as u32)
            .filter(|&d| !sets[d as usize].is_empty())
            .collect();
        by_size.sort_by_key(|&d| (sets[d as usize].total, d));
        // Exact duplicates: `first[d]` is the smallest id with `d`'s multiset.
        let first = first_copies(sets);
        // Document frequencies over distinct multisets: the order lists are walked in, and
        // what `common_df` limits.
        let df = distinct_document_frequencies(sets, &first, vocabulary);
        let common_df = common_limit_on(sets, &first, common);
        let common_use = CommonUse::of(sets, &df, common_df, m);
        // Every first member is indexed with all its signatures, in size order, before any
        // walk: each list's length is its df, allocated once and exactly (growth by doubling
        // left a third of the index unused). A list entry names a document by its rank in
        // (size, id) order, so lists are in rank order, and a document meets only the stretch
        // before its own rank, which is what the paper's walk-then-insert sees: documents are
        // walked in parallel with the same result. Ranks also make the size bounds of a
        // stretch comparisons of the entries themselves, and a candidate's size one read of
        // `totals`, instead of a look-up of every document met in `sets`.
        // Common signatures' lists are never walked, so not built: each first member's common
        // signatures are kept by rank instead, to complete a candidate's intersection.
        let mut postings: Vec<Vec<(u32, u32)>> = (df.iter())
            .map(|&f| match is_rare(f, common_df) {
                true => Vec::with_capacity(f as usize),
                false => Vec::new(),
            })
            .collect();
        let mut common_parts = CommonParts::new(&df, common_df, by_size.len());
        // Room for every first member's common entries at once: grown by doubling, the
        // entries (a million pages: ~28 M) held a copy and a half for a moment and a quarter
        // spare after.
        if common_parts.len() > 0 {
            let (mut entries, mut max_count) = (0, 0);
            for &d in by_size.iter().filter(|&&d| first[d as usize] == d) {
                for (id, c) in sets[d as usize].iter() {
                    if !is_rare(df[id as usize], common_df) {
                        entries += 1;
                        max_count = max_count.max(c);
                    }
                }
            }
            common_parts.reserve(entries, max_count);
        }
        for (rank, &d) in by_size.iter().enumerate() {
            common_parts.begin();
            if first[d as usize] == d {
                let a = &sets[d as usize];
                for (id, c) in a.iter() {
                    if is_rare(df[id as usize], common_df) {
                        postings[id as usize].push((rank as u32, c));
                    } else {
                        common_parts.push(id, c);
                    }
                }
            }
        }
        common_parts.finish();
        let totals: Vec<u32> = by_size.iter().map(|&d| sets[d as usize].total).collect();
        Prepared {
            min_shared: m,
            by_size,
            first,
            df,
            common_df,
            common_use,
            postings,
            common_parts,
            totals,
        }
    }

    /// Part `part` of the pairs at or above `threshold` of `sets` (the sets this index was
    /// built from), sorted by ids, with a trace entry per document walked, and what the
    /// common-signature limit did.
    pub fn walk(
        &self,
        sets: &[SignatureSet],
        threshold: f64,
        part: Part,
        progress: &Progress,
    ) -> Result<(Vec<ScoredPair>, Vec<DocTrace>, CommonUse)> {
        part.check()?;
        if sets.len() != self.first.len() {
            return Err(crate::Error::InvalidParameter(format!(
                "{} signature sets walked against an index of {}",
                sets.len(),
                self.first.len()
            )));
        }
        let t = threshold.max(1e-9);
        let m = self.min_shared;
        let (by_size, first, df, common_df) =
            (&self.by_size, &self.first, &self.df, self.common_df);
        let index = Index {
            sets,
            by_size,
            totals: &self.totals,
            postings: &self.postings,
            df,
            common_df,
            common: &self.common_parts,
        };
        progress.stage("all pairs", by_size.len() as u64);
        let walked: Vec<(Vec<ScoredPair>, DocTrace)> = by_size
            .par_iter()
            .enumerate()
            .filter(|&(rank, _)| part.walks(rank))
            .map_init(
                || Walk::new(by_size.len(), self.postings.len(), self.common_parts.len()),
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
        let (found, traces): (Vec<_>, Vec<_>) = walked.into_iter().unzip();
        // A group of identical multisets pairs within itself in the part that walks its first
        // member (the smallest id, so the first of the group in (size, id) order).
        let n = sets.len();
        let mut walks_doc = vec![part == Part::WHOLE; if part == Part::WHOLE { 0 } else { n }];
        if part != Part::WHOLE {
            for (rank, &d) in by_size.iter().enumerate() {
                walks_doc[d as usize] = part.walks(rank);
            }
        }
        let own_group = |f: usize| part == Part::WHOLE || walks_doc[f];
        let pairs = with_copies(found, first, sets, |f| {
            own_group(f) && rare_mass(&sets[f], df, common_df) >= m
        });
        Ok((pairs, traces, self.common_use))
    }
}

/// [`all_pairs`] with `params`' threshold, shared signatures and common-signature limit.
pub(crate) fn all_pairs_of(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
) -> Result<(Vec<ScoredPair>, Vec<DocTrace>, CommonUse)> {
    all_pairs(
        sets,
        params.threshold,
        params.min_shared,
        params.common,
        progress,
    )
}

/// The pairs of the collapsed walk (between first members), found by document, with every
/// copy's: each pair repeated for every copy of either side, and every two members of a group
/// paired at 1 when `pairs_with_itself` of its first member's id (its multiset shares `min_shared` signatures that
/// count). Sorted by ids.
///
/// Sorted by placing: the pairs are counted by their smaller id, then each is written where
/// its id's pairs begin, and only each id's few pairs are sorted by the larger id. Joined into
/// one vector and sorted whole (rayon's parallel sort, 42,446 pairs on goldset-dev), the sort
/// was 1 % of a run's CPU, and the step took 1.21 ms (now 0.88 ms; medians of 12 runs).
fn with_copies(
    found: Vec<Vec<ScoredPair>>,
    first: &[u32],
    sets: &[SignatureSet],
    pairs_with_itself: impl Fn(usize) -> bool,
) -> Vec<ScoredPair> {
    let n = first.len();
    // A group per first member with copies (itself, then its copies by id), found through a
    // slot per document: no hash map, and no list made per pair.
    let mut slot = vec![u32::MAX; n];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (d, &f) in first.iter().enumerate() {
        if f != d as u32 {
            let s = &mut slot[f as usize];
            if *s == u32::MAX {
                *s = groups.len() as u32;
                groups.push(vec![f]);
            }
            groups[*s as usize].push(d as u32);
        }
    }
    fn group<'a>(slot: &[u32], groups: &'a [Vec<u32>], f: &'a u32) -> &'a [u32] {
        match slot[*f as usize] {
            u32::MAX => std::slice::from_ref(f),
            s => &groups[s as usize],
        }
    }
    // Whether each group's members pair with each other (asked once per group).
    let with_itself: Vec<bool> = (groups.iter())
        .map(|m| pairs_with_itself(m[0] as usize))
        .collect();
    // Every pair of the output, to `put`: twice, to count and to place.
    let each = |put: &mut dyn FnMut(ScoredPair)| {
        for p in found.iter().flatten() {
            if slot[p.a.index()] == u32::MAX && slot[p.b.index()] == u32::MAX {
                put(*p);
                continue;
            }
            for &x in group(&slot, &groups, &p.a.0) {
                for &y in group(&slot, &groups, &p.b.0) {
                    put(ScoredPair::new(DocId(x), DocId(y), p.score));
                }
            }
        }
        for (members, _) in groups.iter().zip(&with_itself).filter(|(_, w)| **w) {
            let f = members[0] as usize;
            let one = similarity(sets[f].total, sets[f].total, sets[f].total);
            for (i, &x) in members.iter().enumerate() {
                for &y in &members[i + 1..] {
                    put(ScoredPair::new(DocId(x), DocId(y), one));
                }
            }
        }
    };
    let mut at = vec![0usize; n + 1];
    each(&mut |p| at[p.a.index() + 1] += 1);
    for i in 1..at.len() {
        at[i] += at[i - 1];
    }
    // Sized once for every pair it will hold (grown by doubling, its last growth copied the
    // pairs into fresh memory at the end of a run: on goldset-dev 324 page faults).
    let unset = ScoredPair::new(DocId(0), DocId(0), 0.0);
    let mut out = vec![unset; at[n]];
    each(&mut |p| {
        out[at[p.a.index()]] = p;
        at[p.a.index()] += 1;
    });
    drop(found);
    // Every pair is found once, so no two share their ids: the unstable sort is the stable one.
    out.par_chunk_by_mut(|x, y| x.a == y.a)
        .for_each(|same| same.sort_unstable_by_key(|p| p.b));
    out
}

/// All-pairs matching: every pair at or above the threshold, then declarations in the seeded
/// order (seeds first when `params.seeds` is not empty).
pub fn run(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
) -> Result<MatchOutcome> {
    let (pairs, traces, common) = all_pairs_of(sets, params, progress)?;
    let signed: Vec<bool> = sets.iter().map(|s| !s.is_empty()).collect();
    let mut outcome = outcome_from_pairs(&signed, pairs, traces, params);
    outcome.trace.common = common;
    Ok(outcome)
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
            ..Trace::default()
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
    common_df: u32,
    common: &'a CommonParts,
}

/// The common signatures of every document (by rank) under a `common_df` limit, as (dense
/// number, count): a candidate's shared count over them is its entries looked up in the
/// walked document's counts, a scratch array of one slot per common signature (a few
/// thousand, in the cache) instead of a binary search of the candidate per signature.
struct CommonParts {
    /// A common signature's dense number, by signature id.
    dense: HashMap<u32, u32>,
    /// Where each rank's entries start in `entries` (one more for the end).
    starts: Vec<u32>,
    entries: CommonEntries,
    /// Each rank's mass of common signatures.
    mass: Vec<u32>,
}

/// The entries of [`CommonParts`]: packed in four bytes (dense number · 256 + count) when
/// every dense number is below 2^24 and every count below 256, as nearly always (a million
/// generated pages: 28 M entries, 3,116 common signatures, 112 MB instead of 224); else eight.
enum CommonEntries {
    Packed(Vec<u32>),
    Wide(Vec<(u32, u32)>),
}

impl CommonEntries {
    fn len(&self) -> usize {
        match self {
            CommonEntries::Packed(v) => v.len(),
            CommonEntries::Wide(v) => v.len(),
        }
    }
}

impl CommonParts {
    /// Parts to fill for documents in rank order; a signature is common when `df` says it
    /// is on more than `common_df` distinct pages. Without a limit it holds nothing.
    fn new(df: &[u32], common_df: u32, ranks: usize) -> CommonParts {
        let dense: HashMap<u32, u32> = (df.iter().enumerate())
            .filter(|&(_, &f)| !is_rare(f, common_df))
            .enumerate()
            .map(|(n, (id, _))| (id as u32, n as u32))
            .collect();
        let ranks = if dense.is_empty() { 0 } else { ranks };
        CommonParts {
            dense,
            starts: Vec::with_capacity(ranks + 1),
            entries: CommonEntries::Wide(Vec::new()),
            mass: Vec::with_capacity(ranks),
        }
    }

    /// Room for `entries` entries, none with a count above `max_count`, in the smaller form
    /// that holds them; before any is pushed.
    fn reserve(&mut self, entries: usize, max_count: u32) {
        self.entries = if self.dense.len() <= 1 << 24 && max_count < 256 {
            CommonEntries::Packed(Vec::with_capacity(entries))
        } else {
            CommonEntries::Wide(Vec::with_capacity(entries))
        };
    }

    /// The number of common signatures.
    fn len(&self) -> usize {
        self.dense.len()
    }

    /// The next rank's entries follow.
    fn begin(&mut self) {
        if self.len() > 0 {
            self.starts.push(self.entries.len() as u32);
            self.mass.push(0);
        }
    }

    /// A common signature of the current rank.
    fn push(&mut self, id: u32, count: u32) {
        let n = self.dense[&id];
        match &mut self.entries {
            CommonEntries::Packed(v) => v.push(n << 8 | count),
            CommonEntries::Wide(v) => v.push((n, count)),
        }
        *self.mass.last_mut().expect("begin() first") += count;
    }

    /// Every rank's entries are in.
    fn finish(&mut self) {
        if self.len() > 0 {
            self.starts.push(self.entries.len() as u32);
        }
    }

    /// Where `rank`'s entries are (empty without a limit).
    fn range(&self, rank: u32) -> std::ops::Range<usize> {
        match self.starts.get(rank as usize..rank as usize + 2) {
            Some(&[from, to]) => from as usize..to as usize,
            _ => 0..0,
        }
    }

    /// `f` of every common entry `(dense number, count)` of `rank`.
    fn for_each(&self, rank: u32, mut f: impl FnMut(u32, u32)) {
        let range = self.range(rank);
        match &self.entries {
            CommonEntries::Packed(v) => v[range].iter().for_each(|&e| f(e >> 8, e & 0xff)),
            CommonEntries::Wide(v) => v[range].iter().for_each(|&(n, c)| f(n, c)),
        }
    }

    /// `rank`'s common signatures shared with the walked document, whose counts are in
    /// `scratch` by dense number.
    fn shared(&self, rank: u32, scratch: &[u32]) -> u32 {
        let range = self.range(rank);
        match &self.entries {
            CommonEntries::Packed(v) => (v[range].iter())
                .map(|&e| (e & 0xff).min(scratch[(e >> 8) as usize]))
                .sum(),
            CommonEntries::Wide(v) => (v[range].iter())
                .map(|&(n, c)| c.min(scratch[n as usize]))
                .sum(),
        }
    }

    /// The common mass of `rank` (0 without a limit).
    fn mass(&self, rank: u32) -> u32 {
        self.mass.get(rank as usize).copied().unwrap_or(0)
    }
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
    /// The candidates whose shared count reached `min_shared` in the lists walked, in the
    /// order they reached it.
    qualified: Vec<u32>,
    order: Vec<(u32, u32)>,
    stretches: Vec<(u32, u32)>,
    /// The walked document's count of each common signature ([`CommonParts`]), 0 between
    /// walks.
    common: Vec<u32>,
}

impl Walk {
    fn new(n: usize, lists: usize, common: usize) -> Walk {
        Walk {
            common: vec![0; common],
            stretches: vec![(0, 0); lists],
            slots: vec![
                Slot {
                    stamp: u32::MAX,
                    shared: 0
                };
                n
            ],
            candidates: Vec::new(),
            qualified: Vec::new(),
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
        self.qualified.clear();
        // Without a limit every signature is rare (`rare == a.total`).
        let (rare_len, rare) = rare_prefix(&self.order, index.df, index.common_df);
        // Mass of `a` in lists not walked yet (all, and rare), and how many lists were walked.
        let mut rest = a.total;
        let mut rare_rest = rare;
        let mut walked = 0;
        // A page with fewer than `m` rare signatures pairs with none.
        let walk_to = if rare < m { 0 } else { rare_len };
        for &(id, c) in &self.order[..walk_to] {
            if walk_may_stop(rest, a.total, t, m) {
                break;
            }
            rest -= c;
            rare_rest -= c;
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
                let before = slot.shared;
                slot.shared += c.min(cx);
                if before < m && slot.shared >= m {
                    self.qualified.push(x);
                }
            }
        }
        // The rare signatures of `a` whose lists were not walked: only these are looked up
        // in a candidate to complete its rare intersection; the common ones are looked up in
        // the walk's scratch.
        let unwalked_rare = &self.order[walked..rare_len];
        let common = &mut self.common;
        index.common.for_each(r, |n, c| common[n as usize] = c);
        let mass_a = index.common.mass(r);
        trace.colliding = self.candidates.len() as u32;
        // Once every rare list was walked, a candidate's rare count is complete: only those
        // that reached `m` can pair (the others are counted as avoided without a look).
        let candidates = if rare_rest == 0 {
            trace.avoided += (self.candidates.len() - self.qualified.len()) as u32;
            &self.qualified
        } else {
            &self.candidates
        };
        for &x in candidates {
            let total_b = index.totals[x as usize];
            // Every walked list is rare.
            let shared = self.slots[x as usize].shared;
            if shared + rare_rest < m {
                trace.avoided += 1;
                continue;
            }
            // Without a limit `mass_a` is 0 and `rare_rest` is `rest`.
            let upper = (shared + rare_rest + mass_a.min(index.common.mass(x)))
                .min(a.total)
                .min(total_b);
            if !may_match(upper, a.total, total_b, t, m) {
                trace.avoided += 1;
                continue;
            }
            trace.compared += 1;
            let xd = index.by_size[x as usize];
            let shared_rare = completed(shared, unwalked_rare, &index.sets[xd as usize]);
            if shared_rare < m {
                continue;
            }
            let shared = shared_rare + index.common.shared(x, &self.common);
            let score = similarity(shared, a.total, total_b);
            if score >= t {
                pairs.push(ScoredPair::new(DocId(d), DocId(xd), score));
            }
        }
        let common = &mut self.common;
        index.common.for_each(r, |n, _| common[n as usize] = 0);
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
            let (pairs, traces, _) =
                all_pairs(sets, 0.3, 2, CommonLimit::Off, &Progress::new()).unwrap();
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
        // In order of their ids, each pair once, with and without copies.
        for pairs in [&few, &many] {
            assert!(
                pairs
                    .windows(2)
                    .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
            );
        }
    }

    /// 120 short sets and 30 copies of the one at `copied`.
    fn with_copies_of(copied: usize) -> Vec<SignatureSet> {
        let mut sets = with_short_sets(120, 11);
        for _ in 0..30 {
            sets.push(sets[copied].clone());
        }
        sets
    }

    #[test]
    fn the_parts_together_are_the_whole_each_pair_once() {
        let sets = with_copies_of(5);
        for (t, common) in [(0.12, CommonLimit::Off), (0.4, CommonLimit::Pages(20))] {
            let (whole, _, _) = all_pairs(&sets, t, 2, common, &Progress::new()).unwrap();
            for of in [1, 2, 3, 7] {
                let mut parts: Vec<ScoredPair> = (0..of)
                    .flat_map(|k| {
                        let part = Part { k, of };
                        all_pairs_part(&sets, t, 2, common, part, &Progress::new())
                            .unwrap()
                            .0
                    })
                    .collect();
                parts.sort_by_key(|p| (p.a, p.b));
                assert_eq!(parts, whole, "{of} parts at {t}");
            }
        }
        assert!(
            all_pairs_part(
                &sets,
                0.5,
                2,
                CommonLimit::Off,
                Part { k: 2, of: 2 },
                &Progress::new()
            )
            .is_err()
        );
    }

    #[test]
    fn one_prepared_index_walked_by_every_part_is_the_whole() {
        let sets = with_copies_of(7);
        for (t, common) in [(0.12, CommonLimit::Off), (0.4, CommonLimit::Pages(20))] {
            let (whole, _, used) = all_pairs(&sets, t, 2, common, &Progress::new()).unwrap();
            let prepared = Prepared::new(&sets, 2, common);
            let of = 3;
            let mut parts: Vec<ScoredPair> = Vec::new();
            for k in 0..of {
                let (pairs, _, walked_use) =
                    (prepared.walk(&sets, t, Part { k, of }, &Progress::new())).unwrap();
                assert_eq!(walked_use, used);
                parts.extend(pairs);
            }
            parts.sort_by_key(|p| (p.a, p.b));
            assert_eq!(parts, whole, "parts of one index at {t}");
        }
        let prepared = Prepared::new(&sets, 2, CommonLimit::Off);
        let walk = |sets: &[SignatureSet], part| prepared.walk(sets, 0.5, part, &Progress::new());
        assert!(walk(&sets, Part { k: 3, of: 3 }).is_err());
        assert!(
            walk(&sets[1..], Part::WHOLE).is_err(),
            "sets other than the index's"
        );
    }

    /// Document frequencies over distinct multisets, counted the plain way.
    fn distinct_df(sets: &[SignatureSet]) -> HashMap<u32, u32> {
        let mut seen = std::collections::HashSet::new();
        let mut df = HashMap::new();
        for s in sets.iter().filter(|s| !s.is_empty()) {
            if seen.insert((s.ids.clone(), s.counts.clone())) {
                for &id in &s.ids {
                    *df.entry(id).or_insert(0) += 1;
                }
            }
        }
        df
    }

    #[test]
    fn all_pairs_equals_brute_force() {
        for (seed, heavy) in (0..4).flat_map(|seed| [(seed, false), (seed, true)]) {
            let mut sets = with_short_sets(80, seed);
            if heavy {
                // Signatures 0..3 (common under the smaller limits) repeated 300 times: counts
                // that do not fit the common entries' packed form.
                sets = (sets.iter())
                    .map(|s| {
                        SignatureSet::from_ids(s.iter().flat_map(|(id, c)| {
                            std::iter::repeat_n(id, (c * if id < 3 { 300 } else { 1 }) as usize)
                        }))
                    })
                    .collect();
                assert!(
                    sets.iter()
                        .any(|s| matches!(s.counts, crate::signature::Counts::Large(_)))
                );
            }
            let df = distinct_df(&sets);
            // Shared signatures on at most `common` distinct pages (any with 0).
            let shared_rare = |a: &SignatureSet, b: &SignatureSet, common: u32| -> u32 {
                let mut n = 0;
                for (i, &id) in a.ids.iter().enumerate() {
                    if let Ok(j) = b.ids.binary_search(&id)
                        && (common == 0 || df[&id] <= common)
                    {
                        n += a.counts.get(i).min(b.counts.get(j));
                    }
                }
                n
            };
            for t in [0.1, 0.3, 0.5, 0.7, 0.9, 1.0] {
                for m in [1, 2, 3] {
                    for common in [0, 4, 10, 25] {
                        let limit = CommonLimit::Pages(common);
                        let (pairs, _, _) =
                            all_pairs(&sets, t, m, limit, &Progress::new()).unwrap();
                        let mut brute = Vec::new();
                        for i in 0..sets.len() {
                            for j in i + 1..sets.len() {
                                let s = jaccard(&sets[i], &sets[j]);
                                let shared = sets[i].intersection(&sets[j]);
                                let rare = shared_rare(&sets[i], &sets[j], common);
                                if s >= t && s > 0.0 && shared >= m && rare >= m {
                                    brute.push((i as u32, j as u32));
                                }
                            }
                        }
                        let got: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a.0, p.b.0)).collect();
                        assert_eq!(
                            got, brute,
                            "seed {seed} heavy {heavy} t {t} min_shared {m} common {common}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_common_signature_limit_drops_chance_pairs_and_walks_less() {
        // Two hundred short pages of one topic: each has four of ten topic words and three
        // words of its own; twenty of them also have a copy that adds one word of its own.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let mut sets = Vec::new();
        let mut next = 100u32;
        for page in 0..200 {
            let mut ids: Vec<u32> = (0..4).map(|_| rng.random_range(0..10)).collect();
            ids.extend(next..next + 3);
            next += 3;
            sets.push(SignatureSet::from_ids(ids.clone()));
            if page % 10 == 0 {
                ids.push(next);
                next += 1;
                sets.push(SignatureSet::from_ids(ids));
            }
        }
        let run = |common| {
            let limit = CommonLimit::Pages(common);
            let (pairs, traces, _) = all_pairs(&sets, 0.3, 2, limit, &Progress::new()).unwrap();
            let colliding: u64 = traces.iter().map(|t| u64::from(t.colliding)).sum();
            (pairs, colliding)
        };
        let (all, walked_all) = run(0);
        let (rare, walked_rare) = run(5);
        // Without a limit, pages that share only topic words pair by chance ...
        assert!(all.len() > 20, "{} pairs", all.len());
        // ... with one, exactly the twenty pages and their copies do.
        assert_eq!(rare.len(), 20);
        assert!(rare.iter().all(|p| p.b.0 == p.a.0 + 1));
        assert!(
            walked_rare * 10 < walked_all,
            "{walked_rare} vs {walked_all}"
        );
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
            for common_df in [0, 12] {
                let common = CommonLimit::Pages(common_df);
                let p = MatchParams {
                    threshold: 0.2,
                    seed,
                    guess,
                    add_duplicates,
                    min_shared,
                    common,
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
                assert_eq!(inc.links(), ap.links(), "seed {seed} common {common_df}");
                assert_eq!(inc.trace.final_index_size(), ap.trace.final_index_size());
            }
        }
    }
}
