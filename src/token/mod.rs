//! Tokenizers: a decoded page in, a sequence of lowercased terms out.
//!
//! Which one should you use?
//!
//! - [`markup`]: the SpotSigs reference style. The raw page **including markup**, lowercased and
//!   split on white space and punctuation; no HTML stripping at all, as the Web Sociologists'
//!   Workbench paper argues (§1: "we do not remove ads, client side scripts and other HTML
//!   formatting elements"). One byte loop, no allocation per term.
//! - [`strip`]: the same splitter run over the page's text after a one-pass tag stripper that
//!   drops `script`, `style`, `noscript` and comments. Nearly as fast as [`markup`]; on
//!   goldset-dev it lifts SpotSigs from pair F1 0.22 (markup, no IDF band) or 0.78 (markup with
//!   the reference band) to 0.93 (tuning record in [`crate::eval`]), so it is SpotSigs' default
//!   [`TokenSource`].
//! - [`henzinger`]: Henzinger (SIGIR 2006) §2 — markup replaced by white space, maximal
//!   alphanumeric runs are terms, URLs in the text break at slashes and dots, an `IMG src` is one
//!   term (whole URL for another host, file name for the page's own host).
//! - [`content`]: the text of the page's content blocks, by boilerpipe's block classifier in
//!   the tag stripper's loop: a site's navigation, teasers and footers left out (same core).
//! - [`visible`]: the visible text through a full DOM parse (scraper), for display and token
//!   diffs. 10–30x slower than the others: keep it off the signature path.
//!
//! Terms are fed to a callback (`for_each_*`) so signature code can hash them without building
//! strings; the `*_terms` functions collect owned strings for tests and display.

pub mod content;
pub mod entities;
pub mod henzinger;
pub mod language;
pub mod markup;
pub mod strip;
pub mod visible;

use serde::{Deserialize, Serialize};

/// The text a signature scheme tokenizes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TokenSource {
    /// The raw page including markup ([`markup`]), as the SpotSigs reference code does.
    Markup,
    /// Text after the fast tag stripper ([`strip`]); script, style and comments dropped.
    #[default]
    Text,
    /// Henzinger §2 terms ([`henzinger`]), IMG sources included.
    Henzinger,
    /// Visible text through scraper's DOM ([`visible`]); slow, for comparison.
    Dom,
    /// The text of the page's content blocks ([`content`]): the tag stripper with boilerpipe's
    /// block classifier, so a site's navigation and footers do not count.
    Content,
}

impl TokenSource {
    /// Every source, for loops in tests and tuning.
    pub const ALL: [TokenSource; 5] = [
        TokenSource::Markup,
        TokenSource::Text,
        TokenSource::Henzinger,
        TokenSource::Dom,
        TokenSource::Content,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TokenSource::Markup => "markup",
            TokenSource::Text => "text",
            TokenSource::Henzinger => "henzinger",
            TokenSource::Dom => "dom",
            TokenSource::Content => "content",
        }
    }

    /// Feed every term of `html` (a page fetched from `url`, if known) to `f`, in page order.
    pub fn for_each_term(self, html: &str, url: Option<&str>, f: impl FnMut(&str)) {
        match self {
            TokenSource::Markup => markup::for_each_term(html, f),
            TokenSource::Text => markup::for_each_term(&strip::strip_tags(html), f),
            TokenSource::Henzinger => henzinger::for_each_term(html, url, f),
            TokenSource::Dom => markup::for_each_term(&visible::visible_text(html), f),
            TokenSource::Content => markup::for_each_term(&content::content_text(html), f),
        }
    }

    /// Every term of `html` as owned strings.
    pub fn terms(self, html: &str, url: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_term(html, url, |t| out.push(t.to_string()));
        out
    }
}

impl std::str::FromStr for TokenSource {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        TokenSource::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                crate::Error::InvalidParameter(format!(
                    "unknown tokenizer {s:?} (expected markup, text, henzinger, dom or content)"
                ))
            })
    }
}

/// A 64-bit hash of a term (FNV-1a with a final avalanche), stable across runs and platforms so
/// signatures can be stored and compared later.
pub fn term_hash(term: &str) -> u64 {
    term_hash_bytes(term.as_bytes())
}

/// [`term_hash`] of a term's bytes.
#[inline]
pub fn term_hash_bytes(term: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in term {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix64(h)
}

/// Maps and sets keyed by [`term_hash`]es: the key is already a hash, spread over all its bits
/// by [`mix64`], so it is its own bucket hash (SipHash over it cost 4 % of a goldset-dev run).
pub type TermHashed = std::hash::BuildHasherDefault<PassThrough>;

/// The [`std::hash::Hasher`] of [`TermHashed`]: the last `u64` written is the hash.
#[derive(Debug, Default, Clone, Copy)]
pub struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed this way; anything else still hashes, if slowly.
        for &b in bytes {
            self.0 = mix64(self.0 ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// A bijective 64-bit finaliser (from MurmurHash3) so nearby inputs spread over all bits.
pub fn mix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_names_round_trip() {
        for s in TokenSource::ALL {
            assert_eq!(s.name().parse::<TokenSource>().ok(), Some(s));
        }
        assert!("nope".parse::<TokenSource>().is_err());
    }

    #[test]
    fn term_hash_is_stable_and_distinguishes() {
        assert_eq!(term_hash("the"), term_hash("the"));
        assert_ne!(term_hash("the"), term_hash("The"));
        assert_ne!(term_hash("ab"), term_hash("ba"));
    }

    #[test]
    fn text_source_drops_script_but_markup_keeps_it() {
        let html = "<p>Hello <script>var x</script>World</p>";
        assert_eq!(TokenSource::Text.terms(html, None), ["hello", "world"]);
        assert_eq!(
            TokenSource::Markup.terms(html, None),
            ["p", "hello", "script", "var", "x", "script", "world", "p"]
        );
    }
}
