//! `samecore clusters --project FILE.samecore [--run R] [--cluster N]`: a run's clusters on the
//! terminal, for coding without the workbench. The list gives each cluster of two or more
//! pages with its number, size, story title ([`samecore::headline`]; the representative's own
//! title is `title` in `--json`), sites, first publication (the page that
//! published earliest by its own date, else its capture; ties named, [`samecore::dates::spread`])
//! and span, and its codes; `--cluster N` lists its members with title, site, publication date
//! and where it was found, lag after the first, and the page and score each was linked
//! through. Titles are those the project stored, else read again from the archives
//! (`samecore relocate` if they moved); `--json` writes the same as JSON Lines for scripts.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use samecore::dates::spread::{Member, human, spread};
use samecore::dates::{DateSource, Published};
use samecore::store::PageId;
use samecore::store::runs::Page;

/// Arguments of `samecore clusters`.
#[derive(Debug, Args)]
pub struct ClustersArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// The run (default: the latest).
    #[arg(long)]
    pub run: Option<i64>,
    /// Show this cluster's members.
    #[arg(long)]
    pub cluster: Option<i64>,
    /// Also list pages alone (clusters of one).
    #[arg(long)]
    pub all: bool,
    /// One JSON object per cluster (or member), for scripts.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore clusters`.
