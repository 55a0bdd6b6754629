//! SpotSigs spot signatures: a page in, a multiset of 64-bit signature hashes out.
//!
//! Workbench paper §3.1: wherever an *antecedent* `a` (a frequent word such as `is`, `the`)
//! occurs, the spot signature `a(d)` is the `d`-th word after it; each antecedent has its own spot
//! distance. The Multi-Chain variant `a(d1,d2,…)` takes the word at `d1`, then the word `d2`
//! further on, and so on ("is(3,4)": the 3rd and the 7th word after `is`). Theobald et al.
//! (SIGIR 2008 §3) count distances over *non-stopwords* only and treat the signatures of a page
//! as a multiset; both are done here. Whether the antecedent itself is part of the signature is
//! an option ([`SpotSigsParams::include_antecedent`]).
//!
//! Defaults come from `assets/antecedents.txt` (articles and forms of be, can, will, have, do,
//! as in the SIGIR 2008 paper) and `assets/stopwords.txt`, compiled into the binary. A page in
//! another language takes that language's set ([`super::languages`]), chosen per page from
//! its identified language ([`crate::token::language`]). The default
//! distance, chain length, IDF band, minimum signatures and tokenizer were chosen on goldset-dev
//! (see `DEFAULT_*` below and the tuning record in `crate::eval`).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::languages::Languages;
use crate::token::language::{self, Sample};
use crate::token::{TokenSource, mix64, term_hash};
use crate::{Error, Result};

/// The antecedent list compiled into the binary.
pub const DEFAULT_ANTECEDENTS: &str = include_str!("../../assets/antecedents.txt");
/// The stopword list compiled into the binary.
pub const DEFAULT_STOPWORDS: &str = include_str!("../../assets/stopwords.txt");
/// Spot distance of an antecedent written without one (tuned on goldset-dev).
pub const DEFAULT_DISTANCE: u32 = 1;
/// Chain length of an antecedent written without distances (tuned on goldset-dev).
pub const DEFAULT_CHAIN: usize = 1;
/// Minimum signatures for a document to take part in matching (tuned on goldset-dev).
pub const DEFAULT_MIN_SIGNATURES: usize = 4;

/// One antecedent with its chain of spot distances: `is:3:4` is the paper's `is(3,4)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Antecedent {
    /// The word, lowercased.
    pub word: String,
    /// Spot distances, one per chain level; each is counted from the previous spot word.
    pub distances: Vec<u32>,
}

impl Antecedent {
    /// Parse `word` or `word:d1[:d2…]`; a bare word takes `default_distances`.
    pub fn parse(spec: &str, default_distances: &[u32]) -> Result<Antecedent> {
        let mut parts = spec.trim().split(':');
        let word = parts.next().unwrap_or("").trim().to_lowercase();
        if word.is_empty() || !word.chars().all(char::is_alphanumeric) {
            return Err(Error::InvalidParameter(format!(
                "antecedent {spec:?}: a word of letters or digits is expected"
            )));
        }
        let mut distances = Vec::new();
        for p in parts {
            match p.trim().parse::<u32>() {
                Ok(d) if d >= 1 => distances.push(d),
                _ => {
                    return Err(Error::InvalidParameter(format!(
                        "antecedent {spec:?}: spot distance {p:?} is not a whole number >= 1"
                    )));
                }
            }
        }
        if distances.is_empty() {
            distances = default_distances.to_vec();
        }
        if distances.is_empty() {
            return Err(Error::InvalidParameter(format!(
                "antecedent {spec:?}: no spot distance"
            )));
        }
        Ok(Antecedent { word, distances })
    }

