//! A coder's package opened in the workbench (`samecore PACKAGE`, or dropped on the window): a
//! coding-only view. The round's stories on the left with what is done, the selected story's
//! core text and details in the middle (its page opens as the package's safe view: no script,
//! nothing fetched), its variables on the right with the keys of the Clusters tab's Coding
//! panel (Up/Down, 1–9, 0, Backspace, Enter), `]` / `[` the next and previous story, U the
//! first not coded, Ctrl+Z undo. Every answer is written to the package at once, so a crash
//! loses nothing. What needs the archive or the project (runs, samples, the other tabs) is not
//! shown.
//!
//! In: a [`Package`]. Out: its values, and notes for the message bar.

use std::collections::BTreeMap;
use std::path::Path;

use crate::codebook::{Answer, Kind, UnitKind, Variable};
use crate::package::{Package, PackageUnit, PackageValue};
use crate::store::values::Unit;

use super::action::ProjectAction;
use super::variables::VariablesPanel;

/// The keys of a package's view.
pub const KEYS: &[(&str, &str)] = &[
    (
        "] / [ / U",
        "Next / previous story of a package, first one not coded",
    ),
    ("Ctrl+Z", "Undo your latest value (a package)"),
];

/// What the view asks of the workbench.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Messages for the person.
    pub notes: Vec<String>,
    /// Close the package.
    pub close: bool,
}

/// A package being coded.
pub struct PackageView {
    package: Package,
    units: Vec<PackageUnit>,
    values: Vec<PackageValue>,
    others: Vec<(i64, String, String, Answer)>,
    selected: usize,
    fields: VariablesPanel,
}

impl PackageView {
    /// Open the package at `path` to code in it.
    pub fn open(path: &Path) -> crate::Result<PackageView> {
        let package = Package::open(path)?;
        let units = package.units()?;
        let values = package.values()?;
        let others = package.others()?;
        let mut view = PackageView {
            package,
            units,
            values,
            others,
            selected: 0,
            fields: VariablesPanel::default(),
        };
        view.selected = view.first_open().unwrap_or(0);
        Ok(view)
    }

    /// "Round r1 for ana".
    pub fn title(&self) -> String {
        let i = &self.package.info;
        format!("Round {} for {}", i.round, i.coder)
    }

    fn variables(&self) -> Vec<&Variable> {
        (self.package.info.codebook.variables.iter())
            .filter(|v| v.unit == UnitKind::Story)
            .collect()
    }

    fn mine(&self, position: i64) -> BTreeMap<&str, &Answer> {
        (self.values.iter())
            .filter(|v| v.position == position)
            .map(|v| (v.variable.as_str(), &v.answer))
            .collect()
    }

    /// Whether every scored variable of the story at `position` has the coder's answer.
    fn done(&self, position: i64) -> bool {
        let mine = self.mine(position);
        (self.variables().iter())
            .filter(|v| v.kind != Kind::Note)
            .all(|v| mine.contains_key(v.name.as_str()))
    }

    /// The first story not coded, after the selected one (then from the start).
    fn first_open(&self) -> Option<usize> {
        let n = self.units.len();
        (1..=n)
            .map(|k| (self.selected + k) % n.max(1))
            .find(|&i| !self.done(self.units[i].position))
    }

    fn reload(&mut self, notes: &mut Vec<String>) {
        match self.package.values() {
            Ok(v) => self.values = v,
            Err(e) => notes.push(format!("The package cannot be read: {e}")),
        }
    }

