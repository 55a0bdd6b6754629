//! Matching procedures: signature multisets in, duplicate declarations, scored pairs and the
//! instrumentation the papers plot out.
//!
//! Which one should you use?
//!
//! - [`Mode::Incremental`] (Workbench paper §3.3.3, Fig. 8): documents in a seeded random order;
//!   each is compared with the *indexed* documents it collides with and either declared a
//!   duplicate of one of them or indexed itself. One pass, small index. The default.
//! - [`Mode::Seeded`] (§3.3.4): given seed documents are indexed first, then as Incremental.
//! - [`Mode::Full`] (§3.3.2): all documents are indexed first, then each is matched against all
//!   others. Two passes; slower; no order effect.
//! - [`Mode::AllPairs`] (Theobald et al. SIGIR 2008 §4): every pair at or above the threshold,
//!   found with partitions by signature count, an inverted index walked in ascending list length
//!   and early termination of list walks and Jaccard merges. Declarations are then derived as
//!   Incremental would make them from those pairs, so the result can be re-clustered at any
//!   higher threshold without matching again.
//!
//! [`Guess::First`] declares the colliding document at or above the threshold that entered the
//! index first (the paper's "first guess", made deterministic: the order collisions are met in
//! an inverted index is an accident of signature ids); [`Guess::Best`] the one with the highest
//! score, ties to the earlier indexed (§3.3.1). The length bound
//! (§4, `BestSim = min(N_X,N_Y)/max(N_X,N_Y)`) skips pairs that cannot reach the threshold; it
//! changes speed, never the result. "Add duplicates to the index" is §3.3.5.
//!
//! Similarities are the multiset Jaccard of [`crate::signature::set`]; a pair matches when its
//! score is **at least** the threshold.

pub mod allpairs;
pub mod bridges;
pub mod chunk_overlap;
pub mod incremental;
pub mod lsh;
pub mod pieces;
pub mod trace;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::progress::Progress;
use crate::signature::{SignatureSet, set};
use crate::{DocId, Error, Result};

pub use trace::{BatchMistakes, DocTrace, Trace};

/// How documents are compared (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mode {
    /// One pass in random order; only non-duplicates are indexed.
    #[default]
    Incremental,
    /// Seed documents indexed first, then Incremental.
    Seeded,
    /// Everything indexed, then every document matched against all others.
    Full,
    /// Every pair at or above the threshold (length partitions + inverted index).
    AllPairs,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 4] = [Mode::Incremental, Mode::Seeded, Mode::Full, Mode::AllPairs];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Incremental => "incremental",
            Mode::Seeded => "seeded",
            Mode::Full => "full",
            Mode::AllPairs => "allpairs",
        }
    }

    /// Whether the result depends on the random order (and should be averaged over seeds).
    pub fn is_randomized(self) -> bool {
        !matches!(self, Mode::Full)
    }
}

impl std::str::FromStr for Mode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::InvalidParameter(format!(
                    "unknown mode {s:?} (expected incremental, seeded, full or allpairs)"
                ))
            })
    }
}

/// Which of the colliding documents above the threshold is declared the match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Guess {
    /// The one indexed earliest.
    First,
    /// The one with the highest score (ties: the one indexed earliest).
    #[default]
    Best,
}

impl std::str::FromStr for Guess {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "first" => Ok(Guess::First),
            "best" => Ok(Guess::Best),
            _ => Err(Error::InvalidParameter(format!(
                "unknown guess {s:?} (expected first or best)"
            ))),
        }
    }
}

/// Signatures a pair must share by default ([`MatchParams::min_shared`]): two. One shared
/// spot signature is a common phrase (`a:plan`), not a story, yet between two short pages it
/// scores `1/(|A|+|B|-1)`, above a low threshold; such coincidences grow with the square of the
/// archive. Measured (docs/research-log.md, "What decided SpotSigs' defaults"): on goldset-dev
/// the cross-validated scores are the same with 1 and 2 (its pages are long); on the sample
/// archive pairwise P rises from 0.997 to 1.000 (one false pair of score 1/8 goes); on 300k
/// generated pages at 0.12 pairwise P rises from 0.054 to 0.490. Stored runs made before this
/// option read as 1, what they were run with.
pub const DEFAULT_MIN_SHARED: u32 = 2;

/// Which signatures are common ([`MatchParams::common`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommonLimit {
    /// None: every shared signature counts (the paper; runs stored before the option).
    #[default]
    Off,
    /// Off below [`CommonLimit::AUTO_FROM`] distinct pages; above, a signature on more than
    /// 0.3 % of them is common ([`CommonLimit::pages`]). SpotSigs' default.
    Auto,
    /// A signature on more than this many distinct pages is common.
    Pages(u32),
}

