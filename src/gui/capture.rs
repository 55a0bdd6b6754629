//! See a page as it was: "Open capture" writes the archived page to a temporary file that loads
//! nothing remote and runs no script, and opens it in the system browser; "Open in replay"
//! opens the capture in a replay system (pywb, the Wayback Machine, ReplayWeb.page) through a
//! URL template the person sets, with `{timestamp}` and `{url}` in it.
//!
//! The page is parsed by html5ever (through scraper) as a browser parses it, so what counts as
//! a refresh is what a browser reads as one, however it is spelled (`http-equiv\t=\t"refresh"`,
//! a line break, `&#114;efresh`): every `<meta>` whose decoded `http-equiv` is `refresh` and
//! every `<base>` is taken out of the tree, which is then written back. The file is a frame:
//! an outer page with the Content-Security-Policy (`default-src 'none'`: no script, no request
//! to any server; inline styles and `data:` images only; no form, no navigation) holding the
//! page in a sandboxed `<iframe srcdoc>` (no script, no form, no top-level navigation, no
//! pop-up), which inherits the policy; the page carries the policy itself too. It is written
//! under a random name opened exclusively (`create_new`: a name planted in the temporary
//! folder, a symlink among them, is never followed). The browser is `$BROWSER` when set, else
//! the desktop's opener through the `open` crate (no shell: on Windows `ShellExecuteW`, not
//! `cmd /C start`, so a `&` in a URL is a character, not a command).

use std::path::PathBuf;

use scraper::{Html, Node};

use crate::Document;
use crate::document::timestamp14;

/// The policy written at the top of every opened capture.
pub const CAPTURE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; \
                                  font-src data:; form-action 'none'; base-uri 'none'; \
                                  navigate-to 'none'";

/// The default replay template: the Wayback Machine.
pub const DEFAULT_REPLAY: &str = "https://web.archive.org/web/{timestamp}/{url}";

/// Whether a parsed element would make a browser leave or re-base the page.
fn navigates(node: &Node) -> bool {
    let Node::Element(e) = node else {
        return false;
    };
    match e.name() {
        "base" => true,
        "meta" => e.attr("http-equiv").is_some_and(|v| {
            v.trim_matches(|c: char| c.is_ascii_whitespace())
                .eq_ignore_ascii_case("refresh")
        }),
        _ => false,
    }
}

/// `text` as the value of a double-quoted HTML attribute.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;")
}

/// `html` made safe to open from disk: parsed, every refresh and `<base>` taken out, written
/// back inside a sandboxed frame under the policy.
pub fn inert_page(html: &str, doc: &Document) -> String {
    let mut dom = Html::parse_document(html);
    let out: Vec<_> = dom
        .tree
        .nodes()
        .filter(|n| navigates(n.value()))
        .map(|n| n.id())
        .collect();
    for id in out {
        if let Some(mut node) = dom.tree.get_mut(id) {
            node.detach();
        }
    }
    let policy =
        format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{CAPTURE_POLICY}\">");
    let inner = format!("{policy}\n{}", dom.html());
    let what = doc.url.as_deref().unwrap_or(&doc.key);
    format!(
        "<!DOCTYPE html>\n<meta charset=\"utf-8\">\n{policy}\n\
         <!-- samecore: capture of {} at {}; scripts, forms, navigation and remote loads are off -->\n\
         <title>{}</title>\n\
         <style>html,body{{margin:0;height:100%}}iframe{{border:0;width:100%;height:100%}}</style>\n\
         <iframe sandbox title=\"{}\" srcdoc=\"{}\"></iframe>\n",
        what.replace("--", "%2D%2D"),
        doc.date.as_deref().unwrap_or("an unknown date"),
        attribute(what).replace('<', "&lt;"),
        attribute(what),
        attribute(&inner)
    )
}

/// Write `doc`'s page (as the collection decoded it) to a new temporary file; its path.
pub fn write_capture(doc: &Document) -> crate::Result<PathBuf> {
    use std::io::Write;
    let html = crate::archive::page_text(doc)?;
    let page = inert_page(&html, doc);
    let dir = std::env::temp_dir();
    for _ in 0..16 {
        let path = dir.join(format!(
            "samecore-capture-{:016x}.html",
            rand::random::<u64>()
        ));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path);
        match file {
            Ok(mut file) => {
                file.write_all(page.as_bytes())
                    .map_err(|e| crate::Error::io(e, &path))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(crate::Error::io(e, &path)),
        }
    }
    Err(crate::Error::io(
        std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free name"),
        &dir,
    ))
}

