//! Packages of a sample of pairs to judge: for each pair both pages as decoded HTML (read as
//! text by the pair view and the terminal, never rendered), their titles, URLs, sites and
//! dates, and the frame of each page's site (told from up to 40 of the project's pages of that
//! site, [`crate::passages::frames_of`]), so the pair view's token diff and aligned passages
//! are the project's own without the archive; the score and stratum unless the sample is
//! blind. The coder's labels (verdict, reason, note) and derivation classes are kept like the
//! values of a round: every decision a row with its time, undo marks the latest undone, and
//! the coder's earlier decisions in the project come along (`carried`).

use std::collections::HashSet;
use std::path::Path;

use rusqlite::{OptionalExtension, params};

use super::{Assigned, Header, Package, bad, check_folder, deflate, inflate, write_package};
use crate::Result;
use crate::labels::{LabelInput, Reason};
use crate::passages::Derivation;
use crate::store::Project;
use crate::store::packages::PackageKind;

/// One page of a pair in a package.
#[derive(Debug, Clone, PartialEq)]
pub struct PackagePage {
    /// Its page key (as the project and exports name it).
    pub key: String,
    /// Its title.
    pub title: Option<String>,
    /// Its URL.
    pub url: Option<String>,
    /// Its site.
    pub site: Option<String>,
    /// When it says it was published (ISO 8601), and where that was found.
    pub published: Option<(String, String)>,
    /// When it was captured.
    pub captured: Option<String>,
    /// The decoded page.
    pub html: String,
    /// Its site's frame (empty: the site has too few pages to tell one).
    pub frame: HashSet<u64>,
}

impl PackagePage {
    /// The page as the project's sample views show it (`id` is only its place in the pair:
    /// a package has no project page ids), for the labelling prompt and bar.
    pub fn as_page(&self, id: i64) -> crate::store::runs::Page {
        crate::store::runs::Page {
            id: crate::store::PageId(id),
            identity: crate::store::runs::PageIdentity {
                key: self.key.clone(),
                url: self.url.clone(),
                date: self.captured.clone(),
                site: self.site.clone(),
                title: self.title.clone(),
                published: self.published.as_ref().map(|(at, _)| at.clone()),
                ..Default::default()
            },
        }
    }

    /// The page as a document held in memory, for [`crate::session::Session::of_pages`].
    pub fn document(&self) -> crate::Document {
        let mut d = crate::Document::from_page(&self.key, self.url.as_deref(), &self.html);
        d.date = self.captured.as_deref().map(Into::into);
        d.title = self.title.as_deref().map(Into::into);
        d.published = self.published.as_ref().and_then(|(at, source)| {
            Some(crate::calendar::Published {
                at: crate::calendar::parse_iso(at)?,
                source: crate::dates::DateSource::from_name(source)?,
            })
        });
        d
    }
}

/// A pair of a package.
#[derive(Debug, Clone, PartialEq)]
pub struct PackagePair {
    /// Its place in the sample (0-based).
    pub position: u32,
    /// The left page.
    pub a: PackagePage,
    /// The right page.
    pub b: PackagePage,
    /// The detector's score (none in a blind sample).
    pub score: Option<f64>,
    /// The stratum it was drawn from (none in a blind sample).
    pub stratum: Option<String>,
}

/// The coder's current decision on a pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageLabel {
    /// The pair.
    pub position: u32,
    /// The decision.
    pub label: LabelInput,
    /// When.
    pub at: String,
}

/// One label row the coder wrote, for the merge.
#[derive(Debug, Clone)]
pub(super) struct LabelRow {
    pub id: i64,
    pub position: u32,
    pub label: LabelInput,
    pub at: String,
    pub undone: bool,
}

/// One derivation row the coder wrote, for the merge: the left page (`a`) is the source, or
/// the right one.
#[derive(Debug, Clone)]
pub(super) struct DerivationRow {
    pub id: i64,
    pub position: u32,
    pub source_is_a: bool,
    pub class: Derivation,
    pub note: String,
    pub at: String,
    pub undone: bool,
}

