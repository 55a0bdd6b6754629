//! What was copied: the passages one page's core shares with another's, how much of each core
//! they cover, which page came first and how the later one derives from it.
//!
//! **Cores and texts.** A page's core is the text of its content blocks as a coder reads it
//! (boilerpipe's classifier, iframes' fallbacks left out:
//! [`crate::token::content::reading_text`]), its text all of its visible text, both without its
//! site's frame where the collection has three or more pages of the site to tell it
//! ([`frame_seeds`]: text on three of them and half of them, as SpotSigs' site frame). A pair
//! is aligned both ways ([`align_pair`]): each page's core is sought in the other page's text,
//! so a shared frame (navigation, teasers, comment sections) is not a shared passage, and a
//! story paragraph the block classifier left out of the other page's core still counts. (Core
//! against core, 7 of frames-dev's 65 copies read 0.05–0.18 below the share their manifest
//! implies: the classifier had left story paragraphs out of their originals' cores.) Its words are letter-or-digit runs (a character of a script written without spaces
//! is a word; soft hyphens and zero-width characters inside a word are passed over), compared
//! lowercased.
//!
//! **Alignment** ([`align`]), as text-reuse tools do it (passim, BLAST-style reuse: seeds,
//! extension, chaining):
//! 1. seeds: every run of [`AlignOptions::seed`] words of A found in B (hashed);
//! 2. extension: each seed grows to the maximal run of equal words on its diagonal;
//! 3. a consistent set: the longest runs first, none overlapping another in A or in B;
//! 4. chaining: runs in order in both pages, at most [`AlignOptions::gap`] words apart in each,
//!    are one passage — a changed word, an inserted dateline or a dropped sentence does not
//!    split it;
//! 5. passages of fewer than [`AlignOptions::min_words`] matched words are dropped.
//!
//! Each passage has its word and byte ranges in the core it is in and the text it was found in.
//! A page's **reuse share** is the share of its core's words inside passages.
//!
//! **Derivation** ([`derivation`]): the later page by publication date is the derived one
//! (the METER corpus's view: newspaper copy derived from agency copy); its share decides the
//! class — **wholly derived** from [`Cutoffs::wholly`] (default 0.8), **partially derived** from
//! [`Cutoffs::partially`] (default 0.2), else **non-derived**. Without dates (or on one day) the
//! page whose core is more inside the other's is taken for the derived one.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::calendar::Published;
use crate::token::markup::is_unspaced;

/// A page's core, its words and where each word is in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Core {
    /// The core text.
    pub text: String,
    /// Byte range of each word in `text`.
    pub words: Vec<(u32, u32)>,
    /// Each word's hash (lowercased).
    hashes: Vec<u64>,
}

impl Core {
    /// The core of a decoded page.
    pub fn of_page(html: &str) -> Core {
        Core::of_text(crate::token::content::reading_text(html))
    }

    /// A page's whole visible text as a core (tags stripped, scripts and styles dropped).
    pub fn visible(html: &str) -> Core {
        Core::of_text(crate::token::strip::strip_tags(html))
    }

    /// `text` as a core (all of it).
    pub fn of_text(text: String) -> Core {
        let mut words = Vec::new();
        let mut hashes = Vec::new();
        let mut start: Option<usize> = None;
        let mut lower = String::new();
        let mut push = |s: usize, e: usize, lower: &mut String| {
            words.push((s as u32, e as u32));
            hashes.push(crate::token::term_hash(lower));
            lower.clear();
        };
        for (i, c) in text.char_indices() {
            // Soft hyphens and zero-width characters sit inside words ("can\u{ad}di\u{ad}da\u{ad}ture"
            // on a page, "candidature" in its copy): they neither end a word nor count in it.
            if matches!(
                c,
                '\u{ad}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'
            ) {
                continue;
            }
            let word = c.is_alphanumeric();
            if word && is_unspaced(c) {
                if let Some(s) = start.take() {
                    push(s, i, &mut lower);
                }
                lower.extend(c.to_lowercase());
                push(i, i + c.len_utf8(), &mut lower);
            } else if word {
                start.get_or_insert(i);
                lower.extend(c.to_lowercase());
            } else if let Some(s) = start.take() {
                push(s, i, &mut lower);
            }
        }
        if let Some(s) = start {
            push(s, text.len(), &mut lower);
        }
        Core {
            text,
            words,
            hashes,
        }
    }

