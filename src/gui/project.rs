//! The project file behind the workbench: a small **store actor**. One worker thread owns the
//! [`Project`] (the SQLite connection), takes commands over a channel in order, and sends its
//! replies back; the UI polls them at the top of each frame, woken by the same waker as the
//! engine jobs. So the UI thread never runs SQL (DESIGN: "the UI thread never blocks").
//!
//! Why an actor rather than one job per write with its own connection: labels arrive at key
//! speed and must be written in the order they were typed (label, label, undo); one owner
//! gives that order for free, keeps a single connection (no lock fights between our own
//! writers, only with another instance such as the CLI, which come back as
//! [`crate::Error::ProjectBusy`] messages), and remembers which engine result became which
//! stored run, so a sample asked for right after a run finds the run even while the save is
//! still queued. In tests (`Workbench::new(true)`) the same commands run inline.
//!
//! In: paths typed or picked (rfd), detector results ([`Detection`]), labels, codes. Out:
//! [`Reply`] values: snapshots of a sample ([`SampleSnapshot`]: pairs, labels, progress,
//! henzinger §3 precision per stratum with Wilson intervals, Cohen's kappa) and of the
//! codebook ([`CodeSnapshot`]). Every failure is a message; nothing is lost on the UI side.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use crate::detectors::{Algo, Detection};
use crate::labels::LabelInput;
use crate::labels::estimate::{SampleEstimate, sample_estimate};
use crate::labels::stats::{self, Agreement, PrecisionEstimate};
use crate::store::codes::{Code, PageCode};
use crate::store::samples::{LabelProgress, LabelRecord, SampleInfo, SamplePair};
use crate::store::{PageId, Project, RunId, SampleId};
use crate::{Document, Result};

/// The repaint callback shared with the jobs.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// What the actor owns: the open project and which engine result became which stored run.
pub struct StoreState {
    /// The open project.
    pub project: Project,
    saved: Vec<(Arc<Detection>, RunId)>,
    /// The project's `data_version` last seen ([`Project::data_version`]).
    seen_version: i64,
}

/// How often the project worker looks for edits another samecore made to the project file.
pub const FOLLOW_EVERY: std::time::Duration = std::time::Duration::from_millis(400);

impl StoreState {
    /// [`Reply::ChangedElsewhere`] when another samecore committed to the project file since
    /// the last look.
    pub fn changed_elsewhere(&mut self) -> Option<Reply> {
        let v = self.project.data_version().ok()?;
        (v != std::mem::replace(&mut self.seen_version, v)).then_some(Reply::ChangedElsewhere)
    }

    /// The stored run of an engine result saved earlier.
    pub fn run_of(&self, detection: &Arc<Detection>) -> Result<RunId> {
        self.saved
            .iter()
            .find(|(d, _)| Arc::ptr_eq(d, detection))
            .map(|(_, r)| *r)
            .ok_or_else(|| {
                crate::Error::InvalidParameter(
                    "this detector run is not in the project (open a project, then run again)"
                        .into(),
                )
            })
    }

    /// Store a detector result (pages registered by key) unless it was stored already.
    pub fn save(
        &mut self,
        archives: &[String],
        docs: &[Document],
        detection: &Arc<Detection>,
    ) -> Result<Option<(RunId, Vec<PageId>, bool)>> {
        if self.run_of(detection).is_ok() {
            return Ok(None);
        }
        // The same clusters as a stored run (the same archives opened again): that run, not a
        // copy of it.
        if let Some((run, pages)) = self.project.same_run(docs, detection)? {
            self.saved.push((detection.clone(), run));
            return Ok(Some((run, pages, false)));
        }
        let params = serde_json::json!({ "algo": detection.algo.name(), "from": "workbench" });
        let (run, pages) = self
            .project
            .save_detection(archives, docs, detection, params, None)?;
        self.saved.push((detection.clone(), run));
        Ok(Some((run, pages, true)))
    }
}

/// A command for the actor: it runs on the worker with the project and answers with replies.
pub type Command = Box<dyn FnOnce(&mut StoreState) -> Vec<Reply> + Send>;

