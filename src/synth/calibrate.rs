//! Calibration of the synthetic archive against real data: how alike SpotSigs finds pages of the
//! same story, of different stories on one site, and of different stories on different sites.
//!
//! In: documents with gold clusters (a [`crate::archive::Collection`]'s `docs` plus a
//! [`crate::eval::GoldStandard`]). Out: a [`Calibration`] — for each of the three pair classes,
//! the number of pairs and the 50/90/99th percentiles and the maximum of the multiset Jaccard of
//! their whole-page spot signatures (workbench paper §3.1; Theobald et al. SIGIR 2008 §3). The
//! three classes are henzinger §3's split of pairs into same-site and different-site ones, with
//! the same-cluster pairs (the ones a detector should find) apart.
//!
//! The generator's vocabulary was tuned until these distributions on the committed sample were
//! of the order of those on the real gold set (`sample_archives/README.md` records both; the
//! `synth_calibration` bench prints them).
//!
//! A document's site is [`crate::document::Site::henzinger`] from its URL; loose files without a
//! URL (the gold set is a folder of saved pages) get the henzinger site of the host their
//! absolute `href` links name most often — a saved page links mostly to its own site.

use std::collections::BTreeMap;

use crate::Document;
use crate::detectors::spotsigs::SpotSigsDetector;
use crate::progress::Progress;
use crate::signature::{SpotSigsParams, jaccard};
use crate::{Error, Result};

/// The distribution of Jaccard values of one class of pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Quantiles {
    /// Number of pairs in the class.
    pub pairs: u64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