impl CommonLimit {
    /// Distinct pages from which `Auto` sets a limit.
    pub const AUTO_FROM: usize = 100_000;

    /// The limit on a collection of `distinct` distinct signed pages: a signature on more
    /// pages than this is common (0: none is).
    ///
    /// `Auto` is 0.3 % of the pages (300 at 100k, 3,000 at a million). Measured
    /// (docs/benchmarks.md, "Common signatures"): on 100k generated pages pairwise precision
    /// rises from 0.966 to 0.9996 and recall goes from 0.9904 to 0.9886; at a million
    /// 300 kept recall at 0.73 only (a story's topic words are on more pages in a larger
    /// archive) where 3,000 keeps 0.990. Below 100k pages it sets none: goldset-dev's largest
    /// stories run on about a hundred distinct pages of 770, and a limit of 100 there starts
    /// dropping pairs. No limit changes goldset-dev's, frames-dev's or the shared WARCs'
    /// pairs, as none of them reaches 100k pages.
    pub fn pages(self, distinct: usize) -> u32 {
        match self {
            CommonLimit::Off => 0,
            CommonLimit::Pages(n) => n,
            CommonLimit::Auto if distinct < Self::AUTO_FROM => 0,
            CommonLimit::Auto => (distinct as u64 * 3 / 1000).min(u64::from(u32::MAX)) as u32,
        }
    }
}

impl std::str::FromStr for CommonLimit {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(CommonLimit::Auto),
            "off" | "0" => Ok(CommonLimit::Off),
            n => n
                .parse::<u32>()
                .map(CommonLimit::Pages)
                .map_err(|_| format!("{s:?} is not auto, off or a number of pages")),
        }
    }
}

impl std::fmt::Display for CommonLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommonLimit::Off => f.write_str("off"),
            CommonLimit::Auto => f.write_str("auto"),
            CommonLimit::Pages(n) => write!(f, "{n}"),
        }
    }
}

/// What a common-signature limit did in a run ([`MatchParams::common`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommonUse {
    /// The limit applied: a signature on more distinct pages than this was common (0: none).
    pub limit: u32,
    /// Signatures over the limit.
    pub signatures: u64,
    /// Signed pages with fewer than `min_shared` rare signatures: they pair with no page.
    pub pages_without_pairs: u64,
}

impl CommonUse {
    /// The use of `limit` (0: none) on `sets` with distinct-page frequencies `df`.
    pub(crate) fn of(sets: &[SignatureSet], df: &[u32], limit: u32, min_shared: u32) -> Self {
        if limit == 0 {
            return CommonUse::default();
        }
        CommonUse {
            limit,
            signatures: df.iter().filter(|&&f| !is_rare(f, limit)).count() as u64,
            pages_without_pairs: (sets.iter())
                .filter(|s| !s.is_empty() && rare_mass(s, df, limit) < min_shared.max(1))
                .count() as u64,
        }
    }
}

/// The mass of `set`'s signatures that are not common under `limit` (all of it without one).
pub(crate) fn rare_mass(set: &SignatureSet, df: &[u32], limit: u32) -> u32 {
    set.iter()
        .filter(|&(id, _)| is_rare(df[id as usize], limit))
        .map(|(_, c)| c)
        .sum()
}

/// Whether a signature on `df` distinct pages counts towards `min_shared` under
/// limit `common_df` (0: none; [`CommonLimit::pages`]) of [`MatchParams::common`].
pub(crate) fn is_rare(df: u32, common_df: u32) -> bool {
    common_df == 0 || df <= common_df
}

/// For every document, the smallest id with its signature multiset (itself for the first
/// one and for unsigned documents): exact copies are walked once, and counted once in
/// [`distinct_document_frequencies`].
pub(crate) fn first_copies(sets: &[SignatureSet]) -> Vec<u32> {
    let mut first: Vec<u32> = (0..sets.len() as u32).collect();
    let mut seen: std::collections::HashMap<(&[u32], &crate::signature::set::Counts), u32> =
        std::collections::HashMap::with_capacity(sets.len());
    for (d, set) in sets.iter().enumerate() {
        if !set.is_empty() {
            first[d] = *seen.entry((&set.ids, &set.counts)).or_insert(d as u32);
        }
    }
    first
}

/// The limit `common` sets on `sets` (`first` from [`first_copies`]): [`CommonLimit::pages`]
/// of their distinct signed pages.
pub(crate) fn common_limit_on(sets: &[SignatureSet], first: &[u32], common: CommonLimit) -> u32 {
    let distinct = (sets.iter().enumerate())
        .filter(|&(d, s)| !s.is_empty() && first[d] == d as u32)
        .count();
    common.pages(distinct)
}