/// One sample as the labels tab and the labelling bar show it.
#[derive(Debug, Clone)]
pub struct SampleSnapshot {
    /// The sample.
    pub info: SampleInfo,
    /// Its pairs, by position (scores are hidden by the UI in blind mode).
    pub pairs: Vec<SamplePair>,
    /// Every annotator's current labels.
    pub labels: Vec<LabelRecord>,
    /// The annotator the snapshot was made for.
    pub annotator: String,
    /// That annotator's label per position (reviewed markers).
    pub mine: Vec<Option<LabelInput>>,
    /// That annotator's progress.
    pub progress: LabelProgress,
    /// Everybody who labelled this sample, sorted.
    pub annotators: Vec<String>,
    /// Precision per stratum and overall, from settled or agreed verdicts (henzinger §3).
    pub estimate: PrecisionEstimate,
    /// Cohen's kappa for each pair of annotators, with their disagreements.
    pub agreements: Vec<(String, String, Agreement)>,
    /// Positions where annotators disagree and nobody settled.
    pub unsettled: Vec<u32>,
}

/// The codebook and every page's code decisions.
#[derive(Debug, Clone, Default)]
pub struct CodeSnapshot {
    /// The codebook, by name.
    pub codes: Vec<Code>,
    /// Each page's decisions, by code name.
    pub by_page: BTreeMap<PageId, Vec<PageCode>>,
    /// The project's latest run, what it did to the coded clusters of earlier runs, and the
    /// clusters where a code covers only some members (none before the first run).
    pub reconciliation: Option<Reconciliation>,
    /// The codebook of variables at its latest version.
    pub codebook: crate::codebook::Codebook,
    /// Every coder's values as they stand, by unit (the panel shows only the annotator's own).
    pub values: BTreeMap<crate::store::values::Unit, Vec<crate::store::values::StoredValue>>,
    /// The reliability rounds.
    pub rounds: Vec<crate::store::rounds::Round>,
    /// Every version of the codebook of variables, oldest first.
    pub codebook_history: Vec<crate::store::values::CodebookVersion>,
}

/// The coders' agreement per variable and the disagreements still open, as the Reliability
/// tab shows them ([`crate::coding::reliability`]).
#[derive(Debug, Clone, Default)]
pub struct ReliabilityReport {
    /// Alpha and the rest, per scored variable (each option of a several-values variable).
    pub agreement: Vec<crate::agreement::VariableAgreement>,
    /// Units whose coders differ on a variable and that have no final value yet.
    pub disagreements: Vec<crate::coding::reliability::Disagreement>,
    /// Final values set.
    pub finals: usize,
    /// The bootstrap's resamples.
    pub resamples: usize,
}

/// Resamples of the workbench's bootstrap intervals (the command line's default is 10,000).
pub const GUI_RESAMPLES: usize = 2_000;

/// The report for `project`.
pub fn reliability_report(project: &Project) -> Result<ReliabilityReport> {
    let boot = crate::agreement::BootstrapConfig {
        resamples: GUI_RESAMPLES,
        ..Default::default()
    };
    let finals = project
        .values()?
        .iter()
        .filter(|v| v.role == crate::store::values::Role::Final)
        .count();
    Ok(ReliabilityReport {
        agreement: crate::coding::reliability::agreement(project, &boot)?,
        disagreements: crate::coding::reliability::disagreements(project)?,
        finals,
        resamples: GUI_RESAMPLES,
    })
}

/// Codes against the latest run (see [`crate::coding::changes`] and
/// [`crate::coding::reconcile`]).
#[derive(Debug, Clone)]
pub struct Reconciliation {
    /// The run.
    pub run: RunId,
    /// Coded clusters it split or merged.
    pub changes: crate::coding::CodeChanges,
    /// Its clusters holding coded pages, with each code's coverage.
    pub clusters: Vec<crate::coding::ClusterReconciliation>,
}

/// How to put back the code decisions one edit changed.
#[derive(Debug, Clone)]
pub struct CodeUndo {
    /// What the edit was, for the button's tooltip.
    pub what: String,
    /// Who made it (undo takes that person's latest edit from the project's code log).
    pub by: String,
}

