//! Loose pages: a folder of `.html`/`.htm` files (recursive) or a zip of them.
//!
//! In: a folder or zip path. Out: one page per `.html`/`.htm` file (case-insensitive), keyed by
//! its path relative to the input with `/` separators (`Smoking/s12.htm`). The first-level
//! sub-folder is the page's gold cluster — the layout of the SpotSigs gold set (spotsigs §5:
//! one folder per same-core cluster). Loose pages have no HTTP head: status 200, `text/html`.
//!
//! A zip whose pages all sit under one top folder (what zipping a folder gives) is read as that
//! folder: the top folder is left out of keys and clusters. Entries with `..` or absolute paths
//! are refused with a warning.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::block::{MAX_PAGE, MAX_ZIP_RATIO, RATIO_FLOOR};
use super::record::{Body, Ctx, RawPage, new_doc, relative_key};
use crate::document::{RecordLocation, Storage};
use crate::{Error, Result};

fn is_page_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm")
}

/// What [`walk`] meets, in path order.
enum Walked {
    /// A folder was listed: the bytes of its own pages (not its sub-folders'), before them.
    Listed(u64),
    /// A file, with its size when it is a page (`None`: not a page; 0 when unknown).
    File(PathBuf, Option<u64>),
    /// A folder that could not be listed, or an entry of it that could not be read.
    Unlisted(PathBuf, std::io::Error),
    /// A symlink that is not followed: dangling, a loop, or to a folder; why.
    Link(PathBuf, String),
}

/// Every file under `dir` handed to `visit` in path order, symlinked folders not followed (no
/// cycles); stops at `visit`'s first error. Sizes come from the listing's own entries
/// (`fstatat` beside the open folder, not a second look-up of the whole path). Each folder's
/// files go out as soon as it is listed, so the decoding threads start on the first folder's
/// pages while the rest are listed (goldset-dev's first batch came 3 ms sooner, at 2.4–5.6 ms).
fn walk(dir: &Path, visit: &mut dyn FnMut(Walked) -> Result<()>) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return visit(Walked::Unlisted(dir.to_path_buf(), e)),
    };
    let mut paths: Vec<(PathBuf, bool, Option<u64>)> = Vec::new();
    let mut paths_links: Vec<(PathBuf, String)> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => {
                if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                    // Said, not counted silently: a link to a file is read, the rest are not.
                    let why = match std::fs::metadata(entry.path()) {
                        Err(e) => Some(format!("a symlink that leads nowhere ({e})")),
                        Ok(m) if m.is_dir() => Some("a symlinked folder (not followed)".into()),
                        Ok(_) => None,
                    };
                    if let Some(why) = why {
                        paths_links.push((entry.path(), why));
                        continue;
                    }
                }
                let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
                let page = (!is_dir && is_page_name(&entry.file_name().to_string_lossy()))
                    .then(|| entry.metadata().map_or(0, |m| m.len()));
                paths.push((entry.path(), is_dir, page));
            }
            Err(e) => visit(Walked::Unlisted(dir.to_path_buf(), e))?,
        }
    }
    // One folder's entries differ only in their last component: its bytes order them as the
    // whole paths would be ordered.
    paths.sort_unstable_by(|a, b| a.0.file_name().cmp(&b.0.file_name()));
    visit(Walked::Listed(paths.iter().filter_map(|p| p.2).sum()))?;
    paths_links.sort_unstable();
    for (path, why) in paths_links {
        visit(Walked::Link(path, why))?;
    }
    for (path, is_dir, page) in paths {
        if is_dir {
            walk(&path, visit)?;
        } else {
            visit(Walked::File(path, page))?;
        }
    }
    Ok(())
}

/// Count a loose page and hand its document on: its bytes (an empty page is skipped), or a
/// page file for the decoding thread to read ([`Body::File`], which sets the length).
fn emit_page(
    ctx: &mut Ctx<'_>,
    key: String,
    file: PathBuf,
    storage: Storage,
    order: u64,
    body: Body,
) -> Result<()> {
    ctx.report.html_responses += 1;
    let length = match &body {
        Body::Bytes(bytes) => {
            ctx.progress.advance(bytes.len() as u64);
            if bytes.is_empty() {
                ctx.report.skip("empty");
                return Ok(());
            }
            bytes.len() as u64
        }
        _ => 0,
    };
    let location = RecordLocation {
        file: file.into(),
        offset: 0,
        length,
        storage,
    };
    let gold = key.split_once('/').map(|(first, _)| first.to_string());
    let mut doc = new_doc(
        key,
        location,
        None,
        None,
        None,
        Some(200),
        Some("text/html".to_string()),
        None,
    );
    doc.gold = gold.map(Into::into);
    ctx.emit(RawPage {
        doc,
        order,
        body,
        http_charset: None,
    })
}