/// Document frequency of every signature id below `vocabulary` over the distinct multisets of
/// `sets` (`first` from [`first_copies`]): what [`MatchParams::common`] limits.
pub(crate) fn distinct_document_frequencies(
    sets: &[SignatureSet],
    first: &[u32],
    vocabulary: usize,
) -> Vec<u32> {
    document_frequencies(
        (sets.iter().enumerate())
            .filter(|&(d, s)| first[d] == d as u32 && !s.is_empty())
            .map(|(_, s)| s),
        vocabulary,
    )
}

/// How much of a walk-ordered set (`walk_order`, rarest first) is rare under `common_df`: the
/// number of its leading entries with `df <= common_df` and their mass.
pub(crate) fn rare_prefix(order: &[(u32, u32)], df: &[u32], common_df: u32) -> (usize, u32) {
    let k = order.partition_point(|&(id, _)| is_rare(df[id as usize], common_df));
    (k, order[..k].iter().map(|&(_, c)| c).sum())
}

/// Share of their best links a declared link must reach in SpotSigs' default run
/// ([`MatchParams::link_share`]; `MatchParams::default()` keeps the paper's 0): 0.2. A page is
/// declared a duplicate of a partner only if their score is at least a fifth of the best score
/// either of the two has. Measured on goldset-dev (docs/benchmarks.md, "Same core, not same
/// frame", two-fold cross-validation, 10 deals of the folds × 10 seeds): document-level
/// precision 0.978 → 0.995, pairwise F1 0.982 → 0.976, impure clusters 2.5 → 0.94 per deal, and
/// the quality no longer depends on the threshold between 0.04 and 0.18, so a threshold chosen
/// on an easy half no longer sinks the other half. Stored runs made before this option read
/// as 0, what they were run with.
pub const DEFAULT_LINK_SHARE: f64 = 0.2;

/// Fraction of the page pairs across a declared link that must be links in SpotSigs' default
/// run ([`MatchParams::cross_links`]; `MatchParams::default()` keeps the paper's 0): 0.1.
/// Measured on goldset-dev (docs/benchmarks.md, "Same core, not same frame", 10 deals × 10
/// seeds): impure clusters 0.94 → 0.84 per deal, document precision 0.995 → 0.996, pairwise
/// F1 0.976 → 0.975; 0.2 leaves 0.77 impure at pair F1 0.974, and the two score alike on the
/// whole set, so the smaller fraction is kept. Stored runs made before this option read as 0,
/// what they were run with.
pub const DEFAULT_CROSS_LINKS: f64 = 0.1;

/// Whether a walk over the lists of a set of `total` signatures, `rest` of them not walked
/// yet, may stop: a document not met so far shares at most `rest` with the set, too few to
/// reach `t` (`J <= ∩/|A|`, SIGIR 2008 §4) or to share `min_shared`. Both all-pairs and
/// incremental matching stop their walks here.
pub(crate) fn walk_may_stop(rest: u32, total: u32, t: f64, min_shared: u32) -> bool {
    f64::from(rest) < t * f64::from(total) - 1e-9 || rest < min_shared
}

/// Whether two sets of `total_a` and `total_b` signatures that share at most `upper` can still
/// match: share `min_shared` and reach `t`.
pub(crate) fn may_match(upper: u32, total_a: u32, total_b: u32, t: f64, min_shared: u32) -> bool {
    upper >= min_shared && set::similarity(upper, total_a, total_b) >= t
}

/// `set`'s `(signature, count)` pairs into `into`, in the order a walk visits their lists:
/// rarest first by `df`, ties by id.
pub(crate) fn walk_order(set: &SignatureSet, df: &[u32], into: &mut Vec<(u32, u32)>) {
    into.clear();
    into.extend(set.iter());
    into.sort_by_key(|&(id, _)| (df[id as usize], id));
}

/// A candidate `b`'s intersection with a walked set: `shared`, its exact count over the lists
/// walked, completed by looking up the set's `unwalked` signatures in `b` (a few binary
/// searches, fewer than `t·|A|` of them, instead of the paper's merge of both sets).
pub(crate) fn completed(shared: u32, unwalked: &[(u32, u32)], b: &SignatureSet) -> u32 {
    let mut inter = shared;
    for &(id, c) in unwalked {
        if let Ok(j) = b.ids.binary_search(&id) {
            inter += c.min(b.counts.get(j));
        }
    }
    inter
}

