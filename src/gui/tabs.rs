//! The central panel: the tab bar and the current tab's view — with the codebook beside the
//! clusters and the labelling bar over the pair view when a sample is being labelled.
//!
//! In: the [`Workbench`] state and the person's clicks and keys. Out: [`Action`]s queued for
//! the end of the frame.

use std::sync::Arc;

use egui::Key;

use super::action::{Action, Tab};
use super::app::Workbench;
use super::jobs::JobKind;
use crate::DocId;

impl Workbench {
    pub(super) fn central(&mut self, ui: &mut egui::Ui) {
        let Some(ws) = self.workspace.clone() else {
            self.welcome(ui);
            return;
        };
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
        ui.separator();
        if self.tab == Tab::Pair && !self.labels.labelling && !ui.ctx().egui_wants_keyboard_input()
        {
            let (down, up) = ui.input(|i| (i.key_pressed(Key::J), i.key_pressed(Key::K)));
            if (down || up)
                && let Some(run) = self.runs.get(self.active)
                && let Some((a, b)) = self.clusters.step_member(run, if down { 1 } else { -1 })
            {
                self.actions.push(Action::Compare(a, b));
            }
        }
        let run = self.runs.get(self.active);
        let action = match self.tab {
            Tab::Documents => {
                self.documents.ui(ui, &ws.collection);
                None
            }
            Tab::Clusters => {
                let selected = run.and_then(|r| self.clusters.selected(r));
                let member = selected.and_then(|(_, m)| m).map(|d| {
                    let title = ws.collection.docs[d.index()]
                        .title
                        .clone()
                        .unwrap_or_else(|| "(untitled)".into());
                    (d, title)
                });
                let panel = egui::Panel::right("codebook")
                    .resizable(true)
                    .default_size(230.0)
                    .show(ui, |ui| {
                        self.codebook
                            .ui(ui, &self.project, selected.map(|(c, _)| c), member)
                    });
                self.actions
                    .extend(panel.inner.into_iter().map(Action::Project));
                let (codes, pages) = (self.project.codes.clone(), self.project.pages.clone());
                let codes_of = move |d: DocId| {
                    super::codebook::codes_of(&codes, pages.as_deref().map(Vec::as_slice), d)
                };
                let coding = self
                    .project
                    .is_open()
                    .then_some(&codes_of as &dyn Fn(DocId) -> (String, String));
                // Tables wider than what the codebook leaves are cut here, so they can
                // neither cover nor catch the clicks of the codebook's buttons.
                ui.shrink_clip_rect(ui.available_rect_before_wrap());
                self.clusters.ui(ui, &ws, run, coding)
            }
            Tab::Pair => {
                let mut blind = false;
                if self.labels.labelling
                    && let Some(s) = self.project.sample.clone()
                {
                    blind = s.info.blind;
                    let asked = self.labels.bar(ui, &s);
                    self.actions.extend(asked.into_iter().map(Action::Project));
                }
                self.pair_view.ui(
                    ui,
                    &ws,
                    self.pair.as_deref(),
                    self.jobs.is_running(JobKind::Pair),
                    blind,
                )
            }
            Tab::Labels => {
                let asked = self.labels.ui(ui, &mut self.project, run.is_some());
                self.actions.extend(asked.into_iter().map(Action::Project));
                None
            }
            Tab::Plots => {
                // Without gold, precision and relative recall come from the labels, which the
                // store worker reads; asked again whenever labels change.
                let labelled = match run {
                    Some(r) if !ws.has_gold() && self.project.is_open() => {
                        if self.project.want_curves(&r.detection) {
                            ui.ctx().request_repaint();
                        }
                        self.project
                            .curves
                            .as_deref()
                            .filter(|c| Arc::ptr_eq(&c.detection, &r.detection))
                    }
                    _ => None,
                };
                self.plots.ui(
                    ui,
                    &self.runs,
                    self.active,
                    ws.has_gold(),
                    labelled,
                    &self.previous,
                )
            }
            Tab::Antecedents => self.tuning.ui(
                ui,
                self.vocab.as_deref().map(Vec::as_slice),
                self.jobs.is_running(JobKind::Vocab),
            ),
        };
        if let Some(a) = action {
            self.actions.push(a);
        }
    }
}
