//! Reading one record back by its location: what [`super::read_raw`] does.
//!
//! In: a [`RecordLocation`]. Out: the HTTP head (when the record has one) and the payload
//! (chunking and content encoding undone), or the bytes of a loose page. The record format is
//! told from the bytes found at the offset (`WARC/`, an ARC header line, else a loose page).

use std::fs::File;
use std::io::{self, Read, Seek};

use super::decode::HttpHead;
use super::stream::{GzSource, Mark, PlainSource, Source};
use super::{arc, folder, wacz, warc};
use crate::document::{RecordLocation, Storage};
use crate::{Error, Result};

type Payload = (Option<HttpHead>, Vec<u8>);

/// The head and payload of the record at `location`.
pub(crate) fn read_payload(location: &RecordLocation) -> Result<Payload> {
    read_at(location).map(|(_, head, payload)| (head, payload))
}

/// The key ([`warc::record_key`]), head and payload of the WARC record at `location`: a
/// revisit's original, read again on a decoding thread.
pub(crate) fn read_original(
    location: &RecordLocation,
) -> Result<(String, Option<HttpHead>, Vec<u8>)> {
    let (key, head, payload) = read_at(location)?;
    match key {
        Some(key) => Ok((key, head, payload)),
        None => Err(Error::io(
            io::Error::new(io::ErrorKind::InvalidData, "no WARC record at this offset"),
            location.file.to_path_buf(),
        )),
    }
}

type Keyed = (Option<String>, Option<HttpHead>, Vec<u8>);

fn read_at(location: &RecordLocation) -> Result<Keyed> {
    let path: &std::path::Path = &location.file;
    let io_err = |e: io::Error| Error::io(e, path);
    match &location.storage {
        Storage::ZipEntry(zip) => {
            let (entry, inner) = (&zip.entry, &zip.inner);
            let lower = entry.to_ascii_lowercase();
            let is_archive = [".warc", ".warc.gz", ".arc", ".arc.gz"]
                .iter()
                .any(|s| lower.ends_with(s));
            if !is_archive && *inner == Storage::Plain {
                let bytes = folder::read_zip_entry(path, entry)?;
                let start = usize::try_from(location.offset)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                let end = start
                    .saturating_add(usize::try_from(location.length).unwrap_or(usize::MAX))
                    .min(bytes.len());
                return Ok((None, None, bytes[start..end].to_vec()));
            }
            let reader = wacz::open_entry(path, entry)?;
            at_location(reader, inner, location).map_err(io_err)
        }
        storage => {
            let file = File::open(path).map_err(io_err)?;
            at_location(file, storage, location).map_err(io_err)
        }
    }
}

fn at_location<R: Read + Seek>(
    reader: R,
    storage: &Storage,
    location: &RecordLocation,
) -> io::Result<Keyed> {
    match storage {
        Storage::Plain => {
            let mut src = PlainSource::new(reader);
            src.rewind(Mark {
                pos: location.offset,
                member: 0,
                member_pos: 0,
            })?;
            parse_here(&mut src, location.length)
        }
        Storage::GzipMember => {
            let mut src = GzSource::new(reader);
            src.rewind(Mark {
                pos: 0,
                member: location.offset,
                member_pos: 0,
            })?;
            parse_here(&mut src, location.length)
        }
        Storage::GzipWhole => {
            let mut src = GzSource::new(reader);
            src.rewind(Mark {
                pos: location.offset,
                member: 0,
                member_pos: 0,
            })?;
            parse_here(&mut src, location.length)
        }
        Storage::ZipEntry(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "zip inside zip",
        )),
    }
}

/// The record here: a WARC record with its key, an ARC record or a loose page without one.
fn parse_here<S: Source>(src: &mut S, length: u64) -> io::Result<Keyed> {
    let head = src.fill_buf()?;
    if warc::is_warc_line(head) {
        warc::read_keyed_record(src).map(|(key, head, payload)| (Some(key), head, payload))
    } else if arc::parse_arc_line(head).is_some() {
        arc::read_record_payload(src).map(|(head, payload)| (None, head, payload))
    } else {
        let mut bytes = Vec::new();
        src.take(length).read_to_end(&mut bytes)?;
        if (bytes.len() as u64) < length {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the page is shorter than when it was read (the file changed?)",
            ));
        }
        Ok((None, None, bytes))
    }
}
