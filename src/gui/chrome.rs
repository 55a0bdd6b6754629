//! The workbench's frame around the views: the top bar (open, recent, typed path, run,
//! progress with cancel, help), the Inputs section of the side panel (what reading each file
//! reported), the messages strip, the welcome screen and the keyboard help overlay.
//!
//! In: the [`Workbench`] state. Out: jobs started and actions queued, as in the views.

use std::path::PathBuf;
use std::time::Duration;

use egui::Key;

use super::action::Action;
use super::app::{SHORTCUT_CANCEL, SHORTCUT_HELP, SHORTCUT_OPEN, SHORTCUT_RUN, Workbench};
use super::jobs::JobKind;

impl Workbench {
    pub(super) fn top_bar(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        ui.horizontal(|ui| {
            self.open_controls(ui, &ctx);
            ui.separator();
            let can_run = self.workspace.is_some()
                && !self.jobs.is_running(JobKind::Run)
                && self.settings.refused().is_empty();
            if ui
                .add_enabled(can_run, egui::Button::new("Run detectors (F5)"))
                .on_hover_text(ctx.format_shortcut(&SHORTCUT_RUN))
                .clicked()
            {
                self.actions.push(Action::Run);
            }
            self.progress_bar(ui, &ctx);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .button("Help")
                    .on_hover_text(ctx.format_shortcut(&SHORTCUT_HELP))
                    .clicked()
                {
                    self.show_help = !self.show_help;
                }
                let text = if self.side_hidden {
                    "Show side panel"
                } else {
                    "Hide side panel"
                };
                if ui
                    .button(text)
                    .on_hover_text(format!(
                        "Inputs, project and run settings ({}); drag its edge to resize it",
                        ctx.format_shortcut(&super::app::SHORTCUT_SIDE)
                    ))
                    .clicked()
                {
                    self.side_hidden = !self.side_hidden;
                }
            });
        });
    }

    /// Open archives or a folder, the recent inputs, a typed path.
    fn open_controls(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        if ui
            .button("Open archives…")
            .on_hover_text(format!(
                "{} — WARC, ARC, WACZ, zip",
                ctx.format_shortcut(&SHORTCUT_OPEN)
            ))
            .clicked()
        {
            self.start_dialog(false);
        }
        if ui
            .button("Open folder…")
            .on_hover_text("A folder of .html/.htm pages")
            .clicked()
        {
            self.start_dialog(true);
        }
        let mut reopen = None;
        ui.add_enabled_ui(!self.recent.entries.is_empty(), |ui| {
            ui.menu_button("Recent", |ui| {
                for entry in &self.recent.entries {
                    let names: Vec<String> =
                        entry.iter().map(|p| p.display().to_string()).collect();
                    if ui.button(names.join(", ")).clicked() {
                        reopen = Some(entry.clone());
                    }
                }
            });
        });
        if let Some(paths) = reopen {
            self.open(paths);
        }
        let edit = ui.add(
            egui::TextEdit::singleline(&mut self.path_input)
                .hint_text("or type a path and press Enter")
                .desired_width(240.0),
        );
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        if (ui.button("Load path").clicked() || enter) && !self.path_input.trim().is_empty() {
            let path = PathBuf::from(self.path_input.trim());
            self.open(vec![path]);
        }
    }

    /// The progress of the running jobs, with Cancel (the whole line on hover).
    fn progress_bar(&mut self, ui: &mut egui::Ui, ctx: &egui::Context) {
        let progresses = self.progresses();
        if let Some(p) = progresses.first() {
            ui.separator();
            let snap = p.snapshot();
            let text = progress_text(&snap);
            ui.add(
                egui::ProgressBar::new(snap.fraction())
                    // Room for Cancel and Help in a narrow window.
                    .desired_width((ui.available_width() - 130.0).clamp(120.0, 300.0))
                    .text(text.clone())
                    .animate(true),
            )
            .on_hover_text(text);
            if ui
                .button("Cancel")
                .on_hover_text(ctx.format_shortcut(&SHORTCUT_CANCEL))
                .clicked()
            {
                for p in &progresses {
                    p.cancel();
                }
            }
            // Keep the bar moving even when the job reports rarely.
            ui.ctx().request_repaint_after(Duration::from_millis(100));
        }
    }

    pub(super) fn inputs_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Inputs");
        let Some(ws) = &self.workspace else {
            for p in &self.inputs {
                let name = p.file_name().map_or_else(
                    || p.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                ui.add(egui::Label::new(name).truncate())
                    .on_hover_text(p.display().to_string());
            }
            if self.inputs.is_empty() {
                ui.weak("Nothing open yet.");
            }
            return;
        };
        ui.label(format!("{} pages", ws.collection.docs.len()));
        match &ws.gold_source {
            Some(src) => ui.label(format!("Gold clusters from {src}")),
            None => ui.weak("No gold clusters: precision needs labels"),
        };
        let (labelled, pages) = (ws.gold.labelled(), ws.collection.docs.len());
        if ws.gold.is_known() && labelled < pages {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Gold for {labelled} of {pages} pages: the other {} count as stories of one \
                     page each in the metrics",
                    pages - labelled
                ),
            );
        }
        for report in &ws.collection.reports {
            let name = report
                .file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| report.file.display().to_string());
            let header = egui::CollapsingHeader::new(format!("{name} ({})", report.format))
                .id_salt(("report", &report.file))
                .default_open(false)
                .show(ui, |ui| {
                    ui.label(format!("{} pages loaded", report.documents));
                    ui.label(format!("{} HTML responses", report.html_responses));
                    for (kind, n) in &report.records {
                        ui.label(format!("{kind}: {n}"));
                    }
                    for (reason, n) in &report.skipped {
                        ui.label(format!("skipped, {reason}: {n}"));
                    }
                    if !report.warnings.is_empty() {
                        egui::CollapsingHeader::new(format!("{} warnings", report.warnings.len()))
                            .id_salt(("warnings", &report.file))
                            .show(ui, |ui| {
                                for w in &report.warnings {
                                    ui.label(w.to_string());
                                }
                            });
                    }
                });
            // A long name is cut to the panel's width: the whole path on hover.
            header
                .header_response
                .on_hover_text(report.file.display().to_string());
        }
    }

    /// The latest messages (each leaves after a while, not while the pointer is over them),
    /// and the earlier ones on request.
    pub(super) fn messages_panel(&mut self, ui: &mut egui::Ui) {
        let mut dismiss = None;
        let n = self.messages.len();
        for (i, m) in self.messages.iter().enumerate().skip(n.saturating_sub(4)) {
            ui.horizontal(|ui| {
                if ui.small_button("x").on_hover_text("Dismiss").clicked() {
                    dismiss = Some(i);
                }
                ui.label(m);
            });
        }
        if let Some(i) = dismiss {
            self.earlier_messages.push(self.messages.remove(i));
            if i < self.message_times.len() {
                self.message_times.remove(i);
            }
        }
        if !self.earlier_messages.is_empty() {
            egui::CollapsingHeader::new(format!(
                "Earlier messages ({})",
                self.earlier_messages.len()
            ))
            .id_salt("earlier_messages")
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("earlier_messages_scroll")
                    .max_height(120.0)
                    .stick_to_bottom(true)
                    .show(ui, |ui| {
                        for m in &self.earlier_messages {
                            ui.weak(m);
                        }
                    });
            });
        }
        self.messages_hovered = ui.rect_contains_pointer(ui.max_rect());
    }

    pub(super) fn welcome(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(60.0);
            ui.heading("samecore");
            ui.label("Find same-core near-duplicate pages in web archives.");
            ui.add_space(12.0);
            if self.jobs.is_running(JobKind::Load) {
                ui.spinner();
                // The whole progress line: the top bar's is cut to its width.
                match self.progresses().first() {
                    Some(p) => ui.label(progress_text(&p.snapshot())),
                    None => ui.label("Reading…"),
                };
                if self
                    .settings
                    .algos
                    .contains(&crate::detectors::Algo::SpotSigs)
                {
                    ui.weak(
                        "Every page is signed for SpotSigs as it is read; the first clusters \
                         follow the matching.",
                    );
                }
            } else {
                ui.label("Open a WARC, ARC, WACZ, a zip or a folder of pages — or drop it here.");
            }
        });
    }

    pub(super) fn help_window(&mut self, ctx: &egui::Context) {
        let mut open = self.show_help;
        egui::Window::new("Keyboard")
            .open(&mut open)
            .collapsible(false)
            .show(ctx, |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for (shortcut, what) in [
                        (super::app::SHORTCUT_SIDE, "Hide or show the side panel"),
                        (SHORTCUT_OPEN, "Open archives"),
                        (SHORTCUT_RUN, "Run the chosen detectors"),
                        (SHORTCUT_CANCEL, "Cancel what is running"),
                        (SHORTCUT_HELP, "This help"),
                    ] {
                        ui.monospace(ctx.format_shortcut(&shortcut));
                        ui.label(what);
                        ui.end_row();
                    }
                    ui.monospace("Alt+1 ... Alt+8");
                    ui.label(
                        "Documents, Clusters, Pair, Plots, Antecedents, Labels, Reliability, \
                         Codebook",
                    );
                    ui.end_row();
                    for (key, what) in super::documents::KEYS
                        .iter()
                        .chain(super::clusters::KEYS)
                        .chain(super::search::KEYS)
                        .chain(super::pair_view::KEYS)
                        .chain(super::labelling::KEYS)
                        .chain(super::variables::KEYS)
                        .chain(super::reliability::KEYS)
                        .chain(super::codebook_editor::KEYS)
                        .chain(super::package_view::KEYS)
                    {
                        ui.monospace(*key);
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
        self.show_help = open;
    }
}

/// `1.2 MB` style sizes for progress text.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A job's progress in one line: stage, done of total (bytes while reading), rate, time left.
fn progress_text(snap: &crate::progress::ProgressSnapshot) -> String {
    let mut text = snap.stage.clone();
    if snap.stage.starts_with("reading") {
        text.push_str(&format!(" {}", human_bytes(snap.done)));
        if snap.total > 0 {
            text.push_str(&format!(" / {}", human_bytes(snap.total)));
        }
    } else if snap.total > 0 {
        text.push_str(&format!(" {}/{}", snap.done, snap.total));
    }
    if snap.rate() > 0.0 && !snap.stage.starts_with("reading") {
        text.push_str(&format!(" — {:.0}/s", snap.rate()));
    }
    if let Some(eta) = snap.eta_secs() {
        text.push_str(&format!(" — {eta:.0} s left"));
    }
    text
}
