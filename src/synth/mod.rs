//! Synthetic news archives: the project's own sample archive and benchmark archives of any size.
//!
//! In: [`SynthOptions`] (a seed, a page budget and/or a compressed-size target). Out: a WARC 1.1
//! `.warc.gz` (one gzip member per record) or a folder of `.html` files, plus a gold file
//! `doc<TAB>cluster` — exactly what the detectors and the evaluation (ARCHITECTURE.md, "Evaluation
//! protocol") need, built from text the project writes itself.
//!
//! The archive is what the SpotSigs paper (§1, §5) and henzinger (§3) evaluate on, in miniature:
//! invented news sites, each with a heavy frame of its own (navigation, adverts, sidebars of
//! other headlines, footer); the same core stories syndicated across sites with small edits;
//! same-frame pages carrying different stories (the trap for whole-page shingling); repeated
//! captures as `revisit` records; some non-HTML and non-200 responses; two sites serving
//! windows-1252. Which module does what:
//!
//! - [`lexicon`], [`names`], [`words`], [`topics`], [`grammar`] and [`prose`] — vocabulary,
//!   invented names, sentence templates, story cores;
//! - [`mastheads`] and [`sites`] — the sites and their HTML frames;
//! - [`corpus`] — which story runs where, edits per copy, captures of a batch;
//! - [`emit`] and [`warc_writer`] — WARC records, gzip members, loose files, gold lines;
//! - [`clock`] — dates;
//! - [`calibrate`] — how alike SpotSigs finds same-story, same-site and other pages, the
//!   measure the vocabulary was tuned with against the real gold set.
//!
//! Output streams batch by batch (a few dozen stories each), so memory stays bounded whatever
//! the size; batches are rendered in parallel on the rayon pool and written in order, and every
//! random choice is keyed by (seed, story, copy), so the bytes are the same for a given seed and
//! options whatever the thread count.

pub mod calibrate;
pub mod clock;
pub mod corpus;
pub mod emit;
pub mod grammar;
pub mod lexicon;
pub mod mastheads;
pub mod names;
pub mod prose;
pub mod sites;
pub mod topics;
pub mod warc_writer;
pub mod words;

use std::io::Write;
use std::path::Path;
use std::time::Instant as WallClock;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::progress::Progress;
use crate::{Error, Result};
use corpus::{BatchPlan, StoryShape};
use sites::{SITES, SiteFrame};

/// Stream tags: every random choice draws from a stream keyed by (seed, tag, ids).
pub(crate) mod stream {
    pub const HEADLINE: u64 = 1;
    pub const BODY: u64 = 2;
    pub const FRAME: u64 = 3;
    pub const ADS: u64 = 4;
    pub const SHAPE: u64 = 5;
    pub const COPY: u64 = 6;
    pub const BATCH: u64 = 7;
}

/// splitmix64 finaliser.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A 64-bit hash of a seed and a list of ids (stable across platforms and versions).
pub(crate) fn mix(seed: u64, parts: &[u64]) -> u64 {
    let mut h = splitmix(seed);
    for &part in parts {
        h = splitmix(h ^ part);
    }
    h
}

/// A ChaCha RNG for the stream keyed by `seed` and `parts`.
pub(crate) fn rng_for(seed: u64, parts: &[u64]) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(mix(seed, parts))
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    /// Seed of every random choice.
    pub seed: u64,
    /// Stop after this many HTML pages (status-200 HTML responses, revisits not counted).
    pub pages: Option<u64>,
    /// Stop once the output holds at least this many bytes (compressed bytes for WARC).
    pub target_bytes: Option<u64>,
    /// gzip level 0–9 of each WARC record.
    pub level: u32,
    /// Stories rendered together in one batch. It sets the memory bound, and also the crawl
    /// timeline (a batch is six hours of crawl, captures sorted by time within it), so it is
    /// part of what makes the bytes: keep the default (32) for reproducible archives.
    pub stories_per_batch: usize,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            seed: 1,
            pages: Some(300),
            target_bytes: None,
            level: 6,
            stories_per_batch: 32,
        }
    }
}

