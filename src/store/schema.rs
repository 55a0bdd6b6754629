//! The project schema and its migrations: a connection in, a connection at
//! [`SCHEMA_VERSION`] out, with a copy of the old file left beside it before anything changed.
//!
//! The version is SQLite's `PRAGMA user_version`. Migration `n` takes a file from version
//! `n - 1` to `n`; a new project runs them all. Each migration runs in one transaction, so a
//! crash in the middle leaves the file at the old version (and the backup is still there).
//!
//! History:
//! - v1: archives, documents, runs with pairs and clusters, samples, labels (verdict only), codes
//!   attached to pages.
//! - v2: label reasons, notes and undo; sample strata sizes (for stratified estimates);
//!   settlements of disagreements; code provenance (cluster / page, run, who, when) and page
//!   overrides; hand-edited clusters; gold clusters imported from CSV; the full record location
//!   of a page (JSON), so its raw page can be re-read from the archive.
//! - v3: pages keyed by capture (`<timestamp> <URL> <digest>`, see
//!   [`crate::document::capture_key`]); rows written before keep their old key and are marked
//!   `legacy` until a run meets them again at the same file offset, which re-keys them in place
//!   (labels and codes stay attached). Pages gain payload digest, HTTP status and MIME type;
//!   archives their absolute path and their path relative to the project file; gold its source;
//!   a log of code edits, so `samecore code undo` works across invocations; settings (the
//!   workbench's state: annotator, run settings, antecedents, tab) that come back with the file.
//! - v4: pages keep their title and publication date with its source ([`crate::dates`]); a
//!   coder's derivation class of a pair ([`crate::passages::Derivation`]), with who and when.
//! - v5: the codebook of variables, every version of it kept whole
//!   ([`crate::codebook`]); coded values, each coder's own (unit, variable, coder,
//!   value, codebook version, when), never overwritten by another's, with a lead's final
//!   (adjudicated) values beside them; reliability rounds (a seeded draw of a run's stories
//!   for double coding, its coders, blind by default). Nothing earlier changes: the tag codes stay in
//!   `page_codes` and are read as the several-values variable `codes`.
//! - v6: coders' packages ([`crate::package`]): each package written (its coder, round, units,
//!   the key its contents are signed with), and every merge of one; a coded value remembers
//!   the package row it came from (`origin`), so a package merged twice adds nothing the
//!   second time. Nothing earlier changes.
//! - v7: packages of a sample of pairs too (`packages.kind`; their run and codebook version may
//!   be none); a label and a derivation class remember the package row they came from
//!   (`origin`), and a derivation class can be undone; a merge counts the labels and classes
//!   it brought. The label and class that count are the latest by when they were decided.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::{Error, Result};

/// The schema version this samecore writes.
pub const SCHEMA_VERSION: u32 = 7;