    /// Parse a list separated by commas, white space or new lines; `#` starts a comment.
    pub fn parse_list(spec: &str, default_distances: &[u32]) -> Result<Vec<Antecedent>> {
        let mut out: Vec<Antecedent> = Vec::new();
        for line in spec.lines() {
            let line = line.split('#').next().unwrap_or("");
            for item in line
                .split([',', ' ', '\t'])
                .filter(|s| !s.trim().is_empty())
            {
                let a = Antecedent::parse(item, default_distances)?;
                if out.iter().any(|o| o.word == a.word) {
                    return Err(Error::InvalidParameter(format!(
                        "antecedent {:?} given twice",
                        a.word
                    )));
                }
                out.push(a);
            }
        }
        Ok(out)
    }

    /// `word:d1:d2…`, the form [`Antecedent::parse`] reads.
    pub fn spec(&self) -> String {
        let d: Vec<String> = self.distances.iter().map(u32::to_string).collect();
        format!("{}:{}", self.word, d.join(":"))
    }
}

/// Everything that decides the spot signatures of a collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpotSigsParams {
    /// Antecedents with their spot distances.
    pub antecedents: Vec<Antecedent>,
    /// Words skipped when counting the distance to a spot word.
    pub stopwords: Vec<String>,
    /// Whether the antecedent is hashed into its signatures (`the:cat` vs `cat`).
    pub include_antecedent: bool,
    /// Documents with fewer signatures (after the IDF band) are left out of matching.
    pub min_signatures: usize,
    /// Keep only signatures whose normalised collection IDF `ln(N/df)/ln(N)` lies in
    /// `[min, max]`; `None` keeps all (SIGIR 2008 §5 uses a band; it erases the signatures of small clusters, see [`crate::eval`]).
    pub idf_band: Option<(f64, f64)>,
    /// The tokenizer.
    pub tokens: TokenSource,
    /// Drop signatures of a site's frame ([`super::frame`]); `None` keeps them (the paper).
    #[serde(default)]
    pub site_frame: Option<super::frame::SiteFrame>,
    /// Antecedents and stopwords per page language ([`super::languages`]): a page of a
    /// language with a set takes it, any other page `antecedents` and `stopwords` (English by
    /// default). `None`: every page takes those (the paper; runs stored before languages).
    #[serde(default)]
    pub languages: Option<Languages>,
}

impl Default for SpotSigsParams {
    fn default() -> Self {
        let distances = vec![DEFAULT_DISTANCE; DEFAULT_CHAIN];
        SpotSigsParams {
            // The bundled list is checked by a unit test, so this cannot fail at run time.
            antecedents: Antecedent::parse_list(DEFAULT_ANTECEDENTS, &distances)
                .unwrap_or_default(),
            stopwords: word_list(DEFAULT_STOPWORDS),
            include_antecedent: true,
            min_signatures: DEFAULT_MIN_SIGNATURES,
            idf_band: None,
            tokens: TokenSource::Content,
            site_frame: Some(super::frame::SiteFrame::default()),
            languages: Some(Languages::default()),
        }
    }
}

impl SpotSigsParams {
    /// The defaults over the whole page's text: tags stripped, every block kept, no site frame
    /// dropped (samecore's SpotSigs before frame-aware signatures). The synthetic archive is
    /// calibrated against these ([`crate::synth::calibrate`]), since they see its frames.
    pub fn whole_page() -> Self {
        SpotSigsParams {
            tokens: TokenSource::Text,
            site_frame: None,
            ..SpotSigsParams::default()
        }
    }
}

/// The words of a list file: one per line, `#` comments and blank lines ignored, lowercased.
pub fn word_list(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// One spot signature with its words, for display ("why did these two pages match?").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotSignature {
    /// The antecedent's word.
    pub antecedent: String,
    /// The spot words, one per chain level.
    pub words: Vec<String>,
    /// Index of the antecedent in the page's term sequence.
    pub position: usize,
    /// The signature's hash, equal to what [`Signer::hashes`] yields for it.
    pub hash: u64,
}

