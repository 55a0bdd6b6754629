//! One pass over a page's markup: the dates its metadata, JSON-LD, `<time>` elements and
//! microformats give, and its visible text (with where the headline starts) for the text
//! patterns of [`super::text`].

use memchr::{memchr2, memmem};

use super::Instant;
use crate::token::strip::{Tag, attribute, entity, skip_to_close};

/// `<meta>` names, properties and `itemprop`s that give a publication date (lowercase).
const PUBLISHED_KEYS: &[&str] = &[
    "article:published_time",
    "article:published",
    "og:article:published_time",
    "og:published_time",
    "published_time",
    "article_published_time",
    "datepublished",
    "date_published",
    "publishdate",
    "publish-date",
    "publish_date",
    "pubdate",
    "pub_date",
    "publication_date",
    "publicationdate",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date.published",
    "dc.date.created",
    "dcterms.created",
    "dc.date",
    "dc:date",
    "dcterms.date",
    "date",
    "sailthru.date",
    "parsely-pub-date",
    "citation_publication_date",
    "citation_date",
    "citation_online_date",
    "prism.publicationdate",
    "article.published",
    "article_date_original",
    "originalpublicationdate",
    "cxenseparse:recs:publishtime",
    "datecreated",
    "og:pubdate",
    "rnews:datepublished",
    "bt:pubdate",
    "release_date",
    "article.created",
    "displaydate",
    "uploaddate",
];

/// … and a modification date.
const MODIFIED_KEYS: &[&str] = &[
    "article:modified_time",
    "article:modified",
    "og:updated_time",
    "datemodified",
    "dateupdated",
    "date_modified",
    "dc.date.modified",
    "dcterms.modified",
    "lastmod",
    "last-modified",
    "modified",
    "updated_time",
    "revised",
];

/// Class names of a publication date (microformats, WordPress themes).
const PUBLISHED_CLASSES: &[&str] = &[
    "published",
    "dt-published",
    "entry-date",
    "post-date",
    "date-published",
    "publishdate",
    "pubdate",
    "article-date",
    "post-published",
];

/// What the pass found.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub meta_published: Vec<Instant>,
    pub meta_modified: Vec<Instant>,
    pub json_published: Vec<Instant>,
    pub json_modified: Vec<Instant>,
    pub time_published: Vec<Instant>,
    pub time_any: Vec<Instant>,
    /// The visible text, tags as spaces, scripts and styles dropped.
    pub text: String,
    /// The page's own URL as it declares it (`<link rel="canonical">`, `og:url`): the URL of a
    /// page read from a folder.
    pub canonical: Option<String>,
    /// Where in `text` the headline starts: the first `<h1>`, else the page title's longest
    /// part found after `<body>`.
    pub headline: Option<usize>,
}

/// Read `html` once; `text` is a buffer to reuse for the visible text (one per thread: a page's
/// text is built for every page read, and fresh memory each time cost more than the scan).
pub(super) fn scan(html: &str, text: String) -> Found {
    let bytes = html.as_bytes();
    let mut text = text;
    text.clear();
    // Room for the whole page at once (its text is shorter than its markup but for rare
    // entities): a long page's text grown by doubling was copied at each step.
    text.reserve(html.len());
    let mut found = Found {
        text,
        ..Found::default()
    };
    let mut title: Option<String> = None;
    let mut body_at = None;
    let mut i = 0;
    while i < bytes.len() {
        let Some(rel) = memchr2(b'<', b'&', &bytes[i..]) else {
            found.text.push_str(&html[i..]);
            break;
        };
        found.text.push_str(&html[i..i + rel]);
        i += rel;
        if bytes[i] == b'&' {
            i = entity(html, i, &mut found.text);
            continue;
        }
        let Some(tag) = Tag::at(html, i) else {
            found.text.push('<');
            i += 1;
            continue;
        };
        found.text.push(' ');
        i = tag.end;
        if tag.closing || tag.name.is_empty() {
            continue;
        }
        let raw = &html[tag.start..tag.end];
        let is = |n: &str| tag.name.eq_ignore_ascii_case(n.as_bytes());
        // Most tags are none of these: told by their first letter.
        let first = tag.name[0].to_ascii_lowercase();
        if !matches!(first, b's' | b'n' | b't' | b'b' | b'h' | b'm' | b'l') {
            if may_mark_a_date(raw.as_bytes()) {
                element(raw, html, tag.end, &mut found);
            }
            continue;
        }
        if is("script") {
            let close = skip_to_close(bytes, tag.end, b"script");
            if attribute(raw, "type").is_some_and(|t| t.contains("ld+json")) {
                let inner_end = html[..close].rfind("</").unwrap_or(close).max(tag.end);
                json_ld(&html[tag.end..inner_end], &mut found);
            }
            i = close;
        } else if is("style") || is("noscript") || is("template") {
            i = skip_to_close(bytes, tag.end, tag.name);
        } else if is("title") {
            if title.is_none() {
                let end = memmem::find(&bytes[tag.end..], b"</").map_or(tag.end, |e| tag.end + e);
                title = Some(crate::token::entities::decode_entities(&html[tag.end..end]));
            }
        } else if is("body") {
            body_at.get_or_insert(found.text.len());
        } else if is("h1") {
            found.headline.get_or_insert(found.text.len());
        } else if is("meta") {
            meta(raw, &mut found);
        } else if is("time") {
            time(raw, &mut found);
        } else if is("link") {
            if found.canonical.is_none()
                && attribute(raw, "rel").is_some_and(|r| r.eq_ignore_ascii_case("canonical"))
            {
                found.canonical = attribute(raw, "href").map(str::to_string);
            }
        } else if may_mark_a_date(raw.as_bytes()) {
            element(raw, html, tag.end, &mut found);
        }
    }
    if found.headline.is_none() {
        found.headline = title_in_body(&found.text, title.as_deref(), body_at.unwrap_or(0));
    }
    found
}

