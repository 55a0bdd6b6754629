//! The invented news sites of the synthetic archive and the HTML frame each wraps around a story.
//!
//! In: a [`PageView`] (which site, the edited copy of a story, its URL, the headlines of *other*
//! stories for the sidebars). Out: the page's HTML text, plus its bytes in the site's charset.
//!
//! The frames are deliberately heavy — inline style sheet and scripts, navigation, advert blocks,
//! a "most read" sidebar, a related-stories list, a long footer — so that, as on real news sites,
//! the frame often outweighs the core story. Two pages of one site carrying different stories
//! therefore look alike to whole-page similarity (the trap of henzinger §1 and the SpotSigs
//! paper's motivation), while copies of one story on different sites look unlike.
//!
//! Three sites belong to one newspaper group and share its footer notice (as network sites
//! share frame parts), and every page lists other stories with their standfirsts, which changes
//! from page to page.
//!
//! Charsets: one site sends `windows-1252` in the HTTP header, one declares `windows-1252` only in
//! `<meta charset>`, one declares UTF-8 only in a `<meta http-equiv>`; the rest send UTF-8 in the
//! header. The stories contain curly quotes and accented names, so a wrong decode shows.

use std::fmt::Write as _;

use rand::Rng;
use rand::seq::IndexedRandom;

use super::clock::Instant;
pub use super::mastheads::{SITES, Site};
use super::rng_for;
use super::stream;

/// How a site declares the charset of its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// UTF-8, named in the HTTP `Content-Type` header and in `<meta charset>`.
    Utf8Header,
    /// UTF-8, named only in `<meta http-equiv="Content-Type">` (header without charset).
    Utf8MetaOnly,
    /// windows-1252, named in the HTTP header (and nowhere in the page).
    Win1252Header,
    /// windows-1252, named only in `<meta charset>` (header without charset).
    Win1252MetaOnly,
}

impl Charset {
    /// The HTTP `Content-Type` value for the site's HTML pages.
    pub fn http_content_type(self) -> &'static str {
        match self {
            Charset::Utf8Header => "text/html; charset=utf-8",
            Charset::Win1252Header => "text/html; charset=windows-1252",
            Charset::Utf8MetaOnly | Charset::Win1252MetaOnly => "text/html",
        }
    }

    fn meta_tag(self) -> &'static str {
        match self {
            Charset::Utf8Header => "<meta charset=\"utf-8\">",
            Charset::Utf8MetaOnly => {
                "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">"
            }
            Charset::Win1252Header => "",
            Charset::Win1252MetaOnly => "<meta charset=\"windows-1252\">",
        }
    }

    /// The page's bytes in this charset (characters windows-1252 lacks become `&#N;`).
    pub fn encode(self, html: &str) -> Vec<u8> {
        match self {
            Charset::Utf8Header | Charset::Utf8MetaOnly => html.as_bytes().to_vec(),
            Charset::Win1252Header | Charset::Win1252MetaOnly => {
                encoding_rs::WINDOWS_1252.encode(html).0.into_owned()
            }
        }
    }
}

/// What a site's every page shares: its style sheet and scripts, generated once per seed.
#[derive(Debug, Clone)]
pub struct SiteFrame {
    css: String,
    script: String,
}