/// Write one package per coder in `coders` of the sample `sample`'s pairs into `folder`
/// (named `<sample>-<coder>.samecore-package`), by `by`. The pages are read again from the
/// archives; each coder's earlier labels and derivation classes of the sample's pairs come
/// along.
pub fn assign_sample(
    project: &mut Project,
    sample: &str,
    coders: &[String],
    folder: &Path,
    by: &str,
) -> Result<Vec<Assigned>> {
    let info = project.sample_by_name(sample)?;
    let run = info.run.ok_or_else(|| {
        bad(format!(
            "sample {} has no run (it was imported): only a sample drawn from a run goes into \
             packages",
            info.name
        ))
    })?;
    if coders.is_empty() {
        return Err(bad(
            "say who judges the pairs: --coders a,b (a sample has no coders of its own)",
        ));
    }
    for c in coders {
        if c.trim().is_empty() {
            return Err(bad("a coder needs a name"));
        }
    }
    check_folder(folder)?;
    let pairs = project.sample_pairs(info.id)?;
    let pages = project.pages()?;
    let index: std::collections::HashMap<_, usize> =
        pages.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    let mut wanted: Vec<usize> = Vec::new();
    for p in &pairs {
        for page in [&p.a, &p.b] {
            let i = *index
                .get(&page.id)
                .ok_or_else(|| bad(format!("no page {}", page.identity.key)))?;
            if !wanted.contains(&i) {
                wanted.push(i);
            }
        }
    }
    let framed = frames_of_pages(project, &pages, &wanted, &crate::progress::Progress::new())?;
    let labels = project.labels(info.id)?;
    let derivations = project.derivation_history()?;
    let mut out = Vec::new();
    for coder in coders {
        let header = Header {
            kind: PackageKind::Sample,
            name: info.name.clone(),
            run,
            blind: info.blind,
            codebook: Default::default(),
            units: pairs.len(),
        };
        let written = write_package(project, folder, coder, by, &header, &|tx| {
            let mut sites: Vec<&str> = Vec::new();
            for &i in &wanted {
                let p = &pages[i].identity;
                let site = p.site.as_deref().unwrap_or_default();
                if !sites.contains(&site) {
                    sites.push(site);
                }
                let html = framed
                    .texts
                    .get(&i)
                    .ok_or_else(|| bad(format!("page {} was not read", p.key)))?;
                tx.execute(
                    "INSERT INTO pages (id, key, title, url, site, published, published_source,
                       captured, frame, html) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![
                        i as i64,
                        p.key,
                        p.title,
                        p.url,
                        p.site,
                        p.published,
                        p.published_source,
                        p.date,
                        site,
                        deflate(html)?
                    ],
                )?;
            }
            for site in sites {
                let mut seeds: Vec<u64> = framed
                    .frames
                    .get(site)
                    .map(|f| f.iter().copied().collect())
                    .unwrap_or_default();
                seeds.sort_unstable();
                let bytes: Vec<u8> = seeds.iter().flat_map(|s| s.to_le_bytes()).collect();
                tx.execute(
                    "INSERT INTO frames (site, seeds) VALUES (?1, ?2)",
                    params![site, bytes],
                )?;
            }
            for p in &pairs {
                tx.execute(
                    "INSERT INTO pairs (position, a, b, score, stratum) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![
                        p.position,
                        index[&p.a.id] as i64,
                        index[&p.b.id] as i64,
                        if info.blind { None } else { p.score },
                        (!info.blind).then_some(&p.stratum)
                    ],
                )?;
            }
            let mut carried = 0;
            for l in labels.iter().filter(|l| l.annotator == *coder) {
                tx.execute(
                    "INSERT INTO labels (position, verdict, reason, note, at, carried)
                     VALUES (?1, ?2, ?3, ?4, ?5, 1)",
                    params![
                        l.position,
                        l.label.verdict.as_str(),
                        l.label.reason.map(Reason::as_str),
                        l.label.note,
                        l.created_at
                    ],
                )?;
                carried += 1;
            }
            for d in derivations.iter().filter(|d| d.by == *coder) {
                let Some((p, source_is_a)) = pairs.iter().find_map(|p| {
                    if (p.a.id, p.b.id) == (d.source, d.derived) {
                        Some((p, true))
                    } else if (p.b.id, p.a.id) == (d.source, d.derived) {
                        Some((p, false))
                    } else {
                        None
                    }
                }) else {
                    continue;
                };
                tx.execute(
                    "INSERT INTO derivations (position, source, class, note, at, carried)
                     VALUES (?1, ?2, ?3, ?4, ?5, 1)",
                    params![
                        p.position,
                        if source_is_a { "a" } else { "b" },
                        d.class.name(),
                        d.note,
                        d.at
                    ],
                )?;
                carried += 1;
            }
            Ok(carried)
        })?;
        out.push(written);
    }
    Ok(out)
}

