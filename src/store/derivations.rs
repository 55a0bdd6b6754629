//! A coder's derivation class of a pair of pages (wholly, partially or non-derived,
//! [`crate::passages::Derivation`]): kept like a label, with who and when, every decision kept
//! (the latest one of a pair counts; [`Project::derivation_history`] shows the rest).

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{PageId, Project};
use crate::passages::Derivation;
use crate::{Error, Result};

/// One decision on a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DerivationRow {
    /// The source page (the earlier one, as the coder takes it).
    pub source: PageId,
    /// The page that derives from it.
    pub derived: PageId,
    /// The class.
    pub class: Derivation,
    /// Who decided.
    pub by: String,
    /// When (UTC, ISO 8601).
    pub at: String,
    /// A note.
    pub note: String,
}

impl Project {
    /// Record that `derived` derives from `source` as `class`, decided by `by`.
    pub fn set_derivation(
        &mut self,
        source: PageId,
        derived: PageId,
        class: Derivation,
        by: &str,
        note: &str,
    ) -> Result<()> {
        if source == derived {
            return Err(Error::InvalidParameter(
                "a page does not derive from itself".into(),
            ));
        }
        if by.trim().is_empty() {
            return Err(Error::InvalidParameter(
                "say who decides (an annotator name)".into(),
            ));
        }
        self.write(|tx| {
            // Now, or just after the pair's latest decision when that is later (one merged
            // from a package keeps the laptop's clock): the latest by time counts.
            tx.execute(
                "INSERT INTO derivations (source, derived, class, by, note, at)
                 SELECT ?1, ?2, ?3, ?4, ?5,
                   CASE WHEN m IS NULL OR now > m THEN now
                     ELSE strftime('%Y-%m-%dT%H:%M:%fZ', julianday(m) + 0.0000000174) END
                 FROM (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now,
                         (SELECT max(at) FROM derivations
                          WHERE min(source, derived) = min(?1, ?2)
                            AND max(source, derived) = max(?1, ?2)) AS m)",
                params![source.0, derived.0, class.name(), by, note],
            )?;
            Ok(())
        })
    }

    /// The current decision of every pair that has one (its latest), by pair.
    pub fn derivations(&self) -> Result<Vec<DerivationRow>> {
        self.derivation_rows(
            // The latest by when it was decided (one merged from a coder's package keeps its
            // time), then by row; an undone one does not count.
            "SELECT source, derived, class, by, at, note FROM (
               SELECT source, derived, class, by, at, note,
                 row_number() OVER (PARTITION BY min(source, derived), max(source, derived)
                                    ORDER BY at DESC, id DESC) AS latest
               FROM derivations WHERE undone = 0)
             WHERE latest = 1 ORDER BY min(source, derived), max(source, derived)",
        )
    }

    /// Every decision recorded and not undone (in a coder's package, before it was merged),
    /// oldest first.
    pub fn derivation_history(&self) -> Result<Vec<DerivationRow>> {
        self.derivation_rows(
            "SELECT source, derived, class, by, at, note FROM derivations WHERE undone = 0
             ORDER BY id",
        )
    }

    fn derivation_rows(&self, sql: &str) -> Result<Vec<DerivationRow>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(sql)?;
            let rows = stmt.query_map([], |r| {
                let class: String = r.get(2)?;
                Ok(DerivationRow {
                    source: PageId(r.get(0)?),
                    derived: PageId(r.get(1)?),
                    class: Derivation::from_name(&class).unwrap_or(Derivation::Non),
                    by: r.get(3)?,
                    at: r.get(4)?,
                    note: r.get(5)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::runs::PageIdentity;

    #[test]
    fn the_latest_decision_of_a_pair_counts_and_all_are_kept() {
        let mut p = Project::in_memory().unwrap();
        let pages = p
            .upsert_pages(
                None,
                &[
                    PageIdentity {
                        key: "a".into(),
                        ..Default::default()
                    },
                    PageIdentity {
                        key: "b".into(),
                        ..Default::default()
                    },
                ],
            )
            .unwrap();
        let (a, b) = (pages[0], pages[1]);
        p.set_derivation(a, b, Derivation::Wholly, "ann", "")
            .unwrap();
        p.set_derivation(b, a, Derivation::Partially, "bob", "IANS rewrite")
            .unwrap();
        let now = p.derivations().unwrap();
        assert_eq!(now.len(), 1);
        assert_eq!((now[0].source, now[0].class), (b, Derivation::Partially));
        assert_eq!(now[0].by, "bob");
        assert_eq!(p.derivation_history().unwrap().len(), 2);
        assert!(p.set_derivation(a, a, Derivation::Non, "ann", "").is_err());
        assert!(p.set_derivation(a, b, Derivation::Non, " ", "").is_err());
    }
}