impl SiteFrame {
    /// The frame of site `site` for the stream seeded by `seed`.
    pub fn generate(seed: u64, site: usize) -> SiteFrame {
        let mut rng = rng_for(seed, &[stream::FRAME, site as u64]);
        let prefix = SITES[site % SITES.len()].prefix;
        let props = [
            "margin",
            "padding",
            "color",
            "background",
            "font-size",
            "line-height",
            "border",
            "width",
            "max-width",
            "display",
            "letter-spacing",
            "text-transform",
        ];
        let parts = [
            "header", "nav", "menu", "item", "link", "ad", "slot", "aside", "list", "card",
            "footer", "social", "promo", "title", "meta", "byline", "body", "btn", "grid", "col",
        ];
        let mut css = String::new();
        for _ in 0..rng.random_range(70..110) {
            let part = parts.choose(&mut rng).copied().unwrap_or("box");
            let _ = write!(css, ".{prefix}-{part}-{}{{", rng.random_range(1..40u32));
            for _ in 0..rng.random_range(2..6) {
                let prop = props.choose(&mut rng).copied().unwrap_or("margin");
                let value = match prop {
                    "color" | "background" => format!("#{:06x}", rng.random_range(0..0xFF_FFFFu32)),
                    "display" => ["block", "flex", "none", "inline-block", "grid"]
                        .choose(&mut rng)
                        .copied()
                        .unwrap_or("block")
                        .to_string(),
                    "text-transform" => "uppercase".to_string(),
                    "border" => format!("{}px solid #ddd", rng.random_range(0..4u32)),
                    _ => format!("{}px", rng.random_range(0..64u32)),
                };
                let _ = write!(css, "{prop}:{value};");
            }
            css.push_str("}\n");
        }
        let mut script = format!(
            "window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments);}}\n\
             gtag('js',new Date());gtag('config','UA-{:08}-{}');\n",
            rng.random_range(10_000_000..99_999_999u32),
            site + 1
        );
        for k in 0..rng.random_range(12..20) {
            let _ = writeln!(
                script,
                "var {prefix}_slot{k}={{id:'div-gpt-ad-{}-{k}',sizes:[[300,250],[728,90]],\
                 targeting:{{section:'news',pos:'{}'}},refresh:{}}};\
                 googletag.cmd.push(function(){{googletag.defineSlot('/{}/{prefix}/news',\
                 {prefix}_slot{k}.sizes,{prefix}_slot{k}.id).addService(googletag.pubads());}});",
                rng.random_range(100_000..999_999u32),
                ["top", "mid", "bottom", "rail"]
                    .choose(&mut rng)
                    .copied()
                    .unwrap_or("top"),
                rng.random_range(30..120u32),
                rng.random_range(1_000..9_999u32),
            );
        }
        SiteFrame { css, script }
    }

    /// The site's style sheet (inlined in pages, also served as `/static/site.css`).
    pub fn css(&self) -> &str {
        &self.css
    }

    /// The site's script (inlined in pages, also served as `/static/app.js`).
    pub fn script(&self) -> &str {
        &self.script
    }
}

/// Everything that goes into one rendered article page.
#[derive(Debug)]
pub struct PageView<'a> {
    /// Index into [`SITES`].
    pub site: usize,
    /// Section name.
    pub section: &'a str,
    /// The headline as this site words it.
    pub headline: &'a str,
    /// The story's standfirst.
    pub dek: &'a str,
    /// The story's author (the site applies its byline style).
    pub author: &'a str,
    /// When this copy says it was published.
    pub published: Instant,
    /// The edited body paragraphs.
    pub paragraphs: &'a [String],
    /// This page's URL.
    pub url: &'a str,
    /// Headlines of other stories for the "most read" sidebar.
    pub most_read: &'a [String],
    /// Headlines and standfirsts of other stories for the "more news" list under the story.
    pub more_news: &'a [(String, String)],
    /// Number of reader comments shown.
    pub comments: u32,
    /// Selects which adverts rotate in.
    pub ad_seed: u64,
}

/// HTML-escape text content.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(ch),
        }
    }
    out
}

/// A URL path segment from a headline: lowercase ASCII words joined by `-`.
pub fn slug(headline: &str) -> String {
    let mut words = Vec::new();
    for word in headline.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !word.is_empty() && words.len() < 8 {
            words.push(word.to_ascii_lowercase());
        }
    }
    words.join("-")
}

fn date_line(site: usize, at: Instant) -> String {
    let c = at.civil();
    let (h12, ampm) = match c.hour {
        0 => (12, "a.m."),
        1..=11 => (c.hour, "a.m."),
        12 => (12, "p.m."),
        _ => (c.hour - 12, "p.m."),
    };
    match site % 4 {
        0 => format!(
            "{} {}, {} {}:{:02} {ampm}",
            c.month_name(),
            c.day,
            c.year,
            h12,
            c.minute
        ),
        1 => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}",
            c.year, c.month, c.day, c.hour, c.minute
        ),
        2 => format!(
            "{}, {} {} {}",
            c.weekday_name(),
            c.day,
            c.month_name(),
            c.year
        ),
        _ => format!(
            "Published {:02}/{:02}/{:04} at {:02}:{:02}",
            c.day, c.month, c.year, c.hour, c.minute
        ),
    }
}

fn head(out: &mut String, site: &Site, frame: &SiteFrame, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n{}\n<title>{}</title>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta property=\"og:site_name\" content=\"{}\">\n\
         <link rel=\"stylesheet\" href=\"{}/static/site.css\">\n<style>\n{}</style>\n\
         <script>\n{}</script>\n</head>\n",
        site.charset.meta_tag(),
        escape(title),
        escape(site.name),
        site.origin,
        frame.css,
        frame.script
    );
}

