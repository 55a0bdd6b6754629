//! Henzinger's breakdowns of a detector's pairs (SIGIR 2006, §3): pairs and documents in,
//! counts out.
//!
//! - [`site_breakdown`]: same-site vs different-site pairs (Tables 2, 5, 12), with her site rule
//!   ([`crate::document::Site::henzinger`]); pairs whose pages have no host are counted apart.
//! - [`pairs_per_value`]: pairs per B-similarity (Table 3) or per C-similarity (Table 5 bands).
//! - [`degree_distribution`]: how many documents have each degree in the similarity graph
//!   (Figs. 1 and 3, plotted on log-log axes in the paper).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Document;
use crate::matching::ScoredPair;

/// Same-site and different-site counts of a pair list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteBreakdown {
    /// Pairs whose two pages are on the same site.
    pub same_site: u64,
    /// Pairs on different sites.
    pub different_site: u64,
    /// Pairs where a page has no URL or host.
    pub unknown: u64,
}

impl SiteBreakdown {
    /// All pairs counted.
    pub fn total(&self) -> u64 {
        self.same_site + self.different_site + self.unknown
    }

    /// Share of same-site pairs among those with known sites (0 when none).
    pub fn same_site_share(&self) -> f64 {
        let known = self.same_site + self.different_site;
        if known == 0 {
            0.0
        } else {
            self.same_site as f64 / known as f64
        }
    }
}

/// Whether two documents are on the same site by Henzinger's rule (`None` when either has none).
pub fn same_site(a: &Document, b: &Document) -> Option<bool> {
    let (sa, sb) = (&a.site.henzinger, &b.site.henzinger);
    (!sa.is_empty() && !sb.is_empty()).then(|| sa == sb)
}

/// Same-site / different-site counts of `pairs` over `docs`.
pub fn site_breakdown(docs: &[Document], pairs: &[ScoredPair]) -> SiteBreakdown {
    let mut b = SiteBreakdown::default();
    for p in pairs {
        match (docs.get(p.a.index()), docs.get(p.b.index())) {
            (Some(x), Some(y)) => match same_site(x, y) {
                Some(true) => b.same_site += 1,
                Some(false) => b.different_site += 1,
                None => b.unknown += 1,
            },
            _ => b.unknown += 1,
        }
    }
    b
}

/// Pairs per value of `key(pair)` (e.g. its B-similarity, or its C-similarity band), sorted.
pub fn pairs_per_value<K: Ord>(
    pairs: &[ScoredPair],
    key: impl Fn(&ScoredPair) -> K,
) -> BTreeMap<K, u64> {
    let mut m = BTreeMap::new();
    for p in pairs {
        *m.entry(key(p)).or_default() += 1;
    }
    m
}

/// Henzinger's C-similarity bands of Table 5 for a 384-bit score (agreeing bits / 384).
pub fn c_similarity_band(score: f64) -> &'static str {
    let bits = (score * 384.0).round() as u32;
    match bits {
        382.. => "382-384",
        379..=381 => "379-381",
        376..=378 => "376-378",
        372..=375 => "372-375",
        355..=371 => "355-371",
        _ => "<355",
    }
}

/// Degree distribution of the graph whose edges are `pairs` over `n` documents: degree → number
/// of documents with it (documents of degree 0 included).
pub fn degree_distribution(n: usize, pairs: &[ScoredPair]) -> BTreeMap<u32, u64> {
    let mut degree = vec![0u32; n];
    for p in pairs {
        if let Some(d) = degree.get_mut(p.a.index()) {
            *d += 1;
        }
        if let Some(d) = degree.get_mut(p.b.index()) {
            *d += 1;
        }
    }
    let mut m = BTreeMap::new();
    for d in degree {
        *m.entry(d).or_default() += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DocId;

    fn doc(url: Option<&str>) -> Document {
        Document::from_page("", url, "")
    }

    #[test]
    fn breakdown_uses_henzinger_sites() {
        let docs = [
            doc(Some("http://www.cs.berkeley.edu/a")),
            doc(Some("http://www2.cs.berkeley.edu/b")),
            doc(Some("http://www.mit.edu/c")),
            doc(None),
        ];
        let p = |a, b| ScoredPair::new(DocId(a), DocId(b), 1.0);
        let b = site_breakdown(&docs, &[p(0, 1), p(0, 2), p(1, 2), p(2, 3)]);
        assert_eq!(
            b,
            SiteBreakdown {
                same_site: 1,
                different_site: 2,
                unknown: 1
            }
        );
        assert_eq!(b.total(), 4);
        assert!((b.same_site_share() - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn degrees_and_bands() {
        let p = |a, b, s| ScoredPair::new(DocId(a), DocId(b), s);
        let pairs = [p(0, 1, 1.0), p(0, 2, 373.0 / 384.0), p(3, 4, 0.5)];
        let d = degree_distribution(6, &pairs);
        assert_eq!(d.into_iter().collect::<Vec<_>>(), [(0, 1), (1, 4), (2, 1)]);
        let bands = pairs_per_value(&pairs, |p| c_similarity_band(p.score));
        assert_eq!(bands.get("382-384"), Some(&1));
        assert_eq!(bands.get("372-375"), Some(&1));
        assert_eq!(bands.get("<355"), Some(&1));
    }
}
