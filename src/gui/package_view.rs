//! A coder's package opened in the workbench (`samecore PACKAGE`, or dropped on the window): a
//! coding-only view. The round's stories on the left with what is done, the selected story's
//! core text and details in the middle (its page opens as the package's safe view: no script,
//! nothing fetched), its variables on the right with the keys of the Clusters tab's Coding
//! panel (Up/Down, 1–9, 0, Backspace, Enter), `]` / `[` the next and previous story, U the
//! first not coded, Ctrl+Z undo. Every answer is written to the package at once, so a crash
//! loses nothing. What needs the archive or the project (runs, samples, the other tabs) is not
//! shown.
//!
//! A package of pairs opens into the labelling view instead: the pairs on the left with what is
//! judged, the labelling bar of the Labels tab (C / I / U, digit reasons, N note, J / K, Ctrl+Z)
//! over the pair view of the project (terms and their diff, raw pages, aligned passages with
//! each page's site frame left out as the package carries it, and the derivation class to
//! record). The pages are compared in memory ([`crate::session::Session::of_pages`]).
//!
//! In: a [`Package`]. Out: its values or labels, and notes for the message bar.

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
    pairs: Option<PairsState>,
    package: Package,
    units: Vec<PackageUnit>,
    values: Vec<PackageValue>,
    others: Vec<(i64, String, String, Answer)>,
    selected: usize,
    /// The story's page whose variables are shown (an index into its members).
    member: usize,
    /// The story `member` is of: another story starts at its first page.
    member_of: usize,
    fields: VariablesPanel,
}

impl PackageView {
    /// Open the package at `path` to code in it.
    pub fn open(path: &Path) -> crate::Result<PackageView> {
        let package = Package::open(path)?;
        let units = package.units()?;
        let values = package.values()?;
        let others = package.others()?;
        let pairs = (package.info.kind == crate::store::packages::PackageKind::Sample)
            .then(|| PairsState::new(&package))
            .transpose()?;
        let mut view = PackageView {
            pairs,
            package,
            units,
            values,
            others,
            selected: 0,
            member: 0,
            member_of: 0,
            fields: VariablesPanel::default(),
        };
        view.selected = view.first_open().unwrap_or(0);
        Ok(view)
    }

    /// "Round r1 for ana" ("Sample s1 for ana").
    pub fn title(&self) -> String {
        let i = &self.package.info;
        match i.kind {
            crate::store::packages::PackageKind::Round => {
                format!("Round {} for {}", i.round, i.coder)
            }
            crate::store::packages::PackageKind::Sample => {
                format!("Sample {} for {}", i.round, i.coder)
            }
        }
    }

    fn variables(&self) -> Vec<&Variable> {
        (self.package.info.codebook.variables.iter())
            .filter(|v| v.unit == UnitKind::Story)
            .collect()
    }

    fn mine(&self, position: i64) -> BTreeMap<&str, &Answer> {
        (self.values.iter())
            .filter(|v| v.position == position && v.page.is_none())
            .map(|v| (v.variable.as_str(), &v.answer))
            .collect()
    }

    fn page_variables(&self) -> Vec<&Variable> {
        (self.package.info.codebook.variables.iter())
            .filter(|v| v.unit == UnitKind::Page)
            .collect()
    }

