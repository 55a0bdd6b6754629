//! The Codebook tab: the codebook of variables edited in place. The lead adds, orders and
//! removes variables; gives each its name, question, coding instructions, level of
//! measurement, kind of answer, unit (story or page), numbered values with labels and the
//! numbers of "not applicable" and "cannot code"; and saves the result as the project's next
//! version (every value keeps the version it was coded under). The draft is checked as it is
//! typed ([`Codebook::check`]): a bad name, a duplicate, a list without labels or a level that
//! does not fit the kind is named and Save stays off, so nothing bad is stored. Edits are
//! undone and redone one step at a time (typing into one field is one step); Discard goes back
//! to the saved version; an earlier version or the codebook's file can be taken into the
//! editor and saved as the next version. The saved codebook is written to its file beside the
//! project (read back by `samecore codebook read`) or as Markdown for a methods appendix.
//!
//! A variable on which values were coded keeps its name and unit here: values are kept by
//! variable name and unit, so renaming would start a new variable (add one instead).
//!
//! In: the project session's [`crate::gui::project::CodeSnapshot`] (the saved codebook, its
//! versions, the values). Out: [`ProjectAction::SaveCodebook`] and
//! [`ProjectAction::WriteCodebook`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use egui::{Key, KeyboardShortcut, Modifiers};

use crate::agreement::Level;
use crate::codebook::{CODES, Codebook, Kind, UnitKind, ValueLabel, Variable};

use super::action::{Action, ProjectAction};
use super::project::CodeSnapshot;
use super::session::ProjectSession;
use super::view::{View, ViewContext};

/// Save the draft as the next version (Ctrl+S).
pub const SHORTCUT_SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
/// Undo the last edit of the draft (Ctrl+Z, outside a text field).
const SHORTCUT_UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
/// Redo it (Ctrl+Y, or Ctrl+Shift+Z).
const SHORTCUT_REDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Y);
const SHORTCUT_REDO_SHIFT: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);

/// The keys of the Codebook tab.
pub const KEYS: &[(&str, &str)] = &[
    (
        "Ctrl+S",
        "Save the codebook as the next version (Codebook tab)",
    ),
    (
        "Ctrl+Z / Ctrl+Y",
        "Undo / redo an edit of the codebook (outside a text field)",
    ),
];

/// A step that replaces the whole draft, applied at the end of the frame.
enum Step {
    Undo,
    Redo,
    /// Take these variables into the draft (discard, an earlier version, a file).
    Take(Vec<Variable>),
}

/// State of the Codebook tab.
#[derive(Default)]
pub struct CodebookEditor {
    /// The variables being edited.
    draft: Vec<Variable>,
    /// The saved version the draft started from, and its variables (none: not loaded yet).
    base: Option<(i64, Vec<Variable>)>,
    /// The variable shown in the form (an index into the draft).
    selected: usize,
    /// Why it changed, kept with the version.
    note: String,
    undo: Vec<Vec<Variable>>,
    redo: Vec<Vec<Variable>>,
    /// The widget whose edits make the current undo step (typing into one field is one step).
    editing: Option<egui::Id>,
    /// The codebook file's path (default: beside the project).
    path: String,
    /// What the last file read said.
    file_note: Option<Result<String, String>>,
    /// A variable to remove once the person confirms (it has values).
    confirm_remove: Option<String>,
    /// The values coded per variable name, for the snapshot they were counted in.
    counts: Option<(Arc<CodeSnapshot>, BTreeMap<String, usize>)>,
    /// Give the name field the keyboard (a variable was just added).
    focus_name: bool,
    /// Give this value's label field the keyboard (the value was just added).
    focus_value: Option<usize>,
}

impl View for CodebookEditor {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        if !cx.project.is_open() {
            ui.label(
                "Open a project (Project file, on the left) to write its codebook of variables.",
            );
            return;
        }
        let asked = self.show(ui, cx.project);
        cx.actions.extend(asked.into_iter().map(Action::Project));
    }
}

