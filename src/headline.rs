//! A story's headline for the cluster list: what the pages' `<title>`s say once each site's
//! own words are taken out, and the part of it the cluster's pages agree on.
//!
//! A page's `<title>` is often its site's frame, whole or in part: "Nashuatelegraph.com:
//! Nation/World", "Latest News | News | Hemscott", "Coffee Shouldn't Boost Preemie Birth Risk:
//! Study - Forbes.com". Shown as a cluster's name, the representative's raw title often names
//! the site and not the story. Three steps make a name out of the titles alone, so the same
//! name comes out of a run in memory, a project's stored pages and an export, none of which
//! needs the pages' text again:
//!
//! 1. A title is cut into its **parts** at the separators sites put between their name, their
//!    section and the headline (` | `, ` - `, ` – `, ` — `, `: `, ` :: `, ` » `, ` · `, ...).
//! 2. A part is the **site's own** ([`Titles`]) when it names the site's domain
//!    ("Forbes.com", "CTV.ca", "WRAL.com"), holds no letter ("01/25/2007"), or recurs in the
//!    titles of several of the site's pages around different other parts ("U.S. Life",
//!    "Tech&Sci") — what the site frame of [`crate::passages`] does for text blocks, done for
//!    titles. What stays is the page's **headline**: its longest run of parts that are not
//!    the site's own, joined as written ([`Titles::headline`]).
//! 3. A cluster's **title** ([`Titles::story_title`]) is the member headline whose words the
//!    most members' headlines share (the medoid by word support): a copy whose title is its
//!    frame's own, or names another story, is outvoted by the members that name this one.
//!    A cluster whose every title is the site's own keeps its representative's raw title.
//!
//! The raw `<title>` stays beside it: on hover in the workbench, as `title` beside
//! `story_title` in the pages and clusters exports, and as `representative_title` beside
//! `title` (the story's) in the workbench's export of the cluster list.
//!
//! No crate does this (title cleaning in boilerplate removers such as trafilatura or
//! newspaper works on one page and its markup; here what a site repeats is learnt from the
//! site's other pages, which a collection has). Measured on goldset-dev and frames-dev by
//! `tests/headline.rs` against the gold stories' names.

use std::collections::{HashMap, HashSet};

use crate::cluster::Clustering;
use crate::dates::spread::{Member, spread};
use crate::document::{DocId, Document};

/// Separators between the parts of a title, longest first (so ` :: ` is not read as `: `).
const SEPARATORS: &[&str] = &[
    " :: ", " | ", " - ", " – ", " — ", " -- ", " » ", " « ", " · ", " • ", " ~ ", " / ", ": ",
    "►", "|",
];

/// Words that name no story (a part made only of them is a section or a wire name).
const SECTION_WORDS: &[&str] = &[
    "news",
    "latest",
    "world",
    "national",
    "nation",
    "local",
    "top",
    "stories",
    "story",
    "home",
    "breaking",
    "headlines",
    "wire",
    "wires",
    "ap",
    "reuters",
    "afp",
    "dpa",
    "business",
    "technology",
    "tech",
    "science",
    "health",
    "entertainment",
    "sports",
    "politics",
    "opinion",
    "us",
    "u.s",
    "international",
    "online",
    "the",
    "and",
    "&",
    "of",
    "a",
    "nachrichten",
    "aktuell",
    "actualités",
    "actualites",
    "infos",
    "monde",
    "welt",
    "politik",
    "wirtschaft",
];

/// A title cut into parts: each part's text and the separator written before it.
fn parts(title: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = title;
    let mut sep: &str = "";
    loop {
        let next = SEPARATORS
            .iter()
            .filter_map(|s| rest.find(s).map(|at| (at, *s)))
            .min_by_key(|&(at, s)| (at, std::cmp::Reverse(s.len())));
        match next {
            Some((at, s)) => {
                let part = rest[..at].trim();
                if !part.is_empty() {
                    out.push((sep, part));
                    sep = s;
                } else if out.is_empty() {
                    sep = "";
                } else {
                    sep = s;
                }
                rest = &rest[at + s.len()..];
            }
            None => {
                let part = rest.trim();
                if !part.is_empty() {
                    out.push((sep, part));
                }
                return out;
            }
        }
    }
}

