//! Labelling (henzinger §3): the Labels tab makes a sample of the active run's pairs (uniform,
//! or stratified by similarity band and optionally split into same-site / different-site
//! pairs; size, seed, blind mode), lists the project's samples with reviewed markers, and shows
//! precision per stratum with Wilson intervals, Cohen's kappa between annotators and the
//! disagreements to settle. The labelling bar sits on top of the pair view: single keys judge
//! the pair (C / I / U), digits choose the paper's reason, N writes a note, Ctrl+Z undoes,
//! J / K move; a verdict moves on to the next unlabelled pair.
//!
//! In: the session's snapshots ([`super::session::ProjectSession`]). Out: [`ProjectAction`]s.

use egui::{Key, KeyboardShortcut, Modifiers};

use super::action::Action;
use super::session::ProjectSession;
use super::view::{View, ViewContext};
use crate::labels::sample::SamplePlan;
use crate::labels::{LabelInput, Reason, Verdict};

use super::action::ProjectAction;
use super::project::SampleSnapshot;

/// Undo the last label (Ctrl+Z).
pub const SHORTCUT_UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);

/// Keys of the labelling bar, for the help overlay.
pub const KEYS: &[(&str, &str)] = &[
    (
        "C / I / U",
        "Labelling: correct / incorrect / undecided, then the next pair",
    ),
    (
        "1 ... 9, 0",
        "Labelling: reason (URL only ... other), before the verdict",
    ),
    ("N", "Labelling: write a note (Enter ends it)"),
    ("Ctrl+Z", "Labelling: undo the last label"),
    ("J / K", "Labelling: next / previous pair of the sample"),
];

/// The digit keys 1–9 then 0: reasons here, Alt+digit switches tabs.
pub(super) const DIGITS: [Key; 10] = [
    Key::Num1,
    Key::Num2,
    Key::Num3,
    Key::Num4,
    Key::Num5,
    Key::Num6,
    Key::Num7,
    Key::Num8,
    Key::Num9,
    Key::Num0,
];

/// State of the Labels tab and of the labelling bar.
pub struct LabelsView {
    name: String,
    stratified: bool,
    size: usize,
    bands: String,
    per_stratum: usize,
    split_site: bool,
    seed: u64,
    blind: bool,
    /// Labelling in the pair view is on.
    pub labelling: bool,
    /// The sample position shown in the pair view.
    pub position: Option<u32>,
    /// The pages of that sample pair: a verdict is taken only while the pair view shows them.
    pub pair_docs: Option<(crate::DocId, crate::DocId)>,
    reason: Option<Reason>,
    note: String,
    focus_note: bool,
}

impl Default for LabelsView {
    fn default() -> Self {
        LabelsView {
            name: "sample 1".into(),
            stratified: false,
            size: 50,
            bands: "0.4, 0.6, 0.8, 1".into(),
            per_stratum: 25,
            split_site: false,
            seed: 0,
            blind: false,
            labelling: false,
            position: None,
            pair_docs: None,
            reason: None,
            note: String::new(),
            focus_note: false,
        }
    }
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Correct => "C",
        Verdict::Incorrect => "I",
        Verdict::Undecided => "U",
    }
}

/// The position after `p` to label next: the first unlabelled one after it, else before it.
pub fn next_unlabelled(s: &SampleSnapshot, p: u32) -> Option<u32> {
    let open = |q: &u32| *q != p && s.mine.get(*q as usize).is_some_and(Option::is_none);
    let n = s.pairs.len() as u32;
    ((p + 1)..n).find(open).or_else(|| (0..p).find(open))
}

