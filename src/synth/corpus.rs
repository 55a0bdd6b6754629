//! The crawl plan of the synthetic archive: which stories run on which sites, with which edits,
//! captured when, revisited or not, among which non-HTML and error responses.
//!
//! In: the seed and a [`BatchPlan`] (a run of consecutive stories). Out: the batch's
//! [`Capture`]s in capture-time order, each carrying its gold cluster when it is an HTML page.
//!
//! Everything a batch needs is drawn from RNG streams keyed by (seed, story, copy), so batches
//! are independent: they render in parallel and the archive streams with bounded memory, yet the
//! bytes do not depend on the thread count.
//!
//! The cases the archive is built to contain (those a real crawl of news sites holds; the SpotSigs
//! paper's §1 motivation and henzinger §3's same-site / different-site split):
//! - a story syndicated to 2–8 sites, each copy edited: the site's byline and date format, maybe
//!   another headline wording, a later version with one or two paragraphs rewritten, wire copy
//!   cut to its first half to four fifths, a dropped or added last paragraph, a few word
//!   substitutions;
//! - sometimes a second copy on the *same* site (a print URL with its own sidebars);
//! - stories published once (singletons), some of them short briefs lost in their frame;
//! - repeated captures: a `revisit` when nothing changed, a new `response` when only the frame
//!   (sidebar, comment count) changed — both belong to the page's cluster;
//! - style sheets, scripts, tracking pixels, JSON, `404` pages and `301` redirects.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};

use super::clock::Instant;
use super::prose::{Length, Story, story_headline, story_teaser};
use super::sites::{PageView, SITES, SiteFrame, render_article, render_not_found, slug};
use super::words::SUBSTITUTIONS;
use super::{rng_for, stream};

/// Seconds of crawl time covered by one batch.
const BATCH_SECONDS: u64 = 6 * 3_600;

/// How one story is published: as an article or a brief, on which sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryShape {
    /// Story index (its gold cluster is `story-<index>`).
    pub index: u64,
    /// Article or brief.
    pub length: Length,
    /// Sites carrying a copy, original first; a site listed twice carries a second copy.
    pub sites: Vec<usize>,
    /// For each copy, whether the crawler came back to it.
    pub recaptures: Vec<Recapture>,
}

/// A later capture of a page, drawn with the story's shape so page counts are known up front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recapture {
    /// Captured once.
    None,
    /// Captured again with an identical payload: a `revisit` record.
    Revisit,
    /// Captured again after the frame changed (sidebars, comment count): a second `response`.
    Changed,
}

impl Recapture {
    /// HTML responses this recapture adds.
    pub fn pages(self) -> u64 {
        u64::from(self == Recapture::Changed)
    }
}

impl StoryShape {
    /// Draw the shape of story `index`: about half the stories are syndicated to 2–8 sites (a
    /// tenth of those twice on one site), the rest are singletons, a third of them briefs.
    pub fn draw(seed: u64, index: u64) -> StoryShape {
        let mut rng = rng_for(seed, &[stream::SHAPE, index]);
        let roll: f64 = rng.random();
        let mut order: Vec<usize> = (0..SITES.len()).collect();
        order.shuffle(&mut rng);
        let (length, copies) = if roll < 0.5 {
            // 2..=8 copies, small numbers more likely (as syndication is).
            let mut n = 2;
            while n < SITES.len() && rng.random_bool(0.55) {
                n += 1;
            }
            (Length::Article, n)
        } else if roll < 0.83 {
            (Length::Article, 1)
        } else {
            (Length::Brief, 1)
        };
        let mut sites: Vec<usize> = order.into_iter().take(copies).collect();
        if copies > 1 && rng.random_bool(0.1) {
            let again = sites[rng.random_range(0..sites.len())];
            sites.push(again);
        }
        let recaptures = sites
            .iter()
            .map(|_| {
                let roll: f64 = rng.random();
                if roll < 0.10 {
                    Recapture::Revisit
                } else if roll < 0.15 {
                    Recapture::Changed
                } else {
                    Recapture::None
                }
            })
            .collect();
        StoryShape {
            index,
            length,
            sites,
            recaptures,
        }
    }

    /// HTML responses (status 200) this story makes: its copies and changed recaptures.
    pub fn pages(&self) -> u64 {
        self.sites.len() as u64 + self.recaptures.iter().map(|r| r.pages()).sum::<u64>()
    }

