//! See a page as it was: "Open capture" writes the archived page to a temporary file that loads
//! nothing remote and runs no script, and opens it in the system browser; "Open in replay"
//! opens the capture in a replay system (pywb, the Wayback Machine, ReplayWeb.page) through a
//! URL template the person sets, with `{timestamp}` and `{url}` in it.
//!
//! The temporary page starts with a Content-Security-Policy that allows only inline styles and
//! `data:` images (`default-src 'none'`: no script, no request to any server, no frame), and
//! its `<meta http-equiv="refresh">` tags are disarmed so it cannot navigate away by itself.
//! The browser is `$BROWSER` when set, else the desktop's opener (`xdg-open`, `open`, `start`).

use std::path::PathBuf;

use crate::Document;
use crate::document::timestamp14;

/// The policy written at the top of every opened capture.
pub const CAPTURE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; \
                                  font-src data:; form-action 'none'; base-uri 'none'";

/// The default replay template: the Wayback Machine.
pub const DEFAULT_REPLAY: &str = "https://web.archive.org/web/{timestamp}/{url}";

/// `html` made safe to open from disk: the policy first, refreshes disarmed.
pub fn inert_page(html: &str, doc: &Document) -> String {
    let mut out = String::with_capacity(html.len() + 400);
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CAPTURE_POLICY}\">\n\
         <!-- samecore: capture of {} at {}; scripts and remote loads are off -->\n",
        doc.url
            .as_deref()
            .unwrap_or(&doc.key)
            .replace("--", "%2D%2D"),
        doc.date.as_deref().unwrap_or("an unknown date")
    ));
    // ASCII-case-insensitive search for http-equiv="refresh" (any quoting), replaced in place.
    let lower = html.to_ascii_lowercase();
    let mut last = 0;
    let mut from = 0;
    while let Some(at) = lower[from..].find("http-equiv") {
        let start = from + at;
        let rest = &lower[start..];
        let value = rest["http-equiv".len()..].trim_start_matches([' ', '=', '"', '\'']);
        if value.starts_with("refresh") {
            out.push_str(&html[last..start]);
            out.push_str("data-samecore-disarmed");
            last = start + "http-equiv".len();
        }
        from = start + "http-equiv".len();
    }
    out.push_str(&html[last..]);
    out
}

/// Write `doc`'s page (as the collection decoded it) to a temporary file; its path.
pub fn write_capture(doc: &Document) -> crate::Result<PathBuf> {
    let html = crate::archive::page_text(doc)?;
    let page = inert_page(&html, doc);
    let name = format!(
        "samecore-capture-{:016x}.html",
        xxhash_rust::xxh3::xxh3_64(doc.capture().as_bytes())
    );
    let path = std::env::temp_dir().join(name);
    std::fs::write(&path, page).map_err(|e| crate::Error::io(e, &path))?;
    Ok(path)
}

/// The replay URL of `doc` by `template` (`{timestamp}`, `{url}`); none without a URL.
pub fn replay_url(template: &str, doc: &Document) -> Option<String> {
    let url = doc.url.as_deref()?;
    let ts = doc
        .date
        .as_deref()
        .and_then(timestamp14)
        .unwrap_or_default();
    Some(template.replace("{timestamp}", &ts).replace("{url}", url))
}

/// Open `target` (a file path or a URL) in the browser, without waiting for it.
pub fn open_in_browser(target: &str) -> std::io::Result<()> {
    let mut command = match std::env::var("BROWSER") {
        Ok(b) if !b.trim().is_empty() => std::process::Command::new(b.trim()),
        _ if cfg!(target_os = "macos") => std::process::Command::new("open"),
        _ if cfg!(target_os = "windows") => {
            let mut c = std::process::Command::new("cmd");
            c.args(["/C", "start", ""]);
            c
        }
        _ => std::process::Command::new("xdg-open"),
    };
    command
        .arg(target)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(page.starts_with("<meta http-equiv=\"Content-Security-Policy\""));
        assert!(page.contains("default-src 'none'"));
        assert!(!page.to_ascii_lowercase().contains("http-equiv='refresh'"));
        assert!(page.contains("data-samecore-disarmed='Refresh'"));
        assert!(page.contains("<body>Story</body>"));
        let path = write_capture(&doc).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), page);
        assert_eq!(
            replay_url(DEFAULT_REPLAY, &doc).as_deref(),
            Some("https://web.archive.org/web/20140325121225/http://news.example.com/a")
        );
        assert_eq!(
            replay_url("http://localhost:8080/coll/{timestamp}/{url}", &doc).as_deref(),
            Some("http://localhost:8080/coll/20140325121225/http://news.example.com/a")
        );
    }
}