    /// The coder's answers on the story's page `key`.
    fn page_mine(&self, position: i64, key: &str) -> BTreeMap<&str, &Answer> {
        (self.values.iter())
            .filter(|v| v.position == position && v.page.as_deref() == Some(key))
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
        if let Some(mut pairs) = self.pairs.take() {
            pairs.ui(ui, &mut self.package, &mut outcome);
            self.pairs = Some(pairs);
            return outcome;
        }
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
        if self.member_of != self.selected {
            self.member = 0;
            self.member_of = self.selected;
        }
        let mut member = self.member;
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
                            "{} of {} story variables coded by {}",
                            variables
                                .iter()
                                .filter(|v| mine.contains_key(v.name.as_str()))
                                .count(),
                            variables.len(),
                            self.package.info.coder
                        ));
                        let pages = self.page_variables();
                        let members = self.package.members(position).unwrap_or_default();
                        if pages.is_empty() || members.is_empty() {
                            fields.unit_ui(ui, story, &variables, &mine, &mut asked);
                        } else {
                            // J / K choose the story's page whose variables follow the story's.
                            let keys = !ui.ctx().egui_wants_keyboard_input();
                            let (j, k) = ui.input(|i| {
                                (
                                    keys && i.modifiers.is_none() && i.key_pressed(egui::Key::J),
                                    keys && i.modifiers.is_none() && i.key_pressed(egui::Key::K),
                                )
                            });
                            let last = members.len() - 1;
                            let mut at = member.min(last);
                            if j && at < last {
                                at += 1;
                            }
                            if k && at > 0 {
                                at -= 1;
                            }
                            let name = |m: &crate::package::PackageMember| {
                                format!(
                                    "{} — {}",
                                    m.site.as_deref().unwrap_or("?"),
                                    m.title.as_deref().unwrap_or(&m.key)
                                )
                            };
                            let page_mine = self.page_mine(position, &members[at].key);
                            let page_unit = Unit::Page(crate::store::PageId(at as i64));
                            let mut chosen = at;
                            // The page's heading and chooser sit between the story's fields and
                            // the page's.
                            let mut head = |ui: &mut egui::Ui, n: usize| {
                                if n != 1 {
                                    return;
                                }
                                ui.add_space(8.0);
                                ui.strong("Page variables");
                                let l = ui.label(format!(
                                    "Page {} of {} (J / K)",
                                    at + 1,
                                    members.len()
                                ));
                                egui::ComboBox::from_id_salt("package_member")
                                    .selected_text(name(&members[at]))
                                    .width(220.0)
                                    .show_ui(ui, |ui| {
                                        for (i, m) in members.iter().enumerate() {
                                            ui.selectable_value(&mut chosen, i, name(m));
                                        }
                                    })
                                    .response
                                    .labelled_by(l.id)
                                    .on_hover_text("The story's page coded below (J / K)");
                            };
                            fields.units_ui(
                                ui,
                                &[(story, &variables, &mine), (page_unit, &pages, &page_mine)],
                                &mut asked,
                                &mut head,
                            );
                            member = chosen;
                            ui.weak(format!("Core of this page: {}", short(&members[at].core)));
                        }
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
        self.member = member;
        for action in asked {
            if let ProjectAction::SetValue {
                variable,
                raw,
                unit,
            } = action
            {
                let saved = match unit {
                    Unit::Page(i) => {
                        let members = self.package.members(position).unwrap_or_default();
                        match members.get(i.0 as usize) {
                            Some(m) => self
                                .package
                                .set_page_value(position, &m.key, &variable, &raw),
                            None => Err(crate::Error::InvalidParameter("no such page".into())),
                        }
                    }
                    Unit::Story { .. } => self.package.set_value(position, &variable, &raw),
                };
                if let Err(e) = saved {
                    outcome.notes.push(format!("Not saved: {e}"));
                }
                self.reload(&mut outcome.notes);
            }
        }
    }

    fn story(&mut self, ui: &mut egui::Ui, outcome: &mut Outcome) {
        let u = &self.units[self.selected];
        let font = egui::TextStyle::Heading.resolve(ui.style());
        let strong = ui.visuals().strong_text_color();
        super::bidi::text_block(ui, u.title.as_deref().unwrap_or("(untitled)"), font, strong);
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
                super::bidi::paragraphs(ui, &u.core);
            });
    }
}

/// The first 300 characters of a text, on one line.
fn short(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(300) {
        Some((cut, _)) => format!("{} …", &line[..cut]),
        None => line,
    }
}

/// A package of pairs being judged.
struct PairsState {
    snapshot: crate::gui::project::SampleSnapshot,
    bar: super::labelling::LabelsView,
    view: super::pair_view::PairView,
    /// The pair shown: its position, its pages in memory and their comparison.
    shown: Option<(
        u32,
        crate::session::Session,
        crate::gui::model::pair::PairComparison,
    )>,
    /// The pair that could not be shown (said once, not tried again every frame).
    failed: Option<u32>,
}

impl PairsState {
    fn new(package: &Package) -> crate::Result<PairsState> {
        let mut state = PairsState {
            snapshot: snapshot(package)?,
            bar: Default::default(),
            view: Default::default(),
            shown: None,
            failed: None,
        };
        state.bar.labelling = true;
        state.bar.position = Some(
            (0..state.snapshot.pairs.len() as u32)
                .find(|p| state.snapshot.mine[*p as usize].is_none())
                .unwrap_or(0),
        );
        Ok(state)
    }

