//! The workbench state and its frame: top bar (open, run, progress, cancel), side panel
//! (inputs, what reading them reported, the run settings), central panel (the current tab).
//!
//! Every piece of work is a [`Job`] started here and polled at the top of each frame; views
//! only draw the immutable results (`Arc`s) and return what the person asked for as
//! [`Action`]s, applied at the end of the frame.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use egui::{Key, KeyboardShortcut, Modifiers};

use super::action::{Action, PreviousRun, Tab};
use super::clusters::ClustersView;
use super::codebook::CodebookPanel;
use super::documents::DocumentsView;
use super::export::ExportWhat;
use super::jobs::{JobKind, JobOutput, Jobs};
use super::labelling::LabelsView;
use super::open::{DialogKind, PendingDialog};
use super::pair_view::PairView;
use super::plots::PlotsView;
use super::recent::Recent;
use super::run_panel::RunSettings;
use super::session::ProjectSession;
use super::tuning::TuningView;
use crate::DocId;
use crate::detectors::Algo;
use crate::eval::sweep::SweepRow;
use crate::gui::model::pair::PairComparison;
use crate::gui::model::vocabulary::WordStat;
use crate::gui::model::workspace::{self, AlgoRun, RunReport, Workspace};
use crate::progress::Progress;

/// Open archives (Ctrl+O).
pub const SHORTCUT_OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
/// Hide or show the side panel (Ctrl+B).
pub const SHORTCUT_SIDE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::B);
/// Run the chosen detectors (F5).
pub const SHORTCUT_RUN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::F5);
/// Cancel the running job (Escape).
pub const SHORTCUT_CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);
/// The tail of the message that counts reading warnings (replaced when another corpus loads).
const READ_WARNINGS: &str = "warning(s) while reading; see the Inputs panel";

/// Show or hide the keyboard help (F1).
pub const SHORTCUT_HELP: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::F1);

use super::project::Waker;

/// The whole app state.
/// How long a message stays in the messages bar before it moves to the earlier messages.
const MESSAGE_LIFETIME: Duration = Duration::from_secs(15);

/// Earlier messages kept.
const EARLIER_MESSAGES: usize = 200;

pub struct Workbench {
    pub(super) waker: Option<Waker>,
    pub(super) inputs: Vec<PathBuf>,
    /// The running jobs (load, run, sweep, re-cluster, pair, word statistics).
    pub(super) jobs: Jobs,
    pub(super) workspace: Option<Arc<Workspace>>,
    pub(super) settings: RunSettings,
    /// The detectors the running sweep is for, in its order.
    sweep_algos: Vec<Algo>,
    pub(super) runs: Vec<AlgoRun>,
    pub(super) active: usize,
    pub(super) pair: Option<Arc<PairComparison>>,
    pub(super) vocab: Option<Arc<Vec<WordStat>>>,
    /// Capture histories of the open archives, when found.
    pub(super) history: Option<Arc<crate::history::Index>>,
    /// The last cluster's reuse shares.
    pub(super) shares: Option<Arc<super::model::shares::ClusterShares>>,
    /// The project's search index and stories, kept across searches.
    search_cache: super::search::SearchCache,
    /// Errors and notices for the person, newest last; shown until dismissed.
    pub(super) messages: Vec<String>,
    /// When each message of `messages` was first shown.
    pub(super) message_times: Vec<std::time::Instant>,
    /// Messages shown long enough, kept to look back at (most recent last).
    pub(super) earlier_messages: Vec<String>,
    /// How long a message stays in the messages bar.
    pub(super) message_lifetime: Duration,
    /// Whether the pointer was over the messages bar last frame (messages wait while read).
    pub(super) messages_hovered: bool,
    pub(super) path_input: String,
    dialog: Option<PendingDialog>,
    export_dialog: Option<(ExportWhat, PendingDialog)>,
    /// The export asked for and the path typed for it (the Export window).
    export_prompt: Option<(ExportWhat, String)>,
    pub(super) tab: Tab,
    pub(super) documents: DocumentsView,
    pub(super) clusters: ClustersView,
    pub(super) pair_view: PairView,
    pub(super) plots: PlotsView,
    pub(super) tuning: TuningView,
    pub(super) show_help: bool,
    pub(super) actions: Vec<Action>,
    pub(super) recent: Recent,
    /// Each detector's metrics and curves before the last run, to show what a change did.
    pub(super) previous: BTreeMap<Algo, PreviousRun>,
    /// The project file (labels, codes) and what the store actor last sent.
    pub(super) project: ProjectSession,
    /// The Labels tab and the labelling bar.
    pub(super) labels: LabelsView,
    pub(super) reliability: super::reliability::ReliabilityView,
    pub(super) codebook_editor: super::codebook_editor::CodebookEditor,
    /// A coder's package being coded (the coding-only view), if one is open.
    pub(super) package: Option<super::package_view::PackageView>,
    /// The Coders' packages section of the project panel.
    pub(super) package_form: super::project_panel::PackageForm,
    /// The window title last set.
    window_title: Option<String>,
    /// The side panel is hidden (Ctrl+B), leaving its width to the tab.
    pub(super) side_hidden: bool,
    pub(super) codebook: CodebookPanel,
    /// SpotSigs' parameters a reopened project brought, applied when its archives are loaded.
    pub(super) restored_params: Option<crate::signature::SpotSigsParams>,
    /// The open workspace's inputs as absolute paths (what a project keeps).
    pub(super) absolute_inputs: Vec<PathBuf>,
}

