//! The variables in the Coding panel: every story variable of the project's codebook for
//! the selected cluster, then every page variable for the page selected in the members table,
//! each as the field that fits it (radio buttons for one value, check boxes for several, a
//! number field, a note), "not applicable" and "cannot code" where the codebook offers them.
//! The keys answer one variable at a time (marked », the arrow keys Up and Down choose it, from
//! the story's variables on to the page's): 1–9 its values, 0 not applicable, Backspace cannot
//! code, and an answer moves on to the next variable, whose number or note field then takes
//! the typing (Enter saves). A reliability round the annotator is assigned to is walked story
//! by story (`]` next, `[` previous, U the first not coded yet) with the coder's progress.
//! Each answer is the annotator's own value ([`crate::store::Project::set_value`]): only the
//! annotator's own values are shown (coding is blind), and Undo value takes back their latest.

use std::collections::BTreeMap;

use crate::DocId;
use crate::codebook::{Answer, Kind, UnitKind, Variable};
use crate::store::RunId;
use crate::store::rounds::Round;
use crate::store::values::{Role, Unit};

use super::action::ProjectAction;
use super::session::ProjectSession;

/// The keys of the story variables (Clusters tab, with a project whose codebook has them).
pub const KEYS: &[(&str, &str)] = &[
    ("Up / Down", "The story variable the keys answer (marked »)"),
    ("1 ... 9", "Its value (several values: tick or untick one)"),
    ("0 / Backspace", "Not applicable / cannot code"),
    ("Enter", "Save the number or note typed"),
    (
        "] / [ / U",
        "Next / previous story of the round, first one not coded",
    ),
];

/// What the person is typing into number and note fields, by variable; which variable the
/// keys answer; the round being coded.
#[derive(Debug, Default)]
pub struct VariablesPanel {
    typed: BTreeMap<String, String>,
    typed_for: Option<(Option<Unit>, Option<Unit>)>,
    /// The variable keys 1–9 answer (an index into the story variables).
    focus: usize,
    /// Give the focused variable's text field the keyboard in the next frame.
    focus_field: bool,
    /// The round whose stories Next and Previous walk (by name).
    round: Option<String>,
}

/// One unit's fields for [`VariablesPanel::units_ui`]: the unit, its variables and the
/// coder's answers on it.
pub(super) type UnitFields<'a> = (Unit, &'a [&'a Variable], &'a BTreeMap<&'a str, &'a Answer>);

