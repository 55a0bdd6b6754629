//! A page made safe to open from disk, as the workbench's "Open capture" and the coders'
//! packages show it: parsed by html5ever (through scraper) as a browser parses it, so what
//! counts as a refresh is what a browser reads as one, however it is spelled
//! (`http-equiv\t=\t"refresh"`, a line break, `&#114;efresh`): every `<meta>` whose decoded
//! `http-equiv` is `refresh` and every `<base>` is taken out of the tree, which is then written
//! back. The result is a frame: an outer page with the Content-Security-Policy (`default-src
//! 'none'`: no script, no request to any server; inline styles and `data:` images only; no
//! form, no navigation) holding the page in a sandboxed `<iframe srcdoc>` (no script, no form,
//! no top-level navigation, no pop-up), which inherits the policy; the page carries the policy
//! itself too.

use scraper::{Html, Node};

/// The policy written at the top of every safe page.
pub const CAPTURE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; \
                                  font-src data:; form-action 'none'; base-uri 'none'; \
                                  navigate-to 'none'";

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

/// `html` made safe to open: parsed, every refresh and `<base>` taken out, written back inside
/// a sandboxed frame under the policy; `what` (the page's URL or key) and `date` (its capture)
/// name it.
pub fn inert_html(html: &str, what: &str, date: Option<&str>) -> String {
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
    format!(
        "<!DOCTYPE html>\n<meta charset=\"utf-8\">\n{policy}\n\
         <!-- samecore: capture of {} at {}; scripts, forms, navigation and remote loads are off -->\n\
         <title>{}</title>\n\
         <style>html,body{{margin:0;height:100%}}iframe{{border:0;width:100%;height:100%}}</style>\n\
         <iframe sandbox title=\"{}\" srcdoc=\"{}\"></iframe>\n",
        what.replace("--", "%2D%2D"),
        date.unwrap_or("an unknown date"),
        attribute(what).replace('<', "&lt;"),
        attribute(what),
        attribute(&inner)
    )
}