impl Workbench {
    /// A workbench with nothing open. `sync_jobs` runs every job to completion inside the
    /// frame that starts it — only for tests.
    pub fn new(sync_jobs: bool) -> Self {
        Workbench {
            waker: None,
            inputs: Vec::new(),
            jobs: Jobs::new(sync_jobs),
            workspace: None,
            settings: RunSettings::default(),
            sweep_algos: Vec::new(),
            runs: Vec::new(),
            active: 0,
            pair: None,
            vocab: None,
            history: None,
            shares: None,
            search_cache: Default::default(),
            messages: Vec::new(),
            message_times: Vec::new(),
            earlier_messages: Vec::new(),
            message_lifetime: MESSAGE_LIFETIME,
            messages_hovered: false,
            path_input: String::new(),
            dialog: None,
            export_dialog: None,
            export_prompt: None,
            tab: Tab::Documents,
            documents: DocumentsView::default(),
            clusters: ClustersView::default(),
            pair_view: PairView::default(),
            plots: PlotsView::default(),
            tuning: TuningView::default(),
            show_help: false,
            actions: Vec::new(),
            recent: Recent::default(),
            previous: BTreeMap::new(),
            project: ProjectSession::new(sync_jobs),
            labels: LabelsView::default(),
            reliability: Default::default(),
            codebook_editor: Default::default(),
            package: None,
            package_form: Default::default(),
            window_title: None,
            side_hidden: false,
            codebook: CodebookPanel::default(),
            restored_params: None,
            absolute_inputs: Vec::new(),
        }
    }

    /// Remember opened archives in `file` (see [`super::recent`]); tests keep none.
    pub fn with_recent_file(mut self, file: Option<PathBuf>) -> Self {
        self.project.recent = Recent::load(
            file.as_ref()
                .map(|f| f.with_file_name("recent-projects.json")),
        );
        self.recent = Recent::load(file);
        self
    }

    /// Install the closure that makes the window repaint when a job has news.
    pub fn set_waker(&mut self, waker: impl Fn() + Send + Sync + 'static) {
        let waker: Waker = Arc::new(waker);
        self.jobs.set_waker(waker.clone());
        self.waker = Some(waker);
    }

    /// Start loading `paths` (replacing what is open).
    pub fn open(&mut self, paths: Vec<PathBuf>) {
        if paths.is_empty() {
            return;
        }
        // A coder's package opens in its coding-only view.
        if let [one] = paths.as_slice()
            && crate::package::is_package(one)
        {
            self.open_package(one);
            return;
        }
        // The Spark job's output becomes a run of the archives already open.
        if let [one] = paths.as_slice()
            && let Some(pairs) = workspace::spark_pairs_path(one)
        {
            self.import_spark_run(pairs);
            return;
        }
        // SpotSigs signs every page while it is read, with the antecedents the run after the
        // opening will use, so that run reads nothing again.
        let request = self
            .settings
            .request(&TuningView::with_params(self.params_for(&paths)));
        let sign = request
            .algos
            .contains(&Algo::SpotSigs)
            .then_some(request.options);
        self.cancel_all();
        self.inputs = paths.clone();
        self.jobs.start(JobKind::Load, move |p| {
            let options = crate::session::OpenOptions {
                sign,
                ..Default::default()
            };
            Workspace::open(&paths, &options, p).map(|ws| JobOutput::Load(Arc::new(ws)))
        });
        self.poll_jobs();
    }

    /// Bring the Spark job's pairs in as the SpotSigs run of the open workspace (and, with a
    /// project open, as a stored run).
    pub fn import_spark_run(&mut self, pairs: PathBuf) {
        let Some(ws) = self.workspace.clone() else {
            self.messages.push(
                "Open the archives the shards were signed from first, then the Spark run".into(),
            );
            return;
        };
        self.start_run(move |p| workspace::import_spark_run(&ws, &pairs, p));
    }

