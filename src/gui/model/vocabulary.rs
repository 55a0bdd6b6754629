//! Corpus word statistics for choosing antecedents (Workbench paper §5.1, §6: "simple
//! exploratory word distribution statistics over a corpus are likely to prove helpful for
//! selecting antecedents"; a good antecedent set "covers most areas of all documents").
//!
//! For every frequent word: its occurrences, its **coverage** (share of pages containing it) and
//! its **spread** (on the pages containing it, the mean share of ten equal slices of the page
//! in which it occurs — 1.0 for a word found all through a page, 0.1 for one found in one
//! spot). Computed on a seeded sample of pages so that it stays quick on large archives.

use std::collections::HashMap;

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rayon::prelude::*;

use crate::Document;
use crate::progress::Progress;
use crate::token::TokenSource;

/// Statistics of one word.
#[derive(Debug, Clone, PartialEq)]
pub struct WordStat {
    /// The word (lowercased, as the tokenizer yields it).
    pub word: String,
    /// Occurrences in the sampled pages.
    pub occurrences: u64,
    /// Share of sampled pages containing the word.
    pub coverage: f64,
    /// Mean share of tenths of a page in which the word occurs (pages containing it).
    pub spread: f64,
}

/// Slices a page is cut into for [`WordStat::spread`].
const SLICES: usize = 10;

#[derive(Default)]
struct Acc {
    occurrences: u64,
    pages: u64,
    slices: u64,
}

/// Word statistics of up to `sample` pages of `docs` (seeded), the `top` words by coverage.
pub fn word_stats(
    docs: &[Document],
    tokens: TokenSource,
    sample: usize,
    top: usize,
    progress: &Progress,
) -> crate::Result<Vec<WordStat>> {
    let picked: Vec<&Document> = if docs.len() > sample {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed);
        docs.choose_multiple(&mut rng, sample).collect()
    } else {
        docs.iter().collect()
    };
    progress.stage("word statistics", picked.len() as u64);
    let merged = picked
        .par_iter()
        .map(|doc| -> crate::Result<HashMap<String, Acc>> {
            let mut local: HashMap<String, Acc> = HashMap::new();
            progress.check()?;
            let terms = tokens.terms(&crate::archive::page_text(doc)?, doc.url.as_deref());
            let n = terms.len().max(1);
            let mut seen: HashMap<&str, (u64, [bool; SLICES])> = HashMap::new();
            for (i, t) in terms.iter().enumerate() {
                let e = seen.entry(t.as_str()).or_insert((0, [false; SLICES]));
                e.0 += 1;
                e.1[(i * SLICES / n).min(SLICES - 1)] = true;
            }
            for (word, (count, slices)) in seen {
                let acc = local.entry(word.to_string()).or_default();
                acc.occurrences += count;
                acc.pages += 1;
                acc.slices += slices.iter().filter(|&&s| s).count() as u64;
            }
            progress.advance(1);
            Ok(local)
        })
        .try_reduce(HashMap::new, |mut a, b| {
            for (w, x) in b {
                let acc = a.entry(w).or_default();
                acc.occurrences += x.occurrences;
                acc.pages += x.pages;
                acc.slices += x.slices;
            }
            Ok(a)
        })?;
    let pages = picked.len().max(1) as f64;
    let mut stats: Vec<WordStat> = merged
        .into_iter()
        .map(|(word, acc)| WordStat {
            word,
            occurrences: acc.occurrences,
            coverage: acc.pages as f64 / pages,
            spread: acc.slices as f64 / (acc.pages.max(1) * SLICES as u64) as f64,
        })
        .collect();
    // Coverage first, then occurrences; the word breaks ties so the order is deterministic.
    stats.sort_by(|a, b| {
        b.coverage
            .total_cmp(&a.coverage)
            .then(b.occurrences.cmp(&a.occurrences))
            .then(a.word.cmp(&b.word))
    });
    stats.truncate(top);
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(html: &str) -> Document {
        Document::from_page(html, None, html)
    }

    #[test]
    fn coverage_and_spread_follow_the_definitions() {
        let a = "the a b c d e f g h i the j k l m n o p q r s the";
        let b = "the x y z";
        let docs = vec![doc(a), doc(b), doc("nothing here")];
        let stats = word_stats(&docs, TokenSource::Text, 100, 50, &Progress::new()).unwrap();
        let the = stats.iter().find(|s| s.word == "the").unwrap();
        assert_eq!(the.occurrences, 4);
        assert!((the.coverage - 2.0 / 3.0).abs() < 1e-9);
        // Page a: 22 terms, "the" at 0, 10 and 21 -> slices 0, 4, 9; page b: slice 0.
        assert!(
            (the.spread - (3.0 + 1.0) / 20.0).abs() < 1e-9,
            "{}",
            the.spread
        );
        assert_eq!(stats[0].word, "the");
    }
}