/// `user_version` 0 -> 1: the first released schema.
const V1: &str = r#"
CREATE TABLE archives (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    opened_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    archive_id INTEGER REFERENCES archives(id) ON DELETE SET NULL,
    key TEXT NOT NULL UNIQUE,
    record_id TEXT,
    url TEXT,
    date TEXT,
    file TEXT,
    offset INTEGER,
    length INTEGER,
    site TEXT
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    detector TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT '{}',
    seed INTEGER,
    code_version TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    elapsed_ms INTEGER,
    timings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE run_pairs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    a INTEGER NOT NULL REFERENCES documents(id),
    b INTEGER NOT NULL REFERENCES documents(id),
    score REAL NOT NULL,
    PRIMARY KEY (run_id, a, b),
    CHECK (a < b)
) WITHOUT ROWID;
CREATE TABLE run_clusters (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    cluster INTEGER NOT NULL,
    representative INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, doc_id)
) WITHOUT ROWID;
CREATE TABLE samples (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    method TEXT NOT NULL,
    seed INTEGER NOT NULL,
    blind INTEGER NOT NULL DEFAULT 0,
    spec TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE sample_pairs (
    sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    a INTEGER NOT NULL REFERENCES documents(id),
    b INTEGER NOT NULL REFERENCES documents(id),
    score REAL,
    stratum TEXT NOT NULL DEFAULT 'all',
    PRIMARY KEY (sample_id, position),
    UNIQUE (sample_id, a, b)
);
CREATE TABLE labels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sample_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    annotator TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('correct', 'incorrect', 'undecided')),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    FOREIGN KEY (sample_id, position) REFERENCES sample_pairs(sample_id, position)
        ON DELETE CASCADE
);
CREATE TABLE codes (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE page_codes (
    doc_id INTEGER NOT NULL REFERENCES documents(id),
    code_id INTEGER NOT NULL REFERENCES codes(id) ON DELETE CASCADE,
    PRIMARY KEY (doc_id, code_id)
) WITHOUT ROWID;
"#;

/// `user_version` 1 -> 2.
const V2: &str = r#"
ALTER TABLE labels ADD COLUMN reason TEXT;
ALTER TABLE labels ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE labels ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
CREATE INDEX labels_by_annotator ON labels (sample_id, annotator, position, id);
CREATE TABLE sample_strata (
    sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    stratum TEXT NOT NULL,
    lo REAL,
    hi REAL,
    same_site INTEGER,
    population INTEGER NOT NULL,
    drawn INTEGER NOT NULL,
    PRIMARY KEY (sample_id, stratum)
) WITHOUT ROWID;
CREATE TABLE settlements (
    sample_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('correct', 'incorrect', 'undecided')),
    reason TEXT,
    note TEXT NOT NULL DEFAULT '',
    settled_by TEXT NOT NULL,
    settled_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (sample_id, position),
    FOREIGN KEY (sample_id, position) REFERENCES sample_pairs(sample_id, position)
        ON DELETE CASCADE
) WITHOUT ROWID;
ALTER TABLE codes ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE page_codes ADD COLUMN applied INTEGER NOT NULL DEFAULT 1;
ALTER TABLE page_codes ADD COLUMN source TEXT NOT NULL DEFAULT 'page';
ALTER TABLE page_codes ADD COLUMN run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL;
ALTER TABLE page_codes ADD COLUMN cluster INTEGER;
ALTER TABLE page_codes ADD COLUMN applied_by TEXT NOT NULL DEFAULT '';
ALTER TABLE page_codes ADD COLUMN applied_at TEXT;
ALTER TABLE run_clusters ADD COLUMN manual_cluster INTEGER;
ALTER TABLE documents ADD COLUMN location TEXT;
CREATE TABLE gold (
    key TEXT PRIMARY KEY,
    cluster TEXT NOT NULL
) WITHOUT ROWID;
"#;