pub fn run(args: ClustersArgs) -> anyhow::Result<()> {
    let project = super::open_existing(&args.project)?;
    let run = super::run_or_latest(&project, args.run)?;
    let pages: HashMap<PageId, Page> = project.pages()?.into_iter().map(|p| (p.id, p)).collect();
    let mut clusters = project.run_clusters(run)?;
    let mut out = super::stdout_for(args.json);
    let captured = |p: &PageId| pages.get(p).and_then(|p| p.identity.date.clone());
    let site = |p: &PageId| {
        pages
            .get(p)
            .and_then(|p| p.identity.site.clone())
            .unwrap_or_default()
    };
    // A page's own title: stored, else read again from its archive (none when it has none
    // or is missing; projects before schema v4 stored none).
    let title = |p: &Page| -> Option<String> {
        p.identity.title.clone().or_else(|| {
            project
                .locate(p)
                .ok()
                .and_then(|loc| samecore::archive::title_at(&loc, p.identity.url.as_deref()).ok())
                .flatten()
        })
    };
    let described = |members: &[PageId]| -> Vec<Member> {
        members
            .iter()
            .filter_map(|p| pages.get(p))
            .map(spread_member)
            .collect()
    };
    let spread_of = |members: &[PageId]| spread(&described(members));
    // What a person reads for a page: its title, else its URL, else its key.
    let shown = |p: &Page| -> String {
        title(p).unwrap_or_else(|| p.identity.url.clone().unwrap_or(p.identity.key.clone()))
    };
    if let Some(number) = args.cluster {
        let Some(c) = clusters.iter().find(|c| c.id == number) else {
            anyhow::bail!("run {run} has no cluster {number}");
        };
        // Each member's strongest link inside the cluster.
        let members: BTreeSet<PageId> = c.members.iter().copied().collect();
        let mut link: HashMap<PageId, (PageId, f64)> = HashMap::new();
        for rp in project.run_pairs(run)? {
            let (a, b, s) = (rp.pair.a, rp.pair.b, rp.pair.score);
            if !(members.contains(&a) && members.contains(&b)) {
                continue;
            }
            for (x, y) in [(a, b), (b, a)] {
                if link.get(&x).is_none_or(|&(_, best)| s > best) {
                    link.insert(x, (y, s));
                }
            }
        }
        let mut order: Vec<PageId> = c.members.clone();
        let s = spread_of(&order);
        let believed: HashMap<PageId, Option<Published>> =
            order.iter().copied().zip(s.dates.iter().copied()).collect();
        let lag: HashMap<PageId, Option<i64>> = order
            .iter()
            .copied()
            .zip(s.lag_seconds.iter().copied())
            .collect();
        let firsts: BTreeSet<PageId> = s.first.iter().map(|&i| order[i]).collect();
        order.sort_by_key(|p| (lag[p].is_none(), lag[p], captured(p), *p));
        if !args.json {
            writeln!(out, "cluster {number} of run {run}: {} pages", order.len())?;
            writeln!(
                out,
                "  {:<25} {:<8} {:>8} {:<24} {:>5}  title",
                "published", "from", "lag", "site", "link"
            )?;
        }
        for p in &order {
            let page = &pages[p];
            let rep = c.representative == Some(*p);
            let (with, score) = link.get(p).copied().unzip();
            let with = with.map(|w| pages[&w].identity.key.clone());
            let date = believed[p];
            if args.json {
                let row = serde_json::json!({
                    "run": run.0, "cluster": number, "key": page.identity.key,
                    "url": page.identity.url, "captured": captured(p), "site": site(p),
                    "title": title(page), "representative": rep,
                    "published": date.map(|d| d.at.iso()),
                    "published_source": date.map(|d| d.source.name()),
                    "first_publisher": firsts.contains(p), "lag_seconds": lag[p],
                    "linked_through": with, "link_score": score,
                });
                writeln!(out, "{row}")?;
            } else {
                let mark = match (rep, firsts.contains(p)) {
                    (true, true) => "*1",
                    (true, false) => "* ",
                    (false, true) => " 1",
                    (false, false) => "  ",
                };
                writeln!(
                    out,
                    "{mark}{:<25} {:<8} {:>8} {:<24} {} {}",
                    date.map_or("-".into(), |d| d.at.iso()),
                    date.map_or("-", |d| d.source.name()),
                    lag[p].map_or("-".into(), human),
                    site(p),
                    score.map_or("    -".into(), |s| format!("{s:.3}")),
                    shown(page)
                )?;
                if let Some(url) = page.identity.url.as_ref().filter(|u| **u != shown(page)) {
                    writeln!(out, "  {url}")?;
                }
            }
        }
        if !args.json {
            writeln!(
                out,
                "(* the representative, 1 a first publisher; \"from\": where the date was found, \
                 capture when the page gives none; the score is each page's strongest link in \
                 the cluster)"
            )?;
        }
        return Ok(());
    }
    let mut codes: HashMap<PageId, BTreeSet<String>> = HashMap::new();
    for pc in project.page_codes()? {
        if pc.applied {
            codes.entry(pc.page).or_default().insert(pc.code);
        }
    }
    clusters.retain(|c| args.all || c.members.len() > 1);
    let story_titles = samecore::headline::of_run_clusters(pages.values(), &clusters);
    clusters.sort_by(|a, b| b.members.len().cmp(&a.members.len()).then(a.id.cmp(&b.id)));
    if !args.json {
        writeln!(
            out,
            "run {run}: {} clusters of 2+ pages{}",
            clusters.iter().filter(|c| c.members.len() > 1).count(),
            if args.all { " and the pages alone" } else { "" }
        )?;
        writeln!(
            out,
            "{:>6} {:>5}  {:<25} {:>8}  {:<28} title / codes",
            "#", "pages", "first published", "span", "sites"
        )?;
    }
    for c in &clusters {
        let s = spread_of(&c.members);
        let first = s.first_at.map(|a| a.iso());
        let firsts: Vec<PageId> = s.first.iter().map(|&i| c.members[i]).collect();
        let mut sites: BTreeMap<String, usize> = BTreeMap::new();
        for p in &c.members {
            *sites.entry(site(p)).or_default() += 1;
        }
        let mut cluster_codes: BTreeMap<String, usize> = BTreeMap::new();
        for p in &c.members {
            for code in codes.get(p).into_iter().flatten() {
                *cluster_codes.entry(code.clone()).or_default() += 1;
            }
        }
        let rep = c.representative.or(c.members.first().copied());
        let rep_page = rep.and_then(|r| pages.get(&r));
        if args.json {
            let row = serde_json::json!({
                "run": run.0, "cluster": c.id, "pages": c.members.len(),
                "story_title": story_titles.get(&c.id).cloned().flatten(),
                "title": rep_page.and_then(&title),
                "representative": rep.map(|r| pages[&r].identity.key.clone()),
                "first_published": first, "span_seconds": s.span_seconds,
                "dated_by_page": s.dated_by_page,
                "first": firsts.iter().map(|p| pages[p].identity.key.clone()).collect::<Vec<_>>(),
                "sites": sites, "codes": cluster_codes, "edited": c.edited,
            });
            writeln!(out, "{row}")?;
            continue;
        }
        let site_list: Vec<String> = sites.keys().filter(|s| !s.is_empty()).cloned().collect();
        let first_sites: BTreeSet<String> =
            firsts.iter().map(&site).filter(|s| !s.is_empty()).collect();
        writeln!(
            out,
            "{:>6} {:>5}  {:<25} {:>8}  {:<28} {}",
            c.id,
            c.members.len(),
            first.unwrap_or_else(|| "-".into()),
            human(s.span_seconds),
            shorten(&site_list.join(","), 28),
            story_titles
                .get(&c.id)
                .cloned()
                .flatten()
                .or_else(|| rep_page.map(&shown))
                .unwrap_or_default()
        )?;
        let mut notes = Vec::new();
        if sites.len() > 1 {
            notes.push(format!(
                "first: {}",
                named_few(&first_sites.into_iter().collect::<Vec<_>>(), 4)
            ));
        }
        if !cluster_codes.is_empty() {
            let list: Vec<String> = cluster_codes
                .iter()
                .map(|(code, n)| format!("{code} ({n})"))
                .collect();
            notes.push(format!("codes: {}", list.join(", ")));
        }
        if c.edited {
            notes.push("edited by hand".into());
        }
        if !notes.is_empty() {
            writeln!(out, "{:>14}{}", "", notes.join("; "))?;
        }
    }
    Ok(())
}

/// `a, b and c`, or `a, b, c, d and 7 more`.
fn named_few(items: &[String], most: usize) -> String {
    match items.len() {
        0 => "pages without a site".into(),
        1 => items[0].clone(),
        n if n <= most => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
        n => format!("{} and {} more", items[..most].join(", "), n - most),
    }
}

/// `text` cut to `width` characters with an ellipsis.
fn shorten(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let cut: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// A stored page as the story's spread reads it ([`samecore::dates::spread`]): its site, its
/// publication date (the capture for a project before v4, which stored none) and its capture.
pub(super) fn spread_member(p: &Page) -> Member {
    let captured = p
        .identity
        .date
        .as_deref()
        .and_then(samecore::dates::parse_iso);
    Member {
        site: p.identity.site.clone().unwrap_or_default(),
        published: Published::from_stored(
            p.identity.published.as_deref(),
            p.identity.published_source.as_deref(),
        )
        .or_else(|| {
            Some(Published {
                at: captured?,
                source: DateSource::Capture,
            })
        }),
        captured,
    }
}
