//! `samecore passages --project P A B`: what two pages share — their aligned passages side by
//! side, each page's reuse share, which came first and how the later one derives from it
//! ([`samecore::passages`]); `--set CLASS --by NAME` records a coder's class of the pair.
//! `samecore passages --project P --run R --out FILE`: every aligned passage of a run's pairs,
//! one row each (CSV, TSV, JSON Lines or Parquet).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use rayon::prelude::*;
use samecore::calendar::Published;
use samecore::export::{self, PassageRow};
use samecore::passages::{
    AlignOptions, Alignment, Cutoffs, Derivation, Direction, PageCore, align_pair, derivation,
};
use samecore::progress::Progress;
use samecore::store::Project;
use samecore::store::runs::Page;

use super::progress_bar::{COUNT, with_progress_bar};

/// Arguments of `samecore passages`.
#[derive(Debug, Args)]
pub struct PassagesArgs {
    /// The project file (its pages are read again from their archives).
    #[arg(long)]
    pub project: PathBuf,
    /// Two pages to align, each by key, record id or URL.
    #[arg(num_args = 0..=2)]
    pub pages: Vec<String>,
    /// With --out: the run whose pairs to align (default: the latest).
    #[arg(long)]
    pub run: Option<i64>,
    /// Write every aligned passage of the run's pairs here.
    #[arg(long, conflicts_with = "pages")]
    pub out: Option<PathBuf>,
    /// Record the pair's derivation class: wholly, partially or non (derived).
    #[arg(long, requires = "by")]
    pub set: Option<String>,
    /// Who decides (with --set).
    #[arg(long)]
    pub by: Option<String>,
    /// A note with the decision.
    #[arg(long, default_value = "")]
    pub note: String,
    /// Share of the derived page's core from which it is wholly derived.
    #[arg(long, default_value_t = 0.8, value_parser = super::fraction)]
    pub wholly: f64,
    /// Share from which it is partially derived.
    #[arg(long, default_value_t = 0.2, value_parser = super::fraction)]
    pub partially: f64,
    /// The pair as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Run `samecore passages`.
pub fn run(args: PassagesArgs) -> anyhow::Result<()> {
    let cutoffs = Cutoffs {
        wholly: args.wholly,
        partially: args.partially,
    };
    anyhow::ensure!(
        cutoffs.partially <= cutoffs.wholly,
        "--partially {} is above --wholly {}",
        cutoffs.partially,
        cutoffs.wholly
    );
    let mut project = super::open_existing(&args.project)?;
    if let Some(out) = &args.out {
        project.inputs()?.check(out, "--out")?;
        export::check_output(out, None)?;
    }
    let pages = project.pages()?;
    if let Some(out) = &args.out {
        return run_export(&project, &pages, &args, out, &cutoffs);
    }
    let [a, b] = args.pages.as_slice() else {
        bail!("name two pages (key, record id or URL), or give --out FILE for a run's pairs");
    };
    let (a, b) = (
        super::code::find_page(&project, a)?,
        super::code::find_page(&project, b)?,
    );
    let index: HashMap<_, usize> = pages.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    let (ia, ib) = (index[&a.id], index[&b.id]);
    let progress = Progress::new();
    let cores = with_progress_bar(&progress, COUNT, || {
        cores_of(&project, &pages, &[ia, ib], &progress)
    })?;
    let al = align_pair(&cores[&ia], &cores[&ib], &AlignOptions::default());
    let published = |p: &Page| {
        Published::from_stored(
            p.identity.published.as_deref(),
            p.identity.published_source.as_deref(),
        )
    };
    // Two pages of one cluster of the run (--run, else the latest) are ordered by the dates
    // the story's spread counts, as the workbench's pair view and members table do.
    let counted = counted_dates(&project, args.run, &pages, &a, &b)?;
    let published_of = |p: &Page| match counted {
        Some((da, _)) if p.id == a.id => da,
        Some((_, db)) if p.id == b.id => db,
        _ => published(p),
    };
    let d = derivation(
        (al.share_a(), al.share_b()),
        published_of(&a),
        published_of(&b),
        &cutoffs,
    );
    if let Some(class) = &args.set {
        let class = Derivation::from_name(class)
            .with_context(|| format!("--set {class:?}: say wholly, partially or non"))?;
        let (source, derived) = match d.direction {
            Direction::AFirst => (a.id, b.id),
            Direction::BFirst => (b.id, a.id),
            // Undated: the page more inside the other is the derived one.
            Direction::Undated if al.share_a() > al.share_b() => (b.id, a.id),
            Direction::Undated => (a.id, b.id),
        };
        let by = args.by.as_deref().unwrap_or_default();
        project.set_derivation(source, derived, class, by, &args.note)?;
        eprintln!("recorded: {} ({by})", class.label());
    }
    let (pa, pb) = (&cores[&ia], &cores[&ib]);
    let mut out = super::stdout_for(args.json);
    if args.json {
        let row = serde_json::json!({
            "a": a.identity.key, "b": b.identity.key,
            "a_share": al.share_a(), "b_share": al.share_b(),
            "a_words": pa.core.len(), "b_words": pb.core.len(),
            "direction": d.direction, "derived_share": d.share, "derivation": d.class,
            "a_in_b": passages_json(pa, pb, &al.a_in_b),
            "b_in_a": passages_json(pb, pa, &al.b_in_a),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&row)?)?;
        return Ok(());
    }
    let name = |p: &Page| {
        p.identity
            .title
            .clone()
            .or(p.identity.url.clone())
            .unwrap_or(p.identity.key.clone())
    };
    writeln!(
        out,
        "A: {}\n   {} core words, {:.1} % of them found in B",
        name(&a),
        pa.core.len(),
        al.share_a() * 100.0
    )?;
    writeln!(
        out,
        "B: {}\n   {} core words, {:.1} % of them found in A",
        name(&b),
        pb.core.len(),
        al.share_b() * 100.0
    )?;
    let first = samecore::passages::order_phrase(
        ("A", "B"),
        published_of(&a),
        published_of(&b),
        &d,
        (al.share_a(), al.share_b()),
    );
    writeln!(
        out,
        "{first}; the derived page is {} ({:.1} % of its core)",
        d.class.label(),
        d.share * 100.0
    )?;
    write_passages(&mut out, "A", "B", pa, pb, &al.a_in_b)?;
    write_passages(&mut out, "B", "A", pb, pa, &al.b_in_a)?;
    Ok(())
}

/// The passages of `own`'s core found in `other`'s text, as JSON.
fn passages_json(own: &PageCore, other: &PageCore, al: &Alignment) -> Vec<serde_json::Value> {
    al.passages
        .iter()
        .map(|p| {
            let (s, e) = own.core.bytes_of(p.a.clone());
            let (os, oe) = other.text.bytes_of(p.b.clone());
            serde_json::json!({
                "start": s, "end": e, "other_start": os, "other_end": oe,
                "words": p.a.end - p.a.start, "matched": p.matched,
                "text": own.core.text_of(p.a.clone()),
                "other_text": other.text.text_of(p.b.clone()),
            })
        })
        .collect()
}

/// The passages of page `own`'s core found in `other`'s text, numbered, with the other page's
/// wording where it differs.
fn write_passages(
    out: &mut impl Write,
    own_name: &str,
    other_name: &str,
    own: &PageCore,
    other: &PageCore,
    al: &Alignment,
) -> std::io::Result<()> {
    if al.passages.is_empty() {
        return writeln!(out, "\nNothing of {own_name}'s core is in {other_name}.");
    }
    writeln!(out, "\n{own_name}'s core found in {other_name}:")?;
    for (k, p) in al.passages.iter().enumerate() {
        writeln!(
            out,
            "{}. {own_name} words {}–{} ({} words, {} matched)",
            k + 1,
            p.a.start + 1,
            p.a.end,
            p.a.end - p.a.start,
            p.matched
        )?;
        let (mine, theirs) = (
            own.core.text_of(p.a.clone()),
            other.text.text_of(p.b.clone()),
        );
        writeln!(out, "   {own_name}: {}", shorten(mine, 400))?;
        if normalise(mine) != normalise(theirs) {
            writeln!(out, "   {other_name}: {}", shorten(theirs, 400))?;
        }
    }
    Ok(())
}

/// Every aligned passage of a run's pairs, written to `out`.
fn run_export(
    project: &Project,
    pages: &[Page],
    args: &PassagesArgs,
    out: &std::path::Path,
    cutoffs: &Cutoffs,
) -> anyhow::Result<()> {
    let run = super::run_or_latest(project, args.run)?;
    let index: HashMap<_, usize> = pages.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
    let pairs: Vec<(usize, usize, f64)> = project
        .run_pairs(run)?
        .into_iter()
        .map(|rp| (index[&rp.pair.a], index[&rp.pair.b], rp.pair.score))
        .collect();
    let mut wanted: Vec<usize> = pairs.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let progress = Progress::new();
    let cores = with_progress_bar(&progress, COUNT, || {
        cores_of(project, pages, &wanted, &progress)
    })?;
    let published = |i: usize| {
        Published::from_stored(
            pages[i].identity.published.as_deref(),
            pages[i].identity.published_source.as_deref(),
        )
    };
    let opts = AlignOptions::default();
    let rows: Vec<Vec<PassageRow>> = pairs
        .par_iter()
        .map(|&(a, b, score)| {
            let (pa, pb) = (&cores[&a], &cores[&b]);
            let al = align_pair(pa, pb, &opts);
            let d = derivation(
                (al.share_a(), al.share_b()),
                published(a),
                published(b),
                cutoffs,
            );
            let keys = (
                pages[a].identity.key.as_str(),
                pages[b].identity.key.as_str(),
            );
            PassageRow::of_pair(keys, Some(score), (pa, pb), &al, &d)
        })
        .collect();
    let n = export::write_file_streamed(rows.into_iter().flatten(), out, None)
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "{n} passages of the {} pairs of run {run} written to {}",
        pairs.len(),
        out.display()
    );
    Ok(())
}

