//! Publication dates: when a page says its story was published, not only when it was captured.
//!
//! [`publication`] reads a decoded page once and looks, in this order of trust, at
//!
//! 1. its metadata: `<meta>` of the publishing conventions (`article:published_time`,
//!    `datePublished`, Dublin Core, Parse.ly, Sailthru, citation, …), microdata (`itemprop`),
//!    microformats (`class="published"`, `dt-published`) ([`DateSource::Meta`]);
//! 2. JSON-LD `datePublished` / `dateCreated` ([`DateSource::JsonLd`]);
//! 3. a `<time>` marked as the publication (`pubdate`, a `published` / `entry-date` class)
//!    ([`DateSource::Time`]);
//! 4. the URL's date (`/2006/05/03/`, `2006-05-03`, `20060503`); for a page read from a folder,
//!    the URL it declares (`<link rel="canonical">`, `og:url`) ([`DateSource::Url`]);
//! 5. the visible text: a date after a word saying "published" in the page's languages
//!    ("Posted on", "veröffentlicht am", "publié le"), then the first `<time datetime>`, then a
//!    modification date of the metadata, then the dateline: the first date after the headline
//!    ([`DateSource::Text`]); a URL's year and month, a text's month and year;
//! 6. else the capture ([`DateSource::Capture`]).
//!
//! A date after the page's capture is not a publication date (the page did not exist yet): it is
//! passed over for the next, and a time of day later than the capture on the capture's own day
//! is dropped, keeping the day. Dates before 1994 are not web publication dates either.
//!
//! This is htmldate's approach (Barbaresi, JOSS 2020: metadata first, then URL, then text
//! patterns, with plausibility bounds) in one pass over the bytes and without a DOM: why it is
//! hand-written is measured in `benches/dates.rs` (accuracy on the same day and pages per
//! second against htmldate's extensive mode on pages of the shared archives).

mod markup;
pub mod spread;
mod text;

pub use crate::calendar::{
    DateSource, Instant, Published, civil_from_days, days_from_civil, parse_iso,
};

/// Parse the date forms metadata uses: ISO 8601 (`2006-05-03`, `2006-05-03T10:20:30Z`,
/// `…+02:00`, `…+0200`, fractions of a second, a space for the `T`), `2006/05/03`,
/// `20060503`, a 14-digit archive stamp, and RFC 2822 (`Wed, 03 May 2006 10:20:30 GMT`).
/// Other text goes through the visible-text patterns.
pub fn parse_date(s: &str) -> Option<Instant> {
    let s = s.trim();
    parse_iso(s)
        .or_else(|| parse_rfc2822(s))
        .or_else(|| text::first_date(s, false).map(|(i, _)| i))
}

/// The largest visible-text buffer a thread keeps for its next page (as the readers keep
/// theirs).
const KEEP_TEXT: usize = 4 << 20;