impl VariablesPanel {
    /// Draw the variables of story `cluster` of project run `run`, then the page variables of
    /// the selected `member`; the actions to apply, and the cluster to select (a step through
    /// the round).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        run: Option<RunId>,
        cluster: Option<u32>,
        member: Option<(DocId, String)>,
        out: &mut Vec<ProjectAction>,
    ) -> Option<u32> {
        let book = &session.codes.codebook;
        let of = |unit: UnitKind| -> Vec<&Variable> {
            book.variables.iter().filter(|v| v.unit == unit).collect()
        };
        let (stories, pages) = (of(UnitKind::Story), of(UnitKind::Page));
        if stories.is_empty() && pages.is_empty() {
            return None;
        }
        let me = session.annotator.as_str();
        let goto = run.and_then(|run| self.round_bar(ui, session, run, cluster, &stories));
        if me.trim().is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "Say who is coding (Coding as, in the Project panel on the left) to give values.",
            );
        }
        let story = run.zip(cluster).map(|(run, cluster)| Unit::Story {
            run,
            cluster: i64::from(cluster),
        });
        let page = member.as_ref().and_then(|(doc, title)| {
            let page = session.pages.as_ref()?.get(doc.index())?;
            Some((Unit::Page(*page), title.as_str()))
        });
        // The fields the keys walk: the story's variables, then the page's.
        let mut fields: Vec<(Unit, &Variable)> = Vec::new();
        if let Some(unit) = story {
            fields.extend(stories.iter().map(|v| (unit, *v)));
        }
        if let Some((unit, _)) = page {
            fields.extend(pages.iter().map(|v| (unit, *v)));
        }
        let keys = self.walk(ui, (story, page.map(|p| p.0)), &fields);
        let mut answered: Option<usize> = None;
        if !stories.is_empty() {
            ui.strong(format!("Story variables (codebook v{})", book.version));
            match story {
                None => {
                    ui.weak("Select a cluster of a run saved in the project to code its story.");
                }
                Some(unit) => {
                    answered = self
                        .unit_fields(ui, session, unit, &fields, keys, out)
                        .or(answered);
                }
            }
        }
        if !pages.is_empty() {
            ui.add_space(6.0);
            match page {
                None => {
                    ui.strong(format!("Page variables (codebook v{})", book.version));
                    ui.weak(
                        "Select a page in the members table to code its page variables \
                         (a page of a run saved in the project).",
                    );
                }
                Some((unit, title)) => {
                    ui.strong("Page variables")
                        .on_hover_text(format!("codebook v{}", book.version));
                    super::bidi::label(ui, title)
                        .on_hover_text("The page selected in the members table");
                    answered = self
                        .unit_fields(ui, session, unit, &fields, keys, out)
                        .or(answered);
                }
            }
        }
        // An answer moves the keys on to the next variable.
        if let Some(i) = answered
            && i + 1 < fields.len()
        {
            self.focus = i + 1;
            self.focus_field = matches!(fields[i + 1].1.kind, Kind::Number | Kind::Note);
        }
        if !fields.is_empty()
            && ui
                .button("Undo value")
                .on_hover_text("Take back your latest value (the one before counts again)")
                .clicked()
        {
            out.push(ProjectAction::UndoValue);
        }
        ui.separator();
        goto
    }

    /// Start again at the first field when the units shown changed (`at`), and move the
    /// field the keys answer with Up and Down; the keys' state of this frame.
    fn walk(
        &mut self,
        ui: &mut egui::Ui,
        at: (Option<Unit>, Option<Unit>),
        fields: &[(Unit, &Variable)],
    ) -> Keys {
        if self.typed_for != Some(at) {
            self.typed.clear();
            self.typed_for = Some(at);
            self.focus = 0;
            self.focus_field = fields
                .first()
                .is_some_and(|(_, v)| matches!(v.kind, Kind::Number | Kind::Note));
        }
        self.focus = self.focus.min(fields.len().saturating_sub(1));
        let free = !ui.ctx().egui_wants_keyboard_input();
        let (up, down) = ui.input(|i| {
            (
                i.key_pressed(egui::Key::ArrowUp),
                i.key_pressed(egui::Key::ArrowDown),
            )
        });
        if free && !fields.is_empty() {
            if down && self.focus + 1 < fields.len() {
                self.focus += 1;
                self.focus_field = matches!(fields[self.focus].1.kind, Kind::Number | Kind::Note);
            }
            if up && self.focus > 0 {
                self.focus -= 1;
                self.focus_field = matches!(fields[self.focus].1.kind, Kind::Number | Kind::Note);
            }
        }
        Keys {
            free,
            arrow: up || down,
        }
    }

    /// The fields of `variables` on `unit` with the same keys, for a view that keeps its own
    /// values (a coder's package): `mine` are the coder's answers, and each new answer comes
    /// out as a [`ProjectAction::SetValue`] on `unit`.
    pub(super) fn unit_ui(
        &mut self,
        ui: &mut egui::Ui,
        unit: Unit,
        variables: &[&Variable],
        mine: &BTreeMap<&str, &Answer>,
        out: &mut Vec<ProjectAction>,
    ) {
        self.units_ui(ui, &[(unit, variables, mine)], out, &mut |_, _| {});
    }

    /// [`VariablesPanel::unit_ui`] for several units in turn (a story, then its selected
    /// page), `head(ui, i)` drawn above the `i`th: the keys walk on from one unit's fields to
    /// the next.
    pub(super) fn units_ui(
        &mut self,
        ui: &mut egui::Ui,
        units: &[UnitFields<'_>],
        out: &mut Vec<ProjectAction>,
        head: &mut dyn FnMut(&mut egui::Ui, usize),
    ) {
        let fields: Vec<(Unit, &Variable)> = (units.iter())
            .flat_map(|(unit, vars, _)| vars.iter().map(move |v| (*unit, *v)))
            .collect();
        let at = (units.first().map(|u| u.0), units.get(1).map(|u| u.0));
        let keys = self.walk(ui, at, &fields);
        let mut answered = None;
        let mut i = 0;
        for (n, (unit, vars, mine)) in units.iter().enumerate() {
            head(ui, n);
            for var in vars.iter() {
                let current = mine.get(var.name.as_str()).copied();
                if self.field(ui, *unit, var, current, i, keys, out) {
                    answered = Some(i);
                }
                i += 1;
            }
        }
        if let Some(i) = answered
            && i + 1 < fields.len()
        {
            self.focus = i + 1;
            self.focus_field = matches!(fields[i + 1].1.kind, Kind::Number | Kind::Note);
        }
    }

    /// The coder's progress on `unit` and the fields of its variables (those of `fields` on
    /// it); the field answered by a key, if one was.
    fn unit_fields(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        unit: Unit,
        fields: &[(Unit, &Variable)],
        keys: Keys,
        out: &mut Vec<ProjectAction>,
    ) -> Option<usize> {
        let me = session.annotator.as_str();
        let mine = mine(session, &unit, me);
        let on: Vec<(usize, &Variable)> = (fields.iter().enumerate())
            .filter(|(_, f)| f.0 == unit)
            .map(|(i, f)| (i, f.1))
            .collect();
        let done = on
            .iter()
            .filter(|(_, v)| mine.contains_key(v.name.as_str()))
            .count();
        ui.label(format!("{done} of {} coded by {me}", on.len()))
            .on_hover_text(KEYS_TIP);
        let mut answered = None;
        for (i, var) in on {
            let current = mine.get(var.name.as_str()).copied();
            if self.field(ui, unit, var, current, i, keys, out) {
                answered = Some(i);
            }
        }
        answered
    }

    /// One variable's field on `unit`, the `i`th the keys walk; whether the person answered
    /// it by a key (the keys then move on).
    #[allow(clippy::too_many_arguments)]
    fn field(
        &mut self,
        ui: &mut egui::Ui,
        unit: Unit,
        var: &Variable,
        current: Option<&Answer>,
        i: usize,
        keys: Keys,
        out: &mut Vec<ProjectAction>,
    ) -> bool {
        let mut set = |variable: &str, raw: String| {
            out.push(ProjectAction::SetValue {
                unit,
                variable: variable.to_string(),
                raw,
            });
        };
        let mut answered = false;
        let focused = i == self.focus;
        ui.add_space(4.0);
        let name = if focused {
            egui::RichText::new(format!("» {}", var.name))
                .strong()
                .color(ui.visuals().selection.stroke.color)
        } else {
            egui::RichText::new(&var.name).strong()
        };
        let heading = ui.label(name);
        let heading_id = heading.id;
        if !var.question.is_empty() {
            heading.on_hover_text(format!("{}\n\n{}", var.question, var.instructions));
        }
        let keyed = (focused && keys.free)
            .then(|| {
                ui.input(|i| {
                    if !i.modifiers.is_none() {
                        return None;
                    }
                    (1..=9)
                        .find(|d| i.key_pressed(digit_key(*d)))
                        .map(Key::Digit)
                        .or_else(|| i.key_pressed(egui::Key::Num0).then_some(Key::NotApplicable))
                        .or_else(|| {
                            i.key_pressed(egui::Key::Backspace)
                                .then_some(Key::CannotCode)
                        })
                })
            })
            .flatten();
        match var.kind {
            Kind::One => {
                one_value(ui, var, current, focused, &mut set);
                if let Some(Key::Digit(d)) = keyed
                    && let Some(value) = var.values.get(d - 1)
                {
                    set(&var.name, value.code.to_string());
                    answered = true;
                }
            }
            Kind::Several => {
                several_values(ui, var, current, &mut set);
                if let Some(Key::Digit(d)) = keyed
                    && let Some(value) = var.values.get(d - 1)
                {
                    let mut chosen = chosen_codes(current);
                    if chosen.contains(&value.code) {
                        chosen.retain(|c| *c != value.code);
                    } else {
                        chosen.push(value.code);
                    }
                    let list: Vec<String> = chosen.iter().map(i64::to_string).collect();
                    set(&var.name, list.join(","));
                }
            }
            Kind::Number | Kind::Note => {
                let typed = self
                    .typed
                    .entry(var.name.clone())
                    .or_insert_with(|| match current {
                        Some(Answer::Value(v)) => v.clone(),
                        _ => String::new(),
                    });
                ui.horizontal(|ui| {
                    let field = ui
                        .add(
                            egui::TextEdit::singleline(typed)
                                .desired_width(120.0)
                                .hint_text(if var.kind == Kind::Number {
                                    "a number"
                                } else {
                                    "a note"
                                }),
                        )
                        .labelled_by(heading_id);
                    // Not in the frame of an arrow key: egui moves the keyboard focus
                    // along an arrow at the end of that frame, away from the field.
                    if focused && self.focus_field {
                        if keys.arrow {
                            ui.ctx().request_repaint();
                        } else {
                            field.request_focus();
                            self.focus_field = false;
                        }
                    }
                    if field.gained_focus() {
                        self.focus = i;
                    }
                    let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    if ui.button("Save").clicked() || enter {
                        set(&var.name, typed.clone());
                        answered |= enter;
                    }
                });
            }
        }
        if let Some(k @ (Key::NotApplicable | Key::CannotCode)) = keyed {
            let code = if k == Key::NotApplicable {
                var.not_applicable
            } else {
                var.cannot_code
            };
            if let Some(code) = code {
                set(&var.name, code.to_string());
                answered = true;
            }
        }
        missing_buttons(ui, var, current, &mut set);
        answered
    }

    /// The round bar: which round, where this story is in it, how far the coder is, and the
    /// steps to the next and previous story (`]` and `[`); the cluster to go to.
    fn round_bar(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        run: RunId,
        cluster: Option<u32>,
        variables: &[&Variable],
    ) -> Option<u32> {
        let me = session.annotator.as_str();
        let rounds: Vec<&Round> = (session.codes.rounds.iter())
            .filter(|r| r.run == run && r.coders.iter().any(|c| c == me))
            .collect();
        if rounds.is_empty() {
            return None;
        }
        if self
            .round
            .as_ref()
            .is_none_or(|n| !rounds.iter().any(|r| r.name == *n))
        {
            self.round = Some(rounds[0].name.clone());
        }
        let round = rounds
            .iter()
            .find(|r| Some(&r.name) == self.round.as_ref())?;
        let scored: Vec<&&Variable> = variables.iter().filter(|v| v.kind != Kind::Note).collect();
        let coded = |c: i64| {
            let unit = Unit::Story { run, cluster: c };
            let mine = mine(session, &unit, me);
            scored.iter().all(|v| mine.contains_key(v.name.as_str()))
        };
        let done = round.units.iter().filter(|(c, _)| coded(*c)).count();
        let at = cluster.and_then(|c| round.units.iter().position(|(u, _)| *u == i64::from(c)));
        let mut goto = None;
        ui.horizontal_wrapped(|ui| {
            if rounds.len() > 1 {
                let label = ui.label("Round");
                egui::ComboBox::from_id_salt("round")
                    .selected_text(round.name.as_str())
                    .show_ui(ui, |ui| {
                        for r in &rounds {
                            ui.selectable_value(&mut self.round, Some(r.name.clone()), &r.name);
                        }
                    })
                    .response
                    .labelled_by(label.id);
            } else {
                ui.label(format!("Round {}", round.name));
            }
            ui.label(match at {
                Some(i) => format!("story {} of {}", i + 1, round.units.len()),
                None => format!("{} stories (this one is not in it)", round.units.len()),
            });
            ui.label(format!("· {done} coded by {me}"));
        });
        if round.blind {
            ui.weak("Blind: you see only your own values.");
        }
        let unit_at = |i: usize| round.units.get(i).and_then(|(c, _)| u32::try_from(*c).ok());
        let keys = !ui.ctx().egui_wants_keyboard_input();
        let (next_key, prev_key, open_key) = ui.input(|i| {
            (
                keys && i.key_pressed(egui::Key::CloseBracket),
                keys && i.key_pressed(egui::Key::OpenBracket),
                keys && i.key_pressed(egui::Key::U) && i.modifiers.is_none(),
            )
        });
        ui.horizontal(|ui| {
            let prev = ui
                .add_enabled(at.is_some_and(|i| i > 0), egui::Button::new("‹ Previous"))
                .on_hover_text("The previous story of the round ([)");
            if prev.clicked() || (prev_key && at.is_some_and(|i| i > 0)) {
                goto = at.and_then(|i| unit_at(i - 1));
            }
            let last = at.is_some_and(|i| i + 1 >= round.units.len());
            let next = ui
                .add_enabled(!last, egui::Button::new("Next ›"))
                .on_hover_text("The next story of the round (])");
            if next.clicked() || (next_key && !last) {
                goto = unit_at(at.map_or(0, |i| i + 1));
            }
            let open = (round.units.iter())
                .map(|(c, _)| *c)
                .enumerate()
                .find(|(i, c)| Some(*i) != at && !coded(*c));
            if ui
                .add_enabled(open.is_some(), egui::Button::new("Next uncoded"))
                .on_hover_text("The first story of the round you have not coded yet (U)")
                .clicked()
                || open_key
            {
                goto = open.and_then(|(i, _)| unit_at(i));
            }
        });
        goto
    }
}

