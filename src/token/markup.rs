//! The SpotSigs reference tokenizer: text in (usually the raw page, markup included), terms out,
//! lowercased, split on white space and punctuation (Theobald et al. SIGIR 2008 §5: the public
//! code "tokenizes the raw page including markup, lowercases, and splits on punctuation").
//!
//! A term is a maximal run of alphanumeric characters (ASCII fast path, Unicode
//! `char::is_alphanumeric` for the rest), so `<a href="x.html">` gives `a`, `href`, `x`, `html`.
//! One pass, one reusable buffer; nothing is allocated per term.

/// Feed every lowercased term of `text` to `f`, in order.
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut buf = String::with_capacity(32);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if b.is_ascii_alphanumeric() {
                buf.push(b.to_ascii_lowercase() as char);
            } else if !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            i += 1;
            continue;
        }
        // Non-ASCII: decode one char (the input is a `str`, so it is valid UTF-8).
        let ch = text[i..].chars().next().unwrap_or(' ');
        if ch.is_alphanumeric() {
            buf.extend(ch.to_lowercase());
        } else if !buf.is_empty() {
            f(&buf);
            buf.clear();
        }
        i += ch.len_utf8();
    }
    if !buf.is_empty() {
        f(&buf);
    }
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
    fn digits_are_terms() {
        assert_eq!(terms("Jan 27, 2007"), ["jan", "27", "2007"]);
    }
}