    /// Cut the story to at most `budget` HTML responses, dropping later copies first.
    pub fn truncate_pages(&mut self, budget: u64) {
        let mut used = 0;
        let mut keep = 0;
        for recapture in &mut self.recaptures {
            if used + 1 > budget {
                break;
            }
            used += 1;
            keep += 1;
            if used + recapture.pages() > budget {
                *recapture = Recapture::None;
            }
            used += recapture.pages();
        }
        self.sites.truncate(keep);
        self.recaptures.truncate(keep);
    }

    /// The gold cluster name of this story.
    pub fn cluster(&self) -> String {
        cluster_name(self.index)
    }
}

/// The gold cluster name of story `index`.
pub fn cluster_name(index: u64) -> String {
    format!("story-{index:06}")
}

/// A run of consecutive stories rendered together.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    /// Batch number (sets its crawl-time window).
    pub index: u64,
    /// The stories, possibly the last one cut short to meet a page budget.
    pub stories: Vec<StoryShape>,
}

/// What was fetched.
#[derive(Debug, Clone)]
pub enum CaptureKind {
    /// An HTML article page (status 200), member of gold cluster `cluster`.
    Page {
        /// Gold cluster.
        cluster: String,
        /// Index into [`SITES`].
        site: usize,
        /// The page bytes in the site's charset.
        body: Vec<u8>,
    },
    /// A later capture of page `of` (a serial) with an identical payload.
    Revisit {
        /// Serial of the capture it repeats.
        of: u64,
        /// Gold cluster of that page.
        cluster: String,
    },
    /// A non-HTML resource (status 200).
    Asset {
        /// Its `Content-Type`.
        content_type: &'static str,
        /// Its bytes.
        body: Vec<u8>,
    },
    /// An error page or a redirect.
    Status {
        /// HTTP status (404, 301).
        status: u16,
        /// `Location` of a redirect.
        location: Option<String>,
        /// The body bytes (HTML).
        body: Vec<u8>,
    },
}

/// One fetch of the synthetic crawl.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Unique within the archive; record ids derive from it.
    pub serial: u64,
    /// When it was fetched.
    pub at: Instant,
    /// Target URL.
    pub uri: String,
    /// Index into [`SITES`] of the host.
    pub site: usize,
    /// What came back.
    pub kind: CaptureKind,
}

impl Capture {
    /// The HTTP `Content-Type` this capture was served with.
    pub fn content_type(&self) -> &'static str {
        match &self.kind {
            CaptureKind::Page { site, .. } => SITES[*site].charset.http_content_type(),
            CaptureKind::Revisit { .. } => SITES[self.site].charset.http_content_type(),
            CaptureKind::Asset { content_type, .. } => content_type,
            CaptureKind::Status { .. } => "text/html; charset=utf-8",
        }
    }
}

/// A 1×1 transparent GIF, the classic tracking pixel.
const PIXEL_GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b";

fn article_url(
    site: usize,
    story: u64,
    copy: usize,
    section: &str,
    headline: &str,
    at: Instant,
) -> String {
    let origin = SITES[site].origin;
    let id = 100_000 + story * 16 + copy as u64;
    let section = slug(section);
    let slug = slug(headline);
    let day = at.ymd_path();
    match site {
        0 => format!("{origin}/news/{section}/{day}/{slug}-{id}.html"),
        1 => format!("{origin}/{section}/{slug}/{id}/"),
        2 => format!("{origin}/story.php?id={id}&s={section}"),
        3 => format!("{origin}/{day}/{slug}-{id}"),
        4 => format!("{origin}/articles/{id}-{slug}"),
        5 => format!("{origin}/{section}/{slug}-{id}.htm"),
        6 => format!("{origin}/news/{id}/{slug}"),
        _ => format!("{origin}/wire/{day}/{slug}-{id}"),
    }
}

/// Indices of other stories near `index` (sidebars change from page to page, as they do).
fn other_stories(index: u64, rng: &mut impl Rng, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            let offset = rng.random_range(1..=400u64);
            if rng.random_bool(0.5) || offset > index {
                index + offset
            } else {
                index - offset
            }
        })
        .collect()
}