/// The publication date of a page: see the module doc for the order of the sources. `capture`
/// is the capture date as [`crate::document::Document::date`] holds it (ISO 8601); without one,
/// no date is rejected for being late and there is no fallback.
pub fn publication(html: &str, url: Option<&str>, capture: Option<&str>) -> Option<Published> {
    let captured = capture.and_then(parse_iso);
    let bound = Bound { captured };
    thread_local! {
        static TEXT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let buffer = TEXT.with(|t| std::mem::take(&mut *t.borrow_mut()));
    let found = markup::scan(html, buffer);
    let published = from_found(&found, url, bound);
    // A long page's text is not kept for the next page (a 60 MB page's held 100 MB).
    if found.text.capacity() <= KEEP_TEXT {
        TEXT.with(|t| *t.borrow_mut() = found.text);
    }
    published
}

/// [`publication`] from what the scan found.
fn from_found(found: &markup::Found, url: Option<&str>, bound: Bound) -> Option<Published> {
    let captured = bound.captured;
    let pick = |c: Option<Instant>| c.and_then(|i| bound.admit(i));
    let first = |list: &[Instant]| list.iter().find_map(|&i| bound.admit(i));
    let url_dates = url
        .or(found.canonical.as_deref())
        .map(url_date)
        .unwrap_or_default();
    let found_as = |at: Option<Instant>, source| at.map(|at| Published { at, source });
    let before_text = [
        (first(&found.meta_published), DateSource::Meta),
        (first(&found.json_published), DateSource::JsonLd),
        (first(&found.time_published), DateSource::Time),
        (pick(url_dates.0), DateSource::Url),
    ];
    if let Some(p) = before_text.into_iter().find_map(|(at, s)| found_as(at, s)) {
        return Some(p);
    }
    // The text is read only when the markup and the URL have no publication date.
    let text = text::Dates::find(&found.text, found.headline);
    let rest = [
        (first(&text.after_keyword), DateSource::Text),
        (first(&found.time_any), DateSource::Time),
        (first(&found.meta_modified), DateSource::Meta),
        (first(&found.json_modified), DateSource::JsonLd),
        (first(&text.dateline), DateSource::Text),
        (pick(url_dates.1), DateSource::Url),
        (first(&text.months), DateSource::Text),
    ];
    rest.into_iter()
        .find_map(|(at, s)| found_as(at, s))
        .or_else(|| {
            captured.map(|at| Published {
                at,
                source: DateSource::Capture,
            })
        })
}

/// The plausibility bounds: from 1994 (the first news sites) to the capture.
#[derive(Clone, Copy)]
struct Bound {
    captured: Option<Instant>,
}

impl Bound {
    /// `at` if plausible; a time of day later than the capture on its day is dropped.
    fn admit(&self, at: Instant) -> Option<Instant> {
        if at.local_day() < days_from_civil(1994, 1, 1) {
            return None;
        }
        let Some(cap) = self.captured else {
            return Some(at);
        };
        let cap_day = cap.utc.div_euclid(86_400);
        if at.local_day() > cap_day {
            return None;
        }
        if at.utc > cap.utc {
            // Same day, later hour: the page's clock or time zone, not a later publication.
            return Some(Instant {
                utc: at.local_day() * 86_400,
                offset_minutes: 0,
                has_time: false,
            });
        }
        Some(at)
    }
}

/// The URL's date: a full date (`/2006/05/03/`, `/2006-05-03`, `/20060503`) and, failing that, a
/// year and month (`/2006/05/`), as the first of the month.
fn url_date(url: &str) -> (Option<Instant>, Option<Instant>) {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("", |p| &rest[p..]));
    let b = path.as_bytes();
    let digits = |from: usize, n: usize| -> Option<u32> {
        let s = b.get(from..from + n)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| s.iter().fold(0, |a, d| a * 10 + u32::from(d - b'0')))
    };
    let mut partial = None;
    for i in 0..b.len() {
        // A year starts after a separator and is 19xx or 20xx.
        if i != 0 && b[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let Some(year) = digits(i, 4).filter(|y| (1994..2100).contains(y)) else {
            continue;
        };
        let year = year as i32;
        let after = |n: usize| b.get(i + n).is_none_or(|c| !c.is_ascii_digit());
        // 20060503
        if let (Some(m), Some(d)) = (digits(i + 4, 2), digits(i + 6, 2))
            && after(8)
            && let Some(at) = Instant::day(year, m, d)
        {
            return (Some(at), None);
        }
        let sep = b.get(i + 4).copied();
        if !matches!(sep, Some(b'/' | b'-' | b'_' | b'.')) {
            continue;
        }
        let month_len = if digits(i + 5, 2).is_some() { 2 } else { 1 };
        let Some(m) = digits(i + 5, month_len).filter(|m| (1..=12).contains(m)) else {
            continue;
        };
        let j = i + 5 + month_len;
        if b.get(j) == sep.as_ref() {
            let day_len = if digits(j + 1, 2).is_some() { 2 } else { 1 };
            if let Some(d) = digits(j + 1, day_len)
                && b.get(j + 1 + day_len).is_none_or(|c| !c.is_ascii_digit())
                && let Some(at) = Instant::day(year, m, d)
            {
                return (Some(at), None);
            }
        }
        if b.get(j).is_none_or(|c| !c.is_ascii_alphanumeric()) && partial.is_none() {
            partial = Instant::day(year, m, 1);
        }
    }
    (None, partial)
}