impl CodebookEditor {
    /// Draw the editor for `session`'s project; the actions to apply.
    pub fn show(&mut self, ui: &mut egui::Ui, session: &ProjectSession) -> Vec<ProjectAction> {
        let mut out = Vec::new();
        let codes = session.codes.clone();
        let saved = &codes.codebook;
        self.follow_saved(saved);
        // The draft may have been replaced by a version saved elsewhere.
        self.selected = self.selected.min(self.draft.len().saturating_sub(1));
        if self.path.is_empty() {
            self.path = session.opened.as_ref().map_or_else(
                || "codebook.json".to_string(),
                |p| {
                    let mut name = p.as_os_str().to_owned();
                    name.push(".codebook.json");
                    PathBuf::from(name).display().to_string()
                },
            );
        }
        let counts = self.counts(&codes);
        let before = self.draft.clone();
        let mut step = None;
        let base_version = self.base.as_ref().map_or(0, |b| b.0);
        let dirty = self
            .base
            .as_ref()
            .is_some_and(|(_, vars)| *vars != self.draft);
        let book = Codebook {
            version: base_version,
            variables: self.draft.clone(),
        };
        let check = book.check();
        let text_keys = ui.ctx().egui_wants_keyboard_input();
        let (save_key, undo_key, redo_key) = ui.input_mut(|i| {
            (
                i.consume_shortcut(&SHORTCUT_SAVE),
                !text_keys && i.consume_shortcut(&SHORTCUT_UNDO),
                !text_keys
                    && (i.consume_shortcut(&SHORTCUT_REDO)
                        || i.consume_shortcut(&SHORTCUT_REDO_SHIFT)),
            )
        });

        ui.horizontal(|ui| {
            ui.heading("Codebook of variables");
            match codes.codebook_history.last() {
                Some(v) => ui.weak(format!(
                    "version {} saved by {} at {}",
                    v.book.version, v.by, v.at
                )),
                None => ui.weak("no version saved yet"),
            };
        });
        if saved.version != base_version {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Version {} was saved since this draft began from version {base_version}: \
                     saving makes the draft version {} on top of it.",
                    saved.version,
                    saved.version + 1
                ),
            );
        }
        ui.horizontal_wrapped(|ui| {
            let can_save = dirty && check.is_ok();
            let save = ui
                .add_enabled(
                    can_save,
                    egui::Button::new(format!("Save as version {}", saved.version + 1)),
                )
                .on_hover_text("Ctrl+S. Every value keeps the version it was coded under")
                .on_disabled_hover_text(if dirty {
                    "The codebook has a mistake (below): fix it first"
                } else {
                    "Nothing changed since the saved version"
                });
            if save.clicked() || (save_key && can_save) {
                out.push(ProjectAction::SaveCodebook {
                    book: book.clone(),
                    note: self.note.trim().to_string(),
                });
                self.note.clear();
            }
            let label = ui.label("Why it changed");
            ui.add(
                egui::TextEdit::singleline(&mut self.note)
                    .desired_width(180.0)
                    .hint_text("kept with the version")
                    .id_salt("codebook_note"),
            )
            .labelled_by(label.id);
            ui.separator();
            if ui
                .add_enabled(!self.undo.is_empty(), egui::Button::new("Undo"))
                .on_hover_text("Undo the last edit (Ctrl+Z outside a text field)")
                .clicked()
                || undo_key
            {
                step = Some(Step::Undo);
            }
            if ui
                .add_enabled(!self.redo.is_empty(), egui::Button::new("Redo"))
                .on_hover_text("Redo it (Ctrl+Y)")
                .clicked()
                || redo_key
            {
                step = Some(Step::Redo);
            }
            if ui
                .add_enabled(dirty, egui::Button::new("Discard changes"))
                .on_hover_text(format!(
                    "Go back to version {base_version} as saved (Undo brings the changes back)"
                ))
                .clicked()
                && let Some((_, vars)) = &self.base
            {
                step = Some(Step::Take(vars.clone()));
            }
        });
        match (&check, dirty) {
            (Err(e), _) => {
                let said = match e {
                    crate::Error::InvalidParameter(m) => m.clone(),
                    other => other.to_string(),
                };
                ui.colored_label(ui.visuals().error_fg_color, format!("To fix: {said}"));
            }
            (Ok(()), true) => {
                ui.label("Changed, and well made: Save makes it the next version.");
            }
            (Ok(()), false) => {
                ui.weak(format!("Saved as version {base_version}; nothing changed."));
            }
        }
        ui.weak(format!(
            "The project's tag codes ({} codes) are the several-values variable `{CODES}`: add, \
             rename and merge them in the Clusters tab's Coding panel.",
            codes.codes.len()
        ));
        ui.separator();

        let height = (ui.available_height() - 100.0).max(200.0);
        ui.horizontal_top(|ui| {
            // The column separator fills the height it is given.
            ui.set_max_height(height);
            ui.vertical(|ui| {
                ui.set_width(220.0);
                self.variable_list(ui, &counts, height);
            });
            ui.separator();
            ui.vertical(|ui| {
                egui::ScrollArea::vertical()
                    .id_salt("variable_form")
                    .max_height(height)
                    .auto_shrink([false, true])
                    .show(ui, |ui| self.form(ui, &counts));
            });
        });
        ui.separator();
        self.files(ui, &codes, &mut step, &mut out);

        // One undo step per edit: typing into one field (or dragging one number) is one.
        if self.draft != before {
            let active = ui
                .ctx()
                .memory(|m| m.focused())
                .or_else(|| ui.ctx().dragged_id());
            if active.is_none() || active != self.editing {
                self.undo.push(before);
                self.editing = active;
            }
            self.redo.clear();
        }
        match step {
            Some(Step::Undo) => {
                if let Some(prev) = self.undo.pop() {
                    self.redo.push(std::mem::replace(&mut self.draft, prev));
                }
                self.editing = None;
            }
            Some(Step::Redo) => {
                if let Some(next) = self.redo.pop() {
                    self.undo.push(std::mem::replace(&mut self.draft, next));
                }
                self.editing = None;
            }
            Some(Step::Take(vars)) => {
                if vars != self.draft {
                    self.undo.push(std::mem::replace(&mut self.draft, vars));
                    self.redo.clear();
                }
                self.editing = None;
            }
            None => {}
        }
        self.selected = self.selected.min(self.draft.len().saturating_sub(1));
        out
    }

    /// Load the saved codebook when the draft follows it: at first, and when a new version
    /// was saved while the draft had no changes of its own.
    fn follow_saved(&mut self, saved: &Codebook) {
        let clean = self
            .base
            .as_ref()
            .is_none_or(|(_, vars)| *vars == self.draft);
        let moved = self.base.as_ref().is_none_or(|(v, _)| *v != saved.version);
        if moved && clean {
            self.draft = saved.variables.clone();
            self.base = Some((saved.version, saved.variables.clone()));
        } else if moved && self.draft == saved.variables {
            // The draft was just saved: it is the new version.
            self.base = Some((saved.version, saved.variables.clone()));
        }
    }

    /// The values coded per variable (every coder and final values), counted once a snapshot.
    fn counts(&mut self, codes: &Arc<CodeSnapshot>) -> BTreeMap<String, usize> {
        if let Some((of, counts)) = &self.counts
            && Arc::ptr_eq(of, codes)
        {
            return counts.clone();
        }
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for v in codes.values.values().flatten() {
            *counts.entry(v.variable.clone()).or_default() += 1;
        }
        self.counts = Some((codes.clone(), counts.clone()));
        counts
    }

    /// The variables in order, with Add, Move up, Move down and Remove.
    fn variable_list(&mut self, ui: &mut egui::Ui, counts: &BTreeMap<String, usize>, height: f32) {
        ui.strong(format!("Variables ({})", self.draft.len()));
        egui::ScrollArea::vertical()
            .id_salt("variable_list")
            .max_height(height - 90.0)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                if self.draft.is_empty() {
                    ui.weak("No variable yet: Add variable.");
                }
                for (i, v) in self.draft.iter().enumerate() {
                    let name = if v.name.is_empty() {
                        "(no name)"
                    } else {
                        &v.name
                    };
                    let r = ui
                        .selectable_label(self.selected == i, name)
                        .on_hover_text(format!(
                            "{}, {}, on each {}; {} values coded",
                            kind_name(v.kind),
                            v.level,
                            v.unit.name(),
                            counts.get(&v.name).copied().unwrap_or(0)
                        ));
                    if r.clicked() {
                        self.selected = i;
                        self.confirm_remove = None;
                    }
                }
            });
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Add variable")
                .on_hover_text("A new variable after the selected one")
                .clicked()
            {
                let at = if self.draft.is_empty() {
                    0
                } else {
                    self.selected + 1
                };
                let name = (1..)
                    .map(|n| format!("variable{n}"))
                    .find(|n| !self.draft.iter().any(|v| v.name.eq_ignore_ascii_case(n)))
                    .unwrap_or_default();
                self.draft.insert(
                    at,
                    Variable {
                        name,
                        question: String::new(),
                        instructions: String::new(),
                        level: Level::Nominal,
                        kind: Kind::One,
                        unit: UnitKind::Story,
                        values: Vec::new(),
                        not_applicable: None,
                        cannot_code: None,
                    },
                );
                self.selected = at;
                self.focus_name = true;
            }
            let n = self.draft.len();
            let i = self.selected;
            if ui
                .add_enabled(n > 0 && i > 0, egui::Button::new("Move up"))
                .clicked()
            {
                self.draft.swap(i, i - 1);
                self.selected = i - 1;
            }
            if ui
                .add_enabled(i + 1 < n, egui::Button::new("Move down"))
                .clicked()
            {
                self.draft.swap(i, i + 1);
                self.selected = i + 1;
            }
            if ui
                .add_enabled(n > 0, egui::Button::new("Remove"))
                .on_hover_text("Take the selected variable out of the codebook")
                .clicked()
            {
                let coded = counts.get(&self.draft[i].name).copied().unwrap_or(0);
                if coded > 0 {
                    self.confirm_remove = Some(self.draft[i].name.clone());
                } else {
                    self.draft.remove(i);
                }
            }
        });
        // By name: the list may have moved since Remove was asked.
        let asked = (self.confirm_remove.as_ref())
            .and_then(|n| self.draft.iter().position(|v| v.name == *n));
        if self.confirm_remove.is_some() && asked.is_none() {
            self.confirm_remove = None;
        }
        if let Some(i) = asked {
            let name = self.draft[i].name.clone();
            let coded = counts.get(&name).copied().unwrap_or(0);
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "{coded} values were coded on {name}. They stay in the project under the \
                     versions they were coded under, but the data set and the agreement leave \
                     {name} out. Remove it?"
                ),
            );
            ui.horizontal(|ui| {
                if ui.button("Yes, remove").clicked() {
                    self.draft.remove(i);
                    self.confirm_remove = None;
                }
                if ui.button("Keep it").clicked() {
                    self.confirm_remove = None;
                }
            });
        }
    }

    /// The selected variable's form.
    fn form(&mut self, ui: &mut egui::Ui, counts: &BTreeMap<String, usize>) {
        let focus_name = std::mem::take(&mut self.focus_name);
        let Some(var) = self.draft.get_mut(self.selected) else {
            ui.label("Add a variable to begin: each is a question the coders answer on a story or a page.");
            return;
        };
        let coded = counts.get(&var.name).copied().unwrap_or(0);
        egui::Grid::new("variable_fields")
            .num_columns(2)
            .spacing([8.0, 6.0])
            .show(ui, |ui| {
                let label = ui.label("Name");
                if coded > 0 {
                    ui.label(egui::RichText::new(&var.name).monospace())
                        .on_hover_text(format!(
                            "{coded} values were coded on {}: values are kept by name, so it \
                             keeps its name (add a new variable for a new one)",
                            var.name
                        ));
                } else {
                    let r = ui
                        .add(
                            egui::TextEdit::singleline(&mut var.name)
                                .desired_width(200.0)
                                .id_salt("variable_name"),
                        )
                        .labelled_by(label.id)
                        .on_hover_text(
                            "A column of the data set: letters, digits and _ (not first)",
                        );
                    if focus_name {
                        r.request_focus();
                    }
                }
                ui.end_row();

                let label = ui.label("Question");
                ui.add(
                    egui::TextEdit::multiline(&mut var.question)
                        .desired_rows(2)
                        .desired_width(f32::INFINITY)
                        .id_salt("variable_question"),
                )
                .labelled_by(label.id);
                ui.end_row();

                let label = ui.label("Instructions");
                ui.add(
                    egui::TextEdit::multiline(&mut var.instructions)
                        .desired_rows(3)
                        .desired_width(f32::INFINITY)
                        .id_salt("variable_instructions"),
                )
                .labelled_by(label.id);
                ui.end_row();

                ui.label("Coded on");
                ui.horizontal(|ui| {
                    ui.add_enabled_ui(coded == 0, |ui| {
                        ui.radio_value(&mut var.unit, UnitKind::Story, "each story")
                            .on_hover_text("A cluster: coded once, its members inherit it");
                        ui.radio_value(&mut var.unit, UnitKind::Page, "each page");
                    });
                    if coded > 0 {
                        ui.weak("(values were coded on it: it keeps its unit)");
                    }
                });
                ui.end_row();

                let label = ui.label("Answer");
                let kind_before = var.kind;
                egui::ComboBox::from_id_salt("variable_kind")
                    .selected_text(kind_name(var.kind))
                    .show_ui(ui, |ui| {
                        for kind in [Kind::One, Kind::Several, Kind::Number, Kind::Note] {
                            ui.selectable_value(&mut var.kind, kind, kind_name(kind));
                        }
                    })
                    .response
                    .labelled_by(label.id);
                if var.kind != kind_before {
                    fit_kind(var);
                }
                ui.end_row();

                let label = ui.label("Level");
                egui::ComboBox::from_id_salt("variable_level")
                    .selected_text(var.level.name())
                    .show_ui(ui, |ui| {
                        for level in Level::ALL.into_iter().filter(|l| fits(var.kind, *l)) {
                            ui.selectable_value(&mut var.level, level, level.name());
                        }
                    })
                    .response
                    .labelled_by(label.id)
                    .on_hover_text(
                        "The level of measurement alpha is computed at: nominal (categories), \
                         ordinal (ordered), interval (distances), ratio (distances from a true \
                         zero)",
                    );
                ui.end_row();
            });
        if matches!(var.kind, Kind::One | Kind::Several) {
            ui.add_space(6.0);
            ui.strong("Values");
            values_grid(ui, var, &mut self.focus_value);
        }
        ui.add_space(6.0);
        ui.strong("Missing values");
        missing_field(
            ui,
            "Not applicable",
            &mut var.not_applicable,
            var.values.as_slice(),
            98,
        );
        missing_field(
            ui,
            "Cannot code",
            &mut var.cannot_code,
            var.values.as_slice(),
            99,
        );
    }

    /// The codebook's file and its versions.
    fn files(
        &mut self,
        ui: &mut egui::Ui,
        codes: &CodeSnapshot,
        step: &mut Option<Step>,
        out: &mut Vec<ProjectAction>,
    ) {
        let saved = &codes.codebook;
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("File");
            ui.add(
                egui::TextEdit::singleline(&mut self.path)
                    .desired_width(320.0)
                    .id_salt("codebook_path"),
            )
            .labelled_by(label.id)
            .on_hover_text("The codebook's file (JSON), kept beside the project");
            let path = PathBuf::from(self.path.trim());
            let has = saved.version > 0;
            if ui
                .add_enabled(has, egui::Button::new(format!("Write version {}", saved.version)))
                .on_hover_text("Write the saved codebook to the file (samecore codebook read takes it back)")
                .clicked()
            {
                out.push(ProjectAction::WriteCodebook {
                    book: saved.clone(),
                    path: path.clone(),
                    markdown: false,
                });
            }
            if ui
                .add_enabled(has, egui::Button::new("Write appendix (.md)"))
                .on_hover_text("The saved codebook as a Markdown document for a methods appendix, beside the file")
                .clicked()
            {
                out.push(ProjectAction::WriteCodebook {
                    book: saved.clone(),
                    path: path.with_extension("md"),
                    markdown: true,
                });
            }
            if ui
                .button("Read into the editor")
                .on_hover_text("Take the file's variables into the editor (checked); Save makes them the next version")
                .clicked()
            {
                self.file_note = Some(match read_codebook_file(&path) {
                    Ok(book) => {
                        let n = book.variables.len();
                        *step = Some(Step::Take(book.variables));
                        Ok(format!(
                            "{n} variables read from {} into the editor: Save makes them version {}",
                            path.display(),
                            saved.version + 1
                        ))
                    }
                    Err(e) => Err(format!("{e} (the editor is unchanged)")),
                });
            }
        });
        match &self.file_note {
            Some(Ok(m)) => {
                ui.label(m);
            }
            Some(Err(m)) => {
                ui.colored_label(ui.visuals().error_fg_color, m);
            }
            None => {}
        }
        egui::CollapsingHeader::new(format!("Versions ({})", codes.codebook_history.len()))
            .id_salt("codebook_versions")
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("codebook_versions_scroll")
                    .max_height(140.0)
                    .show(ui, |ui| {
                        for v in codes.codebook_history.iter().rev() {
                            ui.horizontal(|ui| {
                                ui.label(format!(
                                    "{}  {}  {}  {} variables",
                                    v.book.version,
                                    v.at,
                                    v.by,
                                    v.book.variables.len()
                                ));
                                if !v.note.is_empty() {
                                    ui.weak(&v.note);
                                }
                                if ui
                                    .small_button("Edit from this version")
                                    .on_hover_text(
                                        "Take this version's variables into the editor (Undo \
                                         brings the draft back); Save makes them the next version",
                                    )
                                    .clicked()
                                {
                                    *step = Some(Step::Take(v.book.variables.clone()));
                                }
                            });
                        }
                    });
            });
    }
}