/// The number of entries of `list` (in ascending rank order) with a rank below `rank`, found
/// by galloping forward from `hint` when the entries before it are all below `rank`, else by a
/// binary search of the entries before `hint`.
pub(crate) fn seek(list: &[(u32, u32)], hint: usize, rank: u32) -> usize {
    let hint = hint.min(list.len());
    if hint > 0 && list[hint - 1].0 >= rank {
        return list[..hint].partition_point(|&(x, _)| x < rank);
    }
    // Every entry before `lo` is below `rank`; the answer lies in `lo..=hi`.
    let (mut lo, mut hi, mut step) = (hint, hint, 1);
    while hi < list.len() && list[hi].0 < rank {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(list.len());
    lo + list[lo..hi].partition_point(|&(x, _)| x < rank)
}

/// Document frequency of every signature id below `vocabulary` over `sets`.
pub(crate) fn document_frequencies<'a>(
    sets: impl Iterator<Item = &'a SignatureSet>,
    vocabulary: usize,
) -> Vec<u32> {
    let mut df = vec![0u32; vocabulary];
    for set in sets {
        for &id in &set.ids {
            df[id as usize] += 1;
        }
    }
    df
}

/// Parameters of one matching run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchParams {
    /// Jaccard confidence threshold in `[0, 1]`.
    pub threshold: f64,
    /// Matching procedure.
    pub mode: Mode,
    /// First or best guess.
    pub guess: Guess,
    /// Index documents declared duplicates too (§3.3.5). On by default: on goldset-dev it lifts
    /// pairwise recall of representative clusters from ~0.5 to ~0.87 at the same precision,
    /// because a page's best partner is often a page already declared a duplicate.
    pub add_duplicates: bool,
    /// Use the `min/max` length bound (§4).
    pub length_bound: bool,
    /// Signatures a pair must share, whatever its Jaccard (1: the paper, any pair at or above
    /// the threshold). Two short pages that share one common phrase score `1/(|A|+|B|-1)`,
    /// which reaches a low threshold; in a large archive such coincidences outnumber the true
    /// pairs (see [`DEFAULT_MIN_SHARED`]).
    #[serde(default = "one")]
    pub min_shared: u32,
    /// Which signatures are too common to count towards [`MatchParams::min_shared`] (off: none,
    /// the paper). A signature on more distinct pages (identical pages counted once) than the
    /// limit is common: it still counts in the Jaccard, but two pages must share `min_shared`
    /// rarer ones to pair, and pairs are looked up through the rarer lists only. Two
    /// unrelated stories of one topic share `the:hailstorm`-like signatures; in a large
    /// archive such coincidences grow with its square, and so does the walk of the common
    /// lists. Stored runs made before this option read as off.
    #[serde(default)]
    pub common: CommonLimit,
    /// Share of the better of the two pages' best scores a pair must reach to be declared a
    /// link (0: the paper, any pair at or above the threshold). A page that has a copy of its
    /// story at 0.9 is not declared a duplicate of another story's page at 0.15 that shares a
    /// follow-up's wording or a network's boilerplate with it; a page whose best partner scores
    /// 0.15 still links at 0.15. Applies where declarations are made from scored pairs (every
    /// mode but the paper's loop: Full, and Incremental or Seeded without `add_duplicates`,
    /// which declare as they walk; [`MatchParams::link_rules_apply`]).
    #[serde(default)]
    pub link_share: f64,
    /// With [`MatchParams::link_share`]: a page whose best pair the share refuses is declared
    /// no link at all, rather than a link to a weaker partner (false: such a page links to the
    /// best partner that takes it). A page of one wire's text that meets its own story's tight
    /// copies at 0.17 (refused) and another wire's looser copies at 0.15 (taken) stays alone
    /// instead of joining the other wire's story. Runs stored before this option read as
    /// false, what they were run with.
    #[serde(default)]
    pub refused_stays_alone: bool,
    /// Fraction of the page pairs across a declared link (the pages linked through it against
    /// the rest of its cluster, two or more on each side) that must be links themselves for it
    /// to hold (0: the paper, any declared link holds). Cuts a cluster where a second story
    /// rode in on one page ([`bridges`]). Applies where [`MatchParams::link_share`] does, and
    /// cuts only with `add_duplicates` (without it no page is linked through another).
    #[serde(default)]
    pub cross_links: f64,
    /// Seed of the random document order.
    pub seed: u64,
    /// Documents indexed first in [`Mode::Seeded`], in this order.
    pub seeds: Vec<DocId>,
    /// Record the index size every this many documents (Fig. 23 uses 100).
    pub index_every: usize,
}

fn one() -> u32 {
    1
}

impl Default for MatchParams {
    fn default() -> Self {
        MatchParams {
            threshold: 0.5,
            mode: Mode::default(),
            guess: Guess::default(),
            add_duplicates: true,
            length_bound: true,
            min_shared: DEFAULT_MIN_SHARED,
            common: CommonLimit::Off,
            link_share: 0.0,
            refused_stays_alone: false,
            cross_links: 0.0,
            seed: 0,
            seeds: Vec::new(),
            index_every: 100,
        }
    }
}

