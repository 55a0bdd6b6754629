//! The Reliability tab: the coders' agreement per variable of the codebook (Krippendorff's
//! alpha at the variable's level with its bootstrap interval and q(alpha < alpha_min), percent
//! agreement, Cohen's and Fleiss' kappa; [`crate::coding::reliability::agreement`]), and the
//! units on which they still disagree, each with every coder's value and the story's core
//! text, where the lead sets the final value (with undo). A final value settles the unit: it
//! leaves the list and is what the data set exports.
//!
//! In: the project session's [`ReliabilityReport`] (computed by the store's worker when the
//! tab is shown and the values changed), the active run's clusters for the core text. Out:
//! [`ProjectAction::SetFinal`], [`ProjectAction::UndoFinal`], [`ProjectAction::Reliability`].

use crate::DocId;
use crate::codebook::{Kind, Variable};
use crate::coding::reliability::Disagreement;
use crate::store::values::Unit;

use super::action::{Action, ProjectAction};
use super::project::ReliabilityReport;
use super::view::{View, ViewContext};

/// The keys of the Reliability tab.
pub const KEYS: &[(&str, &str)] = &[
    ("J / K", "Next / previous disagreement (Reliability tab)"),
    ("1 ... 9", "Set the listed value as final (Reliability tab)"),
];

/// How much of a story's core text the tab shows.
const CORE_CHARS: usize = 4_000;

/// State of the Reliability tab.
#[derive(Default)]
pub struct ReliabilityView {
    /// Only this variable's disagreements (none: all).
    variable: Option<String>,
    /// The selected disagreement: its variable and unit.
    selected: Option<(String, Unit)>,
    /// The core text of a unit, read once.
    core: Option<(Unit, Result<String, String>)>,
    /// What is typed for a number or note's final value, and the options ticked for a
    /// several-values one.
    typed: String,
    ticked: Vec<i64>,
}

impl View for ReliabilityView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        if !cx.project.is_open() {
            ui.label(
                "Open a project (Project file, on the left) to see how its coders agree and to \
                 settle their disagreements.",
            );
            return;
        }
        if !cx.project.reliability_current() {
            cx.project.compute_reliability(false);
        }
        let Some(report) = cx.project.reliability.clone() else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Computing the agreement…");
            });
            return;
        };
        ui.horizontal(|ui| {
            ui.heading("Agreement of the coders");
            if !cx.project.reliability_current() {
                ui.spinner();
            }
            if ui
                .button("Compute again")
                .on_hover_text("Read every coder's values again and recompute")
                .clicked()
            {
                cx.ask(Some(Action::Project(ProjectAction::Reliability)));
            }
        });
        ui.weak(format!(
            "Krippendorff's alpha at each variable's level of measurement, with a 95% bootstrap \
             interval ({} resamples; `samecore agreement --project` gives 10,000) and the share \
             of resamples below 0.667 and 0.8. Each option of a several-values variable is \
             scored as its own yes/no variable.",
            report.resamples
        ));
        ui.add_space(4.0);
        agreement_table(ui, &report);
        ui.separator();
        self.disagreements(ui, cx, &report);
    }
}

/// The alpha table.
fn agreement_table(ui: &mut egui::Ui, report: &ReliabilityReport) {
    if report.agreement.is_empty() {
        ui.label(
            "No variable has values from two coders on one unit yet. Draw a reliability round \
             (samecore round new) and have each of its coders code its stories under their own \
             name (Coding as, in the Project panel on the left).",
        );
        return;
    }
    let f =
        |x: Option<f64>, digits: usize| x.map_or("–".to_string(), |x| format!("{x:.digits$}"));
    egui::ScrollArea::horizontal()
        .id_salt("alpha table")
        .show(ui, |ui| {
            egui::Grid::new("alpha")
                .striped(true)
                .num_columns(9)
                .show(ui, |ui| {
                    for h in [
                        "Variable",
                        "Level",
                        "Units",
                        "Coders",
                        "α",
                        "95% interval",
                        "q(α<0.667)",
                        "q(α<0.8)",
                        "Agreement",
                    ] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for a in &report.agreement {
                        ui.label(&a.variable);
                        ui.label(a.level);
                        ui.label(a.units.to_string());
                        ui.label(a.coders.to_string());
                        let alpha = ui.strong(f(a.alpha, 3));
                        if a.alpha.is_none() {
                            alpha.on_hover_text(
                                "Undefined: every value the coders gave is the same, so there is \
                                 no variation to agree on",
                            );
                        }
                        ui.label(match (a.low, a.high) {
                            (Some(l), Some(h)) => format!("[{l:.3}, {h:.3}]"),
                            _ => "–".into(),
                        });
                        ui.label(f(a.q_667, 3));
                        ui.label(f(a.q_800, 3));
                        ui.label(
                            a.percent_agreement
                                .map_or("–".into(), |p| format!("{:.1}%", 100.0 * p)),
                        );
                        ui.end_row();
                    }
                });
        });
}

