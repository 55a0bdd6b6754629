//! Main-content text: a page in, the text of its content blocks out, without the navigation,
//! teasers and footers of the site's frame.
//!
//! The page is cut into text blocks at block-level tags (everything but inline tags such as
//! `a`, `b`, `span`, `font`), as boilerpipe does, and each block is kept or dropped by the
//! decision tree of Kohlschütter, Fankhauser and Nejdl, "Boilerplate Detection using Shallow
//! Text Features" (WSDM 2010): boilerpipe's `NumWordsRulesClassifier`, learned with C4.8 over
//! the number of words of a block and of its neighbours and the share of its words inside
//! links (link density). Navigation is short and mostly links; a story is long runs of words
//! outside links.
//!
//! Before the tree, what a reader never sees is dropped: the content of a container (`div`,
//! `span`, `form`, `table`, lists, `section`, `aside`, `nav`, `fieldset`) whose inline style says
//! `display: none` or `visibility: hidden`, as Readability drops invisible nodes. A broadcast
//! network's CMS puts one hidden e-mail-a-story form, with its long sentences, on every
//! station's story page; left in, it linked a KGET story to the Newswatch50 pages of another
//! story on goldset-dev (0.21). Dropping it lowered the cross-validated impure clusters per deal
//! from 0.97 to 0.84 (docs/research-log.md, "Hidden containers are not content"). Only the
//! value of the `style` attribute counts. The hidden region runs to the matching end tag,
//! passing over comments and scripts; one that is not closed within half the page is kept,
//! since where a page leaves an element open an enclosing end tag closes it, and a region that
//! large is more likely that (or a story a script reveals) than a pop-up.
//!
//! Why our own and not a crate: dom_smoothie (Readability, a DOM parse) was measured side by
//! side on goldset-dev (1,117 pages, 53 MB): it extracts at 47 MB/s on 2 threads, about twice
//! a whole default SpotSigs run's time, while a default run with this classifier takes the
//! same wall time as one over tag-stripped text (0.49–0.51 s against 0.46–0.59 s). SpotSigs on
//! its text also cross-validated worse (pair F1 0.965 against 0.983; docs/research-log.md,
//! "Content blocks"). When no block is content (a page of links only), the whole
//! text is kept, so such a page is still compared.

use memchr::memchr;

use super::strip::{
    HIGH, Tag, ascii_alnum, ascii_within, entity_at, find_byte2, skip_to_close, word_at,
};

/// One text block: where its text is in the page's block text ([`blocks`]), its words, and its
/// words inside links.
#[derive(Debug, Default, Clone)]
struct Block {
    text: std::ops::Range<usize>,
    words: u32,
    linked: u32,
}

impl Block {
    fn link_density(&self) -> f64 {
        if self.words == 0 {
            0.0
        } else {
            f64::from(self.linked) / f64::from(self.words)
        }
    }
}

/// The text of the content blocks of `html`, blocks separated by a newline; the whole text when
/// no block is content.
pub fn content_text(html: &str) -> String {
    text_of_blocks(html, false)
}

/// [`content_text`] as a coder reads it: also without what an `<iframe>` holds. That is the
/// fallback a browser shows only where frames are off, and on ad slots it is the advertiser's
/// markup escaped as text (`<a href="http://clk.atdmt.com/…"><img src=…>`, goldset-dev's
/// Smoking/s118.htm), which the aligned passages printed as page text. The detectors keep
/// it ([`content_text`]): dropped there too, goldset-dev's pair F1 went from 0.988 to 0.987.
pub fn reading_text(html: &str) -> String {
    text_of_blocks(html, true)
}

