//! `samecore code --project FILE.samecore …`: cluster coding from the command line, for people
//! who batch-tag from scripts. The codebook (`list`, `add`, `rename`, `merge`), coding
//! (`apply` a code to a cluster of a run, `remove` it from one, `page` to decide one page
//! whatever its cluster says), `undo` of the latest edit (kept in the project, so it works in a
//! later invocation), `log`, and `reconcile`: after a re-run, which coded clusters the new run
//! split or merged, and optionally extending codes to the new members (`--extend SHARE`).
//!
//! Clusters are named by the numbers `samecore export pages` and the workbench show (after hand
//! edits); pages by their key, `WARC-Record-ID`, or URL (when one page has it).

use std::io::Write;
use std::path::PathBuf;

use anyhow::bail;
use clap::{Args, Subcommand};
use samecore::coding;
use samecore::store::codes::{Code, CodeSource};
use samecore::store::runs::Page;
use samecore::store::values::{Role, Unit};
use samecore::store::{Project, RunId};

/// Arguments of `samecore code`.
#[derive(Debug, Args)]
pub struct CodeArgs {
    /// The project file.
    #[arg(long, required_unless_present = "package", conflicts_with = "package")]
    pub project: Option<PathBuf>,
    /// A coder's package (from `samecore assign`) instead of the project: `value`,
    /// `undo-value` and `list` (its stories with your values) work in it, without the archive.
    #[arg(long)]
    pub package: Option<PathBuf>,
    /// Who is coding (recorded with every decision; default: $USER).
    #[arg(long, global = true)]
    pub by: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub action: CodeAction,
}

/// The coding actions.
#[derive(Debug, Subcommand)]
pub enum CodeAction {
    /// The codebook: every code with the number of pages it is applied to.
    List,
    /// Add a code to the codebook.
    Add {
        /// Its name.
        name: String,
        /// What it means.
        #[arg(long, default_value = "")]
        description: String,
    },
    /// Rename a code (its pages keep it).
    Rename {
        /// The current name.
        from: String,
        /// The new name.
        to: String,
    },
    /// Merge a code into another: its pages get the other, then it leaves the codebook.
    Merge {
        /// The code that goes.
        from: String,
        /// The code that stays.
        into: String,
    },
    /// Apply a code to every page of a cluster (pages with their own decision keep it).
    Apply {
        /// The code, from the codebook (or a new one with --new).
        code: String,
        /// Add the code to the codebook if it is not there (without it, a name not in the
        /// codebook is an error, so a typo does not start a code of its own).
        #[arg(long)]
        new: bool,
        /// The cluster, as exports and the workbench number it.
        #[arg(long)]
        cluster: i64,
        /// The run (default: the latest).
        #[arg(long)]
        run: Option<i64>,
    },
    /// Take a code off every page of a cluster (pages with their own decision keep it).
    Remove {
        /// The code.
        code: String,
        /// The cluster.
        #[arg(long)]
        cluster: i64,
        /// The run (default: the latest).
        #[arg(long)]
        run: Option<i64>,
    },
    /// Decide a code on one page, whatever its cluster says.
    Page {
        /// The page: its key, WARC-Record-ID or URL.
        page: String,
        /// The code, from the codebook (or a new one with --new).
        code: String,
        /// Add the code to the codebook if it is not there.
        #[arg(long, conflicts_with_all = ["clear", "remove"])]
        new: bool,
        /// Decide that the page does not carry the code (default: it does).
        #[arg(long, conflicts_with = "clear")]
        remove: bool,
        /// Forget the page's own decision (the cluster's applies again at the next apply).
        #[arg(long)]
        clear: bool,
    },
    /// Give a variable of the codebook a value on a story (`--cluster`) or a page (`--page`),
    /// as your own (or, with --final, as the adjudicated value); no one else's is replaced.
    Value {
        /// The variable.
        variable: String,
        /// The value: a listed number (`2`), several (`1,3`), a number, a note; or the number
        /// the variable records for "not applicable" or "cannot code".
        value: String,
        /// The story: its cluster number.
        #[arg(long, conflicts_with = "page", required_unless_present = "page")]
        cluster: Option<i64>,
        /// The run of the cluster (default: the only one).
        #[arg(long)]
        run: Option<i64>,
        /// The page: its key, WARC-Record-ID or URL.
        #[arg(long)]
        page: Option<String>,
        /// The lead's final value after a disagreement.
        #[arg(long = "final")]
        final_value: bool,
    },
    /// Undo your latest value (also one given in an earlier invocation).
    UndoValue {
        /// Undo your latest final value instead.
        #[arg(long = "final")]
        final_value: bool,
    },
    /// Undo your latest code edit (also one made in an earlier invocation).
    Undo,
    /// The code edits, newest first.
    Log,
    /// After a re-run: the coded clusters the run split or merged, and the clusters where a
    /// code covers only some members.
    Reconcile {
        /// The run (default: the latest).
        #[arg(long)]
        run: Option<i64>,
        /// Extend codes to the undecided members of clusters where at least this share of
        /// members carries them (0 < SHARE <= 1); conflicts are left to you.
        #[arg(long, value_name = "SHARE")]
        extend: Option<f64>,
    },
}