    /// Run the detectors chosen in the run settings on the open workspace.
    pub fn run_detectors(&mut self) {
        let Some(ws) = self.workspace.clone() else {
            self.messages.push("Open an archive first".into());
            return;
        };
        let request = self.settings.request(&self.tuning);
        if request.algos.is_empty() {
            self.messages.push("Choose at least one detector".into());
            return;
        }
        // Checked before any detector runs: a missing list would fail the whole run at the end.
        if request.algos.contains(&Algo::SpotSigsReference)
            && !request
                .options
                .spotsigs_reference
                .stopwords_file()
                .is_some_and(|f| f.is_file())
        {
            self.messages.push(
                "spotsigs-reference needs the published SpotSigs code's stopwords.txt, which \
                 samecore does not ship: give your copy in the Run panel's \"Its stopwords.txt\" \
                 (nothing was run)"
                    .into(),
            );
            return;
        }
        self.start_run(move |p| workspace::run_detectors(&ws, &request, p));
    }

    /// Run SpotSigs alone with the current antecedents: its run replaces SpotSigs' run shown,
    /// the other detectors' runs stay (and are not stored again).
    pub fn run_spotsigs(&mut self) {
        let Some(ws) = self.workspace.clone() else {
            self.messages.push("Open an archive first".into());
            return;
        };
        let mut request = self.settings.request(&self.tuning);
        request.algos = vec![Algo::SpotSigs];
        self.start_run(move |p| {
            workspace::run_detectors(&ws, &request, p).map(|mut r| {
                r.partial = true;
                r
            })
        });
    }

    /// Start a job that makes runs, and what changed against the runs shown.
    fn start_run(
        &mut self,
        make: impl FnOnce(&crate::progress::Progress) -> crate::Result<RunReport> + Send + 'static,
    ) {
        self.jobs.cancel(JobKind::Sweep);
        let old = self.runs.clone();
        self.jobs.start(JobKind::Run, move |p| {
            let report = make(p)?;
            let changes = old
                .iter()
                .filter_map(|o| {
                    let new = report.runs.iter().find(|r| r.algo == o.algo)?;
                    Some((o.algo, crate::gui::model::changes::between(o, new)))
                })
                .collect();
            Ok(JobOutput::Run(Arc::new(report), changes))
        });
        self.poll_jobs();
    }

    /// Compute the precision/recall curves of the current runs (when gold is known).
    fn start_sweep(&mut self) {
        let Some(ws) = self.workspace.clone() else {
            return;
        };
        if !ws.has_gold() || self.runs.is_empty() {
            return;
        }
        let runs = self.runs.clone();
        let (thresholds, seeds) =
            super::run_panel::sweep_plan(ws.collection.docs.len(), self.settings.runs);
        self.sweep_algos = runs.iter().map(|r| r.algo).collect();
        self.jobs.start(JobKind::Sweep, move |p| {
            workspace::sweep_runs(&ws, &runs, &thresholds, seeds, p).map(JobOutput::Sweep)
        });
    }

    /// Re-cluster the active detector's run at `threshold`.
    pub fn set_threshold(&mut self, threshold: f64) {
        let (Some(ws), Some(run)) = (self.workspace.clone(), self.runs.get(self.active).cloned())
        else {
            return;
        };
        self.settings.thresholds.insert(run.algo, threshold);
        // The run is already at this threshold (a plot click can ask twice): re-clustering
        // again would only replace what the change did with "nothing changed".
        if (run.detection.spec.matching.threshold - threshold).abs() < 1e-12 {
            return;
        }
        self.jobs.start(JobKind::Rerun, move |p| {
            let new = workspace::rerun_at(&ws, &run, threshold, p)?;
            let changes = crate::gui::model::changes::between(&run, &new);
            Ok(JobOutput::Rerun(Arc::new(new), changes))
        });
        self.poll_jobs();
    }

    /// Compare two documents in the pair view.
    pub fn compare(&mut self, a: DocId, b: DocId) {
        let Some(ws) = self.workspace.clone() else {
            return;
        };
        let params = self.tuning.params.clone();
        let runs = self.runs.clone();
        self.jobs.start(JobKind::Pair, move |_| {
            crate::gui::model::pair::compare(&ws, a, b, &params, &runs, Duration::from_millis(250))
                .map(|c| JobOutput::Pair(Arc::new(c)))
        });
        self.poll_jobs();
    }

    /// The open workspace, once loading finished.
    pub fn workspace(&self) -> Option<&Arc<Workspace>> {
        self.workspace.as_ref()
    }

    /// The detector runs shown (after a run finished).
    pub fn runs(&self) -> &[AlgoRun] {
        &self.runs
    }

    /// The run whose clusters are shown.
    pub fn active_run(&self) -> Option<&AlgoRun> {
        self.runs.get(self.active)
    }

    /// Each detector's metrics and curves before the last run.
    pub fn previous(&self) -> &BTreeMap<Algo, PreviousRun> {
        &self.previous
    }

    /// The pair shown in the pair view.
    pub fn pair(&self) -> Option<&Arc<PairComparison>> {
        self.pair.as_ref()
    }

    /// Where the Clusters tab's timeline drew each member of the selected cluster in the last
    /// frame (empty while the members table is shown).
    pub fn timeline_marks(&self) -> &[(DocId, egui::Pos2)] {
        self.clusters.timeline_marks()
    }

