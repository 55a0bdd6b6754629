//! Exact and chunk overlap (Shivakumar & Garcia-Molina, WebDB 1998) as a detector: page text
//! in, a whole-document fingerprint and chunk fingerprints out
//! ([`crate::signature::chunks`]: lines, 2- or 4-line chunks, or word chunks).
//!
//! Exact copies first (identity sets by the whole-document fingerprint, §2.2 steps 1–2), then
//! pairs of set centers sharing at least `T` chunks (sort-based or coarse counting,
//! [`crate::matching::chunk_overlap`]); score = shared chunks / the smaller document's distinct
//! chunks, 1 for exact copies. Every member of an identity set is paired with the others and
//! inherits its center's pairs, so the output is the same as if copies had not been removed.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::scored::{PairScore, ScoredPrepared, scored};
use super::{Algo, Detector, DetectorInfo, PAIR_MODES, Prepared};
use crate::matching::ScoredPair;
use crate::matching::chunk_overlap::{coarse_counting, identity_sets, shared_count, sort_based};
use crate::progress::Progress;
use crate::signature::chunks::Chunking;
use crate::{Document, Result};

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "chunks",
    finds: "exact copies, then pages sharing runs of words (quoted or syndicated passages)",
    score: "shared chunks / the smaller page's distinct chunks (1 for exact copies)",
    default_threshold: 0.04,
    paper_threshold: 0.0,
    modes: PAIR_MODES,
};

/// Parameters of chunk overlap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunksOptions {
    /// How a page is cut into chunks.
    pub chunking: Chunking,
    /// Minimum shared chunks `T`.
    pub min_shared: u32,
    /// Counters of coarse counting; 0 uses the sort-based method.
    pub buckets: usize,
    /// Seed of coarse counting's hash.
    pub seed: u64,
}

impl Default for ChunksOptions {
    fn default() -> Self {
        ChunksOptions {
            chunking: Chunking::Words(4),
            min_shared: 3,
            buckets: 0,
            seed: 0,
        }
    }
}

/// Chunk overlap behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct ChunksDetector {
    options: ChunksOptions,
}

impl ChunksDetector {
    /// A detector with these parameters, checked.
    pub fn new(options: &ChunksOptions) -> Result<Self> {
        options.chunking.validate()?;
        Ok(ChunksDetector {
            options: options.clone(),
        })
    }
}

/// Scores a pair: 1 for exact copies, else shared distinct chunks / the smaller distinct count.
#[derive(Debug, Clone)]
pub struct ChunkSets {
    /// Whole-document fingerprints.
    pub whole: Vec<Option<u64>>,
    /// Distinct chunk fingerprints, sorted.
    pub sets: Vec<Vec<u64>>,
}

impl PairScore for ChunkSets {
    fn score(&self, a: usize, b: usize) -> Option<f64> {
        let (x, y) = (self.sets.get(a)?, self.sets.get(b)?);
        if x.is_empty() || y.is_empty() {
            return None;
        }
        if self.whole[a].is_some() && self.whole[a] == self.whole[b] {
            return Some(1.0);
        }
        Some((f64::from(shared_count(x, y)) / x.len().min(y.len()) as f64).min(1.0))
    }
}

/// Per document: the whole-document fingerprint (none for a page without text).
type WholeFingerprints = Vec<Option<u64>>;

/// Per document: whole-document fingerprint and chunk fingerprints.
fn chunk_signatures(
    docs: &[Document],
    chunking: Chunking,
    progress: &Progress,
) -> Result<(WholeFingerprints, Vec<Vec<u64>>)> {
    progress.stage("chunks", docs.len() as u64);
    let out = crate::archive::map_pages(docs, progress, |_, html| {
        let text = crate::token::strip::strip_tags(html);
        let whole = crate::signature::chunks::chunk_fingerprints(&text, Chunking::WholeDocument);
        let chunks = if chunking == Chunking::WholeDocument {
            whole.clone()
        } else {
            crate::signature::chunks::chunk_fingerprints(&text, chunking)
        };
        (whole.first().copied(), chunks)
    })?;
    Ok(out.into_iter().unzip())
}

impl Detector for ChunksDetector {
    fn algo(&self) -> Algo {
        Algo::Chunks
    }

    /// Exact copies, then chunk overlap among identity-set centers.
    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        let o = &self.options;
        let (whole, chunks) = chunk_signatures(docs, o.chunking, progress)?;
        let pairs = overlap_pairs(&whole, &chunks, o, progress)?;
        let sets = chunks
            .into_iter()
            .map(|mut c| {
                c.sort_unstable();
                c.dedup();
                c
            })
            .collect::<Vec<_>>();
        Ok(Arc::new(ScoredPrepared {
            algo: Algo::Chunks,
            n: docs.len(),
            unsigned: sets.iter().filter(|c| c.is_empty()).count(),
            pairs,
            scorer: ChunkSets { whole, sets },
        }))
    }
}

/// Every pair of copies (score 1) and of pages sharing at least `T` chunks, handed down from
/// identity-set centers to their members, sorted by ids.
fn overlap_pairs(
    whole: &[Option<u64>],
    chunks: &[Vec<u64>],
    o: &ChunksOptions,
    progress: &Progress,
) -> Result<Vec<ScoredPair>> {
    progress.stage("overlap", 0);
    let n = whole.len();
    let centers = identity_sets(whole);
    let active: Vec<bool> = (0..n)
        .map(|d| centers[d] as usize == d && !chunks[d].is_empty())
        .collect();
    let overlaps = if o.buckets == 0 {
        sort_based(chunks, &active, o.min_shared)
    } else {
        coarse_counting(chunks, &active, o.min_shared, o.buckets, o.seed)?.0
    };
    progress.check()?;
    let distinct: Vec<u32> = chunks
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.sort_unstable();
            c.dedup();
            c.len() as u32
        })
        .collect();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (d, &c) in centers.iter().enumerate() {
        members[c as usize].push(d as u32);
    }
    let mut pairs: Vec<ScoredPair> = Vec::new();
    // Exact copies: every pair inside an identity set.
    for set in members.iter().filter(|m| m.len() > 1) {
        for (i, &a) in set.iter().enumerate() {
            for &b in &set[i + 1..] {
                pairs.push(scored(a, b, 1.0));
            }
        }
    }
    // Overlaps between centers, handed down to every member of both sets.
    for ov in &overlaps {
        let smaller = distinct[ov.a as usize].min(distinct[ov.b as usize]).max(1);
        let score = (f64::from(ov.shared) / f64::from(smaller)).min(1.0);
        for &a in &members[ov.a as usize] {
            for &b in &members[ov.b as usize] {
                pairs.push(scored(a, b, score));
            }
        }
    }
    pairs.sort_by_key(|p| (p.a, p.b));
    Ok(pairs)
}