/// The decoded texts of `wanted` (indices into the project's `pages`) and their sites'
/// frames, read again from the archives (the pages of those sites only are looked for on
/// disk): what a package of pairs carries, and what `samecore passages --project` aligns.
pub fn frames_of_pages(
    project: &Project,
    pages: &[crate::store::runs::Page],
    wanted: &[usize],
    progress: &crate::progress::Progress,
) -> Result<crate::passages::Framed> {
    let site_of = |i: usize| pages[i].identity.site.clone().unwrap_or_default();
    let want: HashSet<usize> = wanted.iter().copied().collect();
    let sites: HashSet<String> = wanted
        .iter()
        .map(|&i| site_of(i))
        .filter(|s| !s.is_empty())
        .collect();
    // Records are found (`locate` looks at the disk) only for the pages that may be read.
    let locations: Vec<_> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let site = p.identity.site.as_deref().unwrap_or_default();
            (want.contains(&i) || sites.contains(site))
                .then(|| project.locate(p).ok())
                .flatten()
        })
        .collect();
    let read = |i: usize| -> Result<String> {
        let location = locations[i].as_ref().ok_or_else(|| {
            bad(format!(
                "page {} has no record to read again (see samecore relocate)",
                pages[i].identity.key
            ))
        })?;
        crate::archive::text_at(location, pages[i].identity.url.as_deref())
    };
    crate::passages::frames_of(pages.len(), wanted, &site_of, &read, progress)
}

impl Package {
    fn has_pairs(&self) -> bool {
        self.info.format >= 2 && self.info.kind == PackageKind::Sample
    }

    /// How many pairs it holds (none in a package of stories).
    pub fn pair_count(&self) -> Result<u32> {
        if !self.has_pairs() {
            return Ok(0);
        }
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM pairs", [], |r| r.get(0))?;
        Ok(n as u32)
    }

    /// The pair at `position`, with both pages.
    pub fn pair(&self, position: u32) -> Result<PackagePair> {
        self.pair_with(position, true)
    }

    /// The pair at `position` with its pages' keys, titles, URLs, sites and dates but not
    /// their HTML or frames (empty): for lists and checks, without inflating every page.
    pub fn pair_head(&self, position: u32) -> Result<PackagePair> {
        self.pair_with(position, false)
    }

    fn pair_with(&self, position: u32, whole: bool) -> Result<PackagePair> {
        let row: Option<(i64, i64, Option<f64>, Option<String>)> = if self.has_pairs() {
            self.conn
                .query_row(
                    "SELECT a, b, score, stratum FROM pairs WHERE position = ?1",
                    [position],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .optional()?
        } else {
            None
        };
        let (a, b, score, stratum) =
            row.ok_or_else(|| bad(format!("the package has no pair {}", position + 1)))?;
        Ok(PackagePair {
            position,
            a: self.page(a, whole)?,
            b: self.page(b, whole)?,
            score: if self.info.blind { None } else { score },
            stratum: if self.info.blind { None } else { stratum },
        })
    }

    /// Page `id` of the package; `whole`: with its HTML and its site's frame.
    fn page(&self, id: i64, whole: bool) -> Result<PackagePage> {
        let (page, html, frame) = self.conn.query_row(
            "SELECT p.key, p.title, p.url, p.site, p.published, p.published_source, p.captured,
               CASE WHEN ?2 THEN p.html ELSE x'' END, CASE WHEN ?2 THEN f.seeds END
             FROM pages p LEFT JOIN frames f ON f.site = p.frame
             WHERE p.id = ?1",
            params![id, whole],
            |r| {
                let published: Option<String> = r.get(4)?;
                let source: Option<String> = r.get(5)?;
                Ok((
                    PackagePage {
                        key: r.get(0)?,
                        title: r.get(1)?,
                        url: r.get(2)?,
                        site: r.get(3)?,
                        published: published.map(|p| (p, source.unwrap_or_default())),
                        captured: r.get(6)?,
                        html: String::new(),
                        frame: HashSet::new(),
                    },
                    r.get::<_, Vec<u8>>(7)?,
                    r.get::<_, Option<Vec<u8>>>(8)?,
                ))
            },
        )?;
        let frame = frame
            .unwrap_or_default()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        Ok(PackagePage {
            html: if whole {
                inflate(&html)?
            } else {
                String::new()
            },
            frame,
            ..page
        })
    }

    /// Record the coder's decision on the pair at `position`; saved at once.
    pub fn add_label(&mut self, position: u32, label: &LabelInput) -> Result<()> {
        if position >= self.pair_count()? {
            return Err(bad(format!("the package has no pair {}", position + 1)));
        }
        let at = self.next_at("labels")?;
        self.conn.execute(
            "INSERT INTO labels (position, verdict, reason, note, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                position,
                label.verdict.as_str(),
                label.reason.map(Reason::as_str),
                label.note,
                at
            ],
        )?;
        Ok(())
    }