/// Read a folder of pages.
pub(crate) fn read_folder(ctx: &mut Ctx<'_>) -> Result<()> {
    let root = ctx.path.to_path_buf();
    // Files have no offsets inside the input: their place in the listing is the sort key.
    let mut index = 0u64;
    walk(&root, &mut |walked| match walked {
        Walked::Unlisted(dir, e) => {
            ctx.report
                .warn(&dir, 0, format!("folder could not be listed ({e})"));
            Ok(())
        }
        Walked::Link(path, why) => {
            ctx.report.count_record("file");
            ctx.report.warn(&path, 0, format!("{why}; skipped"));
            ctx.report.skip("symlink");
            Ok(())
        }
        // The progress total grows by each folder's pages as it is listed, on the reader's
        // thread, while the decoding threads read them: no walk before the read.
        Walked::Listed(bytes) => {
            ctx.progress.add_total(bytes);
            crate::engine::memory::folder_listed(bytes);
            Ok(())
        }
        Walked::File(path, page) => {
            ctx.progress.check()?;
            ctx.report.count_record("file");
            let order = index;
            index += 1;
            let Some(size) = page else {
                ctx.report.skip("not-html");
                return Ok(());
            };
            // A key, a project and an export hold text: a name that is not UTF-8 could not be
            // opened again from any of them, so the page is left out, named, not the run lost.
            if path.to_str().is_none() {
                ctx.report.warn(
                    &path,
                    0,
                    format!(
                        "file name is not UTF-8 ({}); skipped: rename it to read it",
                        escaped_name(&path)
                    ),
                );
                ctx.report.skip("bad-name");
                return Ok(());
            }
            if size > MAX_PAGE {
                ctx.report.html_responses += 1;
                ctx.report.warn(
                    &path,
                    0,
                    format!("page of {size} bytes is larger than {MAX_PAGE}; skipped"),
                );
                ctx.report.skip("too-large");
                return Ok(());
            }
            // The decoding thread reads the page.
            let key = relative_key(&root, &path);
            let body = Body::File(path.clone(), size);
            emit_page(ctx, key, path, Storage::Plain, order, body)
        }
    })
}

/// A path whose bytes are not all UTF-8, with each such byte shown as `\xNN`.
fn escaped_name(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// Read a zip of pages.
pub(crate) fn read_zip_pages(ctx: &mut Ctx<'_>) -> Result<()> {
    let path = ctx.path.to_path_buf();
    let file = File::open(&path).map_err(|e| Error::io(e, &path))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|error| Error::Zip {
        error,
        path: path.clone(),
    })?;
    // (index, safe name) of the page entries, sorted by name.
    let mut entries: Vec<(usize, String, String)> = Vec::new();
    for i in 0..zip.len() {
        let entry = match zip.by_index_raw(i) {
            Ok(e) => e,
            Err(e) => {
                ctx.warn(0, format!("zip entry {i} could not be read ({e})"));
                continue;
            }
        };
        if entry.is_dir() {
            continue;
        }
        let offset = entry.header_start();
        ctx.report.count_record("file");
        let Ok(raw_name) = entry.name().map(|n| n.into_owned()) else {
            ctx.warn(
                offset,
                format!("zip entry {i} has a name that is not UTF-8; skipped"),
            );
            ctx.report.skip("bad-name");
            continue;
        };
        let has_parent = raw_name.split(['/', '\\']).any(|part| part == "..");
        let Some(safe) = entry.enclosed_name().filter(|_| !has_parent) else {
            ctx.warn(
                offset,
                format!("zip entry {raw_name:?} has an unsafe path (`..` or absolute); skipped"),
            );
            ctx.report.skip("unsafe-path");
            continue;
        };
        if !is_page_name(&raw_name) {
            ctx.report.skip("not-html");
            continue;
        }
        let name = relative_key(Path::new(""), &safe);
        entries.push((i, raw_name, name));
    }
    entries.sort_by(|a, b| a.2.cmp(&b.2));
    let top = common_top_folder(entries.iter().map(|(_, _, n)| n.as_str()));
    for (order, (index, raw_name, name)) in entries.into_iter().enumerate() {
        ctx.progress.check()?;
        let read = zip
            .by_index(index)
            .map_err(MemberError::Unreadable)
            .and_then(read_member);
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(e) => {
                ctx.report.html_responses += u64::from(e.is_too_large());
                ctx.warn(0, format!("zip entry {raw_name:?} {e}; skipped"));
                ctx.report.skip(e.reason());
                continue;
            }
        };
        let key = match &top {
            Some(top) => name.strip_prefix(top.as_str()).unwrap_or(&name).to_string(),
            None => name.clone(),
        };
        let storage = Storage::zip_entry(raw_name, Storage::Plain);
        emit_page(
            ctx,
            key,
            path.clone(),
            storage,
            order as u64,
            Body::Bytes(bytes),
        )?;
    }
    Ok(())
}

