//! Chunk fingerprints (Shivakumar & Garcia-Molina, "Finding near-replicas of documents on the
//! web", WebDB 1998, §2 and §3): a page's text in, one fingerprint per chunk out.
//!
//! §2: "Each document is first converted … into simple textual information … The resulting
//! document is then chunked into smaller units, such as words, sequences of words, sentences,
//! paragraphs, or the entire document itself. Each textual chunk is then hashed down to a 32-bit
//! fingerprint." §3 uses three chunkings: the entire document, every four lines and every two
//! lines of text; [`Chunking`] has those plus word windows.
//!
//! The text is the page after the fast tag stripper ([`crate::token::strip`]), the stand-in for
//! their `html2ascii`. A *line* is a line of that text with at least one term; a chunk's
//! fingerprint hashes its terms (lowercased alphanumeric runs, [`crate::token::markup`]), so
//! white space and punctuation changes do not count. Fingerprints are 64-bit (not 32) so that
//! chance collisions stay negligible on archives of millions of chunks.

use serde::{Deserialize, Serialize};

use crate::token::{markup, mix64, strip, term_hash};
use crate::{Error, Result};

/// How a text is cut into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Chunking {
    /// One chunk: the entire document (exact copies, up to markup and white space).
    WholeDocument,
    /// Non-overlapping runs of this many lines (the paper's 4 and 2).
    Lines(usize),
    /// Non-overlapping runs of this many words.
    Words(usize),
}

impl Chunking {
    /// Check the chunk size.
    pub fn validate(&self) -> Result<()> {
        match self {
            Chunking::Lines(0) | Chunking::Words(0) => Err(Error::InvalidParameter(
                "a chunk needs at least one line or word".to_string(),
            )),
            _ => Ok(()),
        }
    }

    /// A short name: `document`, `lines4`, `words50`.
    pub fn name(&self) -> String {
        match self {
            Chunking::WholeDocument => "document".to_string(),
            Chunking::Lines(n) => format!("lines{n}"),
            Chunking::Words(n) => format!("words{n}"),
        }
    }
}

impl std::str::FromStr for Chunking {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim().to_ascii_lowercase();
        let parsed = if s == "document" {
            Some(Chunking::WholeDocument)
        } else if let Some(n) = s.strip_prefix("lines") {
            n.parse().ok().map(Chunking::Lines)
        } else if let Some(n) = s.strip_prefix("words") {
            n.parse().ok().map(Chunking::Words)
        } else {
            None
        };
        let chunking = parsed.ok_or_else(|| {
            Error::InvalidParameter(format!(
                "unknown chunking {s:?} (expected document, lines<N> or words<N>)"
            ))
        })?;
        chunking.validate()?;
        Ok(chunking)
    }
}

/// The term hashes of each non-empty line of `text`.
pub fn line_terms(text: &str) -> Vec<Vec<u64>> {
    text.lines()
        .map(|line| {
            let mut terms = Vec::new();
            markup::for_each_term(line, |t| terms.push(term_hash(t)));
            terms
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// Fingerprint of a run of terms (a chunk): order-sensitive, 64-bit.
fn fingerprint<'a>(terms: impl IntoIterator<Item = &'a u64>) -> u64 {
    terms
        .into_iter()
        .fold(0x243f_6a88_85a3_08d3, |h, &t| mix64(h.rotate_left(5) ^ t))
}

/// The chunk fingerprints of a text, in text order (a text with no terms has none).
pub fn chunk_fingerprints(text: &str, chunking: Chunking) -> Vec<u64> {
    let lines = line_terms(text);
    match chunking {
        Chunking::WholeDocument => {
            if lines.is_empty() {
                Vec::new()
            } else {
                vec![fingerprint(lines.iter().flatten())]
            }
        }
        Chunking::Lines(n) => lines
            .chunks(n.max(1))
            .map(|run| fingerprint(run.iter().flatten()))
            .collect(),
        Chunking::Words(n) => {
            let words: Vec<u64> = lines.into_iter().flatten().collect();
            words.chunks(n.max(1)).map(fingerprint).collect()
        }
    }
}

/// The chunk fingerprints of an HTML page (tags stripped first).
pub fn page_chunks(html: &str, chunking: Chunking) -> Vec<u64> {
    chunk_fingerprints(&strip::strip_tags(html), chunking)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_chunks_ignore_markup_and_blank_lines() {
        let a = "<p>one two</p>\n\n<b>three</b>\nfour five\nsix\n";
        let b = "one   two\nthree\n\n\nfour, five!\nsix";
        for c in [
            Chunking::Lines(2),
            Chunking::Lines(4),
            Chunking::WholeDocument,
        ] {
            assert_eq!(page_chunks(a, c), page_chunks(b, c), "{c:?}");
        }
        assert_eq!(page_chunks(a, Chunking::Lines(2)).len(), 2);
        assert_eq!(page_chunks(a, Chunking::Lines(1)).len(), 4);
        assert_eq!(page_chunks(a, Chunking::Words(2)).len(), 3);
    }

    #[test]
    fn a_changed_line_changes_only_its_chunk() {
        let a = "l1\nl2\nl3\nl4\nl5\nl6";
        let b = "l1\nl2\nX3\nl4\nl5\nl6";
        let (ca, cb) = (
            chunk_fingerprints(a, Chunking::Lines(2)),
            chunk_fingerprints(b, Chunking::Lines(2)),
        );
        assert_eq!((ca[0], ca[2]), (cb[0], cb[2]));
        assert_ne!(ca[1], cb[1]);
        assert_ne!(
            chunk_fingerprints("a b", Chunking::WholeDocument),
            chunk_fingerprints("b a", Chunking::WholeDocument)
        );
        assert!(chunk_fingerprints(" \n ", Chunking::WholeDocument).is_empty());
    }

    #[test]
    fn names_parse() {
        for c in [
            Chunking::WholeDocument,
            Chunking::Lines(4),
            Chunking::Words(30),
        ] {
            assert_eq!(c.name().parse::<Chunking>().ok(), Some(c));
        }
        assert!("lines0".parse::<Chunking>().is_err());
        assert!("pages".parse::<Chunking>().is_err());
    }
}
