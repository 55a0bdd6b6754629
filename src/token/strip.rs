//! A one-pass tag stripper: a page in, its text out, for the fast visible-text tokenizer.
//!
//! Tags become a space (so words on both sides of `<td>` stay apart), the contents of `script`,
//! `style`, `noscript`, `template`, `noembed`, `noframes` and comments are dropped (a browser
//! shows none of them: `noembed` and `noframes` hold what a browser without plugins or frames
//! would show, often an advertiser's markup escaped as text; an `iframe`'s fallback is kept:
//! dropping it too took goldset-dev's pair F1 from 0.988 to 0.987), character references are decoded
//! (numeric ones to their character, named ones to their character or a space). It is not an
//! HTML parser: a `>` inside a quoted attribute ends the tag early, which costs a few junk terms
//! and nothing else. This kind of stripper was measured at 290–680 MB/s against 27–60 MB/s
//! for a DOM parse.

use std::sync::LazyLock;

use memchr::{memchr, memchr2, memmem};

use super::entities::{Reference, reference_at};

/// Position of the first `needle` in `hay`. Most distances in markup are a few bytes (on
/// goldset-dev half the tags end within 7 bytes of their `<`, and half the texts between tags
/// are a byte long), where setting up a vector search costs more than the search: the first 16
/// bytes are looked at 8 at a time in a `u64` (SWAR), the rest by `memchr`. On goldset-dev,
/// `memchr` alone for a tag's `>` and the next `<` or `&` was 7 % of a run's instructions.
#[inline]
pub(crate) fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < 16 && i + 8 <= hay.len() {
        let found = zero_bytes(word_at(hay, i) ^ splat(needle));
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr(needle, &hay[i..]).map(|p| i + p)
}

/// Position of the first `a` or `b` in `hay`, as [`find_byte`].
#[inline]
pub(crate) fn find_byte2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < 16 && i + 8 <= hay.len() {
        let word = word_at(hay, i);
        let found = zero_bytes(word ^ splat(a)) | zero_bytes(word ^ splat(b));
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr2(a, b, &hay[i..]).map(|p| i + p)
}

/// How many ASCII letters and digits `bytes` starts with, eight bytes classed at a time in a
/// `u64`. For a tag name it costs what a byte loop costs; for a term of the tokenizer, often
/// longer, it is cheaper (with upper case found by the 0x20 bit, tokenizing goldset-dev took
/// 39 M fewer of 1.52 G instructions).
#[inline]
pub(crate) fn alnum_prefix(bytes: &[u8]) -> usize {
    let mut n = 0;
    while n + 8 <= bytes.len() {
        let other = !ascii_alnum(word_at(bytes, n)) & HIGH;
        if other != 0 {
            return n + (other.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes[n..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count()
}

/// A `u64` with every byte 0x01, and with every byte 0x80: the constants of the eight-bytes-at-a-
/// time (SWAR) scans of this module and [`super::content`].
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `v` that is within `lo..=hi` (both below 0x80); a byte from
/// 0x80 is in no range. The bytes are taken below 0x80 first, so no byte's sum carries into
/// the next.
#[inline]
pub(crate) fn ascii_within(v: u64, lo: u8, hi: u8) -> u64 {
    let low = v & !HIGH;
    let at_least_lo = low.wrapping_add(ONES * u64::from(0x80 - lo));
    let above_hi = low.wrapping_add(ONES * u64::from(0x7f - hi));
    at_least_lo & !above_hi & !v & HIGH
}

/// The high bit of each byte of `v` that is an ASCII letter or digit.
#[inline]
pub(crate) fn ascii_alnum(v: u64) -> u64 {
    ascii_within(v, b'0', b'9') | ascii_within(v | (ONES * 0x20), b'a', b'z')
}

/// The 8 bytes of `hay` from `at`, the first in the lowest bits.
#[inline]
pub(crate) fn word_at(hay: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&hay[at..at + 8]);
    u64::from_le_bytes(word)
}

#[inline]
fn splat(b: u8) -> u64 {
    u64::from(b) * ONES
}

/// A high bit set in the lowest zero byte of `v` (and maybe in higher bytes, after a borrow,
/// but never below it), so `trailing_zeros() / 8` is the first zero byte's position.
#[inline]
fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & HIGH
}

/// Elements whose content is not visible text.
const HIDDEN: [&str; 6] = [
    "script", "style", "noscript", "template", "noembed", "noframes",
];

/// The text of `html` with tags replaced by spaces and hidden elements dropped.
pub fn strip_tags(html: &str) -> String {
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    while i < bytes.len() {
        let Some(rel) = find_byte2(b'<', b'&', &bytes[i..]) else {
            out.push_str(&html[i..]);
            break;
        };
        out.push_str(&html[i..i + rel]);
        i += rel;
        if bytes[i] == b'&' {
            i = entity(html, i, &mut out);
        } else {
            i = tag(html, i, &mut out);
        }
    }
    out
}

/// Handle the markup starting with `<` at `start`; returns where text resumes.
fn tag(html: &str, start: usize, out: &mut String) -> usize {
    let Some(t) = Tag::at(html, start) else {
        // A literal `<` in text ("a < b").
        out.push('<');
        return start + 1;
    };
    out.push(' ');
    if t.opens_hidden() {
        return skip_to_close(html.as_bytes(), t.end, t.name);
    }
    t.end
}

/// A tag found at a `<`.
pub(crate) struct Tag<'a> {
    /// Where it starts (its `<`).
    pub start: usize,
    /// Its element name as written, ASCII letters and digits (empty for comments, `<!…>` and
    /// `<?…>`).
    pub name: &'a [u8],
    /// Whether it is a closing tag (`</p>`).
    pub closing: bool,
    /// Where text resumes after it.
    pub end: usize,
}

/// The searchers of the end of a comment and of an end tag, made once: `memmem::find` makes
/// its searcher on each call, which was about 1 % of a run on goldset-dev (a comment or a
/// script per few tags).
static COMMENT_END: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"-->"));
static END_TAG: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"</"));

