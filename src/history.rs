//! Capture history: for a URL captured several times, each capture against the one before it.
//!
//! Each later capture is one of
//! - **identical**: the same payload (digest and bytes; a revisit record is always so);
//! - **frame only**: the payload changed, the core did not (its similarity to the previous core
//!   is at least [`HistoryOptions::core_threshold`]: new sidebars, a comment count, ads);
//! - **core changed**: the story itself changed.
//!
//! The core is the text of the page's content blocks (boilerpipe's classifier,
//! [`crate::token::content`]); its similarity is the Jaccard coefficient of the two cores'
//! word 3-shingle sets (of their terms when a core has fewer than three). [`core_diff`] gives
//! the terms removed and added, for the token diff.
//!
//! Captures are grouped by URL as web archives do (SURT-like: scheme, `www.`, fragment and a
//! trailing `/` ignored, host lowercased), ordered by capture time.

use std::collections::{BTreeMap, HashSet};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffTag, capture_diff_slices};

use crate::document::{DocId, Document};
use crate::progress::Progress;
use crate::{Error, Result};

/// What changed since the previous capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// The URL's first capture.
    First,
    /// The same payload.
    Identical,
    /// The page changed around an unchanged core.
    FrameOnly,
    /// The core changed.
    CoreChanged,
}

impl Change {
    /// `first`, `identical`, `frame-only`, `core-changed`.
    pub fn name(self) -> &'static str {
        match self {
            Change::First => "first",
            Change::Identical => "identical",
            Change::FrameOnly => "frame-only",
            Change::CoreChanged => "core-changed",
        }
    }
}

/// Options of [`histories`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryOptions {
    /// Core similarity from which a changed page counts as "frame only" (default 0.9).
    pub core_threshold: f64,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions {
            core_threshold: 0.9,
        }
    }
}

/// One capture in its URL's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The capture.
    pub doc: DocId,
    /// The capture before it (none for the first).
    pub previous: Option<DocId>,
    /// What changed.
    pub change: Change,
    /// The core's similarity to the previous capture's (1 for identical payloads, none for the
    /// first).
    pub core_similarity: Option<f64>,
}

/// The captures of one URL, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UrlHistory {
    /// The URL as its first capture wrote it.
    pub url: String,
    /// Its captures.
    pub steps: Vec<Step>,
}

impl UrlHistory {
    /// How many captures changed their core.
    pub fn core_changes(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.change == Change::CoreChanged)
            .count()
    }
}

/// Every history of a collection, found by any of its captures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    /// The histories, as [`histories`] returns them.
    pub histories: Vec<UrlHistory>,
    by_doc: std::collections::HashMap<DocId, (usize, usize)>,
}

impl Index {
    /// Index `histories` by their captures.
    pub fn new(histories: Vec<UrlHistory>) -> Index {
        let mut by_doc = std::collections::HashMap::new();
        for (h, history) in histories.iter().enumerate() {
            for (k, step) in history.steps.iter().enumerate() {
                by_doc.insert(step.doc, (h, k));
            }
        }
        Index { histories, by_doc }
    }

    /// The history `doc` is a capture in, and its step there.
    pub fn of(&self, doc: DocId) -> Option<(&UrlHistory, usize)> {
        let &(h, k) = self.by_doc.get(&doc)?;
        Some((&self.histories[h], k))
    }
}

/// The key captures of one URL share: host lowercased, scheme, `www.`, fragment and a trailing
/// `/` dropped.
pub fn url_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split('#').next().unwrap_or(rest);
    let (host, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let path = path.strip_suffix('/').unwrap_or(path);
    format!("{host}{path}")
}

