//! The workbench's side of an open project: which file, the latest snapshots the store actor
//! sent ([`super::project`]), the annotator's name, the undo list of code edits, and one
//! method per thing a person can ask of the project. Each method only queues a command for
//! the actor; results come back through [`ProjectSession::poll`] at the top of a frame.
//!
//! In: requests from the labels tab, the labelling bar and the Coding panel, plus the
//! workspace's detector runs (stored as soon as a project is open). Out: snapshots to draw
//! and messages for the person.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::label_curve::{self, RunCurves};
use super::open::{DialogKind, PendingDialog};
use super::project::{
    self, CodeSnapshot, CodeUndo, Reply, SampleSnapshot, StoreActor, Waker, replies,
};
use super::recent::Recent;
use crate::detectors::{Algo, Detection};
use crate::gui::model::workspace::{AlgoRun, Workspace};
use crate::labels::sample::{self, SamplePlan};
use crate::labels::{LabelInput, Verdict};
use crate::store::codes::CodeSource;
use crate::store::samples::SampleInfo;
use crate::store::{CodeId, PageId, RunId, SampleId};

/// The file extension of projects.
pub const EXTENSION: &str = "samecore";

/// What one poll brought that the rest of the workbench reacts to.
#[derive(Debug, Default)]
pub struct Polled {
    /// Messages for the person.
    pub messages: Vec<String>,
    /// A label was undone on this position.
    pub undone: Option<u32>,
    /// A project was opened (store the workspace's runs now).
    pub opened: bool,
    /// The workbench's state stored in the project just opened, to come back to.
    pub restore: Option<Box<project::WorkbenchState>>,
}

/// The open project as the UI sees it.
pub struct ProjectSession {
    sync: bool,
    actor: Option<StoreActor>,
    /// The project file once it is open.
    pub opened: Option<PathBuf>,
    /// The typed project path.
    pub path_input: String,
    dialog: Option<PendingDialog>,
    /// The workbench state last kept in the project, and since when the current one differs.
    kept_state: Option<project::WorkbenchState>,
    state_changed: Option<std::time::Instant>,
    /// Detector results already queued for saving, and the workspace they belong to.
    sent: Vec<Arc<Detection>>,
    workspace: Option<Arc<Workspace>>,
    /// Page of each document of the open workspace, once a run was stored.
    pub pages: Option<Arc<Vec<PageId>>>,
    /// The project's samples.
    pub samples: Vec<SampleInfo>,
    /// The sample being labelled.
    pub sample: Option<Arc<SampleSnapshot>>,
    /// The codebook and page codes.
    pub codes: Arc<CodeSnapshot>,
    /// The coders' derivation classes of pairs, the latest of each.
    pub derivations: Arc<Vec<crate::store::derivations::DerivationRow>>,
    /// Who labels and codes.
    pub annotator: String,
    /// Code edits that can be undone, newest last.
    pub code_undo: Vec<CodeUndo>,
    /// Recently opened projects.
    pub recent: Recent,
    /// Messages made here (not by the actor), handed out by the next poll.
    notes: Vec<String>,
    /// Runs stored since the project was opened: detector and run id, oldest first.
    pub saved_runs: Vec<(Algo, RunId)>,
    /// The latest labels-based curves the actor sent (for the Plots tab).
    pub curves: Option<Arc<RunCurves>>,
    /// Bumped by every reply that may change the curves (labels, samples, stored runs).
    generation: u64,
    /// The run and generation the curves were last asked for.
    curves_asked: Option<(Arc<Detection>, u64)>,
    /// The coders' agreement and open disagreements, for the codes of `reliability_of`.
    pub reliability: Option<Arc<project::ReliabilityReport>>,
    /// The report of the last merge of coders' packages.
    pub merged: Option<Arc<crate::package::MergeReport>>,
    /// Bumped by every new codes snapshot.
    codes_generation: u64,
    /// The codes generation the report was computed for.
    reliability_of: Option<u64>,
    /// The generation a report was last asked for.
    reliability_asked: Option<u64>,
}

