//! Byte sources the record parsers read from: a plain file (or a window of one, for a stored
//! WACZ entry) and a gzip file read member by member.
//!
//! In: something `Read + Seek`. Out: a [`Source`] — a `BufRead` over the (decompressed) record
//! stream that knows its position, can go back to an earlier [`Mark`] (to re-scan after a wrong
//! `Content-Length`), can skip a damaged gzip member, and tells where a record lives as a
//! [`Storage`] + offset + length for [`super::read_raw`].
//!
//! Gzip members are decoded one at a time with `flate2::bufread::GzDecoder` over a reader that
//! counts consumed compressed bytes, so each member's file offset and compressed length are
//! known. A record that is exactly one or more whole members is a [`Storage::GzipMember`]; any
//! other record (a file compressed as one member) is [`Storage::GzipWhole`], addressed in the
//! decompressed stream.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use flate2::bufread::GzDecoder;

use crate::document::Storage;

/// A position in a [`Source`] to come back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    /// Position in the (decompressed) stream.
    pub pos: u64,
    /// Compressed offset of the gzip member holding `pos` (0 for plain sources).
    pub member: u64,
    /// Decompressed position where that member starts.
    pub member_pos: u64,
}

/// A record stream. See the module docs.
pub(crate) trait Source: BufRead {
    /// Where we are.
    fn mark(&self) -> Mark;
    /// Bytes of the underlying file consumed so far (for progress).
    fn file_pos(&self) -> u64;
    /// Go back to `mark`.
    fn rewind(&mut self, mark: Mark) -> io::Result<()>;
    /// After a read error: jump past the damaged part. `Ok(Some(offset))` gives the file offset
    /// reading resumes at, `Ok(None)` means nothing is left; `Err` means the error is not one that
    /// skipping can cure (a failing disk).
    fn recover(&mut self) -> io::Result<Option<u64>>;
    /// Where the record from `start` to the current position lives.
    fn locate(&mut self, start: Mark) -> (Storage, u64, u64);
    /// The offset to name in a warning about something at `mark`.
    fn warn_offset(&self, mark: Mark) -> u64;
    /// The offset to name after a read error: the damaged gzip member, or the position.
    fn damaged_offset(&self) -> u64;
}

/// An uncompressed file (or window).
pub(crate) struct PlainSource<R> {
    inner: BufReader<R>,
    pos: u64,
}

impl<R: Read + Seek> PlainSource<R> {
    pub fn new(inner: R) -> Self {
        PlainSource {
            inner: BufReader::with_capacity(256 * 1024, inner),
            pos: 0,
        }
    }
}

impl<R: Read> Read for PlainSource<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> BufRead for PlainSource<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.pos += amt as u64;
    }
}

impl<R: Read + Seek> Source for PlainSource<R> {
    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            member: 0,
            member_pos: 0,
        }
    }
    fn file_pos(&self) -> u64 {
        self.pos
    }
    fn rewind(&mut self, mark: Mark) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(mark.pos))?;
        self.pos = mark.pos;
        Ok(())
    }
    fn recover(&mut self) -> io::Result<Option<u64>> {
        Err(io::Error::other("read error in an uncompressed file"))
    }
    fn locate(&mut self, start: Mark) -> (Storage, u64, u64) {
        (Storage::Plain, start.pos, self.pos - start.pos)
    }
    fn warn_offset(&self, mark: Mark) -> u64 {
        mark.pos
    }
    fn damaged_offset(&self) -> u64 {
        self.pos
    }
}

/// A `BufRead` that counts the bytes consumed from it: the compressed offset.
pub(crate) struct Counted<R> {
    inner: BufReader<R>,
    count: u64,
}

impl<R: Read + Seek> Counted<R> {
    fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(offset))?;
        self.count = offset;
        Ok(())
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

impl<R: Read> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.count += amt as u64;
    }
}

/// A gzip file read member by member.
pub(crate) struct GzSource<R> {
    dec: Option<GzDecoder<Counted<R>>>,
    buf: Box<[u8]>,
    lo: usize,
    hi: usize,
    /// Decompressed position of `buf[lo]`.
    pos: u64,
    member: u64,
    member_pos: u64,
    member_done: bool,
    eof: bool,
    /// A decoding error, returned again by every read until [`Source::recover`] (flate2 reports
    /// an error once, and the parser may meet it while peeking past a good record).
    error: Option<(io::ErrorKind, String)>,
}

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

impl<R: Read + Seek> GzSource<R> {
    pub fn new(inner: R) -> Self {
        let counted = Counted {
            inner: BufReader::with_capacity(256 * 1024, inner),
            count: 0,
        };
        GzSource {
            dec: Some(GzDecoder::new(counted)),
            buf: vec![0; 128 * 1024].into_boxed_slice(),
            lo: 0,
            hi: 0,
            pos: 0,
            member: 0,
            member_pos: 0,
            member_done: false,
            eof: false,
            error: None,
        }
    }

    fn take_reader(&mut self) -> io::Result<Counted<R>> {
        self.dec
            .take()
            .map(GzDecoder::into_inner)
            .ok_or_else(|| io::Error::other("gzip reader lost after an earlier error"))
    }