/// Run `samecore code`.
pub fn run(args: CodeArgs) -> anyhow::Result<()> {
    let project = match (&args.project, &args.package) {
        (_, Some(package)) => return in_package(package, &args.by, args.action),
        (Some(project), None) => project,
        (None, None) => bail!("say which project (--project P) or package (--package F)"),
    };
    let mut project = super::open_existing(project)?;
    let by = super::who(&args.by, "annotator");
    let mut out = super::stdout_for(false);
    match args.action {
        CodeAction::List => list(&project, &mut out)?,
        CodeAction::Add { name, description } => {
            let id = project.add_code(&name, &description)?;
            project.log_code_created(&by, id, name.trim())?;
            writeln!(out, "added code {:?}", name.trim())?;
        }
        CodeAction::Rename { from, to } => {
            let code = code(&project, &from)?;
            project.logged_code_edit(
                &by,
                &format!("rename {from:?} to {to:?}"),
                &[code.id],
                |p| p.rename_code(code.id, &to),
            )?;
            writeln!(out, "renamed {from:?} to {to:?}")?;
        }
        CodeAction::Merge { from, into } => {
            let (a, b) = (code(&project, &from)?, code(&project, &into)?);
            project.logged_code_edit(
                &by,
                &format!("merge {from:?} into {into:?}"),
                &[a.id, b.id],
                |p| p.merge_codes(a.id, b.id),
            )?;
            writeln!(out, "merged {from:?} into {into:?}")?;
        }
        CodeAction::Apply {
            code: name,
            new,
            cluster,
            run,
        } => {
            let run = cluster_run(&project, run, cluster)?;
            let code = code_or_new(&mut project, &name, &by, new, &mut out)?;
            let n = project.logged_code_edit(
                &by,
                &format!("apply {name:?} to cluster {cluster} of run {run}"),
                &[code.id],
                |p| p.code_cluster(run, cluster, code.id, &by, CodeSource::Cluster),
            )?;
            writeln!(
                out,
                "{name:?} applied to {n} page(s) of cluster {cluster} (run {run})"
            )?;
        }
        CodeAction::Remove {
            code: name,
            cluster,
            run,
        } => {
            let run = cluster_run(&project, run, cluster)?;
            let code = code(&project, &name)?;
            let n = project.logged_code_edit(
                &by,
                &format!("remove {name:?} from cluster {cluster} of run {run}"),
                &[code.id],
                |p| p.uncode_cluster(run, cluster, code.id),
            )?;
            writeln!(out, "{name:?} taken off {n} page(s) of cluster {cluster}")?;
        }
        CodeAction::Page {
            page,
            code: name,
            new,
            remove,
            clear,
        } => {
            let found = find_page(&project, &page)?;
            let code = code_or_new(&mut project, &name, &by, new, &mut out)?;
            let carried = project
                .page_codes()?
                .iter()
                .any(|pc| pc.page == found.id && pc.code == code.name && pc.applied);
            let (what, verb) = match (clear, remove) {
                (true, _) => ("clear", "cleared on"),
                (false, true) if carried => ("remove", "removed from"),
                // Still recorded: the page keeps out of the code when its cluster gets it.
                (false, true) => ("remove", "marked as not carrying (it did not carry it) on"),
                (false, false) => ("apply", "applied to"),
            };
            project.logged_code_edit(
                &by,
                &format!("{what} {name:?} on page {}", found.identity.key),
                &[code.id],
                |p| {
                    if clear {
                        p.clear_page_code(found.id, code.id)
                    } else {
                        p.code_page(found.id, code.id, !remove, &by)
                    }
                },
            )?;
            writeln!(out, "{name:?} {verb} page {}", found.identity.key)?;
        }
        CodeAction::Value {
            variable,
            value,
            cluster,
            run,
            page,
            final_value,
        } => {
            let unit = match (cluster, page) {
                (Some(cluster), _) => Unit::Story {
                    run: cluster_run(&project, run, cluster)?,
                    cluster,
                },
                (None, Some(page)) => Unit::Page(find_page(&project, &page)?.id),
                (None, None) => bail!("say which story (--cluster N) or page (--page KEY)"),
            };
            let role = if final_value {
                Role::Final
            } else {
                Role::Coder
            };
            let answer = project.set_value(unit, &variable, &by, &value, role)?;
            writeln!(
                out,
                "{variable} = {} ({by}{})",
                answer.shown(),
                if final_value { ", final" } else { "" }
            )?;
        }
        CodeAction::UndoValue { final_value } => {
            let role = if final_value {
                Role::Final
            } else {
                Role::Coder
            };
            match project.undo_value(&by, role)? {
                Some((variable, unit)) => writeln!(out, "undid {by}'s {variable} on {unit}")?,
                None => writeln!(out, "no value of {by}'s to undo")?,
            }
        }
        CodeAction::Undo => match project.undo_code_edit(&by)? {
            Some(what) => writeln!(out, "undid: {what}")?,
            None => writeln!(out, "nothing of {by}'s to undo")?,
        },
        CodeAction::Log => {
            for e in project.code_edits()? {
                writeln!(
                    out,
                    "{}  {:<12} {}{}",
                    e.at,
                    e.by,
                    e.what,
                    if e.undone { "  (undone)" } else { "" }
                )?;
            }
        }
        CodeAction::Reconcile { run, extend } => {
            let run = super::run_or_latest(&project, run)?;
            reconcile(&project, run, &mut out)?;
            if let Some(share) = extend {
                let codes: Vec<_> = project.codes()?.into_iter().map(|c| c.id).collect();
                let n = project.logged_code_edit(
                    &by,
                    &format!("extend codes in run {run} (share >= {share})"),
                    &codes,
                    |p| coding::propagate(p, run, &by, share),
                )?;
                writeln!(out, "extended codes to {n} page(s)")?;
            }
        }
    }
    Ok(())
}