impl ReliabilityView {
    /// The open disagreements and the selected one's adjudication.
    fn disagreements(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut ViewContext<'_>,
        report: &ReliabilityReport,
    ) {
        let open = &report.disagreements;
        ui.horizontal(|ui| {
            ui.strong(format!(
                "{} unit(s) still in disagreement · {} final value(s) set",
                open.len(),
                report.finals
            ));
            if ui
                .button("Undo final value")
                .on_hover_text(format!(
                    "Take back {}'s latest final value (the unit is open again)",
                    cx.project.annotator
                ))
                .clicked()
            {
                cx.ask(Some(Action::Project(ProjectAction::UndoFinal)));
            }
        });
        if open.is_empty() {
            if !report.agreement.is_empty() {
                ui.label("Every unit the coders coded differently has a final value.");
            }
            return;
        }
        let mut variables: Vec<&str> = open.iter().map(|d| d.variable.as_str()).collect();
        variables.dedup();
        ui.horizontal(|ui| {
            let label = ui.label("Variable:");
            egui::ComboBox::from_id_salt("disagreement variable")
                .selected_text(self.variable.as_deref().unwrap_or("every variable"))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.variable, None, "every variable");
                    for v in &variables {
                        ui.selectable_value(&mut self.variable, Some(v.to_string()), *v);
                    }
                })
                .response
                .labelled_by(label.id);
        });
        let shown: Vec<&Disagreement> = open
            .iter()
            .filter(|d| self.variable.as_ref().is_none_or(|v| *v == d.variable))
            .collect();
        // The selection follows the list: a settled unit leaves it and the next one is taken.
        let at = self
            .selected
            .as_ref()
            .and_then(|(v, u)| shown.iter().position(|d| d.variable == *v && d.key == *u));
        if at.is_none() {
            self.select(shown.first().copied());
        }
        let keys = !ui.ctx().egui_wants_keyboard_input();
        if keys && !shown.is_empty() {
            let (down, up) =
                ui.input(|i| (i.key_pressed(egui::Key::J), i.key_pressed(egui::Key::K)));
            let pos = at.unwrap_or(0);
            if down && pos + 1 < shown.len() {
                self.select(Some(shown[pos + 1]));
            } else if up && pos > 0 {
                self.select(Some(shown[pos - 1]));
            }
        }
        ui.columns(2, |cols| {
            egui::ScrollArea::vertical()
                .id_salt("disagreements")
                .max_height(cols[0].available_height())
                .show(&mut cols[0], |ui| {
                    super::view::rows_take_clicks(ui);
                    for d in &shown {
                        let chosen = self
                            .selected
                            .as_ref()
                            .is_some_and(|(v, u)| *v == d.variable && *u == d.key);
                        let values: Vec<String> = d
                            .values
                            .iter()
                            .map(|(coder, value, _)| format!("{coder}: {value}"))
                            .collect();
                        let r = ui.selectable_label(
                            chosen,
                            format!("{} · {} · {}", d.variable, d.unit, values.join(", ")),
                        );
                        if r.clicked() {
                            self.select(Some(d));
                        }
                    }
                });
            let book = &cx.project.codes.codebook;
            if let Some(d) = self
                .selected
                .as_ref()
                .and_then(|(v, u)| shown.iter().find(|d| d.variable == *v && d.key == *u))
            {
                let var = book.variable(&d.variable).cloned();
                self.adjudicate(&mut cols[1], cx, d, var.as_ref());
            }
        });
    }

    fn select(&mut self, d: Option<&Disagreement>) {
        let next = d.map(|d| (d.variable.clone(), d.key));
        if next != self.selected {
            self.selected = next;
            self.typed.clear();
            self.ticked.clear();
        }
    }

    /// One disagreement: each coder's value, the core text, and the final value's controls.
    fn adjudicate(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut ViewContext<'_>,
        d: &Disagreement,
        var: Option<&Variable>,
    ) {
        ui.strong(format!("{} on {}", d.variable, d.unit));
        if let Some(q) = var.map(|v| v.question.as_str()).filter(|q| !q.is_empty()) {
            ui.label(q);
        }
        for (coder, value, label) in &d.values {
            match label {
                Some(l) => ui.label(format!("{coder}: {value} ({l})")),
                None => ui.label(format!("{coder}: {value}")),
            };
        }
        ui.add_space(4.0);
        let mut set = |raw: String| {
            cx.actions.push(Action::Project(ProjectAction::SetFinal {
                unit: d.key,
                variable: d.variable.clone(),
                raw,
            }))
        };
        let final_label = ui.label("Final value:");
        match var {
            None => {
                ui.weak("The codebook no longer has this variable.");
            }
            Some(var) => {
                ui.horizontal_wrapped(|ui| match var.kind {
                    Kind::One => {
                        for (n, value) in var.values.iter().enumerate() {
                            let text = if n < 9 {
                                format!("{} {} [{}]", value.code, value.label, n + 1)
                            } else {
                                format!("{} {}", value.code, value.label)
                            };
                            if ui.button(text).clicked() {
                                set(value.code.to_string());
                            }
                        }
                        // Keys 1–9 set the value listed under them.
                        if !ui.ctx().egui_wants_keyboard_input()
                            && let Some(n) = ui.input(|i| {
                                (0..9).find(|n| i.key_pressed(super::variables::digit_key(n + 1)))
                            })
                            && let Some(value) = var.values.get(n)
                        {
                            set(value.code.to_string());
                        }
                    }
                    Kind::Several => {
                        for value in &var.values {
                            let mut on = self.ticked.contains(&value.code);
                            if ui
                                .checkbox(&mut on, format!("{} {}", value.code, value.label))
                                .changed()
                            {
                                self.ticked.retain(|c| *c != value.code);
                                if on {
                                    self.ticked.push(value.code);
                                }
                            }
                        }
                        if ui.button("Set").clicked() {
                            let list: Vec<String> =
                                self.ticked.iter().map(i64::to_string).collect();
                            set(list.join(","));
                        }
                    }
                    Kind::Number | Kind::Note => {
                        ui.add(egui::TextEdit::singleline(&mut self.typed).desired_width(120.0))
                            .labelled_by(final_label.id);
                        if ui.button("Set").clicked() {
                            set(self.typed.clone());
                        }
                    }
                });
                ui.horizontal(|ui| {
                    for (code, text) in [
                        (var.not_applicable, "not applicable"),
                        (var.cannot_code, "cannot code"),
                    ] {
                        if let Some(code) = code
                            && ui.button(text).clicked()
                        {
                            set(code.to_string());
                        }
                    }
                });
            }
        }
        ui.separator();
        if self.core.as_ref().is_none_or(|(u, _)| *u != d.key) {
            self.core = Some((d.key, core_text(cx, d.key)));
        }
        if let Some((_, text)) = &self.core {
            ui.strong("Core text");
            match text {
                Ok(t) => {
                    egui::ScrollArea::vertical()
                        .id_salt("core text")
                        .show(ui, |ui| ui.label(t));
                }
                Err(why) => {
                    ui.weak(why);
                }
            }
        }
    }
}

