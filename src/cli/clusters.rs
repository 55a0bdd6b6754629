//! `samecore clusters --project FILE.samecore [--run R] [--cluster N]`: a run's clusters on the
//! terminal, for coding without the workbench. The list gives each cluster of two or more
//! pages with its number, size, representative title, sites, first capture (the page captured
//! earliest, ties named) and capture span, and its codes; `--cluster N` lists its members with
//! title, site, capture time and the page and score each was linked through. Titles are read
//! again from the archives (`samecore relocate` if they moved); `--json` writes the same as
//! JSON Lines for scripts.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
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
    let mut out = std::io::stdout().lock();
    // A page's own title, read again from its archive (none when it has none or is missing).
    let title = |p: &Page| -> Option<String> {
        project
            .locate(p)
            .ok()
            .and_then(|loc| samecore::archive::title_at(&loc, p.identity.url.as_deref()).ok())
            .flatten()
    };
    // What a person reads for a page: its title, else its URL, else its key.
    let shown = |p: &Page| -> String {
        title(p).unwrap_or_else(|| p.identity.url.clone().unwrap_or(p.identity.key.clone()))
    };
    let captured = |p: &PageId| pages.get(p).and_then(|p| p.identity.date.clone());
    let site = |p: &PageId| {
        pages
            .get(p)
            .and_then(|p| p.identity.site.clone())
            .unwrap_or_default()
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
        order.sort_by_key(|p| (captured(p), *p));
        if !args.json {
            writeln!(out, "cluster {number} of run {run}: {} pages", order.len())?;
        }
        for p in &order {
            let page = &pages[p];
            let rep = c.representative == Some(*p);
            let (with, score) = link.get(p).copied().unzip();
            let with = with.map(|w| pages[&w].identity.key.clone());
            if args.json {
                let row = serde_json::json!({
                    "run": run.0, "cluster": number, "key": page.identity.key,
                    "url": page.identity.url, "captured": captured(p), "site": site(p),
                    "title": title(page), "representative": rep,
                    "linked_through": with, "link_score": score,
                });
                writeln!(out, "{row}")?;
            } else {
                writeln!(
                    out,
                    "{} {:<20} {:<24} {} {}",
                    if rep { "*" } else { " " },
                    captured(p).unwrap_or_else(|| "-".into()),
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
                "(* the representative; the score is each page's strongest link in the cluster)"
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
            "{:>6} {:>5}  {:<20}  {:<20}  {:<28} title / codes",
            "#", "pages", "first captured", "last captured", "sites"
        )?;
    }
    for c in &clusters {
        let mut dates: Vec<(String, PageId)> = c
            .members
            .iter()
            .filter_map(|p| captured(p).map(|d| (d, *p)))
            .collect();
        dates.sort();
        let first = dates.first().map(|(d, _)| d.clone());
        let last = dates.last().map(|(d, _)| d.clone());
        // Every member captured at the earliest time (a tie is named, not broken).
        let firsts: Vec<PageId> = dates
            .iter()
            .take_while(|(d, _)| Some(d) == first.as_ref())
            .map(|(_, p)| *p)
            .collect();
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
                "title": rep_page.and_then(&title),
                "representative": rep.map(|r| pages[&r].identity.key.clone()),
                "first_captured": first, "last_captured": last,
                "first": firsts.iter().map(|p| pages[p].identity.key.clone()).collect::<Vec<_>>(),
                "sites": sites, "codes": cluster_codes, "edited": c.edited,
            });
            writeln!(out, "{row}")?;
            continue;
        }
        let site_list: Vec<String> = sites.keys().cloned().collect();
        let first_sites: BTreeSet<String> = firsts.iter().map(&site).collect();
        writeln!(
            out,
            "{:>6} {:>5}  {:<20}  {:<20}  {:<28} {}",
            c.id,
            c.members.len(),
            first.unwrap_or_else(|| "-".into()),
            last.unwrap_or_else(|| "-".into()),
            shorten(&site_list.join(","), 28),
            rep_page.map(&shown).unwrap_or_default()
        )?;
        let mut notes = Vec::new();
        if sites.len() > 1 {
            notes.push(format!(
                "first: {}",
                first_sites.into_iter().collect::<Vec<_>>().join(" and ")
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

/// `text` cut to `width` characters with an ellipsis.
fn shorten(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let cut: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{cut}…")
}
