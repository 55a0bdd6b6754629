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

use serde::{Deserialize, Serialize};

/// Where a page's publication date was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DateSource {
    /// `<meta>`, microdata (`itemprop`) or microformats (`class="published"`).
    Meta,
    /// A JSON-LD block's `datePublished` (or `dateCreated`, `dateModified`).
    JsonLd,
    /// A `<time datetime>` element.
    Time,
    /// The URL's path.
    Url,
    /// The visible text.
    Text,
    /// No date in the page: its capture time.
    Capture,
}

impl DateSource {
    /// The name exports and the workbench show (`meta`, `json-ld`, `time`, `url`, `text`,
    /// `capture`).
    pub fn name(self) -> &'static str {
        match self {
            DateSource::Meta => "meta",
            DateSource::JsonLd => "json-ld",
            DateSource::Time => "time",
            DateSource::Url => "url",
            DateSource::Text => "text",
            DateSource::Capture => "capture",
        }
    }

    /// The source [`DateSource::name`] names.
    pub fn from_name(name: &str) -> Option<DateSource> {
        [
            DateSource::Meta,
            DateSource::JsonLd,
            DateSource::Time,
            DateSource::Url,
            DateSource::Text,
            DateSource::Capture,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// A point in time as a page writes it: seconds since 1970 UTC, the offset it was written in,
/// and whether a time of day was given (else the time is midnight of the day in that offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Instant {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub utc: i64,
    /// The UTC offset the page wrote, in minutes (0 when it wrote none).
    pub offset_minutes: i16,
    /// Whether a time of day was given.
    pub has_time: bool,
}

impl Instant {
    /// Midnight of a calendar day (no time of day, no offset).
    pub fn day(year: i32, month: u32, day: u32) -> Option<Instant> {
        valid_ymd(year, month, day).then(|| Instant {
            utc: days_from_civil(year, month, day) * 86_400,
            offset_minutes: 0,
            has_time: false,
        })
    }

    /// The calendar day as the page wrote it (in its own offset), in days since 1970-01-01.
    pub fn local_day(self) -> i64 {
        (self.utc + i64::from(self.offset_minutes) * 60).div_euclid(86_400)
    }

    /// `2006-05-03`, or `2006-05-03T10:20:30+02:00` when a time of day was given.
    pub fn iso(self) -> String {
        let (y, m, d) = civil_from_days(self.local_day());
        if !self.has_time {
            return format!("{y:04}-{m:02}-{d:02}");
        }
        let local = self.utc + i64::from(self.offset_minutes) * 60;
        let secs = local.rem_euclid(86_400);
        let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
        let off = self.offset_minutes;
        if off == 0 {
            return format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z");
        }
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.unsigned_abs();
        format!(
            "{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}{sign}{:02}:{:02}",
            a / 60,
            a % 60
        )
    }

    /// The calendar day (`2006-05-03`).
    pub fn ymd(self) -> String {
        let (y, m, d) = civil_from_days(self.local_day());
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// Parse the date forms metadata uses: ISO 8601 (`2006-05-03`, `2006-05-03T10:20:30Z`,
    /// `…+02:00`, `…+0200`, fractions of a second, a space for the `T`), `2006/05/03`,
    /// `20060503`, a 14-digit archive stamp, and RFC 2822 (`Wed, 03 May 2006 10:20:30 GMT`).
    /// Other text goes through the visible-text patterns.
    pub fn parse(s: &str) -> Option<Instant> {
        let s = s.trim();
        parse_iso(s)
            .or_else(|| parse_rfc2822(s))
            .or_else(|| text::first_date(s, false).map(|(i, _)| i))
    }
}

impl Published {
    /// A date as a project stores it: ISO 8601 and the source's name.
    pub fn from_stored(iso: Option<&str>, source: Option<&str>) -> Option<Published> {
        Some(Published {
            at: parse_iso(iso?)?,
            source: source.and_then(DateSource::from_name)?,
        })
    }
}

/// A page's publication date and where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Published {
    /// When.
    pub at: Instant,
    /// Where it was found.
    pub source: DateSource,
}

/// The publication date of a page: see the module doc for the order of the sources. `capture`
/// is the capture date as [`crate::document::Document::date`] holds it (ISO 8601); without one,
/// no date is rejected for being late and there is no fallback.
pub fn publication(html: &str, url: Option<&str>, capture: Option<&str>) -> Option<Published> {
    let captured = capture.and_then(parse_iso);
    let bound = Bound { captured };
    let found = markup::scan(html);
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
        if !(i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
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

/// ISO 8601 and the close forms metadata writes (and [`crate::document::Document::date`]
/// holds); see [`Instant::parse`].
pub fn parse_iso(s: &str) -> Option<Instant> {
    let b = s.trim().as_bytes();
    let num = |from: usize, n: usize| -> Option<i64> {
        let s = b.get(from..from + n)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| s.iter().fold(0, |a, d| a * 10 + i64::from(d - b'0')))
    };
    let year = num(0, 4)?;
    // 20060503, 20060503102030 (an archive stamp).
    let (month, day, mut i) = if let (Some(m), Some(d)) = (num(4, 2), num(6, 2)) {
        (m, d, 8)
    } else {
        let sep = *b.get(4)?;
        if !matches!(sep, b'-' | b'/' | b'.') || b.get(7) != Some(&sep) {
            return None;
        }
        (num(5, 2)?, num(8, 2)?, 10)
    };
    if b.len() > i && b[i].is_ascii_digit() && i == 8 && b.len() < 14 {
        return None;
    }
    let mut at = Instant::day(year as i32, month as u32, day as u32)?;
    // Time of day: `T10:20`, ` 10:20:30`, `102030` right after an 8-digit date.
    let compact = i == 8 && num(8, 6).is_some();
    if compact || (matches!(b.get(i), Some(b'T' | b't' | b' ')) && num(i + 1, 2).is_some()) {
        let (hh, mm, ss);
        if compact {
            hh = num(8, 2)?;
            mm = num(10, 2)?;
            ss = num(12, 2)?;
            i = 14;
        } else {
            i += 1;
            hh = num(i, 2)?;
            i += 2;
            if b.get(i) == Some(&b':') {
                i += 1;
            }
            mm = num(i, 2).unwrap_or(0);
            i += 2;
            ss = if b.get(i) == Some(&b':') {
                i += 1;
                let s = num(i, 2).unwrap_or(0);
                i += 2;
                s
            } else {
                0
            };
            if matches!(b.get(i), Some(b'.' | b',')) {
                i += 1;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
        }
        if hh > 23 || mm > 59 || ss > 60 {
            return Some(at);
        }
        let offset = match b.get(i) {
            Some(&c @ (b'+' | b'-')) => {
                let oh = num(i + 1, 2)?;
                let om_at = if b.get(i + 3) == Some(&b':') {
                    i + 4
                } else {
                    i + 3
                };
                let om = num(om_at, 2).unwrap_or(0);
                let m = oh * 60 + om;
                if m > 14 * 60 {
                    return Some(at);
                }
                if c == b'-' { -m } else { m }
            }
            _ => 0,
        };
        at.utc += hh * 3600 + mm * 60 + ss - offset * 60;
        at.offset_minutes = offset as i16;
        at.has_time = true;
    }
    Some(at)
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

/// Whether `y-m-d` is a calendar day.
fn valid_ymd(y: i32, m: u32, d: u32) -> bool {
    if !(1..=12).contains(&m) || d == 0 || !(1000..=9999).contains(&y) {
        return false;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    d <= days[m as usize - 1]
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y as i32, m, d)
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
        assert!(!valid_ymd(2006, 2, 29));
        assert!(valid_ymd(2004, 2, 29));
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
            Instant::parse("Wed, 03 May 2006 10:20:30 GMT")
                .unwrap()
                .iso(),
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
