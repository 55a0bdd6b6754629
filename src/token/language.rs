//! A page's language, from its own terms: what chooses its SpotSigs antecedents
//! ([`crate::signature::languages`]).
//!
//! Identification runs on a sample of the page's terms (the first [`SAMPLE_BYTES`] of them,
//! joined by spaces) in two steps:
//!
//! 1. **Function words** ([`by_function_words`]): each term votes for the languages whose
//!    stopword list (stopwords-iso, 58 languages, plus Maltese's bundled antecedents) holds it;
//!    a language with at least [`MIN_VOTES`] votes and [`MARGIN`] times the runner-up's wins.
//!    This is Grefenstette's "short words" method (1995), and costs a hash lookup per term.
//! 2. Otherwise (close languages such as Danish and Norwegian, Czech and Slovak; too few
//!    function words) **whatlang**'s trigram and alphabet model decides, over its 69 languages.
//!
//! whatlang alone was measured first (`benches/language.rs`): all 1,237 pages of frames-dev and
//! goldset-dev right, but 125 µs per page (two minutes for a million pages, a third of a
//! goldset-dev run); function words first take most pages at a few µs, whatlang only the
//! rest. lingua is the other maintained crate: more accurate on a few words, but its models
//! weigh 100+ MB in memory and it is slower still, and a page's core text is rarely a few
//! words. Where the text says too little (fewer than [`MIN_SAMPLE_CHARS`] letters, or no
//! language found), the page's `<html lang>` decides.
//!
//! The language of a page's *core text* decides, not its site's: a German story syndicated into
//! a French site's frame is German. Copies of one story then take the same antecedents, which
//! is what makes their signatures meet; so whatlang's guess is kept even when it is not
//! "reliable" (two copies of a text get the same guess), and `<html lang>`, which names the
//! frame's language, is used only where the text gives no guess at all.

/// Bytes of a page's terms the identification reads (about 300 words).
pub const SAMPLE_BYTES: usize = 1500;

/// Fewer letters than this, and the text does not decide the language.
pub const MIN_SAMPLE_CHARS: usize = 40;

/// Votes a language needs to win on function words alone.
pub const MIN_VOTES: u32 = 8;

/// How many times the runner-up's votes the winner needs on function words alone.
pub const MARGIN: u32 = 3;

/// Which languages' function words each term is (a bit per language of `codes`).
struct FunctionWords {
    codes: Vec<&'static str>,
    of: std::collections::HashMap<u64, u64, super::TermHashed>,
}

/// The languages of the table's bits: stopwords-iso's, then Maltese (at most 64).
fn table_codes() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = stop_words::available_languages().to_vec();
    codes.push("mt");
    codes.truncate(64);
    codes
}

/// The function-word table made ahead of time: for every term of every stopword list, its
/// [`super::term_hash`] and its languages' bits (`table_codes`' order), as 16-byte records
/// (two little-endian `u64`), sorted by hash. A unit test makes it again from the lists through
/// the tokenizer and fails when it differs (a new `stop-words` or Unicode version); run it with
/// `SAMECORE_WRITE_FUNCTION_WORDS=1` to write the file anew.
///
/// Why a file: built at start, the table (18,266 terms, 10,035 of them outside ASCII, each
/// through the tokenizer's Unicode path) took 6–15 ms of a core while every decoding thread's
/// first page waited for it, in a `run` of goldset-dev that takes about 140 ms on two cores.
/// Read from this file it is ready in a fraction of a millisecond.
static TABLE_FILE: &[u8] = include_bytes!("function_words.bin");

static FUNCTION_WORDS: std::sync::LazyLock<FunctionWords> = std::sync::LazyLock::new(|| {
    let mut of: std::collections::HashMap<u64, u64, super::TermHashed> =
        std::collections::HashMap::with_capacity_and_hasher(
            TABLE_FILE.len() / 16,
            Default::default(),
        );
    for record in TABLE_FILE.chunks_exact(16) {
        let (hash, bits) = record.split_at(8);
        of.insert(
            u64::from_le_bytes(hash.try_into().unwrap_or_default()),
            u64::from_le_bytes(bits.try_into().unwrap_or_default()),
        );
    }
    FunctionWords {
        codes: table_codes(),
        of,
    }
});