/// The numbered values of a list variable: number, label, up, down, remove; Add value.
fn values_grid(ui: &mut egui::Ui, var: &mut Variable, focus: &mut Option<usize>) {
    let mut action: Option<(usize, i8)> = None;
    egui::Grid::new("variable_values")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            let number = ui.weak("Number").id;
            let label = ui.weak("Label").id;
            ui.end_row();
            let n = var.values.len();
            for (i, value) in var.values.iter_mut().enumerate() {
                ui.add(egui::DragValue::new(&mut value.code).speed(0.1))
                    .labelled_by(number)
                    .on_hover_text("What is stored and exported");
                let field = ui
                    .add_sized(
                        [160.0, ui.spacing().interact_size.y],
                        egui::TextEdit::singleline(&mut value.label)
                            .hint_text("what it means")
                            .id_salt(("value_label", i)),
                    )
                    .labelled_by(label);
                if *focus == Some(i) {
                    field.request_focus();
                    *focus = None;
                }
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(i > 0, egui::Button::new("Up").small())
                        .clicked()
                    {
                        action = Some((i, -1));
                    }
                    if ui
                        .add_enabled(i + 1 < n, egui::Button::new("Down").small())
                        .clicked()
                    {
                        action = Some((i, 1));
                    }
                    if ui.small_button("Remove").clicked() {
                        action = Some((i, 0));
                    }
                });
                ui.end_row();
            }
        });
    match action {
        Some((i, 0)) => {
            var.values.remove(i);
        }
        Some((i, -1)) => var.values.swap(i, i - 1),
        Some((i, _)) => var.values.swap(i, i + 1),
        None => {}
    }
    if ui
        .button("Add value")
        .on_hover_text("The next number; keys 1–9 answer the first nine values in this order")
        .clicked()
    {
        let taken = |c: i64| {
            var.values.iter().any(|v| v.code == c)
                || var.not_applicable == Some(c)
                || var.cannot_code == Some(c)
        };
        let start = var.values.iter().map(|v| v.code).max().map_or(1, |m| m + 1);
        let code = (start..).find(|c| !taken(*c)).unwrap_or(start);
        var.values.push(ValueLabel {
            code,
            label: String::new(),
        });
        *focus = Some(var.values.len() - 1);
    }
}

