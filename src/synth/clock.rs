//! Capture and publication times of the synthetic archive, and the ways sites and protocols
//! write them.
//!
//! In: seconds since the Unix epoch (UTC). Out: `WARC-Date` (ISO 8601 with `Z`, WARC 1.1 §5.4),
//! the HTTP `Date` header (RFC 9110 IMF-fixdate) and the date lines news sites print. No time
//! zone database is needed: everything is UTC.

use super::words::{MONTHS, WEEKDAYS};

/// Index in [`WEEKDAYS`] (Monday first) of 1970-01-01, a Thursday.
const EPOCH_WEEKDAY: usize = 3;

/// A UTC instant, whole seconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(pub u64);

/// A broken-down UTC date and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year, e.g. 2024.
    pub year: i64,
    /// Month 1–12.
    pub month: u32,
    /// Day of month 1–31.
    pub day: u32,
    /// Hour 0–23.
    pub hour: u32,
    /// Minute 0–59.
    pub minute: u32,
    /// Second 0–59.
    pub second: u32,
    /// Day of the week, 0 = Thursday (the epoch's weekday); see [`Civil::weekday_name`].
    weekday: usize,
}

impl Civil {
    /// The English name of the weekday.
    pub fn weekday_name(&self) -> &'static str {
        WEEKDAYS[(self.weekday + EPOCH_WEEKDAY) % 7]
    }

    /// The English name of the month.
    pub fn month_name(&self) -> &'static str {
        MONTHS[(self.month as usize).saturating_sub(1) % 12]
    }
}

impl Instant {
    /// 2024-03-01T00:00:00Z, where the synthetic crawl begins.
    pub const CRAWL_START: Instant = Instant(1_709_251_200);

    /// Break the instant down ([`crate::dates::civil_from_days`]).
    pub fn civil(self) -> Civil {
        let days = (self.0 / 86_400) as i64;
        let secs = (self.0 % 86_400) as u32;
        let (year, month, day) = crate::dates::civil_from_days(days);
        let year = i64::from(year);
        Civil {
            year,
            month,
            day,
            hour: secs / 3_600,
            minute: secs / 60 % 60,
            second: secs % 60,
            weekday: days.rem_euclid(7) as usize,
        }
    }

    /// `2024-03-05T08:15:00Z`, as `WARC-Date` wants it.
    pub fn warc_date(self) -> String {
        let c = self.civil();
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            c.year, c.month, c.day, c.hour, c.minute, c.second
        )
    }

    /// `Tue, 05 Mar 2024 08:15:00 GMT`, the HTTP `Date` / `Last-Modified` form.
    pub fn http_date(self) -> String {
        let c = self.civil();
        format!(
            "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
            &c.weekday_name()[..3],
            c.day,
            &c.month_name()[..3],
            c.year,
            c.hour,
            c.minute,
            c.second
        )
    }

    /// `20240305`, for URLs.
    pub fn ymd_path(self) -> String {
        let c = self.civil();
        format!("{:04}/{:02}/{:02}", c.year, c.month, c.day)
    }

    /// The instant `secs` seconds later.
    pub fn plus(self, secs: u64) -> Instant {
        Instant(self.0 + secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(Instant(0).warc_date(), "1970-01-01T00:00:00Z");
        assert_eq!(Instant::CRAWL_START.warc_date(), "2024-03-01T00:00:00Z");
        assert_eq!(
            Instant::CRAWL_START.http_date(),
            "Fri, 01 Mar 2024 00:00:00 GMT"
        );
        let leap = Instant(1_709_164_800 + 3_723); // 2024-02-29 01:02:03
        assert_eq!(leap.warc_date(), "2024-02-29T01:02:03Z");
        assert_eq!(leap.civil().weekday_name(), "Thursday");
        assert_eq!(leap.ymd_path(), "2024/02/29");
    }
}