/// What the actor sends back.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The project is open.
    Opened(PathBuf),
    /// What the workbench looked like when this project was last used: its archives (found
    /// where they are now) and settings; the archives not found, by recorded path.
    Restore(Box<WorkbenchState>, Vec<String>),
    /// It could not be opened (busy, damaged, not a project); the message says why.
    OpenFailed(String),
    /// A detector run was stored; `pages[doc index]` is each document's page.
    Saved {
        /// The detector.
        algo: Algo,
        /// The stored run.
        run: RunId,
        /// Page of each document of the workspace.
        pages: Arc<Vec<PageId>>,
    },
    /// The project's samples.
    Samples(Vec<SampleInfo>),
    /// A sample's state after a change.
    Sample(Arc<SampleSnapshot>),
    /// The codebook after a change.
    Codes(Arc<CodeSnapshot>),
    /// The coders' agreement, computed for the codes snapshot of this generation.
    Reliability(Arc<ReliabilityReport>, u64),
    /// The coders' derivation classes of pairs (the latest of each).
    Derivations(Arc<Vec<crate::store::derivations::DerivationRow>>),
    /// An edit of codes that can be undone.
    CodeEdited(CodeUndo),
    /// Precision and relative recall of a run from its samples' labels.
    Curves(Arc<super::label_curve::RunCurves>),
    /// The last label was undone: the position it was on (none: nothing to undo).
    LabelUndone(Option<u32>),
    /// A failure to show.
    Failed(String),
    /// Something done, for the person.
    Notice(String),
    /// Coders' packages merged: what came in.
    Merged(Arc<crate::package::MergeReport>),
    /// Another samecore (the command line) changed the project file: what is shown of it is
    /// read again.
    ChangedElsewhere,
}

/// The worker owning the project (or, for tests, the project held inline).
pub struct StoreActor {
    path: PathBuf,
    commands: Option<Sender<Command>>,
    inline: Option<StoreState>,
    replies_tx: Sender<Reply>,
    replies: Receiver<Reply>,
}

impl StoreActor {
    /// Open (or create) the project at `path`: on a worker thread, or inline when `sync`.
    pub fn open(path: PathBuf, sync: bool, waker: Option<Waker>) -> StoreActor {
        let (replies_tx, replies) = channel();
        let mut actor = StoreActor {
            path: path.clone(),
            commands: None,
            inline: None,
            replies_tx: replies_tx.clone(),
            replies,
        };
        if sync {
            match open_state(&path) {
                Ok((state, first)) => {
                    actor.inline = Some(state);
                    for r in first {
                        let _ = replies_tx.send(r);
                    }
                }
                Err(e) => {
                    let _ = replies_tx.send(Reply::OpenFailed(open_message(&path, &e)));
                }
            }
            return actor;
        }
        let (tx, rx) = channel::<Command>();
        actor.commands = Some(tx);
        let wake = move || {
            if let Some(w) = &waker {
                w();
            }
        };
        let spawned = std::thread::Builder::new()
            .name("samecore-project".into())
            .spawn(move || {
                let mut state = match open_state(&path) {
                    Ok((state, first)) => {
                        for r in first {
                            let _ = replies_tx.send(r);
                        }
                        state
                    }
                    Err(e) => {
                        let _ = replies_tx.send(Reply::OpenFailed(open_message(&path, &e)));
                        wake();
                        return;
                    }
                };
                wake();
                // Ends when the workbench drops its sender (project closed or app gone).
                // Between commands it looks for edits made elsewhere (the command line).
                loop {
                    match rx.recv_timeout(FOLLOW_EVERY) {
                        Ok(command) => {
                            for r in command(&mut state) {
                                let _ = replies_tx.send(r);
                            }
                            // (Its own writes do not move its connection's data_version.)
                            if let Some(r) = state.changed_elsewhere() {
                                let _ = replies_tx.send(r);
                            }
                            wake();
                        }
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                            if let Some(r) = state.changed_elsewhere() {
                                let _ = replies_tx.send(r);
                                wake();
                            }
                        }
                        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                    }
                }
            });
        if let Err(e) = spawned {
            let _ = actor.replies_tx.send(Reply::OpenFailed(format!(
                "cannot start the project worker: {e}"
            )));
        }
        actor
    }

    /// Queue `command` (run at once when inline).
    pub fn send(&mut self, command: impl FnOnce(&mut StoreState) -> Vec<Reply> + Send + 'static) {
        if let Some(state) = self.inline.as_mut() {
            for r in command(state) {
                let _ = self.replies_tx.send(r);
            }
            return;
        }
        let sent = self
            .commands
            .as_ref()
            .is_some_and(|tx| tx.send(Box::new(command)).is_ok());
        if !sent {
            let _ = self.replies_tx.send(Reply::Failed(format!(
                "the project {} is not open",
                self.path.display()
            )));
        }
    }

    /// Replies that arrived since the last poll, in order. Inline (tests), the look for edits
    /// made elsewhere happens here.
    pub fn poll(&mut self) -> Vec<Reply> {
        if let Some(r) = self.inline.as_mut().and_then(StoreState::changed_elsewhere) {
            let _ = self.replies_tx.send(r);
        }
        self.replies.try_iter().collect()
    }
}