/// A `<meta>`: its `name`, `property`, `itemprop` or `http-equiv` against the key lists.
fn meta(raw: &str, found: &mut Found) {
    let Some(content) = attribute(raw, "content") else {
        return;
    };
    if found.canonical.is_none()
        && attribute(raw, "property").is_some_and(|p| p.eq_ignore_ascii_case("og:url"))
    {
        found.canonical = Some(content.to_string());
    }
    for key_attr in ["property", "name", "itemprop", "http-equiv"] {
        let Some(key) = attribute(raw, key_attr) else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if PUBLISHED_KEYS.contains(&key.as_str()) {
            found.meta_published.extend(super::parse_date(content));
        } else if MODIFIED_KEYS.contains(&key.as_str()) {
            found.meta_modified.extend(super::parse_date(content));
        }
    }
}

/// A `<time datetime>`: the publication when marked so (`pubdate`, `itemprop`, a class).
fn time(raw: &str, found: &mut Found) {
    let Some(at) = attribute(raw, "datetime").and_then(super::parse_date) else {
        return;
    };
    let lower = raw.to_ascii_lowercase();
    let itemprop = attribute(&lower, "itemprop");
    if itemprop.is_some_and(|p| p.contains("datemodified")) {
        found.meta_modified.push(at);
    } else if lower.contains(" pubdate")
        || itemprop.is_some_and(|p| p.contains("datepublished"))
        || attribute(&lower, "class").is_some_and(published_class)
    {
        found.time_published.push(at);
    } else {
        found.time_any.push(at);
    }
}

/// Any other element: microdata (`itemprop="datePublished" content=…`) and microformats
/// (`class="published"` with `datetime`, `title` or `content`, or its own text).
fn element(raw: &str, html: &str, after: usize, found: &mut Found) {
    let lower = raw.to_ascii_lowercase();
    let value = || {
        ["datetime", "content", "title"]
            .iter()
            .find_map(|a| attribute(raw, a).and_then(super::parse_date))
    };
    if let Some(prop) = attribute(&lower, "itemprop") {
        if prop.contains("datepublished") || prop.contains("datecreated") {
            found
                .meta_published
                .extend(value().or_else(|| own_text(html, after)));
        } else if prop.contains("datemodified") {
            found
                .meta_modified
                .extend(value().or_else(|| own_text(html, after)));
        }
        return;
    }
    if attribute(&lower, "class").is_some_and(published_class) {
        found
            .meta_published
            .extend(value().or_else(|| own_text(html, after)));
    }
}

