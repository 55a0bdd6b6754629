//! SpotSigs as published: a detector that reproduces the reference Java code of Theobald,
//! Siddharth and Paepcke (SIGIR 2008) pair for pair, so a study can say "we ran SpotSigs as
//! published" and then see what samecore's own SpotSigs ([`super::spotsigs`]) changes. Raw
//! page bytes in (re-read from the archive), the pairs the published code prints out, each with
//! the score it prints.
//!
//! What the published code does, point by point, and why this module does the same (a
//! "quirk" is reproduced in this detector only; samecore's SpotSigs does otherwise):
//!
//! 1. **Reading.** A page is read as text in the platform's default charset (UTF-8 on the
//!    machines it is run on today; invalid bytes become U+FFFD) line by line, each line
//!    followed by `\n` (so `\r\n`, `\r` and `\n` all end a line, and a last line without an end
//!    gets one). We decode the raw bytes the same way.
//! 2. **Tokens.** The *whole page, markup included*, is split at any of the characters
//!    `` \t\n\r\f.()",-:;/\?!@<>$#&%*+|=_`~'{}[] `` and lowercased. Tags and attribute names
//!    are tokens like any word (the HTML-stripping parser is commented out in the code).
//! 3. **Spot signatures.** For every token but the last that is an antecedent with spot
//!    distance `d`, the token `d` places further on is taken, stopwords skipped; the signature
//!    is that spot word alone (`word:`) — *quirk:* the antecedent is not part of it (the line
//!    that would append it is commented out), so `the cat` and `a cat` give one signature.
//!    *Quirk:* the stopword skip re-reads the stopword once before moving on, which changes
//!    nothing for chains of one but shifts later chain positions by one. Signatures are
//!    counted (a multiset).
//! 4. **Stopwords.** A list read from the code's `stopwords.txt`, split at the same
//!    delimiters and not lowercased — *quirk:* its capitalised first entry (`This`) never
//!    matches a lowercased token. The list is the published code's data, so samecore does not
//!    ship it: give its path (`--reference-stopwords`, or `SAMECORE_SPOTSIGS_STOPWORDS`).
//! 5. **Minimum.** A page with fewer than `min_signatures` (4) signatures is dropped before
//!    anything is counted; only the pages kept make the document frequencies.
//! 6. **IDF band.** With `N` the pages kept, a signature's IDF is `ln((N+1)/df) / ln(N+1)`;
//!    signatures outside `[0.2, 0.8]` are removed, then pages with fewer than 4 left are
//!    dropped again.
//! 7. **Exact copies.** Each page has a SHA-1 of its text (as read in 1) encoded as ISO-8859-1
//!    (characters beyond it become `?`); two pages whose digests are equal are reported with
//!    score 1 whatever their signatures. *Quirk:* a page with a character beyond U+FFFF makes
//!    the digest fail, and every such page gets the same all-zero digest.
//! 8. **Partitions.** Pages go into partitions by signature count: starting at 4, a partition
//!    `[last, i]` closes at the first `i` with `i − last > (1 − τ)·i` (up to 1,000, then one
//!    open partition). Within a partition an inverted index maps a signature to its pages,
//!    sorted by descending signature count.
//! 9. **Matching.** Each page `A` walks its signatures in ascending order of index-list
//!    length; along a list it stops at the first page `B` with `|A| ≥ |B|` and
//!    `δ + |A| − |B| > (1 − τ)·|A|` (δ: the counts of `A`'s signatures walked so far), skips
//!    a page too long for `A` or seen before, and scores the rest; after each list `δ` grows
//!    and the walk ends once `δ > (1 − τ)·` the partition's longest page. A page close enough
//!    to its partition's upper end (`end − |A| ≤ (1 − τ)·end`) walks the next partition too,
//!    with the same signature order. So a pair across a partition boundary is only seen from
//!    its shorter page, and some pairs at or above τ are never scored — the published
//!    behaviour, reproduced.
//! 10. **Score.** The multiset Jaccard over `A`'s signatures in walking order, with two early
//!     exits — *quirk:* it returns **0** as soon as the mismatch so far makes `τ`
//!     unreachable, and **1** as soon as the shared count so far reaches `τ·(|A| + |B|)`;
//!     the code then prints 1.0 for such a pair although its Jaccard is lower. A pair is
//!     reported when its score is at least `τ`; a pair reported from both of its pages keeps
//!     the first score.
//!
//! Ties in (9)'s ascending order are broken by first appearance of the signature in the
//! collection; the Java code breaks them by its hash table's order, which two runs of it do
//! not even agree on — on goldset-dev the reported pairs did not change with it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::scored::{candidate_counts, detection_from_pairs, scored};
use super::{Algo, Detection, Detector, DetectorInfo, PAIR_MODES, Prepared, RunSpec};
use crate::progress::Progress;
use crate::{DocId, Document, Error, Result};

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "spotsigs-reference",
    finds: "what the published SpotSigs Java code reports (to cite \"SpotSigs as published\")",
    score: "the published code's Jaccard of spot-word multisets, 1.0 for its early accepts",
    default_threshold: 0.5,
    paper_threshold: 0.85,
    modes: PAIR_MODES,
};

