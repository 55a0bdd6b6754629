//! HTML character references (`&amp;`, `&#233;`, `&#xE9;`, `&eacute;`): the one decoder of the
//! crate, used by the tag stripper ([`super::strip`]) for tokens and by the archive readers for
//! page titles.
//!
//! Numeric references and the few named ones that carry letters or matter for splitting are
//! decoded; a well-formed unknown name (`&bogus;`) is reported as such, and each caller
//! decides (tokens: a space; titles: kept as written); anything else (`AT&T`) is no reference.

/// What a `&` starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// A reference to this character.
    Char(char),
    /// `&name;` with a name of letters and digits this table does not know.
    Unknown,
}

/// The reference at the start of `s` (which begins with `&`) and its length in bytes, `None`
/// when no `;` closes it within 12 bytes or its body is not a name or number.
pub fn reference_at(s: &str) -> Option<(Reference, usize)> {
    // Entity names are short ASCII: look for `;` in the next bytes, not chars (a slice at a
    // fixed byte count could cut a character; cargo-fuzz found that).
    let semi = s.bytes().take(12).skip(1).position(|b| b == b';')? + 1;
    let body = &s[1..semi];
    let decoded = match body.strip_prefix('#') {
        Some(num) => {
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => num.parse::<u32>().ok(),
            };
            code.and_then(char::from_u32)
        }
        None => named(body),
    };
    match decoded {
        Some(ch) => Some((Reference::Char(ch), semi + 1)),
        None if body.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            Some((Reference::Unknown, semi + 1))
        }
        None => None,
    }
}

/// `text` with its known references decoded; unknown ones and stray `&` kept as written.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match reference_at(rest) {
            Some((Reference::Char(c), len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The named references that carry letters or matter for splitting.
fn named(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" | "rsquo" | "lsquo" => '\'',
        "nbsp" => ' ',
        "eacute" => 'é',
        "egrave" => 'è',
        "aacute" => 'á',
        "agrave" => 'à',
        "oacute" => 'ó',
        "ouml" => 'ö',
        "uuml" => 'ü',
        "auml" => 'ä',
        "ntilde" => 'ñ',
        "ccedil" => 'ç',
        "iacute" => 'í',
        "uacute" => 'ú',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_decode_and_strays_stay() {
        assert_eq!(
            decode_entities("caf&eacute; &amp; &#65;&#x42;&#39; AT&T &bogus; &"),
            "café & AB' AT&T &bogus; &"
        );
        assert_eq!(reference_at("&bogus;"), Some((Reference::Unknown, 7)));
        assert_eq!(reference_at("&a b;"), None);
        assert_eq!(reference_at("&verylongname;"), None);
        // A multi-byte character within the window must not be cut.
        assert_eq!(decode_entities("&ééééééé;"), "&ééééééé;");
    }
}