/// A part as compared: lowercased, whitespace collapsed.
fn norm(part: &str) -> String {
    part.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a text as voted on: lowercased runs of letters and digits of two or more
/// characters (one for scripts without spaces is not needed: a title there is one part).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
}

/// The label of a domain a site's name is written with: `forbes` for `forbes.com`,
/// `msnbc` for `msnbc.msn.com`; empty for none.
fn domain_label(site: &str) -> String {
    let host = site.trim_start_matches("www.");
    host.split('.')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Whether a part names a site: a word of it is written as a domain ("Forbes.com",
/// "www.itnews.com.au") or holds the domain's label ("CTV.ca", "WISH-TV" on wishtv.com),
/// and every other word is a section word ("Health News" beside it). "Apple unveils
/// iPhone" on apple.com is a headline: its other words are not a section's.
fn names_a_site(part: &str, label: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    if words.is_empty() || words.len() > 4 {
        return false;
    }
    let names = |w: &str| {
        let squeezed: String = w
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let bare = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        let domain = [
            ".com", ".net", ".org", ".co.uk", ".ca", ".au", ".de", ".fr", ".at", ".ch", ".tv",
        ]
        .iter()
        .any(|tld| bare.ends_with(tld) && bare.len() > tld.len());
        domain || (label.len() >= 3 && squeezed.contains(label))
    };
    let Some(at) = words.iter().position(|w| names(w)) else {
        return false;
    };
    words
        .iter()
        .enumerate()
        .all(|(i, w)| i == at || names(w) || is_section(w))
}

/// Whether a part is a section or a date, not a headline: no letter, or only section words.
fn is_section(part: &str) -> bool {
    if !part.chars().any(char::is_alphabetic) {
        return true;
    }
    part.split(|c: char| c.is_whitespace() || c == '/' || c == ',')
        .filter(|w| !w.is_empty())
        .all(|w| {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '&')
                .to_lowercase();
            w.is_empty() || SECTION_WORDS.contains(&w.as_str())
        })
}

/// What each site repeats in its titles, learnt from the titles of a collection's pages.
#[derive(Debug, Default, Clone)]
pub struct Titles {
    /// Per site, the parts (normalised) that recur around different other parts.
    own: HashMap<String, HashSet<String>>,
    /// How many of the collection's pages of a site have a headline (by [`site_key`]): a
    /// headline a member's site also gives pages outside the cluster is a frame's or a
    /// section's there, not the cluster's story (a copy that kept its frame's title names the
    /// frame's own story, which the frame's site published too). Other sites' pages do not
    /// count: where a run splits one story, its headline is on both parts, on other sites.
    heads: HashMap<u64, u32>,
}

/// A text's hash, normalised ([`norm`]).
fn head_key(headline: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(norm(headline).as_bytes())
}

/// The key of a headline on a site in [`Titles::heads`].
fn site_key(site: &str, headline: &str) -> u64 {
    head_key(headline) ^ xxhash_rust::xxh3::xxh3_64(site.as_bytes()).rotate_left(17)
}

impl Titles {
    /// Learn from every page's site and title. A part is the site's own when it recurs in
    /// the site's distinct titles beside at least two different headlines and is not the
    /// longest part of most of them (a story's headline is, where it recurs in two captures).
    pub fn learn<'a>(pages: impl IntoIterator<Item = (&'a str, &'a str)>) -> Titles {
        let pages: Vec<(&'a str, &'a str)> = pages.into_iter().collect();
        // Per site and part: the distinct titles it is in, and how often it is their longest.
        #[derive(Default)]
        struct Seen {
            titles: HashSet<u64>,
            longest: usize,
        }
        let mut seen: HashMap<&'a str, HashMap<String, Seen>> = HashMap::new();
        let mut distinct: HashSet<(&'a str, &'a str)> = HashSet::new();
        for &(site, title) in &pages {
            if site.is_empty() || !distinct.insert((site, title)) {
                continue;
            }
            let ps = parts(title);
            if ps.len() < 2 {
                continue;
            }
            let longest = ps.iter().map(|(_, p)| p.len()).max().unwrap_or(0);
            let site_parts = seen.entry(site).or_default();
            let whole = head_key(title);
            for (_, p) in &ps {
                let s = site_parts.entry(norm(p)).or_default();
                s.titles.insert(whole);
                s.longest += usize::from(p.len() == longest);
            }
        }
        let own = seen
            .into_iter()
            .map(|(site, ps)| {
                let own = ps
                    .into_iter()
                    .filter(|(_, s)| s.titles.len() >= 2 && s.longest * 2 <= s.titles.len())
                    .map(|(p, _)| p)
                    .collect::<HashSet<_>>();
                (site.to_string(), own)
            })
            .filter(|(_, own)| !own.is_empty())
            .collect();
        let mut titles = Titles {
            own,
            heads: HashMap::new(),
        };
        for &(site, title) in &pages {
            if let Some(h) = titles.headline(site, title) {
                *titles.heads.entry(site_key(site, &h)).or_default() += 1;
            }
        }
        titles
    }

    /// Whether a part of a title of `site` is the site's own.
    fn is_own(&self, site: &str, label: &str, part: &str) -> bool {
        is_section(part)
            || names_a_site(part, label)
            || self
                .own
                .get(site)
                .is_some_and(|own| own.contains(&norm(part)))
    }

    /// A page's headline: its title without the site's own parts (the longest run of the
    /// others, joined as written); `None` when every part is the site's own.
    pub fn headline(&self, site: &str, title: &str) -> Option<String> {
        let label = domain_label(site);
        let ps = parts(title);
        let mut best: Option<(usize, String)> = None;
        let mut run = String::new();
        let mut run_len = 0;
        let mut flush = |run: &mut String, run_len: &mut usize| {
            if *run_len > 0 && best.as_ref().is_none_or(|(l, _)| *run_len > *l) {
                best = Some((*run_len, std::mem::take(run)));
            }
            run.clear();
            *run_len = 0;
        };
        for (sep, p) in &ps {
            if self.is_own(site, &label, p) {
                flush(&mut run, &mut run_len);
                continue;
            }
            if run_len > 0 {
                if sep.starts_with(' ') || sep.ends_with(' ') {
                    run.push_str(sep);
                } else {
                    // A separator written without spaces ("►", "|") reads with them.
                    run.push(' ');
                    run.push_str(sep);
                    run.push(' ');
                }
            }
            run.push_str(p);
            run_len += p.chars().count();
        }
        flush(&mut run, &mut run_len);
        best.map(|(_, h)| h)
    }

    /// A member as [`story_title_of`] reads it: its site, its title, and its headline with how
    /// many of the collection's pages of its site have that headline (`None` when
    /// [`Titles::learn`] did not see the collection).
    pub fn headed<'a>(&self, site: &'a str, title: Option<&'a str>) -> Headed<'a> {
        let headline = title.and_then(|t| self.headline(site, t)).map(|h| {
            let on_site = self.heads.get(&site_key(site, &h)).copied();
            (h, on_site)
        });
        Headed {
            site,
            title,
            headline,
        }
    }

    /// How many pages of its site [`Titles::learn`] saw with each page's headline: the
    /// [`Titles::headed`] of every page of one site, learnt from those pages alone. What a
    /// site repeats is learnt from the site's own pages, so the sites of a collection are
    /// learnt apart (the Spark job: each in the task holding its pages) with the collection's
    /// result.
    pub fn of_one_site<'a>(site: &'a str, titles: &[Option<&'a str>]) -> Vec<Headed<'a>> {
        let learnt = Titles::learn(titles.iter().flatten().map(|&t| (site, t)));
        titles.iter().map(|&t| learnt.headed(site, t)).collect()
    }

    /// A cluster's title from its members' sites and titles (the representative first):
    /// [`story_title_of`] with each member's headline found here.
    pub fn story_title<'a>(
        &self,
        members: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
    ) -> Option<String> {
        story_title_of(
            members
                .into_iter()
                .map(|(site, title)| self.headed(site, title)),
        )
    }
}