/// The cores of `wanted` (indices into `pages`), read again from their archives, their sites'
/// frames left out.
fn cores_of(
    project: &Project,
    pages: &[Page],
    wanted: &[usize],
    progress: &Progress,
) -> samecore::Result<HashMap<usize, PageCore>> {
    let site_of = |i: usize| pages[i].identity.site.clone().unwrap_or_default();
    Ok(samecore::package::frames_of_pages(project, pages, wanted, progress)?.cores(&site_of))
}

fn normalise(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn shorten(s: &str, most: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() <= most {
        return s;
    }
    let head: String = s.chars().take(most).collect();
    format!("{head} …")
}

/// The dates two pages count at in the story's spread ([`samecore::dates::spread`]: a date
/// the story mentions is not its publication) when both are members of one cluster of the
/// run `run` (else the latest); `None` when the project has no run or they are not.
fn counted_dates(
    project: &Project,
    run: Option<i64>,
    pages: &[Page],
    a: &Page,
    b: &Page,
) -> anyhow::Result<Option<(Option<Published>, Option<Published>)>> {
    if project.runs()?.is_empty() {
        return Ok(None);
    }
    let run = super::run_or_latest(project, run)?;
    let Some(cluster) = project
        .run_clusters(run)?
        .into_iter()
        .find(|c| c.members.contains(&a.id) && c.members.contains(&b.id))
    else {
        return Ok(None);
    };
    let by_id: HashMap<_, &Page> = pages.iter().map(|p| (p.id, p)).collect();
    let members: Vec<samecore::dates::spread::Member> = cluster
        .members
        .iter()
        .map(|m| super::clusters::spread_member(by_id[m]))
        .collect();
    let spread = samecore::dates::spread::spread(&members);
    let at = |id| cluster.members.iter().position(|&m| m == id);
    Ok(match (at(a.id), at(b.id)) {
        (Some(i), Some(j)) => Some((spread.dates[i], spread.dates[j])),
        _ => None,
    })
}
