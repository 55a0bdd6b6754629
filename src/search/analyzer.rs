//! The search analyzer: a page's words as index terms, and a query's words as the same terms.
//!
//! Words are those of [`crate::passages::Core`] (letter-or-digit runs; soft hyphens and
//! zero-width characters inside a word passed over), each brought to NFKC and lowercased as the
//! detectors' terms are ([`crate::token::markup::for_each_term`]). A word of a language with a
//! Snowball stemmer (`rust-stemmers`: Arabic, Danish, Dutch, English, Finnish, French, German,
//! Greek, Hungarian, Italian, Norwegian, Portuguese, Romanian, Russian, Spanish, Swedish, Tamil,
//! Turkish) is indexed as its stem, prefixed by the language (`de:flüchtling`); a word of any
//! other language, or of a page whose language is unknown, as itself under `_:`.
//!
//! **Unspaced scripts** (Chinese, Japanese, Thai …: [`crate::token::markup::is_unspaced`]) are
//! indexed by character n-grams: each character as a unigram and, where the next character is
//! also unspaced and adjacent, the bigram of the two at the same position (CJK bigrams, as
//! Lucene's CJKAnalyzer and Elasticsearch's `cjk_bigram` do). A query of one character finds its
//! unigram, of two its bigram, of more the phrase of its overlapping bigrams. A dictionary
//! segmenter was not taken: on the pages of frames-dev and of the shared archives its words and
//! a query's need not split alike (a two-character query inside a longer dictionary word would
//! not be found), while bigrams find every page containing the characters, at the cost of a
//! larger index in those scripts.
//!
//! A page's words keep their byte offsets in its text, so snippets mark the hits where they are.

use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::token::markup::{for_each_term, is_unspaced};

/// The languages with a stemmer, by the codes [`crate::token::language`] gives.
pub const STEMMED: &[(&str, Algorithm)] = &[
    ("ar", Algorithm::Arabic),
    ("da", Algorithm::Danish),
    ("nl", Algorithm::Dutch),
    ("en", Algorithm::English),
    ("fi", Algorithm::Finnish),
    ("fr", Algorithm::French),
    ("de", Algorithm::German),
    ("el", Algorithm::Greek),
    ("hu", Algorithm::Hungarian),
    ("it", Algorithm::Italian),
    ("nb", Algorithm::Norwegian),
    ("pt", Algorithm::Portuguese),
    ("ro", Algorithm::Romanian),
    ("ru", Algorithm::Russian),
    ("es", Algorithm::Spanish),
    ("sv", Algorithm::Swedish),
    ("ta", Algorithm::Tamil),
    ("tr", Algorithm::Turkish),
];

/// The prefix of terms of languages without a stemmer, of unknown languages and of unspaced
/// scripts.
pub const PLAIN: &str = "_";

/// The language codes of [`STEMMED`].
pub fn stemmed_codes() -> Vec<&'static str> {
    STEMMED.iter().map(|(c, _)| *c).collect()
}

fn stemmers() -> &'static HashMap<&'static str, Stemmer> {
    static STEMMERS: OnceLock<HashMap<&'static str, Stemmer>> = OnceLock::new();
    STEMMERS.get_or_init(|| {
        STEMMED
            .iter()
            .map(|&(code, algo)| (code, Stemmer::create(algo)))
            .collect()
    })
}

/// The term prefix of a page in `lang`: the language where it has a stemmer, else [`PLAIN`].
pub fn prefix_of(lang: Option<&str>) -> &str {
    match lang {
        Some(l) if stemmers().contains_key(l) => l,
        _ => PLAIN,
    }
}

/// One term of a text: its index term, its byte range in the text and its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The index term (`de:flüchtling`, `_:难民`).
    pub text: String,
    /// Byte range in the analysed text.
    pub from: usize,
    /// End of the byte range.
    pub to: usize,
    /// Position (words count one, an unspaced character one; its bigram shares it).
    pub position: usize,
}

/// Words whose terms a thread keeps (per language), before it forgets them all.
const STEM_CACHE: usize = 200_000;

thread_local! {
    /// Each thread's recent terms, by language prefix and word: a page's words are mostly the
    /// words of the pages before it (Zipf), and Snowball took a seventh of an index build's
    /// time before they were kept.
    static STEMS: std::cell::RefCell<HashMap<String, HashMap<String, String>>> =
        std::cell::RefCell::new(HashMap::new());
}

/// The term of one normalised word `word` under `prefix`.
pub fn term(prefix: &str, word: &str) -> String {
    let Some(stemmer) = stemmers().get(prefix) else {
        let mut t = String::with_capacity(prefix.len() + 1 + word.len());
        t.push_str(prefix);
        t.push(':');
        t.push_str(word);
        return t;
    };
    STEMS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let of_lang = match cache.get_mut(prefix) {
            Some(c) => c,
            None => cache.entry(prefix.to_string()).or_default(),
        };
        if let Some(t) = of_lang.get(word) {
            return t.clone();
        }
        if of_lang.len() >= STEM_CACHE {
            of_lang.clear();
        }
        let stem = stemmer.stem(word);
        let mut t = String::with_capacity(prefix.len() + 1 + stem.len());
        t.push_str(prefix);
        t.push(':');
        t.push_str(&stem);
        of_lang.insert(word.to_string(), t.clone());
        t
    })
}