/// `"top/"` when every name lies under that one folder and some lie deeper (so the folder below
/// it is a cluster), else `None`.
fn common_top_folder<'a>(names: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut top: Option<&str> = None;
    let mut deeper = false;
    for name in names {
        let (first, rest) = name.split_once('/')?;
        match top {
            None => top = Some(first),
            Some(t) if t != first => return None,
            Some(_) => {}
        }
        deeper |= rest.contains('/');
    }
    top.filter(|_| deeper).map(|t| format!("{t}/"))
}

/// Why a zip member was not read.
#[derive(Debug)]
enum MemberError {
    /// It says, or turns out, to inflate past [`MAX_PAGE`].
    TooLarge(u64),
    /// It inflates more than [`MAX_ZIP_RATIO`] times its compressed size.
    Ratio { compressed: u64 },
    /// The zip could not give it.
    Unreadable(zip::result::ZipError),
    /// Reading it failed.
    Io(std::io::Error),
}

impl MemberError {
    fn is_too_large(&self) -> bool {
        matches!(self, MemberError::TooLarge(_) | MemberError::Ratio { .. })
    }

    fn reason(&self) -> &'static str {
        if self.is_too_large() {
            "too-large"
        } else {
            "unreadable"
        }
    }
}

impl std::fmt::Display for MemberError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemberError::TooLarge(n) => write!(
                f,
                "inflates to {n} bytes or more, past the page-size limit of {MAX_PAGE}"
            ),
            MemberError::Ratio { compressed } => write!(
                f,
                "inflates more than {MAX_ZIP_RATIO} times its {compressed} compressed bytes (a zip bomb?)"
            ),
            MemberError::Unreadable(e) => write!(f, "could not be read ({e})"),
            MemberError::Io(e) => write!(f, "could not be read ({e})"),
        }
    }
}

/// A zip member's bytes, refused before it is inflated when it says it is larger than
/// [`MAX_PAGE`], and cut off as it inflates when it turns out larger than the page-size limit
/// or than [`MAX_ZIP_RATIO`] times its compressed size (past [`RATIO_FLOOR`]): what a member
/// says of itself is not trusted, so memory never grows past the limit.
fn read_member<R: Read>(mut entry: zip::read::ZipFile<'_, R>) -> Result<Vec<u8>, MemberError> {
    let declared = entry.size();
    if declared > MAX_PAGE {
        return Err(MemberError::TooLarge(declared));
    }
    let compressed = entry.compressed_size();
    let by_ratio = compressed.saturating_mul(MAX_ZIP_RATIO).max(RATIO_FLOOR);
    let limit = MAX_PAGE.min(by_ratio);
    let mut bytes = Vec::with_capacity(usize::try_from(declared.min(limit)).unwrap_or(0));
    (&mut entry)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(MemberError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(if limit == MAX_PAGE {
            MemberError::TooLarge(limit + 1)
        } else {
            MemberError::Ratio { compressed }
        });
    }
    Ok(bytes)
}

