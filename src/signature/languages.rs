//! SpotSigs antecedents and stopwords for every language a page may be written in.
//!
//! The SIGIR 2008 paper (§3) takes as antecedents frequent function words spread evenly over a
//! text — articles and forms of *be, can, will, have, do* — and counts spot distances over
//! non-stopwords. Both are English there. Here every language of the EU, Russian, Ukrainian,
//! Turkish, Arabic, Chinese, Japanese and Korean has its own set, chosen by the same rule
//! (`assets/antecedents/<code>.txt`, each file saying what it holds: articles and auxiliaries
//! where the language has them, else its commonest free-standing function words), and its
//! stopwords from the stopwords-iso lists (crate `stop-words`; Maltese has none there, so its
//! antecedents are its stopwords). English keeps the paper's set and the bundled stopword list
//! (`assets/antecedents.txt`, `assets/stopwords.txt`), tuned on goldset-dev.
//!
//! A page takes the set of its language ([`crate::token::language`]); a page of another
//! language, or of none identified, takes the run's main set ([`super::SpotSigsParams`]'s
//! `antecedents`, English by default). An antecedent is always a stopword of its language too,
//! so that it is never counted as another antecedent's spot word.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::spotsigs::{
    Antecedent, DEFAULT_ANTECEDENTS, DEFAULT_CHAIN, DEFAULT_DISTANCE, DEFAULT_STOPWORDS, word_list,
};

/// One bundled language: its code, its English name and its antecedent file.
struct Bundled {
    code: &'static str,
    name: &'static str,
    antecedents: &'static str,
}

macro_rules! bundled {
    ($($code:literal $name:literal),* $(,)?) => {
        &[$(Bundled {
            code: $code,
            name: $name,
            antecedents: include_str!(concat!("../../assets/antecedents/", $code, ".txt")),
        }),*]
    };
}

/// Every language with its own bundled set, by code (English is the main set).
const BUNDLED: &[Bundled] = bundled![
    "ar" "Arabic", "bg" "Bulgarian", "cs" "Czech", "da" "Danish", "de" "German",
    "el" "Greek", "es" "Spanish", "et" "Estonian", "fi" "Finnish", "fr" "French",
    "ga" "Irish", "hr" "Croatian", "hu" "Hungarian", "it" "Italian", "ja" "Japanese",
    "ko" "Korean", "lt" "Lithuanian", "lv" "Latvian", "mt" "Maltese", "nl" "Dutch",
    "pl" "Polish", "pt" "Portuguese", "ro" "Romanian", "ru" "Russian", "sk" "Slovak",
    "sl" "Slovene", "sv" "Swedish", "tr" "Turkish", "uk" "Ukrainian", "zh" "Chinese",
];

/// The codes of every language with a set of its own, English first.
pub fn codes() -> Vec<&'static str> {
    std::iter::once("en")
        .chain(BUNDLED.iter().map(|b| b.code))
        .collect()
}

/// The English name of a language code ("de" → "German"), the code itself if unknown.
pub fn name(code: &str) -> &str {
    if code == "en" {
        return "English";
    }
    BUNDLED
        .iter()
        .find(|b| b.code == code)
        .map_or(code, |b| b.name)
}

/// One language's antecedents and stopwords.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LanguageSet {
    /// Antecedents with their spot distances.
    pub antecedents: Vec<Antecedent>,
    /// Words skipped when counting the distance to a spot word.
    pub stopwords: Vec<String>,
}