fn open_message(path: &std::path::Path, e: &crate::Error) -> String {
    format!("Opening project {} failed: {e}", path.display())
}

fn open_state(path: &std::path::Path) -> Result<(StoreState, Vec<Reply>)> {
    let project = Project::open(path)?;
    let seen_version = project.data_version()?;
    let state = StoreState {
        project,
        saved: Vec::new(),
        seen_version,
    };
    let mut first = vec![Reply::Opened(path.to_path_buf())];
    if let Some((restore, missing)) = restore_state(&state.project)? {
        first.push(Reply::Restore(Box::new(restore), missing));
    }
    first.push(Reply::Samples(state.project.samples()?));
    first.push(Reply::Codes(Arc::new(code_snapshot(&state.project)?)));
    first.push(Reply::Derivations(Arc::new(state.project.derivations()?)));
    Ok((state, first))
}

/// The key of the workbench's state among the project's settings.
pub const STATE_KEY: &str = "workbench";

/// What the workbench keeps in a project to come back as it was: the archives it had open,
/// who was labelling, the run settings (detectors, thresholds, mode), SpotSigs' antecedents and
/// signature options, and the tab. Per project, so one corpus's settings never reach another.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct WorkbenchState {
    /// The archives open (absolute paths).
    pub inputs: Vec<PathBuf>,
    /// The annotator's name.
    pub annotator: String,
    /// The tab shown.
    pub tab: super::action::Tab,
    /// The run panel's settings.
    pub run: super::run_panel::RunSettings,
    /// SpotSigs' parameters (antecedents, tokens, IDF band, …).
    pub spotsigs: crate::signature::SpotSigsParams,
    /// The selected cluster of the shown run, by number.
    pub cluster: Option<u32>,
}

impl Default for WorkbenchState {
    fn default() -> Self {
        WorkbenchState {
            inputs: Vec::new(),
            annotator: String::new(),
            tab: super::action::Tab::Clusters,
            run: super::run_panel::RunSettings::default(),
            spotsigs: crate::signature::SpotSigsParams::default(),
            cluster: None,
        }
    }
}

/// The state stored in `project`, with its archives resolved to where they are now (through
/// [`Project::archive_places`] when one moved with the project); none when never stored or
/// unreadable (from another samecore version).
fn restore_state(project: &Project) -> Result<Option<(WorkbenchState, Vec<String>)>> {
    let places = project.archive_places()?;
    let Some(value) = project.setting(STATE_KEY)? else {
        // A project the workbench never saved (made by `samecore run --project`): its archives,
        // found where they were recorded or moved with the project, and the defaults.
        if places.is_empty() {
            return Ok(None);
        }
        let (found, missing): (Vec<_>, Vec<_>) = places.iter().partition(|p| p.found.is_some());
        let state = WorkbenchState {
            inputs: found.iter().filter_map(|p| p.found.clone()).collect(),
            ..WorkbenchState::default()
        };
        return Ok(Some((
            state,
            missing.iter().map(|p| p.path.clone()).collect(),
        )));
    };
    let Ok(mut state) = serde_json::from_value::<WorkbenchState>(value) else {
        return Ok(None);
    };
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for input in &state.inputs {
        if input.exists() {
            found.push(input.clone());
            continue;
        }
        let recorded = input.to_string_lossy();
        match places
            .iter()
            .find(|p| p.path == recorded)
            .and_then(|p| p.found.clone())
        {
            Some(now) => found.push(now),
            None => missing.push(recorded.into_owned()),
        }
    }
    state.inputs = found;
    Ok(Some((state, missing)))
}

/// Turn a result into replies: the value's replies, or one failure message.
pub fn replies(what: &str, r: Result<Vec<Reply>>) -> Vec<Reply> {
    r.unwrap_or_else(|e| vec![Reply::Failed(format!("{what} failed: {e}"))])
}

/// The codebook and page codes now.
pub fn code_snapshot(project: &Project) -> Result<CodeSnapshot> {
    let mut by_page: BTreeMap<PageId, Vec<PageCode>> = BTreeMap::new();
    for pc in project.page_codes()? {
        by_page.entry(pc.page).or_default().push(pc);
    }
    for v in by_page.values_mut() {
        v.sort_by(|a, b| a.code.cmp(&b.code));
    }
    let mut codes = project.codes()?;
    codes.sort_by(|a, b| a.name.cmp(&b.name));
    let reconciliation = match project.runs()?.last() {
        Some(run) if !codes.is_empty() => Some(Reconciliation {
            run: run.id,
            changes: crate::coding::changes(project, run.id)?,
            clusters: crate::coding::reconcile(project, run.id)?,
        }),
        _ => None,
    };
    Ok(CodeSnapshot {
        codes,
        by_page,
        reconciliation,
        codebook: project.codebook()?,
        values: {
            let mut by_unit: BTreeMap<_, Vec<_>> = BTreeMap::new();
            for v in project.values()? {
                by_unit.entry(v.unit).or_default().push(v);
            }
            by_unit
        },
        rounds: project.rounds()?,
        codebook_history: project.codebook_history()?,
    })
}

