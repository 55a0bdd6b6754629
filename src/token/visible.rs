//! Visible text through a full DOM parse (scraper / html5ever): a page in, the text a browser
//! would show out, with `script`, `style`, `noscript` and `template` dropped and text nodes
//! separated by spaces. For display and token diffs in the workbench; 10–30x slower than
//! [`super::strip`] (ARCHITECTURE.md, "Choices measured"), so signatures do not use it by default.

use scraper::{Html, Node};

const HIDDEN: [&str; 4] = ["script", "style", "noscript", "template"];

/// The visible text of `html`, one space between text nodes.
pub fn visible_text(html: &str) -> String {
    use ego_tree::iter::Edge;
    let doc = Html::parse_document(html);
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
                    out.push_str(&text);
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
}