    /// The core without the words `frame` marks (its site's frame, [`site_frames`]); the text
    /// stays whole, so passages still point into it.
    pub fn without(mut self, frame: &[bool]) -> Core {
        if frame.iter().any(|&f| f) {
            let keep = |k: &usize| !frame.get(*k).copied().unwrap_or(false);
            self.words = (0..self.words.len())
                .filter(keep)
                .map(|k| self.words[k])
                .collect();
            self.hashes = (0..self.hashes.len())
                .filter(keep)
                .map(|k| self.hashes[k])
                .collect();
        }
        self
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the core has no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The text of words `range` (from the first's start to the last's end).
    pub fn text_of(&self, range: std::ops::Range<u32>) -> &str {
        if range.is_empty() {
            return "";
        }
        let (s, _) = self.words[range.start as usize];
        let (_, e) = self.words[range.end as usize - 1];
        &self.text[s as usize..e as usize]
    }

    /// Byte range in `text` of words `range`.
    pub fn bytes_of(&self, range: std::ops::Range<u32>) -> (u32, u32) {
        if range.is_empty() {
            return (0, 0);
        }
        (
            self.words[range.start as usize].0,
            self.words[range.end as usize - 1].1,
        )
    }
}

/// The seed hashes of a core, one per word position that starts a seed.
fn seeds(core: &Core, n: usize) -> Vec<u64> {
    if core.hashes.len() < n {
        return Vec::new();
    }
    core.hashes.windows(n).map(seed_hash).collect()
}

fn seed_hash(words: &[u64]) -> u64 {
    words.iter().fold(0x9e37_79b9_7f4a_7c15u64, |acc, &x| {
        crate::token::mix64(acc ^ x)
    })
}

/// Pages of a site from which its repeated text is its frame, and the share of them it must be
/// on.
const FRAME_PAGES: usize = 3;
const FRAME_SHARE: f64 = 0.5;

/// The seeds of one site's frame: a seed found on at least three of the site's pages and on
/// half of them is its frame (navigation, teasers, a comment section every page of a frame
/// carries), as SpotSigs' site frame drops signatures ([`crate::signature`]). Fewer than three
/// pages tell no frame.
pub fn frame_seeds(site_pages: &[&Core], opts: &AlignOptions) -> std::collections::HashSet<u64> {
    let n = opts.seed.max(1);
    if site_pages.len() < FRAME_PAGES {
        return Default::default();
    }
    let mut count: HashMap<u64, usize> = HashMap::new();
    for core in site_pages {
        let mut own = seeds(core, n);
        own.sort_unstable();
        own.dedup();
        for h in own {
            *count.entry(h).or_default() += 1;
        }
    }
    let least = FRAME_PAGES.max((site_pages.len() as f64 * FRAME_SHARE).ceil() as usize);
    count
        .into_iter()
        .filter(|&(_, c)| c >= least)
        .map(|(h, _)| h)
        .collect()
}

/// The words of `core` inside a seed of `frame` ([`frame_seeds`]).
pub fn frame_mask(
    core: &Core,
    frame: &std::collections::HashSet<u64>,
    opts: &AlignOptions,
) -> Vec<bool> {
    let n = opts.seed.max(1);
    let mut mask = vec![false; core.len()];
    if frame.is_empty() {
        return mask;
    }
    for (k, h) in seeds(core, n).iter().enumerate() {
        if frame.contains(h) {
            mask[k..k + n].iter_mut().for_each(|m| *m = true);
        }
    }
    mask
}

/// Per page, the words of its core that its site repeats ([`frame_seeds`] of each site's
/// pages). `sites[i]` is page `i`'s site (empty: unknown, no frame).
pub fn site_frames(cores: &[&Core], sites: &[&str], opts: &AlignOptions) -> Vec<Vec<bool>> {
    let mut by_site: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        if !s.is_empty() {
            by_site.entry(s).or_default().push(i);
        }
    }
    let mut masks: Vec<Vec<bool>> = cores.iter().map(|c| vec![false; c.len()]).collect();
    for pages in by_site.values() {
        let of_site: Vec<&Core> = pages.iter().map(|&i| cores[i]).collect();
        let frame = frame_seeds(&of_site, opts);
        for &i in pages {
            masks[i] = frame_mask(cores[i], &frame, opts);
        }
    }
    masks
}