/// `Wed, 03 May 2006 10:20:30 GMT` (RFC 2822, HTTP's `Last-Modified`).
fn parse_rfc2822(s: &str) -> Option<Instant> {
    let rest = s.split_once(',').map_or(s, |(_, r)| r).trim();
    let mut parts = rest.split_whitespace();
    let day: u32 = parts.next()?.parse().ok()?;
    let month = text::month_number(parts.next()?)?;
    let year: i32 = parts.next()?.parse().ok()?;
    let mut at = Instant::day(year, month, day)?;
    if let Some(hms) = parts.next() {
        let f: Vec<i64> = hms.split(':').filter_map(|p| p.parse().ok()).collect();
        if f.len() >= 2 && f[0] < 24 && f[1] < 60 {
            at.utc += f[0] * 3600 + f[1] * 60 + f.get(2).copied().unwrap_or(0);
            at.has_time = true;
        }
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(html: &str, url: Option<&str>, capture: &str) -> (String, DateSource) {
        let p = publication(html, url, Some(capture)).expect("a date");
        (p.at.ymd(), p.source)
    }

    #[test]
    fn civil_round_trip() {
        for z in [-1, 0, 1, 11_000, 13_270, 20_000, 40_000] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(days_from_civil(2006, 5, 3), 13_271);
        assert!(!crate::calendar::valid_ymd(2006, 2, 29));
        assert!(crate::calendar::valid_ymd(2004, 2, 29));
    }

    #[test]
    fn iso_forms() {
        let a = parse_iso("2006-05-03T10:20:30+02:00").unwrap();
        assert_eq!(a.iso(), "2006-05-03T10:20:30+02:00");
        assert_eq!(
            a.utc,
            days_from_civil(2006, 5, 3) * 86_400 + 8 * 3600 + 20 * 60 + 30
        );
        assert_eq!(parse_iso("2006-05-03").unwrap().iso(), "2006-05-03");
        assert_eq!(parse_iso("2006/05/03").unwrap().iso(), "2006-05-03");
        assert_eq!(parse_iso("20060503").unwrap().iso(), "2006-05-03");
        assert_eq!(
            parse_iso("20080430204825").unwrap().iso(),
            "2008-04-30T20:48:25Z"
        );
        assert_eq!(
            parse_iso("2021-11-02 23:30:00.000-0500").unwrap().ymd(),
            "2021-11-02"
        );
        assert!(parse_iso("2006-13-03").is_none());
        assert!(parse_iso("12345").is_none());
        assert_eq!(
            parse_date("Wed, 03 May 2006 10:20:30 GMT").unwrap().iso(),
            "2006-05-03T10:20:30Z"
        );
    }

    #[test]
    fn metadata_before_url_before_text() {
        let cap = "2006-05-10T12:00:00Z";
        let page = r#"<html><head><meta property="article:published_time" content="2006-05-02T08:00:00Z">
            </head><body><h1>Story</h1><p>Posted on May 4, 2006</p></body></html>"#;
        assert_eq!(
            day(page, Some("http://x.com/2006/05/03/story"), cap),
            ("2006-05-02".into(), DateSource::Meta)
        );
        let page = "<html><body><h1>Story</h1><p>Posted on May 4, 2006</p></body></html>";
        assert_eq!(
            day(page, Some("http://x.com/2006/05/03/story"), cap),
            ("2006-05-03".into(), DateSource::Url)
        );
        assert_eq!(
            day(page, Some("http://x.com/story"), cap),
            ("2006-05-04".into(), DateSource::Text)
        );
        assert_eq!(
            day("<html><body><p>nothing</p></body></html>", None, cap),
            ("2006-05-10".into(), DateSource::Capture)
        );
    }

    #[test]
    fn json_ld_time_and_microformats() {
        let cap = "2021-06-10T00:00:00Z";
        let page = r#"<script type="application/ld+json">{"@context":"https://schema.org",
            "@graph":[{"@type":"WebSite","name":"x"},{"@type":"NewsArticle",
            "dateModified":"2021-06-05T10:00:00+02:00","datePublished":"2021-06-01T10:00:00+02:00"}]}
            </script><p>text</p>"#;
        assert_eq!(
            day(page, None, cap),
            ("2021-06-01".into(), DateSource::JsonLd)
        );
        let page = r#"<article><time class="entry-date published" datetime="2021-06-02">2. Juni</time></article>"#;
        assert_eq!(
            day(page, None, cap),
            ("2021-06-02".into(), DateSource::Time)
        );
        let page = r#"<abbr class="published" title="2021-06-03T09:00:00Z">June 3</abbr>"#;
        assert_eq!(
            day(page, None, cap),
            ("2021-06-03".into(), DateSource::Meta)
        );
        let page = r#"<span itemprop="datePublished" content="2021-06-04">4 June</span>"#;
        assert_eq!(
            day(page, None, cap),
            ("2021-06-04".into(), DateSource::Meta)
        );
    }

    #[test]
    fn never_after_the_capture() {
        let cap = "2006-05-10T12:00:00Z";
        let page = r#"<meta name="date" content="2007-01-01"><p>Veröffentlicht am 3. Mai 2006</p>"#;
        assert_eq!(
            day(page, None, cap),
            ("2006-05-03".into(), DateSource::Text)
        );
        let page = r#"<meta name="date" content="2006-05-10T18:00:00Z">"#;
        let p = publication(page, None, Some(cap)).unwrap();
        assert_eq!(p.at.iso(), "2006-05-10");
        assert_eq!(p.source, DateSource::Meta);
        // Before the web: not a publication date.
        let page = "<p>Published: 12 March 1876</p>";
        assert_eq!(day(page, None, cap).1, DateSource::Capture);
    }

    #[test]
    fn url_patterns() {
        let d = |u| url_date(u).0.map(|i| i.ymd());
        assert_eq!(
            d("http://a.com/2006/05/03/x.html").as_deref(),
            Some("2006-05-03")
        );
        assert_eq!(
            d("http://a.com/news/2006-5-3-x").as_deref(),
            Some("2006-05-03")
        );
        assert_eq!(
            d("http://a.com/a/20060503.htm").as_deref(),
            Some("2006-05-03")
        );
        assert_eq!(d("http://a.com/id/200605031234"), None);
        assert_eq!(d("http://2006.com/x"), None);
        assert_eq!(
            url_date("http://a.com/2006/05/story")
                .1
                .map(|i| i.ymd())
                .as_deref(),
            Some("2006-05-01")
        );
    }
}
