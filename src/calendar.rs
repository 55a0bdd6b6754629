//! Calendar days and instants as web pages write them: [`Instant`] (seconds since 1970 UTC,
//! the offset written, whether a time of day was given), a page's [`Published`] date and its
//! [`DateSource`], ISO 8601 parsing and the proleptic Gregorian calendar. A leaf: the page
//! readers store these ([`crate::document::Document::published`]) and [`crate::dates`] finds
//! them.

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

/// ISO 8601 and the close forms metadata writes (and [`crate::document::Document::date`]
/// holds); see [`crate::dates::parse_date`].
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

/// Whether `y-m-d` is a calendar day.
pub fn valid_ymd(y: i32, m: u32, d: u32) -> bool {
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