    /// The number of the selected cluster of the shown run, if any.
    pub fn selected_cluster(&self) -> Option<u32> {
        self.runs
            .get(self.active)
            .and_then(|r| self.clusters.selected(r))
            .map(|(id, _)| id)
            .or(self.clusters.pending_selection())
    }

    /// The SpotSigs parameters of the next run (the Antecedents tab edits them).
    pub fn spotsigs_params(&self) -> &crate::signature::SpotSigsParams {
        &self.tuning.params
    }

    /// The SpotSigs parameters, to change as the Antecedents tab does (tests).
    #[doc(hidden)]
    pub fn spotsigs_params_mut(&mut self) -> &mut crate::signature::SpotSigsParams {
        &mut self.tuning.params
    }

    /// Open the coder's package at `path` in the coding-only view.
    pub fn open_package(&mut self, path: &std::path::Path) {
        match super::package_view::PackageView::open(path) {
            Ok(view) => {
                self.messages.push(format!(
                    "{}: {} opened for coding",
                    view.title(),
                    path.display()
                ));
                self.package = Some(view);
            }
            Err(e) => self
                .messages
                .push(format!("Cannot open the package {}: {e}", path.display())),
        }
    }

    /// The window's title as last set (tests).
    pub fn window_title_text(&self) -> Option<&str> {
        self.window_title.as_deref()
    }

    /// The open package's title ("Round r1 for ana"), if one is open.
    pub fn package_title(&self) -> Option<String> {
        self.package.as_ref().map(|p| p.title())
    }

    /// Show `message` in the messages bar.
    pub fn note(&mut self, message: String) {
        self.messages.push(message);
    }

    /// Messages shown to the person (errors, notices), oldest first.
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// The messages that left the messages bar, most recent last.
    pub fn earlier_messages(&self) -> &[String] {
        &self.earlier_messages
    }

    /// How long a message stays in the messages bar (tests shorten it).
    pub fn set_message_lifetime(&mut self, lifetime: Duration) {
        self.message_lifetime = lifetime;
    }

    /// Move the messages shown for longer than their lifetime to the earlier messages, unless
    /// the pointer is over the messages bar (someone is reading).
    fn age_messages(&mut self, ctx: &egui::Context, reading: bool) {
        let now = std::time::Instant::now();
        self.message_times.truncate(self.messages.len());
        self.message_times.resize(self.messages.len(), now);
        if reading {
            return;
        }
        let lifetime = self.message_lifetime;
        let mut k = 0;
        while k < self.messages.len() {
            if now.duration_since(self.message_times[k]) >= lifetime {
                self.earlier_messages.push(self.messages.remove(k));
                self.message_times.remove(k);
            } else {
                k += 1;
            }
        }
        let excess = self.earlier_messages.len().saturating_sub(EARLIER_MESSAGES);
        self.earlier_messages.drain(..excess);
        if !self.messages.is_empty() {
            ctx.request_repaint_after(Duration::from_millis(500));
        }
    }

    /// The current tab.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// Start a job whose work panics, as a detector with a bug would: for the test that such a
    /// job ends as an error on screen instead of leaving the app busy.
    #[doc(hidden)]
    pub fn start_panicking_job(&mut self) {
        self.jobs
            .start(JobKind::Run, |_| panic!("injected failure of a detector"));
    }

    /// Whether a job is running.
    pub fn is_busy(&self) -> bool {
        self.jobs.is_busy()
    }

    fn cancel_all(&mut self) {
        self.jobs.cancel_all();
    }

    pub(super) fn progresses(&self) -> Vec<Progress> {
        self.jobs.progresses()
    }

    fn failed(&mut self, what: &str, e: crate::Error) {
        match e {
            crate::Error::Cancelled => self.messages.push(format!("{what} cancelled")),
            e => self.messages.push(format!("{what} failed: {e}")),
        }
    }

    fn poll_jobs(&mut self) {
        self.poll_project();
        for (kind, result) in self.jobs.finished() {
            match result {
                Ok(output) => self.job_finished(&output),
                Err(e) => {
                    if kind == JobKind::Search {
                        self.clusters.search.failed();
                    }
                    self.failed(kind.what(), e)
                }
            }
        }
        if let Some(paths) = self.dialog.as_ref().and_then(|d| d.poll()) {
            self.dialog = None;
            self.open(paths);
        }
        // The native dialog fills the Export window's path; the person presses Export.
        if let Some(paths) = self.export_dialog.as_ref().and_then(|(_, d)| d.poll()) {
            self.export_dialog = None;
            if let (Some(path), Some((_, typed))) =
                (paths.into_iter().next(), &mut self.export_prompt)
            {
                *typed = path.display().to_string();
            }
        }
    }

