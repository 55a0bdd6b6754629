//! Two pages side by side: why did (or didn't) they match?
//!
//! In: two documents, the SpotSigs parameters and the detector runs of the workspace. Out: each
//! page's terms — exactly the terms SpotSigs signed, so what is highlighted is what was compared —
//! tagged by a word-level diff (Myers via `similar`, bounded by a deadline: on pathological
//! pages the diff is coarser, never slower) and by the spot signatures the two pages share
//! (antecedent and spot words marked on both sides), plus the pair's similarity under every
//! detector that ran. The raw pages are kept for the raw view.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffTag};

use crate::detectors::Algo;
use crate::gui::model::workspace::{AlgoRun, Workspace};
use crate::signature::SpotSigsParams;
use crate::signature::spotsigs::Signer;
use crate::{DocId, Result};

/// How a term of one page relates to the other page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermDiff {
    /// In both pages at this place.
    Same,
    /// Only in this page.
    Only,
}

/// Role of a term in a spot signature both pages share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpotRole {
    /// Not part of a shared signature.
    None,
    /// The antecedent of a shared signature.
    Antecedent,
    /// A spot word of a shared signature.
    Spot,
}

/// One term of a page in the pair view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairTerm {
    /// The term.
    pub text: String,
    /// Diff status.
    pub diff: TermDiff,
    /// Shared-signature role.
    pub spot: SpotRole,
}

/// The similarity of the pair under one detector.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorScore {
    /// The detector.
    pub algo: Algo,
    /// Its similarity for the pair, when the detector can tell it.
    pub score: Option<f64>,
    /// Whether the two pages are in the same cluster of that run.
    pub same_cluster: bool,
}

/// Everything the pair view shows.
#[derive(Debug, Clone)]
pub struct PairComparison {
    /// Left page.
    pub a: DocId,
    /// Right page.
    pub b: DocId,
    /// Left page's terms.
    pub left: Vec<PairTerm>,
    /// Right page's terms.
    pub right: Vec<PairTerm>,
    /// Terms found in one page only (both sides counted), Henzinger's "term differences".
    pub term_differences: usize,
    /// Whether the diff finished before its deadline (else it is coarser than minimal).
    pub diff_complete: bool,
    /// Shared spot signatures as `antecedent: spot words` with the smaller count of the two.
    pub shared_signatures: Vec<(String, u32)>,
    /// Similarity under each detector run.
    pub scores: Vec<DetectorScore>,
    /// The left page's decoded HTML.
    pub raw_left: std::sync::Arc<str>,
    /// The right page's decoded HTML.
    pub raw_right: std::sync::Arc<str>,
    /// What the two cores share ([`crate::passages`]).
    pub passages: PairPassages,
}

/// The aligned passages of a pair and its cores (their sites' frames left out).
#[derive(Debug, Clone)]
pub struct PairPassages {
    /// The left page's core and text.
    pub a: crate::passages::PageCore,
    /// The right page's core and text.
    pub b: crate::passages::PageCore,
    /// Each core's passages found in the other page, and both shares. Which came first
    /// is the pair view's to say: it orders the pages by the dates its run's cluster counts
    /// ([`crate::gui::model::workspace::pair_dates`]).
    pub alignment: crate::passages::PairAlignment,
}