/// The language whose function words a sample's terms clearly are ([`MIN_VOTES`],
/// [`MARGIN`]), if one is.
pub fn by_function_words(sample: &str) -> Option<&'static str> {
    // Split on bytes: `str::split(' ')` looks for each space with a searcher, which cost as
    // much as the lookups themselves (37 M of a goldset-dev run's 1.77 G instructions).
    vote(
        sample
            .as_bytes()
            .split(|&b| b == b' ')
            .map(super::term_hash_bytes),
    )
}

/// [`by_function_words`] of the sample's term hashes.
fn vote(terms: impl Iterator<Item = u64>) -> Option<&'static str> {
    let fw = &*FUNCTION_WORDS;
    let mut votes = [0u32; 64];
    for term in terms {
        if let Some(&bits) = fw.of.get(&term) {
            let mut b = bits;
            while b != 0 {
                votes[b.trailing_zeros() as usize] += 1;
                b &= b - 1;
            }
        }
    }
    let (mut best, mut second) = (0usize, 0u32);
    for i in 1..fw.codes.len() {
        if votes[i] > votes[best] {
            second = votes[best];
            best = i;
        } else if votes[i] > second {
            second = votes[i];
        }
    }
    (votes[best] >= MIN_VOTES && votes[best] >= MARGIN * second).then(|| fw.codes[best])
}

/// The ISO 639-1 code of `lang` where it has one, else whatlang's ISO 639-3 code.
pub fn code(lang: whatlang::Lang) -> &'static str {
    use whatlang::Lang::*;
    match lang {
        Eng => "en",
        Deu => "de",
        Fra => "fr",
        Spa => "es",
        Por => "pt",
        Ita => "it",
        Nld => "nl",
        Dan => "da",
        Swe => "sv",
        Nob => "nb",
        Fin => "fi",
        Est => "et",
        Lav => "lv",
        Lit => "lt",
        Pol => "pl",
        Ces => "cs",
        Slk => "sk",
        Slv => "sl",
        Hrv => "hr",
        Srp => "sr",
        Bul => "bg",
        Mkd => "mk",
        Ron => "ro",
        Hun => "hu",
        Ell => "el",
        Rus => "ru",
        Ukr => "uk",
        Bel => "be",
        Tur => "tr",
        Ara => "ar",
        Heb => "he",
        Pes => "fa",
        Urd => "ur",
        Hin => "hi",
        Cmn => "zh",
        Jpn => "ja",
        Kor => "ko",
        Tha => "th",
        Vie => "vi",
        Ind => "id",
        Cat => "ca",
        other => other.code(),
    }
}

/// The language of a text sample (terms joined by spaces), if it says enough.
pub fn of_text(sample: &str) -> Option<&'static str> {
    of_text_hashed(sample, None)
}

/// [`of_text`], with the sample's term hashes when they are known (then the function words
/// are looked up without hashing the terms again).
fn of_text_hashed(sample: &str, terms: Option<&[u64]>) -> Option<&'static str> {
    // Enough letters is all that is asked: counting stops there.
    let letters = (sample.chars().filter(|c| c.is_alphabetic()))
        .take(MIN_SAMPLE_CHARS)
        .count();
    if letters < MIN_SAMPLE_CHARS {
        return None;
    }
    match terms {
        Some(terms) => vote(terms.iter().copied()),
        None => by_function_words(sample),
    }
    .or_else(|| whatlang::detect(sample).map(|info| code(info.lang())))
}

/// The primary subtag of the page's `<html lang="…">` (or `xml:lang`), lowercased, if the
/// page declares one in its first 16 KB.
pub fn declared(html: &str) -> Option<String> {
    let head = html.as_bytes()[..html.len().min(16 * 1024)].to_ascii_lowercase();
    let at = memchr::memmem::find(&head, b"<html")?;
    let end = memchr::memchr(b'>', &head[at..]).map_or(head.len(), |e| at + e);
    let tag = std::str::from_utf8(&head[at..end]).ok()?;
    // `lang` (or `xml:lang`) after white space or a colon, `=` with optional spaces around.
    let mut rest = tag;
    let value = loop {
        let i = rest.find("lang")?;
        let before = rest[..i].chars().next_back();
        let after = rest[i + 4..].trim_start();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_whitespace() || c == ':')
            && let Some(v) = after.strip_prefix('=')
        {
            break v.trim_start().trim_start_matches(['"', '\'']);
        }
    };
    let primary: String = value
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    (2..=3).contains(&primary.len()).then_some(primary)
}

