//! Dates written in visible text: `May 3, 2006`, `3 May 2006`, `3. Mai 2006`, `3 de mayo de
//! 2006`, `le 3 mai 2006`, `2006-05-03`, `03.05.2006`, `05/03/2006`, `2006年5月3日`,
//! `2006년 5월 3일`, and a month with its year (`May 2006`), with month names of the languages
//! samecore has antecedents for that write months as words (English, German, French, Spanish,
//! Italian, Portuguese, Dutch, the Scandinavian languages, Polish, Czech, Russian, Turkish).

use super::Instant;
use crate::token::markup::is_unspaced;

/// Month names and abbreviations (lowercase, without a final dot) and their numbers.
const MONTHS: &[(&str, u32)] = &[
    // English
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
    // German
    ("januar", 1),
    ("jänner", 1),
    ("februar", 2),
    ("märz", 3),
    ("mai", 5),
    ("juni", 6),
    ("juli", 7),
    ("oktober", 10),
    ("dezember", 12),
    ("mär", 3),
    ("mrz", 3),
    ("okt", 10),
    ("dez", 12),
    // French
    ("janvier", 1),
    ("février", 2),
    ("fevrier", 2),
    ("mars", 3),
    ("avril", 4),
    ("juin", 6),
    ("juillet", 7),
    ("août", 8),
    ("aout", 8),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("décembre", 12),
    ("decembre", 12),
    ("janv", 1),
    ("févr", 2),
    ("avr", 4),
    ("juil", 7),
    ("déc", 12),
    // Spanish
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("setiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
    // Italian
    ("gennaio", 1),
    ("febbraio", 2),
    ("aprile", 4),
    ("maggio", 5),
    ("giugno", 6),
    ("luglio", 7),
    ("settembre", 9),
    ("ottobre", 10),
    ("dicembre", 12),
    // Portuguese
    ("janeiro", 1),
    ("fevereiro", 2),
    ("março", 3),
    ("maio", 5),
    ("junho", 6),
    ("julho", 7),
    ("setembro", 9),
    ("outubro", 10),
    ("novembro", 11),
    ("dezembro", 12),
    // Dutch
    ("januari", 1),
    ("februari", 2),
    ("maart", 3),
    ("mei", 5),
    ("augustus", 8),
    // Swedish, Danish, Norwegian
    ("maj", 5),
    ("augusti", 8),
    ("marts", 3),
    // Polish (genitive, as dates write them)
    ("stycznia", 1),
    ("lutego", 2),
    ("marca", 3),
    ("kwietnia", 4),
    ("maja", 5),
    ("czerwca", 6),
    ("lipca", 7),
    ("sierpnia", 8),
    ("września", 9),
    ("października", 10),
    ("listopada", 11),
    ("grudnia", 12),
    // Czech (genitive)
    ("ledna", 1),
    ("února", 2),
    ("března", 3),
    ("dubna", 4),
    ("května", 5),
    ("června", 6),
    ("července", 7),
    ("srpna", 8),
    ("září", 9),
    ("října", 10),
    ("listopadu", 11),
    ("prosince", 12),
    // Russian (genitive)
    ("января", 1),
    ("февраля", 2),
    ("марта", 3),
    ("апреля", 4),
    ("мая", 5),
    ("июня", 6),
    ("июля", 7),
    ("августа", 8),
    ("сентября", 9),
    ("октября", 10),
    ("ноября", 11),
    ("декабря", 12),
    // Turkish
    ("ocak", 1),
    ("şubat", 2),
    ("mart", 3),
    ("nisan", 4),
    ("mayıs", 5),
    ("haziran", 6),
    ("temmuz", 7),
    ("ağustos", 8),
    ("eylül", 9),
    ("ekim", 10),
    ("kasım", 11),
    ("aralık", 12),
];

/// Words between a day, a month and a year that change nothing (`3 de mayo de 2006`).
const FILLERS: &[&str] = &["de", "del", "of", "the"];

/// Distinct days in a page's text from which it is taken for a listing.
const LISTING_DAYS: usize = 4;

/// Ordinal suffixes written after a day (`3rd`, `1er`, `1º`).
const ORDINALS: &[&str] = &["st", "nd", "rd", "th", "er", "e", "º", "o", "ª"];

/// Words before a date that say it is the publication's (lowercase).
const PUBLISHED_WORDS: &[&str] = &[
    "published",
    "posted",
    "publication",
    "released",
    "veröffentlicht",
    "erschienen",
    "publié",
    "publiée",
    "publicado",
    "publicada",
    "pubblicato",
    "gepubliceerd",
    "publicerad",
    "publiceret",
    "publisert",
    "opublikowano",
    "publikováno",
    "publikovano",
    "опубликовано",
    "yayınlanma",
    "date",
    "datum",
    "fecha",
    "dated",
];

/// Phrases of modification (of several words).
const MODIFIED_PHRASES: &[&str] = &["last edited", "mis à jour", "zuletzt geändert"];

/// … that it is a modification's.
const MODIFIED_WORDS: &[&str] = &[
    "updated",
    "modified",
    "aktualisiert",
    "geändert",
    "actualizado",
    "aggiornato",
    "bijgewerkt",
    "uppdaterad",
    "opdateret",
    "oppdatert",
    "zaktualizowano",
    "aktualizováno",
    "обновлено",
    "güncelleme",
];

/// … that it is not a publication date at all.
const NOT_PUBLISHED: &[&str] = &["©", "copyright", "(c)"];

/// The number of a month name or abbreviation (`May`, `Mai.`, `sept`), any case.
pub(super) fn month_number(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_lowercase();
    MONTHS.iter().find(|(m, _)| *m == w).map(|&(_, n)| n)
}

/// The dates of a page's text, by what stands around them.
#[derive(Debug, Default)]
pub(super) struct Dates {
    /// Days right after a word saying "published", in text order.
    pub after_keyword: Vec<Instant>,
    /// Days near the headline first (after it, then shortly before it), then the rest, in
    /// text order; dates after "updated" or "©" left out.
    pub dateline: Vec<Instant>,
    /// A month and year (`May 2006`), as the first of the month.
    pub months: Vec<Instant>,
}

impl Dates {
    /// Find them in `text`, whose headline starts at `headline`.
    ///
    /// Every date these patterns read has a four-digit year, so only the few words around each
    /// year of the text are read (a page's text is not tokenized whole).
    pub fn find(text: &str, headline: Option<usize>) -> Dates {
        let mut dates = Dates::default();
        let (mut near, mut before, mut rest) = (vec![], vec![], vec![]);
        for year_at in years(text) {
            let Some((at, day, pos)) = date_around(text, year_at) else {
                continue;
            };
            if !day {
                dates.months.push(at);
                continue;
            }
            match context(text, pos) {
                Context::Published => dates.after_keyword.push(at),
                Context::Other => {}
                Context::None => match headline {
                    Some(h) if pos >= h && pos < h + 1500 => near.push(at),
                    Some(h) if pos < h && pos + 300 >= h => before.push(at),
                    _ => rest.push(at),
                },
            }
        }
        before.reverse();
        // A page of many dates is a listing (a tag page, a home page, a forum): a date far from
        // its headline is one of the listed items', not the page's.
        let mut days: Vec<i64> = near
            .iter()
            .chain(&before)
            .chain(&rest)
            .map(|d| d.local_day())
            .collect();
        days.sort_unstable();
        days.dedup();
        if days.len() >= LISTING_DAYS {
            rest.clear();
        }
        dates.dateline = near.into_iter().chain(before).chain(rest).collect();
        dates
    }
}

/// Byte offsets of the four-digit numbers from 1900 to 2099 standing alone in `text`.
fn years(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    memchr::memchr2_iter(b'1', b'2', b).filter(move |&i| {
        let digit = |j: usize| b.get(j).is_some_and(u8::is_ascii_digit);
        (i == 0 || !digit(i - 1))
            && digit(i + 1)
            && digit(i + 2)
            && digit(i + 3)
            && !digit(i + 4)
            && matches!(&b[i..i + 2], b"19" | b"20")
    })
}

/// The date that uses the year at byte `year_at`: read in the words around it. Returns the
/// date, whether it is a day, and where it starts.
fn date_around(text: &str, year_at: usize) -> Option<(Instant, bool, usize)> {
    let mut from = year_at.saturating_sub(48);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (year_at + 24).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    let window = &text[from..to];
    let toks = tokens(window);
    let year_tok = toks.iter().position(|t| from + t.start == year_at)?;
    // The first token of the window may be a word cut in two.
    let first = usize::from(from > 0);
    (first..=year_tok).find_map(|k| {
        let (at, day, used) = date_at(window, &toks, k)?;
        (k + used > year_tok).then_some((at, day, from + toks[k].start))
    })
}

/// The first date written in `s` (a day; with `months`, also a month and year) and where.
pub(super) fn first_date(s: &str, months: bool) -> Option<(Instant, usize)> {
    let toks = tokens(s);
    (0..toks.len()).find_map(|k| {
        date_at(s, &toks, k)
            .filter(|&(_, day, _)| day || months)
            .map(|(at, _, _)| (at, toks[k].start))
    })
}

/// What the words before a date say of it.
enum Context {
    Published,
    Other,
    None,
}

/// The context of a date at byte `pos`: the 60 bytes before it for a word of publication or
/// modification, the 20 before it for a copyright sign.
fn context(text: &str, pos: usize) -> Context {
    let mut from = pos.saturating_sub(60);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let before = text[from..pos].to_lowercase();
    let mut near = before.len().saturating_sub(20);
    while !before.is_char_boundary(near) {
        near -= 1;
    }
    if NOT_PUBLISHED.iter().any(|w| before[near..].contains(w)) {
        return Context::Other;
    }
    // The last word of publication or modification before the date decides.
    let words = before.split(|c: char| !(c.is_alphanumeric() || c == ':'));
    let mut said = Context::None;
    for word in words {
        let word = word.trim_end_matches(':');
        if PUBLISHED_WORDS.contains(&word) {
            said = Context::Published;
        } else if MODIFIED_WORDS.contains(&word) {
            said = Context::Other;
        }
    }
    if matches!(said, Context::None) && MODIFIED_PHRASES.iter().any(|p| before.contains(p)) {
        return Context::Other;
    }
    said
}

/// A token of text: a run of digits, or of letters (a letter of an unspaced script alone).
#[derive(Debug)]
struct Tok {
    start: usize,
    end: usize,
    /// The value of a digit run.
    num: Option<u32>,
}

fn tokens(text: &str) -> Vec<Tok> {
    let tok = |start: usize, end: usize, digits: bool| Tok {
        start,
        end,
        num: if digits && end - start <= 4 {
            text[start..end].parse().ok()
        } else {
            None
        },
    };
    let mut toks = Vec::new();
    let mut run: Option<(usize, bool)> = None; // (start, digits)
    for (i, c) in text.char_indices() {
        let digit = c.is_ascii_digit();
        let letter = !digit && (c.is_alphanumeric() || c == 'º' || c == 'ª');
        let single = letter && is_unspaced(c);
        if let Some((s, d)) = run {
            if (digit && d) || (letter && !d && !single) {
                continue;
            }
            toks.push(tok(s, i, d));
            run = None;
        }
        if single {
            toks.push(tok(i, i + c.len_utf8(), false));
        } else if digit || letter {
            run = Some((i, digit));
        }
    }
    if let Some((s, d)) = run {
        toks.push(tok(s, text.len(), d));
    }
    toks
}

/// A date starting at token `k`: the instant, whether it is a day (else a month), and how
/// many tokens it used.
fn date_at(text: &str, toks: &[Tok], k: usize) -> Option<(Instant, bool, usize)> {
    let sep = |a: usize, b: usize| match (toks.get(a), toks.get(b)) {
        (Some(x), Some(y)) => text.get(x.end..y.start).unwrap_or(""),
        _ => "",
    };
    let word = |i: usize| {
        toks.get(i)
            .filter(|t| t.num.is_none())
            .map(|t| &text[t.start..t.end])
    };
    let is_word =
        |i: usize, set: &[&str]| word(i).is_some_and(|w| set.contains(&w.to_lowercase().as_str()));
    let short_gap = |a: usize, b: usize| {
        let s = sep(a, b);
        b < toks.len() && s.len() <= 3 && s.chars().all(|c| c.is_whitespace() || ".,-/".contains(c))
    };
    let digits = |i: usize| toks.get(i).map_or(0, |t| t.end - t.start);
    let num = |i: usize| toks.get(i).and_then(|t| t.num);
    // A day number and the last token it uses (an ordinal suffix written against it).
    let day_at = |i: usize| -> Option<(u32, usize)> {
        let d = num(i).filter(|d| (1..=31).contains(d) && digits(i) <= 2)?;
        let last = if sep(i, i + 1).is_empty() && is_word(i + 1, ORDINALS) {
            i + 1
        } else {
            i
        };
        Some((d, last))
    };
    let month_at = |i: usize| word(i).and_then(month_number);
    let year_at = |i: usize| -> Option<i32> {
        num(i)
            .filter(|y| (1900..2100).contains(y) && digits(i) == 4)
            .map(|y| y as i32)
    };
    // After token `last`, a filler word (`de`, `of`) may stand before the next part.
    let skip_filler = |last: usize| {
        if is_word(last + 1, FILLERS) && short_gap(last, last + 1) {
            last + 2
        } else {
            last + 1
        }
    };
    if let Some(y) = year_at(k) {
        // 2006年5月3日, 2006년 5월 3일
        if is_word(k + 1, &["年", "년"])
            && is_word(k + 3, &["月", "월"])
            && is_word(k + 5, &["日", "일"])
            && let (Some(m), Some(d)) = (num(k + 2), num(k + 4))
        {
            return Instant::day(y, m, d).map(|at| (at, true, 6));
        }
        // 2006-05-03, 2006/05/03, 2006.05.03
        let s1 = sep(k, k + 1);
        if matches!(s1, "-" | "/" | ".")
            && sep(k + 1, k + 2) == s1
            && digits(k + 1) <= 2
            && digits(k + 2) <= 2
            && let (Some(m), Some(d)) = (num(k + 1), num(k + 2))
        {
            return Instant::day(y, m, d).map(|at| (at, true, 3));
        }
    }
    // 03.05.2006 (day first), 05/03/2006 (month first unless the first number cannot be one)
    let s1 = sep(k, k + 1);
    if digits(k) <= 2
        && matches!(s1, "." | "/" | "-")
        && sep(k + 1, k + 2) == s1
        && digits(k + 1) <= 2
        && let (Some(a), Some(b), Some(y)) = (num(k), num(k + 1), year_at(k + 2))
    {
        let (d, m) = if s1 == "." || a > 12 { (a, b) } else { (b, a) };
        return Instant::day(y, m, d).map(|at| (at, true, 3));
    }
    // 3 May 2006, 3. Mai 2006, 3rd of May, 2006, 3 de mayo de 2006
    if let Some((d, last)) = day_at(k) {
        let at_month = skip_filler(last);
        if short_gap(at_month - 1, at_month)
            && let Some(m) = month_at(at_month)
        {
            let at_year = skip_filler(at_month);
            if short_gap(at_year - 1, at_year)
                && let Some(y) = year_at(at_year)
            {
                return Instant::day(y, m, d).map(|at| (at, true, at_year + 1 - k));
            }
        }
    }
    // May 3, 2006; May 3rd 2006; and May 2006
    if let Some(m) = month_at(k) {
        if short_gap(k, k + 1)
            && let Some((d, last)) = day_at(k + 1)
            && short_gap(last, last + 1)
            && let Some(y) = year_at(last + 1)
        {
            return Instant::day(y, m, d).map(|at| (at, true, last + 2 - k));
        }
        let at_year = skip_filler(k);
        if short_gap(at_year - 1, at_year)
            && let Some(y) = year_at(at_year)
        {
            return Instant::day(y, m, 1).map(|at| (at, false, at_year + 1 - k));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Option<String> {
        first_date(s, true).map(|(at, _)| at.ymd())
    }

    #[test]
    fn written_dates_in_several_languages() {
        for (text, want) in [
            ("Posted on May 3, 2006 by x", "2006-05-03"),
            ("Tuesday, May 3rd, 2006", "2006-05-03"),
            ("3 May 2006", "2006-05-03"),
            ("the 3rd of May, 2006", "2006-05-03"),
            ("Berlin, 3. Mai 2006", "2006-05-03"),
            ("publié le 3 mai 2006", "2006-05-03"),
            ("1er mars 2021", "2021-03-01"),
            ("3 de mayo de 2006", "2006-05-03"),
            ("3 maggio 2006", "2006-05-03"),
            ("3 mei 2006", "2006-05-03"),
            ("3 maja 2006", "2006-05-03"),
            ("3 мая 2006", "2006-05-03"),
            ("Sept. 12, 2006", "2006-09-12"),
            ("2006-05-03", "2006-05-03"),
            ("03.05.2006", "2006-05-03"),
            ("05/03/2006", "2006-05-03"),
            ("25/12/2006", "2006-12-25"),
            ("2006年5月3日", "2006-05-03"),
            ("2006년 5월 3일", "2006-05-03"),
            ("May 2006", "2006-05-01"),
        ] {
            assert_eq!(one(text).as_deref(), Some(want), "{text}");
        }
        for text in [
            "may 3 people",
            "32.13.2006",
            "the 2006 season",
            "1,234,567",
            "3 May",
        ] {
            assert_eq!(one(text), None, "{text}");
        }
    }

    #[test]
    fn context_sorts_dates() {
        let text = "Today: May 9, 2006. Copyright © May 1, 2006. Headline here. By X, May 2, 2006. \
                    Updated May 4, 2006";
        let d = Dates::find(text, text.find("Headline"));
        let days: Vec<String> = d.dateline.iter().map(|i| i.ymd()).collect();
        assert_eq!(days, ["2006-05-02", "2006-05-09"]);
        let d = Dates::find("Published: 02.05.2006", None);
        assert_eq!(d.after_keyword[0].ymd(), "2006-05-02");
    }
}