/// The terms of `text` whose words are `words` (byte ranges, as [`crate::passages::Core`]
/// finds them), for a page whose terms take `prefix` ([`prefix_of`]). `keep(k)` says whether
/// word `k` is indexed (the site's frame is not).
pub fn terms_of_words(
    text: &str,
    words: &[(u32, u32)],
    prefix: &str,
    keep: impl Fn(usize) -> bool,
) -> Vec<Term> {
    let mut out = Vec::with_capacity(words.len() * 5 / 4);
    let mut position = 0usize;
    // The last unspaced character kept: its byte range and normalised text, for its bigram.
    let mut last_unspaced: Option<(usize, usize, String)> = None;
    for (k, &(s, e)) in words.iter().enumerate() {
        if !keep(k) {
            last_unspaced = None;
            continue;
        }
        let (s, e) = (s as usize, e as usize);
        let word = &text[s..e];
        let unspaced = word.chars().next().is_some_and(is_unspaced);
        if unspaced {
            let mut norm = String::new();
            for_each_term(word, |t| norm.push_str(t));
            if norm.is_empty() {
                last_unspaced = None;
                continue;
            }
            if let Some((ps, pe, prev)) = last_unspaced.take()
                && pe == s
            {
                out.push(Term {
                    text: format!("{PLAIN}:{prev}{norm}"),
                    from: ps,
                    to: e,
                    position: position - 1,
                });
            }
            out.push(Term {
                text: format!("{PLAIN}:{norm}"),
                from: s,
                to: e,
                position,
            });
            position += 1;
            last_unspaced = Some((s, e, norm));
        } else {
            last_unspaced = None;
            for_each_term(word, |t| {
                out.push(Term {
                    text: term(prefix, t),
                    from: s,
                    to: e,
                    position,
                });
                position += 1;
            });
        }
    }
    out
}

/// The terms of a whole text (every word kept), as [`terms_of_words`].
pub fn terms_of_text(text: &str, prefix: &str) -> Vec<Term> {
    let core = crate::passages::Core::of_text(text.to_string());
    terms_of_words(&core.text, &core.words, prefix, |_| true)
}

/// The words of `terms` (of `text`) unstemmed, each once per position, without a language
/// prefix: what prefix queries look in. Unspaced characters are their unigrams.
pub fn bare_words(terms: &[Term], text: &str) -> Vec<Term> {
    let mut out = Vec::with_capacity(terms.len());
    let mut last: Option<(usize, usize)> = None;
    for t in terms {
        // A bigram shares its first character's position and starts where it does.
        if last == Some((t.from, t.position)) {
            continue;
        }
        last = Some((t.from, t.position));
        let mut norm = String::new();
        for_each_term(&text[t.from..t.to], |w| norm.push_str(w));
        out.push(Term {
            text: norm,
            from: t.from,
            to: t.to,
            position: t.position,
        });
    }
    out
}

/// What separates a field value's language prefix from its text ([`field_value`]).
const HEADER_END: char = '\u{1}';

/// A text as the index's fields take it: the prefix of its terms ([`prefix_of`]) before the
/// text, so that [`PageTokenizer`] analyses it in its page's language.
pub fn field_value(prefix: &str, text: &str) -> String {
    let mut v = String::with_capacity(prefix.len() + 1 + text.len());
    v.push_str(prefix);
    v.push(HEADER_END);
    v.push_str(text);
    v
}

/// The index's tokenizer: a field value of [`field_value`] cut by [`terms_of_text`] in its
/// language (`bare`: its words unstemmed, [`bare_words`]). Registered on every index this
/// version opens, as `samecore` and `samecore_bare`.
#[derive(Debug, Clone, Copy)]
pub struct PageTokenizer {
    /// Words unstemmed, without positions' bigrams.
    pub bare: bool,
}

/// The tokens of one field value.
pub struct PageTokens {
    tokens: Vec<tantivy::tokenizer::Token>,
    at: usize,
}

impl tantivy::tokenizer::Tokenizer for PageTokenizer {
    type TokenStream<'a> = PageTokens;

    fn token_stream<'a>(&'a mut self, value: &'a str) -> PageTokens {
        let (prefix, text, skip) = match value.split_once(HEADER_END) {
            Some((p, t)) => (p, t, p.len() + HEADER_END.len_utf8()),
            None => (PLAIN, value, 0),
        };
        let prefix = prefix_of(Some(prefix));
        let mut terms = terms_of_text(text, prefix);
        if self.bare {
            terms = bare_words(&terms, text);
        }
        PageTokens {
            tokens: terms
                .into_iter()
                .map(|t| tantivy::tokenizer::Token {
                    offset_from: t.from + skip,
                    offset_to: t.to + skip,
                    position: t.position,
                    text: t.text,
                    position_length: 1,
                })
                .collect(),
            at: usize::MAX,
        }
    }
}

