//! Turning a record's bytes into a page: the HTTP response head (status, content type, charset),
//! the charset decision and the `<title>`.
//!
//! In: the bytes of an HTTP response (WARC `response` block, ARC record body) or of a loose
//! `.html` file. Out: [`HttpHead`] and, for a page, the decoded text with the charset that was
//! used and its title.
//!
//! The charset is chosen the way browsers do (HTML Standard, "determining the character
//! encoding"), in this order: a byte-order mark, the HTTP `Content-Type` charset, a `<meta>`
//! charset in the first [`META_PRESCAN`] bytes, then statistical detection by `chardetng`.
//! Decoding is by `encoding_rs`, which replaces malformed bytes with U+FFFD and never panics.
//! The title is found by a cheap case-insensitive byte scan, not a DOM parse, because it runs
//! for every page on the ingest path.

use encoding_rs::Encoding;

/// How many bytes of a page are searched for a `<meta charset>` (the HTML Standard's prescan
/// looks at 1024; real pages put the tag later, after long comments, so we look further).
pub const META_PRESCAN: usize = 4096;

/// The HTTP status line and the headers that matter for a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHead {
    /// Status code of the status line.
    pub status: Option<u16>,
    /// Media type of `Content-Type`, lowercased, without parameters.
    pub content_type: Option<String>,
    /// The `charset` parameter of `Content-Type`, lowercased.
    pub charset: Option<String>,
    /// Length of the head including the blank line that ends it: the payload starts here.
    pub head_len: usize,
    /// `Transfer-Encoding: chunked` (the archive kept the chunk framing).
    pub chunked: bool,
    /// `Content-Encoding`, lowercased (`gzip`, `deflate`, ...).
    pub content_encoding: Option<String>,
}

impl HttpHead {
    /// Whether this is what samecore calls an HTML response: status 200 and a media type of
    /// `text/html` or `application/xhtml+xml` (the same rule as `tests/fixtures/warcio_counts.py`).
    pub fn is_html_200(&self) -> bool {
        self.status == Some(200) && self.content_type.as_deref().is_some_and(is_html_media_type)
    }
}

/// `text/html` or `application/xhtml+xml`.
pub fn is_html_media_type(media_type: &str) -> bool {
    matches!(media_type, "text/html" | "application/xhtml+xml")
}

/// Split a `Content-Type` value into (lowercased media type, lowercased charset parameter).
pub fn parse_content_type(value: &str) -> (Option<String>, Option<String>) {
    let mut parts = value.split(';');
    let media = parts
        .next()
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    let charset = parts.find_map(|p| {
        let (name, val) = p.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| {
            val.trim()
                .trim_matches(|c| c == '"' || c == '\'')
                .to_ascii_lowercase()
        })
    });
    (media, charset.filter(|c| !c.is_empty()))
}

/// Parse the status line and headers of an HTTP response at the start of `bytes`.
/// Returns `None` when `bytes` does not start with `HTTP/` or the head never ends.
pub fn parse_http_head(bytes: &[u8]) -> Option<HttpHead> {
    if !bytes.starts_with(b"HTTP/") {
        return None;
    }
    let mut head = HttpHead::default();
    let mut pos = 0;
    let mut first = true;
    loop {
        let rest = &bytes[pos..];
        let line_end = memchr::memchr(b'\n', rest)?;
        let line = trim_cr(&rest[..line_end]);
        pos += line_end + 1;
        if first {
            first = false;
            // "HTTP/1.1 200 OK": the code is the second token.
            let text = String::from_utf8_lossy(line);
            head.status = text
                .split_whitespace()
                .nth(1)
                .and_then(|c| c.get(..3))
                .and_then(|c| c.parse().ok());
            continue;
        }
        if line.is_empty() {
            head.head_len = pos;
            return Some(head);
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            continue;
        };
        let name = line[..colon].trim_ascii();
        let value = String::from_utf8_lossy(&line[colon + 1..]);
        if name.eq_ignore_ascii_case(b"content-type") && head.content_type.is_none() {
            let (media, charset) = parse_content_type(&value);
            head.content_type = media;
            head.charset = charset;
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            head.chunked |= value.to_ascii_lowercase().contains("chunked");
        } else if name.eq_ignore_ascii_case(b"content-encoding") {
            let enc = value.trim().to_ascii_lowercase();
            head.content_encoding = (!enc.is_empty() && enc != "identity").then_some(enc);
        }
    }
}

