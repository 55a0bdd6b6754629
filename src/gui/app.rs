//! The workbench state and its frame: top bar (open, progress, cancel), side panel (inputs and
//! what reading them reported), central panel (the current view).

use std::path::PathBuf;
use std::sync::Arc;

use egui::{Key, KeyboardShortcut, Modifiers};

use super::documents::DocumentsView;
use super::open::PendingDialog;
use crate::archive::{Collection, ReadOptions};
use crate::engine::{Job, Progress};

/// Open archives (Ctrl+O).
pub const SHORTCUT_OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
/// Cancel the running job (Escape).
pub const SHORTCUT_CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);
/// Show or hide the keyboard help (F1).
pub const SHORTCUT_HELP: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::F1);

type Waker = Arc<dyn Fn() + Send + Sync>;

/// The whole app state.
pub struct Workbench {
    /// Run jobs on the UI thread to completion (tests); real windows never do.
    sync_jobs: bool,
    waker: Option<Waker>,
    inputs: Vec<PathBuf>,
    load: Option<Job<Collection>>,
    collection: Option<Arc<Collection>>,
    /// Errors and notices for the person, newest last; shown until dismissed.
    messages: Vec<String>,
    path_input: String,
    dialog: Option<PendingDialog>,
    documents: DocumentsView,
    show_help: bool,
}

impl Workbench {
    /// A workbench with nothing open. `sync_jobs` runs every job to completion inside the
    /// frame that starts it — only for tests.
    pub fn new(sync_jobs: bool) -> Self {
        Workbench {
            sync_jobs,
            waker: None,
            inputs: Vec::new(),
            load: None,
            collection: None,
            messages: Vec::new(),
            path_input: String::new(),
            dialog: None,
            documents: DocumentsView::default(),
            show_help: false,
        }
    }

    /// Install the closure that makes the window repaint when a job has news.
    pub fn set_waker(&mut self, waker: impl Fn() + Send + Sync + 'static) {
        self.waker = Some(Arc::new(waker));
    }

    /// Start loading `paths` (replacing what is open).
    pub fn open(&mut self, paths: Vec<PathBuf>) {
        if paths.is_empty() {
            return;
        }
        if let Some(job) = &self.load {
            job.cancel();
        }
        self.inputs = paths.clone();
        let progress = Progress::new();
        if let Some(w) = &self.waker {
            let w = w.clone();
            progress.set_waker(move || w());
        }
        let work = move |p: &Progress| crate::archive::load(&paths, &ReadOptions::default(), p);
        self.load = Some(if self.sync_jobs {
            Job::run_now(progress, work)
        } else {
            Job::spawn(progress, work)
        });
    }

    /// The loaded collection, once loading finished.
    pub fn collection(&self) -> Option<&Arc<Collection>> {
        self.collection.as_ref()
    }

    /// Messages shown to the person (errors, notices).
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// Whether a job is running.
    pub fn is_busy(&self) -> bool {
        self.load.is_some()
    }

    fn poll_jobs(&mut self) {
        if let Some(job) = &mut self.load
            && let Some(result) = job.ready()
        {
            self.load = None;
            match result {
                Ok(collection) => {
                    let warnings: usize = collection.reports.iter().map(|r| r.warnings.len()).sum();
                    if warnings > 0 {
                        self.messages.push(format!(
                            "{warnings} warning(s) while reading; see the Inputs panel"
                        ));
                    }
                    self.documents = DocumentsView::default();
                    self.collection = Some(collection);
                }
                Err(crate::Error::Cancelled) => self.messages.push("Loading cancelled".into()),
                Err(e) => self.messages.push(format!("Could not open: {e}")),
            }
        }
        if let Some(dialog) = &self.dialog
            && let Some(paths) = dialog.poll()
        {
            self.dialog = None;
            self.open(paths);
        }
    }

    fn start_dialog(&mut self, folder: bool) {
        if self.dialog.is_some() {
            return;
        }
        let waker = self.waker.clone();
        self.dialog = Some(PendingDialog::start(folder, move || {
            if let Some(w) = &waker {
                w();
            }
        }));
    }

    /// Draw one frame into `ui` (the root ui of the window or a test harness).
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.poll_jobs();
        self.handle_keys(ui.ctx());
        self.handle_dropped_files(ui.ctx());

