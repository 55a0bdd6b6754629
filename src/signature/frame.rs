//! Frame-aware signatures: a site's frame (navigation, teasers, footers that recur on its
//! pages) must not make two pages of that site similar. Per-document signature multisets and
//! each document's site in; the same multisets without the signatures that occur on more than
//! a share of their site's pages out.
//!
//! SpotSigs' spot signatures already favour running text over markup, but a large site's frame
//! is running text too ("… the latest news …", "… is a registered trademark …"): on
//! goldset-dev most wrong pairs join pages of one site (forbes.com pages about coffee, condoms
//! and the media score 0.5 against each other) through such signatures. The Workbench paper's
//! remedy is a collection-wide IDF band (SIGIR 2008 §5), which drops signatures by how many
//! documents of the whole archive hold them — a number that grows with the archive, so a band
//! that helps at 1,000 pages erases small clusters at 100,000. Counting within a site instead
//! measures what a frame is: text a site repeats on most of its pages, whatever the size of
//! the archive.
//!
//! A page's site is its URL's registrable domain; a page without a URL (a folder of saved
//! pages) takes the registrable domain most of its absolute links point to (a site links to
//! itself in its own frame), see [`link_site`]. Sites with fewer than
//! [`SiteFrame::min_pages`] pages are left alone: there is no telling frame from story there.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// When a signature counts as a site's frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SiteFrame {
    /// A signature on more than this share of a site's pages is dropped from them.
    pub max_share: f64,
    /// Sites with fewer pages keep every signature.
    pub min_pages: usize,
}

impl Default for SiteFrame {
    fn default() -> Self {
        // 0.9: a frame is on (nearly) every page of its site; a lower share also takes the
        // story of a site whose pages in the archive are mostly copies of one story
        // (goldset-dev, README "Same core, not same frame").
        SiteFrame {
            max_share: 0.9,
            min_pages: 3,
        }
    }
}

/// The registrable domain most absolute `href`s of `html` point to, when any does (ties go to
/// the name first in order, so the answer does not depend on link order).
pub fn link_site(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let mut counts: HashMap<String, u32> = HashMap::new();
    let finder = memchr::memmem::Finder::new(b"href");
    for at in finder.find_iter(bytes) {
        let rest = &html[at + 4..];
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start().trim_start_matches(['"', '\'']);
        let lower = rest.get(..8).unwrap_or(rest).to_ascii_lowercase();
        let skip = if lower.starts_with("https://") {
            8
        } else if lower.starts_with("http://") {
            7
        } else {
            continue;
        };
        let host: String = rest[skip..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
            .collect();
        if host.contains('.') {
            *counts
                .entry(crate::document::registrable_domain(
                    &host.to_ascii_lowercase(),
                ))
                .or_default() += 1;
        }
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(site, _)| site)
}

/// Drop from each document the signatures that occur on more than `frame.max_share` of the
/// pages of its site (`sites[d]`, none for an unknown site). Returns how many signature
/// occurrences were dropped.
pub fn drop_site_frame(raw: &mut [Vec<u64>], sites: &[Option<String>], frame: &SiteFrame) -> usize {
    let mut by_site: HashMap<&str, Vec<usize>> = HashMap::new();
    for (d, site) in sites.iter().enumerate() {
        if let Some(s) = site {
            by_site.entry(s.as_str()).or_default().push(d);
        }
    }
    let mut dropped = 0;
    let mut sites: Vec<(&str, Vec<usize>)> = by_site.into_iter().collect();
    sites.sort();
    for (_, pages) in sites {
        if pages.len() < frame.min_pages.max(2) {
            continue;
        }
        let mut df: HashMap<u64, usize> = HashMap::new();
        for &d in &pages {
            let mut distinct = raw[d].clone();
            distinct.sort_unstable();
            distinct.dedup();
            for h in distinct {
                *df.entry(h).or_default() += 1;
            }
        }
        let limit = frame.max_share * pages.len() as f64;
        for &d in &pages {
            let before = raw[d].len();
            raw[d].retain(|h| df.get(h).is_none_or(|&n| (n as f64) <= limit));
            dropped += before - raw[d].len();
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_of_a_page_is_where_most_of_its_links_point() {
        let html = r#"<a href="http://www.forbes.com/a">x</a> <a HREF = 'https://ads.forbes.com/b'>
            <a href="http://other.org/">o</a> <a href="/relative">r</a>"#;
        assert_eq!(link_site(html).as_deref(), Some("forbes.com"));
        assert_eq!(link_site("<p>no links</p>"), None);
    }

    #[test]
    fn signatures_on_most_of_a_sites_pages_are_dropped_there_only() {
        // Site a: frame signature 1 on all three pages, stories 10, 20, 30.
        let mut raw = vec![
            vec![1, 10, 10],
            vec![1, 20],
            vec![1, 30],
            vec![1, 10],
            vec![1],
        ];
        let sites = vec![
            Some("a".to_string()),
            Some("a".to_string()),
            Some("a".to_string()),
            Some("b".to_string()),
            None,
        ];
        let dropped = drop_site_frame(&mut raw, &sites, &SiteFrame::default());
        assert_eq!(dropped, 3);
        assert_eq!(raw[0], [10, 10]);
        assert_eq!(raw[1], [20]);
        // Site b has one page, the unknown site none: nothing to tell frame from story.
        assert_eq!(raw[3], [1, 10]);
        assert_eq!(raw[4], [1]);
    }
}