fn list(project: &Project, out: &mut impl Write) -> anyhow::Result<()> {
    let codes = project.codes()?;
    if codes.is_empty() {
        writeln!(
            out,
            "the codebook is empty (samecore code --project P add NAME)"
        )?;
    }
    for c in codes {
        writeln!(
            out,
            "{:<30} {:>6} pages  {}",
            c.name, c.pages, c.description
        )?;
    }
    Ok(())
}

fn code(project: &Project, name: &str) -> anyhow::Result<Code> {
    match project.code_by_name(name)? {
        Some(c) => Ok(c),
        None => {
            let names: Vec<String> = project.codes()?.into_iter().map(|c| c.name).collect();
            bail!(
                "no code named {name:?} (the codebook: {})",
                if names.is_empty() {
                    "empty".to_string()
                } else {
                    names.join(", ")
                }
            )
        }
    }
}

/// The code named `name`; with `new`, added to the codebook first when it is not there.
fn code_or_new(
    project: &mut Project,
    name: &str,
    by: &str,
    new: bool,
    out: &mut impl Write,
) -> anyhow::Result<Code> {
    if new && project.code_by_name(name)?.is_none() {
        let id = project.add_code(name, "")?;
        project.log_code_created(by, id, name.trim())?;
        writeln!(out, "added code {:?}", name.trim())?;
    }
    code(project, name).map_err(|e| anyhow::anyhow!("{e}; --new adds it"))
}

/// The run a cluster number belongs to: `--run`, else the project's only run. With several runs
/// a bare number is ambiguous (cluster 99 of one run is another cluster of the next) and is
/// refused, naming the runs.
pub(super) fn cluster_run(
    project: &Project,
    run: Option<i64>,
    cluster: i64,
) -> anyhow::Result<RunId> {
    if run.is_none() {
        let runs = project.runs()?;
        if runs.len() > 1 {
            let list: Vec<String> = runs
                .iter()
                .map(|r| format!("{} ({}, {})", r.id, r.record.detector, r.created_at))
                .collect();
            bail!(
                "cluster {cluster} of which run? The project has {} runs, and cluster numbers \
                 belong to one: say --run R (runs: {})",
                runs.len(),
                list.join("; ")
            );
        }
    }
    super::run_or_latest(project, run)
}