impl LabelsView {
    fn plan(&self) -> Result<SamplePlan, String> {
        if !self.stratified {
            return Ok(SamplePlan::Uniform { size: self.size });
        }
        let mut edges = Vec::new();
        for part in self
            .bands
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            edges.push(
                part.parse::<f64>()
                    .map_err(|_| format!("band edge {part:?} is not a number"))?,
            );
        }
        Ok(SamplePlan::Stratified {
            edges,
            per_stratum: self.per_stratum,
            split_by_site: self.split_site,
        })
    }

    /// Draw the Labels tab.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        session: &mut ProjectSession,
        has_run: bool,
    ) -> Vec<ProjectAction> {
        let mut out = Vec::new();
        if !session.is_open() {
            ui.label("Open or create a project (Project, on the left) to sample and label pairs.");
            return out;
        }
        ui.horizontal(|ui| {
            let label = ui.label("Annotator");
            let r = ui
                .add(egui::TextEdit::singleline(&mut session.annotator).desired_width(140.0))
                .labelled_by(label.id)
                .on_hover_text("Labels and codes are saved under this name");
            if r.lost_focus()
                && let Some(s) = &session.sample
            {
                out.push(ProjectAction::SelectSample(s.info.id));
            }
        });
        egui::CollapsingHeader::new("New sample")
            .id_salt("new_sample")
            .default_open(session.samples.is_empty())
            .show(ui, |ui| self.sample_form(ui, has_run, &mut out));
        ui.separator();
        ui.strong("Samples");
        let current = session.sample.as_ref().map(|s| s.info.id);
        for s in &session.samples {
            let text = format!(
                "{} ({} pairs, {}{})",
                s.name,
                s.size,
                s.method,
                if s.blind { ", blind" } else { "" }
            );
            if ui.selectable_label(current == Some(s.id), text).clicked() {
                out.push(ProjectAction::SelectSample(s.id));
            }
        }
        if session.samples.is_empty() {
            ui.weak("No sample yet.");
        }
        if let Some(s) = session.sample.clone() {
            ui.separator();
            if ui
                .button("Export sample…")
                .on_hover_text(
                    "Every pair with its labels, settlement and stratum weight, as CSV, TSV, \
                     JSON Lines or Parquet",
                )
                .clicked()
            {
                out.push(ProjectAction::ExportSample);
            }
            self.sample_details(ui, &s, &mut out);
        }
        out
    }

    fn sample_form(&mut self, ui: &mut egui::Ui, has_run: bool, out: &mut Vec<ProjectAction>) {
        egui::Grid::new("sample_form")
            .num_columns(2)
            .show(ui, |ui| {
                let l = ui.label("Sample name");
                ui.text_edit_singleline(&mut self.name).labelled_by(l.id);
                ui.end_row();
                ui.label("Method");
                ui.horizontal(|ui| {
                    ui.radio_value(&mut self.stratified, false, "Uniform");
                    ui.radio_value(&mut self.stratified, true, "Stratified by similarity");
                });
                ui.end_row();
                if self.stratified {
                    let l = ui.label("Band edges");
                    ui.text_edit_singleline(&mut self.bands)
                        .labelled_by(l.id)
                        .on_hover_text("Ascending similarity edges, e.g. 0.4, 0.6, 0.8, 1");
                    ui.end_row();
                    let l = ui.label("Pairs per stratum");
                    ui.add(egui::DragValue::new(&mut self.per_stratum).range(1..=10_000))
                        .labelled_by(l.id);
                    ui.end_row();
                    ui.label("");
                    ui.checkbox(&mut self.split_site, "Split same-site / different-site");
                    ui.end_row();
                } else {
                    let l = ui.label("Pairs");
                    ui.add(egui::DragValue::new(&mut self.size).range(1..=100_000))
                        .labelled_by(l.id);
                    ui.end_row();
                }
                let l = ui.label("Seed");
                ui.add(egui::DragValue::new(&mut self.seed))
                    .labelled_by(l.id);
                ui.end_row();
                ui.label("");
                ui.checkbox(&mut self.blind, "Blind (hide scores and detector)");
                ui.end_row();
            });
        let make = ui
            .add_enabled(has_run, egui::Button::new("Make sample"))
            .on_hover_text("From the pairs of the active detector's run")
            .on_disabled_hover_text("Run a detector first");
        if make.clicked() {
            match self.plan() {
                Ok(plan) => {
                    out.push(ProjectAction::MakeSample {
                        name: self.name.trim().to_string(),
                        plan,
                        seed: self.seed,
                        blind: self.blind,
                    });
                    self.name = bump_name(&self.name);
                }
                Err(e) => out.push(ProjectAction::Notice(e)),
            }
        }
    }

    fn sample_details(
        &mut self,
        ui: &mut egui::Ui,
        s: &SampleSnapshot,
        out: &mut Vec<ProjectAction>,
    ) {
        ui.horizontal(|ui| {
            ui.strong(&s.info.name);
            ui.label(format!(
                "Labelled {} of {}",
                s.progress.labelled, s.progress.total
            ));
            let next = s.mine.iter().position(Option::is_none).unwrap_or(0) as u32;
            if ui
                .add_enabled(!s.pairs.is_empty(), egui::Button::new("Label pairs"))
                .on_hover_text("Judge the pairs one by one in the pair view (C / I / U)")
                .clicked()
            {
                out.push(ProjectAction::Goto(next));
            }
        });
        self.pair_list(ui, s, out);
        ui.separator();
        Self::precision_table(ui, s);
        if s.annotators.len() < 2 {
            ui.weak("Agreement needs a second annotator on this sample.");
            return;
        }
        ui.separator();
        ui.strong("Agreement");
        for (a, b, agreement) in &s.agreements {
            ui.label(format!(
                "Cohen's kappa {a} / {b}: {} on {} pairs both judged",
                agreement
                    .kappa
                    .map(|k| format!("{k:.2}"))
                    .unwrap_or_else(|| "n/a".into()),
                agreement.items
            ));
        }
        if s.unsettled.is_empty() {
            ui.weak("No disagreement left to settle.");
            return;
        }
        Self::disagreements(ui, s, out);
    }

    /// The sample's pairs, one line each with the reviewer's mark; a click shows the pair.
    fn pair_list(&self, ui: &mut egui::Ui, s: &SampleSnapshot, out: &mut Vec<ProjectAction>) {
        let blind = s.info.blind;
        egui::CollapsingHeader::new(format!("Pairs ({})", s.pairs.len()))
            .id_salt("sample_pairs")
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("sample_pairs_scroll")
                    .max_height(220.0)
                    .show_rows(ui, 18.0, s.pairs.len(), |ui, range| {
                        for p in &s.pairs[range] {
                            let mark = s
                                .mine
                                .get(p.position as usize)
                                .and_then(|m| m.as_ref())
                                .map_or("-", |l| verdict_text(l.verdict));
                            let mut text = format!(
                                "{:>4} [{mark}] {}  |  {}",
                                p.position + 1,
                                p.a.identity.url.as_deref().unwrap_or(&p.a.identity.key),
                                p.b.identity.url.as_deref().unwrap_or(&p.b.identity.key)
                            );
                            if !blind {
                                text.push_str(&format!(
                                    "  ({}, {})",
                                    p.stratum,
                                    p.score.map(|v| format!("{v:.3}")).unwrap_or_default()
                                ));
                            }
                            if ui
                                .selectable_label(self.position == Some(p.position), text)
                                .clicked()
                            {
                                out.push(ProjectAction::Goto(p.position));
                            }
                        }
                    });
            });
    }

    /// In a blind sample: how far labelling is in each stratum, without the strata's score
    /// bands, verdict counts or precision (which would tell an annotator what the detector
    /// thought). Strata are numbered in the order they were drawn.
    fn blind_progress(ui: &mut egui::Ui, s: &SampleSnapshot) {
        ui.strong("Progress per stratum (blind sample: score bands and precision hidden)");
        let mut strata: Vec<&str> = Vec::new();
        for p in &s.pairs {
            if !strata.contains(&p.stratum.as_str()) {
                strata.push(&p.stratum);
            }
        }
        let judged_by_anyone: std::collections::HashSet<u32> =
            s.labels.iter().map(|l| l.position).collect();
        egui::Grid::new("blind_progress")
            .striped(true)
            .show(ui, |ui| {
                for h in [
                    "Stratum",
                    "Pairs drawn",
                    "Judged by you",
                    "Judged by anyone",
                ] {
                    ui.strong(h);
                }
                ui.end_row();
                for (k, name) in strata.iter().enumerate() {
                    let pairs: Vec<u32> = s
                        .pairs
                        .iter()
                        .filter(|p| p.stratum == *name)
                        .map(|p| p.position)
                        .collect();
                    let mine = pairs
                        .iter()
                        .filter(|&&p| s.mine.get(p as usize).is_some_and(Option::is_some))
                        .count();
                    let anyone = pairs
                        .iter()
                        .filter(|p| judged_by_anyone.contains(p))
                        .count();
                    ui.label(format!("Stratum {}", k + 1));
                    ui.label(pairs.len().to_string());
                    ui.label(mine.to_string());
                    ui.label(anyone.to_string());
                    ui.end_row();
                }
            });
    }

    /// Precision per stratum and overall.
    fn precision_table(ui: &mut egui::Ui, s: &SampleSnapshot) {
        let blind = s.info.blind;
        if blind {
            Self::blind_progress(ui, s);
            return;
        }
        ui.strong("Precision (95% Wilson intervals; settled or agreed verdicts)");
        let e = &s.estimate;
        egui::Grid::new("precision").striped(true).show(ui, |ui| {
            for h in ["Stratum", "Pairs in run", "Judged", "Correct", "Precision"] {
                ui.strong(h);
            }
            ui.end_row();
            for st in &e.strata {
                ui.label(if blind { "(hidden)" } else { st.name.as_str() });
                ui.label(st.population.to_string());
                ui.label(st.counts.judged().to_string());
                ui.label(st.counts.correct.to_string());
                ui.label(interval(st.precision));
                ui.end_row();
            }
            ui.label("Overall (weighted)");
            ui.label("");
            ui.label(e.counts.judged().to_string());
            ui.label(e.counts.correct.to_string());
            ui.label(interval(e.overall));
            ui.end_row();
        });
        ui.label(format!(
            "Undecided: {} (counted as not correct: they are in Judged, not in Correct)",
            e.counts.undecided
        ));
    }

    /// The disagreements between annotators, each with its settle buttons.
    fn disagreements(ui: &mut egui::Ui, s: &SampleSnapshot, out: &mut Vec<ProjectAction>) {
        ui.label(format!("{} disagreements to settle", s.unsettled.len()));
        for &pos in &s.unsettled {
            ui.horizontal(|ui| {
                let said: Vec<String> = s
                    .labels
                    .iter()
                    .filter(|l| l.position == pos)
                    .map(|l| format!("{}: {}", l.annotator, l.label.verdict))
                    .collect();
                if ui.button(format!("Pair {}", pos + 1)).clicked() {
                    out.push(ProjectAction::Goto(pos));
                }
                ui.label(said.join(", "));
                for v in Verdict::ALL {
                    if ui.small_button(format!("Settle {}", v.as_str())).clicked() {
                        out.push(ProjectAction::Settle {
                            position: pos,
                            verdict: v,
                        });
                    }
                }
            });
        }
    }

    /// The labelling bar over the pair view, with its keys.
    pub fn bar(&mut self, ui: &mut egui::Ui, s: &SampleSnapshot) -> Vec<ProjectAction> {
        let mut out = Vec::new();
        let n = s.pairs.len() as u32;
        let Some(pos) = self.position.filter(|p| *p < n) else {
            ui.label("No pair of the sample chosen.");
            return out;
        };
        let mut verdict = None;
        self.bar_keys(ui, pos, n, &mut verdict, &mut out);
        Self::bar_status(ui, s, pos, n);
        self.bar_controls(ui, pos, n, &mut verdict, &mut out);
        if let Some(v) = verdict {
            let label = LabelInput {
                verdict: v,
                reason: self.reason.take(),
                note: std::mem::take(&mut self.note).trim().to_string(),
            };
            let next = next_unlabelled(s, pos);
            out.push(ProjectAction::Label {
                position: pos,
                label,
                next,
            });
            if next.is_none() {
                out.push(ProjectAction::Notice(
                    "Every pair of the sample is labelled".into(),
                ));
            }
        }
        ui.separator();
        out
    }

    /// The keys of labelling: C / I / U verdicts, digits the reason, N the note, J / K move,
    /// Ctrl+Z undo.
    fn bar_keys(
        &mut self,
        ui: &mut egui::Ui,
        pos: u32,
        n: u32,
        verdict: &mut Option<Verdict>,
        out: &mut Vec<ProjectAction>,
    ) {
        if !ui.ctx().egui_wants_keyboard_input() {
            ui.input_mut(|i| {
                if i.consume_shortcut(&SHORTCUT_UNDO) {
                    out.push(ProjectAction::UndoLabel);
                }
                if i.modifiers.is_none() {
                    for (key, v) in [
                        (Key::C, Verdict::Correct),
                        (Key::I, Verdict::Incorrect),
                        (Key::U, Verdict::Undecided),
                    ] {
                        if i.key_pressed(key) {
                            *verdict = Some(v);
                        }
                    }
                    for (key, r) in DIGITS.iter().zip(Reason::ALL) {
                        if i.key_pressed(*key) {
                            self.reason = Some(r);
                        }
                    }
                    if i.key_pressed(Key::N) {
                        self.focus_note = true;
                    }
                    if i.key_pressed(Key::J) && pos + 1 < n {
                        out.push(ProjectAction::Goto(pos + 1));
                    }
                    if i.key_pressed(Key::K) && pos > 0 {
                        out.push(ProjectAction::Goto(pos - 1));
                    }
                }
            });
        }
    }

    /// Where the labelling stands: sample, annotator, position, progress, this pair.
    fn bar_status(ui: &mut egui::Ui, s: &SampleSnapshot, pos: u32, n: u32) {
        let mine = s.mine.get(pos as usize).and_then(|m| m.as_ref());
        ui.horizontal_wrapped(|ui| {
            ui.strong(format!("Labelling {} as {}", s.info.name, s.annotator));
            ui.label(format!("Pair {} of {}", pos + 1, n));
            ui.label(format!(
                "Labelled {} of {}",
                s.progress.labelled, s.progress.total
            ));
            ui.label(match mine {
                Some(l) => format!("Reviewed: {}", l.verdict),
                None => "Not reviewed yet".into(),
            });
            if !s.info.blind
                && let Some(p) = s.pairs.get(pos as usize)
            {
                let score = p
                    .score
                    .map(|v| format!(", score {v:.3}"))
                    .unwrap_or_default();
                ui.weak(format!("stratum {}{score}", p.stratum))
                    .on_hover_text(
                        "The similarity band the pair was drawn from, and the detector's score of \
                     the pair (hidden in a blind sample)",
                    );
            }
        });
    }

    /// The verdict buttons, reason, note and navigation.
    fn bar_controls(
        &mut self,
        ui: &mut egui::Ui,
        pos: u32,
        n: u32,
        verdict: &mut Option<Verdict>,
        out: &mut Vec<ProjectAction>,
    ) {
        ui.horizontal_wrapped(|ui| {
            for (v, text, key) in [
                (Verdict::Correct, "Correct", "C"),
                (Verdict::Incorrect, "Incorrect", "I"),
                (Verdict::Undecided, "Undecided", "U"),
            ] {
                if ui
                    .button(format!("{text} ({key})"))
                    .on_hover_text(format!("{key}: label this pair {}, then go on", v.as_str()))
                    .clicked()
                {
                    *verdict = Some(v);
                }
            }
            let l = ui.label("Reason");
            egui::ComboBox::from_id_salt("label_reason")
                .selected_text(self.reason.map_or("none", Reason::title))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.reason, None, "none");
                    for (i, r) in Reason::ALL.into_iter().enumerate() {
                        let digit = (i + 1) % 10;
                        ui.selectable_value(
                            &mut self.reason,
                            Some(r),
                            format!("{digit} {}", r.title()),
                        );
                    }
                })
                .response
                .labelled_by(l.id)
                .on_hover_text("Digits 1 ... 9, 0 choose the reason (henzinger Tables 3, 4)");
            let l = ui.label("Note");
            let note = ui
                .add(egui::TextEdit::singleline(&mut self.note).desired_width(180.0))
                .labelled_by(l.id)
                .on_hover_text("N: write a note; Enter: done");
            if self.focus_note {
                note.request_focus();
                self.focus_note = false;
            }
            if ui
                .button("Undo (Ctrl+Z)")
                .on_hover_text("Undo your last label in this sample")
                .clicked()
            {
                out.push(ProjectAction::UndoLabel);
            }
            if ui
                .add_enabled(pos > 0, egui::Button::new("Previous (K)"))
                .clicked()
            {
                out.push(ProjectAction::Goto(pos - 1));
            }
            if ui
                .add_enabled(pos + 1 < n, egui::Button::new("Next (J)"))
                .clicked()
            {
                out.push(ProjectAction::Goto(pos + 1));
            }
            if ui.button("Stop labelling").clicked() {
                out.push(ProjectAction::StopLabelling);
            }
        });
    }

    /// Forget the pair shown (another sample was chosen).
    pub fn reset_position(&mut self) {
        self.position = None;
        self.pair_docs = None;
        self.reason = None;
        self.note.clear();
    }

    /// Show sample pair `position` (pages `docs`): its own stored reason and note, or none, so
    /// what was typed for one pair never rides along to another.
    pub fn show_pair(
        &mut self,
        position: u32,
        docs: (crate::DocId, crate::DocId),
        mine: Option<&LabelInput>,
    ) {
        self.labelling = true;
        self.position = Some(position);
        self.pair_docs = Some(docs);
        self.reason = mine.and_then(|l| l.reason);
        self.note = mine.map(|l| l.note.clone()).unwrap_or_default();
        self.focus_note = false;
    }

    /// While the pair view shows other pages than the sample pair (a cluster was browsed):
    /// no verdict is taken; the way back to the pair or out of labelling.
    pub fn elsewhere_bar(&mut self, ui: &mut egui::Ui, s: &SampleSnapshot) -> Vec<ProjectAction> {
        let mut out = Vec::new();
        let Some(pos) = self.position else {
            return out;
        };
        ui.horizontal_wrapped(|ui| {
            ui.strong(format!("Labelling {} as {}", s.info.name, s.annotator));
            ui.label(format!(
                "The pair shown is not pair {} of the sample: C / I / U label nothing here.",
                pos + 1
            ));
            if ui.button(format!("Back to pair {}", pos + 1)).clicked() {
                out.push(ProjectAction::Goto(pos));
            }
            if ui.button("Stop labelling").clicked() {
                out.push(ProjectAction::StopLabelling);
            }
        });
        ui.separator();
        out
    }
}

