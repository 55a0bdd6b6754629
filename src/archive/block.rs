//! Line and block reading shared by the WARC and ARC parsers, all with caps so that a hostile
//! file can make them neither allocate much nor loop: header lines are cut at [`MAX_LINE`],
//! a block is streamed and only its first [`HEAD_KEEP`] bytes (or, for a page, up to
//! [`MAX_PAGE`]) are kept.

use std::io;

use super::stream::Source;

/// Longest header line kept; the rest of a longer line is read and dropped.
pub(crate) const MAX_LINE: usize = 64 * 1024;
/// Most header lines in one record header.
pub(crate) const MAX_HEADER_LINES: usize = 1024;
/// Bytes of a block kept to parse its HTTP head.
pub(crate) const HEAD_KEEP: usize = 64 * 1024;
/// Largest page kept, by every reader (WARC, ARC, WACZ, a folder's file, a zip's member): a
/// larger HTML payload is skipped with a warning before it is inflated or read whole.
pub const MAX_PAGE: u64 = 64 << 20;
/// Most a zip member may inflate to per compressed byte (past [`RATIO_FLOOR`]): HTML deflates
/// 5–20 times, a zip bomb a thousand.
pub const MAX_ZIP_RATIO: u64 = 200;
/// Members that inflate to no more than this are never refused for their ratio.
pub const RATIO_FLOOR: u64 = 1 << 20;

/// One line: its bytes without the line end, cut at `MAX_LINE`.
pub(crate) struct Line {
    pub bytes: Vec<u8>,
}

/// Read one line; `None` at the end of the stream.
pub(crate) fn read_line<S: Source>(src: &mut S) -> io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let mut consumed = 0u64;
    loop {
        let buf = src.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = MAX_LINE.saturating_sub(bytes.len());
        bytes.extend_from_slice(&buf[..take.min(room)]);
        src.consume(take);
        consumed += take as u64;
        if done {
            break;
        }
    }
    if consumed == 0 {
        return Ok(None);
    }
    while matches!(bytes.last(), Some(b'\n' | b'\r')) {
        bytes.pop();
    }
    Ok(Some(Line { bytes }))
}

/// Skip CR, LF (and stray spaces/tabs) before a record; `false` at the end of the stream.
pub(crate) fn skip_blank<S: Source>(src: &mut S) -> io::Result<bool> {
    loop {
        let buf = src.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        let n = buf
            .iter()
            .position(|b| !matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
            .unwrap_or(buf.len());
        let more = n == buf.len();
        src.consume(n);
        if !more {
            return Ok(true);
        }
    }
}

/// Consume up to `max` line-end bytes (the record separator), nothing else.
pub(crate) fn skip_newlines<S: Source>(src: &mut S, max: usize) -> io::Result<usize> {
    let mut skipped = 0;
    while skipped < max {
        let buf = src.fill_buf()?;
        let available = buf.len();
        let n = buf
            .iter()
            .take(max - skipped)
            .position(|b| !matches!(b, b'\r' | b'\n'))
            .unwrap_or(available.min(max - skipped));
        src.consume(n);
        skipped += n;
        if n == 0 || available > n {
            break;
        }
    }
    Ok(skipped)
}

/// Move to the start of the next line for which `is_start` holds (looking at the current
/// position first); returns bytes skipped, `None` when the stream ended first.
pub(crate) fn scan_to_line<S: Source>(
    src: &mut S,
    is_start: &dyn Fn(&[u8]) -> bool,
) -> io::Result<Option<u64>> {
    let mut skipped = 0u64;
    loop {
        let buf = src.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        // A line start that falls in the last bytes of a buffer is judged on what is there;
        // markers are a few bytes long and buffers hundreds of KiB, so a miss is very rare.
        if is_start(buf) {
            return Ok(Some(skipped));
        }
        let n = match memchr::memchr(b'\n', buf) {
            Some(i) => i + 1,
            None => buf.len(),
        };
        src.consume(n);
        skipped += n as u64;
    }
}

/// What was read of a block.
pub(crate) struct Block {
    /// The kept bytes (a prefix of the block).
    pub kept: Vec<u8>,
    /// Bytes read in all (less than asked when the stream ended).
    pub read: u64,
}

/// Read a `len`-byte block. Keeps its first `HEAD_KEEP` bytes; `keep_all(kept)` is asked once
/// that much is there (or the block ended) and, when it says yes, the rest is kept too up to
/// [`MAX_PAGE`]. The rest is streamed through a fixed buffer.
pub(crate) fn read_block<S: Source>(
    src: &mut S,
    len: u64,
    keep_all: &mut dyn FnMut(&[u8]) -> bool,
) -> io::Result<Block> {
    let mut kept = Vec::with_capacity(len.min(HEAD_KEEP as u64) as usize);
    let mut read = 0u64;
    let mut limit = HEAD_KEEP as u64;
    let mut decided = false;
    while read < len {
        let buf = src.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let mut n = (buf.len() as u64).min(len - read) as usize;
        if !decided {
            // Stop at the head's end so the decision is taken before anything is dropped.
            n = n.min(HEAD_KEEP - kept.len());
        }
        let room = limit.saturating_sub(kept.len() as u64).min(n as u64) as usize;
        kept.extend_from_slice(&buf[..room]);
        src.consume(n);
        read += n as u64;
        if !decided && (kept.len() as u64 >= limit || read == len) {
            decided = true;
            if keep_all(&kept) && len <= MAX_PAGE {
                limit = MAX_PAGE;
            }
        }
    }
    if !decided {
        keep_all(&kept);
    }
    Ok(Block { kept, read })
}
