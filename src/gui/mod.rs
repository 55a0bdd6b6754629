//! The workbench: an egui skin over engine jobs. Nothing here parses, matches or queries on
//! the UI thread: every piece of work is an [`crate::engine::Job`] polled once a frame, and
//! the project file (labels, codes; [`crate::store`]) belongs to a store worker thread fed
//! over a channel (`project.rs` says why), its replies polled the same way.
//!
//! Files: `app` (state, polling the jobs, applying actions), `jobs` (the running jobs, one
//! keyed table), `action` (what views ask of the app: `Action`, `ProjectAction`, `Tab`),
//! `view` (the `View` trait every tab implements and its `ViewContext`), `chrome` (top bar,
//! inputs, messages, help), `tabs` (central panel: tab bar, codebook beside the clusters,
//! labelling bar over the pair view, then the tab's view), one file per view (`documents`,
//! `clusters`, `pair_view`, `plots`, `tuning`, `labelling`, `codebook`, `run_panel`;
//! `label_curve`: the Plots tab's precision from labels), `open` (native file dialogs),
//! `capture` (open a capture inert in the browser, or in a replay system), `export` (the shown cluster, cluster list or sample to CSV/TSV/JSONL/Parquet),
//! `model` (the view-model the jobs compute: workspace, pair comparison, word statistics),
//! and the project: `project` (the store worker), `session` (what the UI holds of it),
//! `project_panel` (side panel and action glue).
//!
//! [`Workbench`] is the whole app state, built by the binary through [`run`] and by the
//! `egui_kittest` tests directly (with synchronous jobs).

mod action;
mod app;
pub mod bidi;
pub mod capture;
mod chrome;
mod clusters;
mod codebook;
mod codebook_editor;
mod documents;
pub mod export;
mod filter;
mod jobs;
mod label_curve;
mod labelling;
pub mod model;
mod open;
mod package_view;
mod pair_view;
mod plots;
mod project;
mod project_panel;
mod recent;
mod reliability;
mod run_panel;
pub mod search;
mod session;
mod tabs;
mod timeline;
mod tuning;
mod variables;
mod view;

pub use action::{Action, PreviousRun, ProjectAction, Tab};
pub use app::Workbench;
pub use clusters::published_cell;
pub use project::{CodeSnapshot, SampleSnapshot};

use std::path::PathBuf;

/// The workbench's look over egui's default: fields and buttons at rest get a thin border, so a
/// text field reads as a field (egui's dark theme draws them as borderless dark boxes).
pub fn style(ctx: &egui::Context) {
    ctx.all_styles_mut(|s| {
        s.visuals.widgets.inactive.bg_stroke = egui::Stroke::new(1.0, egui::Color32::from_gray(95));
    });
}

/// Whether `path` names a samecore project rather than an archive: a file ending in
/// `.samecore`, or an SQLite database (no archive format samecore reads is one).
pub fn is_project_file(path: &std::path::Path) -> bool {
    if path.extension().is_some_and(|e| e == session::EXTENSION) {
        return true;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0")
}

/// Open the workbench window on `archives` (possibly none; a project among them is opened
/// with its own archives) and block until it is closed.
pub fn run(archives: Vec<PathBuf>) -> Result<(), eframe::Error> {
    crate::engine::job::init_background_pool();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("samecore")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([640.0, 400.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "samecore",
        options,
        Box::new(move |cc| {
            let mut app = Workbench::new(false).with_recent_file(recent::default_file());
            style(&cc.egui_ctx);
            let ctx = cc.egui_ctx.clone();
            app.set_waker(move || ctx.request_repaint());
            // A coder's package opens in its coding-only view (`samecore ana.samecore-package`).
            let (packages, archives): (Vec<PathBuf>, Vec<PathBuf>) = archives
                .into_iter()
                .partition(|p| crate::package::is_package(p));
            if let Some(package) = packages.first() {
                app.open_package(package);
            }
            // A project among the paths is opened with its archives (`samecore study.samecore`).
            let (projects, archives): (Vec<PathBuf>, Vec<PathBuf>) =
                archives.into_iter().partition(|p| is_project_file(p));
            if !archives.is_empty() {
                app.open(archives);
            }
            if let Some(project) = projects.first() {
                app.open_project(project.clone());
            }
            if projects.len() > 1 {
                app.note(format!(
                    "One project at a time: {} opened, not {}",
                    projects[0].display(),
                    (projects[1..].iter().map(|p| p.display().to_string()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Ok(Box::new(app))
        }),
    )
}
