//! The Project section of the side panel (open or create a `.samecore` file by typed path or
//! dialog, recent projects, where the runs went) and the glue that turns the labelling and
//! coding views' [`ProjectAction`]s into session calls, pair comparisons and tab switches.
//!
//! In: what the person typed or clicked. Out: commands for the store actor (through
//! [`super::session::ProjectSession`]) and [`Workbench`] state changes.

use std::path::PathBuf;

use egui::Key;

use super::action::{ProjectAction, Tab};
use super::app::Workbench;
use crate::DocId;

impl Workbench {
    /// Open (or create) the project file at `path`; the open workspace's runs are stored in
    /// it, and every later run too.
    pub fn open_project(&mut self, path: PathBuf) {
        let waker = self.waker.clone();
        self.project.open(path, waker);
        self.poll_project();
    }

    /// Label and code as `name` from now on (the current sample is reloaded for them).
    pub fn set_annotator(&mut self, name: &str) {
        self.project.annotator = name.trim().to_string();
        if let Some(id) = self.project.sample.as_ref().map(|s| s.info.id) {
            self.project.select_sample(id);
            self.poll_project();
        }
    }

    /// The sample being labelled, as the store last reported it.
    pub fn sample(&self) -> Option<&super::project::SampleSnapshot> {
        self.project.sample.as_deref()
    }

    /// Who labels and codes.
    pub fn annotator(&self) -> &str {
        &self.project.annotator
    }

    /// The threshold the run panel holds for `algo`.
    pub fn threshold_setting(&self, algo: crate::detectors::Algo) -> Option<f64> {
        self.settings.thresholds.get(&algo).copied()
    }

    /// The codebook and every page's codes, as the store last reported them.
    pub fn project_codes(&self) -> &super::project::CodeSnapshot {
        &self.project.codes
    }

    /// The project file, once open.
    pub fn project_path(&self) -> Option<&std::path::Path> {
        self.project.opened.as_deref()
    }

    /// Take the store actor's replies (called every frame).
    pub(super) fn poll_project(&mut self) {
        let polled = self.project.poll(self.waker.clone());
        self.messages.extend(polled.messages);
        let reload = polled
            .restore
            .as_deref()
            .is_some_and(|s| !s.inputs.is_empty() && s.inputs != self.absolute_inputs);
        if let Some(state) = polled.restore {
            self.restore(*state);
        }
        // The runs of the archives open are stored; not when the project brings its own
        // archives back (they are loaded and run now, and stored then).
        if polled.opened && !reload {
            self.save_runs_to_project();
        }
        if let Some(pos) = polled.undone
            && self.labels.labelling
        {
            self.goto_pair(pos);
        }
    }

    /// Store the current runs in the open project (no-op without one).
    pub(super) fn save_runs_to_project(&mut self) {
        if let Some(ws) = self.workspace.clone() {
            let runs = self.runs.clone();
            self.project.save_runs(&ws, &runs);
            self.poll_project_quiet();
        }
    }

    fn poll_project_quiet(&mut self) {
        let polled = self.project.poll(self.waker.clone());
        self.messages.extend(polled.messages);
    }

    fn goto_pair(&mut self, position: u32) {
        let Some((sample, ws)) = self.project.sample.clone().zip(self.workspace.clone()) else {
            return;
        };
        let Some(pair) = sample.pairs.get(position as usize) else {
            return;
        };
        let find = |key: &str| {
            ws.collection
                .docs
                .iter()
                .position(|d| *d.key == *key || d.capture() == key)
                .and_then(|i| u32::try_from(i).ok())
                .map(DocId)
        };
        match (find(&pair.a.identity.key), find(&pair.b.identity.key)) {
            (Some(a), Some(b)) => {
                let mine = sample.mine.get(position as usize).and_then(Option::as_ref);
                self.labels.show_pair(position, (a, b), mine);
                self.compare(a, b);
                self.tab = Tab::Pair;
            }
            _ => self.messages.push(format!(
                "Pair {} of the sample is not in the open archives (open the archives it was drawn from)",
                position + 1
            )),
        }
    }