impl LanguageSet {
    /// The bundled set of `code`, bare antecedents taking `distances`; `None` for a language
    /// without one. English is the paper's set.
    pub fn bundled(code: &str, distances: &[u32]) -> Option<LanguageSet> {
        if code == "en" {
            return Some(LanguageSet {
                antecedents: Antecedent::parse_list(DEFAULT_ANTECEDENTS, distances).ok()?,
                stopwords: word_list(DEFAULT_STOPWORDS),
            });
        }
        let b = BUNDLED.iter().find(|b| b.code == code)?;
        // The bundled files are checked by a unit test, so this does not fail at run time.
        let antecedents = Antecedent::parse_list(b.antecedents, distances).ok()?;
        // Through the tokenizer, so a list's spelling meets a page's terms; a stopword the
        // tokenizer splits (a multi-character Chinese word, `aujourd'hui`) is no single term
        // and is left out rather than making its pieces stopwords.
        let mut stopwords: Vec<String> = Vec::new();
        for w in stop_words::lookup(code).unwrap_or_default() {
            let terms = crate::token::markup::terms(w);
            if let [one] = terms.as_slice() {
                stopwords.push(one.clone());
            }
        }
        stopwords.extend(antecedents.iter().map(|a| a.word.clone()));
        stopwords.sort();
        stopwords.dedup();
        Some(LanguageSet {
            antecedents,
            stopwords,
        })
    }
}

/// Per-language sets of a run: the bundled ones, with the languages a person edited replaced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Languages {
    /// Spot distances of a bundled antecedent written without them (the run's `--distance`
    /// and `--chain`).
    #[serde(default = "default_distances")]
    pub distances: Vec<u32>,
    /// Sets that replace the bundled set of their language, by code.
    #[serde(default)]
    pub edited: BTreeMap<String, LanguageSet>,
}

fn default_distances() -> Vec<u32> {
    vec![DEFAULT_DISTANCE; DEFAULT_CHAIN]
}

impl Default for Languages {
    fn default() -> Self {
        Languages {
            distances: default_distances(),
            edited: BTreeMap::new(),
        }
    }
}

impl Languages {
    /// The set pages of `code` take: the edited one, else the bundled one.
    pub fn set(&self, code: &str) -> Option<LanguageSet> {
        match self.edited.get(code) {
            Some(s) => Some(s.clone()),
            None => LanguageSet::bundled(code, &self.distances),
        }
    }

    /// Every language with a set (bundled or edited), sorted by code.
    pub fn codes(&self) -> Vec<String> {
        let mut c: Vec<String> = codes().into_iter().map(String::from).collect();
        c.extend(self.edited.keys().cloned());
        c.sort();
        c.dedup();
        c
    }

    /// Replace the set of `code` (`None`: back to the bundled one).
    pub fn edit(&mut self, code: &str, set: Option<LanguageSet>) {
        match set {
            Some(s) => {
                self.edited.insert(code.to_string(), s);
            }
            None => {
                self.edited.remove(code);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_set_parses_and_its_antecedents_are_stopwords() {
        for code in codes() {
            let set = LanguageSet::bundled(code, &[1]).unwrap_or_else(|| panic!("{code}"));
            assert!(
                set.antecedents.len() >= 7,
                "{code}: {}",
                set.antecedents.len()
            );
            for a in &set.antecedents {
                assert!(set.stopwords.contains(&a.word), "{code}: {}", a.word);
                assert_eq!(a.word, a.word.to_lowercase(), "{code}");
            }
            assert_ne!(name(code), code, "{code} has a name");
        }
        assert_eq!(codes().len(), 31);
        // CJK terms are single characters: their signatures chain two spot characters.
        let zh = LanguageSet::bundled("zh", &[1]).unwrap();
        assert!(zh.antecedents.iter().all(|a| a.distances == [1, 1]));
        assert!(LanguageSet::bundled("xx", &[1]).is_none());
    }

    #[test]
    fn an_edited_set_replaces_the_bundled_one() {
        let mut l = Languages::default();
        let mine = LanguageSet {
            antecedents: Antecedent::parse_list("der", &[2]).unwrap(),
            stopwords: vec!["der".into()],
        };
        l.edit("de", Some(mine.clone()));
        assert_eq!(l.set("de"), Some(mine));
        l.edit("de", None);
        assert_eq!(l.set("de").unwrap().antecedents.len(), 28);
    }
}