/// Whether a tag may carry microdata or a microformat of a date (most tags do not: they are
/// passed over without parsing their attributes).
fn may_mark_a_date(raw: &[u8]) -> bool {
    use std::sync::LazyLock;
    static FINDERS: LazyLock<[memmem::Finder<'static>; 4]> =
        LazyLock::new(|| [b"date", b"Date", b"prop", b"blis"].map(memmem::Finder::new));
    // Most tags are short and hold no 'p', 'b' or 'd' in the wrong place: memchr first.
    memchr::memchr3(b'd', b'D', b'p', raw).is_some()
        && FINDERS.iter().any(|f| f.find(raw).is_some())
        || memchr::memchr(b'b', raw).is_some() && FINDERS[3].find(raw).is_some()
}

/// The date in the text right after a tag, up to the next tag (`<span class=date>May 3,
/// 2006</span>`).
fn own_text(html: &str, from: usize) -> Option<Instant> {
    let rest = &html[from..];
    let end = rest.find('<').unwrap_or(rest.len()).min(200);
    let mut end = end.min(rest.len());
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    super::text::first_date(&rest[..end], false).map(|(at, _)| at)
}

/// Whether a `class` value names a publication date.
fn published_class(class: &str) -> bool {
    class
        .split_ascii_whitespace()
        .any(|c| PUBLISHED_CLASSES.contains(&c))
}

/// A JSON-LD block: `datePublished` (then `dateCreated`, `uploadDate`) of an article first, of
/// anything else after; `dateModified` apart. A block that does not parse (trailing commas,
/// raw newlines in strings) is searched for the keys as text.
fn json_ld(block: &str, found: &mut Found) {
    let block = block.trim();
    match serde_json::from_str::<serde_json::Value>(block) {
        Ok(value) => {
            let (mut article, mut other, mut modified) = (vec![], vec![], vec![]);
            walk(&value, &mut article, &mut other, &mut modified, 0);
            found.json_published.extend(article);
            found.json_published.extend(other);
            found.json_modified.extend(modified);
        }
        Err(_) => {
            for (key, list) in [
                ("\"datePublished\"", &mut found.json_published),
                ("\"dateModified\"", &mut found.json_modified),
            ] {
                for (at, _) in block.match_indices(key) {
                    let rest = block[at + key.len()..].trim_start();
                    let Some(rest) = rest.strip_prefix(':') else {
                        continue;
                    };
                    let rest = rest.trim_start().trim_start_matches('"');
                    let end = rest.find('"').unwrap_or(rest.len().min(40));
                    list.extend(super::parse_date(&rest[..end]));
                }
            }
        }
    }
}

/// Collect the dates of a JSON-LD value.
fn walk(
    v: &serde_json::Value,
    article: &mut Vec<Instant>,
    other: &mut Vec<Instant>,
    modified: &mut Vec<Instant>,
    depth: usize,
) {
    use serde_json::Value;
    if depth > 16 {
        return;
    }
    match v {
        Value::Array(items) => {
            for item in items {
                walk(item, article, other, modified, depth + 1);
            }
        }
        Value::Object(map) => {
            let is_article = map.get("@type").is_some_and(|t| {
                let names: Vec<&str> = match t {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                names
                    .iter()
                    .any(|n| n.contains("Article") || n.contains("Posting") || n.contains("Report"))
            });
            for key in ["datePublished", "dateCreated", "uploadDate"] {
                if let Some(at) = map
                    .get(key)
                    .and_then(Value::as_str)
                    .and_then(super::parse_date)
                {
                    if is_article {
                        article.push(at);
                    } else {
                        other.push(at);
                    }
                }
            }
            if let Some(at) = map
                .get("dateModified")
                .and_then(Value::as_str)
                .and_then(super::parse_date)
            {
                modified.push(at);
            }
            for (key, child) in map {
                if !key.starts_with("date") {
                    walk(child, article, other, modified, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Where the title's longest part (titles are often "Site – Headline") appears in the text
/// after `<body>`.
fn title_in_body(text: &str, title: Option<&str>, body_at: usize) -> Option<usize> {
    let title = title?;
    let part = title
        .split([
            '|', '–', '—', '»', '«', ':', '·', '•', '-', '/', '\u{2013}', '\u{2014}',
        ])
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .max_by_key(String::len)?;
    if part.chars().count() < 12 {
        return None;
    }
    let body = text.get(body_at..)?;
    // The text keeps the page's white space: match on the first words only.
    let first: String = part.split(' ').take(3).collect::<Vec<_>>().join(" ");
    body.find(&first).map(|p| body_at + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_in_any_case_and_quoting() {
        let t = r#"<meta PROPERTY="article:published_time" content='2006-05-03'>"#;
        assert_eq!(attribute(t, "property"), Some("article:published_time"));
        assert_eq!(attribute(t, "content"), Some("2006-05-03"));
        assert_eq!(
            attribute("<time datetime=2006-05-03>", "datetime"),
            Some("2006-05-03")
        );
        assert_eq!(attribute("<a data-content=\"x\">", "content"), None);
    }

    #[test]
    fn text_and_headline() {
        let f = scan(
            "<html><head><title>Site | A long headline of news</title><script>var d='2001-01-01'</script></head>\
             <body><div>Menu</div><p>A long headline of news</p><p>May 3, 2006</p></body></html>",
            String::new(),
        );
        assert!(!f.text.contains("2001"));
        let h = f.headline.unwrap();
        assert!(f.text[h..].starts_with("A long headline"));
    }
}
