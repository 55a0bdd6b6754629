//! How a story spread: who published a cluster's story first, how long each other copy came
//! after, over how many sites and how long.
//!
//! Each member counts at its publication date ([`super::publication`]), or its capture time when
//! the page gives none. A date read from a page's text (no metadata, no URL) that lies more
//! than [`STORY_DATE_DAYS`] before the cluster's median date is taken for a date the story
//! mentions ("Jordan retired on January 13, 1999"), not its publication: that member counts at
//! its capture, and the source says so. Copies of one story go up within days of each other;
//! the text patterns cannot tell a dateline from a date in the story, the cluster can. Two members of which one has only a day (no time of day) are compared
//! by the day: on the same day they tie. The first publishers are every member tied with the
//! earliest (a tie is named, not broken); a member's lag is its time after theirs (0 on the
//! first's day when either has only a day).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{DateSource, Instant, Published};

/// One member as [`spread`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its site (registrable domain), empty when unknown.
    pub site: String,
    /// Its publication date, when known (its capture otherwise).
    pub published: Option<Published>,
    /// Its capture time, for a text date the cluster does not believe.
    pub captured: Option<Instant>,
}

/// How many days before its cluster's median a date read from text may be.
pub const STORY_DATE_DAYS: i64 = 31;

/// The spread of one cluster. Lists are parallel to the members given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spread {
    /// Indices of the first publishers (several on a tie), in member order.
    pub first: Vec<usize>,
    /// When the first publishers published.
    pub first_at: Option<Instant>,
    /// Each member's lag after the first in seconds (`None` for a member without any date).
    pub lag_seconds: Vec<Option<i64>>,
    /// Number of distinct known sites.
    pub sites: usize,
    /// From the first publication to the last, in seconds.
    pub span_seconds: i64,
    /// How many members are dated by the page itself (not by their capture).
    pub dated_by_page: usize,
    /// Each member's date as the spread counts it ([`believed`]), parallel to the members.
    pub dates: Vec<Option<Published>>,
}

/// Whether `a` and `b` are the same moment at the precision both have.
fn ties(a: Instant, b: Instant) -> bool {
    if a.has_time && b.has_time {
        a.utc == b.utc
    } else {
        a.local_day() == b.local_day()
    }
}

/// `b - a` in seconds at the precision both have.
fn after(a: Instant, b: Instant) -> i64 {
    if a.has_time && b.has_time {
        b.utc - a.utc
    } else {
        (b.local_day() - a.local_day()) * 86_400
    }
}

/// A sort key: the time, or midnight UTC of a day without a time (so that a day sorts before
/// the times written on it, and ties are decided by [`ties`]).
fn key(a: Instant) -> i64 {
    if a.has_time {
        a.utc
    } else {
        a.local_day() * 86_400
    }
}

/// The date each member counts at: see the module doc.
fn believed(members: &[Member]) -> Vec<Option<Published>> {
    let mut days: Vec<i64> = members
        .iter()
        .filter_map(|m| m.published.map(|p| p.at.local_day()))
        .collect();
    days.sort_unstable();
    let Some(&median) = days.get(days.len() / 2) else {
        return members.iter().map(|m| m.published).collect();
    };
    members
        .iter()
        .map(|m| match m.published {
            Some(p)
                if p.source == DateSource::Text && p.at.local_day() < median - STORY_DATE_DAYS =>
            {
                m.captured.map(|at| Published {
                    at,
                    source: DateSource::Capture,
                })
            }
            other => other,
        })
        .collect()
}

/// The spread of a cluster's members.
pub fn spread(members: &[Member]) -> Spread {
    let believed = believed(members);
    let at: Vec<Option<Instant>> = believed.iter().map(|p| p.map(|p| p.at)).collect();
    let earliest = at
        .iter()
        .flatten()
        .copied()
        .min_by_key(|&a| (key(a), !a.has_time));
    let first: Vec<usize> = match earliest {
        Some(e) => (0..members.len())
            .filter(|&i| at[i].is_some_and(|a| ties(a, e)))
            .collect(),
        None => vec![],
    };
    // Lags are measured from the most precise of the first: a time of day where one has it.
    let earliest = first
        .iter()
        .filter_map(|&i| at[i])
        .filter(|a| a.has_time)
        .min_by_key(|a| a.utc)
        .or(earliest);
    // The first are those tied with that reference: a time of day later on the same day is
    // not first, a member with only that day is.
    let first: Vec<usize> = match earliest {
        Some(e) => first
            .into_iter()
            .filter(|&i| at[i].is_some_and(|a| ties(a, e)))
            .collect(),
        None => first,
    };
    let lag_seconds: Vec<Option<i64>> = at
        .iter()
        .map(|a| Some(after(earliest?, (*a)?).max(0)))
        .collect();
    let span_seconds = lag_seconds.iter().flatten().copied().max().unwrap_or(0);
    let sites: BTreeSet<&str> = members
        .iter()
        .map(|m| m.site.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    Spread {
        first,
        first_at: earliest,
        lag_seconds,
        sites: sites.len(),
        span_seconds,
        dated_by_page: believed
            .iter()
            .filter(|p| p.is_some_and(|p| p.source != DateSource::Capture))
            .count(),
        dates: believed,
    }
}

/// The spread of every cluster of a clustering, and each page's part in its cluster's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spreads {
    /// By cluster number; `first` holds page indices, `lag_seconds` the members' lags in
    /// page order.
    pub clusters: Vec<Spread>,
    /// By page: whether it is among its cluster's first publishers (never for a page alone).
    pub first: Vec<bool>,
    /// By page: its lag after its cluster's first publishers.
    pub lag_seconds: Vec<Option<i64>>,
}