/// `user_version` 2 -> 3.
const V3: &str = r#"
ALTER TABLE documents ADD COLUMN legacy INTEGER NOT NULL DEFAULT 0;
UPDATE documents SET legacy = 1;
ALTER TABLE documents ADD COLUMN digest TEXT;
ALTER TABLE documents ADD COLUMN status INTEGER;
ALTER TABLE documents ADD COLUMN mime TEXT;
ALTER TABLE documents ADD COLUMN reader_key TEXT;
UPDATE documents SET reader_key = key;
CREATE INDEX documents_by_reader_key ON documents (reader_key);
CREATE INDEX documents_by_legacy_key ON documents (legacy, key, offset);
ALTER TABLE archives ADD COLUMN abs_path TEXT;
ALTER TABLE archives ADD COLUMN rel_path TEXT;
UPDATE archives SET abs_path = path;
ALTER TABLE gold ADD COLUMN source TEXT NOT NULL DEFAULT 'import';
CREATE TABLE code_log (
    id INTEGER PRIMARY KEY,
    by TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    what TEXT NOT NULL,
    code_ids TEXT NOT NULL,
    codes_before TEXT NOT NULL,
    rows_before TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"#;

/// `user_version` 3 -> 4.
const V4: &str = r#"
ALTER TABLE documents ADD COLUMN title TEXT;
ALTER TABLE documents ADD COLUMN published TEXT;
ALTER TABLE documents ADD COLUMN published_source TEXT;
CREATE TABLE derivations (
    id INTEGER PRIMARY KEY,
    source INTEGER NOT NULL REFERENCES documents(id),
    derived INTEGER NOT NULL REFERENCES documents(id),
    class TEXT NOT NULL CHECK (class IN ('wholly', 'partially', 'non')),
    by TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    note TEXT NOT NULL DEFAULT '',
    CHECK (source <> derived)
);
CREATE INDEX derivations_by_pair ON derivations (min(source, derived), max(source, derived));
"#;

/// `user_version` 4 -> 5.
const V5: &str = r#"
CREATE TABLE codebook_versions (
    version INTEGER PRIMARY KEY,
    codebook TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE coded_values (
    id INTEGER PRIMARY KEY,
    variable TEXT NOT NULL,
    unit_kind TEXT NOT NULL CHECK (unit_kind IN ('story', 'page')),
    run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
    cluster INTEGER,
    doc_id INTEGER REFERENCES documents(id),
    coder TEXT NOT NULL,
    role TEXT NOT NULL DEFAULT 'coder' CHECK (role IN ('coder', 'final')),
    answer TEXT NOT NULL CHECK (answer IN ('value', 'not_applicable', 'cannot_code')),
    value TEXT,
    version INTEGER NOT NULL REFERENCES codebook_versions(version),
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    undone INTEGER NOT NULL DEFAULT 0,
    CHECK ((unit_kind = 'story' AND run_id IS NOT NULL AND cluster IS NOT NULL AND doc_id IS NULL)
        OR (unit_kind = 'page' AND doc_id IS NOT NULL AND run_id IS NULL AND cluster IS NULL))
);
CREATE INDEX coded_values_by_unit
    ON coded_values (variable, unit_kind, run_id, cluster, doc_id, coder, role, id);
CREATE TABLE rounds (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seed INTEGER NOT NULL,
    strata TEXT NOT NULL,
    blind INTEGER NOT NULL DEFAULT 1,
    coders TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE round_units (
    round_id INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    cluster INTEGER NOT NULL,
    stratum TEXT NOT NULL,
    PRIMARY KEY (round_id, position)
) WITHOUT ROWID;
"#;

/// `user_version` 5 -> 6.
const V6: &str = r#"
ALTER TABLE coded_values ADD COLUMN origin TEXT;
CREATE UNIQUE INDEX coded_values_by_origin ON coded_values (origin) WHERE origin IS NOT NULL;
CREATE TABLE packages (
    id TEXT PRIMARY KEY,
    coder TEXT NOT NULL,
    round TEXT NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    units INTEGER NOT NULL,
    codebook_version INTEGER NOT NULL REFERENCES codebook_versions(version),
    blind INTEGER NOT NULL,
    key BLOB NOT NULL,
    file TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) WITHOUT ROWID;
CREATE TABLE package_merges (
    id INTEGER PRIMARY KEY,
    package_id TEXT NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    by TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    values_in INTEGER NOT NULL,
    already INTEGER NOT NULL,
    undone INTEGER NOT NULL
);
"#;

/// `user_version` 6 -> 7. `packages` and `package_merges` are rebuilt (a package of a sample has
/// no codebook version): renamed first, so the merges keep pointing at their packages while the
/// rows are copied, and the old tables dropped children first.
const V7: &str = r#"
ALTER TABLE labels ADD COLUMN origin TEXT;
CREATE UNIQUE INDEX labels_by_origin ON labels (origin) WHERE origin IS NOT NULL;
ALTER TABLE derivations ADD COLUMN origin TEXT;
ALTER TABLE derivations ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX derivations_by_origin ON derivations (origin) WHERE origin IS NOT NULL;
ALTER TABLE packages RENAME TO packages_v6;
ALTER TABLE package_merges RENAME TO package_merges_v6;
CREATE TABLE packages (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL DEFAULT 'round' CHECK (kind IN ('round', 'sample')),
    coder TEXT NOT NULL,
    round TEXT NOT NULL,
    run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
    units INTEGER NOT NULL,
    codebook_version INTEGER REFERENCES codebook_versions(version),
    blind INTEGER NOT NULL,
    key BLOB NOT NULL,
    file TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) WITHOUT ROWID;
INSERT INTO packages (id, kind, coder, round, run_id, units, codebook_version, blind, key, file,
    created_by, created_at)
  SELECT id, 'round', coder, round, run_id, units, codebook_version, blind, key, file,
    created_by, created_at FROM packages_v6;
CREATE TABLE package_merges (
    id INTEGER PRIMARY KEY,
    package_id TEXT NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
    by TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    values_in INTEGER NOT NULL,
    already INTEGER NOT NULL,
    undone INTEGER NOT NULL,
    labels_in INTEGER NOT NULL DEFAULT 0,
    derivations_in INTEGER NOT NULL DEFAULT 0
);
INSERT INTO package_merges (id, package_id, by, at, values_in, already, undone)
  SELECT id, package_id, by, at, values_in, already, undone FROM package_merges_v6;
DROP TABLE package_merges_v6;
DROP TABLE packages_v6;
"#;

/// Migration `i` takes the file from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [V1, V2, V3, V4, V5, V6, V7];

/// What [`migrate`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// The version the file had.
    pub from: u32,
    /// The version it has now.
    pub to: u32,
    /// The copy of the file taken before migrating (none for a new project).
    pub backup: Option<PathBuf>,
}

/// The schema version of an open database.
pub fn version(conn: &Connection) -> Result<u32> {
    let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

/// Bring `conn` (the file `path`, none in memory) to [`SCHEMA_VERSION`]. An existing project at
/// an older version is first copied with `VACUUM INTO` to `<file>.v<old>.bak` (numbered when
/// that exists); a file from a newer samecore is refused untouched.
pub fn migrate(conn: &mut Connection, path: Option<&Path>) -> Result<Migration> {
    let from = version(conn)?;
    let display = path.map(Path::to_path_buf).unwrap_or_default();
    if from > SCHEMA_VERSION {
        return Err(Error::BadProject {
            reason: format!(
                "project schema v{from} is newer than this samecore understands (v{SCHEMA_VERSION}); \
                 update samecore"
            ),
            path: display,
        });
    }
    refuse_foreign(conn, path)?;
    let backup = match path {
        Some(path) if from > 0 && from < SCHEMA_VERSION => Some(backup_copy(conn, path, from)?),
        _ => None,
    };
    for v in from..SCHEMA_VERSION {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // SQLite's own word ("duplicate column name: reason") would not say what is wrong: the
        // file's tables are not those of the version it claims.
        tx.execute_batch(MIGRATIONS[v as usize])
            .map_err(|e| Error::BadProject {
                reason: format!(
                    "the project says it is schema v{v} but its tables are not (was its \
                     user_version changed by another program?); it was left as it was \
                     (migrating to v{} failed: {e})",
                    v + 1
                ),
                path: display.clone(),
            })?;
        tx.pragma_update(None, "user_version", v + 1)?;
        tx.commit()?;
    }
    Ok(Migration {
        from,
        to: SCHEMA_VERSION,
        backup,
    })
}

/// Refuse an SQLite file with tables but no samecore schema version: another program's file.
pub(crate) fn refuse_foreign(conn: &Connection, path: Option<&Path>) -> Result<()> {
    if version(conn)? != 0 {
        return Ok(());
    }
    let tables: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    if tables > 0 {
        let package: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
                r.get(0)
            })
            .ok();
        let reason = if package.as_deref() == Some(super::packages::PACKAGE_FORMAT) {
            "a coder's package, not a project (left untouched): code in it with `samecore code \
             --package`, bring it in with `samecore merge`"
        } else {
            "an SQLite file that is not a samecore project (left untouched)"
        };
        return Err(Error::BadProject {
            reason: reason.into(),
            path: path.map(Path::to_path_buf).unwrap_or_default(),
        });
    }
    Ok(())
}

/// Copy the whole database to a fresh file beside `path`; returns the copy's path.
fn backup_copy(conn: &Connection, path: &Path, from: u32) -> Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project.samecore".into());
    let mut target = path.with_file_name(format!("{name}.v{from}.bak"));
    let mut n = 1;
    while target.exists() {
        n += 1;
        target = path.with_file_name(format!("{name}.v{from}.{n}.bak"));
    }
    let target_str = target.to_str().ok_or_else(|| Error::BadProject {
        reason: "the backup path is not valid UTF-8".into(),
        path: target.clone(),
    })?;
    conn.execute("VACUUM INTO ?1", [target_str])?;
    Ok(target)
}