    /// Undo the coder's latest label (the one before counts again); the pair it was on.
    pub fn undo_label(&mut self) -> Result<Option<u32>> {
        if !self.has_pairs() {
            return Ok(None);
        }
        let row: Option<(i64, u32)> = self
            .conn
            .query_row(
                "SELECT id, position FROM labels WHERE undone = 0 AND carried = 0
                 ORDER BY id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((id, position)) = row else {
            return Ok(None);
        };
        self.conn
            .execute("UPDATE labels SET undone = 1 WHERE id = ?1", [id])?;
        Ok(Some(position))
    }

    /// The coder's current label of every pair that has one (the latest by time), by pair.
    pub fn labels(&self) -> Result<Vec<PackageLabel>> {
        let mut out: Vec<PackageLabel> = Vec::new();
        for row in self.label_rows("undone = 0", "position, at, id")? {
            let l = PackageLabel {
                position: row.position,
                label: row.label,
                at: row.at,
            };
            match out.last_mut() {
                Some(last) if last.position == l.position => *last = l,
                _ => out.push(l),
            }
        }
        Ok(out)
    }

    /// Record that on the pair at `position` the left page (`source_is_a`) or the right one
    /// is the source and the other derives from it as `class`; saved at once.
    pub fn set_derivation(
        &mut self,
        position: u32,
        source_is_a: bool,
        class: Derivation,
        note: &str,
    ) -> Result<()> {
        if position >= self.pair_count()? {
            return Err(bad(format!("the package has no pair {}", position + 1)));
        }
        let at = self.next_at("derivations")?;
        self.conn.execute(
            "INSERT INTO derivations (position, source, class, note, at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                position,
                if source_is_a { "a" } else { "b" },
                class.name(),
                note,
                at
            ],
        )?;
        Ok(())
    }

    /// The coder's current derivation class of the pair at `position`: (left page is the
    /// source, class, when).
    pub fn derivation(&self, position: u32) -> Result<Option<(bool, Derivation, String)>> {
        Ok(self
            .derivation_rows("undone = 0", "at, id")?
            .into_iter()
            .rfind(|d| d.position == position)
            .map(|d| (d.source_is_a, d.class, d.at)))
    }

    /// Every label row the coder wrote here (not those carried), in the order written.
    pub(super) fn own_labels(&self) -> Result<Vec<LabelRow>> {
        self.label_rows("carried = 0", "id")
    }

    /// Every derivation row the coder wrote here (not those carried), in the order written.
    pub(super) fn own_derivations(&self) -> Result<Vec<DerivationRow>> {
        self.derivation_rows("carried = 0", "id")
    }

    /// The `labels` rows `filter` keeps, in `order` (both written here, never from input).
    fn label_rows(&self, filter: &str, order: &str) -> Result<Vec<LabelRow>> {
        if !self.has_pairs() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, position, verdict, reason, note, at, undone FROM labels
             WHERE {filter} ORDER BY {order}"
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok(LabelRow {
                id: r.get(0)?,
                position: r.get(1)?,
                label: crate::store::samples::label_input(r, 2)?,
                at: r.get(5)?,
                undone: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The `derivations` rows `filter` keeps, in `order`.
    fn derivation_rows(&self, filter: &str, order: &str) -> Result<Vec<DerivationRow>> {
        if !self.has_pairs() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, position, source, class, note, at, undone FROM derivations
             WHERE {filter} ORDER BY {order}"
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, u32>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, bool>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, position, source, class, note, at, undone) = row?;
            let class = Derivation::from_name(&class)
                .ok_or_else(|| bad(format!("derivation {id}: unknown class {class:?}")))?;
            out.push(DerivationRow {
                id,
                position,
                source_is_a: source == "a",
                class,
                note,
                at,
                undone,
            });
        }
        Ok(out)
    }
}