/// What a pair must reach besides the threshold to be declared a link
/// ([`MatchParams::link_share`]) and what a declared link must have across it to hold
/// ([`MatchParams::cross_links`]); the default (no share, no refusal, no cross links) is the paper.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LinkRules {
    /// [`MatchParams::link_share`].
    pub share: f64,
    /// [`MatchParams::refused_stays_alone`].
    pub refused_stays_alone: bool,
    /// [`MatchParams::cross_links`].
    pub cross_links: f64,
}

impl MatchParams {
    /// The link rules of this run.
    pub fn link_rules(&self) -> LinkRules {
        LinkRules {
            share: self.link_share,
            refused_stays_alone: self.refused_stays_alone,
            cross_links: self.cross_links,
        }
    }

    /// Run with `rules`.
    pub fn set_link_rules(&mut self, rules: LinkRules) {
        self.link_share = rules.share;
        self.refused_stays_alone = rules.refused_stays_alone;
        self.cross_links = rules.cross_links;
    }

    /// Run without link rules where they cannot apply ([`MatchParams::link_rules_apply`]):
    /// the paper's loop declares before every pair of a page is scored.
    pub fn drop_link_rules_where_they_cannot_apply(&mut self) {
        if !self.link_rules_apply() {
            self.set_link_rules(LinkRules::default());
        }
    }

    /// Whether declarations are made from scored pairs, so [`MatchParams::link_share`] and
    /// [`MatchParams::cross_links`] apply:
    /// not in Full mode, nor in Incremental or Seeded mode without `add_duplicates` (the
    /// paper's loop, which declares while it walks the index).
    pub fn link_rules_apply(&self) -> bool {
        match self.mode {
            Mode::Full => false,
            Mode::Incremental | Mode::Seeded => self.add_duplicates,
            Mode::AllPairs => true,
        }
    }
}

/// A pair of documents with its similarity; `a < b`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoredPair {
    /// The smaller id.
    pub a: DocId,
    /// The larger id.
    pub b: DocId,
    /// Multiset Jaccard of their signatures.
    pub score: f64,
}

impl ScoredPair {
    /// The pair with its ids in order.
    pub fn new(x: DocId, y: DocId, score: f64) -> Self {
        ScoredPair {
            a: x.min(y),
            b: x.max(y),
            score,
        }
    }
}

/// What one matching run produced.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MatchOutcome {
    /// Documents in processing order.
    pub order: Vec<DocId>,
    /// Per document (by id): the document it was declared a duplicate of, with the score.
    pub matched: Vec<Option<(DocId, f64)>>,
    /// Every pair whose score was computed and reached the threshold, sorted by ids.
    pub pairs: Vec<ScoredPair>,
    /// Whether `pairs` holds *every* pair at or above the threshold (all-pairs mode).
    pub pairs_complete: bool,
    /// Instrumentation.
    pub trace: Trace,
}

impl MatchOutcome {
    /// Each document's position in processing order.
    pub fn rank(&self) -> Vec<u32> {
        let mut rank = vec![0u32; self.matched.len()];
        for (i, d) in self.order.iter().enumerate() {
            rank[d.index()] = i as u32;
        }
        rank
    }

    /// The "duplicate of" links without scores.
    pub fn links(&self) -> Vec<Option<DocId>> {
        self.matched.iter().map(|m| m.map(|(d, _)| d)).collect()
    }
}

/// `Ok` when `threshold` is a similarity threshold every front end and the Spark job take: in
/// `(0, 1]`. At 0 every two pages would match, whatever they share.
pub fn check_threshold(threshold: f64) -> Result<()> {
    if threshold > 0.0 && threshold <= 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "threshold {threshold} is not in (0, 1]"
        )))
    }
}

/// Run one matching procedure over a collection's signature sets.
pub fn run(
    sets: &[SignatureSet],
    params: &MatchParams,
    progress: &Progress,
) -> Result<MatchOutcome> {
    check_threshold(params.threshold)?;
    if let Some(bad) = params.seeds.iter().find(|d| d.index() >= sets.len()) {
        return Err(Error::InvalidParameter(format!(
            "seed document {} is not in the collection",
            bad.0
        )));
    }
    match params.mode {
        Mode::AllPairs => allpairs::run(sets, params, progress),
        _ => incremental::run(sets, params, progress),
    }
}