/// "Not applicable" or "cannot code": offered or not, and the number it is recorded as.
fn missing_field(
    ui: &mut egui::Ui,
    what: &str,
    code: &mut Option<i64>,
    values: &[ValueLabel],
    default: i64,
) {
    ui.horizontal(|ui| {
        let mut offered = code.is_some();
        if ui
            .checkbox(&mut offered, what)
            .on_hover_text(format!(
                "Offer \"{}\" to the coders, recorded as the number beside it",
                what.to_lowercase()
            ))
            .changed()
        {
            *code = offered.then(|| {
                (default..)
                    .find(|c| !values.iter().any(|v| v.code == *c))
                    .unwrap_or(default)
            });
        }
        if let Some(c) = code {
            ui.add(egui::DragValue::new(c).speed(0.1))
                .on_hover_text("The number recorded (not one of the values)");
        }
    });
}

/// Make a variable fit its new kind: no list for a number or a note, nominal for several
/// values, interval or ratio for a number.
fn fit_kind(var: &mut Variable) {
    if matches!(var.kind, Kind::Number | Kind::Note) {
        var.values.clear();
    }
    if !fits(var.kind, var.level) {
        var.level = match var.kind {
            Kind::Number => Level::Interval,
            _ => Level::Nominal,
        };
    }
}

