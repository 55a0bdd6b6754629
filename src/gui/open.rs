//! The native file dialogs (archives, a folder of pages, a project file), each on a helper
//! thread because the dialog blocks; a typed path is always offered too (the dialog may be
//! missing on a bare desktop), and files dropped on the window are opened.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

/// What the dialog asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogKind {
    /// Archive files (WARC, ARC, WACZ, zip, pages).
    Archives,
    /// A folder of pages.
    Folder,
    /// A project file to open or create.
    Project(&'static str),
    /// Where to write an export (the offered file name).
    Export(String),
}

/// A file dialog running on a helper thread.
pub struct PendingDialog {
    rx: Receiver<Option<Vec<PathBuf>>>,
}

impl PendingDialog {
    /// Show the dialog; `wake` is called once the person chose or cancelled.
    pub fn start(kind: DialogKind, wake: impl Fn() + Send + 'static) -> PendingDialog {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let picked = match kind {
                DialogKind::Archives => rfd::FileDialog::new()
                    .set_title("Open archives")
                    .add_filter(
                        "Web archives",
                        &["warc", "gz", "arc", "wacz", "zip", "html", "htm"],
                    )
                    .add_filter("Spark job output (pairs.parquet)", &["parquet"])
                    .add_filter("All files", &["*"])
                    .pick_files(),
                DialogKind::Folder => rfd::FileDialog::new()
                    .set_title("Open a folder of pages")
                    .pick_folder()
                    .map(|p| vec![p]),
                DialogKind::Project(extension) => rfd::FileDialog::new()
                    .set_title("Open or create a project")
                    .add_filter("samecore project", &[extension])
                    .set_file_name(format!("project.{extension}"))
                    .save_file()
                    .map(|p| vec![p]),
                DialogKind::Export(name) => rfd::FileDialog::new()
                    .set_title("Export")
                    .add_filter("CSV", &["csv"])
                    .add_filter("TSV", &["tsv"])
                    .add_filter("JSON Lines", &["jsonl"])
                    .add_filter("Parquet", &["parquet"])
                    .set_file_name(name)
                    .save_file()
                    .map(|p| vec![p]),
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