/// The payload as the page: chunk framing removed and gzip/deflate content encoding undone
/// when the archive kept them (the bytes as stored when that fails), at most `max` bytes.
pub fn http_payload(head: &HttpHead, body: Vec<u8>, max: u64) -> Vec<u8> {
    use std::io::Read;
    let body = if head.chunked {
        dechunk(&body).unwrap_or(body)
    } else {
        body
    };
    let mut out = Vec::new();
    let ok = match head.content_encoding.as_deref() {
        Some("gzip" | "x-gzip") => flate2::read::MultiGzDecoder::new(&body[..])
            .take(max)
            .read_to_end(&mut out)
            .is_ok(),
        Some("deflate") => {
            let zlib = flate2::read::ZlibDecoder::new(&body[..])
                .take(max)
                .read_to_end(&mut out);
            zlib.is_ok() || {
                out.clear();
                flate2::read::DeflateDecoder::new(&body[..])
                    .take(max)
                    .read_to_end(&mut out)
                    .is_ok()
            }
        }
        _ => return body,
    };
    if ok || !out.is_empty() { out } else { body }
}

/// Remove HTTP/1.1 chunk framing; `None` when `body` is not validly chunked.
fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut pos = 0;
    loop {
        let line_end = pos + memchr::memchr(b'\n', body.get(pos..)?)?;
        let line = trim_cr(&body[pos..line_end]);
        let size_text = line.split(|&b| b == b';').next()?.trim_ascii();
        let size = usize::from_str_radix(std::str::from_utf8(size_text).ok()?, 16).ok()?;
        pos = line_end + 1;
        if size == 0 {
            return Some(out);
        }
        let chunk = body.get(pos..pos.checked_add(size)?)?;
        out.extend_from_slice(chunk);
        pos += size;
        // The CRLF after the chunk data.
        while matches!(body.get(pos), Some(b'\r' | b'\n')) {
            pos += 1;
        }
        if pos >= body.len() {
            // A capture cut after the last full chunk: keep what came.
            return Some(out);
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The charset named by a `<meta charset=...>` or `<meta http-equiv content="...; charset=...">`
/// in the first [`META_PRESCAN`] bytes of a page.
pub fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(META_PRESCAN)];
    let finder = memchr::memmem::Finder::new(b"<meta");
    let lower: Vec<u8> = head.to_ascii_lowercase();
    for start in finder.find_iter(&lower) {
        let tag_end = memchr::memchr(b'>', &lower[start..]).map_or(lower.len(), |e| start + e);
        let tag = &lower[start..tag_end];
        let Some(at) = memchr::memmem::find(tag, b"charset") else {
            continue;
        };
        let mut value = tag[at + 7..].trim_ascii_start();
        let Some(after_eq) = value.strip_prefix(b"=") else {
            continue;
        };
        value = after_eq.trim_ascii_start();
        let value = value
            .strip_prefix(b"\"")
            .or_else(|| value.strip_prefix(b"'"))
            .unwrap_or(value);
        let end = value
            .iter()
            .position(|&b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(value.len());
        if let Some(enc) = Encoding::for_label(&value[..end]) {
            // The HTML Standard: a meta that claims UTF-16 means UTF-8 (the bytes were ASCII).
            let enc = if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
                encoding_rs::UTF_8
            } else if enc == encoding_rs::X_USER_DEFINED {
                encoding_rs::WINDOWS_1252
            } else {
                enc
            };
            return Some(enc);
        }
    }
    None
}

/// Choose the encoding of a page: BOM, then the HTTP charset, then `<meta>`, then detection.
/// `tld` (e.g. `b"jp"`) helps detection on legacy pages.
pub fn choose_encoding(
    bytes: &[u8],
    http_charset: Option<&str>,
    tld: Option<&[u8]>,
) -> &'static Encoding {
    choose(bytes, http_charset, tld).0
}