impl tantivy::tokenizer::TokenStream for PageTokens {
    fn advance(&mut self) -> bool {
        self.at = self.at.wrapping_add(1);
        self.at < self.tokens.len()
    }

    fn token(&self) -> &tantivy::tokenizer::Token {
        &self.tokens[self.at]
    }

    fn token_mut(&mut self) -> &mut tantivy::tokenizer::Token {
        &mut self.tokens[self.at]
    }
}

/// A query word, analysed: the normalised words it holds (a word may hold several after NFKC,
/// `¼` is `1 4`) or, in an unspaced script, its characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryPiece {
    /// A spaced-script word (normalised, not stemmed).
    Word(String),
    /// A run of unspaced characters (normalised), one string each.
    Unspaced(Vec<String>),
}

/// The pieces of a query text (a word or a phrase's words) in order.
pub fn query_pieces(text: &str) -> Vec<QueryPiece> {
    let core = crate::passages::Core::of_text(text.to_string());
    let mut out: Vec<QueryPiece> = Vec::new();
    let mut last_end: Option<usize> = None;
    for &(s, e) in &core.words {
        let word = &core.text[s as usize..e as usize];
        if word.chars().next().is_some_and(is_unspaced) {
            let mut norm = String::new();
            for_each_term(word, |t| norm.push_str(t));
            if norm.is_empty() {
                continue;
            }
            match out.last_mut() {
                Some(QueryPiece::Unspaced(chars)) if last_end == Some(s as usize) => {
                    chars.push(norm)
                }
                _ => out.push(QueryPiece::Unspaced(vec![norm])),
            }
        } else {
            for_each_term(word, |t| out.push(QueryPiece::Word(t.to_string())));
        }
        last_end = Some(e as usize);
    }
    out
}

/// A phrase of index terms for `pieces` under `prefix`: each term with its position offset.
/// An unspaced run of one character is its unigram, of more its overlapping bigrams.
pub fn phrase_terms(pieces: &[QueryPiece], prefix: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut position = 0usize;
    for piece in pieces {
        match piece {
            QueryPiece::Word(w) => {
                out.push((position, term(prefix, w)));
                position += 1;
            }
            QueryPiece::Unspaced(chars) if chars.len() == 1 => {
                out.push((position, format!("{PLAIN}:{}", chars[0])));
                position += 1;
            }
            QueryPiece::Unspaced(chars) => {
                for pair in chars.windows(2) {
                    out.push((position, format!("{PLAIN}:{}{}", pair[0], pair[1])));
                    position += 1;
                }
                position += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn german_inflections_share_a_stem() {
        let a = terms_of_text("Die Flüchtlinge kamen", "de");
        let b = terms_of_text("des Flüchtlings", "de");
        assert_eq!(a[1].text, b[1].text);
        // Snowball's German stemmer folds umlauts.
        assert_eq!(a[1].text, "de:fluchtling");
        // Offsets point at the word in the text.
        assert_eq!(&"Die Flüchtlinge kamen"[a[1].from..a[1].to], "Flüchtlinge");
    }

    #[test]
    fn unknown_languages_are_plain_and_folded() {
        let t = terms_of_text("ＡＢＣ Déjà", PLAIN);
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["_:abc", "_:déjà"]);
        assert_eq!(prefix_of(Some("zh")), PLAIN);
        assert_eq!(prefix_of(None), PLAIN);
        assert_eq!(prefix_of(Some("fr")), "fr");
    }

    #[test]
    fn unspaced_text_has_unigrams_and_bigrams() {
        let t = terms_of_text("难民营 abc", "en");
        let texts: Vec<(&str, usize)> = t.iter().map(|t| (t.text.as_str(), t.position)).collect();
        assert_eq!(
            texts,
            [
                ("_:难", 0),
                ("_:难民", 0),
                ("_:民", 1),
                ("_:民营", 1),
                ("_:营", 2),
                ("en:abc", 3)
            ]
        );
        let q = query_pieces("难民营");
        assert_eq!(
            phrase_terms(&q, "de"),
            [(0, "_:难民".to_string()), (1, "_:民营".to_string())]
        );
        assert_eq!(
            phrase_terms(&query_pieces("难"), "de"),
            [(0, "_:难".to_string())]
        );
    }

    #[test]
    fn frame_words_are_left_out() {
        let core = crate::passages::Core::of_text("menu story menu".into());
        let t = terms_of_words(&core.text, &core.words, "en", |k| k == 1);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].text, "en:stori");
    }
}