fn masthead(out: &mut String, site: &Site, at: Instant) {
    let p = site.prefix;
    let c = at.civil();
    let _ = write!(
        out,
        "<body class=\"{p}-body\">\n<div class=\"{p}-topbar\"><span>{}, {} {}, {}</span> \
         <a href=\"/subscribe\">Subscribe</a> <a href=\"/login\">Sign in</a></div>\n\
         <header class=\"{p}-header\"><a class=\"{p}-logo\" href=\"/\">{}</a>\
         <p class=\"{p}-tagline\">{}</p></header>\n<nav class=\"{p}-nav\"><ul>\n",
        c.weekday_name(),
        c.month_name(),
        c.day,
        c.year,
        escape(site.name),
        escape(site.tagline)
    );
    for item in site.nav {
        let _ = writeln!(
            out,
            "<li class=\"{p}-menu-item\"><a href=\"/{}/\">{}</a></li>",
            slug(item),
            escape(item)
        );
    }
    out.push_str("</ul></nav>\n");
}

fn advert(out: &mut String, site: &Site, rng: &mut impl Rng, slot: &str) {
    let p = site.prefix;
    let copy = site.ads.choose(rng).copied().unwrap_or("Advertise with us");
    let _ = writeln!(
        out,
        "<div class=\"{p}-ad {p}-ad-{slot}\" id=\"div-gpt-ad-{}\"><span class=\"{p}-ad-label\">\
         Advertisement</span><a href=\"/ads/click?slot={slot}&amp;c={}\" rel=\"sponsored\">{}</a>\
         </div>",
        rng.random_range(100_000..999_999u32),
        rng.random_range(1..500u32),
        escape(copy)
    );
}

fn headline_list(out: &mut String, site: &Site, class: &str, title: &str, items: &[String]) {
    let p = site.prefix;
    let _ = writeln!(
        out,
        "<section class=\"{p}-{class}\"><h3>{}</h3><ol>",
        escape(title)
    );
    for (k, item) in items.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"/news/{}-{k}\">{}</a></li>",
            slug(item),
            escape(item)
        );
    }
    out.push_str("</ol></section>\n");
}

fn teaser_list(out: &mut String, site: &Site, title: &str, items: &[(String, String)]) {
    let p = site.prefix;
    let _ = writeln!(
        out,
        "<section class=\"{p}-more\"><h3>{}</h3><ul>",
        escape(title)
    );
    for (k, (headline, dek)) in items.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li class=\"{p}-card\"><a href=\"/news/{}-{k}\">{}</a><p class=\"{p}-dek\">{}</p></li>",
            slug(headline),
            escape(headline),
            escape(dek)
        );
    }
    out.push_str("</ul></section>\n");
}

/// Per-site wording of the comment link and the newsletter box (frames differ in words too).
const CALLS: &[(&str, &str)] = &[
    ("comments · Have your say", "Courier Morning Edition"),
    ("reader comments · Add yours", "Herald Dockside Digest"),
    ("comments · Sound off", "Gazette Hill Towns Roundup"),
    ("replies · Discuss this story", "Kestrel Bay Tidings"),
    (
        "comments · Community guidelines apply",
        "Sentinel Evening Update",
    ),
    ("comments · Read or post", "Ledger Weekday Headlines"),
    ("comments · Join our forum", "Estuary Briefing"),
    ("responses · Talk to us", "Wire Alerts"),
];

/// Sites of one newspaper group (indices into [`SITES`]); their footers share the group's
/// notice, as real network sites share frame parts — a little frame overlap across sites.
const NETWORK: &[usize] = &[1, 3, 6];

/// The group's notice in its members' footers.
const NETWORK_NOTICE: &str = "A member of the Tidewater Media Network, a group of coastal \
    newspapers: Harbor City Herald · Kestrel Bay Daily · Port Aldous Observer.";

fn footer(out: &mut String, site: &Site, year: i64) {
    let p = site.prefix;
    let index = SITES.iter().position(|s| s.prefix == p).unwrap_or(0);
    let _ = write!(
        out,
        "<footer class=\"{p}-footer\">\n<div class=\"{p}-footer-links\">"
    );
    for item in site.nav.iter().rev() {
        let _ = write!(out, "<a href=\"/{}/\">{}</a> ", slug(item), escape(item));
    }
    let _ = write!(
        out,
        "</div>\n<p class=\"{p}-about\">{}{}</p>\n<p class=\"{p}-legal\">\
         <a href=\"/privacy\">Privacy policy</a> · <a href=\"/terms\">Terms of use</a> · \
         <a href=\"/cookies\">Cookie settings</a> · <a href=\"/accessibility\">Accessibility</a> · \
         <a href=\"/contact\">Contact us</a></p>\n<p class=\"{p}-copyright\">© {year} {}. \
         All rights reserved.</p>\n</footer>\n\
         <script src=\"{}/static/app.js\" async></script>\n</body>\n</html>\n",
        escape(site.about),
        if NETWORK.contains(&index) {
            format!(" {NETWORK_NOTICE}")
        } else {
            String::new()
        },
        escape(site.name),
        site.origin
    );
}