/// Compare documents `a` and `b` of `ws` (read again from the archive, or from the pages it
/// read last); `deadline` bounds the diff.
pub fn compare(
    ws: &Workspace,
    a: DocId,
    b: DocId,
    spotsigs: &SpotSigsParams,
    runs: &[AlgoRun],
    deadline: Duration,
) -> Result<PairComparison> {
    let (raw_a, raw_b) = (ws.page_text(a)?, ws.page_text(b)?);
    let docs = &ws.collection.docs;
    let (da, db) = (&docs[a.index()], &docs[b.index()]);
    let signer = Signer::new(spotsigs)?;
    let tokens = spotsigs.tokens;
    let ta = tokens.terms(&raw_a, da.url.as_deref());
    let tb = tokens.terms(&raw_b, db.url.as_deref());

    let started = Instant::now();
    let ops =
        similar::capture_diff_slices_deadline(Algorithm::Myers, &ta, &tb, Some(started + deadline));
    let diff_complete = started.elapsed() < deadline;
    let mut left: Vec<PairTerm> = ta.iter().map(|t| term(t, TermDiff::Only)).collect();
    let mut right: Vec<PairTerm> = tb.iter().map(|t| term(t, TermDiff::Only)).collect();
    for op in &ops {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            old.for_each(|i| left[i].diff = TermDiff::Same);
            new.for_each(|i| right[i].diff = TermDiff::Same);
        }
    }
    let term_differences = left
        .iter()
        .chain(&right)
        .filter(|t| t.diff == TermDiff::Only)
        .count();

    // Shared signatures: multiset intersection of the two pages' spot signatures.
    let sa = signer.spots_with(&ta, signer.language_of(&ta, Some(&raw_a)));
    let sb = signer.spots_with(&tb, signer.language_of(&tb, Some(&raw_b)));
    let mut count_b: HashMap<u64, u32> = HashMap::new();
    for s in &sb {
        *count_b.entry(s.hash).or_default() += 1;
    }
    let mut count_a: HashMap<u64, u32> = HashMap::new();
    for s in &sa {
        *count_a.entry(s.hash).or_default() += 1;
    }
    let mut shared: HashMap<String, u32> = HashMap::new();
    for s in &sa {
        if count_b.contains_key(&s.hash) {
            let label = format!("{}: {}", s.antecedent, s.words.join(" "));
            shared.insert(label, count_a[&s.hash].min(count_b[&s.hash]));
        }
    }
    mark_spots(&mut left, &sa, &count_b);
    mark_spots(&mut right, &sb, &count_a);
    let mut shared_signatures: Vec<(String, u32)> = shared.into_iter().collect();
    shared_signatures.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));

    let scores = runs
        .iter()
        .map(|run| {
            let c = &run.detection.clustering.cluster_of;
            DetectorScore {
                algo: run.algo,
                score: run.prepared.similarity(a, b),
                same_cluster: c.get(a.index()).is_some() && c.get(a.index()) == c.get(b.index()),
            }
        })
        .collect();

    let (page_a, page_b) = (ws.core(a)?, ws.core(b)?);
    let alignment = crate::passages::align_pair(&page_a, &page_b, &Default::default());
    Ok(PairComparison {
        passages: PairPassages {
            a: page_a,
            b: page_b,
            alignment,
        },
        a,
        b,
        left,
        right,
        term_differences,
        diff_complete,
        shared_signatures,
        scores,
        raw_left: raw_a,
        raw_right: raw_b,
    })
}

fn term(text: &str, diff: TermDiff) -> PairTerm {
    PairTerm {
        text: text.to_string(),
        diff,
        spot: SpotRole::None,
    }
}

/// Mark the antecedent of each signature found in `other`, and its spot words: the first
/// occurrences of the spot words after the antecedent, in chain order (stopwords in between are
/// what the distance skipped).
fn mark_spots(
    terms: &mut [PairTerm],
    spots: &[crate::signature::spotsigs::SpotSignature],
    other: &HashMap<u64, u32>,
) {
    for s in spots.iter().filter(|s| other.contains_key(&s.hash)) {
        let Some(t) = terms.get_mut(s.position) else {
            continue;
        };
        t.spot = SpotRole::Antecedent;
        let mut at = s.position + 1;
        for w in &s.words {
            if let Some(off) = terms[at.min(terms.len())..]
                .iter()
                .position(|t| &t.text == w)
            {
                at += off;
                if terms[at].spot == SpotRole::None {
                    terms[at].spot = SpotRole::Spot;
                }
                at += 1;
            }
        }
    }
}
