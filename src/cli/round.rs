//! `samecore round --project P new NAME --size N --coders ana,ben [--strata site|month|size]`:
//! a reliability round, stories of a run drawn for double coding by a seed; `show NAME` lists
//! its stories and each coder's progress; `list` every round.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use samecore::coding::round::{self, Strata};

/// Arguments of `samecore round`.
#[derive(Debug, Args)]
pub struct RoundArgs {
    /// The project file.
    #[arg(long)]
    pub project: PathBuf,
    /// Who draws it (default: $USER).
    #[arg(long, global = true)]
    pub by: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub action: RoundAction,
}

/// The round's actions.
#[derive(Debug, Subcommand)]
pub enum RoundAction {
    /// Draw a new round.
    New {
        /// Its name.
        name: String,
        /// Stories to draw (all of the run's when it has fewer).
        #[arg(
            long,
            required_unless_present = "clusters",
            conflicts_with = "clusters"
        )]
        size: Option<usize>,
        /// These stories instead of a draw (cluster numbers, comma-separated): a selection
        /// of clusters to code, e.g. what a search found.
        #[arg(long, value_delimiter = ',')]
        clusters: Option<Vec<i64>>,
        /// Draw only among the stories this search finds (`samecore search`'s query
        /// language), stratified as --strata says.
        #[arg(long, conflicts_with = "clusters")]
        query: Option<String>,
        /// The coders, comma-separated; each codes every story.
        #[arg(long, value_delimiter = ',', required = true)]
        coders: Vec<String>,
        /// none (random), site, month or size.
        #[arg(long, default_value = "none")]
        strata: Strata,
        /// Seed of the draw: the same seed draws the same stories.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The run (default: the latest).
        #[arg(long)]
        run: Option<i64>,
        /// Let coders see each other's values (a training round, not a reliability test).
        #[arg(long)]
        not_blind: bool,
    },
    /// A round's stories and each coder's progress.
    Show {
        /// Its name.
        name: String,
    },
    /// Every round with its coders' progress.
    List,
}

/// Run `samecore round`.
pub fn run(args: RoundArgs) -> anyhow::Result<()> {
    let mut project = super::open_existing(&args.project)?;
    let by = super::who(&args.by, "lead");
    let mut out = super::stdout_for(false);
    match args.action {
        RoundAction::New {
            name,
            size,
            clusters,
            query,
            coders,
            strata,
            seed,
            run,
            not_blind,
        } => {
            let run = super::run_or_latest(&project, run)?;
            let coders: Vec<String> = coders
                .into_iter()
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect();
            let drawn = match clusters {
                Some(chosen) => {
                    round::chosen(&project, &name, run, &chosen, &coders, !not_blind, &by)?
                }
                None => round::draw(
                    &project,
                    &name,
                    run,
                    found_by(&project, run, query.as_deref())?.as_ref(),
                    size.unwrap_or(0),
                    strata,
                    seed,
                    &coders,
                    !not_blind,
                    &by,
                )?,
            };
            project.save_round(&drawn)?;
            let mut strata_count: std::collections::BTreeMap<&str, usize> = Default::default();
            for (_, s) in &drawn.units {
                *strata_count.entry(s.as_str()).or_default() += 1;
            }
            writeln!(
                out,
                "round {name:?}: {} stories of run {run} for {} ({}; seed {seed}, {})",
                drawn.units.len(),
                coders.join(", "),
                if drawn.blind { "blind" } else { "not blind" },
                drawn.strata
            )?;
            for (s, n) in strata_count {
                writeln!(out, "  {s:<30} {n}")?;
            }
        }
        RoundAction::Show { name } => {
            let r = project.round(&name)?;
            report(&project, &r, &mut out)?;
            writeln!(out, "stories (cluster, stratum):")?;
            for (cluster, stratum) in &r.units {
                writeln!(out, "  {cluster:>6}  {stratum}")?;
            }
        }
        RoundAction::List => {
            for r in project.rounds()? {
                report(&project, &r, &mut out)?;
            }
        }
    }
    Ok(())
}

/// The clusters of `run` that `query` finds (none: no query).
fn found_by(
    project: &samecore::store::Project,
    run: samecore::store::RunId,
    query: Option<&str>,
) -> anyhow::Result<Option<std::collections::BTreeSet<i64>>> {
    let Some(query) = query else {
        return Ok(None);
    };
    let progress = samecore::progress::Progress::new();
    let (index, report) =
        super::progress_bar::with_progress_bar(&progress, super::progress_bar::COUNT, || {
            samecore::search::SearchIndex::open(project, &progress)
        })?;
    if report.added + report.deleted + report.reindexed > 0 || report.rebuilt.is_some() {
        eprintln!("{}", report.describe());
    }
    let stories = samecore::search::Stories::load(project, Some(run))?;
    let found = index.search(&stories, query, &Default::default())?;
    eprintln!("{} for {query:?}", found.describe());
    anyhow::ensure!(found.story_count > 0, "the search {query:?} finds no story");
    Ok(Some(
        found.stories.iter().filter_map(|s| s.cluster).collect(),
    ))
}

fn report(
    project: &samecore::store::Project,
    r: &samecore::store::rounds::Round,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "round {:?} of run {}: {} stories, {} by {}, {}",
        r.name,
        r.run,
        r.units.len(),
        r.strata,
        r.created_by,
        if r.blind { "blind" } else { "not blind" }
    )?;
    for (coder, done, of) in round::progress(project, r)? {
        writeln!(out, "  {coder:<16} {done:>5} of {of} done")?;
    }
    Ok(())
}
