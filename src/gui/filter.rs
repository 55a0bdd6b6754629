//! A text filter over many rows that never holds the window: the documents and clusters views
//! look for the filter's text in every page's title, URL and key, a scan of ~0.7 s at a million
//! pages. [`SlicedFilter`] scans a slice of the rows per frame, within [`FRAME_BUDGET`], and the
//! view keeps showing the rows it had (with a spinner) until the scan is complete; a new
//! keystroke starts a new scan. When the new text extends the one scanned (typing on), only
//! what that scan found, and what it had not looked at yet, is scanned: every text containing
//! the longer needle contains the shorter one.

use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one frame spends scanning at most (a 60 Hz frame is 16.7 ms).
pub const FRAME_BUDGET: Duration = Duration::from_millis(8);

/// Rows scanned between two looks at the clock.
const CHUNK: usize = 512;

/// A filter's scan, resumed frame after frame, and the last completed one's matches.
#[derive(Default)]
pub struct SlicedFilter {
    done: Option<Matches>,
    scan: Option<Scan>,
}

/// The matches of a completed scan.
struct Matches {
    needle: String,
    scope: u64,
    rows: Arc<[usize]>,
}

/// A scan under way.
struct Scan {
    needle: String,
    scope: u64,
    /// The rows scanned: the last matches of a needle this one extends, or `None` for all.
    among: Option<Arc<[usize]>>,
    total: usize,
    next: usize,
    found: Vec<usize>,
}

impl SlicedFilter {
    /// Forget every scan (the rows changed: a new run, another archive).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The rows of `0..n` that `keep` accepts for `needle` (lowercased, as
    /// [`super::documents::contains_folded`] takes it), in ascending order, once their scan is
    /// complete; `None` while it goes on. Each call scans for about `budget`. `scope` names what
    /// else `keep` depends on (a checkbox): matches are reused only within one scope.
    pub fn poll(
        &mut self,
        needle: &str,
        scope: u64,
        n: usize,
        budget: Duration,
        keep: impl Fn(usize) -> bool,
    ) -> Option<Arc<[usize]>> {
        if let Some(d) = &self.done
            && d.needle == needle
            && d.scope == scope
        {
            return Some(d.rows.clone());
        }
        if !(self.scan.as_ref()).is_some_and(|s| s.needle == needle && s.scope == scope) {
            // Typing on during a scan: what it found and what it has not looked at yet.
            let going_on = (self.scan.take())
                .filter(|s| s.scope == scope && narrows(&s.needle, needle))
                .map(|s| {
                    let mut rows = s.found;
                    match &s.among {
                        Some(a) => rows.extend_from_slice(&a[s.next..]),
                        None => rows.extend(s.next..s.total),
                    }
                    Arc::from(rows)
                });
            let among = going_on.or_else(|| {
                (self.done.as_ref())
                    .filter(|d| d.scope == scope && narrows(&d.needle, needle))
                    .map(|d| d.rows.clone())
            });
            self.scan = Some(Scan {
                needle: needle.to_string(),
                scope,
                total: among.as_ref().map_or(n, |a| a.len()),
                among,
                next: 0,
                found: Vec::new(),
            });
        }
        let scan = self.scan.as_mut()?;
        let start = Instant::now();
        while scan.next < scan.total {
            let end = (scan.next + CHUNK).min(scan.total);
            for k in scan.next..end {
                let i = scan.among.as_ref().map_or(k, |a| a[k]);
                if keep(i) {
                    scan.found.push(i);
                }
            }
            scan.next = end;
            if start.elapsed() >= budget {
                break;
            }
        }
        if scan.next < scan.total {
            return None;
        }
        let scan = self.scan.take()?;
        let rows: Arc<[usize]> = scan.found.into();
        self.done = Some(Matches {
            needle: scan.needle,
            scope,
            rows: rows.clone(),
        });
        Some(rows)
    }

    /// How far the scan under way is: rows scanned and rows to scan.
    pub fn progress(&self) -> Option<(usize, usize)> {
        self.scan.as_ref().map(|s| (s.next, s.total))
    }
}

/// "Filtering… n of m rows looked at" with a spinner while a scan goes on, and another frame
/// asked for, in which it goes on.
pub fn filtering(ui: &mut egui::Ui, done: usize, of: usize, rows: &str) {
    ui.horizontal(|ui| {
        ui.spinner();
        ui.label(format!("Filtering… {done} of {of} {rows} looked at"));
    });
    ui.ctx().request_repaint();
}