/// The core text of `unit`'s page (a story's representative), read from its archive.
fn core_text(cx: &ViewContext<'_>, unit: Unit) -> Result<String, String> {
    let doc: DocId = match unit {
        Unit::Story { run, cluster } => {
            let shown = cx.runs.get(cx.active);
            let here = shown.and_then(|r| cx.project.project_run(r.algo));
            if here != Some(run) {
                return Err(format!(
                    "The story's text shows when run {run}'s clusters are the ones shown (its \
                     detector run on its archives)."
                ));
            }
            let c = (shown.and_then(|r| r.clusters.iter().find(|c| i64::from(c.id) == cluster)))
                .ok_or_else(|| format!("Run {run} shown has no cluster {cluster}."))?;
            c.members[0]
        }
        Unit::Page(page) => {
            let pages = cx
                .project
                .pages
                .as_ref()
                .ok_or("Run a detector to read the page.")?;
            let at = pages
                .iter()
                .position(|p| *p == page)
                .ok_or("The page is not among the open archives.")?;
            DocId(at as u32)
        }
    };
    let d = &cx.workspace.collection.docs[doc.index()];
    let html = crate::archive::page_text(d).map_err(|e| format!("The page cannot be read: {e}"))?;
    let text = crate::token::content::content_text(&html);
    let mut shown: String = text.chars().take(CORE_CHARS).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    Ok(shown)
}