/// Whether `level` fits `kind` (as [`Variable::check`] asks).
fn fits(kind: Kind, level: Level) -> bool {
    match kind {
        Kind::Several => level == Level::Nominal,
        Kind::Number => matches!(level, Level::Interval | Level::Ratio),
        Kind::One | Kind::Note => true,
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::One => "one value from the list",
        Kind::Several => "several values from the list",
        Kind::Number => "a number",
        Kind::Note => "a note (not scored)",
    }
}

/// The largest codebook file read (a codebook is a few kilobytes).
const MAX_FILE: u64 = 16 << 20;

/// A codebook file read and checked.
fn read_codebook_file(path: &std::path::Path) -> crate::Result<Codebook> {
    let len = std::fs::metadata(path)
        .map_err(|e| crate::Error::io(e, path))?
        .len();
    if len > MAX_FILE {
        return Err(crate::Error::InvalidParameter(format!(
            "{} is {len} bytes: not a codebook file",
            path.display()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(e, path))?;
    Codebook::from_file_text(&text)
        .map_err(|e| crate::Error::InvalidParameter(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_kind_drops_what_does_not_fit_it() {
        let mut v = Variable {
            name: "tone".into(),
            question: String::new(),
            instructions: String::new(),
            level: Level::Ordinal,
            kind: Kind::Number,
            unit: UnitKind::Story,
            values: vec![ValueLabel {
                code: 1,
                label: "a".into(),
            }],
            not_applicable: None,
            cannot_code: None,
        };
        fit_kind(&mut v);
        assert!(v.values.is_empty());
        assert_eq!(v.level, Level::Interval);
        v.kind = Kind::Several;
        fit_kind(&mut v);
        assert_eq!(v.level, Level::Nominal);
        assert!(v.check().is_err(), "a list without values is not well made");
    }
}