/// The full HTML of an article page.
pub fn render_article(view: &PageView<'_>, frame: &SiteFrame) -> String {
    let site = &SITES[view.site % SITES.len()];
    let p = site.prefix;
    let mut rng = rng_for(view.ad_seed, &[stream::ADS]);
    let mut out = String::with_capacity(32 * 1024);
    head(
        &mut out,
        site,
        frame,
        &format!("{} | {}", view.headline, site.name),
    );
    masthead(&mut out, site, view.published);
    advert(&mut out, site, &mut rng, "leaderboard");
    let byline = site.byline.replace("{author}", view.author);
    let _ = write!(
        out,
        "<main class=\"{p}-main\">\n<div class=\"{p}-breadcrumb\"><a href=\"/\">Home</a> › \
         <a href=\"/{}/\">{}</a></div>\n<article class=\"{p}-article\">\n<h1 class=\"{p}-title\">\
         {}</h1>\n<div class=\"{p}-meta\"><span class=\"{p}-byline\">{}</span> \
         <time>{}</time></div>\n<p class=\"{p}-standfirst\">{}</p>\n<div class=\"{p}-story\">\n",
        slug(view.section),
        escape(view.section),
        escape(view.headline),
        escape(&byline),
        date_line(view.site, view.published),
        escape(view.dek)
    );
    let mid = view.paragraphs.len() / 2;
    for (k, paragraph) in view.paragraphs.iter().enumerate() {
        if k == mid && k > 0 {
            advert(&mut out, site, &mut rng, "inline");
        }
        let _ = writeln!(out, "<p>{}</p>", escape(paragraph));
    }
    let _ = write!(
        out,
        "</div>\n<div class=\"{p}-share\"><a href=\"https://social.example/share?u={url}\">Share</a> \
         <a href=\"mailto:?subject=Story&amp;body={url}\">Email</a> <a href=\"#\">Print</a></div>\n\
         <div class=\"{p}-comments\"><a href=\"#comments\">{} {}</a></div>\n</article>\n",
        view.comments,
        CALLS[view.site % CALLS.len()].0,
        url = escape(view.url)
    );
    teaser_list(&mut out, site, "More news", view.more_news);
    out.push_str("</main>\n");
    let _ = writeln!(out, "<aside class=\"{p}-aside\">");
    advert(&mut out, site, &mut rng, "rail");
    headline_list(&mut out, site, "popular", "Most read", view.most_read);
    advert(&mut out, site, &mut rng, "rail2");
    let _ = writeln!(
        out,
        "<div class=\"{p}-newsletter\"><h3>{}</h3><form action=\
         \"/newsletter\" method=\"post\"><input type=\"email\" name=\"email\" placeholder=\
         \"Your email\"><button class=\"{p}-btn\">Sign up</button></form></div>\n</aside>",
        CALLS[view.site % CALLS.len()].1
    );
    footer(&mut out, site, view.published.civil().year);
    out
}

/// The HTML of the site's "page not found" response for a stale link.
pub fn render_not_found(site_index: usize, frame: &SiteFrame, at: Instant) -> String {
    let site = &SITES[site_index % SITES.len()];
    let p = site.prefix;
    let mut out = String::with_capacity(24 * 1024);
    head(
        &mut out,
        site,
        frame,
        &format!("Page not found | {}", site.name),
    );
    masthead(&mut out, site, at);
    let _ = writeln!(
        out,
        "<main class=\"{p}-main\"><h1>Sorry, we could not find that page</h1><p>The story may \
         have been moved or removed. Try the search box or go back to the <a href=\"/\">home \
         page</a>.</p></main>"
    );
    footer(&mut out, site, at.civil().year);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_encode_as_declared() {
        let text = "“Zoë’s café” — fine";
        assert_eq!(Charset::Utf8Header.encode(text), text.as_bytes());
        let cp = Charset::Win1252Header.encode(text);
        assert_eq!(cp[0], 0x93);
        assert_eq!(encoding_rs::WINDOWS_1252.decode(&cp).0, text);
    }

    #[test]
    fn slug_is_url_safe() {
        assert_eq!(
            slug("Vote clears way for bus route change in Sutter’s Landing"),
            "vote-clears-way-for-bus-route-change-in"
        );
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
