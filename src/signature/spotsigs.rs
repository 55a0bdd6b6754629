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
//! as in the SIGIR 2008 paper) and `assets/stopwords.txt`, compiled into the binary. The default
//! distance, chain length, IDF band, minimum signatures and tokenizer were chosen on goldset-dev
//! (see `DEFAULT_*` below and the tuning record in `crate::eval`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

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

/// Extracts spot signatures with one parameter set; build once, use from many threads.
#[derive(Debug, Clone)]
pub struct Signer {
    params: SpotSigsParams,
    antecedent_of: HashMap<u64, usize>,
    antecedent_hash: Vec<u64>,
    stop: HashSet<u64>,
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
        let antecedent_hash: Vec<u64> = params
            .antecedents
            .iter()
            .map(|a| term_hash(&a.word))
            .collect();
        let antecedent_of = antecedent_hash
            .iter()
            .enumerate()
            .map(|(i, &h)| (h, i))
            .collect();
        let stop = params.stopwords.iter().map(|w| term_hash(w)).collect();
        Ok(Signer {
            params: params.clone(),
            antecedent_of,
            antecedent_hash,
            stop,
        })
    }

    /// The parameters this signer was built with.
    pub fn params(&self) -> &SpotSigsParams {
        &self.params
    }

    /// Every spot of a term-hash sequence: `f(antecedent index, antecedent position, spot
    /// word positions)`.
    fn for_each_spot(&self, terms: &[u64], mut f: impl FnMut(usize, usize, &[usize])) {
        // Positions of non-stopwords, and for each term the first non-stopword after it.
        let content: Vec<usize> = (0..terms.len())
            .filter(|&i| !self.stop.contains(&terms[i]))
            .collect();
        let mut next = 0usize;
        let mut spot = Vec::with_capacity(4);
        for (pos, h) in terms.iter().enumerate() {
            while next < content.len() && content[next] <= pos {
                next += 1;
            }
            let Some(&k) = self.antecedent_of.get(h) else {
                continue;
            };
            spot.clear();
            let mut at = next;
            for &d in &self.params.antecedents[k].distances {
                at += d as usize;
                match content.get(at - 1) {
                    Some(&p) => spot.push(p),
                    None => break,
                }
            }
            if spot.len() == self.params.antecedents[k].distances.len() {
                f(k, pos, &spot);
            }
        }
    }

    fn hash_spot(&self, k: usize, terms: &[u64], spot: &[usize]) -> u64 {
        let mut h = if self.params.include_antecedent {
            self.antecedent_hash[k]
        } else {
            0x9e37_79b9_7f4a_7c15
        };
        for &p in spot {
            h = mix64(h.rotate_left(23) ^ terms[p]);
        }
        h
    }

    /// The page's term hashes with this signer's tokenizer.
    pub fn term_hashes(&self, html: &str, url: Option<&str>) -> Vec<u64> {
        let mut terms = Vec::with_capacity(html.len() / 6);
        self.params
            .tokens
            .for_each_term(html, url, |t| terms.push(term_hash(t)));
        terms
    }

    /// The multiset of signature hashes of a page, in page order.
    pub fn hashes(&self, html: &str, url: Option<&str>) -> Vec<u64> {
        let terms = self.term_hashes(html, url);
        let mut out = Vec::new();
        self.for_each_spot(&terms, |k, _, spot| {
            out.push(self.hash_spot(k, &terms, spot))
        });
        out
    }

    /// The spot signatures of a page with their words (slower; for display).
    pub fn spots(&self, html: &str, url: Option<&str>) -> Vec<SpotSignature> {
        self.spots_in(&self.params.tokens.terms(html, url))
    }

    /// The spot signatures of a page already split into terms by this signer's tokenizer
    /// (`params().tokens`), for callers that show those terms too.
    pub fn spots_in(&self, words: &[String]) -> Vec<SpotSignature> {
        let terms: Vec<u64> = words.iter().map(|w| term_hash(w)).collect();
        let mut out = Vec::new();
        self.for_each_spot(&terms, |k, pos, spot| {
            out.push(SpotSignature {
                antecedent: self.params.antecedents[k].word.clone(),
                words: spot.iter().map(|&p| words[p].clone()).collect(),
                position: pos,
                hash: self.hash_spot(k, &terms, spot),
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