/// Pages of a site read to tell its frame, at most.
const FRAME_CONTEXT: usize = 40;

/// A page as passages read it: its core (the text of its content blocks) and its text (all of
/// its visible text), both without its site's frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageCore {
    /// The core: what is sought in the other page.
    pub core: Core,
    /// The text: where the other page's core is sought.
    pub text: Core,
}

impl PageCore {
    /// A page's core and text, without the words of `frame` ([`frame_seeds`]).
    pub fn of_page(html: &str, frame: &std::collections::HashSet<u64>) -> PageCore {
        let opts = AlignOptions::default();
        let core = Core::of_page(html);
        let text = Core::visible(html);
        let core_mask = frame_mask(&core, frame, &opts);
        let text_mask = frame_mask(&text, frame, &opts);
        PageCore {
            core: core.without(&core_mask),
            text: text.without(&text_mask),
        }
    }
}

/// The cores and texts of pages `wanted` of a collection of `n` pages, their sites' frames
/// left out: each wanted page's site frame is told from up to 40 pages of that site (their
/// visible text). `site_of(i)` is page `i`'s site (empty: unknown), `read(i)` its decoded text.
/// Pages are read in parallel.
pub fn cores_without_frames(
    n: usize,
    wanted: &[usize],
    site_of: &(dyn Fn(usize) -> String + Sync),
    read: &(dyn Fn(usize) -> crate::Result<String> + Sync),
    progress: &crate::progress::Progress,
) -> crate::Result<HashMap<usize, PageCore>> {
    Ok(frames_of(n, wanted, site_of, read, progress)?.cores(site_of))
}

/// What [`frames_of`] found: the wanted pages' texts and their sites' frames.
#[derive(Debug, Default)]
pub struct Framed {
    /// Each wanted page's decoded text, by index.
    pub texts: HashMap<usize, String>,
    /// Each wanted page's site's frame ([`frame_seeds`]; empty for a site of too few pages),
    /// by site.
    pub frames: HashMap<String, std::collections::HashSet<u64>>,
}

impl Framed {
    /// Each page's core and text without its site's frame (`site_of(i)`: page `i`'s site).
    pub fn cores(&self, site_of: &(dyn Fn(usize) -> String + Sync)) -> HashMap<usize, PageCore> {
        use rayon::prelude::*;
        let none = std::collections::HashSet::new();
        self.texts
            .par_iter()
            .map(|(&i, text)| {
                let frame = self.frames.get(&site_of(i)).unwrap_or(&none);
                (i, PageCore::of_page(text, frame))
            })
            .collect()
    }
}

/// The texts of pages `wanted` of a collection of `n` pages, and the frames of their sites,
/// each told from up to 40 pages of the site (as [`cores_without_frames`] leaves them out).
pub fn frames_of(
    n: usize,
    wanted: &[usize],
    site_of: &(dyn Fn(usize) -> String + Sync),
    read: &(dyn Fn(usize) -> crate::Result<String> + Sync),
    progress: &crate::progress::Progress,
) -> crate::Result<Framed> {
    use rayon::prelude::*;
    let sites: Vec<String> = (0..n).map(site_of).collect();
    let wanted_sites: std::collections::HashSet<&str> = wanted
        .iter()
        .map(|&i| sites[i].as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let mut context: Vec<usize> = wanted.to_vec();
    let mut per_site: HashMap<&str, usize> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        if wanted_sites.contains(s.as_str()) {
            let k = per_site.entry(s).or_default();
            if *k < FRAME_CONTEXT {
                *k += 1;
                context.push(i);
            }
        }
    }
    context.sort_unstable();
    context.dedup();
    progress.stage("reading page cores", context.len() as u64);
    let texts: Vec<String> = context
        .par_iter()
        .map(|&i| {
            progress.check()?;
            let html = read(i)?;
            progress.advance(1);
            Ok(html)
        })
        .collect::<crate::Result<_>>()?;
    let visible: Vec<Core> = texts.par_iter().map(|h| Core::visible(h)).collect();
    let mut by_site: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, &i) in context.iter().enumerate() {
        if !sites[i].is_empty() {
            by_site.entry(sites[i].as_str()).or_default().push(k);
        }
    }
    let mut frames = HashMap::new();
    for (site, ks) in &by_site {
        let pages: Vec<&Core> = ks.iter().map(|&k| &visible[k]).collect();
        frames.insert(
            site.to_string(),
            frame_seeds(&pages, &AlignOptions::default()),
        );
    }
    let want: std::collections::HashSet<usize> = wanted.iter().copied().collect();
    let texts = context
        .into_iter()
        .zip(texts)
        .filter(|(i, _)| want.contains(i))
        .collect();
    Ok(Framed { texts, frames })
}