    /// Start a member at the reader's current offset.
    fn start_member(&mut self, reader: Counted<R>) {
        self.member = reader.count;
        self.member_pos = self.pos;
        self.member_done = false;
        self.dec = Some(GzDecoder::new(reader));
    }
}

impl<R: Read + Seek> Read for GzSource<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read + Seek> BufRead for GzSource<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.lo == self.hi
            && let Some((kind, message)) = &self.error
        {
            return Err(io::Error::new(*kind, message.clone()));
        }
        while self.lo == self.hi && !self.eof {
            if self.member_done {
                let mut reader = self.take_reader()?;
                let at_end = match reader.fill_buf() {
                    Ok(rest) => rest.is_empty(),
                    Err(e) => {
                        self.dec = Some(GzDecoder::new(reader));
                        return Err(e);
                    }
                };
                if at_end {
                    self.eof = true;
                    self.dec = Some(GzDecoder::new(reader));
                    break;
                }
                self.start_member(reader);
            }
            let dec = self
                .dec
                .as_mut()
                .ok_or_else(|| io::Error::other("gzip reader lost after an earlier error"))?;
            let n = match dec.read(&mut self.buf) {
                Ok(n) => n,
                Err(e) => {
                    self.error = Some((e.kind(), e.to_string()));
                    return Err(e);
                }
            };
            if n == 0 {
                self.member_done = true;
            } else {
                self.lo = 0;
                self.hi = n;
            }
        }
        Ok(&self.buf[self.lo..self.hi])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.hi - self.lo);
        self.lo += amt;
        self.pos += amt as u64;
    }
}

impl<R: Read + Seek> Source for GzSource<R> {
    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            member: self.member,
            member_pos: self.member_pos,
        }
    }

    fn file_pos(&self) -> u64 {
        self.dec.as_ref().map_or(0, |d| d.get_ref().count)
    }

    fn rewind(&mut self, mark: Mark) -> io::Result<()> {
        let mut reader = self.take_reader()?;
        reader.seek_to(mark.member)?;
        self.error = None;
        self.lo = 0;
        self.hi = 0;
        self.eof = false;
        self.pos = mark.member_pos;
        self.start_member(reader);
        let skip = mark.pos - mark.member_pos;
        let copied = io::copy(&mut self.by_ref().take(skip), &mut io::sink())?;
        if copied < skip {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "rewind past the end",
            ));
        }
        Ok(())
    }

    fn recover(&mut self) -> io::Result<Option<u64>> {
        let mut reader = self.take_reader()?;
        self.error = None;
        self.lo = 0;
        self.hi = 0;
        let mut at = self.member + 1;
        reader.seek_to(at)?;
        loop {
            let buf = reader.fill_buf()?;
            if buf.is_empty() {
                self.eof = true;
                self.dec = Some(GzDecoder::new(reader));
                return Ok(None);
            }
            match memchr::memchr(GZIP_MAGIC[0], buf) {
                None => {
                    let n = buf.len();
                    at += n as u64;
                    reader.consume(n);
                }
                Some(i) if buf.len() - i >= GZIP_MAGIC.len() => {
                    if buf[i..].starts_with(&GZIP_MAGIC) {
                        at += i as u64;
                        reader.consume(i);
                        self.start_member(reader);
                        return Ok(Some(at));
                    }
                    at += i as u64 + 1;
                    reader.consume(i + 1);
                }
                Some(i) => {
                    // Too close to the buffer's end to compare: refill from there.
                    at += i as u64;
                    reader.seek_to(at)?;
                    let buf = reader.fill_buf()?;
                    if buf.len() < GZIP_MAGIC.len() {
                        let n = buf.len();
                        reader.consume(n);
                        at += n as u64;
                    } else if !buf.starts_with(&GZIP_MAGIC) {
                        reader.consume(1);
                        at += 1;
                    }
                }
            }
        }
    }

    fn locate(&mut self, start: Mark) -> (Storage, u64, u64) {
        let starts_member = start.pos == start.member_pos;
        // Peek so that a finished member rolls over to the next one (or to the end).
        let _ = self.fill_buf();
        let at_boundary = self.eof || self.pos == self.member_pos;
        if starts_member && at_boundary {
            let end = if self.eof {
                self.file_pos()
            } else {
                self.member
            };
            (
                Storage::GzipMember,
                start.member,
                end.saturating_sub(start.member),
            )
        } else {
            (Storage::GzipWhole, start.pos, self.pos - start.pos)
        }
    }

    fn warn_offset(&self, mark: Mark) -> u64 {
        if mark.pos == mark.member_pos {
            mark.member
        } else {
            mark.pos
        }
    }
    fn damaged_offset(&self) -> u64 {
        self.member
    }
}

/// A window `start..start+len` of a file, for a WACZ entry stored without compression.
pub(crate) struct Window<R> {
    inner: R,
    start: u64,
    len: u64,
    pos: u64,
}

impl<R: Read + Seek> Window<R> {
    pub fn new(mut inner: R, start: u64, len: u64) -> io::Result<Self> {
        inner.seek(SeekFrom::Start(start))?;
        Ok(Window {
            inner,
            start,
            len,
            pos: 0,
        })
    }
}

impl<R: Read> Read for Window<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for Window<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
        }
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        self.inner.seek(SeekFrom::Start(self.start + target))?;
        self.pos = target;
        Ok(target)
    }
}