/// The content blocks' text; with `reading`, iframes' fallbacks left out.
fn text_of_blocks(html: &str, reading: bool) -> String {
    let (mut text, blocks) = blocks(html, reading);
    let keep = classify(&blocks);
    // Each block's text, without the space its closing tag left at its end (the line end
    // takes its place).
    let line = |b: &Block, text: &[u8]| {
        let r = b.text.clone();
        if r.end > r.start && text[r.end - 1] == b' ' {
            r.start..r.end - 1
        } else {
            r
        }
    };
    let mut kept: Vec<std::ops::Range<usize>> = (blocks.iter().zip(&keep))
        .filter(|(_, k)| **k)
        .map(|(b, _)| line(b, &text))
        .collect();
    if kept.is_empty() {
        kept = blocks.iter().map(|b| line(b, &text)).collect();
    }
    // The kept blocks moved to the front of the text they were cut from, each with its line
    // end, when every block starts at or after where the one before ends with its line end
    // (as it does when blocks end with a tag's space): no second buffer of the page's text
    // (a 40 MB one-line page held its text twice).
    let mut end = 0;
    let in_place = kept.iter().all(|r| {
        let fits = r.start >= end;
        end += r.len() + 1;
        fits
    });
    if in_place {
        let mut w = 0;
        for r in &kept {
            text.copy_within(r.clone(), w);
            w += r.len();
            if w < text.len() {
                text[w] = b'\n';
            } else {
                text.push(b'\n');
            }
            w += 1;
        }
        text.truncate(w);
        // Blocks begin and end at characters' boundaries: this never fails.
        return String::from_utf8(text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    }
    let mut out = Vec::with_capacity(kept.iter().map(|r| r.len() + 1).sum());
    for r in kept {
        out.extend_from_slice(&text[r]);
        out.push(b'\n');
    }
    // Blocks begin and end at characters' boundaries: this never fails.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Words of `text` (UTF-8): white-space separated runs holding a letter or digit, and every
/// character of a script written without spaces (a Chinese sentence is many words, not one), so
/// that boilerpipe's word-count rules see a CJK or Thai story as the text it is.
fn count_words(text: &[u8]) -> u32 {
    count_ascii_words(text).unwrap_or_else(|| {
        // A run of a page's text, cut at characters' boundaries: always UTF-8.
        std::str::from_utf8(text).map_or(0, count_words_mixed)
    })
}

/// [`count_words`] of text that is not all ASCII: the ASCII stretches eight bytes at a time,
/// the rest a character at a time. A cut is made only at ASCII white space, which ends a word
/// under both rules, so the counts of the pieces add up to the count of the whole.
fn count_words_mixed(text: &str) -> u32 {
    let is_space = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
    let mut words = 0;
    let mut rest = text;
    loop {
        let bytes = rest.as_bytes();
        let ascii = encoding_rs::Encoding::ascii_valid_up_to(bytes);
        if ascii == bytes.len() {
            return words + count_ascii_words(bytes).unwrap_or(0);
        }
        // The ASCII words before the last white space ahead of the first other byte, then
        // what follows, to the next ASCII white space, a character at a time.
        let cut = bytes[..ascii]
            .iter()
            .rposition(is_space)
            .map_or(0, |k| k + 1);
        let end = bytes[ascii..]
            .iter()
            .position(is_space)
            .map_or(bytes.len(), |k| ascii + k);
        words += count_ascii_words(&bytes[..cut]).unwrap_or(0);
        words += count_words_unicode(&rest[cut..end]);
        rest = &rest[end..];
    }
}

/// [`count_words`] of ASCII text (`None` when `bytes` is not ASCII): runs between white space
/// (as `char::is_whitespace` has it in ASCII: tab, line feed, vertical tab, form feed,
/// carriage return, space) holding a letter or digit.
///
/// Eight bytes are classed at a time in a `u64` (SWAR): each byte's class is a range test on
/// its high bit, gathered into an 8-bit mask. A run is counted at its first letter or digit,
/// found by adding each run's first bit to the mask of its other bytes (neither space nor
/// letter nor digit): the carry runs through those and stops at the first letter or digit,
/// or leaves at the space after the run; it crosses into the next eight bytes. The test that
/// the text is ASCII is the same pass. Byte by byte with a table, and that test apart, a
/// goldset-dev run took 22 M more of its 1.58 G instructions (callgrind).
fn count_ascii_words(bytes: &[u8]) -> Option<u32> {
    // The high bits of the bytes gathered into bit 0 (first byte) to bit 7 (last).
    let gather = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    let (mut words, mut high, mut carry, mut after_run) = (0u32, 0u64, 0u32, 0u32);
    let mut chunks = bytes.chunks_exact(8);
    let mut count = |v: u64| {
        high |= v;
        let space = gather(ascii_within(v, b'\t', b'\r') | ascii_within(v, b' ', b' '));
        let alnum = gather(ascii_alnum(v));
        let inside = !space & 0xff;
        let other = inside & !alnum;
        let first = inside & !((inside << 1) | after_run);
        let sum = other + first + carry;
        // A table: x86-64's baseline has no popcount instruction, and `count_ones` without
        // one is a dozen instructions.
        words += u32::from(BITS_SET[(sum & alnum) as usize]);
        carry = sum >> 8;
        after_run = inside >> 7;
    };
    for chunk in &mut chunks {
        count(word_at(chunk, 0));
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        // Zero bytes after the text are neither space nor letter: they count no word.
        let v = (tail.iter().rev()).fold(0u64, |v, &b| (v << 8) | u64::from(b));
        count(v);
    }
    (high & HIGH == 0).then_some(words)
}

/// For [`blocks`]: the ASCII bytes that are neither letters nor digits (text of these alone
/// holds no word).
const NO_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = !(b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// Bits set in each byte value, for [`count_ascii_words`].
const BITS_SET: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).count_ones() as u8;
        b += 1;
    }
    table
};

/// [`count_words`] of any text, one pass over its characters, not a split into words and two
/// passes over each: a run of text with one `&nbsp;` or curly quote in it is not ASCII, and
/// goldset-dev has many.
fn count_words_unicode(text: &str) -> u32 {
    // Per word: its characters of a script without spaces, else 1 if it holds a letter or digit.
    let word = |unspaced: u32, alnum: bool| {
        if unspaced > 0 {
            unspaced
        } else {
            u32::from(alnum)
        }
    };
    let (mut words, mut unspaced, mut alnum) = (0u32, 0u32, false);
    for c in text.chars() {
        if c.is_ascii() {
            if matches!(c, '\t'..='\r' | ' ') {
                words += word(unspaced, alnum);
                (unspaced, alnum) = (0, false);
            } else {
                alnum |= c.is_ascii_alphanumeric();
            }
        } else if c.is_whitespace() {
            words += word(unspaced, alnum);
            (unspaced, alnum) = (0, false);
        } else {
            unspaced += u32::from(super::markup::is_unspaced(c));
            alnum = alnum || c.is_alphanumeric();
        }
    }
    words + word(unspaced, alnum)
}

