//! The coders' packages a project wrote ([`crate::package`]): each with its coder, round, run,
//! units, codebook version and the key its contents are signed with; and every merge of one.

use rusqlite::{OptionalExtension, params};

use super::{Project, RunId};
use crate::Result;

/// What a package file says it is (its `meta` table's `format`); kept here so that opening a
/// package as a project can say what it is.
pub const PACKAGE_FORMAT: &str = "samecore-package";

/// A package as the project records it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageRecord {
    /// Its id.
    pub id: String,
    /// The coder.
    pub coder: String,
    /// The round (or the sample, for a package of pairs).
    pub round: String,
    /// What it holds.
    pub kind: PackageKind,
    /// The run (none for a sample imported without one).
    pub run: Option<RunId>,
    /// Its stories or pairs.
    pub units: usize,
    /// The codebook version it was written under (none for a package of pairs).
    pub codebook_version: Option<i64>,
    /// Blind or not.
    pub blind: bool,
    /// The key of its signature.
    pub key: Vec<u8>,
    /// Where it was written.
    pub file: String,
    /// Who wrote it.
    pub created_by: String,
}

/// What a package holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PackageKind {
    /// The stories of a reliability round, to code with the codebook.
    Round,
    /// The pairs of a sample, to judge.
    Sample,
}

impl PackageKind {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            PackageKind::Round => "round",
            PackageKind::Sample => "sample",
        }
    }

    /// From its stored name.
    pub fn from_name(name: &str) -> Option<PackageKind> {
        match name {
            "round" => Some(PackageKind::Round),
            "sample" => Some(PackageKind::Sample),
            _ => None,
        }
    }
}

impl Project {
    /// Record a package written.
    pub fn record_package(&mut self, p: &PackageRecord) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO packages (id, coder, round, run_id, units, codebook_version, blind,
                   key, file, created_by, kind)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    p.id,
                    p.coder,
                    p.round,
                    p.run.map(|r| r.0),
                    p.units as i64,
                    p.codebook_version,
                    p.blind,
                    p.key,
                    p.file,
                    p.created_by,
                    p.kind.as_str()
                ],
            )?;
            Ok(())
        })
    }

    /// The package `id`, when this project wrote it.
    pub fn package_record(&self, id: &str) -> Result<Option<PackageRecord>> {
        self.read(|tx| {
            Ok(tx
                .query_row(
                    "SELECT id, coder, round, run_id, units, codebook_version, blind, key, file,
                       created_by, kind FROM packages WHERE id = ?1",
                    [id],
                    |r| {
                        Ok(PackageRecord {
                            id: r.get(0)?,
                            coder: r.get(1)?,
                            round: r.get(2)?,
                            run: r.get::<_, Option<i64>>(3)?.map(RunId),
                            units: r.get::<_, i64>(4)? as usize,
                            codebook_version: r.get(5)?,
                            blind: r.get(6)?,
                            key: r.get(7)?,
                            file: r.get(8)?,
                            created_by: r.get(9)?,
                            kind: PackageKind::from_name(&r.get::<_, String>(10)?)
                                .unwrap_or(PackageKind::Round),
                        })
                    },
                )
                .optional()?)
        })
    }

    /// Every package written, oldest first.
    pub fn package_records(&self) -> Result<Vec<PackageRecord>> {
        let ids: Vec<String> = self.read(|tx| {
            let mut stmt = tx.prepare("SELECT id FROM packages ORDER BY created_at, id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        let mut out = Vec::new();
        for id in ids {
            out.extend(self.package_record(&id)?);
        }
        Ok(out)
    }
}