    /// Do what a labelling or coding view asked.
    pub(super) fn apply_project(&mut self, action: ProjectAction) {
        let active = self.runs.get(self.active).map(|r| r.detection.clone());
        match action {
            ProjectAction::Open(path) => self.open_project(path),
            ProjectAction::Browse => self.project.browse(self.waker.clone()),
            ProjectAction::Close => {
                self.project.close();
                self.labels.labelling = false;
            }
            ProjectAction::MakeSample {
                name,
                plan,
                seed,
                blind,
            } => match active {
                Some(d) => self.project.make_sample(d, name, plan, seed, blind),
                None => self.messages.push("Run a detector first".into()),
            },
            ProjectAction::SelectSample(id) => {
                if self.project.sample.as_ref().map(|s| s.info.id) != Some(id) {
                    self.labels.reset_position();
                }
                self.project.select_sample(id);
            }
            ProjectAction::Label {
                position,
                label,
                next,
            } => {
                // Move on first: a label that cannot be saved brings the pair back after.
                if let Some(n) = next {
                    self.goto_pair(n);
                }
                self.project.label(position, label);
            }
            ProjectAction::UndoLabel => self.project.undo_label(),
            ProjectAction::Goto(p) => self.goto_pair(p),
            ProjectAction::StopLabelling => self.labels.labelling = false,
            ProjectAction::Settle { position, verdict } => self.project.settle(position, verdict),
            ProjectAction::AddCode { name, description } => {
                self.project.add_code(name, description)
            }
            ProjectAction::RenameCode { code, name } => self.project.rename_code(code, name),
            ProjectAction::MergeCodes { from, into } => self.project.merge_codes(from, into),
            ProjectAction::SetValue {
                unit,
                variable,
                raw,
            } => self.project.set_value(unit, variable, raw),
            ProjectAction::UndoValue => self.project.undo_value(),
            ProjectAction::SaveCodebook { book, note } => self.project.save_codebook(book, note),
            ProjectAction::Assign {
                round,
                coders,
                folder,
            } => self.project.assign(round, coders, folder),
            ProjectAction::Merge(paths) => self.project.merge(paths),
            ProjectAction::WriteCodebook {
                book,
                path,
                markdown,
            } => self.project.write_codebook(book, path, markdown),
            ProjectAction::SetFinal {
                unit,
                variable,
                raw,
            } => self.project.set_final(unit, variable, raw),
            ProjectAction::UndoFinal => self.project.undo_final(),
            ProjectAction::Reliability => self.project.compute_reliability(true),
            ProjectAction::CodeCluster { cluster, code } => match active {
                Some(d) => self.project.code_cluster(d, cluster, code),
                None => self.messages.push("Run a detector first".into()),
            },
            ProjectAction::CodeStories {
                run,
                clusters,
                code,
                what,
            } => self.project.code_stories(run, clusters, code, what),
            ProjectAction::CodePage { doc, code, applied } => {
                match self.project.pages.as_ref().and_then(|p| p.get(doc.index())) {
                    Some(page) => self.project.code_page(*page, code, applied),
                    None => self
                        .messages
                        .push("The page is not in the project yet (run a detector)".into()),
                }
            }
            ProjectAction::UndoCode => self.project.undo_code(),
            ProjectAction::SetDerivation {
                source,
                derived,
                class,
            } => {
                let pages = self.project.pages.as_ref();
                match (
                    pages.and_then(|p| p.get(source.index())),
                    pages.and_then(|p| p.get(derived.index())),
                ) {
                    (Some(&s), Some(&d)) => self.project.set_derivation(s, d, class),
                    _ => self
                        .messages
                        .push("The pages are not in the project yet (run a detector)".into()),
                }
            }
            ProjectAction::ExtendCode { run, cluster, code } => {
                self.project.extend_code(run, cluster, code)
            }
            ProjectAction::ReconcileCodes => self.project.refresh_codes(),
            ProjectAction::ExportSample => {
                self.start_export_dialog(super::export::ExportWhat::Sample)
            }
            ProjectAction::Notice(m) => self.messages.push(m),
        }
        self.poll_project();
    }