/// [`choose_encoding`], and whether detection found the whole page valid UTF-8 (then it has no
/// byte-order mark either, which is looked for first).
fn choose(
    bytes: &[u8],
    http_charset: Option<&str>,
    tld: Option<&[u8]>,
) -> (&'static Encoding, bool) {
    if let Some((enc, _)) = Encoding::for_bom(bytes) {
        return (enc, false);
    }
    if let Some(enc) = http_charset.and_then(|c| Encoding::for_label(c.as_bytes())) {
        return (enc, false);
    }
    if let Some(enc) = meta_charset(bytes) {
        return (enc, false);
    }
    detect_checked(bytes, tld)
}

/// How much of a page statistical detection looks at: enough text for a confident guess
/// without scanning a whole large page twice.
pub const DETECT_SAMPLE: usize = 64 * 1024;

/// Around each non-ASCII byte, how much ASCII [`detect`] feeds `chardetng` (then up to the
/// next whitespace). What keeps the guess equal is that a cut falls just after whitespace, not
/// how much is kept: the equality tests (random pages in 13 encodings, every real page) pass
/// with none. A few words are kept; 256 bytes, as before, fed `chardetng` a tenth more of a
/// goldset-dev run's instructions.
const DETECT_CONTEXT: usize = 16;

/// `chardetng`'s guess for the first [`DETECT_SAMPLE`] bytes of a page, computed cheaply; the
/// same answer as [`detect_by_feeding_all`].
///
/// Two fast paths, measured on goldset-dev where detection was 40 % of a run: (1) a sample that
/// is valid UTF-8 (ASCII included) is UTF-8 without feeding the detector — `chardetng` returns
/// UTF-8 whenever its UTF-8 candidate survived the input and UTF-8 is allowed, and that
/// candidate survives exactly the valid UTF-8 inputs (a sequence cut by the end of a partial
/// sample included), so this is its answer, not an approximation; (2) otherwise the detector
/// is fed the stretches around non-ASCII bytes and not the long ASCII runs between them (pages
/// of English news in windows-1252 have a handful of curly quotes in 60 KB of markup). A
/// skipped stretch is ASCII that follows an ASCII whitespace byte and ends with one, so every
/// candidate sees the same last byte before and after the skip, and an ASCII-only stretch adds
/// no score to any candidate; the goldset-dev and WARC tests hold the two equal on every page.
pub fn detect(bytes: &[u8], tld: Option<&[u8]>) -> &'static Encoding {
    detect_checked(bytes, tld).0
}

/// [`detect`], and whether it found the whole page valid UTF-8 (its sample was the page).
fn detect_checked(bytes: &[u8], tld: Option<&[u8]>) -> (&'static Encoding, bool) {
    let sample = &bytes[..bytes.len().min(DETECT_SAMPLE)];
    let whole = sample.len() == bytes.len();
    // encoding_rs's check (SIMD chosen at run time) finds where the sample stops being UTF-8;
    // the standard library's, 7.7 M instructions of a goldset-dev run against 3.4 M, only then
    // says whether that is a sequence the sample's end cut (a sequence starts there, so the
    // first error of the rest is the sample's).
    let valid = Encoding::utf8_valid_up_to(sample);
    if valid == sample.len() {
        return (encoding_rs::UTF_8, whole);
    }
    // A multi-byte sequence cut by the end of a partial sample is not an error yet.
    if !whole && std::str::from_utf8(&sample[valid..]).is_err_and(|e| e.error_len().is_none()) {
        return (encoding_rs::UTF_8, false);
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    let kept = kept_stretches(sample);
    let last = kept.len().saturating_sub(1);
    for (i, range) in kept.into_iter().enumerate() {
        detector.feed(&sample[range], whole && i == last);
    }
    (detector.guess(tld, chardetng::Utf8Detection::Allow), false)
}

/// `chardetng` fed every byte of the sample: the reference [`detect`] is tested against.
#[doc(hidden)]
pub fn detect_by_feeding_all(bytes: &[u8], tld: Option<&[u8]>) -> &'static Encoding {
    let sample = &bytes[..bytes.len().min(DETECT_SAMPLE)];
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(sample, sample.len() == bytes.len());
    detector.guess(tld, chardetng::Utf8Detection::Allow)
}