/// What two pages share, both ways: A's core sought in B's text and B's core in A's text (a
/// page's core is found in the whole of the other page, so a story paragraph the other page's
/// block classifier left out of its core still counts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairAlignment {
    /// A's core in B's text: `share_a` is A's reuse share; passages' `a` ranges are in A's core,
    /// `b` ranges in B's text.
    pub a_in_b: Alignment,
    /// B's core in A's text: `share_a` is B's reuse share; passages' `a` ranges are in B's
    /// core, `b` ranges in A's text.
    pub b_in_a: Alignment,
}

impl PairAlignment {
    /// The share of A's core found in B.
    pub fn share_a(&self) -> f64 {
        self.a_in_b.share_a
    }

    /// The share of B's core found in A (`b_in_a` aligns B's core as its first page).
    #[allow(clippy::misnamed_getters)]
    pub fn share_b(&self) -> f64 {
        self.b_in_a.share_a
    }
}

/// Align a pair both ways ([`PairAlignment`]).
pub fn align_pair(a: &PageCore, b: &PageCore, opts: &AlignOptions) -> PairAlignment {
    PairAlignment {
        a_in_b: align(&a.core, &b.text, opts),
        b_in_a: align(&b.core, &a.text, opts),
    }
}

/// Options of [`align`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AlignOptions {
    /// Words in a seed (default 5).
    pub seed: usize,
    /// Most words between two runs of one passage, in each page (default 8).
    pub gap: usize,
    /// Fewest matched words of a passage (default 8).
    pub min_words: usize,
}

impl Default for AlignOptions {
    fn default() -> Self {
        AlignOptions {
            seed: 5,
            gap: 8,
            min_words: 8,
        }
    }
}

/// One aligned passage: word ranges (end exclusive) in both cores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passage {
    /// Words of A.
    pub a: std::ops::Range<u32>,
    /// Words of B.
    pub b: std::ops::Range<u32>,
    /// Words matched exactly (the rest are changed or inserted words inside the passage).
    pub matched: u32,
}

/// The passages two cores share and the share of each core they cover.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Alignment {
    /// Passages in A's order.
    pub passages: Vec<Passage>,
    /// Share of A's words inside passages.
    pub share_a: f64,
    /// Share of B's words inside passages.
    pub share_b: f64,
}