    /// The Project section of the side panel.
    pub(super) fn project_section(&mut self, ui: &mut egui::Ui) {
        ui.heading("Project");
        let mut actions = Vec::new();
        match &self.project.opened {
            Some(p) => {
                ui.label(format!("Open: {}", p.display()));
                match self.project.saved_runs.last() {
                    Some((algo, run)) => ui.weak(format!(
                        "Detector runs are saved to it (last: {} as run {run}).",
                        algo.name()
                    )),
                    None => ui.weak("Runs are saved to it once a detector ran."),
                };
            }
            None if self.project.is_open() => {
                ui.spinner();
            }
            None => {
                ui.weak("No project: labels and codes need one.");
            }
        }
        if self.project.is_open() {
            ui.horizontal(|ui| {
                let l = ui.label("Coding as");
                let before = self.project.annotator.clone();
                let r = ui
                    .add(
                        egui::TextEdit::singleline(&mut self.project.annotator)
                            .hint_text("your name")
                            .desired_width(150.0),
                    )
                    .labelled_by(l.id)
                    .on_hover_text(
                        "Labels, codes and values are saved under this name (also the Labels \
                         tab's Annotator); it comes back with the project",
                    );
                if r.lost_focus() && self.project.annotator != before {
                    let name = self.project.annotator.clone();
                    self.set_annotator(&name);
                }
            });
        }
        let l = ui.label("Project file");
        let edit = ui
            .add(
                egui::TextEdit::singleline(&mut self.project.path_input)
                    .hint_text("path/to/study.samecore")
                    .desired_width(240.0),
            )
            .labelled_by(l.id);
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        ui.horizontal(|ui| {
            let typed = self.project.path_input.trim().to_string();
            if (ui
                .button("Open project")
                .on_hover_text("Open the typed project file, or create it")
                .clicked()
                || enter)
                && !typed.is_empty()
            {
                actions.push(ProjectAction::Open(PathBuf::from(typed)));
            }
            if ui
                .button("Browse...")
                .on_hover_text("Pick or name a .samecore file")
                .clicked()
            {
                actions.push(ProjectAction::Browse);
            }
            if self.project.is_open() && ui.button("Close project").clicked() {
                actions.push(ProjectAction::Close);
            }
        });
        let recent = self.project.recent.entries.clone();
        ui.add_enabled_ui(!recent.is_empty(), |ui| {
            ui.menu_button("Recent projects", |ui| {
                for entry in recent.iter().filter_map(|e| e.first()) {
                    if ui.button(entry.display().to_string()).clicked() {
                        actions.push(ProjectAction::Open(entry.clone()));
                    }
                }
            });
        });
        if self.project.is_open() {
            self.packages_section(ui, &mut actions);
        }
        for a in actions {
            self.apply_project(a);
        }
    }