/// The bytes of one entry of a zip file.
pub(crate) fn read_zip_entry(path: &Path, entry: &str) -> Result<Vec<u8>> {
    let file = File::open(path).map_err(|e| Error::io(e, path))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|error| Error::Zip {
        error,
        path: path.to_path_buf(),
    })?;
    let entry = zip.by_name(entry).map_err(|error| Error::Zip {
        error,
        path: path.to_path_buf(),
    })?;
    read_member(entry).map_err(|e| match e {
        MemberError::Unreadable(error) => Error::Zip {
            error,
            path: path.to_path_buf(),
        },
        MemberError::Io(e) => Error::io(e, path),
        other => Error::io(
            std::io::Error::new(std::io::ErrorKind::FileTooLarge, other.to_string()),
            path,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_folder_is_stripped_only_when_shared_and_above_clusters() {
        let names = ["gold/A/a.htm", "gold/B/b.htm"];
        assert_eq!(
            common_top_folder(names.into_iter()).as_deref(),
            Some("gold/")
        );
        assert_eq!(common_top_folder(["A/a.htm", "A/b.htm"].into_iter()), None);
        assert_eq!(common_top_folder(["A/a.htm", "B/b.htm"].into_iter()), None);
        assert_eq!(common_top_folder(["a.htm", "B/b.htm"].into_iter()), None);
    }

    #[test]
    fn a_folder_is_read_in_path_order_and_its_pages_fill_the_progress_total() {
        let dir = tempfile::tempdir().unwrap();
        let page = |words: &str| format!("<html><body><p>{words}</p></body></html>");
        for (path, body) in [
            ("b/z.htm", page("zebra")),
            ("b/a.HTML", page("aardvark and ant")),
            ("a.html", page("one")),
            ("notes.txt", "not a page".to_string()),
            ("a/c/d.htm", page("deep in the folder")),
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, body).unwrap();
        }
        let pages_bytes: u64 = ["b/z.htm", "b/a.HTML", "a.html", "a/c/d.htm"]
            .iter()
            .map(|p| std::fs::metadata(dir.path().join(p)).unwrap().len())
            .sum();
        let progress = crate::progress::Progress::new();
        let collection = crate::archive::load(
            &[dir.path().to_path_buf()],
            &crate::archive::ReadOptions::default(),
            &progress,
        )
        .unwrap();
        let keys: Vec<&str> = collection.docs.iter().map(|d| &*d.key).collect();
        assert_eq!(keys, ["a/c/d.htm", "a.html", "b/a.HTML", "b/z.htm"]);
        let seen = progress.snapshot();
        assert_eq!((seen.done, seen.total), (pages_bytes, pages_bytes));
    }

    /// What the walk hands on, in order, as names relative to `root`.
    fn walked(root: &Path, stop_after: usize) -> (Vec<String>, Result<()>) {
        let mut seen = Vec::new();
        let result = walk(root, &mut |w| {
            seen.push(match w {
                Walked::Listed(bytes) => format!("listed {bytes}"),
                Walked::File(path, page) => {
                    let name = path.strip_prefix(root).unwrap().to_string_lossy();
                    format!("{} {page:?}", name.replace('\\', "/"))
                }
                Walked::Unlisted(dir, _) => format!("unlisted {}", dir.display()),
                Walked::Link(path, _) => format!("link {}", path.display()),
            });
            if seen.len() == stop_after {
                return Err(Error::Cancelled);
            }
            Ok(())
        });
        (seen, result)
    }

    #[test]
    fn the_walk_hands_on_each_folder_as_it_is_listed_and_stops_at_an_error() {
        let dir = tempfile::tempdir().unwrap();
        for (path, bytes) in [("b/z.htm", 3), ("a.html", 5), ("c.txt", 7), ("b/y.htm", 11)] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, vec![b'x'; bytes]).unwrap();
        }
        // A folder's own pages' bytes, then its files, a sub-folder where its name sorts.
        let all = [
            "listed 5",
            "a.html Some(5)",
            "listed 14",
            "b/y.htm Some(11)",
            "b/z.htm Some(3)",
            "c.txt None",
        ];
        let (seen, result) = walked(dir.path(), usize::MAX);
        assert!(result.is_ok());
        assert_eq!(seen, all);
        // The first error (a cancel) ends the walk at once.
        let (seen, result) = walked(dir.path(), 4);
        assert!(matches!(result, Err(Error::Cancelled)));
        assert_eq!(seen, all[..4]);
        let missing = dir.path().join("missing");
        let (seen, result) = walked(&missing, usize::MAX);
        assert!(result.is_ok());
        assert_eq!(seen, [format!("unlisted {}", missing.display())]);
    }
}