/// The history of every URL captured at least twice in `docs` (pages without a URL have none),
/// URLs in order of their first capture. Pages are read again from their records for their
/// cores, in parallel.
pub fn histories(
    docs: &[Document],
    opts: &HistoryOptions,
    progress: &Progress,
) -> Result<Vec<UrlHistory>> {
    let mut by_url: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, d) in docs.iter().enumerate() {
        if let Some(url) = &d.url {
            by_url.entry(url_key(url)).or_default().push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_url.into_values().filter(|g| g.len() > 1).collect();
    let when = |i: usize| (docs[i].date.clone(), i);
    for g in &mut groups {
        g.sort_by_key(|&i| when(i));
    }
    groups.sort_by_key(|g| when(g[0]));
    // Cores of the pages whose payload differs from the previous capture's.
    let needed: Vec<usize> = {
        let mut set = HashSet::new();
        for g in &groups {
            for w in g.windows(2) {
                if !same_payload(&docs[w[0]], &docs[w[1]]) {
                    set.insert(w[0]);
                    set.insert(w[1]);
                }
            }
        }
        let mut v: Vec<usize> = set.into_iter().collect();
        v.sort_unstable();
        v
    };
    progress.stage("reading cores of changed captures", needed.len() as u64);
    let shingles: Vec<(usize, HashSet<u64>)> = needed
        .par_iter()
        .map(|&i| {
            if progress.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let text = crate::archive::page_text(&docs[i])?;
            progress.advance(1);
            Ok((i, shingle_set(&core_terms(&text))))
        })
        .collect::<Result<_>>()?;
    let shingles: BTreeMap<usize, HashSet<u64>> = shingles.into_iter().collect();
    Ok(groups
        .into_iter()
        .map(|g| {
            let mut steps = vec![Step {
                doc: DocId(g[0] as u32),
                previous: None,
                change: Change::First,
                core_similarity: None,
            }];
            for w in g.windows(2) {
                let (a, b) = (&docs[w[0]], &docs[w[1]]);
                let (change, similarity) = if same_payload(a, b) {
                    (Change::Identical, 1.0)
                } else {
                    let s = jaccard(&shingles[&w[0]], &shingles[&w[1]]);
                    if s >= opts.core_threshold {
                        (Change::FrameOnly, s)
                    } else {
                        (Change::CoreChanged, s)
                    }
                };
                steps.push(Step {
                    doc: DocId(w[1] as u32),
                    previous: Some(DocId(w[0] as u32)),
                    change,
                    core_similarity: Some((similarity * 1e4).round() / 1e4),
                });
            }
            UrlHistory {
                url: docs[g[0]].url.as_deref().unwrap_or_default().to_string(),
                steps,
            }
        })
        .collect())
}

/// Whether two captures have the same payload (a revisit has its original's): the same
/// digest and the same bytes read (a declared digest is not taken on trust,
/// [`crate::detectors::exact::digest_groups`]).
fn same_payload(a: &Document, b: &Document) -> bool {
    a.digest() == b.digest() && a.payload_check == b.payload_check
}

/// The terms of a page's core (its content blocks' text).
pub fn core_terms(html: &str) -> Vec<String> {
    crate::token::markup::terms(&crate::token::content::content_text(html))
}

fn shingle_set(terms: &[String]) -> HashSet<u64> {
    if terms.len() < 3 {
        return terms.iter().map(|t| crate::token::term_hash(t)).collect();
    }
    terms
        .windows(3)
        .map(|w| {
            w.iter().fold(0u64, |h, t| {
                crate::token::mix64(h ^ crate::token::term_hash(t))
            })
        })
        .collect()
}

fn jaccard(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// One run of the token diff of two cores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffRun {
    /// Terms in both.
    Same(Vec<String>),
    /// Terms only in the older core.
    Removed(Vec<String>),
    /// Terms only in the newer core.
    Added(Vec<String>),
}

/// The token diff of an older and a newer core (Myers, over terms).
pub fn core_diff(old: &[String], new: &[String]) -> Vec<DiffRun> {
    let mut runs = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, old, new) {
        let (tag, o, n) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => runs.push(DiffRun::Same(old[o].to_vec())),
            DiffTag::Delete => runs.push(DiffRun::Removed(old[o].to_vec())),
            DiffTag::Insert => runs.push(DiffRun::Added(new[n].to_vec())),
            DiffTag::Replace => {
                runs.push(DiffRun::Removed(old[o].to_vec()));
                runs.push(DiffRun::Added(new[n].to_vec()));
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_keys_group_what_archives_group() {
        assert_eq!(url_key("http://WWW.Example.com/a/#top"), "example.com/a");
        assert_eq!(url_key("https://example.com/a"), "example.com/a");
        assert_ne!(
            url_key("http://example.com/a?x=1"),
            url_key("http://example.com/a")
        );
    }

    #[test]
    fn diff_runs() {
        let t = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let d = core_diff(&t("a b c d"), &t("a x c d e"));
        assert_eq!(
            d,
            vec![
                DiffRun::Same(t("a")),
                DiffRun::Removed(t("b")),
                DiffRun::Added(t("x")),
                DiffRun::Same(t("c d")),
                DiffRun::Added(t("e")),
            ]
        );
    }
}