/// What was generated.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SynthReport {
    /// HTML pages (status-200 HTML responses).
    pub pages: u64,
    /// Revisit records.
    pub revisits: u64,
    /// Non-HTML and non-200 responses.
    pub others: u64,
    /// WARC records, `warcinfo` included (0 for folder output).
    pub records: u64,
    /// Gold clusters (stories with at least one page).
    pub clusters: u64,
    /// Bytes written (the archive, or all files of a folder).
    pub bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Hands out batches of story shapes until the page budget is spent.
struct Planner {
    seed: u64,
    next_story: u64,
    next_batch: u64,
    pages_left: Option<u64>,
    per_batch: usize,
}

impl Planner {
    fn new(options: &SynthOptions) -> Planner {
        Planner {
            seed: options.seed,
            next_story: 0,
            next_batch: 0,
            pages_left: options.pages,
            per_batch: options.stories_per_batch.max(1),
        }
    }

    fn next_plan(&mut self) -> Option<BatchPlan> {
        if self.pages_left == Some(0) {
            return None;
        }
        let mut stories = Vec::with_capacity(self.per_batch);
        while stories.len() < self.per_batch && self.pages_left != Some(0) {
            let mut shape = StoryShape::draw(self.seed, self.next_story);
            self.next_story += 1;
            if let Some(left) = self.pages_left.as_mut() {
                shape.truncate_pages(*left);
                *left -= shape.pages();
            }
            stories.push(shape);
        }
        let plan = BatchPlan {
            index: self.next_batch,
            stories,
        };
        self.next_batch += 1;
        Some(plan)
    }
}

fn check_options(options: &SynthOptions) -> Result<()> {
    if options.pages.is_none() && options.target_bytes.is_none() {
        return Err(Error::InvalidParameter(
            "synth needs a page count or a target size".into(),
        ));
    }
    if options.level > 9 {
        return Err(Error::InvalidParameter(format!(
            "gzip level {} is not in 0..=9",
            options.level
        )));
    }
    Ok(())
}

/// Check `options` and start `progress` at `stage`, counted in pages, or in bytes when only a
/// size target is given; returns whether it counts bytes.
fn start(options: &SynthOptions, progress: &Progress, stage: &str) -> Result<bool> {
    check_options(options)?;
    let by_bytes = options.pages.is_none();
    let total = if by_bytes {
        options.target_bytes.unwrap_or(0)
    } else {
        options.pages.unwrap_or(0)
    };
    progress.stage(stage, total);
    Ok(by_bytes)
}

/// Render batches in parallel (a window of a few per thread) and hand them to `write` in order,
/// until the planner runs dry, `write` reports the target size reached, or the job is cancelled.
fn drive<T: Send>(
    options: &SynthOptions,
    progress: &Progress,
    render: impl Fn(&BatchPlan, &[SiteFrame]) -> Result<T> + Sync,
    mut write: impl FnMut(T) -> Result<bool>,
) -> Result<u64> {
    let frames: Vec<SiteFrame> = (0..SITES.len())
        .map(|site| SiteFrame::generate(options.seed, site))
        .collect();
    let mut planner = Planner::new(options);
    let window = rayon::current_num_threads().max(1) * 2;
    let mut clusters = 0;
    loop {
        progress.check()?;
        let plans: Vec<BatchPlan> = (0..window).map_while(|_| planner.next_plan()).collect();
        if plans.is_empty() {
            return Ok(clusters);
        }
        let rendered: Vec<Result<T>> = plans.par_iter().map(|plan| render(plan, &frames)).collect();
        for (plan, batch) in plans.iter().zip(rendered) {
            clusters += plan.stories.iter().filter(|s| s.pages() > 0).count() as u64;
            if write(batch?)? {
                return Ok(clusters);
            }
        }
    }
}