    /// Take over what a job made.
    fn job_finished(&mut self, output: &JobOutput) {
        match output {
            JobOutput::Load(ws) => self.loaded(ws.clone()),
            JobOutput::Run(report, changes) => self.ran(report, changes),
            JobOutput::Sweep(sweeps) => self.swept(sweeps),
            JobOutput::Rerun(run, changes) => self.reclustered(run, changes),
            JobOutput::Pair(pair) => self.pair = Some(pair.clone()),
            JobOutput::Vocab(stats) => self.vocab = Some(stats.clone()),
            JobOutput::History(index) => self.history = Some(index.clone()),
            JobOutput::Shares(shares) => self.shares = Some(shares.clone()),
            JobOutput::Exported(message) => self.messages.push(message.clone()),
            JobOutput::Search(answer) => {
                if let Some(note) = &answer.report {
                    self.messages.push(note.clone());
                }
                self.clusters.search.answered(answer.clone());
            }
        }
    }

    /// The antecedents a run of `inputs` uses once they are open: a reopened project's own;
    /// the ones tuned now for the same inputs; the defaults for another corpus (antecedents and
    /// signature options are tuned for one corpus).
    fn params_for(&self, inputs: &[PathBuf]) -> crate::signature::SpotSigsParams {
        let other_corpus = self
            .workspace
            .as_ref()
            .is_some_and(|ws| ws.inputs != inputs);
        match &self.restored_params {
            Some(params) => params.clone(),
            None if other_corpus => crate::signature::SpotSigsParams::default(),
            None => self.tuning.params.clone(),
        }
    }

    fn loaded(&mut self, ws: Arc<Workspace>) {
        // The previous corpus's reading warnings do not belong to this one.
        self.messages.retain(|m| !m.ends_with(READ_WARNINGS));
        let warnings: usize = ws.collection.reports.iter().map(|r| r.warnings.len()).sum();
        if warnings > 0 {
            self.messages.push(format!("{warnings} {READ_WARNINGS}"));
        }
        let params = self.params_for(&ws.inputs);
        self.absolute_inputs = ws
            .inputs
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
            .collect();
        if self.restored_params.take().is_some() {
            self.tuning = TuningView::with_params(params);
        } else if params != self.tuning.params {
            // Another corpus: said, so nobody wonders where an edit went.
            self.tuning = TuningView::default();
            self.messages
                .push("Antecedents reset to the defaults for the new corpus".into());
        }
        if let Some(msg) = self.recent.push(&ws.inputs) {
            self.messages.push(msg);
        }
        self.documents = DocumentsView::default();
        // A reopened project's selection waits for the new archives' run.
        let pending = self.clusters.pending_selection();
        self.clusters = ClustersView::default();
        if let Some(id) = pending {
            self.clusters.select_when_shown(id);
        }
        self.previous.clear();
        self.runs.clear();
        self.pair = None;
        self.vocab = None;
        self.history = None;
        self.shares = None;
        self.workspace = Some(ws);
        self.labels.labelling = false;
        self.save_runs_to_project();
        if self.settings.run_on_open {
            self.run_detectors();
        }
    }

    fn ran(
        &mut self,
        report: &RunReport,
        changes: &[(Algo, Arc<crate::gui::model::changes::RunChanges>)],
    ) {
        for old in &self.runs {
            if report.partial && !report.runs.iter().any(|r| r.algo == old.algo) {
                continue;
            }
            let changed = changes
                .iter()
                .find(|(a, _)| *a == old.algo)
                .map(|(_, c)| c.clone());
            self.previous
                .insert(old.algo, PreviousRun::of(old, changed));
        }
        if report.partial {
            // One detector again: its run takes the place of its old one.
            for new in &report.runs {
                match self.runs.iter_mut().find(|r| r.algo == new.algo) {
                    Some(old) => *old = new.clone(),
                    None => self.runs.push(new.clone()),
                }
            }
        } else {
            self.runs = report.runs.clone();
        }
        self.active = self.active.min(self.runs.len().saturating_sub(1));
        self.clusters.reset();
        if self.tab == Tab::Documents {
            self.tab = Tab::Clusters;
        }
        self.save_runs_to_project();
        self.start_sweep();
        self.refresh_pair();
    }

    /// Compare the open pair again, so its similarity row shows every detector that ran and
    /// the clusters of the current threshold.
    fn refresh_pair(&mut self) {
        if let Some((a, b)) = self.pair.as_ref().map(|p| (p.a, p.b)) {
            self.compare(a, b);
        }
    }

    fn swept(&mut self, sweeps: &[Vec<SweepRow>]) {
        for (algo, rows) in self.sweep_algos.iter().zip(sweeps.iter()) {
            if let Some(run) = self.runs.iter_mut().find(|r| r.algo == *algo) {
                run.sweep = rows.clone();
            }
        }
    }

