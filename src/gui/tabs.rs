//! The central panel: the tab bar and the current tab's [`View`] — with the codebook beside the
//! clusters and the labelling bar over the pair view when a sample is being labelled.
//!
//! In: the [`Workbench`] state and the person's clicks and keys. Out: [`Action`]s queued for
//! the end of the frame.

use egui::Key;

use super::action::{Action, Tab};
use super::app::Workbench;
use super::view::{View, ViewContext};
use crate::DocId;
use crate::gui::model::Workspace;

impl Workbench {
    pub(super) fn central(&mut self, ui: &mut egui::Ui) {
        let Some(ws) = self.workspace.clone() else {
            self.welcome(ui);
            return;
        };
        self.tab_bar(ui);
        ui.separator();
        self.pair_keys(ui);
        let blind = match self.tab {
            // The codebook takes room only when there is a project to code in.
            Tab::Clusters if self.project.is_open() => {
                self.codebook_beside_clusters(ui, &ws);
                false
            }
            Tab::Pair => self.labelling_bar(ui),
            _ => false,
        };
        let Workbench {
            documents,
            clusters,
            pair_view,
            plots,
            tuning,
            labels,
            reliability,
            codebook_editor,
            project,
            runs,
            active,
            previous,
            pair,
            vocab,
            history,
            shares,
            jobs,
            tab,
            ..
        } = self;
        let mut cx = ViewContext {
            workspace: &ws,
            runs,
            active: *active,
            previous,
            pair: pair.as_deref(),
            vocab: vocab.as_deref().map(Vec::as_slice),
            history: history.as_deref(),
            shares: shares.as_deref(),
            jobs,
            project,
            blind,
            actions: Vec::new(),
        };
        let view: &mut dyn View = match tab {
            Tab::Documents => documents,
            Tab::Clusters => clusters,
            Tab::Pair => pair_view,
            Tab::Plots => plots,
            Tab::Antecedents => tuning,
            Tab::Labels => labels,
            Tab::Reliability => reliability,
            Tab::Codebook => codebook_editor,
        };
        view.ui(ui, &mut cx);
        let asked = cx.actions;
        self.actions.extend(asked);
    }

    /// The tabs, with Alt+1…8 on hover.
    fn tab_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            for (i, tab) in Tab::ALL.into_iter().enumerate() {
                let r = ui
                    .selectable_label(self.tab == tab, tab.label())
                    .on_hover_text(format!("Alt+{}", i + 1));
                if r.clicked() {
                    self.tab = tab;
                }
            }
        });
    }

    /// J / K in the pair view step through the selected cluster's members.
    fn pair_keys(&mut self, ui: &mut egui::Ui) {
        if self.tab != Tab::Pair || self.labels.labelling || ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        let (down, up) = ui.input(|i| (i.key_pressed(Key::J), i.key_pressed(Key::K)));
        if (down || up)
            && let Some(run) = self.runs.get(self.active)
            && let Some((a, b)) = self.clusters.step_member(run, if down { 1 } else { -1 })
        {
            self.actions.push(Action::Compare(a, b));
        }
    }

    /// The codebook on the right of the Clusters tab, for the selected cluster and member.
    fn codebook_beside_clusters(&mut self, ui: &mut egui::Ui, ws: &Workspace) {
        let run = self.runs.get(self.active);
        let selected = run.and_then(|r| self.clusters.selected(r));
        let member = selected.and_then(|(_, m)| m).map(|d: DocId| {
            let title = ws.collection.docs[d.index()]
                .title
                .as_deref()
                .unwrap_or("(untitled)")
                .to_string();
            (d, title)
        });
        // The project's run of the active detector, where story values are kept.
        let project_run = run.and_then(|r| self.project.project_run(r.algo));
        let panel = egui::Panel::right("codebook")
            .resizable(true)
            .default_size(230.0)
            .size_range(200.0..=360.0)
            .show(ui, |ui| {
                self.codebook.ui(
                    ui,
                    &self.project,
                    selected.map(|(c, _)| c),
                    member,
                    project_run,
                )
            });
        self.actions
            .extend(panel.inner.into_iter().map(Action::Project));
        if let Some(id) = self.codebook.goto.take() {
            self.actions.push(Action::SelectCluster(id));
        }
        // Tables wider than what the codebook leaves are cut here, so they can neither cover
        // nor catch the clicks of the codebook's buttons.
        ui.shrink_clip_rect(ui.available_rect_before_wrap());
    }

    /// While a sample is labelled, its bar over the pair view; whether the sample is blind.
    fn labelling_bar(&mut self, ui: &mut egui::Ui) -> bool {
        if !self.labels.labelling {
            return false;
        }
        let Some(s) = self.project.sample.clone() else {
            return false;
        };
        // Verdicts go to the sample pair only while it is the pair shown; a pair still being
        // compared counts as not shown.
        let shown = self.pair.as_ref().map(|p| (p.a, p.b));
        let on_pair = match (shown, self.labels.pair_docs) {
            (Some((a, b)), Some((x, y))) => (a, b) == (x, y) || (a, b) == (y, x),
            _ => false,
        };
        if !on_pair {
            let asked = self.labels.elsewhere_bar(ui, &s);
            self.actions.extend(asked.into_iter().map(Action::Project));
            // A blind sample stays blind while labelling, whatever pair is shown (the last
            // pair stays on screen while the next one is compared).
            return s.info.blind;
        }
        let asked = self.labels.bar(ui, &s);
        self.actions.extend(asked.into_iter().map(Action::Project));
        s.info.blind
    }
}
