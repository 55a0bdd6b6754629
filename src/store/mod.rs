//! The project store: one SQLite file per project (`*.samecore`), and every line of SQL in the
//! crate. The workbench and the CLI open the same file through [`Project`].
//!
//! In: document identities (never the pages themselves — those are re-read from the archive by
//! offset), detector runs with their parameters, scored pairs and clusters, samples of pairs,
//! labels, codes. Out: the same, back as plain Rust values for [`crate::labels`],
//! [`crate::coding`] and [`crate::export`].
//!
//! Safety, because a project holds months of a person's work:
//! - **Crash**: WAL journal with `synchronous = FULL`; every write is one `BEGIN IMMEDIATE`
//!   transaction, so a `kill -9` loses at most the write in flight and the file opens cleanly.
//!   [`Project::open`] runs `PRAGMA quick_check` and refuses a damaged file.
//! - **Two instances** (GUI + CLI): SQLite's locking plus a busy timeout; a lock held past the
//!   timeout comes back as [`crate::Error::ProjectBusy`], a message a person can act on.
//! - **Old files** migrate on open (`PRAGMA user_version`, see [`schema`]) after a copy was
//!   left beside the file.
//!
//! The whole labelling workflow, in memory (a GUI does the same on a worker thread, never on
//! the UI thread):
//!
//! ```
//! use samecore::labels::sample::{self, SamplePlan};
//! use samecore::labels::{stats, LabelInput, Verdict};
//! use samecore::store::runs::{PageIdentity, RunRecord, ScoredPair};
//! use samecore::store::Project;
//!
//! let mut project = Project::in_memory()?;
//! let pages = project.upsert_pages(None, &[
//!     PageIdentity { key: "a".into(), ..Default::default() },
//!     PageIdentity { key: "b".into(), ..Default::default() },
//!     PageIdentity { key: "c".into(), ..Default::default() },
//! ])?;
//! let record = RunRecord {
//!     detector: "spotsigs".into(),
//!     params: serde_json::json!({ "threshold": 0.4 }),
//!     seed: Some(0),
//!     code_version: "doc".into(),
//!     elapsed_ms: None,
//!     timings: serde_json::json!({}),
//! };
//! let pairs = [
//!     ScoredPair { a: pages[0], b: pages[1], score: 0.9 },
//!     ScoredPair { a: pages[1], b: pages[2], score: 0.5 },
//! ];
//! let run = project.add_run(&record, &pairs, &[])?;
//! let drawn = sample::draw(&project.run_pairs(run)?, &SamplePlan::Uniform { size: 2 }, 7)?;
//! let s = project.add_sample("first look", Some(run), true, &drawn)?;
//! project.add_label(s, 0, "ann", &LabelInput::new(Verdict::Correct))?;
//! project.add_label(s, 1, "ann", &LabelInput::new(Verdict::Incorrect))?;
//! let resolved = stats::resolve(&project.labels(s)?, &project.settlements(s)?, None);
//! let judged: Vec<_> = project
//!     .sample_pairs(s)?
//!     .into_iter()
//!     .filter_map(|p| resolved.verdicts.get(&p.position).map(|v| (p.stratum, *v)))
//!     .collect();
//! let estimate = stats::stratified_precision(&project.sample_strata(s)?, &judged, stats::Z95);
//! assert_eq!(estimate.overall.map(|i| i.estimate), Some(0.5));
//! # Ok::<(), samecore::Error>(())
//! ```
//!
//! The tables are split by subject: [`runs`] (archives, documents, runs, gold), [`samples`]
//! (samples, labels, settlements), [`codes`] (codebook, page codes, hand-edited clusters),
//! [`imports`] (exported rows matched back in), [`detection`] (an engine result stored).

pub mod code_log;
pub mod codes;
pub mod derivations;
pub mod detection;
pub mod imports;
pub mod judgements;
pub mod packages;
pub mod rounds;
pub mod runs;
pub mod samples;
pub mod schema;
pub mod settings;
pub mod values;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

pub use schema::{Migration, SCHEMA_VERSION};

/// The busy timeout used unless [`OpenOptions::busy_timeout`] says otherwise.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

