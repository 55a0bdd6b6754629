//! `samecore search --project P "QUERY"`: the stories whose cores match a query, one row per
//! story ([`samecore::search`]); the index beside the project is built or brought up to date
//! first. `--json` for programs, `--out FILE` for the matching pages as a table (CSV, TSV,
//! JSON Lines or Parquet), `--code NAME` to code every story found, `--per day|week` for the
//! matching stories over time.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use samecore::export;
use samecore::progress::Progress;
use samecore::search::{SearchIndex, SearchOptions, Sort, Stories};

use super::progress_bar::{COUNT, with_progress_bar};

/// Arguments of `samecore search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The project file (its pages are read again from their archives to index them).
    #[arg(long)]
    pub project: PathBuf,
    /// The query: words, "phrases", AND/OR/NOT, prefix*, site: lang: title: url: code:, a
    /// variable:value, published:[2015-09-01 TO 2015-12-31], captured:[…].
    #[arg(required_unless_present = "build")]
    pub query: Option<String>,
    /// The run whose clusters are the stories (default: the latest).
    #[arg(long, conflicts_with = "pages")]
    pub run: Option<i64>,
    /// One row per page, not per story (no run's clusters).
    #[arg(long)]
    pub pages: bool,
    /// Search all of each page's visible text, its frame included, not its core.
    #[arg(long)]
    pub whole_text: bool,
    /// Order: relevance, first (publication) or size.
    #[arg(long, default_value = "relevance")]
    pub sort: Sort,
    /// Stories shown (all are counted; 0: all). Default: 20 on the terminal, all in --json and
    /// --out.
    #[arg(long)]
    pub limit: Option<usize>,
    /// The list as JSON: {"stories": [{"cluster", "pages", "size", "snippet", …}], "pages": N}.
    #[arg(long)]
    pub json: bool,
    /// Write the matching pages here (one row each, with their story's rank and cluster).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Apply this code to every story found (all of each cluster's members; undo with
    /// `samecore code undo`).
    #[arg(long)]
    pub code: Option<String>,
    /// With --code: add the code to the codebook if it is not there.
    #[arg(long, requires = "code")]
    pub new: bool,
    /// Who codes (with --code; default: $USER).
    #[arg(long)]
    pub by: Option<String>,
    /// Matching stories per day or week of their first publication.
    #[arg(long, value_parser = ["day", "week"])]
    pub per: Option<String>,
    /// Show each story's matching members.
    #[arg(long)]
    pub members: bool,
    /// Only build or bring the index up to date.
    #[arg(long)]
    pub build: bool,
}

/// Run `samecore search`.
pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let mut project = super::open_existing(&args.project)?;
    if let Some(out) = &args.out {
        project.inputs()?.check(out, "--out")?;
        export::check_output(out, None)?;
    }
    let run = if args.pages {
        None
    } else if args.run.is_some() || !project.runs()?.is_empty() {
        Some(super::run_or_latest(&project, args.run)?)
    } else {
        None
    };
    let progress = Progress::new();
    let (index, report) =
        with_progress_bar(&progress, COUNT, || SearchIndex::open(&project, &progress))?;
    if report.rebuilt.is_some()
        || report.added + report.deleted + report.reindexed + report.unread > 0
    {
        eprintln!("{}", report.describe());
    }
    if args.build {
        println!(
            "search index: {} pages, {:.1} MB, in {}",
            index.pages(),
            index.size_bytes() as f64 / 1e6,
            index.dir().display()
        );
        return Ok(());
    }
    let query = args.query.clone().unwrap_or_default();
    let stories = Stories::load(&project, run)?;
    let limit = match args.limit {
        Some(0) => None,
        Some(n) => Some(n),
        None if args.json || args.out.is_some() || args.code.is_some() || args.per.is_some() => {
            None
        }
        None => Some(20),
    };
    let options = SearchOptions {
        whole_text: args.whole_text,
        sort: args.sort,
        // The per-period counts take every story; coding takes every one anyway.
        limit: if args.per.is_some() { None } else { limit },
    };
    let results = index.search(&stories, &query, &options)?;
    if let Some(out) = &args.out {
        let rows = results.rows(&query, run);
        let n = export::write_file_streamed(rows, out, None)
            .with_context(|| format!("cannot write {}", out.display()))?;
        eprintln!("{n} matching pages written to {}", out.display());
    }
    if let Some(name) = &args.code {
        let Some(run) = run else {
            anyhow::bail!("--code codes stories: the project needs a run (samecore run …)");
        };
        let by = super::who(&args.by, "annotator");
        if args.new && project.code_by_name(name)?.is_none() {
            let id = project.add_code(name, "")?;
            project.log_code_created(&by, id, name.trim())?;
        }
        let code = project
            .code_by_name(name)?
            .with_context(|| format!("no code {name:?} in the codebook; --new adds it"))?;
        let (n, pages) = results.code_all(&mut project, run, code.id, &by, &query)?;
        eprintln!("{name:?} applied to {n} stories ({pages} pages written) of run {run}");
    }
    let mut out = super::stdout_for(args.json);
    // Written to a file or coded: the counts, not the list again.
    if (args.out.is_some() || args.code.is_some()) && !args.json && args.per.is_none() {
        writeln!(out, "{} for {query:?}", results.describe())?;
        return Ok(());
    }
    if let Some(per) = &args.per {
        let counts = results.per_period(per == "week");
        if args.json {
            let rows: Vec<serde_json::Value> = counts
                .iter()
                .map(|(p, n)| serde_json::json!({ (per.as_str()): p, "stories": n }))
                .collect();
            serde_json::to_writer_pretty(&mut out, &rows)?;
            writeln!(out)?;
        } else {
            writeln!(out, "{}\tstories", per)?;
            for (p, n) in counts {
                writeln!(out, "{p}\t{n}")?;
            }
        }
        return Ok(());
    }
    if args.json {
        let stories = results.story_rows();
        let doc = serde_json::json!({
            "query": query,
            "run": run.map(|r| r.0),
            "whole_text": args.whole_text,
            "story_count": results.story_count,
            "pages": results.page_count,
            "stories": stories,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} for {query:?}{}{}",
        results.describe(),
        match run {
            Some(r) => format!(", stories of run {r}"),
            None => String::new(),
        },
        if args.whole_text {
            ", whole text (frames included)"
        } else {
            ""
        }
    )?;
    for (rank, s) in results.stories.iter().enumerate() {
        writeln!(
            out,
            "{:>4}. {}  {}/{} pages  {}  {}  {}",
            rank + 1,
            s.cluster
                .map_or_else(|| "page".to_string(), |c| format!("cluster {c}")),
            s.members.len(),
            s.size,
            s.first.as_deref().unwrap_or("(no date)"),
            s.first_site.as_deref().unwrap_or("-"),
            s.title
        )?;
        let mut snippet = s.snippet.marked("«", "»");
        if !s.snippet.in_core {
            snippet.push_str("  [the match is outside the core: in the page's frame or title]");
        }
        writeln!(out, "      {}", snippet.replace('\n', " "))?;
        if !s.codes.is_empty() {
            writeln!(out, "      codes: {}", s.codes.join(", "))?;
        }
        if args.members {
            for m in &s.members {
                writeln!(out, "        {:.3}  {}", m.score, m.key)?;
            }
        }
    }
    if results.stories.len() < results.story_count {
        writeln!(
            out,
            "… {} more (--limit 0 shows all)",
            results.story_count - results.stories.len()
        )?;
    }
    Ok(())
}