/// A member of a cluster as [`story_title_of`] reads it ([`Titles::headed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headed<'a> {
    /// The site its title's own words are learnt under ([`title_site`]).
    pub site: &'a str,
    /// Its `<title>`.
    pub title: Option<&'a str>,
    /// Its headline ([`Titles::headline`]) and how many of the collection's pages of its site
    /// have that headline (`None` when unknown).
    pub headline: Option<(String, Option<u32>)>,
}

/// A cluster's title from its members, the representative first.
///
/// Of the members' headlines, those the members' sites give no page outside the cluster
/// come first (when [`Titles::learn`] saw the collection); among them, the one whose words
/// the most other members' headlines share, per word (a headline of fewer than four words
/// counts as four, so "Health" does not beat a sentence); ties to the headline more members
/// have, then the representative's, then the first in text order, so the order of the
/// other members does not matter. The representative's raw title when no member has a
/// headline (the first member's with a title when the representative has none).
pub fn story_title_of<'a>(members: impl IntoIterator<Item = Headed<'a>>) -> Option<String> {
    let mut raw_first = None;
    // Each member's site and headline, and the representative's place among them.
    let mut heads: Vec<(&'a str, String)> = Vec::new();
    let mut on_site: HashMap<u64, Option<u32>> = HashMap::new();
    let mut rep_head = None;
    let mut raw_rep = None;
    for (i, m) in members.into_iter().enumerate() {
        let Some(title) = m.title else { continue };
        if i == 0 {
            raw_rep = Some(title);
        }
        raw_first.get_or_insert(title);
        if let Some((h, n)) = m.headline {
            if i == 0 {
                rep_head = Some(heads.len());
            }
            on_site.insert(site_key(m.site, &h), n);
            heads.push((m.site, h));
        }
    }
    let raw = raw_rep.or(raw_first).map(str::to_string);
    if heads.len() <= 1 {
        return heads.pop().map(|(_, h)| h).or(raw);
    }
    // How many members' headlines hold each word; how many members have each headline,
    // and each headline on each site.
    let mut support: HashMap<String, usize> = HashMap::new();
    let mut inside: HashMap<u64, u32> = HashMap::new();
    let mut inside_site: HashMap<u64, u32> = HashMap::new();
    for (site, h) in &heads {
        for w in words(h).collect::<HashSet<_>>() {
            *support.entry(w).or_default() += 1;
        }
        *inside.entry(head_key(h)).or_default() += 1;
        *inside_site.entry(site_key(site, h)).or_default() += 1;
    }
    // Whether none of the sites of the members with headline `h` gives it a page outside.
    // Once per member, not per pair of members: a cluster can have thousands.
    let mut own_of: HashMap<u64, bool> = HashMap::new();
    for (site, h) in &heads {
        let key = site_key(site, h);
        let here = on_site[&key].is_none_or(|n| n <= inside_site[&key]);
        *own_of.entry(head_key(h)).or_insert(true) &= here;
    }
    let own = |h: &str| own_of[&head_key(h)];
    let support_of = |h: &str| {
        let ws: HashSet<String> = words(h).collect();
        let total: usize = ws.iter().map(|w| support[w] - 1).sum();
        total as f64 / ws.len().max(4) as f64
    };
    (0..heads.len())
        .max_by_key(|&i| {
            let h = &heads[i].1;
            (
                own(h),
                (support_of(h) * 1e6).round() as i64,
                inside[&head_key(h)],
                rep_head == Some(i),
                std::cmp::Reverse(norm(h)),
                std::cmp::Reverse(h.clone()),
            )
        })
        .map(|i| heads[i].1.clone())
}

/// The site a title is learnt under: the registrable domain (sections on subdomains share
/// their site's words; a page read without a URL has only the domain its links point to).
pub fn title_site(doc: &Document) -> &str {
    if doc.site.registrable.is_empty() {
        &doc.site.henzinger
    } else {
        &doc.site.registrable
    }
}

impl Titles {
    /// Learn from every page of a collection.
    pub fn of_documents(docs: &[Document]) -> Titles {
        Titles::learn(
            docs.iter()
                .filter_map(|d| Some((title_site(d), d.title.as_deref()?))),
        )
    }

    /// The title of the cluster of `members` (the representative first).
    pub fn of_members(&self, docs: &[Document], members: &[DocId]) -> Option<String> {
        self.story_title(members.iter().map(|m| {
            let d = &docs[m.index()];
            (title_site(d), d.title.as_deref())
        }))
    }

    /// Every cluster's title, by cluster id: the representative first, then the members in
    /// id order.
    pub fn of_clustering(&self, docs: &[Document], clustering: &Clustering) -> Vec<Option<String>> {
        clustering
            .members()
            .into_iter()
            .enumerate()
            .map(|(c, mut members)| {
                if let Some(&rep) = clustering.representatives.get(c)
                    && let Some(at) = members.iter().position(|&m| m == rep)
                {
                    members[..=at].rotate_right(1);
                }
                self.of_members(docs, &members)
            })
            .collect()
    }
}

/// Each cluster's title in a project's run: `pages` are the project's pages (their stored
/// sites and titles teach what each site repeats), `clusters` the run's clusters (the
/// representative named first where it is still a member). By cluster id.
pub fn of_run_clusters<'a>(
    pages: impl IntoIterator<Item = &'a crate::store::runs::Page> + Clone,
    clusters: &[crate::store::codes::RunCluster],
) -> HashMap<i64, Option<String>> {
    // A page without a site is learnt under "", as [`Titles::of_documents`] does.
    let titles = Titles::learn(pages.clone().into_iter().filter_map(|p| {
        Some((
            p.identity.site.as_deref().unwrap_or_default(),
            p.identity.title.as_deref()?,
        ))
    }));
    let by_id: HashMap<_, _> = pages.into_iter().map(|p| (p.id, &p.identity)).collect();
    clusters
        .iter()
        .map(|c| {
            let mut members = c.members.clone();
            if let Some(r) = c.representative
                && let Some(at) = members.iter().position(|&m| m == r)
            {
                members[..=at].rotate_right(1);
            }
            let title = titles.story_title(members.iter().filter_map(|m| {
                let id = by_id.get(m)?;
                Some((id.site.as_deref().unwrap_or_default(), id.title.as_deref()))
            }));
            (c.id, title)
        })
        .collect()
}