macro_rules! row_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub i64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

row_id!(
    /// A page (document identity) inside one project. Not a [`crate::DocId`]: that one
    /// indexes a loaded collection, this one stays valid across loads and runs.
    PageId
);
row_id!(
    /// A detector run inside one project.
    RunId
);
row_id!(
    /// A sample of pairs inside one project.
    SampleId
);
row_id!(
    /// A code of the codebook.
    CodeId
);

/// How to open a project.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// How long a write waits for another instance's lock before [`Error::ProjectBusy`].
    pub busy_timeout: Duration,
    /// Create the file when it does not exist.
    pub create: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            create: true,
        }
    }
}

/// An open project file (or an in-memory project for tests and scratch work).
#[derive(Debug)]
pub struct Project {
    conn: Connection,
    path: Option<PathBuf>,
    busy_timeout: Duration,
    migration: Migration,
}

impl Project {
    /// Open (or create) the project at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Project> {
        Project::open_with(path, &OpenOptions::default())
    }

    /// Open the project at `path`: integrity check, migration (with a backup beside the file
    /// when the schema is older), WAL, foreign keys, busy timeout.
    pub fn open_with(path: impl AsRef<Path>, options: &OpenOptions) -> Result<Project> {
        let path = path.as_ref().to_path_buf();
        if !options.create && !path.exists() {
            return Err(Error::io(
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such project file"),
                path,
            ));
        }
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if options.create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let conn = Connection::open_with_flags(&path, flags)
            .map_err(|e| unwritable(e.into(), &path))
            .map_err(|e| classify(e, Some(&path), options.busy_timeout))?;
        Project::setup(conn, Some(path.clone()), options.busy_timeout)
            .map_err(|e| unwritable(e, &path))
            .map_err(|e| classify(e, Some(&path), options.busy_timeout))
    }

    /// A fresh project that lives in memory only.
    pub fn in_memory() -> Result<Project> {
        Project::setup(Connection::open_in_memory()?, None, DEFAULT_BUSY_TIMEOUT)
    }

    fn setup(mut conn: Connection, path: Option<PathBuf>, busy: Duration) -> Result<Project> {
        conn.busy_timeout(busy)?;
        let not_a_project = |e: rusqlite::Error, path: &Option<PathBuf>| match e.sqlite_error_code()
        {
            Some(rusqlite::ErrorCode::NotADatabase) => Error::BadProject {
                reason: "not a samecore project (not an SQLite file)".into(),
                path: path.clone().unwrap_or_default(),
            },
            _ => Error::Sqlite(e),
        };
        let check: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| not_a_project(e, &path))?;
        if check != "ok" {
            return Err(Error::BadProject {
                reason: format!("the project file is damaged (integrity check: {check})"),
                path: path.unwrap_or_default(),
            });
        }
        // A file that is not ours is refused before anything is changed in it (switching to WAL
        // rewrites its header).
        schema::refuse_foreign(&conn, path.as_deref())?;
        if path.is_some() {
            let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(Error::BadProject {
                    reason: format!("cannot switch the project to WAL (journal mode is {mode})"),
                    path: path.unwrap_or_default(),
                });
            }
        }
        // FULL: a committed label survives a power cut too, not only a killed process; labels
        // are written at human speed, so the fsync per commit costs nothing that matters.
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let migration = schema::migrate(&mut conn, path.as_deref())?;
        Ok(Project {
            conn,
            path,
            busy_timeout: busy,
            migration,
        })
    }

    /// The file, none for an in-memory project.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// `Ok` when this project can be written: the file is not read-only (SQLite opens a
    /// write-protected file for reading without a word) and a write lock could be taken. A lock
    /// another samecore holds now is no reason to refuse (writes wait and retry). Commands that
    /// do work before they store it ask this first.
    pub fn check_writable(&self) -> Result<()> {
        let read_only = self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false);
        let probe = || -> Result<()> {
            self.conn.busy_timeout(Duration::ZERO)?;
            let tried = self.conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;");
            self.conn.busy_timeout(self.busy_timeout)?;
            match tried {
                Err(e)
                    if matches!(
                        e.sqlite_error_code(),
                        Some(
                            rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                        )
                    ) =>
                {
                    Ok(())
                }
                other => Ok(other?),
            }
        };
        let result = if read_only {
            Err(Error::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
                None,
            )))
        } else {
            probe()
        };
        result.map_err(|e| classify(e, self.path.as_deref(), self.busy_timeout))
    }

    /// What opening did to the schema (`from == to` when nothing was migrated).
    pub fn migration(&self) -> &Migration {
        &self.migration
    }

    /// The full `PRAGMA integrity_check` plus `PRAGMA foreign_key_check`: the problems found,
    /// empty when the file is sound.
    pub fn integrity_problems(&self) -> Result<Vec<String>> {
        self.read(|tx| {
            let mut problems = Vec::new();
            let mut stmt = tx.prepare("PRAGMA integrity_check")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            for row in rows {
                let row = row?;
                if row != "ok" {
                    problems.push(row);
                }
            }
            let mut stmt = tx.prepare("PRAGMA foreign_key_check")?;
            let rows = stmt.query_map([], |r| {
                Ok(format!(
                    "foreign key violation in {} row {:?}",
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<i64>>(1)?
                ))
            })?;
            for row in rows {
                problems.push(row?);
            }
            Ok(problems)
        })
    }

    /// Run `f` in one `BEGIN IMMEDIATE` transaction: all of it is written or none of it.
    pub(crate) fn write<T>(&mut self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let result = (|| {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = f(&tx)?;
            tx.commit()?;
            Ok(value)
        })();
        result.map_err(|e| classify(e, self.path.as_deref(), self.busy_timeout))
    }

    /// SQLite's `data_version` of this connection: it changes when another connection (another
    /// samecore, the command line) commits to the project file, not on this one's own writes.
    /// The workbench polls it to follow edits made elsewhere.
    pub fn data_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| classify(e.into(), self.path.as_deref(), self.busy_timeout))
    }

    /// Run `f` in one read transaction, so it sees one consistent snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let result = (|| {
            let tx = self.conn.unchecked_transaction()?;
            let value = f(&tx)?;
            tx.finish()?;
            Ok(value)
        })();
        result.map_err(|e| classify(e, self.path.as_deref(), self.busy_timeout))
    }
}