/// A page's language: its core text's ([`of_text`]), else the one it declares ([`declared`]).
/// The declared code is matched against `known` (the codes the caller has data for) so that the
/// answer is always one of whatlang's codes or one of `known`.
pub fn of_page(sample: &str, html: Option<&str>, known: &[&'static str]) -> Option<&'static str> {
    of_page_hashed(sample, None, html, known)
}

fn of_page_hashed(
    sample: &str,
    terms: Option<&[u64]>,
    html: Option<&str>,
    known: &[&'static str],
) -> Option<&'static str> {
    if let Some(lang) = of_text_hashed(sample, terms) {
        return Some(lang);
    }
    let declared = declared(html?)?;
    known.iter().copied().find(|k| *k == declared)
}

/// Collects the sample [`of_text`] reads while a page's terms go by.
#[derive(Debug)]
pub struct Sample {
    text: String,
    /// The [`super::term_hash`] of each term of `text`: a page's terms are hashed as they go by,
    /// and hashing the sample's again cost 7 M more of a goldset-dev run's 1.45 G instructions.
    terms: Vec<u64>,
}

/// Sized for a full sample at once (a term goes in while the text is shorter than
/// [`SAMPLE_BYTES`], and is at most 24 bytes and a space), not grown by doubling.
impl Default for Sample {
    fn default() -> Self {
        Sample {
            text: String::with_capacity(SAMPLE_BYTES + 25),
            terms: Vec::with_capacity(SAMPLE_BYTES / 4),
        }
    }
}

impl Sample {
    /// Add one term (ignored once the sample is full). Terms with digits and terms longer
    /// than 24 bytes (the pieces of URLs, ids, tracking parameters that content text still
    /// carries) say nothing of a language and are left out.
    pub fn push(&mut self, term: &str) {
        self.push_hashed(term, || super::term_hash(term));
    }

    /// [`Self::push`] of a term whose [`super::term_hash`] `hash` gives.
    pub fn push_hashed(&mut self, term: &str, hash: impl FnOnce() -> u64) {
        if self.text.len() < SAMPLE_BYTES
            && term.len() <= 24
            && !term.bytes().any(|b| b.is_ascii_digit())
        {
            if !self.text.is_empty() {
                self.text.push(' ');
            }
            self.text.push_str(term);
            self.terms.push(hash());
        }
    }

    /// Whether the sample takes no more terms (then its language is final).
    pub fn is_full(&self) -> bool {
        self.text.len() >= SAMPLE_BYTES
    }

    /// The sample so far.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The page's language from this sample ([`of_page`]).
    pub fn language(&self, html: Option<&str>, known: &[&'static str]) -> Option<&'static str> {
        of_page_hashed(&self.text, Some(&self.terms), html, known)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The function-word table from the stopword lists, each word through the tokenizer (so a
    /// list's spelling meets a page's terms), in the file's form: what `TABLE_FILE` must hold.
    fn table_from_lists() -> Vec<u8> {
        // Maltese has no stopwords-iso list: its bundled antecedents stand in.
        const MALTESE: &[&str] = &[
            "il", "l", "is", "ta", "tal", "li", "huwa", "hija", "kien", "kienet", "se", "jista",
            "u", "fil", "minn", "għal", "biex", "dan", "din", "mhux",
        ];
        let mut of: std::collections::BTreeMap<u64, u64> = Default::default();
        for (i, code) in table_codes().iter().enumerate() {
            for w in stop_words::lookup(code).unwrap_or(MALTESE) {
                crate::token::markup::for_each_term(w, |t| {
                    *of.entry(crate::token::term_hash(t)).or_default() |= 1 << i
                });
            }
        }
        of.into_iter()
            .flat_map(|(hash, bits)| [hash.to_le_bytes(), bits.to_le_bytes()])
            .flatten()
            .collect()
    }

    #[test]
    fn the_function_word_table_is_the_stopword_lists_through_the_tokenizer() {
        let made = table_from_lists();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/token/function_words.bin");
        if std::env::var_os("SAMECORE_WRITE_FUNCTION_WORDS").is_some() {
            std::fs::write(path, &made).unwrap();
        }
        assert!(
            made == TABLE_FILE,
            "{path} is not the stopword lists through the tokenizer ({} bytes made, {} in the \
             file): run this test with SAMECORE_WRITE_FUNCTION_WORDS=1 to write it anew",
            made.len(),
            TABLE_FILE.len()
        );
        // The bits are the languages of `codes`, in its order.
        let en = FUNCTION_WORDS
            .codes
            .iter()
            .position(|c| *c == "en")
            .unwrap();
        let de = FUNCTION_WORDS
            .codes
            .iter()
            .position(|c| *c == "de")
            .unwrap();
        assert!(FUNCTION_WORDS.of[&crate::token::term_hash("the")] & (1 << en) != 0);
        assert!(FUNCTION_WORDS.of[&crate::token::term_hash("über")] & (1 << de) != 0);
    }

    #[test]
    fn text_decides_and_declared_lang_is_the_fallback() {
        let de = "die bundesregierung hat am mittwoch beschlossen dass die neue regelung \
                  für alle bürger ab dem kommenden jahr gelten wird";
        assert_eq!(of_text(de), Some("de"));
        let fr = "le gouvernement a décidé mercredi que la nouvelle règle sera appliquée \
                  à tous les citoyens dès l'année prochaine";
        assert_eq!(of_text(fr), Some("fr"));
        assert_eq!(
            of_text(
                "的 是 中 国 政 府 在 星 期 三 宣 布 了 新 的 规 定 从 明 年 开 始 对 所 有 公 民 适 用 这 是 一 个 重 要 的 决 定 他 们 说"
            ),
            Some("zh")
        );
        // Too short to tell: the page's own declaration.
        let html = r#"<!DOCTYPE html><HTML class="x" Lang="ga-IE"><body>Dia duit</body></html>"#;
        assert_eq!(declared(html).as_deref(), Some("ga"));
        assert_eq!(of_page("dia duit", Some(html), &["ga", "de"]), Some("ga"));
        assert_eq!(of_page("dia duit", Some(html), &["de"]), None);
        assert_eq!(of_page("dia duit", None, &["ga"]), None);
        assert_eq!(declared(r#"<html xml:lang="de">"#).as_deref(), Some("de"));
        assert_eq!(declared("<html><body lang=de>"), None);
        assert_eq!(
            declared("<Html\n\tdir=\"ltr\"\n\tLANG = 'fr-CA'>").as_deref(),
            Some("fr")
        );
        assert_eq!(
            declared("<html data-slang=\"x\" lang=\"nl\">").as_deref(),
            Some("nl")
        );
    }

    #[test]
    fn sample_stops_at_its_size() {
        let mut s = Sample::default();
        for _ in 0..1000 {
            s.push("word");
        }
        assert!(s.as_str().len() <= SAMPLE_BYTES + 5);
        assert!(s.as_str().starts_with("word word"));
    }

    #[test]
    fn stopwords_put_straight_into_the_table_are_what_the_tokenizer_makes_of_them() {
        let mut straight = 0;
        for code in stop_words::available_languages() {
            for w in stop_words::lookup(code).unwrap_or(&[]) {
                if !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                {
                    assert_eq!(crate::token::markup::terms(w), [*w], "{code}: {w:?}");
                    straight += 1;
                }
            }
        }
        assert!(straight > 5_000, "{straight}");
    }

    #[test]
    fn a_sample_hashed_as_it_goes_tells_what_its_text_tells() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        // Function words of close and distant languages, other words, digits, long terms.
        let mut pool: Vec<&str> = Vec::new();
        for code in ["en", "de", "fr", "da", "nb", "ru", "zh"] {
            pool.extend(stop_words::lookup(code).unwrap_or(&[]).iter().take(40));
        }
        pool.extend([
            "haus",
            "zeitung",
            "story",
            "x42",
            "abcdefghijklmnopqrstuvwxyz",
            "新",
        ]);
        for _ in 0..500 {
            let mut sample = Sample::default();
            for _ in 0..rng.random_range(0..400) {
                for t in crate::token::markup::terms(pool[rng.random_range(0..pool.len())]) {
                    sample.push(&t);
                }
            }
            assert_eq!(
                sample.language(None, &[]),
                of_page(sample.as_str(), None, &[]),
                "{}",
                sample.as_str()
            );
        }
    }
}