impl<'a> Tag<'a> {
    /// The tag starting with the `<` at `start`; `None` for a literal `<` in text. Inlined
    /// into its callers' loops (a million calls on goldset-dev, whose entry and exit alone
    /// were 19 M instructions).
    #[inline(always)]
    pub fn at(html: &'a str, start: usize) -> Option<Tag<'a>> {
        let bytes = html.as_bytes();
        let rest = &bytes[start..];
        if rest.starts_with(b"<!--") {
            let end = COMMENT_END
                .find(&rest[4..])
                .map_or(bytes.len(), |e| start + 4 + e + 3);
            return Some(Tag {
                start,
                name: b"",
                closing: false,
                end,
            });
        }
        let first = rest.get(1).copied().unwrap_or(b' ');
        let name_start = start + 1 + usize::from(first == b'/');
        let name_len = alnum_prefix(&bytes[name_start..]);
        if name_len == 0 && !matches!(first, b'/' | b'!' | b'?') {
            return None;
        }
        let end = find_byte(b'>', &bytes[name_start..]).map_or(bytes.len(), |e| name_start + e + 1);
        Some(Tag {
            start,
            name: &bytes[name_start..name_start + name_len],
            closing: first == b'/',
            end,
        })
    }

    /// Where its name starts in the page (after `<`, or `</` for a closing tag).
    pub fn name_start(&self) -> usize {
        self.start + 1 + usize::from(self.closing)
    }

    /// Whether it opens an element whose content is not visible text ([`HIDDEN`]).
    pub fn opens_hidden(&self) -> bool {
        !self.closing
            && HIDDEN
                .iter()
                .any(|h| h.as_bytes().eq_ignore_ascii_case(self.name))
    }
}

/// Skip the content of a hidden element up to and including its closing tag.
pub(crate) fn skip_to_close(bytes: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(rel) = END_TAG.find(&bytes[i.min(bytes.len())..]) {
        let at = i + rel + 2;
        let candidate = &bytes[at..(at + name.len()).min(bytes.len())];
        if candidate.eq_ignore_ascii_case(name) {
            return match memchr(b'>', &bytes[at..]) {
                Some(e) => at + e + 1,
                None => bytes.len(),
            };
        }
        i = at;
    }
    bytes.len()
}

/// Decode the character reference starting with `&` at `start` ([`super::entities`]; an
/// unknown name becomes a space); returns where text resumes.
pub(crate) fn entity(html: &str, start: usize, out: &mut String) -> usize {
    let (ch, next) = entity_at(html, start);
    out.push(ch);
    next
}

/// The character the reference starting with `&` at `start` stands for in text (a space for
/// an unknown name, `&` itself when it starts none), and where text resumes.
pub(crate) fn entity_at(html: &str, start: usize) -> (char, usize) {
    match reference_at(&html[start..]) {
        Some((Reference::Char(ch), len)) => (ch, start + len),
        Some((Reference::Unknown, len)) => (' ', start + len),
        None => ('&', start + 1),
    }
}

/// The value of attribute `name` in a start tag (name matched without case), quotes removed.
pub(crate) fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let b = tag.as_bytes();
    let mut from = 0;
    while let Some(rel) = find_ci(&b[from..], name.as_bytes()) {
        let at = from + rel;
        from = at + name.len();
        let before_ok = at > 0 && b[at - 1].is_ascii_whitespace();
        let after = tag[from..].trim_start();
        if !before_ok || !after.starts_with('=') {
            continue;
        }
        let value = after[1..].trim_start();
        return Some(match value.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => {
                let inner = &value[1..];
                inner.find(q as char).map_or(inner, |e| &inner[..e])
            }
            _ => value
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or(""),
        });
    }
    None
}