/// The parts of `sample` detection reads: all of it except the middles of long ASCII runs
/// between non-ASCII bytes, each cut just after an ASCII whitespace byte at both ends. Ranges
/// ascending, not overlapping, never empty unless `sample` is.
fn kept_stretches(sample: &[u8]) -> Vec<std::ops::Range<usize>> {
    let after_space = |i: usize| i > 0 && sample[i - 1].is_ascii_whitespace();
    let mut kept = Vec::new();
    let mut start = 0; // first byte not yet kept or skipped
    let mut at = 0; // where the current ASCII run begins
    loop {
        // encoding_rs's ASCII scan, a word at a time (a byte-at-a-time scan was a fortieth
        // of a goldset-dev run's instructions once detection fed less).
        let run_end = at + Encoding::ascii_valid_up_to(&sample[at..]);
        // Skip [from, to) of the run [at, run_end): both cut points just after whitespace.
        let from = (at + DETECT_CONTEXT..run_end).find(|&i| after_space(i));
        let to = (at..run_end.saturating_sub(DETECT_CONTEXT))
            .rev()
            .find(|&i| after_space(i));
        if let (Some(from), Some(to)) = (from, to)
            && from < to
        {
            kept.push(start..from);
            start = to;
        }
        if run_end == sample.len() {
            break;
        }
        at = run_end + 1;
    }
    if start < sample.len() || kept.is_empty() {
        kept.push(start..sample.len());
    }
    kept
}

/// Decode a page: returns the text and the lowercased name of the charset used.
/// Malformed bytes become U+FFFD.
///
/// The bytes are taken, not borrowed: a page that is already its own text (valid UTF-8, or
/// ASCII in an ASCII-compatible charset; most pages) becomes the `String` without a copy, after
/// a byte-order mark is dropped. On goldset-dev the copy was 20 M instructions of `run`'s 1.78 G.
/// Bytes already found valid UTF-8 are not checked again (by decoding or by `String::from_utf8`):
/// 11 M instructions of `run`'s 1.35 G (callgrind).
pub fn decode_page(
    mut bytes: Vec<u8>,
    http_charset: Option<&str>,
    tld: Option<&[u8]>,
) -> (String, String) {
    // The text as [`with_page_text`] finds it: a slice of `bytes` (the page is its own text,
    // maybe after a byte-order mark), or a decoded copy.
    let (text, used) = with_page_text(&bytes, http_charset, tld, |text, used| {
        let start = (text.as_ptr() as usize).wrapping_sub(bytes.as_ptr() as usize);
        let within = start
            .checked_add(text.len())
            .is_some_and(|end| end <= bytes.len());
        match within {
            true => (Err(start..start + text.len()), used),
            false => (Ok(text.to_owned()), used),
        }
    });
    match text {
        Ok(decoded) => (decoded, used),
        Err(slice) => {
            bytes.truncate(slice.end);
            bytes.drain(..slice.start);
            // SAFETY: these bytes are exactly a `&str` borrowed from them (checked above to lie
            // within them), so valid UTF-8.
            (unsafe { String::from_utf8_unchecked(bytes) }, used)
        }
    }
}

