//! The workbench: an egui skin over engine jobs. Nothing here parses, matches or queries on
//! the UI thread: every piece of work is an [`crate::engine::Job`] polled once a frame.
//!
//! [`Workbench`] is the whole app state, built by the binary through [`run`] and by the
//! `egui_kittest` tests directly (with synchronous jobs).

mod app;
mod chrome;
mod clusters;
mod codebook;
mod documents;
mod labelling;
mod open;
mod pair_view;
mod plots;
mod project;
mod project_panel;
mod recent;
mod run_panel;
mod session;
mod tuning;

pub use app::{Action, PreviousRun, Tab, Workbench};
pub use project::{CodeSnapshot, SampleSnapshot};
pub use project_panel::ProjectAction;

use std::path::PathBuf;

/// Open the workbench window on `archives` (possibly none) and block until it is closed.
pub fn run(archives: Vec<PathBuf>) -> Result<(), eframe::Error> {
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
            let ctx = cc.egui_ctx.clone();
            app.set_waker(move || ctx.request_repaint());
            if !archives.is_empty() {
                app.open(archives);
            }
            Ok(Box::new(app))
        }),
    )
}