/// A page's spot signatures with what chose and bounds them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignedPage {
    /// The signature hashes, repeats kept, in page order.
    pub hashes: Vec<u64>,
    /// The page's language as identified (`None`: the signer has no per-language sets, or it
    /// could not be told). A language without a set of its own (`nb`, `he`, …) took the main
    /// set.
    pub language: Option<&'static str>,
    /// The number of terms the page's text gave.
    pub terms: usize,
}

/// What [`Signer::sign_page`] keeps of a page's terms while they go by: the hash of every
/// non-stopword, and for every antecedent its index and how many non-stopwords came up to and
/// including it (its spot words then follow at the antecedent's distances among them).
struct SpotFinder<'t> {
    table: &'t Table,
    content: Chunks,
    found: Vec<(u32, u32)>,
}

impl<'t> SpotFinder<'t> {
    /// A finder for a page of `len` bytes.
    fn new(table: &'t Table, len: usize) -> SpotFinder<'t> {
        SpotFinder {
            table,
            content: Chunks::with_capacity(len / 8),
            found: Vec::new(),
        }
    }

    /// A finder that has seen `terms` (every term hash so far, in page order): the buffer is
    /// compacted in place to the non-stopwords.
    fn from_waiting(table: &'t Table, mut terms: Chunks) -> SpotFinder<'t> {
        let mut found = Vec::new();
        let mut w = 0;
        for i in 0..terms.len() {
            let h = terms.get(i);
            let role = table.role.get(&h).copied().unwrap_or(0);
            if role & 1 == 0 {
                terms.set(w, h);
                w += 1;
            }
            if role > 1 {
                found.push(((role >> 1) - 1, count(w)));
            }
        }
        terms.truncate(w);
        SpotFinder {
            table,
            content: terms,
            found,
        }
    }

    /// The next term's hash.
    fn push(&mut self, h: u64) {
        let role = self.table.role.get(&h).copied().unwrap_or(0);
        if role & 1 == 0 {
            self.content.push(h);
        }
        if role > 1 {
            self.found
                .push(((role >> 1) - 1, count(self.content.len())));
        }
    }

    /// The signature hashes of the page, in the order of their antecedents.
    fn hashes(self, signer: &Signer) -> Vec<u64> {
        let t = self.table;
        let mut out = Vec::with_capacity(self.found.len());
        for &(k, next) in &self.found {
            if next == u32::MAX {
                continue;
            }
            let distances = &t.antecedents[k as usize].distances;
            let last = distances.iter().map(|&d| d as usize).sum::<usize>() + next as usize;
            if last == 0 || last > self.content.len() {
                continue;
            }
            let mut at = next as usize;
            let words = distances.iter().map(|&d| {
                at += d as usize;
                self.content.get(at.max(1) - 1)
            });
            out.push(signer.hash_spot_words(t, k as usize, words));
        }
        out
    }
}

/// A sequence of term hashes: a first vector, then chunks of [`Chunks::CHUNK`], so that a long
/// page's are never copied to grow (the allocator copies a large block that doubles, and a
/// 60 MB page's non-stopwords peaked at twice their size).
struct Chunks {
    first: Vec<u64>,
    rest: Vec<Vec<u64>>,
}

impl Chunks {
    /// Hashes a chunk holds (1 MiB).
    const CHUNK: usize = 1 << 17;

    /// Room for `n` hashes (at most a chunk's) in the first vector.
    fn with_capacity(n: usize) -> Chunks {
        Chunks::of(Vec::with_capacity(n.min(Self::CHUNK)))
    }

    /// The hashes of `v`, as the first vector.
    fn of(v: Vec<u64>) -> Chunks {
        Chunks {
            first: v,
            rest: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        let rest = self.rest.len().saturating_sub(1) * Self::CHUNK;
        self.first.len() + rest + self.rest.last().map_or(0, Vec::len)
    }

    fn push(&mut self, h: u64) {
        if self.rest.is_empty()
            && (self.first.len() < Self::CHUNK || self.first.len() < self.first.capacity())
        {
            self.first.push(h);
            return;
        }
        match self.rest.last_mut() {
            Some(last) if last.len() < Self::CHUNK => last.push(h),
            _ => {
                let mut chunk = Vec::with_capacity(Self::CHUNK);
                chunk.push(h);
                self.rest.push(chunk);
            }
        }
    }

    fn get(&self, i: usize) -> u64 {
        match i.checked_sub(self.first.len()) {
            None => self.first[i],
            Some(j) => self.rest[j / Self::CHUNK][j % Self::CHUNK],
        }
    }

    fn set(&mut self, i: usize, h: u64) {
        match i.checked_sub(self.first.len()) {
            None => self.first[i] = h,
            Some(j) => self.rest[j / Self::CHUNK][j % Self::CHUNK] = h,
        }
    }

    /// Keep the first `n` hashes (the chunks past them are freed).
    fn truncate(&mut self, n: usize) {
        match n.checked_sub(self.first.len()) {
            None => {
                self.first.truncate(n);
                self.rest.clear();
            }
            Some(j) => {
                self.rest.truncate(j.div_ceil(Self::CHUNK));
                if let Some(last) = self.rest.last_mut()
                    && j % Self::CHUNK != 0
                {
                    last.truncate(j % Self::CHUNK);
                }
            }
        }
    }
}

/// A count of non-stopwords as the finder keeps it (a page is at most
/// [`crate::archive::MAX_PAGE`] bytes, far fewer terms than `u32::MAX`): `u32::MAX` past that,
/// and then the antecedent finds no spot rather than a wrong one.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One language's lookup tables.
#[derive(Debug, Clone)]
struct Table {
    antecedents: Vec<Antecedent>,
    antecedent_hash: Vec<u64>,
    /// What each term hash is, in one lookup: bit 0 set for a stopword, the rest the index
    /// of the antecedent plus one (0: not an antecedent). A stopword set and an antecedent
    /// map were two lookups per term: 27 M more of a goldset-dev run's 1.48 G instructions.
    role: HashMap<u64, u32, crate::token::TermHashed>,
}

impl Table {
    fn new(antecedents: &[Antecedent], stopwords: &[String]) -> Table {
        let antecedent_hash: Vec<u64> = antecedents.iter().map(|a| term_hash(&a.word)).collect();
        let mut role: HashMap<u64, u32, crate::token::TermHashed> = HashMap::default();
        for w in stopwords {
            *role.entry(term_hash(w)).or_default() |= 1;
        }
        // A word listed twice as an antecedent is its last entry.
        for (i, &h) in antecedent_hash.iter().enumerate() {
            let r = role.entry(h).or_default();
            *r = (*r & 1) | ((i as u32 + 1) << 1);
        }
        Table {
            antecedents: antecedents.to_vec(),
            antecedent_hash,
            role,
        }
    }
}

/// Extracts spot signatures with one parameter set; build once, use from many threads.
#[derive(Debug, Clone)]
pub struct Signer {
    params: SpotSigsParams,
    /// The main set first, then one table per language with a set of its own. A language's
    /// table is built when its first page is signed: building all thirty took 3–8 ms before
    /// any page was read, on an archive that may hold one language.
    tables: Vec<OnceLock<Table>>,
    /// Language code → index into `tables` (empty without per-language sets).
    table_of: HashMap<&'static str, usize>,
    /// The codes of `table_of`, for a page's declared language.
    known: Vec<&'static str>,
}

impl Signer {
    /// Prepare the lookup tables for `params`.
    pub fn new(params: &SpotSigsParams) -> Result<Signer> {
        if params.antecedents.is_empty() {
            return Err(Error::InvalidParameter("no antecedents".into()));
        }
        if let Some((lo, hi)) = params.idf_band
            && !(0.0..=1.0).contains(&lo) | !(0.0..=1.0).contains(&hi) | (lo > hi)
        {
            return Err(Error::InvalidParameter(format!(
                "IDF band {lo}..{hi}: expected 0 <= min <= max <= 1"
            )));
        }
        let mut tables = vec![OnceLock::from(Table::new(
            &params.antecedents,
            &params.stopwords,
        ))];
        let mut table_of = HashMap::new();
        if let Some(languages) = &params.languages {
            // English pages take the main set (the paper's, or what the run set instead).
            for code in super::languages::codes().into_iter().filter(|c| *c != "en") {
                // A bundled set has antecedents (a unit test reads every one); an edited one
                // is checked here, before any page is read.
                if languages
                    .edited
                    .get(code)
                    .is_some_and(|set| set.antecedents.is_empty())
                {
                    return Err(Error::InvalidParameter(format!(
                        "no antecedents for {}",
                        super::languages::name(code)
                    )));
                }
                table_of.insert(code, tables.len());
                tables.push(OnceLock::new());
            }
        }
        let mut known: Vec<&'static str> = table_of.keys().copied().collect();
        known.push("en");
        known.sort_unstable();
        Ok(Signer {
            params: params.clone(),
            tables,
            table_of,
            known,
        })
    }

    /// The parameters this signer was built with.
    pub fn params(&self) -> &SpotSigsParams {
        &self.params
    }

    /// The set a page of language `lang` takes: its own, else the main set.
    fn table(&self, lang: Option<&str>) -> &Table {
        let i = lang
            .and_then(|l| self.table_of.get_key_value(l))
            .map(|(&code, &i)| (code, i));
        match i {
            Some((code, i)) => self.tables[i].get_or_init(|| {
                // Every code of `table_of` has a set (bundled or edited); the main set would
                // stand in for one that had none.
                match (self.params.languages.as_ref()).and_then(|l| l.set(code)) {
                    Some(set) => Table::new(&set.antecedents, &set.stopwords),
                    None => Table::new(&self.params.antecedents, &self.params.stopwords),
                }
            }),
            None => self.tables[0]
                .get_or_init(|| Table::new(&self.params.antecedents, &self.params.stopwords)),
        }
    }

    /// Every spot of a term-hash sequence: `f(antecedent index, antecedent position, spot
    /// word positions)`.
    fn for_each_spot(&self, t: &Table, terms: &[u64], mut f: impl FnMut(usize, usize, &[usize])) {
        // Positions of non-stopwords, and each antecedent's position with the number of
        // non-stopwords up to it (so `content[next..]` are the non-stopwords after it).
        let mut content: Vec<usize> = Vec::with_capacity(terms.len());
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        for (pos, h) in terms.iter().enumerate() {
            let role = t.role.get(h).copied().unwrap_or(0);
            if role & 1 == 0 {
                content.push(pos);
            }
            if role > 1 {
                found.push((pos, (role >> 1) as usize - 1, content.len()));
            }
        }
        let mut spot = Vec::with_capacity(4);
        for (pos, k, next) in found {
            spot.clear();
            let mut at = next;
            for &d in &t.antecedents[k].distances {
                at += d as usize;
                match content.get(at - 1) {
                    Some(&p) => spot.push(p),
                    None => break,
                }
            }
            if spot.len() == t.antecedents[k].distances.len() {
                f(k, pos, &spot);
            }
        }
    }

    fn hash_spot(&self, t: &Table, k: usize, terms: &[u64], spot: &[usize]) -> u64 {
        self.hash_spot_words(t, k, spot.iter().map(|&p| terms[p]))
    }

    /// The signature of antecedent `k` whose spot words are the non-stopwords of `spot`.
    fn hash_spot_words(&self, t: &Table, k: usize, spot: impl Iterator<Item = u64>) -> u64 {
        let mut h = if self.params.include_antecedent {
            t.antecedent_hash[k]
        } else {
            0x9e37_79b9_7f4a_7c15
        };
        for w in spot {
            h = mix64(h.rotate_left(23) ^ w);
        }
        h
    }

    /// The multiset of signature hashes of a page, in page order.
    pub fn hashes(&self, html: &str, url: Option<&str>) -> Vec<u64> {
        self.sign_page(html, url).hashes
    }

    /// [`Self::hashes`] with the page's language and its number of terms.
    ///
    /// The page's terms are not all held: once the signer knows which set the page takes (at
    /// once without per-language sets, else when the language sample is full or, for other
    /// tokenizers than `content`, from the core text before the terms), each term is only
    /// looked up, and what stays is the hash of each non-stopword and where each antecedent
    /// stands among them ([`SpotFinder`]). Until then the terms' hashes wait in the same
    /// buffer, which is then compacted in place to the non-stopwords. A 60 MB one-line page
    /// held its 6.3 M terms' hashes and each non-stopword's position beside them (8 + 8 bytes
    /// a term); now 8 bytes a non-stopword. The signatures are those of [`Self::spots_with`]
    /// on the same terms, in the same order.
    pub fn sign_page(&self, html: &str, url: Option<&str>) -> SignedPage {
        let tokens = self.params.tokens;
        // The set the page takes, when known before its terms go by.
        let known = if self.table_of.is_empty() {
            Some(None)
        } else if tokens != TokenSource::Content {
            // A page's language is its core text's: the start of a whole page's text is its
            // navigation, whose words say little (on goldset-dev, 62 English pages read as
            // French from the start of their tag-stripped text, none from their core text).
            let mut sample = Sample::default();
            TokenSource::Content.for_each_term(html, url, |t| sample.push(t));
            Some(sample.language(Some(html), &self.known))
        } else {
            None
        };
        let mut language = known.flatten();
        let mut finder = known.map(|lang| SpotFinder::new(self.table(lang), html.len()));
        // Otherwise the set is known once the sample is full; the terms before wait.
        let mut sample = Sample::default();
        let mut waiting = Chunks::with_capacity(if finder.is_some() { 0 } else { html.len() / 6 });
        let mut terms = 0usize;
        tokens.for_each_term(html, url, |t| {
            terms += 1;
            let hash = term_hash(t);
            if let Some(f) = finder.as_mut() {
                f.push(hash);
                return;
            }
            waiting.push(hash);
            sample.push_hashed(t, || hash);
            if sample.is_full() {
                language = sample.language(Some(html), &self.known);
                let terms = std::mem::replace(&mut waiting, Chunks::with_capacity(0));
                finder = Some(SpotFinder::from_waiting(self.table(language), terms));
            }
        });
        let finder = match finder {
            Some(f) => f,
            None => {
                language = sample.language(Some(html), &self.known);
                SpotFinder::from_waiting(self.table(language), waiting)
            }
        };
        SignedPage {
            hashes: finder.hashes(self),
            language,
            terms,
        }
    }

    /// The spot signatures of a page with their words (slower; for display).
    pub fn spots(&self, html: &str, url: Option<&str>) -> Vec<SpotSignature> {
        let words = self.params.tokens.terms(html, url);
        let lang = self.language_of(&words, Some(html));
        self.spots_with(&words, lang)
    }

    /// The language of a page split into terms by this signer's tokenizer, as
    /// [`Self::hashes`] tells it (`None` without per-language sets or when it cannot be told).
    pub fn language_of(&self, words: &[String], html: Option<&str>) -> Option<&'static str> {
        if self.table_of.is_empty() {
            return None;
        }
        let mut sample = Sample::default();
        match html {
            // As `term_hashes`: the core text's words decide.
            Some(h) if self.params.tokens != TokenSource::Content => {
                TokenSource::Content.for_each_term(h, None, |t| sample.push(t));
            }
            _ => {
                for w in words.iter().take(language::SAMPLE_BYTES) {
                    sample.push(w);
                }
            }
        }
        sample.language(html, &self.known)
    }

    /// The spot signatures of a page already split into terms by this signer's tokenizer
    /// (`params().tokens`), for callers that show those terms too; `lang` as
    /// [`Self::language_of`] tells it.
    pub fn spots_with(&self, words: &[String], lang: Option<&str>) -> Vec<SpotSignature> {
        let terms: Vec<u64> = words.iter().map(|w| term_hash(w)).collect();
        let t = self.table(lang);
        let mut out = Vec::new();
        self.for_each_spot(t, &terms, |k, pos, spot| {
            out.push(SpotSignature {
                antecedent: t.antecedents[k].word.clone(),
                words: spot.iter().map(|&p| words[p].clone()).collect(),
                position: pos,
                hash: self.hash_spot(t, k, &terms, spot),
            })
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(antecedents: &str, stop: &[&str]) -> SpotSigsParams {
        SpotSigsParams {
            antecedents: Antecedent::parse_list(antecedents, &[1]).unwrap(),
            stopwords: stop.iter().map(|s| s.to_string()).collect(),
            include_antecedent: true,
            min_signatures: 0,
            idf_band: None,
            tokens: TokenSource::Text,
            site_frame: None,
            languages: None,
        }
    }

    fn words(s: &Signer, text: &str) -> Vec<String> {
        s.spots(text, None)
            .iter()
            .map(|sp| format!("{}({})", sp.antecedent, sp.words.join(",")))
            .collect()
    }

    #[test]
    fn bundled_lists_parse() {
        let a = Antecedent::parse_list(DEFAULT_ANTECEDENTS, &[2]).unwrap();
        assert!(a.len() >= 20 && a.iter().any(|x| x.word == "the"));
        assert!(a.iter().all(|x| x.distances == [2]));
        assert!(word_list(DEFAULT_STOPWORDS).contains(&"the".to_string()));
        assert_eq!(
            SpotSigsParams::default().antecedents.len(),
            a.len(),
            "default params must use the bundled list"
        );
    }

    #[test]
    fn distance_counts_non_stopwords_and_chains_accumulate() {
        let s = Signer::new(&params("is:2 the:1:2", &["a", "of", "the"])).unwrap();
        // non-stopwords after "is": cat(1) sat(2) on(3) mat(4)
        let text = "It is a cat of the sat on mat";
        assert_eq!(words(&s, text), ["is(sat)", "the(sat,mat)"]);
    }

    #[test]
    fn spots_running_off_the_end_are_dropped() {
        let s = Signer::new(&params("is:5", &[])).unwrap();
        assert!(s.spots("this is short", None).is_empty());
    }

    #[test]
    fn hashes_match_spots_and_antecedent_option_matters() {
        let text = "the cat is here and the cat is there, the cat";
        let mut p = params("the:1 is:1", &[]);
        let s = Signer::new(&p).unwrap();
        let spots: Vec<u64> = s.spots(text, None).iter().map(|x| x.hash).collect();
        assert_eq!(s.hashes(text, None), spots);
        // "the cat" three times: a multiset keeps all three.
        assert_eq!(spots.iter().filter(|&&h| h == spots[0]).count(), 3);
        p.include_antecedent = false;
        let without = Signer::new(&p).unwrap().hashes(text, None);
        assert_ne!(without[0], spots[0]);
        // Without the antecedent, the(cat)… and is(here)… stay distinct only by their words.
        assert_eq!(without.len(), spots.len());
    }

    #[test]
    fn a_page_signed_as_its_terms_go_by_is_signed_as_from_all_its_terms() {
        use rand::{Rng, SeedableRng};
        // Pages of English, German and French function words and others, short (the language
        // sample never full) and long (full after a few hundred terms), every tokenizer, with
        // and without per-language sets: the hashes and language of `sign_page` are those of
        // the terms taken whole.
        let pool: Vec<&str> = "the a of is was to in and der die das ist war und le la les \
            est était et un une de cat Hund chat maison Haus house 42 x1 story Geschichte \
            histoire"
            .split_whitespace()
            .collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for tokens in [TokenSource::Content, TokenSource::Text, TokenSource::Markup] {
            for languages in [false, true] {
                let mut p = SpotSigsParams {
                    tokens,
                    ..Default::default()
                };
                if !languages {
                    p.languages = None;
                }
                let signer = Signer::new(&p).unwrap();
                for n in [0, 3, 40, 400, 3000] {
                    let mut html = String::from("<html><body>");
                    for b in 0..=n / 60 {
                        html.push_str(if b % 3 == 0 { "<div><a href=x>" } else { "<p>" });
                        for _ in 0..60.min(n) {
                            html.push_str(pool[rng.random_range(0..pool.len())]);
                            html.push(' ');
                        }
                        html.push_str(if b % 3 == 0 { "</a></div>" } else { "</p>" });
                    }
                    let words = tokens.terms(&html, None);
                    let lang = signer.language_of(&words, Some(&html));
                    let whole: Vec<u64> = (signer.spots_with(&words, lang).iter())
                        .map(|x| x.hash)
                        .collect();
                    let signed = signer.sign_page(&html, None);
                    assert_eq!(signed.hashes, whole, "{tokens:?} {languages} {n}");
                    assert_eq!(signed.language, lang, "{tokens:?} {languages} {n}");
                    assert_eq!(signed.terms, words.len());
                }
            }
        }
    }

    #[test]
    fn chunked_hashes_read_back_in_order_however_they_began() {
        for start in [0, 5, Chunks::CHUNK + 3] {
            let mut c = Chunks::of((0..start as u64).collect());
            for h in start as u64..(3 * Chunks::CHUNK as u64 + 17) {
                c.push(h);
            }
            assert_eq!(c.len(), 3 * Chunks::CHUNK + 17);
            for i in [
                0,
                4,
                start,
                Chunks::CHUNK,
                2 * Chunks::CHUNK + 1,
                c.len() - 1,
            ] {
                if i < c.len() {
                    assert_eq!(c.get(i), i as u64, "start {start}, at {i}");
                }
            }
            assert!(c.rest.iter().all(|r| r.len() <= Chunks::CHUNK));
            for n in [
                c.len(),
                2 * Chunks::CHUNK + start,
                Chunks::CHUNK + 1,
                start,
                1,
                0,
            ] {
                let mut t = Chunks::of((0..start as u64).collect());
                for h in start as u64..(3 * Chunks::CHUNK as u64 + 17) {
                    t.push(h);
                }
                t.set(n / 2, 7);
                t.truncate(n);
                assert_eq!(t.len(), n, "start {start}, truncated to {n}");
                if n > 0 {
                    assert_eq!(t.get(n - 1), if n - 1 == n / 2 { 7 } else { n as u64 - 1 });
                }
            }
        }
    }

    #[test]
    fn parse_errors_are_reported() {
        assert!(Antecedent::parse("is:0", &[1]).is_err());
        assert!(Antecedent::parse("is:x", &[1]).is_err());
        assert!(Antecedent::parse("", &[1]).is_err());
        assert!(Antecedent::parse_list("is, is:2", &[1]).is_err());
        assert_eq!(
            Antecedent::parse("Is:3:4", &[1]).unwrap(),
            Antecedent {
                word: "is".into(),
                distances: vec![3, 4]
            }
        );
        assert_eq!(Antecedent::parse("the", &[2, 2]).unwrap().spec(), "the:2:2");
        let mut p = params("is", &[]);
        p.idf_band = Some((0.8, 0.2));
        assert!(Signer::new(&p).is_err());
        p.antecedents.clear();
        assert!(Signer::new(&p).is_err());
    }
}