/// [`decode_page`] of borrowed bytes, the text handed to `f` with the charset's name: a page that
/// is its own text is borrowed, and any other is decoded into a buffer this thread keeps for its
/// next page, not into fresh memory. Each decoded page in fresh memory was fresh pages the
/// kernel zeroed at first touch: 1,560 of the 3,645 page faults of a goldset-dev `run` (its
/// 650 pages not in UTF-8), about 3 % of its CPU.
///
/// The text is [`decode_page`]'s: the same choice of encoding, a byte-order mark dropped as
/// [`Encoding::decode`] drops it, and then what [`Encoding::decode_without_bom_handling`] does,
/// step by step (the prefix its encoding leaves as it is, then a decoder with replacement).
pub fn with_page_text<R>(
    bytes: &[u8],
    http_charset: Option<&str>,
    tld: Option<&[u8]>,
    f: impl FnOnce(&str, String) -> R,
) -> R {
    let (enc, valid_utf8) = choose(bytes, http_charset, tld);
    if valid_utf8 {
        // SAFETY: detection checked that every byte of the page is valid UTF-8.
        return f(
            unsafe { std::str::from_utf8_unchecked(bytes) },
            enc.name().to_ascii_lowercase(),
        );
    }
    let (enc, bytes) = match Encoding::for_bom(bytes) {
        Some((bom, len)) => (bom, &bytes[len..]),
        None => (enc, bytes),
    };
    let used = enc.name().to_ascii_lowercase();
    // Where the bytes stop being their own text (encoding_rs's `is_potentially_borrowable`).
    let own = if enc == encoding_rs::REPLACEMENT
        || enc == encoding_rs::UTF_16BE
        || enc == encoding_rs::UTF_16LE
    {
        0
    } else if enc == encoding_rs::UTF_8 {
        Encoding::utf8_valid_up_to(bytes)
    } else if enc == encoding_rs::ISO_2022_JP {
        Encoding::iso_2022_jp_ascii_valid_up_to(bytes)
    } else {
        Encoding::ascii_valid_up_to(bytes)
    };
    if own == bytes.len() {
        // SAFETY: `own` bytes are valid UTF-8 (or ASCII), as checked just above.
        return f(unsafe { std::str::from_utf8_unchecked(bytes) }, used);
    }
    // Taken out of the slot while `f` runs, so that a page decoded inside `f` gets a buffer of
    // its own. An empty buffer is valid UTF-8.
    let mut text = String::from_utf8(super::kept::take(&DECODED)).unwrap_or_default();
    // SAFETY: as above, the first `own` bytes are valid UTF-8.
    text.push_str(unsafe { std::str::from_utf8_unchecked(&bytes[..own]) });
    let mut decoder = enc.new_decoder_without_bom_handling();
    let mut read = own;
    loop {
        if let Some(need) = decoder.max_utf8_buffer_length(bytes.len() - read) {
            text.reserve(need);
        }
        let (result, n, _had_errors) = decoder.decode_to_string(&bytes[read..], &mut text, true);
        read += n;
        if result == encoding_rs::CoderResult::InputEmpty {
            break;
        }
    }
    let out = f(&text, used);
    super::kept::give_back(&DECODED, text.into_bytes());
    out
}

thread_local! {
    /// This thread's decoding buffer ([`with_page_text`]).
    static DECODED: super::kept::Slot = const { std::cell::RefCell::new(Vec::new()) };
}

/// The top-level domain of a URL's host, for charset detection.
pub fn tld_of(url: Option<&str>) -> Option<Vec<u8>> {
    let host = crate::document::host_of(url?)?;
    let tld = host.rsplit('.').next()?;
    (!tld.is_empty() && tld.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| tld.as_bytes().to_vec())
}

/// The first `<title>` of a page, entities for `& < > " '` and spaces decoded, whitespace
/// collapsed; `None` when absent or empty.
pub fn extract_title(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let open = find_ascii_ci(bytes, b"<title", 0)?;
    // `<title>` or `<title attr=..>`, but not `<titlefoo>`.
    let after = bytes.get(open + 6)?;
    if !matches!(after, b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') {
        return None;
    }
    let start = open + memchr::memchr(b'>', &bytes[open..])? + 1;
    let end = match find_ascii_ci(bytes, b"</title", start) {
        // Sits on an ASCII byte, so it is a char boundary.
        Some(end) => end,
        // No end tag: take up to 1 KiB, backing off to a char boundary.
        None => {
            let mut end = bytes.len().min(start + 1024);
            while !html.is_char_boundary(end) {
                end -= 1;
            }
            end
        }
    };
    let raw = html.get(start..end)?;
    let text = crate::token::entities::decode_entities(raw);
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then_some(collapsed)
}

