//! Outputs that would destroy an input: the one check every writing command makes before it
//! does any work.
//!
//! In: the files a command reads (the project, with its `-wal`, `-shm` and `-journal`
//! companions; the archives; any other file it reads) and the path it is asked to write. Out:
//! `Ok` or an [`Error::InvalidParameter`] that names both. Files are compared by identity, not
//! spelling: an existing output is the same file as an input when both have the same device and
//! inode (which sees symlinks, `./` and hard links); an output not there yet is compared by its
//! canonical path (its folder resolved, a symlink at its name followed), which is how a project's
//! `-wal` that SQLite has not yet made is caught. An output inside an input folder of pages is
//! refused too: it would become a page of that archive the next time it is read.

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// What an input is, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The project file (or one of SQLite's companion files of it).
    Project,
    /// An archive read by the command.
    Archive,
    /// Another file the command reads (gold, seeds, an export to import).
    Input,
}

impl Role {
    fn noun(self) -> &'static str {
        match self {
            Role::Project => "the project",
            Role::Archive => "an input archive",
            Role::Input => "a file this command reads",
        }
    }
}

/// The inputs of one command, to check its outputs against.
#[derive(Debug, Default, Clone)]
pub struct Inputs {
    files: Vec<(PathBuf, Role)>,
}

impl Inputs {
    /// No inputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The project file and the companions SQLite writes beside it.
    pub fn project(mut self, path: &Path) -> Self {
        self.files.push((path.to_path_buf(), Role::Project));
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            self.files.push((PathBuf::from(name), Role::Project));
        }
        self
    }

    /// Archives (files, folders or zips of pages).
    pub fn archives<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        for p in paths {
            self.files.push((p.as_ref().to_path_buf(), Role::Archive));
        }
        self
    }

    /// Any other file the command reads.
    pub fn input(mut self, path: &Path) -> Self {
        self.files.push((path.to_path_buf(), Role::Input));
        self
    }

    /// `Ok` when writing `out` replaces none of the inputs and is no SQLite file (a project):
    /// the check of every export's place; `what` names the option (`--out`).
    pub fn check(&self, out: &Path, what: &str) -> Result<()> {
        if out.as_os_str() == "-" {
            return Ok(());
        }
        // The inputs first: "is the project" says more than "is an SQLite file".
        self.check_place(out, what)?;
        if is_sqlite(out) {
            return Err(Error::InvalidParameter(format!(
                "{what} {} is an SQLite file (a samecore project?); nothing was written: \
                 choose another file",
                out.display()
            )));
        }
        Ok(())
    }

    /// `Ok` when `out` is none of the inputs (and not inside an input folder): the check of a
    /// project file that a command writes into, which is an SQLite file by right.
    pub fn check_place(&self, out: &Path, what: &str) -> Result<()> {
        let out_id = identity(out);
        let out_canonical = canonical(out);
        for (input, role) in &self.files {
            let same_file = match (&out_id, identity(input)) {
                (Some(a), Some(b)) => *a == b,
                _ => false,
            };
            let in_canonical = canonical(input);
            let same_path = matches!((&out_canonical, &in_canonical), (Some(a), Some(b)) if a == b);
            let inside_folder = input.is_dir()
                && matches!((&out_canonical, &in_canonical), (Some(a), Some(b)) if a.starts_with(b));
            if same_file || same_path || inside_folder {
                let how = if inside_folder && !same_path && !same_file {
                    "is inside"
                } else {
                    "is"
                };
                return Err(Error::InvalidParameter(format!(
                    "{what} {} {how} {} ({}); nothing was written: choose another file",
                    out.display(),
                    role.noun(),
                    input.display()
                )));
            }
        }
        Ok(())
    }

    /// [`check`](Self::check) for each output given.
    pub fn check_all<'a>(&self, outs: impl IntoIterator<Item = (&'a Path, &'a str)>) -> Result<()> {
        outs.into_iter()
            .try_for_each(|(p, what)| self.check(p, what))
    }
}

/// Whether `path` is an existing SQLite database: a project, never an export's place. Only a
/// regular file is read: opening a pipe (`-o /dev/stdout` into `| head`) to read would wait
/// for a writer that never comes.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == b"SQLite format 3\0"
}

/// A file's identity (device and inode where the platform has them, else its canonical path),
/// following symlinks; `None` when it does not exist.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The canonical path `path` names, whether or not it exists: its folder resolved, and a
/// symlink at its name followed (a few links deep; a longer chain is left as it is).
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let mut path = std::path::absolute(path).ok()?;
    for _ in 0..8 {
        match std::fs::read_link(&path) {
            Ok(target) => {
                let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
                path = base.join(target);
            }
            Err(_) => break,
        }
    }
    let name = path.file_name()?.to_owned();
    let parent = path.parent()?;
    let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    Some(parent.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_its_companions_and_archives_are_refused_however_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p.samecore");
        let archive = dir.path().join("a.warc.gz");
        std::fs::write(&project, b"db").unwrap();
        std::fs::write(&archive, b"warc").unwrap();
        let inputs = Inputs::new().project(&project).archives([&archive]);
        assert!(inputs.check(&project, "--out").is_err());
        let wal = dir.path().join("p.samecore-wal");
        assert!(inputs.check(&wal, "--out").is_err(), "a -wal not yet there");
        let dotted = dir.path().join(".").join("p.samecore");
        assert!(inputs.check(&dotted, "--out").is_err());
        let link = dir.path().join("link.csv");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&archive, &link).unwrap();
            assert!(
                inputs.check(&link, "--out").is_err(),
                "a symlink to an archive"
            );
            let hard = dir.path().join("hard.csv");
            std::fs::hard_link(&project, &hard).unwrap();
            assert!(
                inputs.check(&hard, "--out").is_err(),
                "a hard link to the project"
            );
            let dangling = dir.path().join("dangling.csv");
            std::os::unix::fs::symlink(dir.path().join("p.samecore-shm"), &dangling).unwrap();
            assert!(
                inputs.check(&dangling, "--out").is_err(),
                "a link to the -shm"
            );
        }
        let message = inputs.check(&project, "--out").unwrap_err().to_string();
        assert!(message.contains("is the project"), "{message}");
        assert!(inputs.check(&dir.path().join("pages.csv"), "--out").is_ok());
        assert!(inputs.check(Path::new("-"), "--out").is_ok());
        // Another project is no export's place either.
        let other = dir.path().join("other.samecore");
        std::fs::write(&other, b"SQLite format 3\0 and the rest").unwrap();
        let message = Inputs::new()
            .check(&other, "--out")
            .unwrap_err()
            .to_string();
        assert!(message.contains("is an SQLite file"), "{message}");
    }

    #[test]
    fn an_output_inside_a_folder_of_pages_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let pages = dir.path().join("pages");
        std::fs::create_dir(&pages).unwrap();
        let inputs = Inputs::new().archives([&pages]);
        let message = inputs
            .check(&pages.join("sub").join("x.csv"), "--clusters")
            .unwrap_err()
            .to_string();
        assert!(message.contains("is inside an input archive"), "{message}");
        assert!(
            inputs
                .check(&dir.path().join("x.csv"), "--clusters")
                .is_ok()
        );
    }
}