/// Align two cores (see the module doc).
pub fn align(a: &Core, b: &Core, opts: &AlignOptions) -> Alignment {
    let n = opts.seed.max(1);
    if a.len() < n || b.len() < n {
        return Alignment::default();
    }
    // B's seeds, sorted by hash; a seed B repeats more than this often is boilerplate.
    const MAX_HITS: usize = 16;
    let mut index: Vec<(u64, u32)> = b
        .hashes
        .windows(n)
        .enumerate()
        .map(|(j, w)| (seed_hash(w), j as u32))
        .collect();
    index.sort_unstable();
    // Runs of equal words: (a start, b start, length).
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    // Per diagonal (a - b), where the last run found on it ends in A.
    let mut covered: HashMap<i64, u32> = HashMap::new();
    for (i, w) in a.hashes.windows(n).enumerate() {
        let h = seed_hash(w);
        let from = index.partition_point(|&(x, _)| x < h);
        let hits = index[from..].iter().take_while(|&&(x, _)| x == h);
        if index[from..].iter().take_while(|&&(x, _)| x == h).count() > MAX_HITS {
            continue;
        }
        for &(_, j) in hits {
            let diag = i as i64 - i64::from(j);
            if covered.get(&diag).is_some_and(|&end| (i as u32) < end) {
                continue;
            }
            let (mut ia, mut jb) = (i, j as usize);
            while ia < a.len() && jb < b.len() && a.hashes[ia] == b.hashes[jb] {
                ia += 1;
                jb += 1;
            }
            let len = (ia - i) as u32;
            if len as usize >= n {
                runs.push((i as u32, j, len));
                covered.insert(diag, ia as u32);
            }
        }
    }
    // A consistent set: longest first, no overlap in A or in B.
    runs.sort_unstable_by(|x, y| y.2.cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    let mut taken_a = vec![false; a.len()];
    let mut taken_b = vec![false; b.len()];
    let mut chosen: Vec<(u32, u32, u32)> = Vec::new();
    for (i, j, len) in runs {
        let (i, j, l) = (i as usize, j as usize, len as usize);
        // Trim what earlier runs took at either end; drop it if too little is left.
        let mut s = 0;
        while s < l && (taken_a[i + s] || taken_b[j + s]) {
            s += 1;
        }
        let mut e = l;
        while e > s && (taken_a[i + e - 1] || taken_b[j + e - 1]) {
            e -= 1;
        }
        if e - s < n || (s..e).any(|k| taken_a[i + k] || taken_b[j + k]) {
            continue;
        }
        for k in s..e {
            taken_a[i + k] = true;
            taken_b[j + k] = true;
        }
        chosen.push(((i + s) as u32, (j + s) as u32, (e - s) as u32));
    }
    chosen.sort_unstable();
    // Chain runs that follow each other closely in both pages.
    let gap = opts.gap as u32;
    let mut passages: Vec<Passage> = Vec::new();
    for (i, j, len) in chosen {
        if let Some(p) = passages.last_mut()
            && i >= p.a.end
            && j >= p.b.end
            && i - p.a.end <= gap
            && j - p.b.end <= gap
        {
            p.a.end = i + len;
            p.b.end = j + len;
            p.matched += len;
            continue;
        }
        passages.push(Passage {
            a: i..i + len,
            b: j..j + len,
            matched: len,
        });
    }
    passages.retain(|p| p.matched as usize >= opts.min_words);
    let covered_a: u32 = passages.iter().map(|p| p.a.end - p.a.start).sum();
    let covered_b: u32 = passages.iter().map(|p| p.b.end - p.b.start).sum();
    Alignment {
        share_a: f64::from(covered_a) / a.len() as f64,
        share_b: f64::from(covered_b) / b.len() as f64,
        passages,
    }
}

/// The METER corpus's classes of a text against its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Derivation {
    /// (Nearly) all of it comes from the source.
    Wholly,
    /// Part of it comes from the source.
    Partially,
    /// Nothing to speak of comes from the source.
    Non,
}

impl Derivation {
    /// `wholly`, `partially`, `non`.
    pub fn name(self) -> &'static str {
        match self {
            Derivation::Wholly => "wholly",
            Derivation::Partially => "partially",
            Derivation::Non => "non",
        }
    }

    /// The class [`Derivation::name`] names (also `wholly-derived`, … and `w`, `p`, `n`).
    pub fn from_name(name: &str) -> Option<Derivation> {
        match name.trim().to_ascii_lowercase().as_str() {
            "wholly" | "wholly-derived" | "w" => Some(Derivation::Wholly),
            "partially" | "partially-derived" | "p" => Some(Derivation::Partially),
            "non" | "non-derived" | "n" => Some(Derivation::Non),
            _ => None,
        }
    }

    /// "wholly derived", for people.
    pub fn label(self) -> &'static str {
        match self {
            Derivation::Wholly => "wholly derived",
            Derivation::Partially => "partially derived",
            Derivation::Non => "non-derived",
        }
    }
}

