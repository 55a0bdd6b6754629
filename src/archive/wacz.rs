//! WACZ (Web Archive Collection Zipped, webrecorder's packaging): a zip whose `archive/`
//! folder holds WARC files and whose `pages/pages.jsonl` lists the pages with their titles.
//!
//! In: a `.wacz` path. Out: the records of every WARC inside (in entry-name order, one report
//! for the whole WACZ), page titles taken from `pages.jsonl` where the page has one (else from
//! `<title>`). Locations are [`Storage::ZipEntry`] of the WACZ with the WARC storage inside.
//!
//! WACZ stores its WARCs uncompressed in the zip (the spec asks for it), so an entry is read in
//! place as a window of the file; an entry that is deflated anyway is first copied to a
//! temporary file, so that memory stays bounded and the reader can still seek.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::record::{Container, Ctx};
use super::stream::{GzSource, PlainSource, Window};
use crate::document::Storage;
use crate::{Error, Result};

/// A zip entry opened for seeking: a window of the zip file, or a temporary copy.
pub(crate) enum EntryReader {
    /// Stored entry read in place.
    Window(Window<File>),
    /// Deflated entry copied out (the file is already unlinked).
    Spooled(File),
}

impl Read for EntryReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            EntryReader::Window(w) => w.read(buf),
            EntryReader::Spooled(f) => f.read(buf),
        }
    }
}

impl Seek for EntryReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            EntryReader::Window(w) => w.seek(to),
            EntryReader::Spooled(f) => f.seek(to),
        }
    }
}

fn zip_error(path: &Path) -> impl Fn(zip::result::ZipError) -> Error + '_ {
    move |error| Error::Zip {
        error,
        path: path.to_path_buf(),
    }
}

/// Open entry `name` of the zip at `path` for seeking.
pub(crate) fn open_entry(path: &Path, name: &str) -> Result<EntryReader> {
    let file = File::open(path).map_err(|e| Error::io(e, path))?;
    let mut zip = zip::ZipArchive::new(file).map_err(zip_error(path))?;
    let index = zip
        .index_for_name(name)
        .ok_or_else(|| super::not_an_archive(path, &format!("no entry {name:?} in the zip")))?;
    let stored = {
        let entry = zip.by_index(index).map_err(zip_error(path))?;
        (entry.compression() == zip::CompressionMethod::Stored)
            .then(|| entry.data_start().map(|start| (start, entry.size())))
            .flatten()
    };
    if let Some((start, size)) = stored {
        let file = File::open(path).map_err(|e| Error::io(e, path))?;
        let window = Window::new(file, start, size).map_err(|e| Error::io(e, path))?;
        return Ok(EntryReader::Window(window));
    }
    let mut entry = zip.by_index(index).map_err(zip_error(path))?;
    let (tmp_path, mut tmp) = temp_file().map_err(|e| Error::io(e, std::env::temp_dir()))?;
    let copied = io::copy(&mut entry, &mut tmp).and_then(|_| tmp.flush());
    // Unlinked right away: the open handle keeps the data until it is dropped.
    let _ = std::fs::remove_file(&tmp_path);
    copied.map_err(|e| Error::io(e, path))?;
    tmp.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io(e, &tmp_path))?;
    Ok(EntryReader::Spooled(tmp))
}

fn temp_file() -> io::Result<(PathBuf, File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("samecore-wacz-{}-{n}.tmp", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    Ok((path, file))
}

/// `url -> title` from `pages/pages.jsonl` (and `pages/extraPages.jsonl`).
fn page_titles(zip: &mut zip::ZipArchive<File>, ctx: &mut Ctx<'_>) -> HashMap<String, String> {
    let mut titles = HashMap::new();
    for name in ["pages/pages.jsonl", "pages/extraPages.jsonl"] {
        let Ok(mut entry) = zip.by_name(name) else {
            continue;
        };
        let mut text = String::new();
        // A title list larger than this is not a title list.
        if let Err(e) = (&mut entry)
            .take(super::block::MAX_PAGE)
            .read_to_string(&mut text)
        {
            ctx.warn(
                0,
                format!("{name} could not be read ({e}); titles from <title> instead"),
            );
            continue;
        }
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                ctx.warn(0, format!("{name}: a line is not JSON; ignored"));
                continue;
            };
            if let (Some(url), Some(title)) = (value["url"].as_str(), value["title"].as_str()) {
                let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                if !title.is_empty() {
                    titles.entry(url.to_string()).or_insert(title);
                }
            }
        }
    }
    titles
}

/// Read a WACZ.
pub(crate) fn read_wacz(ctx: &mut Ctx<'_>) -> Result<()> {
    let path = ctx.path.to_path_buf();
    let shared = ctx.file.clone();
    let file = File::open(&path).map_err(|e| Error::io(e, &path))?;
    let mut zip = zip::ZipArchive::new(file).map_err(zip_error(&path))?;
    ctx.titles = page_titles(&mut zip, ctx);
    let mut names: Vec<String> = zip
        .file_names()
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .filter(|n| {
            let lower = n.to_ascii_lowercase();
            lower.starts_with("archive/")
                && (lower.ends_with(".warc") || lower.ends_with(".warc.gz"))
        })
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(super::not_an_archive(
            &path,
            "WACZ without WARC files under archive/",
        ));
    }
    for (index, name) in names.into_iter().enumerate() {
        if name.split('/').any(|part| part == "..") {
            ctx.warn(0, format!("zip entry {name:?} has an unsafe path; skipped"));
            continue;
        }
        let mut reader = open_entry(&path, &name)?;
        let mut magic = [0u8; 2];
        let n = super::read_up_to(&mut reader, &mut magic).map_err(|e| Error::io(e, &path))?;
        reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(e, &path))?;
        let wrap = |inner: Storage| Storage::zip_entry(name.clone(), inner);
        let container = Container {
            file: &shared,
            wrap: &wrap,
        };
        // Offsets restart in each entry: keep documents in entry order.
        ctx.order_base = (index as u64) << 44;
        let warned = ctx.report.warnings.len();
        if n == 2 && magic == [0x1f, 0x8b] {
            super::warc::read_warc(&mut GzSource::new(reader), ctx, &container)?;
        } else {
            super::warc::read_warc(&mut PlainSource::new(reader), ctx, &container)?;
        }
        // Offsets are inside the entry: say which.
        for warning in &mut ctx.report.warnings[warned..] {
            warning.message.push_str(&format!(" (in {name})"));
        }
    }
    Ok(())
}