/// The rule of [`count_words_unicode`] as first written, word by word: what it is tested against.
#[cfg(test)]
fn count_words_by_word(text: &str) -> u32 {
    text.split_whitespace()
        .map(|w| {
            let unspaced = w.chars().filter(|&c| super::markup::is_unspaced(c)).count();
            if unspaced > 0 {
                unspaced
            } else {
                usize::from(w.chars().any(char::is_alphanumeric))
            }
        })
        .sum::<usize>() as u32
}

/// Cut `html` into text blocks (empty blocks are not kept): the blocks' text, one after the
/// other in one buffer (a string per block was an allocation and its regrowth per block),
/// and the blocks.
///
/// The text is UTF-8 built of bytes: what lies between tags, cut only at ASCII bytes (`<`,
/// `>`, `&`, `;`), and the characters of references. As a `String` each piece was a slice of
/// the page checked for characters' boundaries at both ends, 24 M of a goldset-dev run's
/// 1.18 G instructions; [`content_text`] checks its output once.
fn blocks(html: &str, reading: bool) -> (Vec<u8>, Vec<Block>) {
    let bytes = html.as_bytes();
    // Sized once for the text of most pages (what lies between tags is about a quarter of
    // goldset-dev's bytes), not grown by doubling from nothing. A long page gets room for all
    // its bytes at once: the allocator hands so large a block straight from the system, whose
    // pages cost memory only when written, while each doubling copied what was there (a 60 MB
    // one-line page's text peaked at twice its size).
    let mut text = Vec::with_capacity(if html.len() > LONG_PAGE {
        html.len() + html.len() / 8
    } else {
        html.len() / 3
    });
    let mut blocks = Vec::new();
    let mut cur = Block::default();
    // The text since the last tag (a run) is written into the block at once, from `run`; its
    // words are counted when the run ends. Words inside `<a>` count as linked.
    let mut run = 0;
    let mut in_link = false;
    let flush_run = |run: usize, text: &[u8], cur: &mut Block, in_link: bool| {
        // Most runs between tags are the white space of the markup's layout: ASCII without a
        // letter or digit is no word under either rule, and a byte loop that stops at the
        // first letter says so for less than the counter's set-up costs.
        if text[run..].iter().all(|&b| NO_WORD[usize::from(b)]) {
            return;
        }
        let w = count_words(&text[run..]);
        cur.words += w;
        if in_link {
            cur.linked += w;
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let Some(rel) = find_byte2(b'<', b'&', &bytes[i..]) else {
            text.extend_from_slice(&bytes[i..]);
            break;
        };
        text.extend_from_slice(&bytes[i..i + rel]);
        i += rel;
        if bytes[i] == b'&' {
            let ch;
            (ch, i) = entity_at(html, i);
            text.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        let Some(t) = Tag::at(html, i) else {
            text.push(b'<');
            i += 1;
            continue;
        };
        // Tags back to back leave no run between them: no call.
        if text.len() > run {
            flush_run(run, &text, &mut cur, in_link);
        }
        text.push(b' ');
        run = text.len();
        i = t.end;
        if t.name.is_empty() {
            continue; // a comment, doctype or processing instruction
        }
        let kind = kind(bytes, t.name_start(), t.name.len());
        if (kind & HIDDEN != 0 || (reading && kind & FALLBACK != 0)) && !t.closing {
            i = skip_to_close(bytes, i, t.name);
            continue;
        }
        if kind & LINK != 0 {
            in_link = !t.closing;
            continue;
        }
        // A hidden container is skipped whole and, unless inline, still ends the block.
        if !t.closing
            && kind & CONTAINER != 0
            && styled_invisible(&bytes[t.start..t.end])
            && let Some(end) = skip_element(html, i, t.name, html.len() / 2)
        {
            i = end;
        }
        if kind & INLINE == 0 {
            // A block-level tag ends the block (a block of white space only is dropped).
            if cur.words > 0 {
                cur.text.end = text.len();
                blocks.push(std::mem::take(&mut cur));
            } else {
                text.truncate(cur.text.start);
            }
            cur.text.start = text.len();
            run = text.len();
        }
    }
    flush_run(run, &text, &mut cur, in_link);
    if cur.words > 0 {
        cur.text.end = text.len();
        blocks.push(cur);
    }
    (text, blocks)
}

/// Past this many bytes a page's text buffer is sized for the whole page ([`blocks`]).
const LONG_PAGE: usize = 1 << 20;

/// What an element is to [`blocks`] (bits of [`kind`]): its content is not visible text.
const HIDDEN: u8 = 1;
/// A link (`a`): its words count as linked.
const LINK: u8 = 2;
/// It does not end a text block (boilerpipe's inline elements).
const INLINE: u8 = 4;
/// A container whose inline style can hide it from the content: one that pages close (a `p`
/// or `li` is often left open, and skipping to a far-away end tag would drop a story).
const CONTAINER: u8 = 8;
/// An `iframe`: what it holds is a fallback, left out of the text a coder reads
/// ([`reading_text`]).
const FALLBACK: u8 = 16;

/// What the element whose name is the `len` bytes of `bytes` from `at` (in any case) is to
/// [`blocks`]: [`HIDDEN`], [`LINK`], [`INLINE`] and [`CONTAINER`] bits. The name, eight bytes at
/// most, is read into a `u64` ([`key_at`]), lowercased there at once and matched as a number:
/// lowercasing and matching it for each question (hidden? a link? a container? inline?) cost
/// 38 M more of a goldset-dev run's 1.62 G instructions; scanning lists of names, before, was a
/// fifth of this module's time; lowercasing it byte by byte into a buffer and matching the
/// bytes, 12 M more of 1.16 G.
fn kind(bytes: &[u8], at: usize, len: usize) -> u8 {
    let Some(key) = key_at(bytes, at, len) else {
        return 0; // longer than any name below
    };
    // Upper-case letters take the 0x20 bit (`ascii_within` marks them with 0x80).
    match key | (ascii_within(key, b'A', b'Z') >> 2) {
        SCRIPT | STYLE | NOSCRIPT | TEMPLATE | NOEMBED | NOFRAMES => HIDDEN,
        IFRAME => FALLBACK,
        A => LINK | INLINE,
        SPAN => INLINE | CONTAINER,
        ABBR | ACRONYM | B | BIG | CITE | CODE | EM | FONT | I | IMG | KBD | LABEL | Q | S
        | SMALL | STRIKE | STRONG | SUB | SUP | U => INLINE,
        DIV | FORM | TABLE | UL | OL | DL | SECTION | ASIDE | NAV | FIELDSET => CONTAINER,
        _ => 0,
    }
}

/// [`name_key`] of the `len` bytes of `bytes` from `at`: when eight bytes follow `at` (all but
/// a page's last few tags), one load of them with the bytes after the name masked off. Copied
/// into a zeroed `[u8; 8]` and read back (as [`name_key`] does), the copy was a `memcpy` call
/// of the name's length whose bytes the load then waited for (the store could not be forwarded
/// to it): 15 % of the samples of this module's loop landed on that load (`perf annotate`,
/// goldset-dev).
#[inline]
fn key_at(bytes: &[u8], at: usize, len: usize) -> Option<u64> {
    if len > 8 {
        return None;
    }
    if at + 8 <= bytes.len() {
        let keep = u64::MAX.checked_shr(64 - 8 * len as u32).unwrap_or(0);
        return Some(word_at(bytes, at) & keep);
    }
    name_key(&bytes[at..at + len])
}

/// `name`'s bytes in a `u64`, the first in the lowest bits, zero after the name; `None` when
/// it is longer than eight bytes.
const fn name_key(name: &[u8]) -> Option<u64> {
    if name.len() > 8 {
        return None;
    }
    let mut word = [0u8; 8];
    let mut i = 0;
    while i < name.len() {
        word[i] = name[i];
        i += 1;
    }
    Some(u64::from_le_bytes(word))
}

/// [`name_key`] of a name that fits.
const fn key(name: &[u8]) -> u64 {
    match name_key(name) {
        Some(key) => key,
        None => panic!("element names in `kind` have at most eight bytes"),
    }
}

const SCRIPT: u64 = key(b"script");
const STYLE: u64 = key(b"style");
const NOSCRIPT: u64 = key(b"noscript");
const TEMPLATE: u64 = key(b"template");
const NOEMBED: u64 = key(b"noembed");
const NOFRAMES: u64 = key(b"noframes");
const IFRAME: u64 = key(b"iframe");
const A: u64 = key(b"a");
const SPAN: u64 = key(b"span");
const ABBR: u64 = key(b"abbr");
const ACRONYM: u64 = key(b"acronym");
const B: u64 = key(b"b");
const BIG: u64 = key(b"big");
const CITE: u64 = key(b"cite");
const CODE: u64 = key(b"code");
const EM: u64 = key(b"em");
const FONT: u64 = key(b"font");
const I: u64 = key(b"i");
const IMG: u64 = key(b"img");
const KBD: u64 = key(b"kbd");
const LABEL: u64 = key(b"label");
const Q: u64 = key(b"q");
const S: u64 = key(b"s");
const SMALL: u64 = key(b"small");
const STRIKE: u64 = key(b"strike");
const STRONG: u64 = key(b"strong");
const SUB: u64 = key(b"sub");
const SUP: u64 = key(b"sup");
const U: u64 = key(b"u");
const DIV: u64 = key(b"div");
const FORM: u64 = key(b"form");
const TABLE: u64 = key(b"table");
const UL: u64 = key(b"ul");
const OL: u64 = key(b"ol");
const DL: u64 = key(b"dl");
const SECTION: u64 = key(b"section");
const ASIDE: u64 = key(b"aside");
const NAV: u64 = key(b"nav");
const FIELDSET: u64 = key(b"fieldset");

/// Where `style`, in any case, is first in `tag` from `from`. An `s` is looked for first, eight
/// bytes at a time, and the rest compared only there (comparing every window of five bytes
/// without case cost 9 M more of a goldset-dev run's 1.63 G instructions; testing each byte
/// for an `s` was 21 M of 1.36 G).
fn find_style(tag: &[u8], from: usize) -> Option<usize> {
    let end = tag.len().saturating_sub(4);
    let mut i = from;
    while i < end {
        let at = i + find_byte2(b's', b'S', &tag[i..end])?;
        if tag[at + 1..at + 5].eq_ignore_ascii_case(b"tyle") {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// Whether a start tag's `style` attribute hides its element (`display: none`, `visibility:
/// hidden`): a pop-up form or a collapsed menu a reader does not see, such as the e-mail-a-story
/// form that a broadcast network's CMS puts on every station's story page. Only the value of
/// an attribute named `style` counts (not `data-style`, not an `onclick` script).
fn styled_invisible(tag: &[u8]) -> bool {
    let mut from = 0;
    while let Some(at) = find_style(tag, from) {
        from = at + 5;
        if !tag
            .get(at.wrapping_sub(1))
            .is_some_and(u8::is_ascii_whitespace)
        {
            continue;
        }
        let rest = &tag[from..];
        let eq = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if rest.get(eq) != Some(&b'=') {
            continue;
        }
        let value = &rest[eq + 1..];
        let value = &value[value.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        let value = match value.first() {
            Some(&q @ (b'"' | b'\'')) => {
                let body = &value[1..];
                &body[..memchr(q, body).unwrap_or(body.len())]
            }
            _ => {
                let end = value
                    .iter()
                    .position(|b| b.is_ascii_whitespace() || *b == b'>')
                    .unwrap_or(value.len());
                &value[..end]
            }
        };
        return hides(value);
    }
    false
}

/// Whether a `style` value, white space removed and lowercased, holds `display:none` or
/// `visibility:hidden`, in one pass over the value as it is. A lowercased copy of each (one
/// for every container tag with a `style`, 17 k on goldset-dev) searched window by window cost
/// a run 12.8 M more of its 1.30 G instructions; restarting a comparison at every `d` and `v`,
/// 40 M more.
fn hides(value: &[u8]) -> bool {
    const NEEDLES: [&[u8]; 2] = [b"display:none", b"visibility:hidden"];
    // How much of each needle the bytes so far end with. Neither needle's first letter occurs
    // in it again, so after a mismatch only that letter can start a match.
    let mut matched = [0usize; 2];
    for &b in value {
        if b.is_ascii_whitespace() {
            continue;
        }
        let b = b.to_ascii_lowercase();
        for (m, needle) in matched.iter_mut().zip(NEEDLES) {
            *m = if needle[*m] == b {
                *m + 1
            } else {
                usize::from(needle[0] == b)
            };
            if *m == needle.len() {
                return true;
            }
        }
    }
    false
}

/// Where a hidden element's content ends: after its matching closing tag, counting nested
/// elements of the same name and passing over comments, scripts and styles. `None` (nothing
/// is skipped) when it is self-closed, or not closed within `limit` bytes: where a page leaves
/// an element open, an enclosing end tag closes it, and a hidden region that large is more
/// likely that than a pop-up, so it is kept rather than a story dropped.
fn skip_element(html: &str, from: usize, name: &[u8], limit: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    if bytes[..from].ends_with(b"/>") {
        return None;
    }
    let stop = from.saturating_add(limit).min(bytes.len());
    let mut depth = 1usize;
    let mut i = from;
    while i < stop {
        let at = i + memchr(b'<', &bytes[i..stop])?;
        let Some(t) = Tag::at(html, at) else {
            i = at + 1;
            continue;
        };
        i = t.end;
        if t.opens_hidden() {
            i = skip_to_close(bytes, i, t.name);
            continue;
        }
        if t.name.is_empty() || !t.name.eq_ignore_ascii_case(name) {
            continue;
        }
        if t.closing {
            depth -= 1;
            if depth == 0 {
                return Some(t.end);
            }
        } else if !bytes[..t.end].ends_with(b"/>") {
            depth += 1;
        }
    }
    None
}

/// boilerpipe's `NumWordsRulesClassifier` (WSDM 2010): whether each block is content, from its
/// link density and the word counts of it and its neighbours (a missing neighbour counts as
/// an empty block without links).
fn classify(blocks: &[Block]) -> Vec<bool> {
    let empty = Block::default();
    (0..blocks.len())
        .map(|i| {
            let cur = &blocks[i];
            let prev = if i > 0 { &blocks[i - 1] } else { &empty };
            let next = blocks.get(i + 1).unwrap_or(&empty);
            if cur.link_density() > 0.333333 {
                false
            } else if prev.link_density() <= 0.555556 {
                cur.words > 16 || next.words > 15 || prev.words > 4
            } else {
                cur.words > 40 || next.words > 17
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len` characters drawn with `state`: one in `every` by `rare` (from the draw's high
    /// bits), the others from `common`.
    fn mixed_text(
        state: &mut u64,
        len: usize,
        every: u64,
        rare: impl Fn(u64) -> char,
        common: &[u8],
    ) -> String {
        (0..len)
            .map(|_| {
                *state = crate::token::mix64(*state);
                let high = *state >> 8;
                if state.is_multiple_of(every) {
                    rare(high)
                } else {
                    common[(high % common.len() as u64) as usize] as char
                }
            })
            .collect()
    }

    #[test]
    fn ascii_words_are_counted_as_the_unicode_rule_counts_them() {
        let samples = [
            "",
            "   ",
            "one",
            " two words ",
            "a\tb\nc\x0bd\x0ce\rf g",
            "-- 42 ... x-y !! (3)",
            "end.",
            "\u{7f}abc \x01 z",
        ];
        for text in samples {
            assert_eq!(
                count_ascii_words(text.as_bytes()),
                Some(count_words_by_word(text)),
                "{text:?}"
            );
        }
        let mut state = 7u64;
        for n in 0..20_000 {
            // Often the classes' edges, sometimes any ASCII byte.
            let edges = b" \t\n\x0b\x0c\raZ09-.,!\x01\x7f\x08\x0e\x1f/:@[`{";
            let text = mixed_text(&mut state, n % 41, 4, |r| (r % 128) as u8 as char, edges);
            assert_eq!(
                count_ascii_words(text.as_bytes()),
                Some(count_words_by_word(&text)),
                "{text:?}"
            );
        }
        for text in ["é", "abcdefgh ü", "        \u{3000}", "\u{7f}\u{80}"] {
            assert_eq!(count_ascii_words(text.as_bytes()), None, "{text:?}");
            assert_eq!(count_words(text.as_bytes()), count_words_by_word(text));
        }
        // Any text, one character at a time, as word by word.
        let pool: Vec<char> = " \t\u{b}\u{a0}\u{3000}\u{85}a9-é中文ｶﾞﾞ한글ไทย.\u{301}"
            .chars()
            .collect();
        for n in 0..20_000 {
            let text: String = (0..n % 23)
                .map(|_| {
                    state = crate::token::mix64(state);
                    pool[(state % pool.len() as u64) as usize]
                })
                .collect();
            assert_eq!(
                count_words_unicode(&text),
                count_words_by_word(&text),
                "{text:?}"
            );
        }
        // Long text with a little of the same that is not ASCII, as a paragraph's text is.
        for n in 0..5_000 {
            let rare = |r: u64| pool[(r % pool.len() as u64) as usize];
            let text = mixed_text(&mut state, n % 97, 8, rare, b" \tab9-. ");
            assert_eq!(
                count_words(text.as_bytes()),
                count_words_by_word(&text),
                "{text:?}"
            );
            let no_word = text.bytes().all(|b| NO_WORD[usize::from(b)]);
            assert!(!no_word || count_words(text.as_bytes()) == 0, "{text:?}");
        }
    }

    #[test]
    fn style_is_found_in_any_case_where_a_byte_test_finds_it() {
        let by_byte = |tag: &[u8], from: usize| {
            (from..tag.len().saturating_sub(4))
                .find(|&i| tag[i] | 0x20 == b's' && tag[i + 1..i + 5].eq_ignore_ascii_case(b"tyle"))
        };
        let mut state = 11u64;
        for n in 0..20_000 {
            let tag: Vec<u8> = (0..n % 45)
                .map(|_| {
                    state = crate::token::mix64(state);
                    b"sStTyYlLeE =\"x"[(state % 14) as usize]
                })
                .collect();
            for from in [0, 1, 3, 9] {
                assert_eq!(
                    find_style(&tag, from),
                    by_byte(&tag, from),
                    "{tag:?} {from}"
                );
            }
        }
        assert_eq!(find_style(b"<div STYLE=\"x\">", 0), Some(5));
        assert_eq!(find_style(b"<div class=s>", 0), None);
    }

    /// The test of a `style` value as first written: a lowercased copy without white space,
    /// searched window by window.
    fn hides_by_copy(value: &[u8]) -> bool {
        let style: Vec<u8> = (value.iter())
            .filter(|b| !b.is_ascii_whitespace())
            .map(u8::to_ascii_lowercase)
            .collect();
        let has = |needle: &[u8]| style.windows(needle.len()).any(|w| w == needle);
        has(b"display:none") || has(b"visibility:hidden")
    }

    #[test]
    fn a_style_hides_where_its_lowercased_copy_without_white_space_says_so() {
        let mut state = 5u64;
        let mut pick = |n: usize| {
            state = crate::token::mix64(state.wrapping_add(1));
            (state % n as u64) as usize
        };
        let pieces: [&[u8]; 12] = [
            b"display",
            b"DISPLAY",
            b"Visibility",
            b"visibility",
            b":",
            b"none",
            b"NoNe",
            b"hidden",
            b"HIDDEN",
            b" ",
            b"\t\n",
            b"d",
        ];
        let mut hidden = 0;
        for _ in 0..50_000 {
            let mut value = Vec::new();
            for _ in 0..pick(7) {
                let piece = pieces[pick(pieces.len())];
                // Now and then white space inside a piece, or a letter from it dropped.
                let cut = pick(piece.len() + 1);
                value.extend_from_slice(&piece[..cut]);
                match pick(6) {
                    0 => value.push(b' '),
                    1 => continue,
                    _ => {}
                }
                value.extend_from_slice(&piece[cut..]);
            }
            hidden += usize::from(hides_by_copy(&value));
            assert_eq!(hides(&value), hides_by_copy(&value), "{value:?}");
        }
        // Both answers occur often enough to be told apart.
        assert!(hidden > 100, "{hidden}");
        assert!(hides(b"Display : NONE") && !hides(b"display:nonx"));
    }

    fn words(s: &(impl AsRef<[u8]> + ?Sized)) -> Vec<&str> {
        std::str::from_utf8(s.as_ref())
            .unwrap()
            .split_whitespace()
            .collect()
    }

    const STORY: &str = "The council voted on Tuesday to close the old bridge for repairs \
        after engineers found cracks in two of its supports, the mayor said.";

    /// An ad slot's `<iframe>` fallback, the advertiser's markup escaped as text (goldset-dev's
    /// Smoking/s118.htm), is left out of what a coder reads and kept for the detectors.
    #[test]
    fn an_iframes_fallback_is_no_text_to_read() {
        let html = format!(
            "<html><body><div class=story><p>{STORY}</p><p>{STORY}</p>\
             <iframe src=ad.htm width=728 height=90>&lt;a\r\nhref=\"http://clk.atdmt.com/MON/go/x\"\
             target=\"_blank\"&gt;&lt;img src=\"http://view.atdmt.com/MON/view/x\"/&gt;&lt;/a&gt;\
             </iframe><p>{STORY}</p></div></body></html>"
        );
        let read = reading_text(&html);
        assert!(read.contains("council voted"), "{read}");
        assert!(!read.contains("atdmt") && !read.contains("href"), "{read}");
        assert_eq!(read.matches("council voted").count(), 3, "{read}");
        assert!(content_text(&html).contains("atdmt"));
    }

    /// An advertiser's fallback markup escaped as text inside `<noembed>` (goldset-dev's
    /// Coffee/c3.htm) is not page text: a browser shows none of it.
    #[test]
    fn what_noembed_and_noframes_hold_is_no_text() {
        let html = format!(
            "<html><body><div class=story><p>{STORY}</p><p>{STORY}</p>\
             <object><embed src=ad.swf></object><noembed>&lt;A TARGET=\"_new\"\
             HREF=\"http://ad.doubleclick.net/click\"&gt;&lt;IMG SRC=\"x.gif\" BORDER=0&gt;\
             &lt;/A&gt;</noembed><noframes>Your browser has no frames</noframes>\
             <p>{STORY}</p></div></body></html>"
        );
        let text = content_text(&html);
        assert!(text.contains("council voted"), "{text}");
        for junk in ["<A", "<a", "HREF", "IMG", "img", "frames"] {
            assert!(!text.contains(junk), "{junk} kept: {text}");
        }
    }

    #[test]
    fn navigation_goes_and_the_story_stays() {
        let html = format!(
            "<html><body><ul><li><a href=/>Home</a></li><li><a href=/news>News</a></li>\
             <li><a href=/sport>Sport</a></li></ul><div class=story><h1>Bridge closed</h1>\
             <p>{STORY}</p><p>{STORY}</p></div><div class=footer><a href=/a>About us</a> | \
             <a href=/c>Contact</a> | <a href=/p>Privacy</a></div>\
             <script>var x = 1;</script></body></html>"
        );
        let text = content_text(&html);
        assert!(text.contains("council voted"), "{text}");
        for frame in ["Home", "Sport", "About", "Privacy", "var"] {
            assert!(!words(&text).contains(&frame), "{frame} kept: {text}");
        }
    }

    #[test]
    fn a_block_a_reader_never_sees_is_not_content() {
        // A network's e-mail-a-story pop-up, hidden until clicked, with nested divs; the story
        // after it stays.
        let form = "You can send a story to multiple email addresses by separating the \
            addresses with a semicolon. This station will not store your email address or \
            your recipient's email address or use them in any way at all, ever.";
        let html = format!(
            "<div class=Modal style=\"height: 400px; DISPLAY : none; position: absolute\">\
             <div><p>{form}</p><div><p>Send</p></div></div></div><p>{STORY}</p><p>{STORY}</p>\
             <p>{STORY}</p><p>{STORY}</p>"
        );
        let text = content_text(&html);
        assert!(text.contains("council voted"), "{text}");
        assert!(!text.contains("station"), "{text}");
        let shown = content_text(&html.replace("DISPLAY : none", "display: block"));
        assert!(shown.contains("station"), "{shown}");
        // visibility: hidden too; a hidden element never closed hides nothing, nor does one
        // that would hide most of the page; a hidden `p` (often left open) is not judged.
        let hidden = format!(
            "<span style='visibility:hidden'><p>{form}</p></span><p>{STORY}</p><p>{STORY}</p>"
        );
        assert!(!content_text(&hidden).contains("station"));
        let open = format!("<div style='display:none'><p>{STORY}</p><p>{STORY}</p>");
        assert!(content_text(&open).contains("council voted"));
        let most = format!(
            "<div style='display:none'><p>{STORY}</p><p>{STORY}</p></div><p>Shown in a script.</p>"
        );
        assert!(content_text(&most).contains("council voted"));
        let p = format!("<p style='display:none'>{STORY}<p>{STORY}");
        assert!(content_text(&p).contains("council voted"));
        // A hidden div still ends a block; a hidden span does not.
        let (text, b) = blocks("one <div style='display:none'>hidden</div> two", false);
        assert_eq!(
            b.iter()
                .map(|b| words(&text[b.text.clone()]))
                .collect::<Vec<_>>(),
            [["one"], ["two"]]
        );
        let (text, b) = blocks("one <span style='display:none'>hidden</span> two", false);
        assert_eq!(b.len(), 1);
        assert_eq!(words(&text[b[0].text.clone()]), ["one", "two"]);
        // Nested and self-closed elements of the same name are counted.
        let all = usize::MAX;
        assert_eq!(skip_element("<div/>x</div>", 0, b"div", all), Some(13));
        assert_eq!(
            skip_element("a<div>b</div>c</div>d", 0, b"div", all),
            Some(20)
        );
        assert_eq!(skip_element("a<divx>b</div >c", 0, b"div", all), Some(15));
        assert_eq!(skip_element("<div/>", 6, b"div", all), None);
        assert_eq!(skip_element("<div>open", 5, b"div", all), None);
        // Tags inside comments and scripts are not counted.
        let html = "a<!-- <div> --><script>x='</div>'</script>b</div>c";
        assert_eq!(skip_element(html, 0, b"div", all), Some(html.len() - 1));
        // Not closed within the limit: nothing is skipped.
        assert_eq!(skip_element("a<div>b</div>c</div>", 0, b"div", 10), None);
        // Only the style attribute's value hides.
        assert!(styled_invisible(b"<div style='display:none'>"));
        // `style` found as every window of five bytes compared without case would find it.
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let parts: [&[u8]; 9] = [
            b"s", b"S", b"tyle", b"TYLE", b"sTyLe", b"st", b"yle", b" ", b"\xd3",
        ];
        for _ in 0..20_000 {
            let tag: Vec<u8> = (0..rng.random_range(0..12))
                .flat_map(|_| parts[rng.random_range(0..parts.len())].iter().copied())
                .collect();
            let from = rng.random_range(0..=tag.len());
            let windows = tag[from..]
                .windows(5)
                .position(|w| w.eq_ignore_ascii_case(b"style"))
                .map(|p| from + p);
            assert_eq!(find_style(&tag, from), windows, "{tag:?} from {from}");
        }
        assert!(styled_invisible(
            b"<div\nSTYLE = \"color:red; display : none\">"
        ));
        assert!(styled_invisible(b"<div style=display:none>"));
        assert!(!styled_invisible(
            b"<div class=stylebox data-toggle=\"display:none\">"
        ));
        assert!(!styled_invisible(b"<div data-style=\"display:none\">"));
        assert!(!styled_invisible(
            b"<div style=\"color:red\" onclick=\"display:none\">"
        ));
    }

    /// [`kind`] of `name` read both ways: alone (the bytes copied, as at a page's end) and
    /// with eight bytes after it (one load, the rest masked off); the two must agree.
    fn kind_of(name: &str) -> u8 {
        let alone = kind(name.as_bytes(), 0, name.len());
        let in_tag = format!("<{name} class=\"x\">");
        assert_eq!(kind(in_tag.as_bytes(), 1, name.len()), alone, "{name}");
        alone
    }

    #[test]
    fn tag_names_are_matched_in_any_case_and_whole() {
        for inline in ["a", "A", "Span", "STRONG", "acronym"] {
            assert!(kind_of(inline) & INLINE != 0, "{inline}");
        }
        for other in ["", "div", "spanx", "abbreviation", "p", "h1"] {
            assert!(kind_of(other) & INLINE == 0, "{other}");
        }
        let container = |name: &str| kind_of(name) & CONTAINER != 0;
        assert!(container("FieldSet") && container("div") && container("span"));
        assert!(!container("fieldsets") && !container("p") && !container("d"));
        assert_eq!(kind_of("A"), LINK | INLINE);
        for hidden in ["script", "STYLE", "NoScript", "template"] {
            assert_eq!(kind_of(hidden), HIDDEN, "{hidden}");
        }
        assert_eq!(kind_of("scripts") | kind_of("templates") | kind_of("ab"), 0);
        // A name that fills the eight bytes, and one cut by the page's end.
        assert_eq!(kind(b"<fieldset>", 1, 8), CONTAINER);
        assert_eq!(kind(b"</nav", 2, 3), CONTAINER);
    }

    /// The key read with one load (the bytes after the name masked off) equals the name's bytes
    /// copied, for every length up to eight and whatever follows the name.
    #[test]
    fn a_names_key_is_its_bytes_whatever_follows() {
        let page = b"<aBcDeFgHiJ>xyzXYZ012";
        for len in 0..=9 {
            let name = &page[1..1 + len];
            assert_eq!(key_at(page, 1, len), name_key(name), "{len}");
            assert_eq!(key_at(name, 0, len), name_key(name), "{len}");
        }
        assert_eq!(key_at(page, 1, 9), None);
    }

    #[test]
    fn inline_tags_and_entities_stay_inside_a_block() {
        let (text, b) = blocks(
            "<p>one <b>two</b> <a href=x>three</a> caf&eacute;</p><div>four</div>",
            false,
        );
        assert_eq!(b.len(), 2);
        assert_eq!(
            words(&text[b[0].text.clone()]),
            ["one", "two", "three", "café"]
        );
        assert_eq!((b[0].words, b[0].linked), (4, 1));
        assert_eq!(words(&text[b[1].text.clone()]), ["four"]);
    }

    #[test]
    fn a_page_of_links_only_keeps_its_text() {
        let html = "<ul><li><a href=1>First link</a></li><li><a href=2>Second</a></li></ul>";
        assert_eq!(words(&content_text(html)), ["First", "link", "Second"]);
    }

    #[test]
    fn classifier_follows_the_published_tree() {
        let b = |words, linked| Block {
            text: 0..0,
            words,
            linked,
        };
        // Short block between short blocks: boilerplate; after a long block: content.
        assert!(!classify(&[b(3, 0), b(10, 0), b(3, 0)])[1]);
        assert!(classify(&[b(5, 0), b(10, 0), b(3, 0)])[1]);
        // Mostly links: boilerplate however long.
        assert_eq!(classify(&[b(50, 40)]), [false]);
        // After a link list, a block needs 41 words or a long next block.
        assert!(!classify(&[b(10, 10), b(40, 0), b(3, 0)])[1]);
        assert!(classify(&[b(10, 10), b(41, 0), b(3, 0)])[1]);
        assert!(classify(&[b(10, 10), b(20, 0), b(18, 0)])[1]);
    }
}