impl ProjectSession {
    /// No project open; `sync` runs the store inline (tests).
    pub fn new(sync: bool) -> Self {
        let annotator = std::env::var("USER")
            .ok()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| "annotator".into());
        ProjectSession {
            sync,
            actor: None,
            opened: None,
            path_input: String::new(),
            dialog: None,
            kept_state: None,
            state_changed: None,
            sent: Vec::new(),
            workspace: None,
            pages: None,
            samples: Vec::new(),
            sample: None,
            codes: Arc::default(),
            derivations: Arc::default(),
            annotator,
            code_undo: Vec::new(),
            recent: Recent::default(),
            notes: Vec::new(),
            saved_runs: Vec::new(),
            curves: None,
            generation: 0,
            curves_asked: None,
            reliability: None,
            merged: None,
            codes_generation: 0,
            reliability_of: None,
            reliability_asked: None,
        }
    }

    /// The project's run of detector `algo` stored last (where the story values of the shown
    /// clusters are kept).
    pub fn project_run(&self, algo: Algo) -> Option<RunId> {
        (self.saved_runs.iter().rev())
            .find(|(a, _)| *a == algo)
            .map(|(_, id)| *id)
    }

    /// Whether a project file is open (or being opened).
    pub fn is_open(&self) -> bool {
        self.actor.is_some()
    }

    /// Open (or create) the project at `path`; `.samecore` is added when there is no
    /// extension. The previous project is closed.
    pub fn open(&mut self, path: PathBuf, waker: Option<Waker>) {
        let path = if path.extension().is_none() {
            path.with_extension(EXTENSION)
        } else {
            path
        };
        self.close();
        self.path_input = path.display().to_string();
        self.actor = Some(StoreActor::open(path, self.sync, waker));
    }

    /// Close the project (the worker ends once its queue is done).
    pub fn close(&mut self) {
        self.actor = None;
        self.opened = None;
        self.sent.clear();
        self.saved_runs.clear();
        self.pages = None;
        self.samples.clear();
        self.sample = None;
        self.codes = Arc::default();
        self.code_undo.clear();
        self.curves = None;
        self.curves_asked = None;
        self.kept_state = None;
        self.state_changed = None;
    }

    /// Keep `state` in the open project once it has stopped changing for half a second (a
    /// threshold being dragged is not written at every step); at once when jobs run inline.
    /// When to look again, none when nothing is pending.
    pub fn keep_state(&mut self, state: project::WorkbenchState) -> Option<Duration> {
        const SETTLE: Duration = Duration::from_millis(500);
        if self.opened.is_none() || self.kept_state.as_ref() == Some(&state) {
            self.state_changed = None;
            return None;
        }
        let since = *self
            .state_changed
            .get_or_insert_with(std::time::Instant::now);
        if !self.sync && since.elapsed() < SETTLE {
            return Some(SETTLE.saturating_sub(since.elapsed()));
        }
        self.state_changed = None;
        self.kept_state = Some(state.clone());
        self.send(move |st| {
            replies(
                "Keeping the workbench's settings",
                serde_json::to_value(&state)
                    .map_err(crate::Error::from)
                    .and_then(|v| st.project.set_setting(project::STATE_KEY, &v))
                    .map(|()| Vec::new()),
            )
        });
        None
    }

    /// Show the native dialog for a project file (typed paths work without it).
    pub fn browse(&mut self, waker: Option<Waker>) {
        if self.dialog.is_some() {
            return;
        }
        self.dialog = Some(PendingDialog::start(
            DialogKind::Project(EXTENSION),
            move || {
                if let Some(w) = &waker {
                    w();
                }
            },
        ));
    }

    fn send(
        &mut self,
        command: impl FnOnce(&mut project::StoreState) -> Vec<Reply> + Send + 'static,
    ) {
        match self.actor.as_mut() {
            Some(a) => a.send(command),
            None => self
                .notes
                .push("Open a project first (Project file, on the left)".into()),
        }
    }

    /// Store the workspace's detector runs not stored yet (a new workspace starts afresh).
    pub fn save_runs(&mut self, ws: &Arc<Workspace>, runs: &[AlgoRun]) {
        if !self.workspace.as_ref().is_some_and(|w| Arc::ptr_eq(w, ws)) {
            self.workspace = Some(ws.clone());
            self.sent.clear();
            self.pages = None;
        }
        if !self.is_open() {
            return;
        }
        for run in runs {
            if self.sent.iter().any(|d| Arc::ptr_eq(d, &run.detection)) {
                continue;
            }
            self.sent.push(run.detection.clone());
            let (ws, detection) = (ws.clone(), run.detection.clone());
            self.send(move |st| {
                let archives: Vec<String> =
                    ws.inputs.iter().map(|p| p.display().to_string()).collect();
                replies(
                    "Saving the run",
                    st.save(&archives, &ws.collection.docs, &detection)
                        .and_then(|saved| match saved {
                            // The codes are compared with the new run at once.
                            Some((run, pages, stored)) => {
                                let mut out = vec![
                                    Reply::Saved {
                                        algo: detection.algo,
                                        run,
                                        pages: Arc::new(pages),
                                    },
                                    Reply::Codes(Arc::new(project::code_snapshot(&st.project)?)),
                                ];
                                if !stored {
                                    out.push(Reply::Notice(format!(
                                        "{} gave the clusters of run {run} again: that run is \
                                         shown, not stored twice",
                                        detection.algo.name()
                                    )));
                                }
                                Ok(out)
                            }
                            None => Ok(Vec::new()),
                        }),
                )
            });
        }
    }

    /// Draw a sample of `detection`'s pairs and make it the current one.
    pub fn make_sample(
        &mut self,
        detection: Arc<Detection>,
        name: String,
        plan: SamplePlan,
        seed: u64,
        blind: bool,
    ) {
        let annotator = self.annotator.clone();
        self.send(move |st| {
            replies(
                "Making the sample",
                (|| {
                    let run = st.run_of(&detection)?;
                    let (id, _, _) =
                        sample::draw_and_store(&mut st.project, run, &name, &plan, seed, blind)?;
                    Ok(vec![
                        Reply::Samples(st.project.samples()?),
                        Reply::Sample(Arc::new(project::sample_snapshot(
                            &st.project,
                            id,
                            &annotator,
                        )?)),
                    ])
                })(),
            )
        });
    }

    /// Load a sample (for the current annotator).
    pub fn select_sample(&mut self, sample: SampleId) {
        let annotator = self.annotator.clone();
        self.send(move |st| {
            replies(
                "Loading the sample",
                (|| {
                    Ok(vec![Reply::Sample(Arc::new(project::sample_snapshot(
                        &st.project,
                        sample,
                        &annotator,
                    )?))])
                })(),
            )
        });
    }

    fn current_sample(&mut self) -> Option<SampleId> {
        let id = self.sample.as_ref().map(|s| s.info.id);
        if id.is_none() {
            self.notes
                .push("Choose or make a sample first (Labels tab)".into());
        }
        id
    }

    /// Record the annotator's label on a pair of the current sample. When it cannot be
    /// written (busy file, ...) the message says so, keeps the note, and the labelling bar
    /// goes back to the pair.
    pub fn label(&mut self, position: u32, label: LabelInput) {
        let Some(sample) = self.current_sample() else {
            return;
        };
        let annotator = self.annotator.clone();
        self.send(move |st| {
            let saved = (|| {
                st.project.add_label(sample, position, &annotator, &label)?;
                Ok(vec![Reply::Sample(Arc::new(project::sample_snapshot(
                    &st.project,
                    sample,
                    &annotator,
                )?))])
            })();
            saved.unwrap_or_else(|e: crate::Error| {
                let mut msg = format!(
                    "The label of pair {} was not saved ({}): {e}",
                    position + 1,
                    label.verdict
                );
                if !label.note.is_empty() {
                    msg.push_str(&format!("; your note was: {}", label.note));
                }
                vec![Reply::Failed(msg), Reply::LabelUndone(Some(position))]
            })
        });
    }

    /// Undo the annotator's latest label in the current sample.
    pub fn undo_label(&mut self) {
        let Some(sample) = self.current_sample() else {
            return;
        };
        let annotator = self.annotator.clone();
        self.send(move |st| {
            replies(
                "Undo",
                (|| {
                    let position = st.project.undo_last_label(sample, &annotator)?;
                    Ok(vec![
                        Reply::Sample(Arc::new(project::sample_snapshot(
                            &st.project,
                            sample,
                            &annotator,
                        )?)),
                        Reply::LabelUndone(position),
                    ])
                })(),
            )
        });
    }

    /// Settle a disagreement: the verdict that counts.
    pub fn settle(&mut self, position: u32, verdict: Verdict) {
        let Some(sample) = self.current_sample() else {
            return;
        };
        let annotator = self.annotator.clone();
        self.send(move |st| {
            replies(
                "Settling",
                (|| {
                    st.project
                        .settle(sample, position, &annotator, &LabelInput::new(verdict))?;
                    Ok(vec![Reply::Sample(Arc::new(project::sample_snapshot(
                        &st.project,
                        sample,
                        &annotator,
                    )?))])
                })(),
            )
        });
    }

    /// Ask the actor for `detection`'s labels-based curves unless they were asked for since the
    /// labels last changed. True when a request was queued (its reply comes with a later poll).
    pub fn want_curves(&mut self, detection: &Arc<Detection>) -> bool {
        if !self.is_open()
            || self
                .curves_asked
                .as_ref()
                .is_some_and(|(d, g)| Arc::ptr_eq(d, detection) && *g == self.generation)
        {
            return false;
        }
        self.curves_asked = Some((detection.clone(), self.generation));
        let detection = detection.clone();
        self.send(move |st| {
            replies(
                "Computing precision from the labels",
                label_curve::run_curves(st, detection).map(|c| vec![Reply::Curves(Arc::new(c))]),
            )
        });
        true
    }

    fn code_command(
        &mut self,
        what: &'static str,
        edit: impl FnOnce(&mut project::StoreState) -> crate::Result<Option<CodeUndo>> + Send + 'static,
    ) {
        self.send(move |st| {
            replies(
                what,
                (|| {
                    let undo = edit(st)?;
                    let mut out =
                        vec![Reply::Codes(Arc::new(project::code_snapshot(&st.project)?))];
                    out.extend(undo.map(Reply::CodeEdited));
                    Ok(out)
                })(),
            )
        });
    }

    /// Add a code to the codebook (undoable: undo takes it out again).
    pub fn add_code(&mut self, name: String, description: String) {
        let by = self.annotator.clone();
        self.code_command("Adding the code", move |st| {
            let code = st.project.add_code(&name, &description)?;
            st.project.log_code_created(&by, code, name.trim())?;
            Ok(Some(CodeUndo {
                what: format!("adding {}", name.trim()),
                by,
            }))
        });
    }

    /// Rename a code.
    pub fn rename_code(&mut self, code: CodeId, name: String) {
        let by = self.annotator.clone();
        let what = format!("renaming to {name}");
        self.code_command("Renaming the code", move |st| {
            st.project
                .logged_code_edit(&by, &what, &[code], |p| p.rename_code(code, &name))?;
            Ok(Some(CodeUndo { what, by }))
        });
    }

    /// Merge `from` into `into` (asked for confirmation first; undo brings `from` back with
    /// its pages).
    pub fn merge_codes(&mut self, from: CodeId, into: CodeId) {
        let by = self.annotator.clone();
        self.code_command("Merging the codes", move |st| {
            let what = "merging the codes".to_string();
            st.project
                .logged_code_edit(&by, &what, &[from, into], |p| p.merge_codes(from, into))?;
            Ok(Some(CodeUndo { what, by }))
        });
    }

    /// Apply `code` to every member of a cluster of `detection`, with provenance.
    pub fn code_cluster(&mut self, detection: Arc<Detection>, cluster: u32, code: CodeId) {
        let by = self.annotator.clone();
        self.code_command("Coding the cluster", move |st| {
            let run = st.run_of(&detection)?;
            let what = format!("coding cluster {cluster}");
            st.project.logged_code_edit(&by, &what, &[code], |p| {
                p.code_cluster(run, i64::from(cluster), code, &by, CodeSource::Cluster)
            })?;
            Ok(Some(CodeUndo { what, by }))
        });
    }

    /// Give `code` to every cluster of `clusters` of `run` (a search's stories), as one edit
    /// of the code log (one undo takes it back).
    pub fn code_stories(&mut self, run: RunId, clusters: Vec<i64>, code: CodeId, what: String) {
        let by = self.annotator.clone();
        self.code_command("Coding the stories found", move |st| {
            let what = format!("coding {} stories: {what}", clusters.len());
            st.project.logged_code_edit(&by, &what, &[code], |p| {
                p.code_clusters(run, &clusters, code, &by)
            })?;
            Ok(Some(CodeUndo { what, by }))
        });
    }

    /// The annotator's value of `variable` on `unit` (a story of a run saved in the project,
    /// or a page).
    pub fn set_value(&mut self, unit: crate::store::values::Unit, variable: String, raw: String) {
        let by = self.annotator.clone();
        let what = match unit {
            crate::store::values::Unit::Story { .. } => "Coding the story",
            crate::store::values::Unit::Page(_) => "Coding the page",
        };
        self.code_command(what, move |st| {
            st.project.set_value(
                unit,
                &variable,
                &by,
                &raw,
                crate::store::values::Role::Coder,
            )?;
            Ok(None)
        });
    }

    /// Who does what a lead does (the codebook, packages): the annotator, else `lead`.
    fn lead(&self) -> String {
        if self.annotator.trim().is_empty() {
            "lead".to_string()
        } else {
            self.annotator.clone()
        }
    }

    /// Store `book` as the codebook's next version (checked first: nothing changes when it is
    /// not well made), saved by the annotator with `note`.
    pub fn save_codebook(&mut self, book: crate::codebook::Codebook, note: String) {
        let by = self.lead();
        self.send(move |st| {
            replies(
                "Saving the codebook",
                (|| {
                    let before = st.project.codebook()?.version;
                    let version = st.project.save_codebook(&book, &by, note.trim())?;
                    let notice = if version == before {
                        format!("The codebook is already this one (version {version})")
                    } else {
                        format!(
                            "Codebook saved as version {version} ({} variables, by {by})",
                            book.variables.len()
                        )
                    };
                    Ok(vec![
                        Reply::Codes(Arc::new(project::code_snapshot(&st.project)?)),
                        Reply::Notice(notice),
                    ])
                })(),
            )
        });
    }

    /// Write `book` to `path`: the codebook's file (JSON, read back by `samecore codebook
    /// read`) or, `markdown`, a document for a methods appendix. Refused when `path` is the
    /// project or one of its archives.
    pub fn write_codebook(
        &mut self,
        book: crate::codebook::Codebook,
        path: PathBuf,
        markdown: bool,
    ) {
        self.send(move |st| {
            replies(
                "Writing the codebook",
                (|| {
                    st.project.inputs()?.check(&path, "the codebook file")?;
                    let text = if markdown {
                        book.to_markdown()
                    } else {
                        book.to_file_text()?
                    };
                    std::fs::write(&path, text).map_err(|e| crate::Error::io(e, &path))?;
                    Ok(vec![Reply::Notice(format!(
                        "Codebook ({} variables) written to {}",
                        book.variables.len(),
                        path.display()
                    ))])
                })(),
            )
        });
    }

    /// Write one package per coder of round `round` into `folder` (or, with `coders`, one per
    /// coder of sample `round`'s pairs), as the annotator (the lead).
    pub fn assign(&mut self, round: String, coders: Option<Vec<String>>, folder: PathBuf) {
        let by = self.lead();
        self.send(move |st| {
            let (written, what) = match &coders {
                None => (
                    crate::package::assign(&mut st.project, &round, None, &folder, &by),
                    "stories",
                ),
                Some(coders) => (
                    crate::package::assign_sample(&mut st.project, &round, coders, &folder, &by),
                    "pairs",
                ),
            };
            replies(
                "Writing the packages",
                written.map(|written| {
                    written
                        .iter()
                        .map(|p| {
                            Reply::Notice(format!(
                                "Package for {}: {} {what}, {} KB: {}",
                                p.coder,
                                p.units,
                                p.bytes.div_ceil(1000),
                                p.file.display()
                            ))
                        })
                        .collect()
                }),
            )
        });
    }

    /// Merge the coders' packages at `paths` into the project.
    pub fn merge(&mut self, paths: Vec<PathBuf>) {
        let by = self.lead();
        self.send(move |st| {
            replies(
                "Merging the packages",
                (|| {
                    let report = crate::package::merge(&mut st.project, &paths, &by)?;
                    let values: usize = report.packages.iter().map(|p| p.values_in).sum();
                    let labels: usize = (report.packages.iter())
                        .map(|p| p.labels_in + p.derivations_in)
                        .sum();
                    Ok(vec![
                        Reply::Codes(Arc::new(project::code_snapshot(&st.project)?)),
                        Reply::Notice(format!(
                            "{} package(s) merged: {values} values and {labels} labels and \
                             derivation classes came in",
                            report.packages.len()
                        )),
                        Reply::Merged(Arc::new(report)),
                    ])
                })(),
            )
        });
    }

    /// Take back the annotator's latest value.
    pub fn undo_value(&mut self) {
        self.undo_role(crate::store::values::Role::Coder);
    }

    /// Take back the annotator's latest value of `role`, saying which it was.
    fn undo_role(&mut self, role: crate::store::values::Role) {
        let by = self.annotator.clone();
        let what = match role {
            crate::store::values::Role::Coder => "value",
            crate::store::values::Role::Final => "final value",
        };
        self.send(move |st| {
            replies(
                "Undoing the value",
                (|| {
                    let undone = st.project.undo_value(&by, role)?;
                    let notice = match undone {
                        Some((variable, unit)) => {
                            format!("Undone: {by}'s {what} of {variable} on {unit}")
                        }
                        None => format!("Nothing to undo: {by} has no {what} left"),
                    };
                    Ok(vec![
                        Reply::Codes(Arc::new(project::code_snapshot(&st.project)?)),
                        Reply::Notice(notice),
                    ])
                })(),
            )
        });
    }

    /// Set the final (adjudicated) value of `variable` on `unit`, decided by the annotator.
    pub fn set_final(&mut self, unit: crate::store::values::Unit, variable: String, raw: String) {
        let by = self.annotator.clone();
        self.send(move |st| {
            replies(
                "Setting the final value",
                (|| {
                    let answer = st.project.set_value(
                        unit,
                        &variable,
                        &by,
                        &raw,
                        crate::store::values::Role::Final,
                    )?;
                    let shown = answer.shown();
                    Ok(vec![
                        Reply::Codes(Arc::new(project::code_snapshot(&st.project)?)),
                        Reply::Notice(format!(
                            "Final value of {variable} on {unit}: {shown} (by {by})"
                        )),
                    ])
                })(),
            )
        });
    }

    /// Take back the annotator's latest final value.
    pub fn undo_final(&mut self) {
        self.undo_role(crate::store::values::Role::Final);
    }

    /// Whether the reliability report is for the codes as they stand now.
    pub fn reliability_current(&self) -> bool {
        self.reliability_of == Some(self.codes_generation)
    }

    /// Ask for the reliability report of the codes as they stand, unless it was asked for
    /// them already (`force`: again anyway).
    pub fn compute_reliability(&mut self, force: bool) {
        let of = self.codes_generation;
        if !force && self.reliability_asked == Some(of) {
            return;
        }
        self.reliability_asked = Some(of);
        self.send(move |st| {
            replies(
                "Computing the agreement",
                project::reliability_report(&st.project)
                    .map(|r| vec![Reply::Reliability(Arc::new(r), of)]),
            )
        });
    }

    /// Decide `code` on one page: applied, removed, or (none) no decision of its own.
    pub fn code_page(&mut self, page: PageId, code: CodeId, applied: Option<bool>) {
        let by = self.annotator.clone();
        self.code_command("Coding the page", move |st| {
            let what = format!("the decision on page {page}");
            st.project
                .logged_code_edit(&by, &what, &[code], |p| match applied {
                    Some(a) => p.code_page(page, code, a, &by),
                    None => p.clear_page_code(page, code),
                })?;
            Ok(Some(CodeUndo { what, by }))
        });
    }

    /// Record that page `derived` derives from `source` as `class`, decided by the annotator.
    pub fn set_derivation(
        &mut self,
        source: PageId,
        derived: PageId,
        class: crate::passages::Derivation,
    ) {
        let by = self.annotator.clone();
        self.send(move |st| {
            replies(
                "Recording the derivation",
                (|| {
                    st.project.set_derivation(source, derived, class, &by, "")?;
                    Ok(vec![
                        Reply::Derivations(Arc::new(st.project.derivations()?)),
                        Reply::Notice(format!("Recorded: {} ({by})", class.label())),
                    ])
                })(),
            )
        });
    }

    /// The coders' class of the pair of pages `a` and `b` (either way round), with who decided.
    pub fn derivation_of(
        &self,
        a: PageId,
        b: PageId,
    ) -> Option<&crate::store::derivations::DerivationRow> {
        self.derivations
            .iter()
            .find(|d| (d.source == a && d.derived == b) || (d.source == b && d.derived == a))
    }

    /// Give `code` to the undecided members of a cluster of a stored run (reconciling after a
    /// re-run); undoable like any code edit.
    pub fn extend_code(&mut self, run: RunId, cluster: i64, code: CodeId) {
        let by = self.annotator.clone();
        self.code_command("Extending the code", move |st| {
            let what = format!("extending the code in cluster {cluster} of run {run}");
            st.project.logged_code_edit(&by, &what, &[code], |p| {
                p.propagate_code(run, cluster, code, &by)
            })?;
            Ok(Some(CodeUndo { what, by }))
        });
    }

    /// Write the current sample (one row per label, with settlements and stratum weights) to
    /// `path`, as `samecore export pairs` does.
    pub fn export_sample(&mut self, path: PathBuf) {
        let Some(sample) = self.sample.as_ref().map(|s| s.info.id) else {
            self.notes
                .push("Choose a sample in the Labels tab first".into());
            return;
        };
        self.send(move |st| {
            let written = crate::export::pair_rows(&st.project, sample)
                .and_then(|rows| crate::export::write_file(&rows, &path, None));
            match written {
                Ok(n) => vec![Reply::Notice(format!(
                    "{n} rows written to {}",
                    path.display()
                ))],
                Err(e) => vec![Reply::Failed(format!("Export failed: {e}"))],
            }
        });
    }

    /// Read the codebook and the reconciliation with the latest run again.
    pub fn refresh_codes(&mut self) {
        self.code_command("Comparing codes with the latest run", |_| Ok(None));
    }

    /// Undo the latest code edit made in this window (through the project's code log, so the
    /// decisions come back exactly, provenance included; the command line's `samecore code
    /// undo` uses the same log).
    pub fn undo_code(&mut self) {
        let Some(undo) = self.code_undo.pop() else {
            return;
        };
        self.send(move |st| {
            replies(
                "Undoing the code edit",
                (|| {
                    let undone = st.project.undo_code_edit(&undo.by)?;
                    Ok(vec![
                        Reply::Codes(Arc::new(project::code_snapshot(&st.project)?)),
                        Reply::Notice(match undone {
                            Some(what) => format!("Undone: {what}"),
                            None => format!("Nothing of {}'s to undo", undo.by),
                        }),
                    ])
                })(),
            )
        });
    }

    /// Take what the actor and the dialog sent since the last frame.
    pub fn poll(&mut self, waker: Option<Waker>) -> Polled {
        let mut out = Polled {
            messages: std::mem::take(&mut self.notes),
            ..Polled::default()
        };
        if let Some(picked) = self.dialog.as_ref().and_then(PendingDialog::poll) {
            self.dialog = None;
            if let Some(path) = picked.into_iter().next() {
                self.open(path, waker);
            }
        }
        let mut changed_elsewhere = false;
        let replies = self
            .actor
            .as_mut()
            .map(StoreActor::poll)
            .unwrap_or_default();
        for reply in replies {
            match reply {
                Reply::Opened(path) => {
                    if let Some(msg) = self.recent.push(std::slice::from_ref(&path)) {
                        out.messages.push(msg);
                    }
                    self.opened = Some(path);
                    self.sent.clear();
                    out.opened = true;
                }
                Reply::Restore(state, missing) => {
                    if !missing.is_empty() {
                        out.messages.push(format!(
                            "Archives of this project not found: {} (if they moved: samecore \
                             relocate --project {} FOLDER)",
                            missing.join(", "),
                            self.opened
                                .as_deref()
                                .map(|p| p.display().to_string())
                                .unwrap_or_default()
                        ));
                    }
                    self.kept_state = Some((*state).clone());
                    out.restore = Some(state);
                }
                Reply::OpenFailed(msg) => {
                    self.close();
                    out.messages.push(msg);
                }
                Reply::Saved { algo, run, pages } => {
                    self.generation += 1;
                    self.pages = Some(pages);
                    self.saved_runs.push((algo, run));
                }
                Reply::Samples(s) => {
                    self.generation += 1;
                    self.samples = s;
                }
                Reply::Sample(s) => {
                    self.generation += 1;
                    self.sample = Some(s);
                }
                Reply::Curves(c) => self.curves = Some(c),
                Reply::Codes(c) => {
                    self.codes = c;
                    self.codes_generation += 1;
                }
                Reply::Reliability(r, of) => {
                    self.reliability = Some(r);
                    self.reliability_of = Some(of);
                }
                Reply::Derivations(d) => self.derivations = d,
                Reply::Merged(r) => self.merged = Some(r),
                Reply::CodeEdited(u) => self.code_undo.push(u),
                Reply::LabelUndone(p) => {
                    out.messages.push(match p {
                        Some(p) => format!("Undone: your label of pair {}", p + 1),
                        None => "Nothing to undo".into(),
                    });
                    out.undone = p;
                }
                Reply::Failed(msg) | Reply::Notice(msg) => out.messages.push(msg),
                Reply::ChangedElsewhere => changed_elsewhere = true,
            }
        }
        if changed_elsewhere {
            self.reload_after_outside_edit();
            out.messages
                .push("The project file was changed by another samecore: reloaded".into());
        }
        out
    }

    /// Read again what is shown of the project: its samples, the open sample's labels, the
    /// codebook and codes (another samecore wrote to the file).
    fn reload_after_outside_edit(&mut self) {
        self.send(|st| {
            replies(
                "Reloading the project",
                st.project.samples().map(|s| vec![Reply::Samples(s)]),
            )
        });
        if let Some(id) = self.sample.as_ref().map(|s| s.info.id) {
            self.select_sample(id);
        }
        self.refresh_codes();
    }
}