/// Whether every text the filters find `new` in also holds `old`. True when `new` contains
/// `old` and both are looked for the same way: an ASCII needle byte by byte, ASCII case folded;
/// another in the text lowercased, which can turn a character beyond ASCII into ASCII (the
/// Kelvin sign into `k`), so an ASCII needle's matches do not bound a non-ASCII one's.
fn narrows(old: &str, new: &str) -> bool {
    old.is_ascii() == new.is_ascii() && new.contains(old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::documents::contains_folded;

    const TEXTS: &[&str] = &[
        "Harbour City flood",
        "harbor city",
        "Zürich: HOCHWASSER",
        "zurich",
        "KELVIN \u{212A}ELVIN",
        "\u{212A}ühl",
        "",
        "city hall",
    ];

    fn scan_all(f: &mut SlicedFilter, needle: &str, budget: Duration) -> Vec<usize> {
        loop {
            if let Some(rows) = f.poll(needle, 0, TEXTS.len(), budget, |i| {
                contains_folded(TEXTS[i], needle)
            }) {
                return rows.to_vec();
            }
        }
    }

    fn brute(needle: &str) -> Vec<usize> {
        (0..TEXTS.len())
            .filter(|&i| contains_folded(TEXTS[i], needle))
            .collect()
    }

    #[test]
    fn typing_on_narrows_to_the_same_rows_as_a_fresh_scan() {
        let mut typed = SlicedFilter::default();
        for needle in [
            "", "c", "ci", "cit", "city", "city ", "city h", "cit", "z", "zü", "k", "kü",
        ] {
            let fresh = scan_all(&mut SlicedFilter::default(), needle, Duration::ZERO);
            assert_eq!(fresh, brute(needle), "{needle:?}");
            assert_eq!(
                scan_all(&mut typed, needle, Duration::ZERO),
                fresh,
                "{needle:?}"
            );
        }
    }

    #[test]
    fn typing_on_during_a_scan_finds_what_a_fresh_scan_finds() {
        // Texts "row 0 ab", "row 1 ba", ...: enough for scans of many chunks.
        let texts: Vec<String> = (0..CHUNK * 5 + 3)
            .map(|i| format!("row {i} {}", ["ab", "ba", "abc", "x"][i % 4]))
            .collect();
        let keep = |needle: &str, i: usize| contains_folded(&texts[i], needle);
        let mut typed = SlicedFilter::default();
        // One chunk per keystroke: every scan is cut short by the next needle, then the last
        // one goes on to its end. "row 2" to "row" starts again; the others type on.
        for needle in ["r", "ro", "row 2", "row", "row 5"] {
            assert!(
                typed
                    .poll(needle, 0, texts.len(), Duration::ZERO, |i| keep(needle, i))
                    .is_none()
            );
        }
        let needle = "row 51";
        let rows = loop {
            if let Some(r) = typed.poll(needle, 0, texts.len(), Duration::ZERO, |i| keep(needle, i))
            {
                break r;
            }
        };
        let fresh: Vec<usize> = (0..texts.len()).filter(|&i| keep(needle, i)).collect();
        assert_eq!(*rows, *fresh);
        assert!(fresh.len() > 10, "{}", fresh.len());
    }

    #[test]
    fn a_scan_with_no_budget_takes_a_chunk_a_call_and_reports_how_far_it_is() {
        let keep = |i: usize| i.is_multiple_of(3);
        let mut f = SlicedFilter::default();
        let n = CHUNK * 2 + 7;
        assert!(f.poll("x", 0, n, Duration::ZERO, keep).is_none());
        assert_eq!(f.progress(), Some((CHUNK, n)));
        assert!(f.poll("x", 0, n, Duration::ZERO, keep).is_none());
        let rows = f.poll("x", 0, n, Duration::ZERO, keep).expect("complete");
        assert_eq!(f.progress(), None);
        assert_eq!(rows.len(), n.div_ceil(3));
        // Another scope scans again; the same needle and scope answer at once.
        assert!(f.poll("x", 1, n, Duration::ZERO, keep).is_none());
        f.clear();
        assert!(f.poll("x", 0, n, Duration::ZERO, keep).is_none());
    }

    #[test]
    fn only_needles_looked_for_the_same_way_narrow() {
        assert!(narrows("", "city"));
        assert!(narrows("ci", "city"));
        assert!(!narrows("city", "ci"));
        assert!(narrows("zü", "züri"));
        assert!(!narrows("k", "k\u{212A}"));
        assert!(!narrows("", "ü"));
    }
}
