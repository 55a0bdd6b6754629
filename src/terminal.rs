//! Text from archived pages made safe to print on a terminal.
//!
//! A page's title, URL, text or key is data from a stranger: printed raw, `ESC[2J` clears the
//! screen, an OSC sequence sets the window title or makes a link, U+202E turns the rest of the
//! line around. [`escape`] is the one function every terminal print of such text goes through:
//! C0 and C1 controls (but a tab and a line end where the caller allows them), DEL and the
//! Unicode bidirectional embedding, override and isolate characters are written visibly as
//! `\u{…}` (`\u{1b}` for ESC), as `--json` output already has them; everything else, every
//! script among it, is printed as it is.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is.
fn is_unsafe(c: char, lines: bool) -> bool {
    match c {
        '\n' => !lines,
        '\t' => false,
        // C0, DEL, C1.
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidi embeddings and overrides, isolates, and the marks that change run direction.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => true,
        '\u{061c}' => true,
        _ => false,
    }
}

fn escape_with(text: &str, lines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c, lines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c, lines) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` for one line of a terminal: every control (a line end too), DEL and bidi control
/// character written as `\u{…}`.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_with(text, false)
}

/// `text` for a block of lines (a page's text): as [`escape`], but line ends are kept.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    escape_with(text, true)
}

/// A writer that passes text on through [`escape_lines`]: what a command prints on a terminal,
/// whatever page text is in it. A character split between two writes is held until it is whole;
/// bytes that are not UTF-8 are written as `\x..`.
#[derive(Debug)]
pub struct Safe<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> Safe<W> {
    /// `inner`, escaped.
    pub fn new(inner: W) -> Self {
        Safe {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: std::io::Write> std::io::Write for Safe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Most writes are whole, harmless text: passed on as they are.
        if self.pending.is_empty()
            && let Ok(text) = std::str::from_utf8(buf)
            && matches!(escape_lines(text), Cow::Borrowed(_))
        {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        self.pending.extend_from_slice(buf);
        let bytes = std::mem::take(&mut self.pending);
        let mut out = String::new();
        let mut chunks = bytes.utf8_chunks().peekable();
        while let Some(chunk) = chunks.next() {
            out.push_str(&escape_lines(chunk.valid()));
            let invalid = chunk.invalid();
            // An incomplete character at the very end waits for the next write.
            if chunks.peek().is_none() && !invalid.is_empty() && invalid.len() < 4 {
                let start = invalid[0];
                let needed = match start {
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    0xf0..=0xf7 => 4,
                    _ => 0,
                };
                if invalid.len() < needed {
                    self.pending.extend_from_slice(invalid);
                    continue;
                }
            }
            for b in invalid {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
        self.inner.write_all(out.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_shown_not_obeyed() {
        assert_eq!(escape("\u{1b}[2J\u{1b}[31mred"), "\\u{1b}[2J\\u{1b}[31mred");
        assert_eq!(
            escape("\u{1b}]0;title\u{7}x\u{9b}y"),
            "\\u{1b}]0;title\\u{7}x\\u{9b}y"
        );
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("a\nb"), "a\\u{a}b");
        assert_eq!(escape_lines("a\nb\u{1b}"), "a\nb\\u{1b}");
        // Every script is printed as it is, without a copy.
        for plain in ["Bundestag", "مرحبا بالعالم", "שלום", "東京 2015", "a\tb"] {
            assert!(matches!(escape(plain), Cow::Borrowed(_)), "{plain}");
        }
    }

    #[test]
    fn the_writer_escapes_what_passes_and_joins_split_characters() {
        use std::io::Write;
        let mut out = Safe::new(Vec::new());
        let title = "\u{1b}[2Jgone\u{202e}";
        writeln!(out, "title: {title}").unwrap();
        let override_char = "\u{202e}".as_bytes();
        out.write_all(&override_char[..1]).unwrap();
        out.write_all(&override_char[1..]).unwrap();
        out.write_all("é".as_bytes()).unwrap();
        out.write_all(&[0xff, b'\n']).unwrap();
        let text = String::from_utf8(out.inner).unwrap();
        assert_eq!(text, "title: \\u{1b}[2Jgone\\u{202e}\n\\u{202e}é\\xff\n");
    }
}