/// The characters the published code splits pages at.
pub const DELIMITERS: &str = " \t\n\r\u{c}.()\",-:;/\\?!@<>$#&%*+|=_`~'{}[]";

/// Where the stopword list is looked for when no path is given.
pub const STOPWORDS_VARIABLE: &str = "SAMECORE_SPOTSIGS_STOPWORDS";

/// The published code's defaults (its `spotsigs.config`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceOptions {
    /// Antecedents with their spot distance.
    pub antecedents: Vec<(String, usize)>,
    /// Spot words per signature.
    pub chains: usize,
    /// Fewer signatures and a page is dropped.
    pub min_signatures: u32,
    /// Partitions are made up to this signature count.
    pub range: u32,
    /// The IDF band.
    pub idf_band: (f64, f64),
    /// The published code's `stopwords.txt`; `None` looks at [`STOPWORDS_VARIABLE`].
    pub stopwords: Option<PathBuf>,
}

impl Default for ReferenceOptions {
    fn default() -> Self {
        let words = [
            "the", "be", "is", "are", "was", "will", "would", "shall", "should", "can", "could",
            "has", "have", "had", "do", "did", "does", "done", "un", "une", "le", "la", "el", "al",
        ];
        ReferenceOptions {
            antecedents: words.iter().map(|w| (w.to_string(), 1)).collect(),
            chains: 1,
            min_signatures: 4,
            range: 1000,
            idf_band: (0.2, 0.8),
            stopwords: None,
        }
    }
}

impl ReferenceOptions {
    /// Where the stopword list is: the file given, else the one [`STOPWORDS_VARIABLE`] names;
    /// `None` when neither says.
    pub fn stopwords_file(&self) -> Option<PathBuf> {
        self.stopwords
            .clone()
            .or_else(|| std::env::var_os(STOPWORDS_VARIABLE).map(PathBuf::from))
    }

    /// The stopword list: the file given, else the one [`STOPWORDS_VARIABLE`] names.
    fn stopwords(&self) -> Result<std::collections::HashSet<String>> {
        let path = match self.stopwords_file() {
            Some(p) => p,
            None => {
                return Err(Error::InvalidParameter(format!(
                    "spotsigs-reference needs the published code's stopwords.txt: give \
                         --reference-stopwords FILE or set {STOPWORDS_VARIABLE} (samecore does \
                         not ship that list)"
                )));
            }
        };
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(e, &path))?;
        Ok(split(&text).map(str::to_string).collect())
    }
}

/// Tokens of `text` at [`DELIMITERS`].
fn split(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c| DELIMITERS.contains(c))
        .filter(|t| !t.is_empty())
}

/// The published code's reading of a page: UTF-8 with replacement, each line ended by `\n`.
pub fn read_as_java(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len() + 1);
    let mut chars = text.chars().peekable();
    let mut open_line = false;
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
                open_line = false;
            }
            '\n' => {
                out.push('\n');
                open_line = false;
            }
            c => {
                out.push(c);
                open_line = true;
            }
        }
    }
    if open_line {
        out.push('\n');
    }
    out
}

