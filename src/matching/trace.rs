//! Instrumentation of a matching run — what the Workbench paper plots: colliding documents and
//! time per document (§4, Fig. 15), index size every k documents (§5.3.1, Fig. 23), comparisons
//! made and avoided by the length bound (§4, Figs. 16–17), and, with gold clusters, mistakes per
//! batch of documents (§5.3.2, Figs. 24–25).

use serde::{Deserialize, Serialize};

use crate::DocId;

/// What happened to one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocTrace {
    /// The document.
    pub doc: DocId,
    /// Distinct indexed documents sharing at least one signature with it.
    pub colliding: u32,
    /// Similarity computations made.
    pub compared: u32,
    /// Comparisons skipped: colliding documents outside the length bound (Incremental, Seeded,
    /// Full), or index entries skipped by the size partitions plus candidates dropped by the
    /// early-termination bound (all-pairs).
    pub avoided: u32,
    /// Time spent on the document, in nanoseconds (the only non-deterministic field).
    pub nanos: u64,
}

impl DocTrace {
    /// A document's entry before any work is counted.
    pub fn new(doc: DocId) -> DocTrace {
        DocTrace {
            doc,
            colliding: 0,
            compared: 0,
            avoided: 0,
            nanos: 0,
        }
    }
}

/// Mistakes in one batch of consecutive documents in processing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchMistakes {
    /// Position in processing order of the batch's first document.
    pub start: usize,
    /// Documents in the batch.
    pub len: usize,
    /// Declared a duplicate of a document of another gold cluster (or of none).
    pub false_positives: usize,
    /// Declared unique although a document of its gold cluster came earlier.
    pub false_negatives: usize,
}

/// A run's instrumentation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// One entry per document, in processing order (all-pairs: signed documents in ascending
    /// signature count, the order it walks them).
    pub docs: Vec<DocTrace>,
    /// `(documents processed, documents in the index)`, every `index_every` documents and at
    /// the end.
    pub index_size: Vec<(usize, usize)>,
    /// What a common-signature limit did ([`super::MatchParams::common`]).
    #[serde(default)]
    pub common: super::CommonUse,
}

impl Trace {
    /// Total similarity computations.
    pub fn comparisons(&self) -> u64 {
        self.docs.iter().map(|d| u64::from(d.compared)).sum()
    }

    /// Total comparisons avoided.
    pub fn avoided(&self) -> u64 {
        self.docs.iter().map(|d| u64::from(d.avoided)).sum()
    }

    /// Total colliding documents met.
    pub fn collisions(&self) -> u64 {
        self.docs.iter().map(|d| u64::from(d.colliding)).sum()
    }

    /// Final index size in documents.
    pub fn final_index_size(&self) -> usize {
        self.index_size.last().map_or(0, |&(_, s)| s)
    }

    /// Mistakes per batch of `batch` documents in processing order, judged against `gold`
    /// (cluster per document; `None` = no gold, never a mistake): `matched[d]` is what the run
    /// declared `d` a duplicate of.
    pub fn mistakes_per_batch(
        &self,
        matched: &[Option<DocId>],
        gold: &[Option<u32>],
        batch: usize,
    ) -> Vec<BatchMistakes> {
        let batch = batch.max(1);
        let mut seen_cluster = std::collections::HashSet::new();
        let mut out: Vec<BatchMistakes> = Vec::new();
        for (i, t) in self.docs.iter().enumerate() {
            if i % batch == 0 {
                out.push(BatchMistakes {
                    start: i,
                    len: 0,
                    false_positives: 0,
                    false_negatives: 0,
                });
            }
            let Some(b) = out.last_mut() else { continue };
            b.len += 1;
            let g = gold.get(t.doc.index()).copied().flatten();
            match (matched.get(t.doc.index()).copied().flatten(), g) {
                (Some(of), Some(g)) if gold.get(of.index()).copied().flatten() != Some(g) => {
                    b.false_positives += 1
                }
                (None, Some(g)) if seen_cluster.contains(&g) => b.false_negatives += 1,
                _ => {}
            }
            if let Some(g) = g {
                seen_cluster.insert(g);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(doc: u32) -> DocTrace {
        DocTrace {
            doc: DocId(doc),
            colliding: 2,
            compared: 1,
            avoided: 1,
            nanos: 0,
        }
    }

    #[test]
    fn totals_and_mistakes() {
        let trace = Trace {
            docs: vec![t(0), t(1), t(2), t(3)],
            index_size: vec![(4, 2)],
            ..Trace::default()
        };
        assert_eq!(
            (trace.comparisons(), trace.avoided(), trace.collisions()),
            (4, 4, 8)
        );
        assert_eq!(trace.final_index_size(), 2);
        // gold: 0,1 in A; 2,3 in B. 1 -> 0 right; 2 -> 0 wrong; 3 unique though 2 came before.
        let matched = [None, Some(DocId(0)), Some(DocId(0)), None];
        let gold = [Some(0), Some(0), Some(1), Some(1)];
        let m = trace.mistakes_per_batch(&matched, &gold, 2);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].false_positives, m[0].false_negatives), (0, 0));
        assert_eq!((m[1].false_positives, m[1].false_negatives), (1, 1));
    }
}