    fn reclustered(
        &mut self,
        run: &AlgoRun,
        changes: &Arc<crate::gui::model::changes::RunChanges>,
    ) {
        if let Some(slot) = self.runs.iter_mut().find(|r| r.algo == run.algo) {
            self.previous
                .insert(run.algo, PreviousRun::of(slot, Some(changes.clone())));
            // The curves do not depend on the threshold; keep what the sweep found.
            let sweep = std::mem::take(&mut slot.sweep);
            *slot = (*run).clone();
            slot.sweep = sweep;
        }
        self.clusters.reset();
        self.save_runs_to_project();
        self.refresh_pair();
    }

    pub(super) fn start_dialog(&mut self, folder: bool) {
        if self.dialog.is_some() {
            return;
        }
        let waker = self.waker.clone();
        let kind = if folder {
            DialogKind::Folder
        } else {
            DialogKind::Archives
        };
        self.dialog = Some(PendingDialog::start(kind, move || {
            if let Some(w) = &waker {
                w();
            }
        }));
    }

    fn apply(&mut self, action: Action) {
        match action {
            Action::Run => self.run_detectors(),
            Action::PaperMatching => self.settings.paper_matching(),
            Action::SetThreshold(t) => self.set_threshold(t),
            Action::SetActive(i) => {
                if i < self.runs.len() && i != self.active {
                    self.active = i;
                    self.clusters.reset();
                }
            }
            Action::Compare(a, b) => {
                self.compare(a, b);
                self.tab = Tab::Pair;
            }
            Action::WordStats => {
                if let Some(ws) = self.workspace.clone() {
                    let source = self.tuning.params.tokens;
                    self.jobs.start(JobKind::Vocab, move |p| {
                        crate::gui::model::vocabulary::word_stats(
                            &ws.collection.docs,
                            source,
                            5000,
                            300,
                            p,
                        )
                        .map(|v| JobOutput::Vocab(Arc::new(v)))
                    });
                    self.poll_jobs();
                }
            }
            Action::ClusterShares(members, dates) => {
                if let Some(ws) = self.workspace.clone() {
                    self.jobs.start(JobKind::Shares, move |p| {
                        super::model::shares::cluster_shares(&ws, &members, &dates, p)
                            .map(|s| JobOutput::Shares(Arc::new(s)))
                    });
                    self.poll_jobs();
                }
            }
            Action::RunSpotSigs => self.run_spotsigs(),
            Action::CaptureHistories => {
                if let Some(ws) = self.workspace.clone() {
                    self.jobs.start(JobKind::History, move |p| {
                        let opts = crate::history::HistoryOptions::default();
                        crate::history::histories(&ws.collection.docs, &opts, p)
                            .map(|h| JobOutput::History(Arc::new(crate::history::Index::new(h))))
                    });
                    self.poll_jobs();
                }
            }
            Action::Show(tab) => self.tab = tab,
            Action::Search(request) => {
                let cache = self.search_cache.clone();
                self.jobs.start(JobKind::Search, move |p| {
                    super::search::answer(&cache, request, p)
                        .map(|a| JobOutput::Search(Arc::new(a)))
                });
                self.poll_jobs();
            }
            Action::SelectCluster(id) => {
                self.clusters.select_when_shown(id);
                self.tab = Tab::Clusters;
            }
            Action::Project(a) => self.apply_project(a),
            Action::Export(what) => self.start_export_dialog(what),
            Action::OpenCapture(doc) => self.open_capture(doc, false),
            Action::OpenReplay(doc) => self.open_capture(doc, true),
        }
    }

    /// Open `doc` in the browser: its capture written inert to a temporary file, or (`replay`)
    /// the replay URL of the template; says what it did.
    fn open_capture(&mut self, doc: DocId, replay: bool) {
        let Some(d) = self
            .workspace
            .as_ref()
            .and_then(|ws| ws.collection.docs.get(doc.index()))
        else {
            return;
        };
        let target = if replay {
            match super::capture::replay_url(&self.settings.replay_template, d) {
                Some(url) => Ok(url),
                None => Err("this page has no URL to replay".to_string()),
            }
        } else {
            super::capture::write_capture(d)
                .map(|p| p.display().to_string())
                .map_err(|e| e.to_string())
        };
        let message = match target {
            Ok(t) => match super::capture::open_in_browser(&t) {
                Ok(()) => format!("Opened in the browser: {t}"),
                Err(e) => format!("Could not start the browser ({e}); open it yourself: {t}"),
            },
            Err(e) => format!("Cannot open the capture: {e}"),
        };
        self.messages.push(message);
    }

    /// Ask where to write an export in a save dialog (a helper thread; the answer is polled).
    /// Ask where to write `what`: the Export window, with a path to type (prefilled beside the
    /// project, else in the working folder) and the native dialog one click away. A desktop
    /// without a file-dialog portal still exports.
    pub(super) fn start_export_dialog(&mut self, what: ExportWhat) {
        let name = what.default_name(self.runs.get(self.active));
        let folder = self
            .project_path()
            .and_then(|p| p.parent().map(std::path::Path::to_path_buf))
            .filter(|p| !p.as_os_str().is_empty())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        self.export_prompt = Some((what, folder.join(name).display().to_string()));
    }

