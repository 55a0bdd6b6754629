//! The crate's one error type. A bad *record* is never an error: readers count it as a
//! [`crate::archive::ReadWarning`] and go on. An [`Error`] is for a whole input that cannot be
//! used (missing, unreadable, not an archive) or a bad parameter; its message names the file last.

use std::path::PathBuf;

/// Everything that can stop an operation of the engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error on a named file. The message holds the cause, so it is not also given as
    /// `source()` (that would print it twice in an `{:#}` chain).
    #[error("{error}: {}", path.display())]
    Io {
        /// The underlying error.
        error: std::io::Error,
        /// The file it happened on.
        path: PathBuf,
    },
    /// A file that is not an archive samecore can read.
    #[error("{reason}: {}", path.display())]
    NotAnArchive {
        /// Why it was refused.
        reason: String,
        /// The file.
        path: PathBuf,
    },
    /// A page read again from its record is not the page first read there: the archive was
    /// rewritten or replaced since.
    #[error(
        "the archive changed since it was read: the record at offset {offset} is not the page \
         {key} read there (open the archive again): {}",
        path.display()
    )]
    ArchiveChanged {
        /// The archive file.
        path: PathBuf,
        /// The record's offset.
        offset: u64,
        /// The page's reader key.
        key: String,
    },
    /// A parameter a person gave that cannot be used.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// A job was cancelled before it finished.
    #[error("cancelled")]
    Cancelled,

    /// A job's work panicked: a bug, reported instead of leaving the job running forever.
    #[error("internal error (please report it): {0}")]
    Panicked(String),
    /// A zip archive (WACZ or zip of pages) could not be read.
    #[error("{error}: {}", path.display())]
    Zip {
        /// The underlying error.
        error: zip::result::ZipError,
        /// The zip file.
        path: PathBuf,
    },
    /// The project store failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The project file stayed locked by another samecore (workbench or CLI) longer than the
    /// store waits; nothing was written, the operation can simply be retried.
    #[error(
        "the project is busy: another samecore is writing to it (waited {waited_ms} ms); try again: {}",
        path.display()
    )]
    ProjectBusy {
        /// The project file.
        path: PathBuf,
        /// How long the store waited for the lock.
        waited_ms: u64,
    },
    /// A page's archive is neither where it was recorded nor where the project file says it
    /// is relative to itself.
    #[error(
        "archive {} not found (nor relative to the project file); if it moved, run \
         `samecore relocate --project {} NEW_FOLDER`",
        path.display(),
        project.display()
    )]
    ArchiveMissing {
        /// The recorded path.
        path: PathBuf,
        /// The project file.
        project: PathBuf,
    },
    /// A project file that cannot be used: not a samecore project, damaged, or from a newer
    /// samecore.
    #[error("{reason}: {}", path.display())]
    BadProject {
        /// What is wrong with it.
        reason: String,
        /// The project file.
        path: PathBuf,
    },
    /// Reliability data that agreement cannot be computed from.
    #[error(transparent)]
    Agreement(#[from] crate::agreement::TableError),
    /// JSON (de)serialisation failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// CSV reading or writing failed.
    #[error(transparent)]
    Csv(#[from] csv::Error),
    /// A search query that cannot be read: what and where, the query with a caret under the
    /// mistake (the search module's `QueryError`, displayed).
    #[error("{0}")]
    Query(String),
    /// The search index failed (it is rebuilt when it is damaged).
    #[error("search index: {0}")]
    Index(String),
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Index(e.to_string())
    }
}

impl Error {
    /// Wrap an I/O error with the file it happened on.
    pub fn io(error: std::io::Error, path: impl Into<PathBuf>) -> Self {
        Error::Io {
            error,
            path: path.into(),
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
