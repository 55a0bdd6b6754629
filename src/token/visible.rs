//! Visible text through a full DOM parse (scraper / html5ever): a page in, the text a browser
//! would show out, with `script`, `style`, `noscript` and `template` dropped and text nodes
//! separated by spaces. For display and token diffs in the workbench; 10–30x slower than
//! [`super::strip`] (ARCHITECTURE.md, "Choices measured"), so signatures do not use it by default.
//!
//! html5ever walks its stack of open elements for every start tag (the scope checks of the
//! HTML tree builder), so a page nested 100,000 deep took minutes: quadratic in the depth. A
//! browser caps the depth (Blink at 512: deeper elements become siblings); [`flatten_deep`]
//! does the same before the parse, in one pass over the bytes: a start tag past
//! [`MAX_DEPTH`] open elements, and its end tag, are left out (a space in their place), the
//! text between them kept. Parsing is then linear in the page.

use std::borrow::Cow;

use memchr::memchr;
use scraper::{Html, Node};

/// Most elements open at once that are handed to the parser (Blink allows 512).
pub const MAX_DEPTH: usize = 256;

/// Elements that never hold others.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
/// Elements whose content the parser reads as text up to their end tag.
const RAW: [&str; 9] = [
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript",
];
/// Elements a following sibling closes without an end tag: not counted as open (a page of a
/// thousand `<p>` without `</p>` is not deep).
const IMPLIED_END: [&str; 8] = ["p", "li", "dt", "dd", "option", "tr", "td", "th"];

/// The end of the tag starting at `at` (after its `>`), quotes respected.
fn tag_end(bytes: &[u8], at: usize) -> usize {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(at + 1) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), b) if b == q => quote = None,
            (None, b'>') => return i + 1,
            _ => {}
        }
    }
    bytes.len()
}

/// Where the end tag `</name` of a raw-text element begins, searching from `from` (ASCII case
/// ignored, nothing copied); the end of the page when there is none.
fn raw_end(bytes: &[u8], from: usize, name: &[u8]) -> usize {
    let mut at = from;
    while let Some(p) = memchr::memmem::find(&bytes[at..], b"</") {
        let start = at + p + 2;
        if bytes
            .get(start..start + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
        {
            return at + p;
        }
        at = start;
    }
    bytes.len()
}

/// The tag name after `<` or `</` at `start`, ASCII-lowercased.
fn tag_name(bytes: &[u8], start: usize) -> String {
    bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b':')
        .map(|b| b.to_ascii_lowercase() as char)
        .collect()
}

/// `html` with every element nested deeper than [`MAX_DEPTH`] flattened (its tags left out,
/// its text kept); the page itself when it is not that deep.
pub fn flatten_deep(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out = String::new();
    let (mut depth, mut skipped, mut last, mut i) = (0usize, 0usize, 0usize, 0usize);
    let skip = |out: &mut String, from: usize, to: usize, last: &mut usize| {
        out.push_str(&html[*last..from]);
        out.push(' ');
        *last = to;
    };
    while let Some(p) = memchr(b'<', &bytes[i..]) {
        let at = i + p;
        let next = bytes.get(at + 1).copied().unwrap_or(0);
        if bytes[at..].starts_with(b"<!--") {
            i = memchr::memmem::find(&bytes[at + 4..], b"-->")
                .map_or(bytes.len(), |e| at + 4 + e + 3);
        } else if next == b'/' {
            let end = tag_end(bytes, at);
            if skipped > 0 {
                skipped -= 1;
                skip(&mut out, at, end, &mut last);
            } else if !IMPLIED_END.contains(&tag_name(bytes, at + 2).as_str()) {
                depth = depth.saturating_sub(1);
            }
            i = end;
        } else if next.is_ascii_alphabetic() {
            let end = tag_end(bytes, at);
            let name = tag_name(bytes, at + 1);
            if RAW.contains(&name.as_str()) {
                // Its text runs to its end tag: nothing inside is a tag.
                // Never left out (a script's text would show); counted, as its end tag is.
                depth += 1;
                i = raw_end(bytes, end, name.as_bytes());
                continue;
            }
            let opens = !VOID.contains(&name.as_str())
                && !IMPLIED_END.contains(&name.as_str())
                && !bytes[..end].ends_with(b"/>");
            if opens && depth >= MAX_DEPTH {
                skipped += 1;
                skip(&mut out, at, end, &mut last);
            } else if opens {
                depth += 1;
            }
            i = end;
        } else {
            i = at + 1;
        }
    }
    if last == 0 {
        return Cow::Borrowed(html);
    }
    out.push_str(&html[last..]);
    Cow::Owned(out)
}

const HIDDEN: [&str; 4] = ["script", "style", "noscript", "template"];

/// The visible text of `html`, one space between text nodes.
pub fn visible_text(html: &str) -> String {
    use ego_tree::iter::Edge;
    let doc = Html::parse_document(&flatten_deep(html));
    let mut out = String::with_capacity(html.len() / 4);
    // One walk that counts the hidden elements it is inside, not a climb to the root from
    // every text node: linear in the page however deep it nests.
    let mut hidden = 0usize;
    let is_hidden = |node: &Node| matches!(node, Node::Element(e) if HIDDEN.contains(&e.name()));
    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) if is_hidden(node.value()) => hidden += 1,
            Edge::Close(node) if is_hidden(node.value()) => hidden -= 1,
            Edge::Open(node) => {
                if let (Node::Text(text), 0) = (node.value(), hidden) {
                    out.push_str(text);
                    out.push(' ');
                }
            }
            Edge::Close(_) => {}
        }
    }
    out
}

/// The visible text's terms (lowercased alphanumeric runs), for token diffs.
pub fn visible_terms(html: &str) -> Vec<String> {
    super::markup::terms(&visible_text(html))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_and_styles_are_not_visible() {
        let html = "<html><head><style>p{}</style><title>Title</title></head>\
                    <body><p>One <b>two</b></p><script>x()</script><noscript>n</noscript>\
                    three &amp; four</body></html>";
        assert_eq!(
            visible_terms(html),
            ["title", "one", "two", "three", "four"]
        );
    }

    #[test]
    fn a_page_nested_past_the_depth_limit_keeps_its_text_and_parses_fast() {
        let shallow = "<div><p>one<p>two</div><script>if (a<b) {}</script>";
        assert!(matches!(flatten_deep(shallow), Cow::Borrowed(_)));
        // A script's text is never taken for tags, however its end tag is written.
        let script = format!(
            "<SCRIPT>{}</ScRiPt><p>after</p>",
            "<div>".repeat(2 * MAX_DEPTH)
        );
        assert!(matches!(flatten_deep(&script), Cow::Borrowed(_)));
        let n = 20_000;
        let deep = format!("{}core text{}", "<div>".repeat(n), "</div>".repeat(n));
        let flat = flatten_deep(&deep);
        assert_eq!(flat.matches("<div>").count(), MAX_DEPTH);
        assert_eq!(flat.matches("</div>").count(), MAX_DEPTH);
        assert_eq!(visible_terms(&deep), ["core", "text"]);
        let unclosed = format!("{}never closed", "<div><span><b>".repeat(n));
        assert_eq!(visible_terms(&unclosed), ["never", "closed"]);
        // A thousand paragraphs without end tags are not deep: nothing is left out.
        let paragraphs = "<p>x".repeat(1000);
        assert!(matches!(flatten_deep(&paragraphs), Cow::Borrowed(_)));
    }
}