/// The keys' state in this frame: free for the panel (no text field has them), an arrow key
/// pressed.
#[derive(Debug, Clone, Copy)]
struct Keys {
    free: bool,
    arrow: bool,
}

/// The tooltip of the progress line.
const KEYS_TIP: &str = "Keys: Up and Down choose the variable (»), 1–9 its value, 0 not \
                        applicable, Backspace cannot code; Enter saves a number or note; ] and \
                        [ the next and previous story of the round, U the first you have not coded";

/// A key the focused variable answers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Digit(usize),
    NotApplicable,
    CannotCode,
}

/// `me`'s own values on `unit`, by variable.
fn mine<'a>(session: &'a ProjectSession, unit: &Unit, me: &str) -> BTreeMap<&'a str, &'a Answer> {
    session
        .codes
        .values
        .get(unit)
        .into_iter()
        .flatten()
        .filter(|v| v.coder == me && v.role == Role::Coder)
        .map(|v| (v.variable.as_str(), &v.answer))
        .collect()
}

/// The options of a several-values answer.
fn chosen_codes(current: Option<&Answer>) -> Vec<i64> {
    match current {
        Some(Answer::Value(v)) => v.split(',').filter_map(|c| c.parse().ok()).collect(),
        _ => Vec::new(),
    }
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
}

pub(super) fn digit_key(d: usize) -> egui::Key {
    use egui::Key::*;
    [Num1, Num2, Num3, Num4, Num5, Num6, Num7, Num8, Num9][d - 1]
}

fn several_values(
    ui: &mut egui::Ui,
    var: &Variable,
    current: Option<&Answer>,
    set: &mut impl FnMut(&str, String),
) {
    let mut chosen = chosen_codes(current);
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