impl Quantiles {
    /// Quantiles of `values` (nearest rank); all zero for no values.
    pub fn of(mut values: Vec<f64>) -> Quantiles {
        if values.is_empty() {
            return Quantiles::default();
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let at = |q: f64| values[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Quantiles {
            pairs: n as u64,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: values[n - 1],
        }
    }
}

/// SpotSigs similarity by pair class for one collection.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Calibration {
    /// Documents that took part (labelled, with at least the minimum number of signatures).
    pub documents: usize,
    /// Distinct sites among them.
    pub sites: usize,
    /// Pairs in one gold cluster.
    pub same_cluster: Quantiles,
    /// Pairs of different clusters on the same site.
    pub same_site: Quantiles,
    /// Pairs of different clusters on different sites.
    pub cross_site: Quantiles,
}

impl Calibration {
    /// Markdown table rows (`| class | pairs | p50 | p90 | p99 | max |`) labelled with `name`.
    pub fn table_rows(&self, name: &str) -> String {
        let mut out = String::new();
        for (class, q) in [
            ("same story", &self.same_cluster),
            ("other story, same site", &self.same_site),
            ("other story, other site", &self.cross_site),
        ] {
            out.push_str(&format!(
                "| {name} | {class} | {} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
                q.pairs, q.p50, q.p90, q.p99, q.max
            ));
        }
        out
    }
}

/// The site of a document: henzinger's site of its URL, else of the host its absolute links
/// name most often (ties to the smallest name), else the empty string.
pub fn site_of(doc: &Document) -> Result<String> {
    if !doc.site.henzinger.is_empty() {
        return Ok(doc.site.henzinger.to_string());
    }
    let mut hosts: BTreeMap<String, u32> = BTreeMap::new();
    let text = crate::archive::page_text(doc)?;
    let html = text.as_bytes();
    let mut from = 0;
    while let Some(pos) = memchr::memmem::find(&html[from..], b"href") {
        let mut i = from + pos + 4;
        from = i;
        while i < html.len() && matches!(html[i], b' ' | b'=' | b'"' | b'\'' | b'\t' | b'\n') {
            i += 1;
        }
        let rest = &html[i..html.len().min(i + 300)];
        let lower = rest.to_ascii_lowercase();
        let after = if lower.starts_with(b"http://") {
            7
        } else if lower.starts_with(b"https://") {
            8
        } else {
            continue;
        };
        let host: Vec<u8> = lower[after..]
            .iter()
            .copied()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
            .collect();
        if host.contains(&b'.') {
            let host = String::from_utf8_lossy(&host).into_owned();
            *hosts
                .entry(crate::document::henzinger_site(&host))
                .or_insert(0) += 1;
        }
    }
    let mut best: Option<(&String, u32)> = None;
    for (host, &count) in &hosts {
        if best.is_none_or(|(_, c)| count > c) {
            best = Some((host, count));
        }
    }
    Ok(best.map(|(h, _)| h.clone()).unwrap_or_default())
}

/// Measure the three pair classes of `docs` under SpotSigs' whole-page signatures
/// ([`SpotSigsParams::whole_page`]).
/// `cluster_of[i]` is the gold cluster of `docs[i]` (unlabelled documents are left out).
pub fn calibrate(docs: &[Document], cluster_of: &[Option<u32>]) -> Result<Calibration> {
    if cluster_of.len() != docs.len() {
        return Err(Error::InvalidParameter(format!(
            "{} gold labels for {} documents",
            cluster_of.len(),
            docs.len()
        )));
    }
    let detector = SpotSigsDetector::new(&SpotSigsParams::whole_page())?;
    let signed = detector.sign(docs, &Progress::new())?;
    let sites = docs.iter().map(site_of).collect::<Result<Vec<String>>>()?;
    let members: Vec<usize> = (0..docs.len())
        .filter(|&i| cluster_of[i].is_some() && signed.sets[i].total > 0)
        .collect();
    let (mut same_cluster, mut same_site, mut cross_site) = (Vec::new(), Vec::new(), Vec::new());
    for (k, &i) in members.iter().enumerate() {
        for &j in &members[k + 1..] {
            let value = jaccard(&signed.sets[i], &signed.sets[j]);
            if cluster_of[i] == cluster_of[j] {
                same_cluster.push(value);
            } else if !sites[i].is_empty() && sites[i] == sites[j] {
                same_site.push(value);
            } else {
                cross_site.push(value);
            }
        }
    }
    let mut distinct: Vec<&String> = members.iter().map(|&i| &sites[i]).collect();
    distinct.sort();
    distinct.dedup();
    Ok(Calibration {
        documents: members.len(),
        sites: distinct.len(),
        same_cluster: Quantiles::of(same_cluster),
        same_site: Quantiles::of(same_site),
        cross_site: Quantiles::of(cross_site),
    })
}

/// The `n` spot signatures found in the most documents, as (`"antecedent word"`, documents),
/// most frequent first (ties by text): the signatures that make unrelated pages alike.
pub fn common_signatures(docs: &[Document], n: usize) -> Result<Vec<(String, usize)>> {
    let signer = crate::signature::spotsigs::Signer::new(&SpotSigsParams::whole_page())?;
    let mut df: BTreeMap<String, usize> = BTreeMap::new();
    for doc in docs {
        let mut seen: Vec<String> = signer
            .spots(&crate::archive::page_text(doc)?, doc.url.as_deref())
            .into_iter()
            .map(|s| format!("{} {}", s.antecedent, s.words.join(" ")))
            .collect();
        seen.sort();
        seen.dedup();
        for text in seen {
            *df.entry(text).or_insert(0) += 1;
        }
    }
    let mut ranked: Vec<(String, usize)> = df.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(n);
    Ok(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let q = Quantiles::of((1..=100).map(f64::from).collect());
        assert_eq!(
            (q.pairs, q.p50, q.p90, q.p99, q.max),
            (100, 50.0, 90.0, 99.0, 100.0)
        );
        assert_eq!(Quantiles::of(Vec::new()), Quantiles::default());
    }

    #[test]
    fn site_from_links_when_there_is_no_url() {
        let doc = Document {
            html: "<a href=\"http://www.news.example.com/a\">x</a><a href='https://ads.net/'>\
                   </a><a href=\"https://edition.news.example.com/b\">y</a><a href=\"/c\">z</a>"
                .into(),
            ..test_doc()
        };
        assert_eq!(site_of(&doc).unwrap(), "news.example.com");
    }

    fn test_doc() -> Document {
        Document::from_page("k", None, "")
    }
}