    fn reload(&mut self, package: &Package, notes: &mut Vec<String>) {
        match snapshot(package) {
            Ok(s) => self.snapshot = s,
            Err(e) => notes.push(format!("The package cannot be read: {e}")),
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, package: &mut Package, outcome: &mut Outcome) {
        let info = package.info.clone();
        let n = self.snapshot.pairs.len() as u32;
        ui.horizontal_wrapped(|ui| {
            ui.heading(format!("Sample {} for {}", info.round, info.coder));
            ui.label(format!(
                "{} of {n} pairs labelled{}",
                self.snapshot.progress.labelled,
                if info.blind {
                    " · blind: no score, stratum or detector"
                } else {
                    ""
                }
            ));
            if ui
                .button("Close package")
                .on_hover_text("Every decision is already saved in the package")
                .clicked()
            {
                outcome.close = true;
            }
        });
        ui.weak(format!(
            "{} · every decision is saved in the package as you make it; send the file back to \
             {} to merge it (samecore merge).",
            package.path().display(),
            info.created_by
        ));
        ui.separator();
        if n == 0 {
            ui.label("The package holds no pair.");
            return;
        }
        self.pair_list(ui);
        for action in self.bar.bar(ui, &self.snapshot) {
            self.apply(action, package, outcome);
        }
        let Some(position) = self.bar.position else {
            return;
        };
        if self.shown.as_ref().is_none_or(|s| s.0 != position) && self.failed != Some(position) {
            self.show_pair(position, package, outcome);
        }
        let Some((_, ws, cmp)) = &self.shown else {
            return;
        };
        let decided = package
            .derivation(position)
            .ok()
            .flatten()
            .map(|(a, class, at)| {
                format!(
                    "the {} page {} ({}, {})",
                    if a { "right" } else { "left" },
                    class.label(),
                    info.coder,
                    at.get(..10).unwrap_or(&at)
                )
            });
        let coding = super::pair_view::Coding {
            busy: false,
            blind: info.blind,
            open: true,
            decided,
        };
        match self.view.show(ui, ws, Some(cmp), None, &coding) {
            Some(super::action::Action::Project(ProjectAction::SetDerivation {
                source,
                class,
                ..
            })) => {
                let left_is_source = source == crate::DocId(0);
                match package.set_derivation(position, left_is_source, class, "") {
                    Ok(()) => outcome.notes.push(format!(
                        "Pair {}: the {} page is {}",
                        position + 1,
                        if left_is_source { "right" } else { "left" },
                        class.label()
                    )),
                    Err(e) => outcome.notes.push(format!("Not saved: {e}")),
                }
            }
            Some(super::action::Action::OpenCapture(doc)) => {
                let d = &ws.docs()[doc.index()];
                let view = crate::safe_view::inert_html(
                    &d.html.text(),
                    d.url.as_deref().unwrap_or(&d.key),
                    d.date.as_deref(),
                );
                let opened = super::capture::write_inert(&view).and_then(|path| {
                    super::capture::open_in_browser(&path.display().to_string())
                        .map_err(|e| crate::Error::io(e, &path))
                });
                if let Err(e) = opened {
                    outcome.notes.push(format!("Cannot open the page: {e}"));
                }
            }
            Some(_) => outcome
                .notes
                .push("Replay needs the project's archive; the package has the page itself".into()),
            None => {}
        }
    }

    /// Compare the pair at `position` in memory.
    fn show_pair(&mut self, position: u32, package: &Package, outcome: &mut Outcome) {
        let compared = package.pair(position).and_then(|pair| {
            let ws = crate::session::Session::of_pages(
                vec![pair.a.document(), pair.b.document()],
                vec![Some(pair.a.frame.clone()), Some(pair.b.frame.clone())],
            );
            let cmp = crate::gui::model::pair::compare(
                &ws,
                crate::DocId(0),
                crate::DocId(1),
                &Default::default(),
                &[],
                std::time::Duration::from_millis(500),
            )?;
            Ok((ws, cmp))
        });
        match compared {
            Ok((ws, cmp)) => {
                self.view.forget_layout();
                self.shown = Some((position, ws, cmp));
                self.failed = None;
            }
            Err(e) => {
                self.failed = Some(position);
                outcome
                    .notes
                    .push(format!("Pair {} cannot be shown: {e}", position + 1));
                self.shown = None;
            }
        }
    }

    fn apply(&mut self, action: ProjectAction, package: &mut Package, outcome: &mut Outcome) {
        match action {
            ProjectAction::Label {
                position,
                label,
                next,
            } => {
                match package.add_label(position, &label) {
                    Ok(()) => {
                        outcome
                            .notes
                            .push(format!("Pair {}: {}", position + 1, label.verdict));
                        if let Some(next) = next {
                            self.bar.position = Some(next);
                        }
                    }
                    Err(e) => outcome.notes.push(format!("Not saved: {e}")),
                }
                self.reload(package, &mut outcome.notes);
            }
            ProjectAction::UndoLabel => {
                match package.undo_label() {
                    Ok(Some(p)) => {
                        outcome
                            .notes
                            .push(format!("Undone: your label of pair {}", p + 1));
                        self.bar.position = Some(p);
                    }
                    Ok(None) => outcome.notes.push("Nothing to undo".into()),
                    Err(e) => outcome.notes.push(format!("Undo failed: {e}")),
                }
                self.reload(package, &mut outcome.notes);
            }
            ProjectAction::Goto(p) => self.bar.position = Some(p),
            ProjectAction::StopLabelling => outcome.close = true,
            ProjectAction::Notice(text) => outcome.notes.push(text),
            _ => {}
        }
    }

    fn pair_list(&mut self, ui: &mut egui::Ui) {
        egui::Panel::left("package_pairs")
            .resizable(true)
            .default_size(240.0)
            .size_range(160.0..=420.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("package_pair_list")
                    .show(ui, |ui| {
                        super::view::rows_take_clicks(ui);
                        for (i, p) in self.snapshot.pairs.iter().enumerate() {
                            let mark = match &self.snapshot.mine[i] {
                                Some(l) => format!(
                                    "[{}]",
                                    l.verdict.as_str().chars().next().unwrap_or('x')
                                ),
                                None => "[ ]".into(),
                            };
                            let title = super::bidi::visual(
                                p.a.identity.title.as_deref().unwrap_or("(untitled)"),
                            );
                            let chosen = self.bar.position == Some(i as u32);
                            let r =
                                ui.selectable_label(chosen, format!("{mark} {}  {title}", i + 1));
                            if r.clicked() {
                                self.bar.position = Some(i as u32);
                            }
                        }
                    });
            });
    }
}