fn interval(i: Option<crate::labels::stats::Interval>) -> String {
    i.map(|i| format!("{:.2} [{:.2}, {:.2}]", i.estimate, i.lo, i.hi))
        .unwrap_or_else(|| "-".into())
}

/// "sample 1" -> "sample 2"; other names get " 2".
fn bump_name(name: &str) -> String {
    let name = name.trim();
    match name.rsplit_once(' ') {
        Some((head, n)) if n.parse::<u64>().is_ok() => {
            format!("{head} {}", n.parse::<u64>().unwrap_or(0) + 1)
        }
        _ => format!("{name} 2"),
    }
}

impl View for LabelsView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        let has_run = !cx.runs.is_empty();
        let asked = self.show(ui, cx.project, has_run);
        cx.actions.extend(asked.into_iter().map(Action::Project));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_edges_are_parsed_and_bad_ones_named() {
        let mut v = LabelsView {
            stratified: true,
            bands: "0.5, 0.7,1".into(),
            split_site: true,
            ..LabelsView::default()
        };
        assert_eq!(
            v.plan(),
            Ok(SamplePlan::Stratified {
                edges: vec![0.5, 0.7, 1.0],
                per_stratum: 25,
                split_by_site: true
            })
        );
        v.bands = "0.5, high".into();
        assert!(v.plan().unwrap_err().contains("\"high\""));
        v.stratified = false;
        assert_eq!(v.plan(), Ok(SamplePlan::Uniform { size: 50 }));
    }

    #[test]
    fn sample_names_count_up() {
        assert_eq!(bump_name("sample 1"), "sample 2");
        assert_eq!(bump_name("pilot"), "pilot 2");
        assert_eq!(bump_name(" round 9 "), "round 10");
    }
}