    /// Draw the view.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Outcome {
        let mut outcome = Outcome::default();
        let done = (self.units.iter())
            .filter(|u| self.done(u.position))
            .count();
        let keys = !ui.ctx().egui_wants_keyboard_input();
        let (next, prev, open, undo) = ui.input_mut(|i| {
            (
                keys && i.key_pressed(egui::Key::CloseBracket),
                keys && i.key_pressed(egui::Key::OpenBracket),
                keys && i.modifiers.is_none() && i.key_pressed(egui::Key::U),
                // Not in a text field: there Ctrl+Z is the field's own.
                keys && i.consume_shortcut(&egui::KeyboardShortcut::new(
                    egui::Modifiers::COMMAND,
                    egui::Key::Z,
                )),
            )
        });
        let info = self.package.info.clone();
        ui.horizontal_wrapped(|ui| {
            ui.heading(self.title());
            ui.label(format!(
                "{done} of {} stories coded · codebook v{}{}",
                self.units.len(),
                info.codebook.version,
                if info.blind {
                    " · blind: you see only your own values"
                } else {
                    ""
                }
            ));
            if ui
                .button("Undo value")
                .on_hover_text("Take back your latest value (Ctrl+Z)")
                .clicked()
                || undo
            {
                match self.package.undo_value() {
                    Ok(Some((variable, position))) => {
                        let cluster = (self.units.iter())
                            .find(|u| u.position == position)
                            .map_or(position, |u| u.cluster);
                        outcome
                            .notes
                            .push(format!("Undone: your {variable} on story {cluster}"));
                    }
                    Ok(None) => outcome.notes.push("Nothing to undo".into()),
                    Err(e) => outcome.notes.push(format!("Undo failed: {e}")),
                }
                self.reload(&mut outcome.notes);
            }
            if ui
                .button("Close package")
                .on_hover_text("Every answer is already saved in the package")
                .clicked()
            {
                outcome.close = true;
            }
        });
        ui.weak(format!(
            "{} · every answer is saved in the package as you give it; send the file back to \
             {} to merge it (samecore merge).",
            self.package.path().display(),
            info.created_by
        ));
        ui.separator();
        if self.units.is_empty() {
            ui.label("The package holds no story.");
            return outcome;
        }
        let last = self.units.len() - 1;
        if next && self.selected < last {
            self.selected += 1;
        }
        if prev && self.selected > 0 {
            self.selected -= 1;
        }
        if open && let Some(i) = self.first_open() {
            self.selected = i;
        }
        self.story_list(ui);
        self.variables_panel(ui, &mut outcome);
        self.story(ui, &mut outcome);
        outcome
    }

    fn story_list(&mut self, ui: &mut egui::Ui) {
        egui::Panel::left("package_stories")
            .resizable(true)
            .default_size(240.0)
            .size_range(160.0..=420.0)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    let at = self.selected;
                    if ui
                        .add_enabled(at > 0, egui::Button::new("‹ Previous"))
                        .on_hover_text("The previous story ([)")
                        .clicked()
                    {
                        self.selected -= 1;
                    }
                    if ui
                        .add_enabled(at + 1 < self.units.len(), egui::Button::new("Next ›"))
                        .on_hover_text("The next story (])")
                        .clicked()
                    {
                        self.selected += 1;
                    }
                    if ui
                        .button("Next uncoded")
                        .on_hover_text("The first story you have not coded (U)")
                        .clicked()
                        && let Some(i) = self.first_open()
                    {
                        self.selected = i;
                    }
                });
                egui::ScrollArea::vertical()
                    .id_salt("package_story_list")
                    .show(ui, |ui| {
                        super::view::rows_take_clicks(ui);
                        for i in 0..self.units.len() {
                            let u = &self.units[i];
                            let mark = if self.done(u.position) { "[x]" } else { "[ ]" };
                            let text = format!(
                                "{mark} {}  {}",
                                u.cluster,
                                u.title.as_deref().unwrap_or("(untitled)")
                            );
                            let r = ui.selectable_label(i == self.selected, text);
                            if i == self.selected && r.changed() {
                                r.scroll_to_me(None);
                            }
                            if r.clicked() {
                                self.selected = i;
                            }
                        }
                    });
            });
    }

    fn variables_panel(&mut self, ui: &mut egui::Ui, outcome: &mut Outcome) {
        let unit = &self.units[self.selected];
        let (position, story) = (
            unit.position,
            Unit::Story {
                run: unit.run,
                cluster: unit.cluster,
            },
        );
        let mut asked = Vec::new();
        // The panel's state is its own; the rest is read from `self`.
        let mut fields = std::mem::take(&mut self.fields);
        egui::Panel::right("package_variables")
            .resizable(true)
            .default_size(260.0)
            .size_range(200.0..=420.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("package_fields")
                    .show(ui, |ui| {
                        let variables = self.variables();
                        let mine = self.mine(position);
                        ui.strong(format!(
                            "{} of {} coded by {}",
                            variables
                                .iter()
                                .filter(|v| mine.contains_key(v.name.as_str()))
                                .count(),
                            variables.len(),
                            self.package.info.coder
                        ));
                        fields.unit_ui(ui, story, &variables, &mine, &mut asked);
                        let others: Vec<_> =
                            (self.others.iter()).filter(|o| o.0 == position).collect();
                        if !others.is_empty() {
                            ui.separator();
                            ui.weak("The other coders (a training round, not blind):");
                            for (_, variable, coder, answer) in others {
                                ui.label(format!("{coder}: {variable} = {}", answer.shown()));
                            }
                        }
                    });
            });
        self.fields = fields;
        for action in asked {
            if let ProjectAction::SetValue { variable, raw, .. } = action {
                if let Err(e) = self.package.set_value(position, &variable, &raw) {
                    outcome.notes.push(format!("Not saved: {e}"));
                }
                self.reload(&mut outcome.notes);
            }
        }
    }

    fn story(&mut self, ui: &mut egui::Ui, outcome: &mut Outcome) {
        let u = &self.units[self.selected];
        ui.heading(u.title.as_deref().unwrap_or("(untitled)"));
        egui::Grid::new("package_story")
            .num_columns(2)
            .show(ui, |ui| {
                for (what, value) in [
                    ("Story", format!("cluster {} of run {}", u.cluster, u.run)),
                    ("Pages", u.pages.to_string()),
                    ("URL", u.url.clone().unwrap_or_default()),
                    ("Sites", u.sites.join(", ")),
                    (
                        "Published",
                        u.published.clone().unwrap_or_else(|| "no date".into()),
                    ),
                    ("Captured", u.captured.clone().unwrap_or_default()),
                ] {
                    if value.is_empty() {
                        continue;
                    }
                    ui.weak(what);
                    ui.add(egui::Label::new(&value).truncate())
                        .on_hover_text(&value);
                    ui.end_row();
                }
            });
        if ui
            .button("Open the page")
            .on_hover_text(
                "The representative page as the package keeps it: in your browser, with no \
                 script and nothing loaded from the network",
            )
            .clicked()
        {
            // Made inert again: a package is not trusted until it is merged.
            let view = crate::safe_view::inert_html(
                &u.view,
                u.url.as_deref().unwrap_or(&u.key),
                u.captured.as_deref(),
            );
            let opened = super::capture::write_inert(&view).and_then(|path| {
                super::capture::open_in_browser(&path.display().to_string())
                    .map_err(|e| crate::Error::io(e, &path))
            });
            if let Err(e) = opened {
                outcome.notes.push(format!("Cannot open the page: {e}"));
            }
        }
        ui.separator();
        ui.strong("Core text");
        egui::ScrollArea::vertical()
            .id_salt("package_core")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.label(&u.core);
            });
    }
}
