//! The [`View`] trait every tab of the central panel implements, in the spirit of
//! egui_demo_lib's `View`: one `ui` signature, the app's state handed over in a
//! [`ViewContext`], and what the person asked for collected as [`Action`]s that the app applies
//! at the end of the frame. A view never changes the app directly and never starts work.

use std::collections::BTreeMap;

use super::action::{Action, PreviousRun};
use super::jobs::{JobKind, Jobs};
use super::model::pair::PairComparison;
use super::model::vocabulary::WordStat;
use super::model::{AlgoRun, Workspace};
use super::session::ProjectSession;
use crate::detectors::Algo;

/// What a tab may read of the app for one frame, and where it leaves its actions.
pub struct ViewContext<'a> {
    /// The open archives.
    pub workspace: &'a Workspace,
    /// The detector runs, and which one is shown.
    pub runs: &'a [AlgoRun],
    /// Index of the run whose clusters are shown.
    pub active: usize,
    /// Each detector's metrics and curves before the last run.
    pub previous: &'a BTreeMap<Algo, PreviousRun>,
    /// The pair compared in the pair view, when its comparison is ready.
    pub pair: Option<&'a PairComparison>,
    /// Corpus word statistics, when computed.
    pub vocab: Option<&'a [WordStat]>,
    /// The capture histories, when found.
    pub history: Option<&'a crate::history::Index>,
    /// The selected cluster's reuse shares, when computed.
    pub shares: Option<&'a super::model::shares::ClusterShares>,
    /// The running jobs (for "working…" states).
    pub jobs: &'a Jobs,
    /// The project file's state (labels, codes, samples).
    pub project: &'a mut ProjectSession,
    /// Whether the pair view must hide scores (a blind sample is being labelled).
    pub blind: bool,
    /// What the view asks the app to do, applied after drawing.
    pub actions: Vec<Action>,
}

impl ViewContext<'_> {
    /// Whether a job of `kind` is running.
    pub fn busy(&self, kind: JobKind) -> bool {
        self.jobs.is_running(kind)
    }

    /// Ask the app for `action`.
    pub fn ask(&mut self, action: Option<Action>) {
        self.actions.extend(action);
    }
}

/// A tab of the central panel.
pub trait View {
    /// Draw the tab into `ui` from `cx`, leaving what the person asked for in `cx.actions`.
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>);
}

/// Make the labels of `ui` plain text that does not take clicks, so a click on a table cell's
/// text selects its row (egui's labels are selectable text by default, which eats the click).
/// Call it on a child `Ui` (a scope or a scroll area), so the rest of the view keeps
/// selectable labels.
pub fn rows_take_clicks(ui: &mut egui::Ui) {
    ui.style_mut().interaction.selectable_labels = false;
}