/// The edited copy number `copy` of `story` (copy 0 is the original as written).
fn edit_copy(seed: u64, story: &Story, copy: usize) -> (String, Vec<String>, u64) {
    if copy == 0 {
        return (story.headline.clone(), story.paragraphs.clone(), 0);
    }
    let mut rng = rng_for(seed, &[stream::COPY, story.index, copy as u64]);
    let mut headline = story.headline.clone();
    if rng.random_bool(0.4) && !story.alt_headlines.is_empty() {
        headline = story
            .alt_headlines
            .choose(&mut rng)
            .cloned()
            .unwrap_or(headline);
    }
    if rng.random_bool(0.1) {
        headline = format!("UPDATE: {headline}");
    }
    let mut paragraphs = story.paragraphs.clone();
    // A later version of the story: one or two paragraphs rewritten.
    if paragraphs.len() > 2 && rng.random_bool(0.2) {
        for revision in story.revisions.iter().take(rng.random_range(1..=2)) {
            let at = rng.random_range(1..paragraphs.len());
            paragraphs[at] = revision.clone();
        }
    }
    if paragraphs.len() > 4 && rng.random_bool(0.2) {
        // Wire copy cut to fit: the first half to four fifths.
        let keep = paragraphs.len() * rng.random_range(50..=80usize) / 100;
        paragraphs.truncate(keep.max(2));
    } else if paragraphs.len() > 2 && rng.random_bool(0.3) {
        paragraphs.pop();
    } else if rng.random_bool(0.25) {
        paragraphs.push(story.extra_paragraph.clone());
    }
    if rng.random_bool(0.5) {
        for _ in 0..rng.random_range(1..=3) {
            let Some(&(from, to)) = SUBSTITUTIONS.choose(&mut rng) else {
                break;
            };
            for paragraph in &mut paragraphs {
                if paragraph.contains(from) {
                    *paragraph = paragraph.replacen(from, to, 1);
                    break;
                }
            }
        }
    }
    // Syndicated copies go up minutes to hours after the original.
    let delay = rng.random_range(600..30_000u64);
    (headline, paragraphs, delay)
}

/// Builds the captures of one batch.
struct BatchBuilder<'a> {
    seed: u64,
    frames: &'a [SiteFrame],
    start: Instant,
    next_serial: u64,
    captures: Vec<Capture>,
    rng: rand_chacha::ChaCha8Rng,
}