/// The processing order: a seeded shuffle of all documents, with `first` moved to the front.
pub fn processing_order(n: usize, seed: u64, first: &[DocId]) -> Vec<DocId> {
    let mut order: Vec<DocId> = (0..n as u32).map(DocId).collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    order.shuffle(&mut rng);
    if first.is_empty() {
        return order;
    }
    let mut is_first = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for &d in first {
        if !is_first[d.index()] {
            is_first[d.index()] = true;
            out.push(d);
        }
    }
    out.extend(order.into_iter().filter(|d| !is_first[d.index()]));
    out
}

/// One seed per gold cluster: the first member of each cluster in the seeded random order.
pub fn gold_seeds(gold: &[Option<u32>], seed: u64) -> Vec<DocId> {
    let mut seen = std::collections::HashSet::new();
    processing_order(gold.len(), seed, &[])
        .into_iter()
        .filter(|d| gold[d.index()].is_some_and(|g| seen.insert(g)))
        .collect()
}

/// The index size after every `every`-th step through `order` and after the last, where
/// `indexed(step, d)` says whether the document at that step was indexed.
pub(crate) fn index_sizes(
    order: &[DocId],
    every: usize,
    mut indexed: impl FnMut(usize, DocId) -> bool,
) -> Vec<(usize, usize)> {
    let every = every.max(1);
    let mut sizes = Vec::new();
    let mut size = 0;
    for (step, &d) in order.iter().enumerate() {
        size += usize::from(indexed(step, d));
        if (step + 1) % every == 0 || step + 1 == order.len() {
            sizes.push((step + 1, size));
        }
    }
    sizes
}