/// Position of `needle` (lowercase ASCII) in `hay` at or after `from`, ignoring ASCII case.
fn find_ascii_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = needle[0];
    let mut pos = from;
    while pos < hay.len() {
        let hit = memchr::memchr2(first, first.to_ascii_uppercase(), &hay[pos..])?;
        let at = pos + hit;
        if hay.len() >= at + needle.len() && hay[at..at + needle.len()].eq_ignore_ascii_case(needle)
        {
            return Some(at);
        }
        pos = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_charset_wins_over_meta() {
        let page = "<html><head><meta charset=\"utf-8\"><title>Caf\u{e9}</title></head></html>";
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(page);
        let (text, used) = decode_page(bytes.to_vec(), Some("iso-8859-1"), None);
        assert_eq!(used, "windows-1252");
        assert!(text.contains("Caf\u{e9}"));
    }

    #[test]
    fn meta_charset_used_without_http_charset() {
        let page = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\"><title>\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}</title></head></html>";
        let (bytes, _, _) = encoding_rs::KOI8_R.encode(page);
        let (text, used) = decode_page(bytes.to_vec(), None, None);
        assert_eq!(used, "koi8-r");
        assert_eq!(
            extract_title(&text).as_deref(),
            Some("\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}")
        );
    }

    #[test]
    fn detection_when_nothing_declared() {
        let page = "<html><body>".to_string()
            + &"Der B\u{e4}r l\u{e4}uft \u{fc}ber die Stra\u{df}e und gr\u{fc}\u{df}t. ".repeat(20)
            + "</body></html>";
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&page);
        let (text, used) = decode_page(bytes.to_vec(), None, Some(b"de"));
        assert_eq!(used, "windows-1252");
        assert!(text.contains("Stra\u{df}e"));
        let (text, used) = decode_page(page.as_bytes().to_vec(), None, None);
        assert_eq!(used, "utf-8");
        assert!(text.contains("Stra\u{df}e"));
    }

    #[test]
    fn detection_skipping_ascii_runs_guesses_what_feeding_everything_guesses() {
        // Pages of long ASCII markup runs around words of many legacy encodings, cut at
        // random lengths (partial samples too): the cheap detection must agree every time.
        let words = [
            "Stra\u{df}e \u{fc}ber",
            "\u{201c}quoted\u{201d} it\u{2019}s",
            "\u{17e}lu\u{165}ou\u{10d}k\u{fd}",
            "\u{142}\u{f3}d\u{17a} \u{15b}wiat",
            "\u{41c}\u{43e}\u{441}\u{43a}\u{432}\u{430}",
            "\u{3b1}\u{3b8}\u{3ae}\u{3bd}\u{3b1}",
            "\u{65e5}\u{672c}\u{8a9e}",
            "\u{d55c}\u{ad6d}\u{c5b4}",
            "\u{5d0}\u{5d1}\u{5d2}",
            "caf\u{e9} \u{b0}C \u{ba} \u{aa}",
            "\u{130}stanbul \u{11f}\u{15f}",
            "ti\u{1ebf}ng vi\u{1ec7}t",
        ];
        let encodings = [
            encoding_rs::WINDOWS_1252,
            encoding_rs::ISO_8859_2,
            encoding_rs::WINDOWS_1250,
            encoding_rs::WINDOWS_1251,
            encoding_rs::KOI8_R,
            encoding_rs::ISO_8859_7,
            encoding_rs::SHIFT_JIS,
            encoding_rs::EUC_KR,
            encoding_rs::GBK,
            encoding_rs::BIG5,
            encoding_rs::WINDOWS_1255,
            encoding_rs::WINDOWS_1254,
            encoding_rs::WINDOWS_1258,
        ];
        let filler = [
            "<div class=\"nav\">",
            "Home",
            "News ",
            "\n",
            "\t",
            "ALLCAPS",
            "x",
            "  ",
            "</a>",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut checked = 0;
        for _ in 0..600 {
            let enc = encodings[next(encodings.len())];
            let mut page = String::new();
            for _ in 0..(20 + next(400)) {
                if next(12) == 0 {
                    page += words[next(words.len())];
                } else {
                    for _ in 0..next(60) {
                        page += filler[next(filler.len())];
                    }
                }
            }
            let (bytes, _, _) = enc.encode(&page);
            for cut in [bytes.len(), next(bytes.len() + 1)] {
                let b = &bytes[..cut];
                let tld: Option<&[u8]> =
                    [None, Some(&b"de"[..]), Some(b"ru"), Some(b"jp")][next(4)];
                assert_eq!(
                    detect(b, tld),
                    detect_by_feeding_all(b, tld),
                    "{} cut {cut}",
                    enc.name()
                );
                checked += 1;
            }
        }
        // Random bytes, with and without runs of spaces.
        for _ in 0..300 {
            let len = next(3000);
            let bytes: Vec<u8> = (0..len)
                .map(|_| if next(3) == 0 { b' ' } else { next(256) as u8 })
                .collect();
            assert_eq!(detect(&bytes, None), detect_by_feeding_all(&bytes, None));
            checked += 1;
        }
        assert_eq!(checked, 1500);
        // Pages longer than the sample: its end cuts a two-byte sequence (UTF-8 still), or its
        // last byte is malformed (detection proper).
        let long = format!("a{}", "\u{e9}".repeat(DETECT_SAMPLE)).into_bytes();
        assert_eq!(long[DETECT_SAMPLE - 1], 0xC3);
        assert_eq!(detect(&long, None), encoding_rs::UTF_8);
        assert_eq!(detect_by_feeding_all(&long, None), encoding_rs::UTF_8);
        let mut malformed = long.clone();
        malformed[DETECT_SAMPLE - 1] = 0xFF;
        assert_eq!(
            detect(&malformed, None),
            detect_by_feeding_all(&malformed, None)
        );
        assert_ne!(detect(&malformed, None), encoding_rs::UTF_8);
    }

    /// Pages decoded in place ([`decode_page`]) and into a thread's kept buffer
    /// ([`with_page_text`], one page after another, so the buffer is reused) against a copy
    /// decoded by `Encoding::decode`, in charsets that borrow, that never do (UTF-16, the
    /// replacement encoding) and that keep state (ISO-2022-JP).
    #[test]
    fn pages_decoded_in_place_equal_a_decoded_copy() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let starts: [&[u8]; 5] = [b"", b"\xEF\xBB\xBF", b"\xFF\xFE", b"\xFE\xFF", b"\xEF\xBB"];
        let parts: [&[u8]; 10] = [
            b"<p>plain ascii</p>",
            "caf\u{e9} \u{65e5}\u{672c}".as_bytes(),
            b"caf\xe9",
            b"\xff\xfe\xc3",
            b"<meta charset=koi8-r>",
            b"<meta charset=utf-8>",
            b"\x00",
            b" ",
            b"\x1b$B$3$s\x1b(B",
            b"\x82\xa0\x8e\x9a",
        ];
        let charsets = [
            None,
            Some("utf-8"),
            Some("windows-1252"),
            Some("utf-16le"),
            Some("bogus"),
            Some("iso-2022-jp"),
            Some("iso-2022-kr"),
            Some("shift_jis"),
        ];
        for _ in 0..3000 {
            let mut bytes = starts[rng.random_range(0..starts.len())].to_vec();
            for _ in 0..rng.random_range(0..8) {
                bytes.extend_from_slice(parts[rng.random_range(0..parts.len())]);
            }
            let charset = charsets[rng.random_range(0..charsets.len())];
            let enc = choose_encoding(&bytes, charset, None);
            let (copy, used, _) = enc.decode(&bytes);
            let expected = (copy.into_owned(), used.name().to_ascii_lowercase());
            assert_eq!(
                decode_page(bytes.clone(), charset, None),
                expected,
                "{bytes:?}"
            );
            let kept = with_page_text(&bytes, charset, None, |t, used| (t.to_string(), used));
            assert_eq!(kept, expected, "{bytes:?} {charset:?}");
        }
    }

    #[test]
    fn bom_beats_everything_and_bad_bytes_do_not_panic() {
        let mut bytes = b"\xEF\xBB\xBF<meta charset=windows-1252>ok".to_vec();
        let (_, used) = decode_page(bytes.clone(), Some("koi8-r"), None);
        assert_eq!(used, "utf-8");
        bytes.extend_from_slice(&[0xff, 0xfe, 0xc3]);
        let (text, _) = decode_page(bytes.clone(), Some("utf-8"), None);
        assert!(text.ends_with('\u{fffd}'));
        let (_, used) = decode_page(b"\x00\xff\x80".to_vec(), Some("no-such-charset"), None);
        assert!(!used.is_empty());
    }

    #[test]
    fn title_scan_handles_case_attributes_entities_and_absence() {
        assert_eq!(
            extract_title("<HTML><TITLE lang=en>\n  Tom &amp; Jerry&#39;s\t News </TITLE>")
                .as_deref(),
            Some("Tom & Jerry's News")
        );
        assert_eq!(extract_title("<titlefoo>x</titlefoo>"), None);
        assert_eq!(extract_title("<title>   </title>"), None);
        assert_eq!(extract_title("<p>no title</p>"), None);
        assert_eq!(
            extract_title("<title>unterminated &unknown; text").as_deref(),
            Some("unterminated &unknown; text")
        );
    }

    #[test]
    fn chunked_and_gzip_payloads_are_undone() {
        let head = parse_http_head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            .expect("head");
        let body = b"5\r\n<html\r\n6;ext=1\r\n>hi</p\r\n0\r\n\r\n".to_vec();
        assert_eq!(http_payload(&head, body, 1 << 20), b"<html>hi</p");
        let not_chunked = b"<html>plain".to_vec();
        assert_eq!(
            http_payload(&head, not_chunked.clone(), 1 << 20),
            not_chunked
        );
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, b"<title>zipped</title>").expect("write");
        let gz = enc.finish().expect("finish");
        let head =
            parse_http_head(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n").expect("head");
        assert_eq!(http_payload(&head, gz, 1 << 20), b"<title>zipped</title>");
        assert_eq!(
            http_payload(&head, b"not gzip".to_vec(), 1 << 20),
            b"not gzip"
        );
    }

    #[test]
    fn title_entities_next_to_multibyte_chars_do_not_panic() {
        // Found by cargo-fuzz (tests/fixtures/fuzz/arc/crash-a283...): `&` followed by
        // multi-byte characters within 12 bytes.
        assert_eq!(
            extract_title(
                "<title>Ar\u{192}\u{192}&\u{192}\u{192}\u{192}\u{192}\u{192}\u{192}</title>"
            )
            .as_deref(),
            Some("Ar\u{192}\u{192}&\u{192}\u{192}\u{192}\u{192}\u{192}\u{192}")
        );
        let long = format!("<title>{}", "\u{192}".repeat(600));
        assert_eq!(extract_title(&long).map(|t| t.chars().count()), Some(512));
    }

    #[test]
    fn http_head_parsing() {
        let resp = b"HTTP/1.1 200 OK\r\nServer: x\r\nContent-Type: Text/HTML; Charset=\"ISO-8859-1\"\r\n\r\n<html>";
        let head = parse_http_head(resp).expect("a head");
        assert_eq!(head.status, Some(200));
        assert_eq!(head.content_type.as_deref(), Some("text/html"));
        assert_eq!(head.charset.as_deref(), Some("iso-8859-1"));
        assert_eq!(&resp[head.head_len..], b"<html>");
        assert!(head.is_html_200());
        assert!(
            parse_http_head(b"HTTP/1.0 404 Not Found\n\n").is_some_and(|h| h.status == Some(404))
        );
        assert!(parse_http_head(b"GET / HTTP/1.1\r\n\r\n").is_none());
        assert!(parse_http_head(b"HTTP/1.1 200 OK\r\nContent-Type: text/html").is_none());
    }
}
