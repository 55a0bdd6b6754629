//! See a page as it was: "Open capture" writes the archived page to a temporary file that loads
//! nothing remote and runs no script, and opens it in the system browser; "Open in replay"
//! opens the capture in a replay system (pywb, the Wayback Machine, ReplayWeb.page) through a
//! URL template the person sets, with `{timestamp}` and `{url}` in it.
//!
//! The page is made inert by [`crate::safe_view`] (refreshes and `<base>` out, a sandboxed
//! frame under a Content-Security-Policy that loads nothing and runs nothing). It is written
//! under a random name opened exclusively (`create_new`: a name planted in the temporary
//! folder, a symlink among them, is never followed). The browser is `$BROWSER` when set, else
//! the desktop's opener through the `open` crate (no shell: on Windows `ShellExecuteW`, not
//! `cmd /C start`, so a `&` in a URL is a character, not a command).

use std::path::PathBuf;

use crate::Document;
use crate::document::timestamp14;

pub use crate::safe_view::CAPTURE_POLICY;

/// The default replay template: the Wayback Machine.
pub const DEFAULT_REPLAY: &str = "https://web.archive.org/web/{timestamp}/{url}";

/// `html` made safe to open from disk ([`crate::safe_view::inert_html`]), named by `doc`'s
/// URL (or key) and capture date.
pub fn inert_page(html: &str, doc: &Document) -> String {
    crate::safe_view::inert_html(
        html,
        doc.url.as_deref().unwrap_or(&doc.key),
        doc.date.as_deref(),
    )
}

/// Write `doc`'s page (as the collection decoded it) to a new temporary file; its path.
pub fn write_capture(doc: &Document) -> crate::Result<PathBuf> {
    let html = crate::archive::page_text(doc)?;
    write_inert(&inert_page(&html, doc))
}

/// Write a page already made inert ([`crate::safe_view::inert_html`]) to a new temporary
/// file under a random name opened exclusively; its path.
pub fn write_inert(page: &str) -> crate::Result<PathBuf> {
    use std::io::Write;
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