/// Declarations as Incremental (or Seeded) matching would make them, from pairs known in
/// advance: documents in `order`, each matched to an *indexed* partner whose pair score is at
/// least `threshold` (first partner in order, or best), else indexed. `index_first` documents
/// are indexed without matching. With `rules.share` > 0 a pair is a possible match only if its
/// score is at least that share of the best score of each of its two documents
/// ([`MatchParams::link_share`]), and with `rules.refused_stays_alone` a document whose best
/// pair that refuses has no possible match; with `rules.cross_links` > 0 a declared link
/// across which too few page pairs are links is cut afterwards
/// ([`bridges::cut_thin_bridges`]).
#[allow(clippy::too_many_arguments)]
pub fn declarations_from_pairs(
    n: usize,
    pairs: &[ScoredPair],
    order: &[DocId],
    index_first: usize,
    threshold: f64,
    guess: Guess,
    add_duplicates: bool,
    rules: LinkRules,
) -> Vec<Option<(DocId, f64)>> {
    let link_share = rules.share;
    let mut rank = vec![u32::MAX; n];
    for (i, d) in order.iter().enumerate() {
        rank[d.index()] = i as u32;
    }
    let mut best = vec![0.0f64; n];
    if link_share > 0.0 {
        for p in pairs.iter().filter(|p| p.score >= threshold) {
            best[p.a.index()] = best[p.a.index()].max(p.score);
            best[p.b.index()] = best[p.b.index()].max(p.score);
        }
    }
    let links = |p: &&ScoredPair| {
        p.score >= threshold
            && p.score >= link_share * best[p.a.index()]
            && p.score >= link_share * best[p.b.index()]
    };
    // A page whose best pair the share refuses takes no link at all: it does not settle for a
    // weaker story when its strongest partner's story has no room for it.
    let mut alone = vec![false; n];
    if link_share > 0.0 && rules.refused_stays_alone {
        let mut best_link = vec![0.0f64; n];
        for p in pairs.iter().filter(links) {
            best_link[p.a.index()] = best_link[p.a.index()].max(p.score);
            best_link[p.b.index()] = best_link[p.b.index()].max(p.score);
        }
        for (d, a) in alone.iter_mut().enumerate() {
            *a = best_link[d] < best[d];
        }
    }
    // Each link tagged with its pair's index, where its score is.
    let adjacent = bridges::Links::new(n, || {
        (pairs.iter().zip(0u32..))
            .filter(|(p, _)| links(p))
            .filter(|(p, _)| !alone[p.a.index()] && !alone[p.b.index()])
            .map(|(p, i)| (p.a, p.b, i))
    });
    let mut indexed = vec![false; n];
    let mut matched = vec![None; n];
    for (i, &d) in order.iter().enumerate() {
        if i < index_first {
            indexed[d.index()] = true;
            continue;
        }
        let mut best: Option<(DocId, f64, u32)> = None;
        for &(x, pair) in adjacent.of(d.index()) {
            if !indexed[x.index()] {
                continue;
            }
            let s = pairs[pair as usize].score;
            let r = rank[x.index()];
            let better = match (best, guess) {
                (None, _) => true,
                (Some((_, _, br)), Guess::First) => r < br,
                (Some((_, bs, br)), Guess::Best) => s > bs || (s == bs && r < br),
            };
            if better {
                best = Some((x, s, r));
            }
        }
        match best {
            Some((x, s, _)) => {
                matched[d.index()] = Some((x, s));
                indexed[d.index()] = add_duplicates;
            }
            None => indexed[d.index()] = true,
        }
    }
    bridges::cut_thin_bridges(&mut matched, &adjacent, rules.cross_links);
    matched
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn order_is_seeded_and_seeds_come_first() {
        let a = processing_order(50, 7, &[]);
        assert_eq!(a, processing_order(50, 7, &[]));
        assert_ne!(a, processing_order(50, 8, &[]));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).map(DocId).collect::<Vec<_>>());
        let s = processing_order(50, 7, &[DocId(9), DocId(3), DocId(9)]);
        assert_eq!(&s[..2], &[DocId(9), DocId(3)]);
        assert_eq!(s.len(), 50);
    }

    #[test]
    fn gold_seeds_pick_one_per_cluster() {
        let gold = [Some(0), Some(0), Some(1), None, Some(1), Some(2)];
        let s = gold_seeds(&gold, 3);
        assert_eq!(s.len(), 3);
        let mut g: Vec<u32> = s.iter().map(|d| gold[d.index()].unwrap()).collect();
        g.sort();
        assert_eq!(g, [0, 1, 2]);
    }

    #[test]
    fn declarations_from_pairs_pick_first_or_best_indexed_partner() {
        let d = |i| DocId(i);
        let pairs = [
            ScoredPair::new(d(0), d(2), 0.6),
            ScoredPair::new(d(1), d(2), 0.9),
            ScoredPair::new(d(0), d(1), 0.1),
        ];
        let order = [d(0), d(1), d(2)];
        let best = declarations_from_pairs(
            3,
            &pairs,
            &order,
            0,
            0.5,
            Guess::Best,
            false,
            LinkRules::default(),
        );
        assert_eq!(best, [None, None, Some((d(1), 0.9))]);
        let first = declarations_from_pairs(
            3,
            &pairs,
            &order,
            0,
            0.5,
            Guess::First,
            false,
            LinkRules::default(),
        );
        assert_eq!(first, [None, None, Some((d(0), 0.6))]);
        let low = declarations_from_pairs(
            3,
            &pairs,
            &order,
            0,
            0.05,
            Guess::Best,
            false,
            LinkRules::default(),
        );
        assert_eq!(low, [None, Some((d(0), 0.1)), Some((d(0), 0.6))]);
    }

    #[test]
    fn a_link_far_below_both_pages_best_is_not_declared() {
        let d = |i| DocId(i);
        // 0 and 1 are copies (0.9), 2 and 3 copies (0.8); 1 - 2 share a frame (0.15); 4's
        // best and only pair is 0.15 with 3.
        let pairs = [
            ScoredPair::new(d(0), d(1), 0.9),
            ScoredPair::new(d(2), d(3), 0.8),
            ScoredPair::new(d(1), d(2), 0.15),
            ScoredPair::new(d(3), d(4), 0.15),
        ];
        let order = [d(1), d(2), d(0), d(3), d(4)];
        let decl = |share| {
            let rules = LinkRules {
                share,
                refused_stays_alone: false,
                cross_links: 0.0,
            };
            declarations_from_pairs(5, &pairs, &order, 0, 0.1, Guess::Best, true, rules)
        };
        // The paper: 2 joins 1 through the frame.
        assert_eq!(decl(0.0)[2], Some((d(1), 0.15)));
        // A fifth of 0.9 is 0.18: the frame link goes, the copies stay.
        let shared = decl(0.2);
        assert_eq!(shared[2], None);
        assert_eq!(shared[0], Some((d(1), 0.9)));
        assert_eq!(shared[3], Some((d(2), 0.8)));
        // 0.15 is below a fifth of 3's best (0.16): 4 stays alone.
        assert_eq!(shared[4], None);
        assert_eq!(decl(0.18)[4], Some((d(3), 0.15)));
    }

    #[test]
    fn a_page_refused_by_its_best_partner_does_not_settle_for_a_weaker_story() {
        let d = DocId;
        // Story {0, 1} tight (0.98), story {2, 3} loose (0.6); page 4 meets 0 at 0.17 (below a
        // fifth of 0.98) and 2 at 0.15 (above a fifth of 0.6).
        let pairs = [
            ScoredPair::new(d(0), d(1), 0.98),
            ScoredPair::new(d(2), d(3), 0.6),
            ScoredPair::new(d(4), d(0), 0.17),
            ScoredPair::new(d(4), d(2), 0.15),
        ];
        for order in [[0, 1, 2, 3, 4], [3, 2, 1, 0, 4], [2, 4, 0, 3, 1]] {
            let order = order.map(d);
            let decl = |refused_stays_alone| {
                let rules = LinkRules {
                    share: 0.2,
                    refused_stays_alone,
                    cross_links: 0.0,
                };
                declarations_from_pairs(5, &pairs, &order, 0, 0.1, Guess::Best, true, rules)
            };
            let settles = decl(false);
            let alone = decl(true);
            // Without the rule 4 joins story {2, 3}, which comes before it.
            assert!(
                settles[4] == Some((d(2), 0.15)) || settles[2] == Some((d(4), 0.15)),
                "{order:?}: {settles:?}"
            );
            // With it 4 takes no link and nothing links to it; the stories keep theirs.
            assert_eq!(alone[4], None, "{order:?}");
            assert!(alone.iter().all(|m| m.is_none_or(|(p, _)| p != d(4))));
            assert!(alone[0].is_some() != alone[1].is_some());
            assert!(alone[2].is_some() != alone[3].is_some());
        }
    }

    #[test]
    fn link_rules_apply_only_where_every_pair_is_scored_first() {
        let params = MatchParams::default();
        assert!(params.link_rules_apply());
        assert!(
            !MatchParams {
                mode: Mode::Full,
                ..params.clone()
            }
            .link_rules_apply()
        );
        assert!(
            !MatchParams {
                add_duplicates: false,
                ..params.clone()
            }
            .link_rules_apply()
        );
        let all = MatchParams {
            mode: Mode::AllPairs,
            add_duplicates: false,
            ..params
        };
        assert!(all.link_rules_apply());
    }

    #[test]
    fn common_limits_parse_and_scale_with_the_archive() {
        for (text, limit) in [
            ("auto", CommonLimit::Auto),
            ("Off", CommonLimit::Off),
            ("0", CommonLimit::Off),
            ("300", CommonLimit::Pages(300)),
        ] {
            assert_eq!(text.parse::<CommonLimit>(), Ok(limit));
            assert_eq!(limit.to_string().parse::<CommonLimit>(), Ok(limit));
        }
        assert!("-3".parse::<CommonLimit>().is_err());
        assert!("some".parse::<CommonLimit>().is_err());
        // Auto sets no limit below 100k distinct pages, then 0.3 % of them.
        assert_eq!(CommonLimit::Auto.pages(1_117), 0);
        assert_eq!(CommonLimit::Auto.pages(99_999), 0);
        assert_eq!(CommonLimit::Auto.pages(100_000), 300);
        assert_eq!(CommonLimit::Auto.pages(1_000_000), 3_000);
        assert_eq!(CommonLimit::Off.pages(1_000_000), 0);
        assert_eq!(CommonLimit::Pages(50).pages(10), 50);
        // Stored runs without the field read as off; new ones round-trip.
        let old: MatchParams = serde_json::from_str(
            r#"{"threshold":0.12,"mode":"Incremental","guess":"Best","add_duplicates":true,
                "length_bound":true,"seed":0,"seeds":[],"index_every":100}"#,
        )
        .unwrap();
        assert_eq!(old.common, CommonLimit::Off);
        let new = MatchParams {
            common: CommonLimit::Pages(7),
            ..MatchParams::default()
        };
        let back: MatchParams =
            serde_json::from_str(&serde_json::to_string(&new).unwrap()).unwrap();
        assert_eq!(back.common, CommonLimit::Pages(7));
    }

    #[test]
    fn names_parse() {
        for m in Mode::ALL {
            assert_eq!(m.name().parse::<Mode>().ok(), Some(m));
        }
        assert!("x".parse::<Mode>().is_err());
        assert_eq!("FIRST".parse::<Guess>().ok(), Some(Guess::First));
        assert!("x".parse::<Guess>().is_err());
    }

    #[test]
    fn seek_finds_what_a_binary_search_finds_from_any_hint() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for len in [0usize, 1, 2, 3, 7, 64, 300] {
            let mut ranks: Vec<u32> = (0..len).map(|_| rng.random_range(0..500)).collect();
            ranks.sort_unstable();
            ranks.dedup();
            let list: Vec<(u32, u32)> = ranks.iter().map(|&r| (r, 1)).collect();
            for rank in [0, 1, 5, 17, 250, 499, 500, 10_000] {
                let want = list.partition_point(|&(x, _)| x < rank);
                for hint in 0..=list.len() + 2 {
                    assert_eq!(
                        seek(&list, hint, rank),
                        want,
                        "len {len} rank {rank} hint {hint}"
                    );
                }
            }
        }
    }
}