/// One page of a cluster as [`cluster_story`] reads it.
#[derive(Debug, Clone)]
pub struct StoryPage<'a> {
    /// Its title and headline, as its site's task found them
    /// ([`Titles::of_one_site`]).
    pub headed: Headed<'a>,
    /// Its site, publication date and capture, as the story's spread reads them.
    pub member: Member,
}

/// What `run --clusters` says of a cluster besides its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Story {
    /// The cluster's title ([`story_title_of`]).
    pub title: Option<String>,
    /// By member: whether it is among the first publishers (never in a cluster of one).
    pub first: Vec<bool>,
    /// By member: its lag after the first publishers, in seconds.
    pub lag_seconds: Vec<Option<i64>>,
}

/// The story of one cluster: `pages` are its pages in page order and `representative` the
/// representative's place among them. The title is read with the representative first, then
/// the others in page order ([`Titles::of_clustering`]); the spread is that
/// of [`crate::dates::spread::of_clusters`].
pub fn cluster_story(pages: &[StoryPage], representative: Option<usize>) -> Story {
    let order = representative
        .into_iter()
        .chain((0..pages.len()).filter(|&i| Some(i) != representative));
    let title = story_title_of(order.map(|i| pages[i].headed.clone()));
    let members: Vec<Member> = pages.iter().map(|p| p.member.clone()).collect();
    let s = spread(&members);
    let mut first = vec![false; pages.len()];
    if pages.len() > 1 {
        for &i in &s.first {
            first[i] = true;
        }
    }
    Story {
        title,
        first,
        lag_seconds: s.lag_seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_cut_at_their_separators() {
        let ps: Vec<&str> = parts("AP Wire | 01/25/2007 | Crist signs insurance bill")
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        assert_eq!(ps, ["AP Wire", "01/25/2007", "Crist signs insurance bill"]);
        let ps: Vec<&str> = parts("1 Dead in Tacoma School Shooting :: WRAL.com")
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        assert_eq!(ps, ["1 Dead in Tacoma School Shooting", "WRAL.com"]);
    }

    #[test]
    fn a_headline_leaves_out_the_site_its_sections_and_dates() {
        let sw = Titles::default();
        assert_eq!(
            sw.headline(
                "forbes.com",
                "Coffee Shouldn't Boost Preemie Birth Risk: Study - Forbes.com"
            )
            .as_deref(),
            Some("Coffee Shouldn't Boost Preemie Birth Risk: Study")
        );
        assert_eq!(
            sw.headline(
                "ctv.ca",
                "CTV.ca | NBA legend Michael Jordan, wife, file for divorce"
            )
            .as_deref(),
            Some("NBA legend Michael Jordan, wife, file for divorce")
        );
        assert_eq!(
            sw.headline(
                "miami.com",
                "AP Wire | 01/25/2007 | Crist signs insurance bill"
            )
            .as_deref(),
            Some("Crist signs insurance bill")
        );
        assert_eq!(sw.headline("x.com", "Latest News | News").as_deref(), None);
    }

    #[test]
    fn a_short_headline_that_names_its_site_stays() {
        let sw = Titles::default();
        assert_eq!(
            sw.headline("apple.com", "Apple unveils iPhone - Apple")
                .as_deref(),
            Some("Apple unveils iPhone")
        );
        assert_eq!(
            sw.headline("time.com", "Time to act on climate - TIME")
                .as_deref(),
            Some("Time to act on climate")
        );
        // The site's name with a section word is the site's.
        assert_eq!(
            sw.headline("wishtv.com", "WISH-TV News - Judge: Saddam to be executed")
                .as_deref(),
            Some("Judge: Saddam to be executed")
        );
    }

    #[test]
    fn what_a_site_repeats_around_different_headlines_is_its_own() {
        let pages = [
            ("msnbc.com", "Pilots broke rule - U.S. Life - Daily Bugle"),
            (
                "msnbc.com",
                "Oprah returns to books - U.S. Life - Daily Bugle",
            ),
            (
                "msnbc.com",
                "Oprah returns to books - Top Stories - Daily Bugle",
            ),
        ];
        let sw = Titles::learn(pages);
        assert_eq!(
            sw.headline("msnbc.com", pages[0].1).as_deref(),
            Some("Pilots broke rule")
        );
        // The headline that recurs in two of the site's titles is the longest part of both:
        // not the site's own.
        assert_eq!(
            sw.headline("msnbc.com", pages[2].1).as_deref(),
            Some("Oprah returns to books")
        );
        // Another site is not told by this one's words.
        assert_eq!(
            sw.headline("other.org", "U.S. Life - Daily Bugle")
                .as_deref(),
            Some("U.S. Life - Daily Bugle")
        );
    }

    #[test]
    fn a_cluster_is_named_by_the_headline_its_members_share() {
        let sw = Titles::default();
        let members = [
            ("salon.com", Some("Salon.com | News Wires")),
            ("a.com", Some("Fashion week opens in Paris")),
            ("b.com", Some("New York plans official city condom")),
            (
                "c.com",
                Some("CANOE -- CNEWS - Weird News: New York plans official city condom"),
            ),
            (
                "d.com",
                Some("New York plans official city condom in memorable package"),
            ),
        ];
        assert_eq!(
            sw.story_title(members).as_deref(),
            Some("New York plans official city condom")
        );
        // Only the site's own words: the representative's raw title.
        let alone = [
            ("salon.com", Some("Salon.com | News Wires")),
            ("x.com", None),
        ];
        assert_eq!(
            sw.story_title(alone).as_deref(),
            Some("Salon.com | News Wires")
        );
        assert_eq!(sw.story_title([("x.com", None)]), None);
    }

    #[test]
    fn the_title_does_not_hang_on_the_order_of_the_other_members() {
        let sw = Titles::default();
        let members = [
            (
                "rep.com",
                Some("Rep Site | Pelosi bans smoking near House floor"),
            ),
            ("a.com", Some("Pelosi Bans Smoking Near House Floor")),
            ("b.com", Some("Pelosi bans smoking near House floor")),
            (
                "c.com",
                Some("Pelosi Bans Smoking Near House Floor - C News"),
            ),
            ("d.com", Some("Top Stories")),
        ];
        let first = sw.story_title(members);
        let mut rest = members[1..].to_vec();
        for _ in 0..rest.len() {
            rest.rotate_left(1);
            let order = std::iter::once(members[0]).chain(rest.iter().copied());
            assert_eq!(sw.story_title(order), first);
        }
        rest.reverse();
        let order = std::iter::once(members[0]).chain(rest.iter().copied());
        assert_eq!(sw.story_title(order), first);
    }

    /// Headlines learnt a site at a time and each cluster's story apart give the titles,
    /// first publishers and lags of the whole collection's ([`Titles::learn`],
    /// [`of_clusters`]).
    #[test]
    fn stories_by_site_and_by_cluster_are_the_collections() {
        use crate::dates::spread::of_clusters;
        use crate::dates::{DateSource, Published};
        // Three sites framing their titles; stories syndicated across them.
        let sites = ["a.com", "b.org", "", "c.net"];
        let stories = [
            "Mayor opens the new bridge",
            "Storm closes schools across the state",
            "Council votes on the budget",
            "Local team wins the cup",
        ];
        // A page: its number, site, title, date and cluster.
        type Page<'a> = (usize, &'a str, Option<String>, Option<Published>, u32);
        let mut pages: Vec<Page> = Vec::new();
        for i in 0..60usize {
            let site = sites[i % sites.len()];
            let story = (i * 7 / 5) % stories.len();
            let title = match i % 5 {
                0 => None,
                1 => Some(format!("{} | {site} News", stories[story])),
                2 => Some(format!("Front page - {site}")),
                _ => Some(format!("{site}: {}", stories[story])),
            };
            let day = 1 + (i * 13) % 5;
            let published = Published::from_stored(
                Some(&format!("2024-03-0{day}T{:02}:00:00+01:00", i % 24)),
                Some(if i % 3 == 0 { "capture" } else { "meta" }),
            );
            let cluster = if i % 11 == 0 {
                100 + i as u32
            } else {
                story as u32
            };
            pages.push((i, site, title, published, cluster));
        }
        assert!(
            pages
                .iter()
                .any(|p| p.3.is_some_and(|p| p.source == DateSource::Capture))
        );
        // Clusters numbered densely, as a clustering numbers them.
        let mut numbers: Vec<u32> = pages.iter().map(|p| p.4).collect();
        numbers.sort_unstable();
        numbers.dedup();
        let cluster_of: Vec<u32> = (pages.iter())
            .map(|p| numbers.binary_search(&p.4).unwrap() as u32)
            .collect();
        let member = |i: usize| Member {
            site: pages[i].1.to_string(),
            published: pages[i].3,
            captured: None,
        };
        // The whole collection at once.
        let titles = Titles::learn((pages.iter()).filter_map(|p| Some((p.1, p.2.as_deref()?))));
        let whole = of_clusters(&cluster_of, member);
        // A site at a time.
        let mut headed: Vec<Option<Headed>> = vec![None; pages.len()];
        for site in sites {
            let mine: Vec<usize> = (0..pages.len()).filter(|&i| pages[i].1 == site).collect();
            let titles: Vec<Option<&str>> = mine.iter().map(|&i| pages[i].2.as_deref()).collect();
            for (&i, h) in mine.iter().zip(Titles::of_one_site(site, &titles)) {
                headed[i] = Some(h);
            }
        }
        let mut framed = 0;
        for c in 0..numbers.len() as u32 {
            let members: Vec<usize> = (0..pages.len()).filter(|&i| cluster_of[i] == c).collect();
            let rep = members.len() / 2;
            let story_pages: Vec<StoryPage> = (members.iter())
                .map(|&i| StoryPage {
                    headed: headed[i].clone().unwrap(),
                    member: member(i),
                })
                .collect();
            let story = cluster_story(&story_pages, Some(rep));
            let mut order = members.clone();
            order[..=rep].rotate_right(1);
            let expected =
                titles.story_title(order.iter().map(|&i| (pages[i].1, pages[i].2.as_deref())));
            assert_eq!(story.title, expected, "cluster {c}");
            framed += usize::from(
                expected.is_some()
                    && members
                        .iter()
                        .any(|&i| pages[i].2.as_ref() != expected.as_ref()),
            );
            for (k, &i) in members.iter().enumerate() {
                assert_eq!(story.first[k], whole.first[i], "page {i}");
                assert_eq!(story.lag_seconds[k], whole.lag_seconds[i], "page {i}");
            }
        }
        assert!(framed > 0, "no title had its site's words taken out");
        assert!(
            whole.first.iter().any(|&f| f)
                && whole.lag_seconds.iter().any(|l| l.is_some_and(|l| l > 0))
        );
    }
}