        egui::Panel::top("top_bar").show(ui, |ui| self.top_bar(ui));
        if !self.messages.is_empty() {
            egui::Panel::bottom("messages").show(ui, |ui| self.messages_panel(ui));
        }
        egui::Panel::left("inputs")
            .resizable(true)
            .default_size(260.0)
            .show(ui, |ui| self.inputs_panel(ui));
        egui::CentralPanel::default().show(ui, |ui| match &self.collection {
            Some(collection) => self.documents.ui(ui, collection),
            None => self.welcome(ui),
        });
        if self.show_help {
            self.help_window(ui.ctx());
        }
    }

    fn handle_keys(&mut self, ctx: &egui::Context) {
        let (open, cancel, help) = ctx.input_mut(|i| {
            (
                i.consume_shortcut(&SHORTCUT_OPEN),
                i.consume_shortcut(&SHORTCUT_CANCEL),
                i.consume_shortcut(&SHORTCUT_HELP),
            )
        });
        if open {
            self.start_dialog(false);
        }
        if cancel && let Some(job) = &self.load {
            job.cancel();
        }
        if help {
            self.show_help = !self.show_help;
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .filter_map(|f| f.path.clone())
                .collect()
        });
        if !dropped.is_empty() {
            self.open(dropped);
        }
    }

    fn top_bar(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        ui.horizontal(|ui| {
            if ui
                .button("Open archives…")
                .on_hover_text(format!("{} — WARC, ARC, WACZ, zip", ctx.format_shortcut(&SHORTCUT_OPEN)))
                .clicked()
            {
                self.start_dialog(false);
            }
            if ui.button("Open folder…").on_hover_text("A folder of .html/.htm pages").clicked() {
                self.start_dialog(true);
            }
            ui.separator();
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.path_input)
                    .hint_text("or type a path and press Enter")
                    .desired_width(280.0),
            );
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            if (ui.button("Load path").clicked() || enter) && !self.path_input.trim().is_empty() {
                let path = PathBuf::from(self.path_input.trim());
                self.open(vec![path]);
            }
            if let Some(job) = &self.load {
                ui.separator();
                let snap = job.progress().snapshot();
                let mut text = format!("{} {}", snap.stage, human_bytes(snap.done));
                if snap.total > 0 {
                    text.push_str(&format!(" / {}", human_bytes(snap.total)));
                }
                if let Some(eta) = snap.eta_secs() {
                    text.push_str(&format!(" — {eta:.0} s left"));
                }
                ui.add(
                    egui::ProgressBar::new(snap.fraction())
                        .desired_width(260.0)
                        .text(text)
                        .animate(true),
                );
                if ui
                    .button("Cancel")
                    .on_hover_text(ctx.format_shortcut(&SHORTCUT_CANCEL))
                    .clicked()
                {
                    job.cancel();
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("Help").on_hover_text(ctx.format_shortcut(&SHORTCUT_HELP)).clicked() {
                    self.show_help = !self.show_help;
                }
            });
        });
    }

    fn inputs_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Inputs");
        let Some(collection) = &self.collection else {
            for p in &self.inputs {
                ui.label(p.display().to_string());
            }
            return;
        };
        egui::ScrollArea::vertical().id_salt("inputs_scroll").show(ui, |ui| {
            for report in &collection.reports {
                let name = report
                    .file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| report.file.display().to_string());
                egui::CollapsingHeader::new(format!("{name} ({})", report.format))
                    .default_open(true)
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
                            egui::CollapsingHeader::new(format!(
                                "{} warnings",
                                report.warnings.len()
                            ))
                            .id_salt(("warnings", &report.file))
                            .show(ui, |ui| {
                                for w in &report.warnings {
                                    ui.label(w.to_string());
                                }
                            });
                        }
                    });
            }
        });
    }

    fn messages_panel(&mut self, ui: &mut egui::Ui) {
        let mut dismiss = None;
        for (i, m) in self.messages.iter().enumerate().rev().take(4) {
            ui.horizontal(|ui| {
                if ui.small_button("✕").on_hover_text("Dismiss").clicked() {
                    dismiss = Some(i);
                }
                ui.label(m);
            });
        }
        if let Some(i) = dismiss {
            self.messages.remove(i);
        }
    }

    fn welcome(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(60.0);
            ui.heading("samecore");
            ui.label("Find same-core near-duplicate pages in web archives.");
            ui.add_space(12.0);
            if self.load.is_some() {
                ui.spinner();
                ui.label("Reading…");
            } else {
                ui.label("Open a WARC, ARC, WACZ, a zip or a folder of pages — or drop it here.");
            }
        });
    }

    fn help_window(&mut self, ctx: &egui::Context) {
        let mut open = self.show_help;
        egui::Window::new("Keyboard")
            .open(&mut open)
            .collapsible(false)
            .show(ctx, |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for (shortcut, what) in [
                        (SHORTCUT_OPEN, "Open archives"),
                        (SHORTCUT_CANCEL, "Cancel the running job"),
                        (SHORTCUT_HELP, "This help"),
                    ] {
                        ui.monospace(ctx.format_shortcut(&shortcut));
                        ui.label(what);
                        ui.end_row();
                    }
                    for (key, what) in super::documents::KEYS {
                        ui.monospace(*key);
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
        self.show_help = open;
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui(ui);
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