/// The digest of (7): SHA-1 of the text as ISO-8859-1, or `None` (the all-zero digest) when
/// the text holds a character beyond U+FFFF.
fn digest(text: &str) -> Option<[u8; 20]> {
    if text.chars().any(|c| u32::from(c) > 0xFFFF) {
        return None;
    }
    let latin1: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    Some(sha1_smol::Sha1::from(latin1).digest().bytes())
}

/// The signatures of (3) as strings, counted.
fn signatures(
    text: &str,
    antecedents: &HashMap<&str, usize>,
    chains: usize,
    stopwords: &std::collections::HashSet<String>,
) -> HashMap<String, u32> {
    let words: Vec<String> = split(text).map(str::to_lowercase).collect();
    let n = words.len();
    let mut out: HashMap<String, u32> = HashMap::new();
    for i in 0..n.saturating_sub(1) {
        let Some(&pos) = antecedents.get(words[i].as_str()) else {
            continue;
        };
        let mut chain = String::new();
        let mut k = i + pos;
        let mut j = 0;
        while j < chains && k < n {
            let mut token = &words[k];
            while stopwords.contains(token.as_str()) && k < n {
                token = &words[k];
                k += 1;
            }
            if !stopwords.contains(token.as_str()) {
                chain.push_str(token);
                chain.push(':');
            }
            k += pos;
            j += 1;
        }
        if !chain.is_empty() {
            *out.entry(chain).or_default() += 1;
        }
    }
    out
}

/// A page as read: its signatures by name with their counts, and its digest.
type ReadPage = (HashMap<String, u32>, Option<[u8; 20]>);

/// The published SpotSigs behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct ReferenceDetector {
    options: ReferenceOptions,
}

impl ReferenceDetector {
    /// A detector with these options.
    pub fn new(options: &ReferenceOptions) -> Result<Self> {
        if options.chains == 0 || options.antecedents.iter().any(|(_, d)| *d == 0) {
            return Err(Error::InvalidParameter(
                "the reference needs chains and spot distances of at least 1".into(),
            ));
        }
        Ok(ReferenceDetector {
            options: options.clone(),
        })
    }
}

/// A page as the published code keeps it.
#[derive(Debug, Clone)]
struct Page {
    doc: u32,
    /// Signature id → count, after the IDF band.
    counts: HashMap<u32, u32>,
    total: u32,
    digest: Option<[u8; 20]>,
}

impl Detector for ReferenceDetector {
    fn algo(&self) -> Algo {
        Algo::SpotSigsReference
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        let stopwords = o.stopwords()?;
        let antecedents: HashMap<&str, usize> = o
            .antecedents
            .iter()
            .map(|(w, d)| (w.as_str(), *d))
            .collect();
        progress.stage("reference signatures", docs.len() as u64);
        let read: Vec<Result<ReadPage>> = docs
            .par_iter()
            .map(|d| {
                progress.check()?;
                let bytes = crate::archive::read_raw(&d.location)?;
                let text = read_as_java(&bytes);
                let sigs = signatures(&text, &antecedents, o.chains, &stopwords);
                progress.advance(1);
                Ok((sigs, digest(&text)))
            })
            .collect();
        progress.check()?;
        let read: Vec<_> = read.into_iter().collect::<Result<_>>()?;
        Ok(Arc::new(collect_pages(read, o)))
    }
}

