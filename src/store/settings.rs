//! Settings kept in the project file, as JSON by key: what the workbench needs to come back as
//! it was (annotator, run settings, antecedents, tab), so settings belong to a project and its
//! corpus and never leak into another.

use rusqlite::OptionalExtension;

use super::Project;
use crate::Result;

impl Project {
    /// The setting `key`, none when it was never set.
    pub fn setting(&self, key: &str) -> Result<Option<serde_json::Value>> {
        self.read(|tx| {
            let text: Option<String> = tx
                .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                    r.get(0)
                })
                .optional()?;
            Ok(text.map(|t| serde_json::from_str(&t)).transpose()?)
        })
    }

    /// Set `key` to `value`.
    pub fn set_setting(&mut self, key: &str, value: &serde_json::Value) -> Result<()> {
        let text = serde_json::to_string(value)?;
        self.write(|tx| {
            tx.execute(
                "INSERT INTO settings (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, &text],
            )?;
            Ok(())
        })
    }
}