impl BatchBuilder<'_> {
    fn push(&mut self, at: Instant, uri: String, site: usize, kind: CaptureKind) -> u64 {
        let serial = self.next_serial;
        self.next_serial += 1;
        self.captures.push(Capture {
            serial,
            at,
            uri,
            site,
            kind,
        });
        serial
    }

    fn page(&mut self, shape: &StoryShape, story: &Story, copy: usize, site: usize) {
        let (headline, paragraphs, delay) = edit_copy(self.seed, story, copy);
        let published = self.start.plus(delay).plus(self.rng.random_range(0..3_600));
        let at = published.plus(self.rng.random_range(60..(BATCH_SECONDS / 2)));
        let first_copy_on_site = shape.sites[..copy].iter().all(|&s| s != site);
        let mut uri = article_url(site, story.index, copy, story.section, &headline, published);
        if !first_copy_on_site {
            uri.push_str(if uri.contains('?') {
                "&output=print"
            } else {
                "?output=print"
            });
        }
        let cluster = shape.cluster();
        let body = self.render(story, site, &headline, &paragraphs, published, &uri);
        let serial = self.push(
            at,
            uri.clone(),
            site,
            CaptureKind::Page {
                cluster: cluster.clone(),
                site,
                body,
            },
        );
        let later = at.plus(self.rng.random_range(1_800..BATCH_SECONDS));
        match shape
            .recaptures
            .get(copy)
            .copied()
            .unwrap_or(Recapture::None)
        {
            Recapture::None => {}
            Recapture::Revisit => {
                let kind = CaptureKind::Revisit {
                    of: serial,
                    cluster,
                };
                self.push(later, uri.clone(), site, kind);
            }
            Recapture::Changed => {
                // Same story, the frame moved on: new sidebars and comment count.
                let body = self.render(story, site, &headline, &paragraphs, published, &uri);
                self.push(
                    later,
                    uri.clone(),
                    site,
                    CaptureKind::Page {
                        cluster,
                        site,
                        body,
                    },
                );
            }
        }
        self.extras(site, &uri, at);
    }

    fn render(
        &mut self,
        story: &Story,
        site: usize,
        headline: &str,
        paragraphs: &[String],
        published: Instant,
        uri: &str,
    ) -> Vec<u8> {
        let most_read: Vec<String> = other_stories(story.index, &mut self.rng, 6)
            .into_iter()
            .map(|other| story_headline(self.seed, other))
            .collect();
        let more_news: Vec<(String, String)> = other_stories(story.index, &mut self.rng, 4)
            .into_iter()
            .map(|other| story_teaser(self.seed, other))
            .collect();
        let view = PageView {
            site,
            section: story.section,
            headline,
            dek: &story.dek,
            author: &story.author,
            published,
            paragraphs,
            url: uri,
            most_read: &most_read,
            more_news: &more_news,
            comments: self.rng.random_range(0..250),
            ad_seed: self.rng.random(),
        };
        SITES[site]
            .charset
            .encode(&render_article(&view, &self.frames[site]))
    }

    /// Non-HTML and non-200 fetches that a crawl of the page also made.
    fn extras(&mut self, site: usize, page_uri: &str, at: Instant) {
        let origin = SITES[site].origin;
        let roll: f64 = self.rng.random();
        let at = at.plus(self.rng.random_range(1..30));
        if roll < 0.05 {
            let (uri, content_type, body) = match self.rng.random_range(0..4u32) {
                0 => (
                    format!("{origin}/static/site.css"),
                    "text/css",
                    self.frames[site].css().as_bytes().to_vec(),
                ),
                1 => (
                    format!("{origin}/static/app.js"),
                    "application/javascript",
                    self.frames[site].script().as_bytes().to_vec(),
                ),
                2 => (
                    format!(
                        "{origin}/px.gif?u={}",
                        self.rng.random_range(0..1_000_000u32)
                    ),
                    "image/gif",
                    PIXEL_GIF.to_vec(),
                ),
                _ => {
                    let id = self.rng.random_range(1_000..99_999u32);
                    let json = format!(
                        "{{\"article\":{id},\"comments\":{},\"page\":\"{page_uri}\",\"open\":true}}",
                        self.rng.random_range(0..300u32)
                    );
                    (
                        format!("{origin}/api/comments?article={id}"),
                        "application/json",
                        json.into_bytes(),
                    )
                }
            };
            self.push(at, uri, site, CaptureKind::Asset { content_type, body });
        } else if roll < 0.08 {
            let uri = format!(
                "{origin}/news/archive/{}-old-link",
                self.rng.random_range(1..9_999u32)
            );
            let body = render_not_found(site, &self.frames[site], at).into_bytes();
            self.push(
                at,
                uri,
                site,
                CaptureKind::Status {
                    status: 404,
                    location: None,
                    body,
                },
            );
        } else if roll < 0.11 {
            let from = match page_uri.strip_prefix("https://") {
                Some(rest) => format!("http://{rest}"),
                None => format!("{page_uri}&ref=home"),
            };
            let body = format!(
                "<html><head><title>301 Moved Permanently</title></head><body><h1>Moved \
                 Permanently</h1><p>The document has moved <a href=\"{page_uri}\">here</a>.</p>\
                 </body></html>\n"
            )
            .into_bytes();
            let kind = CaptureKind::Status {
                status: 301,
                location: Some(page_uri.to_string()),
                body,
            };
            self.push(at, from, site, kind);
        }
    }
}

/// All captures of one batch, sorted by capture time (then serial). Serials are
/// `batch index << 24 | n`, unique across the archive without counting earlier batches.
pub fn batch_captures(seed: u64, plan: &BatchPlan, frames: &[SiteFrame]) -> Vec<Capture> {
    let mut builder = BatchBuilder {
        seed,
        frames,
        start: Instant::CRAWL_START.plus(plan.index * BATCH_SECONDS),
        next_serial: plan.index << 24,
        captures: Vec::new(),
        rng: rng_for(seed, &[stream::BATCH, plan.index]),
    };
    for shape in &plan.stories {
        let story = Story::generate(seed, shape.index, shape.length);
        for (copy, &site) in shape.sites.iter().enumerate() {
            builder.page(shape, &story, copy, site);
        }
    }
    let mut captures = builder.captures;
    captures.sort_by_key(|c| (c.at, c.serial));
    captures
}