    /// Coders' packages: Assign… one per coder of a round, Merge… them back, the report.
    fn packages_section(&mut self, ui: &mut egui::Ui, actions: &mut Vec<ProjectAction>) {
        let rounds: Vec<String> = (self.project.codes.rounds.iter())
            .map(|r| r.name.clone())
            .collect();
        egui::CollapsingHeader::new("Coders' packages")
            .id_salt("coders_packages")
            .show(ui, |ui| {
                ui.weak(
                    "A package is one file a coder codes on their own machine, without the \
                     archive or the project; merging brings their values back.",
                );
                let form = &mut self.package_form;
                if form.folder.is_empty()
                    && let Some(p) = self.project.opened.as_ref()
                {
                    form.folder = p
                        .parent()
                        .filter(|d| !d.as_os_str().is_empty())
                        .map_or_else(|| ".".to_string(), |d| d.display().to_string());
                }
                // What goes out: a round's stories or a sample's pairs ("sample NAME").
                let samples: Vec<String> = (self.project.samples.iter())
                    .filter(|s| s.run.is_some())
                    .map(|s| format!("sample {}", s.name))
                    .collect();
                let choices: Vec<String> = (rounds.iter().map(|r| format!("round {r}")))
                    .chain(samples)
                    .collect();
                if choices.is_empty() {
                    ui.weak(
                        "No reliability round (samecore round new) or sample of pairs (Labels \
                         tab) yet.",
                    );
                } else {
                    if form.round.as_ref().is_none_or(|r| !choices.contains(r)) {
                        form.round = choices.first().cloned();
                    }
                    ui.horizontal(|ui| {
                        let l = ui.label("Assign");
                        egui::ComboBox::from_id_salt("assign_round")
                            .selected_text(form.round.clone().unwrap_or_default())
                            .show_ui(ui, |ui| {
                                for r in &choices {
                                    ui.selectable_value(&mut form.round, Some(r.clone()), r);
                                }
                            })
                            .response
                            .labelled_by(l.id)
                            .on_hover_text(
                                "A round's stories to code, or a sample's pairs to judge",
                            );
                    });
                    let sample = (form.round.as_deref())
                        .and_then(|r| r.strip_prefix("sample "))
                        .map(str::to_string);
                    if sample.is_some() {
                        let l = ui.label("Coders (comma-separated)");
                        ui.add(
                            egui::TextEdit::singleline(&mut form.coders)
                                .desired_width(240.0)
                                .hint_text("ana, ben"),
                        )
                        .labelled_by(l.id);
                    }
                    let coders: Vec<String> = (form.coders.split(','))
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .map(str::to_string)
                        .collect();
                    let l = ui.label("Into the folder");
                    ui.add(egui::TextEdit::singleline(&mut form.folder).desired_width(240.0))
                        .labelled_by(l.id);
                    let ready = sample.is_none() || !coders.is_empty();
                    if ui
                        .add_enabled(ready, egui::Button::new("Assign…"))
                        .on_hover_text(if sample.is_some() {
                            "Write one package per coder with the sample's pairs into the folder"
                        } else {
                            "Write one package per coder of the round into the folder"
                        })
                        .clicked()
                        && let Some(choice) = form.round.clone()
                    {
                        actions.push(match sample {
                            Some(name) => ProjectAction::Assign {
                                round: name,
                                coders: Some(coders),
                                folder: PathBuf::from(form.folder.trim()),
                            },
                            None => ProjectAction::Assign {
                                round: choice.trim_start_matches("round ").to_string(),
                                coders: None,
                                folder: PathBuf::from(form.folder.trim()),
                            },
                        });
                    }
                }
                ui.separator();
                let l = ui.label("Packages to merge (one path a line)");
                ui.add(
                    egui::TextEdit::multiline(&mut form.merge)
                        .desired_rows(2)
                        .desired_width(240.0)
                        .hint_text("path/to/round-ana.samecore-package"),
                )
                .labelled_by(l.id);
                let paths: Vec<PathBuf> = (form.merge.lines())
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(PathBuf::from)
                    .collect();
                if ui
                    .add_enabled(!paths.is_empty(), egui::Button::new("Merge…"))
                    .on_hover_text(
                        "Bring the coders' values in (each checked first; a package merged \
                         again adds nothing)",
                    )
                    .clicked()
                {
                    actions.push(ProjectAction::Merge(paths));
                }
                if let Some(report) = &self.project.merged {
                    for p in &report.packages {
                        ui.label(p.summary());
                        for c in &p.conflicts {
                            ui.colored_label(
                                ui.visuals().warn_fg_color,
                                format!(
                                    "{} on {}: {} counts over {} (both in the log)",
                                    c.variable, c.unit, c.kept, c.earlier
                                ),
                            );
                        }
                    }
                }
            });
    }
}

/// What the Coders' packages section holds between frames.
#[derive(Debug, Default)]
pub struct PackageForm {
    /// What to assign: "round NAME" or "sample NAME".
    pub round: Option<String>,
    /// Who judges a sample's pairs, comma-separated.
    pub coders: String,
    /// The folder the packages are written to.
    pub folder: String,
    /// The packages to merge, one path a line.
    pub merge: String,
}
