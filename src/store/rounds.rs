//! Reliability rounds: stories of a run drawn for double coding (which ones, in which stratum,
//! by which seed), the coders they are assigned to, and whether the round is blind. The draw
//! itself is [`crate::coding::round`]'s; this file keeps it.

use rusqlite::{OptionalExtension, params};

use super::{Project, RunId};
use crate::{Error, Result};

/// A stored round.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// Its row.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The run whose clusters it drew.
    pub run: RunId,
    /// The seed of the draw.
    pub seed: u64,
    /// How it was stratified (`none`, `site`, `month`, `size`).
    pub strata: String,
    /// Coders see no one else's values.
    pub blind: bool,
    /// The coders assigned, each to every unit.
    pub coders: Vec<String>,
    /// Who drew it.
    pub created_by: String,
    /// When.
    pub created_at: String,
    /// The units: (cluster, stratum) in drawing order.
    pub units: Vec<(i64, String)>,
}

impl Project {
    /// Store a drawn round (its name must be new); its row.
    pub fn save_round(&mut self, round: &Round) -> Result<i64> {
        self.write(|tx| {
            let taken = tx
                .query_row("SELECT 1 FROM rounds WHERE name = ?1", [&round.name], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()?;
            if taken.is_some() {
                return Err(Error::InvalidParameter(format!(
                    "a round named {:?} exists: choose another name",
                    round.name
                )));
            }
            tx.execute(
                "INSERT INTO rounds (name, run_id, seed, strata, blind, coders, created_by)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    round.name,
                    round.run.0,
                    round.seed as i64,
                    round.strata,
                    round.blind,
                    serde_json::to_string(&round.coders)?,
                    round.created_by
                ],
            )?;
            let id = tx.last_insert_rowid();
            let mut insert = tx.prepare(
                "INSERT INTO round_units (round_id, position, cluster, stratum)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (i, (cluster, stratum)) in round.units.iter().enumerate() {
                insert.execute(params![id, i as i64, cluster, stratum])?;
            }
            Ok(id)
        })
    }

    /// Every round, oldest first.
    pub fn rounds(&self) -> Result<Vec<Round>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT id, name, run_id, seed, strata, blind, coders, created_by, created_at
                 FROM rounds ORDER BY id",
            )?;
            let heads = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, bool>(5)?,
                        r.get::<_, String>(6)?,
                        r.get::<_, String>(7)?,
                        r.get::<_, String>(8)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut units = tx.prepare(
                "SELECT cluster, stratum FROM round_units WHERE round_id = ?1 ORDER BY position",
            )?;
            let mut out = Vec::new();
            for (id, name, run, seed, strata, blind, coders, created_by, created_at) in heads {
                out.push(Round {
                    id,
                    name,
                    run: RunId(run),
                    seed: seed as u64,
                    strata,
                    blind,
                    coders: serde_json::from_str(&coders)?,
                    created_by,
                    created_at,
                    units: units
                        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
                        .collect::<rusqlite::Result<_>>()?,
                });
            }
            Ok(out)
        })
    }

    /// The round named `name`.
    pub fn round(&self, name: &str) -> Result<Round> {
        let all = self.rounds()?;
        let names: Vec<String> = all.iter().map(|r| format!("{:?}", r.name)).collect();
        all.into_iter().find(|r| r.name == name).ok_or_else(|| {
            Error::InvalidParameter(format!(
                "no round {name:?} (rounds: {})",
                if names.is_empty() {
                    "none yet".into()
                } else {
                    names.join(", ")
                }
            ))
        })
    }
}