/// The shares from which a derived page is wholly or partially derived.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cutoffs {
    /// Wholly derived from this share of the derived page's core (default 0.8).
    pub wholly: f64,
    /// Partially derived from this share (default 0.2).
    pub partially: f64,
}

impl Default for Cutoffs {
    fn default() -> Self {
        Cutoffs {
            wholly: 0.8,
            partially: 0.2,
        }
    }
}

/// Which page of a pair is the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// A was published first: B derives from A.
    AFirst,
    /// B was published first.
    BFirst,
    /// No date tells (none, or the same day): the page more inside the other is taken for
    /// the derived one.
    Undated,
}

/// How a pair derives: which page is the source, and the derived page's class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairDerivation {
    /// Which page came first.
    pub direction: Direction,
    /// The derived page's share of its core found in the source.
    pub share: f64,
    /// Its class.
    pub class: Derivation,
}

/// A publication date as a person reads it beside a pair: `2007-01-26T08:00:00Z (meta)`; none
/// for a capture time, which is not a publication date.
pub fn published_phrase(p: Option<Published>) -> Option<String> {
    p.filter(|p| p.source != crate::calendar::DateSource::Capture)
        .map(|p| format!("{} ({})", p.at.iso(), p.source.name()))
}

/// Which page of a pair came first, in words, and what that rests on: the pair view's header
/// and `samecore passages` say the same. `names` are what the two pages are called ("left",
/// "right" or "A", "B"); `a` and `b` their publication dates as [`derivation`] read them.
///
/// A capture time is never given as a publication; two pages published on one day are said to
/// be (the day does not order them, [`derivation`]), so a list that orders them by the hour
/// does not contradict it; otherwise the pages' dates are named beside the order.
pub fn order_phrase(
    names: (&str, &str),
    a: Option<Published>,
    b: Option<Published>,
    d: &PairDerivation,
    (share_a, share_b): (f64, f64),
) -> String {
    let (na, nb) = names;
    let date = |p: Option<Published>| published_phrase(p).unwrap_or_else(|| "no date".into());
    let dates = format!("{na}: {}, {nb}: {}", date(a), date(b));
    let inside = if share_a > share_b {
        format!("the {na} page is more inside the {nb}")
    } else {
        format!("the {nb} page is more inside the {na}")
    };
    match d.direction {
        Direction::AFirst => format!("the {na} page was published first ({dates})"),
        Direction::BFirst => format!("the {nb} page was published first ({dates})"),
        Direction::Undated if published_phrase(a).is_some() && published_phrase(b).is_some() => {
            format!(
                "both were published the same day ({dates}): the day does not tell which came first; {inside}"
            )
        }
        Direction::Undated => {
            format!("no publication date tells which came first ({dates}); {inside}")
        }
    }
}

