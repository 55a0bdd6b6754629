//! The SpotSigs reference tokenizer: text in (usually the raw page, markup included), terms out,
//! lowercased, split on white space and punctuation (Theobald et al. SIGIR 2008 §5: the public
//! code "tokenizes the raw page including markup, lowercases, and splits on punctuation").
//!
//! A term is a maximal run of alphanumeric characters and combining marks (ASCII fast path,
//! Unicode for the rest), so `<a href="x.html">` gives `a`, `href`, `x`, `html`. Every
//! tokenizer of the crate ends here, so what follows holds for every detector alike:
//!
//! - **Unicode normalisation and case folding.** A term with a character outside ASCII is
//!   brought to NFKC and lowercased, so a full-width `Ｗｅｂ`, a ligature `ﬁ` or a decomposed
//!   `e` + U+0301 give the same term as their plain spelling.
//! - **Scripts written without spaces** (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar,
//!   Tibetan): every character is a term of its own. Character unigrams rather than a
//!   segmenter (jieba, lindera): they need no dictionary (a segmenter carries 10–60 MB of one,
//!   per language), cost nothing, and near-duplicate detection needs only that two copies of a
//!   text give the same terms, not that the terms are words; shingles of characters are what
//!   CJK search engines index too (Lucene's CJK analyzer), and SpotSigs chains two spot
//!   characters after each function character (`assets/antecedents/zh.txt`).
//!
//! One pass, one reusable buffer; nothing is allocated per ASCII term.

use unicode_normalization::{UnicodeNormalization, char::is_combining_mark, is_nfkc_quick};

/// Whether `c` is a letter of a script written without spaces between words, whose letters
/// are terms one by one (the scripts' punctuation — `・`, the Tibetan tsheg, Khmer signs —
/// separates terms as any punctuation does).
pub fn is_unspaced(c: char) -> bool {
    // The ranges first: Unicode's letter table is a search, and most characters are not in them.
    matches!(c as u32,
            0x0E00..=0x0EFF         // Thai, Lao
            | 0x0F00..=0x0FFF       // Tibetan
            | 0x1000..=0x109F       // Myanmar
            | 0x1780..=0x17FF       // Khmer
            | 0x2E80..=0x2FDF       // CJK radicals, Kangxi radicals
            | 0x3005..=0x3007       // 々 〆 〇
            | 0x3040..=0x30FF       // Hiragana, Katakana
            | 0x3100..=0x312F       // Bopomofo
            | 0x31F0..=0x31FF       // Katakana extension
            | 0x3400..=0x4DBF       // CJK extension A
            | 0x4E00..=0x9FFF       // CJK unified ideographs
            | 0xF900..=0xFAFF       // CJK compatibility ideographs
            | 0xFF66..=0xFF9F       // half-width Katakana
            | 0x20000..=0x3134F     // CJK extensions B–G
    ) && !is_voicing_mark(c)
        && c.is_alphanumeric()
}

/// Half-width katakana's voicing marks (U+FF9E, U+FF9F): letters by their category, but they
/// belong to the character before them, with which NFKC composes them (`ｶﾞ` is `ガ`).
fn is_voicing_mark(c: char) -> bool {
    matches!(c, '\u{FF9E}' | '\u{FF9F}')
}

/// Feed every lowercased term of `text` to `f`, in order.
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut buf = String::with_capacity(32);
    // Whether `buf` holds a character outside ASCII (then it is normalised before it goes out).
    let mut wide = false;
    let mut norm = String::new();
    let mut emit = |buf: &mut String, wide: &mut bool, f: &mut dyn FnMut(&str)| {
        if buf.is_empty() {
            return;
        }
        if *wide && is_nfkc_quick(buf.chars()) != unicode_normalization::IsNormalized::Yes {
            norm.clear();
            // NFKC can make upper case again (full-width letters) and split a term (`¼`).
            for c in buf.nfkc().flat_map(char::to_lowercase) {
                if c.is_alphanumeric() || is_combining_mark(c) {
                    norm.push(c);
                } else if !norm.is_empty() {
                    f(&norm);
                    norm.clear();
                }
            }
            if !norm.is_empty() {
                f(&norm);
            }
        } else {
            f(buf);
        }
        buf.clear();
        *wide = false;
    };
    // Whether `buf` holds one character of a script without spaces (and its marks).
    let mut single = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if !b.is_ascii_alphanumeric() {
                // Most such bytes follow a term that went out as a slice: nothing to emit, and
                // no call (823 k calls on goldset-dev, most of them with nothing held).
                if !buf.is_empty() {
                    emit(&mut buf, &mut wide, &mut f);
                }
                single = false;
                i += 1;
                continue;
            }
            if single {
                emit(&mut buf, &mut wide, &mut f);
                single = false;
            }
            // A run of ASCII letters and digits. A whole term in lower case (most terms) goes
            // out as a slice of `text`, not copied a byte at a time.
            let start = i;
            i += super::strip::alnum_prefix(&bytes[i..]);
            let run = &text[start..i];
            let ends_term = bytes.get(i).is_none_or(|&n| n < 0x80);
            // Of ASCII letters and digits, only upper-case letters lack the 0x20 bit.
            if buf.is_empty() && ends_term && run.bytes().all(|c| c & 0x20 != 0) {
                f(run);
            } else {
                let from = buf.len();
                buf.push_str(run);
                buf[from..].make_ascii_lowercase();
            }
            continue;
        }
        // Non-ASCII: decode one char (the input is a `str`, so it is valid UTF-8).
        let ch = text[i..].chars().next().unwrap_or(' ');
        if is_combining_mark(ch) || is_voicing_mark(ch) {
            // A mark belongs to the character before it (Thai vowel signs, a decomposed
            // accent); one with nothing before it is dropped.
            if !buf.is_empty() {
                buf.push(ch);
                wide = true;
            }
        } else if is_unspaced(ch) {
            emit(&mut buf, &mut wide, &mut f);
            buf.push(ch);
            wide = true;
            single = true;
        } else if ch.is_alphanumeric() {
            if single {
                emit(&mut buf, &mut wide, &mut f);
                single = false;
            }
            buf.extend(ch.to_lowercase());
            wide = true;
        } else {
            emit(&mut buf, &mut wide, &mut f);
            single = false;
        }
        i += ch.len_utf8();
    }
    emit(&mut buf, &mut wide, &mut f);
}