/// The package's pairs and the coder's labels as the labelling bar reads a sample.
fn snapshot(package: &Package) -> crate::Result<crate::gui::project::SampleSnapshot> {
    let info = &package.info;
    let n = package.pair_count()?;
    let mut pairs = Vec::with_capacity(n as usize);
    for position in 0..n {
        let pair = package.pair_head(position)?;
        pairs.push(crate::store::samples::SamplePair {
            position,
            a: pair.a.as_page(0),
            b: pair.b.as_page(1),
            score: pair.score,
            stratum: pair.stratum.unwrap_or_default(),
        });
    }
    let mut mine = vec![None; n as usize];
    let mut labels = Vec::new();
    for l in package.labels()? {
        if let Some(m) = mine.get_mut(l.position as usize) {
            *m = Some(l.label.clone());
        }
        labels.push(crate::store::samples::LabelRecord {
            position: l.position,
            annotator: info.coder.clone(),
            label: l.label,
            created_at: l.at,
        });
    }
    let labelled = labels.len() as u32;
    Ok(crate::gui::project::SampleSnapshot {
        info: crate::store::samples::SampleInfo {
            id: crate::store::SampleId(0),
            name: info.round.clone(),
            run: Some(info.run),
            method: String::new(),
            seed: 0,
            blind: info.blind,
            spec: serde_json::Value::Null,
            created_at: info.created_at.clone(),
            size: n,
        },
        pairs,
        labels,
        annotator: info.coder.clone(),
        mine,
        progress: crate::store::samples::LabelProgress { total: n, labelled },
        annotators: vec![info.coder.clone()],
        estimate: crate::labels::stats::stratified_precision(&[], &[], 1.96),
        agreements: Vec::new(),
        unsettled: Vec::new(),
    })
}
