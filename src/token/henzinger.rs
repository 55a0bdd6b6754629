//! Henzinger-style terms (Henzinger, "Finding near-duplicate web pages", SIGIR 2006, §2): a page
//! and its URL in, terms out.
//!
//! "All HTML markup in the page is replaced by white space … every maximal alphanumeric sequence
//! is considered a term … (1) every URL contained in the text of the page is broken at slashes
//! and dots … (2) the URL in an IMG-tag is considered to be a term in the page. If the URL points
//! to a different host, the whole URL is considered to be a term. If it points to the host of the
//! page itself, only the filename of the URL is used as term."
//!
//! Rule (1) falls out of the alphanumeric-run rule. Script and style contents are dropped like
//! markup (they are not text of the page). Terms are lowercased, as in the other tokenizers.

use memchr::memchr;

use super::strip::attribute;
use super::{markup, strip};
use crate::document::host_of;

/// Feed every term of `html` (fetched from `page_url`, if known) to `f`, in page order.
pub fn for_each_term(html: &str, page_url: Option<&str>, mut f: impl FnMut(&str)) {
    let page_host = page_url.and_then(host_of);
    let bytes = html.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let Some(rel) = memchr(b'<', &bytes[i..]) else {
            text_terms(&html[i..], &mut f);
            break;
        };
        text_terms(&html[i..i + rel], &mut f);
        let start = i + rel;
        let end = match memchr(b'>', &bytes[start..]) {
            Some(e) => start + e + 1,
            None => bytes.len(),
        };
        let tag = &html[start..end];
        if is_tag(tag, "img")
            && let Some(src) = attribute(tag, "src")
        {
            let term = img_term(src, page_host.as_deref());
            if !term.is_empty() {
                f(&term);
            }
        }
        // Comments and hidden elements: let the stripper decide where the markup ends.
        i = if tag.starts_with("<!--") || is_tag(tag, "script") || is_tag(tag, "style") {
            start + skip_len(&html[start..])
        } else {
            end
        };
    }
}

/// Every term as owned strings.
pub fn terms(html: &str, page_url: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(html, page_url, |t| out.push(t.to_string()));
    out
}

fn text_terms(text: &str, f: &mut impl FnMut(&str)) {
    if text.contains('&') {
        markup::for_each_term(&strip::strip_tags(text), f);
    } else {
        markup::for_each_term(text, f);
    }
}

/// Length of the hidden markup (comment or script/style element) at the start of `s`.
fn skip_len(s: &str) -> usize {
    // `strip_tags` knows the closing rules; find how much of `s` it consumes before text resumes
    // by stripping a sentinel-terminated copy would allocate, so redo the search here.
    let bytes = s.as_bytes();
    if s.starts_with("<!--") {
        return memchr::memmem::find(&bytes[4..], b"-->").map_or(bytes.len(), |e| 4 + e + 3);
    }
    let name = if is_tag(s, "script") {
        "script"
    } else {
        "style"
    };
    let mut i = 1;
    while let Some(rel) = memchr::memmem::find(&bytes[i..], b"</") {
        let at = i + rel + 2;
        if bytes[at..(at + name.len()).min(bytes.len())].eq_ignore_ascii_case(name.as_bytes()) {
            return memchr(b'>', &bytes[at..]).map_or(bytes.len(), |e| at + e + 1);
        }
        i = at;
    }
    bytes.len()
}

/// Whether `tag` (starting with `<`) opens element `name`.
fn is_tag(tag: &str, name: &str) -> bool {
    let b = tag.as_bytes();
    b.len() > name.len()
        && b[1..=name.len()].eq_ignore_ascii_case(name.as_bytes())
        && b.get(name.len() + 1)
            .is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// The term for an IMG source: the whole URL when it is on another host, else its file name.
fn img_term(src: &str, page_host: Option<&str>) -> String {
    let src = src.trim();
    let absolute = if let Some(rest) = src.strip_prefix("//") {
        Some(format!("http://{rest}"))
    } else if src.contains("://") {
        Some(src.to_string())
    } else {
        None
    };
    if let Some(url) = absolute {
        let other_host = match (host_of(&url), page_host) {
            (Some(h), Some(p)) => h != p,
            _ => true,
        };
        if other_host {
            return url.to_lowercase();
        }
    }
    let path = src.split(['?', '#']).next().unwrap_or("");
    path.rsplit('/').next().unwrap_or("").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_white_space_and_urls_break_at_slashes_and_dots() {
        let html = "<p>See www.example.com/news/a.html now</p>";
        assert_eq!(
            terms(html, None),
            ["see", "www", "example", "com", "news", "a", "html", "now"]
        );
    }

    #[test]
    fn img_on_same_host_is_file_name_and_other_host_whole_url() {
        let html = r#"x <IMG alt="a" SRC="/pics/Cat.jpg?v=2"> y <img src='http://cdn.other.net/d.png'> z
                      <img src="http://www.site.com/i/logo.gif">"#;
        assert_eq!(
            terms(html, Some("http://www.site.com/story.html")),
            [
                "x",
                "cat.jpg",
                "y",
                "http://cdn.other.net/d.png",
                "z",
                "logo.gif"
            ]
        );
    }

    #[test]
    fn scripts_styles_comments_and_entities_are_not_terms() {
        let html = "a<script>var b = '<p>';</script>c<style>d{}</style>e<!-- f -->g&amp;h";
        assert_eq!(terms(html, None), ["a", "c", "e", "g", "h"]);
    }

    #[test]
    fn attribute_parsing_handles_unquoted_and_lookalikes() {
        assert_eq!(attribute("<img datasrc=x src=y.png>", "src"), Some("y.png"));
        assert_eq!(attribute("<img alt=\"src\">", "src"), None);
    }
}