/// The replay URL of `doc` by `template` (`{timestamp}`, `{url}`), percent-encoded where the
/// capture's URL has characters a URL may not hold; none without a URL.
pub fn replay_url(template: &str, doc: &Document) -> Option<String> {
    let url = doc.url.as_deref()?;
    let url = url::Url::parse(url).map_or_else(|_| url.to_string(), |u| u.to_string());
    let ts = doc
        .date
        .as_deref()
        .and_then(timestamp14)
        .unwrap_or_default();
    let filled = template.replace("{timestamp}", &ts).replace("{url}", &url);
    Some(url::Url::parse(&filled).map_or(filled, |u| u.to_string()))
}

/// Open `target` (a file path or a URL) in the browser, without waiting for it and without a
/// shell.
pub fn open_in_browser(target: &str) -> std::io::Result<()> {
    match std::env::var("BROWSER") {
        Ok(b) if !b.trim().is_empty() => std::process::Command::new(b.trim())
            .arg(target)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(|_| ()),
        _ => ::open::that_detached(target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page as the browser would get it from the srcdoc attribute.
    fn framed(page: &str) -> String {
        let start = page.find("srcdoc=\"").unwrap() + "srcdoc=\"".len();
        let end = start + page[start..].find('"').unwrap();
        page[start..end]
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    }

    #[test]
    fn an_opened_capture_runs_nothing_and_cannot_leave() {
        let mut doc = Document::from_page(
            "k",
            Some("http://news.example.com/a"),
            "<html><head><META HTTP-EQUIV='Refresh' content='0; url=http://evil.example/'>\
             <script>fetch('http://tracker.example/')</script></head><body>Story</body></html>",
        );
        doc.date = Some("2014-03-25T12:12:25Z".into());
        let page = inert_page(&doc.html.text(), &doc);
        assert!(page.contains("<meta http-equiv=\"Content-Security-Policy\""));
        assert!(page.contains("default-src 'none'"));
        assert!(page.contains("<iframe sandbox "));
        let inner = framed(&page);
        assert!(inner.starts_with("<meta http-equiv=\"Content-Security-Policy\""));
        assert!(!inner.to_ascii_lowercase().contains("refresh"), "{inner}");
        assert!(inner.contains("<body>Story</body>"));
        let path = write_capture(&doc).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), page);
        // A new, unpredictable name each time.
        let again = write_capture(&doc).unwrap();
        assert_ne!(path, again);
        let _ = (std::fs::remove_file(path), std::fs::remove_file(again));
        assert_eq!(
            replay_url(DEFAULT_REPLAY, &doc).as_deref(),
            Some("https://web.archive.org/web/20140325121225/http://news.example.com/a")
        );
        assert_eq!(
            replay_url("http://localhost:8080/coll/{timestamp}/{url}", &doc).as_deref(),
            Some("http://localhost:8080/coll/20140325121225/http://news.example.com/a")
        );
    }

    #[test]
    fn every_spelling_of_a_refresh_a_browser_reads_is_taken_out() {
        let doc = Document::from_page("k", None, "");
        for meta in [
            "<meta http-equiv\t=\t\"refresh\" content=\"0;url=http://evil.example/\">",
            "<meta http-equiv=\n\"refresh\" content=\"0;url=http://evil.example/\">",
            "<meta http-equiv=\"&#114;efresh\" content=\"0;url=http://evil.example/\">",
            "<meta HTTP-EQUIV=REFRESH content=0;url=http://evil.example/>",
            "<base href=\"http://evil.example/\">",
        ] {
            let html = format!("<html><head>{meta}</head><body><p>Story</p></body></html>");
            let inner = framed(&inert_page(&html, &doc));
            assert!(!inner.contains("evil.example"), "{meta:?} left in {inner}");
            assert!(inner.contains("<p>Story</p>"));
        }
    }

    #[test]
    fn a_url_with_a_shell_character_stays_one_encoded_argument() {
        let mut doc = Document::from_page("k", Some("http://x.example/a b?q=1&calc.exe\"x"), "");
        doc.date = Some("2014-03-25T12:12:25Z".into());
        let url = replay_url(DEFAULT_REPLAY, &doc).unwrap();
        assert!(!url.contains(' ') && !url.contains('"'), "{url}");
        assert!(url.contains("q=1&calc.exe"), "{url}");
    }
}