/// A sample's state for `annotator`: pairs, labels, markers, precision and agreement.
pub fn sample_snapshot(
    project: &Project,
    sample: SampleId,
    annotator: &str,
) -> Result<SampleSnapshot> {
    let info = project
        .samples()?
        .into_iter()
        .find(|s| s.id == sample)
        .ok_or_else(|| crate::Error::InvalidParameter(format!("no sample {sample}")))?;
    let SampleEstimate {
        labels,
        pairs,
        resolved,
        precision: estimate,
        ..
    } = sample_estimate(project, sample, None)?;
    let mut mine = vec![None; pairs.len()];
    for l in labels.iter().filter(|l| l.annotator == annotator) {
        if let Some(m) = mine.get_mut(l.position as usize) {
            *m = Some(l.label.clone());
        }
    }
    let progress = project.label_progress(sample, annotator)?;
    let mut annotators: Vec<String> = labels.iter().map(|l| l.annotator.clone()).collect();
    annotators.sort();
    annotators.dedup();
    let mut agreements = Vec::new();
    for (i, a) in annotators.iter().enumerate() {
        for b in &annotators[i + 1..] {
            agreements.push((a.clone(), b.clone(), stats::cohen_kappa(&labels, a, b)));
        }
    }
    Ok(SampleSnapshot {
        info,
        pairs,
        labels,
        annotator: annotator.to_string(),
        mine,
        progress,
        annotators,
        estimate,
        agreements,
        unsettled: resolved.unsettled,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    use super::*;

    fn wait_for(actor: &mut StoreActor, wanted: usize) -> Vec<Reply> {
        let mut got = Vec::new();
        let start = Instant::now();
        while got.len() < wanted && start.elapsed() < Duration::from_secs(20) {
            got.extend(actor.poll());
            std::thread::sleep(Duration::from_millis(5));
        }
        got
    }

    #[test]
    fn the_worker_answers_in_order_and_wakes_the_ui() {
        let dir = tempfile::tempdir().unwrap();
        let wakes = Arc::new(AtomicUsize::new(0));
        let w = wakes.clone();
        let waker: Waker = Arc::new(move || {
            w.fetch_add(1, Ordering::SeqCst);
        });
        let mut actor = StoreActor::open(dir.path().join("p.samecore"), false, Some(waker));
        for name in ["b", "a"] {
            actor.send(move |st| {
                replies(
                    "adding",
                    st.project.add_code(name, "").and_then(|_| {
                        Ok(vec![Reply::Codes(Arc::new(code_snapshot(&st.project)?))])
                    }),
                )
            });
        }
        // Opened, samples, codes, derivations; then one codebook per command, the last with
        // both codes.
        let got = wait_for(&mut actor, 6);
        assert!(matches!(got.first(), Some(Reply::Opened(_))), "{got:?}");
        let Some(Reply::Codes(last)) = got.last() else {
            panic!("{got:?}")
        };
        let names: Vec<&str> = last.codes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(wakes.load(Ordering::SeqCst) >= 3);
        // A failing command is a message, and the worker goes on.
        actor.send(|st| replies("adding", st.project.add_code("a", "").map(|_| Vec::new())));
        let got = wait_for(&mut actor, 1);
        assert!(
            matches!(got.as_slice(), [Reply::Failed(m)] if m.starts_with("adding failed")),
            "{got:?}"
        );
    }

    #[test]
    fn a_directory_is_not_a_project() {
        let dir = tempfile::tempdir().unwrap();
        let mut actor = StoreActor::open(dir.path().to_path_buf(), false, None);
        let got = wait_for(&mut actor, 1);
        assert!(matches!(got.as_slice(), [Reply::OpenFailed(_)]), "{got:?}");
        // Commands after a failed open are answered, not lost silently.
        actor.send(|_| Vec::new());
        let got = wait_for(&mut actor, 1);
        assert!(matches!(got.as_slice(), [Reply::Failed(_)]), "{got:?}");
    }
}