/// Turn SQLite's busy / locked codes into [`Error::ProjectBusy`]; everything else unchanged.
fn classify(err: Error, path: Option<&Path>, waited: Duration) -> Error {
    match err {
        Error::Sqlite(e)
            if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ) =>
        {
            Error::ProjectBusy {
                path: path.map(Path::to_path_buf).unwrap_or_default(),
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            }
        }
        // SQLite's "attempt to write a readonly database" does not say which file.
        Error::Sqlite(e)
            if path.is_some() && e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) =>
        {
            Error::BadProject {
                reason: "the project file cannot be written (read-only or immutable; nothing was stored)"
                    .into(),
                path: path.map(Path::to_path_buf).unwrap_or_default(),
            }
        }
        other => other,
    }
}

/// `err` from opening `path`, explained when SQLite could not write because the project's
/// folder cannot be written: its write-ahead log lives beside it (`-wal`, `-shm`), so even
/// reading needs the folder writable.
fn unwritable(err: Error, path: &Path) -> Error {
    let Error::Sqlite(e) = &err else {
        return err;
    };
    if !matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    ) {
        return err;
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let probe = dir.join(format!(".samecore-write-probe-{}", std::process::id()));
    let writable = std::fs::File::create(&probe).is_ok();
    let _ = std::fs::remove_file(&probe);
    if writable {
        return err;
    }
    Error::BadProject {
        reason: format!(
            "its folder {} cannot be written, and SQLite keeps the project's write-ahead log \
             beside it (-wal, -shm) even to read it; copy the project to a folder you can \
             write ({e})",
            dir.display()
        ),
        path: path.to_path_buf(),
    }
}

/// A rusqlite conversion error for a text column holding a value we do not know.
pub(crate) fn bad_value(column: usize, what: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        column,
        rusqlite::types::Type::Text,
        format!("unknown {what} {value:?} in the project file").into(),
    )
}