/// Position of `needle` (lowercase ASCII) in `hay`, ignoring ASCII case.
fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alnum_prefix_agrees_with_testing_each_byte() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        // The classes' edges on both sides, and bytes from 0x80.
        let alphabet = [
            b'/', b'0', b'9', b':', b'@', b'A', b'Z', b'[', b'`', b'a', b'z', b'{', 0x7f, 0x80,
            0xc1, 0xda, 0xe1, 0xfa, 0xff, 0x00, b' ', b'>',
        ];
        for _ in 0..50_000 {
            let len = rng.random_range(0..30);
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    // Mostly letters, so that prefixes reach past eight bytes.
                    if rng.random_bool(0.7) {
                        b"aZ09xQ"[rng.random_range(0..6)]
                    } else {
                        alphabet[rng.random_range(0..alphabet.len())]
                    }
                })
                .collect();
            let expected = bytes
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            assert_eq!(alnum_prefix(&bytes), expected, "{bytes:?}");
        }
    }

    #[test]
    fn byte_search_agrees_with_memchr_at_every_length_and_position() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        // Bytes around the needles and the SWAR borrow cases (0x00, 0x01, 0x80, 0xff).
        let alphabet = [
            b'<', b'&', b'>', b'=', b';', b'a', 0x00, 0x01, 0x80, 0xff, 0x3d, 0x27,
        ];
        for _ in 0..50_000 {
            let len = rng.random_range(0..48);
            let hay: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                .collect();
            let (a, b) = (
                alphabet[rng.random_range(0..alphabet.len())],
                alphabet[rng.random_range(0..alphabet.len())],
            );
            assert_eq!(find_byte(a, &hay), memchr(a, &hay), "{a} in {hay:?}");
            assert_eq!(
                find_byte2(a, b, &hay),
                memchr2(a, b, &hay),
                "{a} {b} in {hay:?}"
            );
        }
    }

    fn words(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn tags_become_spaces_and_hidden_elements_vanish() {
        let html = "<html><head><STYLE>p{}</style><title>T</title></head>\
                    <body>One<td>two<script type=x>if (a<b) x();</SCRIPT>three\
                    <!-- hidden <b>x</b> -->four<noscript>no</noscript>\
                    <noembed>&lt;A HREF=\"http://ad.example/\"&gt;&lt;IMG SRC=x&gt;</noembed>\
                    <NOFRAMES>frames</NOFRAMES></body>";
        assert_eq!(
            words(&strip_tags(html)),
            ["T", "One", "two", "three", "four"]
        );
    }

    #[test]
    fn entities_are_decoded() {
        assert_eq!(
            words(&strip_tags(
                "caf&eacute; &amp; tea&nbsp;time &#65;&#x42; &bogus; AT&T"
            )),
            ["café", "&", "tea", "time", "AB", "AT&T"]
        );
    }

    #[test]
    fn literal_less_than_and_unclosed_markup() {
        assert_eq!(words(&strip_tags("a < b")), ["a", "<", "b"]);
        assert_eq!(words(&strip_tags("x <b")), ["x"]);
        assert_eq!(words(&strip_tags("y <script>never closed")), ["y"]);
        assert_eq!(words(&strip_tags("z <!-- never closed")), ["z"]);
    }

    #[test]
    fn multibyte_text_survives() {
        assert_eq!(words(&strip_tags("<p>Über straße</p>")), ["Über", "straße"]);
    }
}
