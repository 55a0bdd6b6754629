//! Recently opened archives, kept in a small JSON file in the user's data folder
//! (`$XDG_DATA_HOME/samecore/recent.json`, else `~/.local/share/samecore/recent.json`; on
//! Windows `%APPDATA%\samecore\recent.json`). A missing or unreadable file is an empty list:
//! the list is a convenience and never stops the workbench.

use std::path::{Path, PathBuf};

/// How many sets of inputs are remembered.
const KEEP: usize = 8;

/// The recent list and where it is kept (`None`: in memory only, as in tests).
#[derive(Debug, Default)]
pub struct Recent {
    file: Option<PathBuf>,
    /// Sets of inputs, newest first.
    pub entries: Vec<Vec<PathBuf>>,
}

/// The default place of the recent list for this user, when one can be told.
pub fn default_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("APPDATA").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/share")))?;
    Some(base.join("samecore").join("recent.json"))
}

impl Recent {
    /// Load the list kept in `file` (empty when there is none yet).
    pub fn load(file: Option<PathBuf>) -> Recent {
        let entries = file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|bytes| serde_json::from_slice::<Vec<Vec<PathBuf>>>(&bytes).ok())
            .unwrap_or_default();
        Recent { file, entries }
    }

    /// Put `inputs` first and save; returns a message when saving failed.
    pub fn push(&mut self, inputs: &[PathBuf]) -> Option<String> {
        let inputs: Vec<PathBuf> = inputs
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
            .collect();
        self.entries.retain(|e| *e != inputs);
        self.entries.insert(0, inputs);
        self.entries.truncate(KEEP);
        let file = self.file.as_ref()?;
        let saved = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                let json =
                    serde_json::to_vec_pretty(&self.entries).map_err(std::io::Error::other)?;
                let tmp = file.with_extension("json.tmp");
                std::fs::write(&tmp, json)?;
                std::fs::rename(&tmp, file)
            });
        saved.err().map(|e| {
            format!(
                "Could not remember recent archives in {}: {e}",
                file.display()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_without_repeats_and_survives_reload() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/recent.json");
        let mut r = Recent::load(Some(file.clone()));
        assert!(r.entries.is_empty());
        let a = vec![dir.path().join("a.warc")];
        let b = vec![dir.path().join("b.warc")];
        assert_eq!(r.push(&a), None);
        assert_eq!(r.push(&b), None);
        assert_eq!(r.push(&a), None);
        let again = Recent::load(Some(file));
        assert_eq!(again.entries, vec![a, b]);
    }
}