    /// The Export window: where to write, Export, the native dialog, Cancel.
    fn export_window(&mut self, ctx: &egui::Context) {
        let Some((what, path)) = self.export_prompt.as_mut() else {
            return;
        };
        let (mut export, mut browse, mut cancel) = (false, false, false);
        egui::Window::new("Export to a file")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                let label = ui.label("Write to (.csv, .tsv, .jsonl or .parquet):");
                let edit = ui
                    .add(
                        egui::TextEdit::singleline(path)
                            .desired_width(420.0)
                            .id_salt("export_path"),
                    )
                    .labelled_by(label.id);
                export = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                ui.horizontal(|ui| {
                    export |= ui.button("Export").clicked();
                    browse = ui
                        .button("Choose…")
                        .on_hover_text("The desktop's save dialog")
                        .clicked();
                    cancel = ui.button("Cancel").clicked();
                });
            });
        if cancel {
            self.export_prompt = None;
        } else if export && !path.trim().is_empty() {
            let what = what.clone();
            let path = PathBuf::from(path.trim());
            self.export_prompt = None;
            self.export_to(what, path);
        } else if browse && self.export_dialog.is_none() {
            let name = PathBuf::from(path.trim())
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let waker = self.waker.clone();
            let dialog = PendingDialog::start(DialogKind::Export(name), move || {
                if let Some(w) = &waker {
                    w();
                }
            });
            self.export_dialog = Some((what.clone(), dialog));
        }
    }

    /// Write `what` to `path` (format by its extension) and say how it went.
    pub fn export_to(&mut self, what: ExportWhat, path: PathBuf) {
        // No export replaces the project or an archive that is open.
        let mut inputs = crate::guard::Inputs::new().archives(&self.absolute_inputs);
        if let Some(project) = self.project_path() {
            inputs = inputs.project(project);
        }
        if let Err(e) = inputs.check(&path, "the export file") {
            self.messages.push(format!("Export refused: {e}"));
            return;
        }
        if what == ExportWhat::Sample {
            self.project.export_sample(path);
            self.poll_project();
            return;
        }
        if let ExportWhat::Search(answer) = &what {
            let (cache, request) = (self.search_cache.clone(), answer.request.clone());
            self.jobs.start(JobKind::Export, move |p| {
                let n = super::search::export(&cache, request, &path, p)?;
                Ok(JobOutput::Exported(format!(
                    "{n} matching pages written to {}",
                    path.display()
                )))
            });
            self.poll_jobs();
            return;
        }
        let (Some(ws), Some(run)) = (self.workspace.clone(), self.runs.get(self.active).cloned())
        else {
            self.messages
                .push("Nothing to export yet: run a detector first".into());
            return;
        };
        // A list of 100k clusters takes a while to write: off the UI thread, like every job.
        self.jobs.start(JobKind::Export, move |_| {
            super::export::write(&ws, &run, &what, &path).map(JobOutput::Exported)
        });
        self.poll_jobs();
    }

    /// Draw one frame into `ui` (the root ui of the window or a test harness).
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.window_title(ui.ctx());
        if self.package.is_some() {
            self.package_ui(ui);
            return;
        }
        self.poll_jobs();
        self.handle_keys(ui.ctx());
        self.handle_dropped_files(ui.ctx());
        self.export_window(ui.ctx());

        egui::Panel::top("top_bar").show(ui, |ui| self.top_bar(ui));
        self.age_messages(ui.ctx(), self.messages_hovered);
        // Set again by the messages bar when the pointer is over it.
        self.messages_hovered = false;
        if !self.messages.is_empty() || !self.earlier_messages.is_empty() {
            egui::Panel::bottom("messages").show(ui, |ui| self.messages_panel(ui));
        }
        // The side panel keeps between 220 and 380 px whatever a long file name asks for
        // (long names are cut, with the whole name on hover), so the central tab keeps its
        // width at 1024 px.
        let window = ui.ctx().content_rect().width();
        if ui.ctx().input_mut(|i| i.consume_shortcut(&SHORTCUT_SIDE)) {
            self.side_hidden = !self.side_hidden;
        }
        // Ctrl+K from any tab goes to the search bar over the cluster list (which takes the
        // key itself when it is drawn).
        if self.tab != Tab::Clusters
            && ui
                .ctx()
                .input(|i| i.modifiers.command && i.key_pressed(egui::Key::K))
        {
            self.tab = Tab::Clusters;
        }
        if !self.side_hidden {
            egui::Panel::left("side")
                .resizable(true)
                .default_size(260.0_f32.min(window * 0.26))
                .size_range(160.0..=380.0_f32.min(window * 0.4).max(160.0))
                .show(ui, |ui| {
                    egui::ScrollArea::vertical()
                        .id_salt("side_scroll")
                        .show(ui, |ui| {
                            self.inputs_panel(ui);
                            ui.separator();
                            self.project_section(ui);
                            ui.separator();
                            let has_ws = self.workspace.is_some();
                            if let Some(a) = self.settings.ui(
                                ui,
                                has_ws,
                                &self.runs,
                                self.active,
                                &self.previous,
                            ) {
                                self.actions.push(a);
                            }
                        });
                });
        }
        egui::CentralPanel::default().show(ui, |ui| self.central(ui));
        if self.show_help {
            self.help_window(ui.ctx());
        }
        for action in std::mem::take(&mut self.actions) {
            self.apply(action);
        }
        self.keep_state(ui.ctx());
    }

    /// The window's title names what is open and who is coding: `samecore — study.samecore —
    /// coding as ana`, or the package and its coder.
    fn window_title(&mut self, ctx: &egui::Context) {
        let title = match (&self.package, &self.project.opened) {
            (Some(p), _) => format!("samecore — package: {}", p.title()),
            (None, Some(path)) => {
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into(),
                );
                let who = self.project.annotator.trim();
                if who.is_empty() {
                    format!("samecore — {name}")
                } else {
                    format!("samecore — {name} — coding as {who}")
                }
            }
            (None, None) => "samecore".to_string(),
        };
        if self.window_title.as_deref() != Some(title.as_str()) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.window_title = Some(title);
        }
    }

    /// The coding-only view of a package: its bar, the messages, the view; nothing that needs
    /// the archive or the project.
    fn package_ui(&mut self, ui: &mut egui::Ui) {
        self.handle_dropped_files(ui.ctx());
        if ui.ctx().input_mut(|i| i.consume_shortcut(&SHORTCUT_HELP)) {
            self.show_help = !self.show_help;
        }
        self.age_messages(ui.ctx(), self.messages_hovered);
        self.messages_hovered = false;
        if !self.messages.is_empty() || !self.earlier_messages.is_empty() {
            egui::Panel::bottom("messages").show(ui, |ui| self.messages_panel(ui));
        }
        let outcome = egui::CentralPanel::default()
            .show(ui, |ui| self.package.as_mut().map(|p| p.ui(ui)))
            .inner;
        if let Some(outcome) = outcome {
            self.messages.extend(outcome.notes);
            if outcome.close {
                self.package = None;
            }
        }
        if self.show_help {
            self.help_window(ui.ctx());
        }
    }

    /// Keep what the workbench looks like in the open project (once it settles), so reopening
    /// the project brings it back. Not while archives are loading or a restore is pending:
    /// that state is on its way, not the person's.
    fn keep_state(&mut self, ctx: &egui::Context) {
        if self.jobs.is_running(JobKind::Load) || self.restored_params.is_some() {
            return;
        }
        let state = super::project::WorkbenchState {
            inputs: self.absolute_inputs.clone(),
            annotator: self.project.annotator.clone(),
            tab: self.tab,
            run: self.settings.clone(),
            spotsigs: self.tuning.params.clone(),
            cluster: self.selected_cluster(),
        };
        if let Some(wait) = self.project.keep_state(state) {
            ctx.request_repaint_after(wait);
        }
    }

    /// Come back to a reopened project's state: its annotator, run settings and tab, and its
    /// archives (loaded again when they are not the ones open) with its antecedents.
    pub(super) fn restore(&mut self, state: super::project::WorkbenchState) {
        if !state.annotator.trim().is_empty() {
            self.project.annotator = state.annotator.trim().to_string();
        }
        self.settings = state.run;
        self.tab = state.tab;
        if let Some(id) = state.cluster {
            self.clusters.select_when_shown(id);
        }
        let reload = !state.inputs.is_empty() && state.inputs != self.absolute_inputs;
        if reload {
            self.restored_params = Some(state.spotsigs);
            self.open(state.inputs);
        } else {
            self.tuning = TuningView::with_params(state.spotsigs);
        }
    }

    fn handle_keys(&mut self, ctx: &egui::Context) {
        let (open, run, cancel, help) = ctx.input_mut(|i| {
            (
                i.consume_shortcut(&SHORTCUT_OPEN),
                i.consume_shortcut(&SHORTCUT_RUN),
                i.consume_shortcut(&SHORTCUT_CANCEL),
                i.consume_shortcut(&SHORTCUT_HELP),
            )
        });
        if open {
            self.start_dialog(false);
        }
        if run {
            self.actions.push(Action::Run);
        }
        // Esc closes the key list first; with nothing open it cancels what is running.
        if cancel && self.show_help {
            self.show_help = false;
        } else if cancel {
            self.cancel_all();
        }
        if help {
            self.show_help = !self.show_help;
        }
        for (tab, key) in Tab::ALL.into_iter().zip(super::labelling::DIGITS) {
            if ctx.input_mut(|i| i.consume_key(Modifiers::ALT, key)) {
                self.tab = tab;
            }
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if !dropped.is_empty() {
            self.open(dropped);
        }
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui(ui);
    }
}