/// The derivation of a pair from both pages' reuse shares and publication dates (capture
/// dates are not publication: a date from `capture` does not decide a direction).
pub fn derivation(
    (share_a, share_b): (f64, f64),
    a: Option<Published>,
    b: Option<Published>,
    cutoffs: &Cutoffs,
) -> PairDerivation {
    let day = |p: Option<Published>| {
        p.filter(|p| p.source != crate::calendar::DateSource::Capture)
            .map(|p| p.at.local_day())
    };
    let direction = match (day(a), day(b)) {
        (Some(x), Some(y)) if x < y => Direction::AFirst,
        (Some(x), Some(y)) if y < x => Direction::BFirst,
        _ => Direction::Undated,
    };
    let share = match direction {
        Direction::AFirst => share_b,
        Direction::BFirst => share_a,
        Direction::Undated => share_a.max(share_b),
    };
    let class = if share >= cutoffs.wholly {
        Derivation::Wholly
    } else if share >= cutoffs.partially {
        Derivation::Partially
    } else {
        Derivation::Non
    };
    PairDerivation {
        direction,
        share,
        class,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(s: &str) -> Core {
        Core::of_text(s.to_string())
    }

    const STORY: &str = "the council voted on tuesday to close the old harbour bridge to cars after \
        engineers found that two of its steel supports had rusted far more than the last \
        inspection had shown and the mayor said the bridge would stay open to people on foot";

    #[test]
    fn a_changed_word_and_a_dateline_do_not_split_a_passage() {
        let copy = format!(
            "HAMBURG (dpa) - {}",
            STORY
                .replace("rusted", "corroded")
                .replace("mayor", "Mayor")
        );
        let al = align(&core(STORY), &core(&copy), &AlignOptions::default());
        assert_eq!(al.passages.len(), 1, "{:?}", al.passages);
        assert!((al.share_a - 1.0).abs() < 1e-9, "{}", al.share_a);
        let words = core(&copy).len() as f64;
        assert!(
            (al.share_b - (words - 2.0) / words).abs() < 1e-9,
            "{}",
            al.share_b
        );
        let p = &al.passages[0];
        assert_eq!(
            core(&copy).text_of(p.b.clone()).split(' ').next(),
            Some("the")
        );
    }

    #[test]
    fn a_dropped_paragraph_lowers_one_share_only() {
        let second = "shop owners on both sides of the river said they were worried that fewer \
            customers would come if drivers had to take the long way around the district";
        let original = format!("{STORY}\n{second}");
        let al = align(&core(&original), &core(STORY), &AlignOptions::default());
        assert!((al.share_b - 1.0).abs() < 1e-9);
        let (n_story, n_all) = (core(STORY).len() as f64, core(&original).len() as f64);
        assert!(
            (al.share_a - n_story / n_all).abs() < 1e-9,
            "{}",
            al.share_a
        );
    }

    #[test]
    fn unrelated_text_and_short_phrases_are_no_passage() {
        let other = "a small bakery in the old town has won the national prize for the best \
            bread of the year beating more than two hundred entries from across the country";
        let al = align(&core(STORY), &core(other), &AlignOptions::default());
        assert!(al.passages.is_empty(), "{:?}", al.passages);
        assert_eq!(al.share_a, 0.0);
    }

    #[test]
    fn derivation_follows_the_dates() {
        let al = (0.3, 0.95);
        let at = |d: &str| {
            Some(Published {
                at: crate::calendar::parse_iso(d).unwrap(),
                source: crate::calendar::DateSource::Meta,
            })
        };
        let c = Cutoffs::default();
        let d = derivation(al, at("2024-03-01"), at("2024-03-02"), &c);
        assert_eq!(
            (d.direction, d.class),
            (Direction::AFirst, Derivation::Wholly)
        );
        let d = derivation(al, at("2024-03-03"), at("2024-03-02"), &c);
        assert_eq!(
            (d.direction, d.class),
            (Direction::BFirst, Derivation::Partially)
        );
        let d = derivation(al, None, None, &c);
        assert_eq!((d.direction, d.share), (Direction::Undated, 0.95));
        assert_eq!(Derivation::from_name("P"), Some(Derivation::Partially));
    }

    #[test]
    fn a_sites_repeated_text_is_its_frame() {
        let frame = "read our comments policy before you post and be kind to other readers \
            of this site";
        let stories = [
            STORY,
            "a small bakery in the old town has won the national prize for the best bread",
            "the river rose by two metres overnight and the fire brigade closed the lower road",
        ];
        let cores: Vec<Core> = stories
            .iter()
            .map(|s| core(&format!("{s} {frame}")))
            .collect();
        let refs: Vec<&Core> = cores.iter().collect();
        let masks = site_frames(
            &refs,
            &["x.com", "x.com", "x.com"],
            &AlignOptions::default(),
        );
        let frame_words = core(frame).len();
        for (c, m) in cores.iter().zip(&masks) {
            assert_eq!(m.iter().filter(|&&f| f).count(), frame_words);
            assert!(!m[0], "the story is not frame");
            assert_eq!(c.clone().without(m).len(), c.len() - frame_words);
        }
        // Two pages of a site: no frame can be told.
        let masks = site_frames(&refs[..2], &["x.com", "x.com"], &AlignOptions::default());
        assert!(masks.iter().flatten().all(|&f| !f));
        // Soft hyphens do not split words.
        assert_eq!(core("can\u{ad}di\u{ad}da\u{ad}ture").len(), 1);
    }
}