/// A page by key, record id, URL or reader key; an error when none or several match.
pub(super) fn find_page(project: &Project, name: &str) -> anyhow::Result<Page> {
    if let Some(p) = project.page_by_key(name)? {
        return Ok(p);
    }
    let mut matches = project.pages_named(name)?;
    match matches.len() {
        1 => Ok(matches.remove(0)),
        0 => bail!("no page with key, record id or URL {name:?}"),
        n => bail!(
            "{n} pages have the record id or URL {name:?}; name one by its key: {}",
            matches
                .iter()
                .take(5)
                .map(|p| format!("{:?}", p.identity.key))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn reconcile(project: &Project, run: RunId, out: &mut impl Write) -> anyhow::Result<()> {
    let changes = coding::changes(project, run)?;
    let partial = coding::reconcile(project, run)?;
    writeln!(out, "run {run}:")?;
    if changes.splits.is_empty() && changes.merges.is_empty() {
        writeln!(out, "  no coded cluster was split or merged")?;
    }
    for s in &changes.splits {
        let parts: Vec<String> = s
            .parts
            .iter()
            .map(|(c, n)| format!("cluster {c} ({n})"))
            .collect();
        writeln!(
            out,
            "  split: {:?} of cluster {} (run {}) is now in {}",
            s.code,
            s.origin.1,
            s.origin.0,
            parts.join(", ")
        )?;
    }
    for m in &changes.merges {
        let from: Vec<String> = m
            .origins
            .iter()
            .map(|(r, c)| format!("cluster {c} of run {r}"))
            .collect();
        let codes: Vec<String> = m
            .codes
            .iter()
            .map(|(c, cov)| format!("{c:?} {}", format!("{cov:?}").to_lowercase()))
            .collect();
        writeln!(
            out,
            "  merged: cluster {} ({} pages) joins {}; codes: {}",
            m.cluster,
            m.size,
            from.join(", "),
            codes.join(", ")
        )?;
    }
    for c in partial
        .iter()
        .filter(|c| c.codes.iter().any(|x| x.coverage != coding::Coverage::Full))
    {
        for x in &c.codes {
            if x.coverage != coding::Coverage::Full {
                writeln!(
                    out,
                    "  cluster {} ({} pages): {:?} on {} of them, removed on {}, undecided on {}",
                    c.cluster,
                    c.size,
                    x.code,
                    x.coded.len(),
                    x.removed.len(),
                    x.undecided.len()
                )?;
            }
        }
    }
    Ok(())
}

/// `samecore code --package F ...`: coding in a coder's package.
fn in_package(
    path: &std::path::Path,
    by: &Option<String>,
    action: CodeAction,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut package = samecore::package::Package::open(path)
        .with_context(|| format!("cannot open package {}", path.display()))?;
    let coder = package.info.coder.clone();
    if let Some(by) = by
        && *by != coder
    {
        bail!("this package is {coder}'s, not {by}'s");
    }
    let mut out = super::stdout_for(false);
    match action {
        CodeAction::List => {
            let (done, total) = package.progress()?;
            writeln!(
                out,
                "package of round {:?} for {coder}: {done} of {total} stories coded (codebook v{}{})",
                package.info.round,
                package.info.codebook.version,
                if package.info.blind { ", blind" } else { "" }
            )?;
            let values = package.values()?;
            for u in package.units()? {
                let mine: Vec<String> = values
                    .iter()
                    .filter(|v| v.position == u.position && v.page.is_none())
                    .map(|v| format!("{}={}", v.variable, v.answer.shown()))
                    .collect();
                writeln!(
                    out,
                    "{:>6}  {:>3} pages  {}  {}",
                    u.cluster,
                    u.pages,
                    u.title.as_deref().unwrap_or("(untitled)"),
                    mine.join(" ")
                )?;
                for m in package.members(u.position)? {
                    let on_page: Vec<String> = values
                        .iter()
                        .filter(|v| v.position == u.position && v.page.as_ref() == Some(&m.key))
                        .map(|v| format!("{}={}", v.variable, v.answer.shown()))
                        .collect();
                    writeln!(
                        out,
                        "          page {}  {}",
                        m.url.as_deref().unwrap_or(&m.key),
                        on_page.join(" ")
                    )?;
                }
            }
        }
        CodeAction::Value {
            variable,
            value,
            cluster,
            run,
            page,
            final_value,
        } => {
            if final_value {
                bail!("final values are set in the project, not in a coder's package");
            }
            if let Some(run) = run
                && run != package.info.run.0
            {
                bail!("the package holds stories of run {}", package.info.run);
            }
            let answer = match page {
                // A page variable: on the story's page named by its key or URL.
                Some(page) => {
                    let (position, key) = package.page_of(&page, None)?;
                    package.set_page_value(position, &key, &variable, &value)?
                }
                None => {
                    let cluster = cluster.context("say which story (--cluster N)")?;
                    let position = package.position_of(cluster)?;
                    package.set_value(position, &variable, &value)?
                }
            };
            writeln!(
                out,
                "{variable} = {} ({coder}, in the package)",
                answer.shown()
            )?;
        }
        CodeAction::UndoValue { final_value } => {
            if final_value {
                bail!("final values are set in the project, not in a coder's package");
            }
            match package.undo_value()? {
                Some((variable, position)) => {
                    let cluster = package
                        .units()?
                        .into_iter()
                        .find(|u| u.position == position)
                        .map_or(position, |u| u.cluster);
                    writeln!(out, "undid {coder}'s {variable} on cluster {cluster}")?
                }
                None => writeln!(out, "no value of {coder}'s to undo in the package")?,
            }
        }
        _ => bail!(
            "a package takes `value`, `undo-value` and `list`; the rest needs the project (--project)"
        ),
    }
    Ok(())
}