/// Pages that pass (5) and (6), signature ids given in order of first appearance.
fn collect_pages(read: Vec<ReadPage>, o: &ReferenceOptions) -> ReferencePrepared {
    let n = read.len();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut pages: Vec<Page> = Vec::new();
    for (doc, (sigs, digest)) in read.into_iter().enumerate() {
        let total: u32 = sigs.values().sum();
        if total < o.min_signatures {
            continue;
        }
        let mut names: Vec<(String, u32)> = sigs.into_iter().collect();
        names.sort();
        let counts = names
            .into_iter()
            .map(|(name, c)| {
                let next = ids.len() as u32;
                (*ids.entry(name).or_insert(next), c)
            })
            .collect();
        pages.push(Page {
            doc: doc as u32,
            counts,
            total,
            digest,
        });
    }
    let mut df: HashMap<u32, u32> = HashMap::new();
    for p in &pages {
        for &k in p.counts.keys() {
            *df.entry(k).or_default() += 1;
        }
    }
    let base = pages.len() as f64;
    let norm = (base + 1.0).ln();
    let (lo, hi) = o.idf_band;
    for p in &mut pages {
        p.counts.retain(|k, _| {
            let idf = ((base + 1.0) / f64::from(df[k])).ln() / norm;
            !(idf < lo || idf > hi)
        });
        p.total = p.counts.values().sum();
    }
    pages.retain(|p| p.total >= o.min_signatures);
    ReferencePrepared {
        n,
        pages,
        min_signatures: o.min_signatures,
        range: o.range,
    }
}

/// The pages the published code matches.
#[derive(Debug, Clone)]
pub struct ReferencePrepared {
    n: usize,
    pages: Vec<Page>,
    min_signatures: u32,
    range: u32,
}

impl Prepared for ReferencePrepared {
    fn algo(&self) -> Algo {
        Algo::SpotSigsReference
    }

    fn len(&self) -> usize {
        self.n
    }

    fn unsigned(&self) -> usize {
        self.n - self.pages.len()
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        spec.check(Algo::SpotSigsReference)?;
        progress.stage("reference matching", self.pages.len() as u64);
        let found = super::spotsigs_reference_match::reported_pairs(
            &self.pages_view(),
            self.min_signatures,
            self.range,
            spec.matching.threshold,
        );
        progress.check()?;
        let counts = candidate_counts(self.n, found.iter().map(|&(a, b, _)| (a, b)));
        let pairs = found
            .into_iter()
            .map(|(a, b, s)| scored(a.min(b), a.max(b), s))
            .collect();
        detection_from_pairs(Algo::SpotSigsReference, spec, self.n, pairs, &counts)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let pa = self.pages.iter().find(|p| p.doc == a.0)?;
        let pb = self.pages.iter().find(|p| p.doc == b.0)?;
        let (mut min, mut max) = (0u32, 0u32);
        for (k, &c) in &pa.counts {
            let d = pb.counts.get(k).copied().unwrap_or(0);
            min += c.min(d);
            max += c.max(d);
        }
        max += pb
            .counts
            .iter()
            .filter(|(k, _)| !pa.counts.contains_key(k))
            .map(|(_, &c)| c)
            .sum::<u32>();
        (max > 0).then(|| f64::from(min) / f64::from(max))
    }
}

impl ReferencePrepared {
    fn pages_view(&self) -> Vec<super::spotsigs_reference_match::RefPage<'_>> {
        self.pages
            .iter()
            .map(|p| super::spotsigs_reference_match::RefPage {
                doc: p.doc,
                counts: &p.counts,
                total: p.total,
                digest: p.digest,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_read_as_the_java_code_reads_them() {
        assert_eq!(read_as_java(b"a\r\nb\rc\nd"), "a\nb\nc\nd\n");
        assert_eq!(read_as_java(b"x\n"), "x\n");
        assert_eq!(read_as_java(b"caf\xe9"), "caf\u{fffd}\n");
    }

    #[test]
    fn the_signature_is_the_spot_word_alone_after_stopwords() {
        let stop: std::collections::HashSet<String> =
            ["of", "a"].iter().map(|s| s.to_string()).collect();
        let ante: HashMap<&str, usize> = [("the", 1), ("is", 1)].into_iter().collect();
        let s = signatures("The cat is a dog. the cat", &ante, 1, &stop);
        assert_eq!(s.get("cat:"), Some(&2));
        assert_eq!(s.get("dog:"), Some(&1));
        assert_eq!(s.len(), 2);
        // A digest fails on a character beyond U+FFFF: all such pages share one.
        assert_eq!(digest("\u{1F600}"), None);
        assert_eq!(digest("é?"), digest("é\u{100}"));
    }
}