/// Every term of `text` as owned strings.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t| out.push(t.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_markup_and_punctuation_and_lowercases() {
        assert_eq!(
            terms("<A HREF=\"x.html\">Is it?</a>"),
            ["a", "href", "x", "html", "is", "it", "a"]
        );
    }

    #[test]
    fn unicode_letters_stay_in_words_and_unicode_punctuation_splits() {
        assert_eq!(
            terms("Café “Über” naïve—end"),
            ["café", "über", "naïve", "end"]
        );
    }

    #[test]
    fn empty_and_punctuation_only_give_nothing() {
        assert!(terms("").is_empty());
        assert!(terms(" <> ,.;:!? ").is_empty());
    }

    #[test]
    fn scripts_without_spaces_give_a_term_per_character() {
        assert_eq!(
            terms("新闻报道说，政府"),
            ["新", "闻", "报", "道", "说", "政", "府"]
        );
        // Kana and kanji alike; Latin inside stays a word.
        assert_eq!(
            terms("東京のWeb会議"),
            ["東", "京", "の", "web", "会", "議"]
        );
        // A Thai vowel sign (a combining mark) stays with its consonant.
        assert_eq!(terms("กัน"), ["กั", "น"]);
        // The scripts' punctuation separates: the katakana middle dot, the Tibetan tsheg.
        assert_eq!(
            terms("コーヒー・ショップ"),
            ["コ", "ー", "ヒ", "ー", "シ", "ョ", "ッ", "プ"]
        );
        assert_eq!(terms("བོད་ཡིག"), ["བོ", "ད", "ཡི", "ག"]);
        // Half-width katakana with a voicing mark is its full-width letter.
        assert_eq!(terms("ｶﾞｲﾄﾞ"), terms("ガイド"));
        // Korean is written with spaces: words.
        assert_eq!(terms("대한민국 정부는"), ["대한민국", "정부는"]);
    }

    #[test]
    fn terms_are_nfkc_and_lowercase_in_every_spelling() {
        // Full-width letters, a ligature, a decomposed accent: the plain term.
        assert_eq!(terms("ＷＥＢ ﬁle Cafe\u{301}"), ["web", "file", "café"]);
        assert_eq!(terms("Café"), terms("Cafe\u{301}"));
        assert_eq!(terms("ΣΟΦΊΑ Straße"), ["σοφία", "straße"]);
        // A mark with nothing before it is no term.
        assert_eq!(terms("\u{301}ab"), ["ab"]);
    }

    #[test]
    fn digits_are_terms() {
        assert_eq!(terms("Jan 27, 2007"), ["jan", "27", "2007"]);
    }

    /// `text` with every ASCII letter and digit in its full-width form (`A` → `Ａ`), which the
    /// tokenizer reads on its Unicode path and NFKC brings back to ASCII.
    fn full_width(text: &str) -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c)
                } else {
                    c
                }
            })
            .collect()
    }

    #[test]
    fn ascii_runs_give_the_terms_the_unicode_path_gives() {
        let pool: Vec<char> = "aZ9q .-<>éÉ東京ｶﾞ\u{301}ＡＢ¼ﬁ ŞxY\n".chars().collect();
        let mut state = 11u64;
        for _ in 0..5000 {
            let text: String = (0..24)
                .map(|_| {
                    state = crate::token::mix64(state);
                    pool[(state % pool.len() as u64) as usize]
                })
                .collect();
            assert_eq!(terms(&text), terms(&full_width(&text)), "{text:?}");
        }
        let page = "<P CLASS=x>Der Bürgermeister SAID: Cafe\u{301} 東京Web会議 ＷＥＢ2007</p>";
        assert_eq!(terms(page), terms(&full_width(page)));
        assert_eq!(full_width("Az9"), "Ａｚ９");
    }
}
