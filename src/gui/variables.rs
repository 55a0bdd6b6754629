//! The story's variables in the codebook panel: every story variable of the project's codebook
//! as the field that fits it (radio buttons for one value, check boxes for several, a number
//! field, a note), "not applicable" and "cannot code" where the codebook offers them, and keys
//! 1–9 for the values of the first one-value variable. Each answer is the annotator's own
//! value ([`crate::store::Project::set_value`]): only the annotator's own values are shown
//! (coding is blind), and Undo value takes back their latest.

use std::collections::BTreeMap;

use crate::codebook::{Answer, Kind, UnitKind, Variable};
use crate::store::RunId;
use crate::store::values::{Role, Unit};

use super::action::ProjectAction;
use super::session::ProjectSession;

/// What the person is typing into number and note fields, by variable.
#[derive(Debug, Default)]
pub struct VariablesPanel {
    typed: BTreeMap<String, String>,
    typed_for: Option<(RunId, u32)>,
}

impl VariablesPanel {
    /// Draw the variables of story `cluster` of project run `run`; the actions to apply.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        run: Option<RunId>,
        cluster: Option<u32>,
        out: &mut Vec<ProjectAction>,
    ) {
        let book = &session.codes.codebook;
        let variables: Vec<&Variable> = book
            .variables
            .iter()
            .filter(|v| v.unit == UnitKind::Story)
            .collect();
        if variables.is_empty() {
            return;
        }
        ui.strong(format!("Story variables (codebook v{})", book.version));
        let (Some(run), Some(cluster)) = (run, cluster) else {
            ui.weak("Select a cluster of a run saved in the project to code its story.");
            ui.separator();
            return;
        };
        if self.typed_for != Some((run, cluster)) {
            self.typed.clear();
            self.typed_for = Some((run, cluster));
        }
        let unit = Unit::Story {
            run,
            cluster: i64::from(cluster),
        };
        let me = session.annotator.as_str();
        let mine: BTreeMap<&str, &Answer> = session
            .codes
            .values
            .get(&unit)
            .into_iter()
            .flatten()
            .filter(|v| v.coder == me && v.role == Role::Coder)
            .map(|v| (v.variable.as_str(), &v.answer))
            .collect();
        if me.trim().is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "Say who is coding (Annotator, on the left) to give values.",
            );
        }
        let done = variables
            .iter()
            .filter(|v| mine.contains_key(v.name.as_str()))
            .count();
        ui.label(format!("{done} of {} coded by {me}", variables.len()));
        let mut set = |variable: &str, raw: String| {
            out.push(ProjectAction::SetValue {
                cluster,
                variable: variable.to_string(),
                raw,
            });
        };
        for (i, var) in variables.iter().enumerate() {
            let current = mine.get(var.name.as_str()).copied();
            ui.add_space(4.0);
            let heading = ui.label(egui::RichText::new(&var.name).strong());
            if !var.question.is_empty() {
                heading.on_hover_text(format!("{}\n\n{}", var.question, var.instructions));
            }
            match var.kind {
                Kind::One => one_value(ui, var, current, i == first_one(&variables), &mut set),
                Kind::Several => several_values(ui, var, current, &mut set),
                Kind::Number | Kind::Note => {
                    let typed =
                        self.typed
                            .entry(var.name.clone())
                            .or_insert_with(|| match current {
                                Some(Answer::Value(v)) => v.clone(),
                                _ => String::new(),
                            });
                    ui.horizontal(|ui| {
                        let field = ui.add(
                            egui::TextEdit::singleline(typed)
                                .desired_width(120.0)
                                .hint_text(if var.kind == Kind::Number {
                                    "a number"
                                } else {
                                    "a note"
                                }),
                        );
                        let enter =
                            field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        if ui.button("Save").clicked() || enter {
                            set(&var.name, typed.clone());
                        }
                    });
                }
            }
            missing_buttons(ui, var, current, &mut set);
        }
        if ui
            .button("Undo value")
            .on_hover_text("Take back your latest value (the one before counts again)")
            .clicked()
        {
            out.push(ProjectAction::UndoValue);
        }
        ui.separator();
    }
}

/// The index of the first one-value variable: keys 1–9 give its values.
fn first_one(variables: &[&Variable]) -> usize {
    variables
        .iter()
        .position(|v| v.kind == Kind::One)
        .unwrap_or(usize::MAX)
}

fn one_value(
    ui: &mut egui::Ui,
    var: &Variable,
    current: Option<&Answer>,
    keys: bool,
    set: &mut impl FnMut(&str, String),
) {
    let chosen = match current {
        Some(Answer::Value(v)) => v.parse::<i64>().ok(),
        _ => None,
    };
    ui.horizontal_wrapped(|ui| {
        for (n, value) in var.values.iter().enumerate() {
            let text = if keys && n < 9 {
                format!("{} {} [{}]", value.code, value.label, n + 1)
            } else {
                format!("{} {}", value.code, value.label)
            };
            if ui.radio(chosen == Some(value.code), text).clicked() {
                set(&var.name, value.code.to_string());
            }
        }
    });
    if keys {
        // Keys 1–9 answer this variable (while no text field has the keyboard).
        let typing = ui.ctx().egui_wants_keyboard_input();
        let digit = ui.input(|i| (1..=9).find(|d| i.key_pressed(digit_key(*d))));
        if let (false, Some(d)) = (typing, digit)
            && let Some(value) = var.values.get(d - 1)
        {
            set(&var.name, value.code.to_string());
        }
    }
}

fn digit_key(d: usize) -> egui::Key {
    use egui::Key::*;
    [Num1, Num2, Num3, Num4, Num5, Num6, Num7, Num8, Num9][d - 1]
}

fn several_values(
    ui: &mut egui::Ui,
    var: &Variable,
    current: Option<&Answer>,
    set: &mut impl FnMut(&str, String),
) {
    let mut chosen: Vec<i64> = match current {
        Some(Answer::Value(v)) => v.split(',').filter_map(|c| c.parse().ok()).collect(),
        _ => Vec::new(),
    };
    ui.horizontal_wrapped(|ui| {
        for value in &var.values {
            let mut on = chosen.contains(&value.code);
            if ui
                .checkbox(&mut on, format!("{} {}", value.code, value.label))
                .changed()
            {
                chosen.retain(|c| *c != value.code);
                if on {
                    chosen.push(value.code);
                }
                let list: Vec<String> = chosen.iter().map(i64::to_string).collect();
                set(&var.name, list.join(","));
            }
        }
    });
}

fn missing_buttons(
    ui: &mut egui::Ui,
    var: &Variable,
    current: Option<&Answer>,
    set: &mut impl FnMut(&str, String),
) {
    ui.horizontal(|ui| {
        for (code, text, answer) in [
            (var.not_applicable, "not applicable", Answer::NotApplicable),
            (var.cannot_code, "cannot code", Answer::CannotCode),
        ] {
            if let Some(code) = code
                && ui
                    .selectable_label(current == Some(&answer), text)
                    .clicked()
            {
                set(&var.name, code.to_string());
            }
        }
    });
}