/// [`spread`] of each cluster, pages numbered `0..cluster_of.len()` and `member(i)` describing
/// page `i`.
pub fn of_clusters(cluster_of: &[u32], member: impl Fn(usize) -> Member) -> Spreads {
    let n_clusters = cluster_of
        .iter()
        .map(|&c| c as usize + 1)
        .max()
        .unwrap_or(0);
    let mut pages: Vec<Vec<usize>> = vec![Vec::new(); n_clusters];
    for (i, &c) in cluster_of.iter().enumerate() {
        pages[c as usize].push(i);
    }
    let mut out = Spreads {
        clusters: Vec::with_capacity(n_clusters),
        first: vec![false; cluster_of.len()],
        lag_seconds: vec![None; cluster_of.len()],
    };
    for members in pages {
        let described: Vec<Member> = members.iter().map(|&i| member(i)).collect();
        let mut s = spread(&described);
        s.first = s.first.iter().map(|&k| members[k]).collect();
        for (k, &i) in members.iter().enumerate() {
            out.lag_seconds[i] = s.lag_seconds[k];
        }
        if members.len() > 1 {
            for &i in &s.first {
                out.first[i] = true;
            }
        }
        out.clusters.push(s);
    }
    out
}

/// A lag or span for people: `0`, `45 min`, `5 h`, `3 d 4 h`.
pub fn human(seconds: i64) -> String {
    let s = seconds.abs();
    let sign = if seconds < 0 { "-" } else { "" };
    match s {
        0 => "0".into(),
        1..=3599 => format!("{sign}{} min", (s + 59) / 60),
        3600..=86_399 => format!("{sign}{} h", s / 3600),
        _ if s % 86_400 < 3600 => format!("{sign}{} d", s / 86_400),
        _ => format!("{sign}{} d {} h", s / 86_400, s % 86_400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(iso: &str, source: DateSource) -> Option<Published> {
        Some(Published {
            at: super::super::parse_iso(iso).unwrap(),
            source,
        })
    }

    fn member(site: &str, p: Option<Published>) -> Member {
        Member {
            site: site.into(),
            published: p,
            captured: None,
        }
    }

    #[test]
    fn first_publisher_lags_and_ties() {
        let m = [
            member("b.com", at("2024-03-02T10:00:00Z", DateSource::Meta)),
            member("a.com", at("2024-03-01T08:00:00Z", DateSource::Meta)),
            member("c.com", at("2024-03-01", DateSource::Text)),
            member("d.com", at("2024-03-04T00:00:00Z", DateSource::Capture)),
            member("", None),
        ];
        let s = spread(&m);
        // a.com's time and c.com's day are the same day: a tie, named.
        assert_eq!(s.first, vec![1, 2]);
        assert_eq!(s.lag_seconds[0], Some(86_400 + 2 * 3600));
        assert_eq!(s.lag_seconds[2], Some(0));
        assert_eq!(s.lag_seconds[3], Some(3 * 86_400 - 8 * 3600));
        assert_eq!(s.lag_seconds[4], None);
        assert_eq!(s.sites, 4);
        assert_eq!(s.span_seconds, 3 * 86_400 - 8 * 3600);
        assert_eq!(s.dated_by_page, 3);
        assert!(spread(&[]).first.is_empty());
        assert_eq!(human(0), "0");
        assert_eq!(human(90), "2 min");
        assert_eq!(human(5 * 3600), "5 h");
        assert_eq!(human(3 * 86_400 + 4 * 3600), "3 d 4 h");
    }

    #[test]
    fn a_date_the_story_mentions_is_not_its_publication() {
        let mut m = vec![
            member("a.com", at("2007-01-25", DateSource::Text)),
            member("b.com", at("2007-01-26", DateSource::Meta)),
            member("c.com", at("1999-01-13", DateSource::Text)),
        ];
        m[2].captured = super::super::parse_iso("2007-01-27T10:00:00Z");
        let s = spread(&m);
        assert_eq!(s.first, vec![0]);
        assert_eq!(s.lag_seconds[2], Some(2 * 86_400));
        // Metadata is believed even when early.
        m[2].published = at("1999-01-13", DateSource::Meta);
        assert_eq!(spread(&m).first, vec![2]);
    }
}