/// Write a synthetic `.warc.gz` to `out` (and its gold file to `gold`), starting with a
/// `warcinfo` record that names `filename` and the options. Progress counts pages (or bytes
/// when only a size target is given).
pub fn write_warc(
    options: &SynthOptions,
    filename: &str,
    out: &mut dyn Write,
    mut gold: Option<&mut dyn Write>,
    progress: &Progress,
) -> Result<SynthReport> {
    let by_bytes = start(options, progress, "generating archive")?;
    let started = WallClock::now();
    let io = |e: std::io::Error| Error::io(e, filename);
    let mut report = SynthReport::default();
    let info_id = emit::capture_record_id(options.seed, u64::MAX, 2);
    let info_date = clock::Instant::CRAWL_START.warc_date();
    let fields = format!(
        "software: samecore {} synth\r\nformat: WARC File Format 1.1\r\n\
         conformsTo: http://iso-commons.net/iso28500/warc_1.1\r\n\
         description: synthetic news archive (invented sites and stories) for same-core \
         near-duplicate detection\r\nseed: {}\r\npages: {}\r\ntarget-bytes: {}\r\n",
        env!("CARGO_PKG_VERSION"),
        options.seed,
        options
            .pages
            .map_or("unbounded".to_string(), |p| p.to_string()),
        options
            .target_bytes
            .map_or("none".to_string(), |b| b.to_string()),
    );
    let info = warc_writer::warcinfo(&info_id, &info_date, filename, fields.as_bytes());
    let member = info.to_gzip_member(options.level).map_err(io)?;
    out.write_all(&member).map_err(io)?;
    report.bytes += member.len() as u64;
    report.records += 1;
    if let Some(gold) = gold.as_mut() {
        gold.write_all(b"doc\tcluster\n").map_err(io)?;
    }
    let seed = options.seed;
    let level = options.level;
    report.clusters = drive(
        options,
        progress,
        |plan, frames| emit::warc_batch(seed, &corpus::batch_captures(seed, plan, frames), level),
        |batch| {
            out.write_all(&batch.bytes).map_err(io)?;
            if let Some(gold) = gold.as_mut() {
                for (doc, cluster) in &batch.gold {
                    writeln!(gold, "{doc}\t{cluster}").map_err(io)?;
                }
            }
            report.bytes += batch.bytes.len() as u64;
            report.pages += batch.pages;
            report.revisits += batch.revisits;
            report.others += batch.others;
            report.records += batch.records;
            progress.advance(if by_bytes {
                batch.bytes.len() as u64
            } else {
                batch.pages
            });
            Ok(options
                .target_bytes
                .is_some_and(|target| report.bytes >= target))
        },
    )?;
    out.flush().map_err(io)?;
    if let Some(gold) = gold.as_mut() {
        gold.flush().map_err(io)?;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Write the HTML pages as loose files `dir/<cluster>/<site>-<serial>.html` (the sub-folder is
/// the gold cluster, as the folder reader expects) and, when `gold` is given, a gold file keyed
/// by the relative path. Revisits, non-HTML and error responses have no place in a folder and
/// are left out.
pub fn write_folder(
    options: &SynthOptions,
    dir: &Path,
    mut gold: Option<&mut dyn Write>,
    progress: &Progress,
) -> Result<SynthReport> {
    let by_bytes = start(options, progress, "generating pages")?;
    let started = WallClock::now();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(e, dir))?;
    if let Some(gold) = gold.as_mut() {
        gold.write_all(b"doc\tcluster\n")
            .map_err(|e| Error::io(e, dir))?;
    }
    let seed = options.seed;
    let mut report = SynthReport::default();
    report.clusters = drive(
        options,
        progress,
        |plan, frames| {
            Ok(emit::loose_pages(corpus::batch_captures(
                seed, plan, frames,
            )))
        },
        |pages| {
            let mut bytes = 0;
            for page in &pages {
                let path = dir.join(&page.path);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(e, parent))?;
                }
                std::fs::write(&path, &page.body).map_err(|e| Error::io(e, &path))?;
                if let Some(gold) = gold.as_mut() {
                    writeln!(gold, "{}\t{}", page.path, page.cluster)
                        .map_err(|e| Error::io(e, dir))?;
                }
                bytes += page.body.len() as u64;
            }
            report.bytes += bytes;
            report.pages += pages.len() as u64;
            progress.advance(if by_bytes { bytes } else { pages.len() as u64 });
            Ok(options
                .target_bytes
                .is_some_and(|target| report.bytes >= target))
        },
    )?;
    if let Some(gold) = gold.as_mut() {
        gold.flush().map_err(|e| Error::io(e, dir))?;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}
