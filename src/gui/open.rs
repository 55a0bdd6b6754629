//! Choosing archives: the native file dialog runs on its own thread (it blocks), a typed path
//! is always offered too (the dialog may be missing on a bare desktop), and files dropped on the
//! window are opened.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

/// A file dialog running on a helper thread.
pub struct PendingDialog {
    rx: Receiver<Option<Vec<PathBuf>>>,
}

impl PendingDialog {
    /// Show the dialog for archive files (`folder == false`) or a folder of pages.
    pub fn start(folder: bool, wake: impl Fn() + Send + 'static) -> PendingDialog {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let dialog = rfd::FileDialog::new().set_title("Open archives");
            let picked = if folder {
                dialog.pick_folder().map(|p| vec![p])
            } else {
                dialog
                    .add_filter(
                        "Web archives",
                        &["warc", "gz", "arc", "wacz", "zip", "html", "htm"],
                    )
                    .add_filter("All files", &["*"])
                    .pick_files()
            };
            // The receiver is gone only when the app closed; nothing to do then.
            let _ = tx.send(picked);
            wake();
        });
        PendingDialog { rx }
    }

    /// `Some(paths)` once the person chose (empty when they cancelled).
    pub fn poll(&self) -> Option<Vec<PathBuf>> {
        match self.rx.try_recv() {
            Ok(picked) => Some(picked.unwrap_or_default()),
            Err(std::sync::mpsc::TryRecvError::Empty) => None,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => Some(Vec::new()),
        }
    }
}
