//! Chunk overlap (Shivakumar & Garcia-Molina, WebDB 1998) and random projection + Hyperlink Map
//! (Di Iorio et al. 2003) as detectors: documents in, [`Prepared`] collections out.
//!
//! - `chunks`: exact copies first (identity sets by the whole-document fingerprint, §2.2 steps
//!   1–2), then pairs of set centers sharing at least `T` chunks (sort-based or coarse counting);
//!   score = shared chunks / the smaller document's distinct chunks, 1 for exact copies. Every
//!   member of an identity set is paired with the others and inherits its center's pairs, so the
//!   output is the same as if copies had not been removed.
//! - `projection`: RP and HM signatures; a run collides pages with `D = 1 − threshold` and the
//!   fixed HM tolerance `C`; score = `1 − ‖R_a − R_b‖∞`.

use std::sync::Arc;

use rayon::prelude::*;

use super::{
    LiteratureOptions, PairScorer, ScoredPrepared, candidate_counts, check_threshold,
    detection_from_pairs, scored, term_hashes,
};
use crate::detect::{Algo, Detection, Prepared, RunSpec};
use crate::engine::Progress;
use crate::matching::ScoredPair;
use crate::matching::chunk_overlap::{coarse_counting, identity_sets, sort_based};
use crate::signature::chunks::Chunking;
use crate::signature::projection::{
    colliding_pairs, hm_signatures, page_links, resolve_links, rp_signatures, sup_distance,
};
use crate::{DocId, Document, Result};

/// Per document: the whole-document fingerprint (none for a page without text).
type WholeFingerprints = Vec<Option<u64>>;

/// Per document: whole-document fingerprint and chunk fingerprints.
fn chunk_signatures(
    docs: &[Document],
    chunking: Chunking,
    progress: &Progress,
) -> Result<(WholeFingerprints, Vec<Vec<u64>>)> {
    progress.stage("chunks", docs.len() as u64);
    let out: Vec<(Option<u64>, Vec<u64>)> = docs
        .par_iter()
        .map(|d| {
            if progress.is_cancelled() {
                return (None, Vec::new());
            }
            let text = crate::token::strip::strip_tags(&d.html.text());
            let whole =
                crate::signature::chunks::chunk_fingerprints(&text, Chunking::WholeDocument);
            let chunks = if chunking == Chunking::WholeDocument {
                whole.clone()
            } else {
                crate::signature::chunks::chunk_fingerprints(&text, chunking)
            };
            progress.advance(1);
            (whole.first().copied(), chunks)
        })
        .collect();
    progress.check()?;
    Ok(out.into_iter().unzip())
}

/// Exact copies, then chunk overlap among identity-set centers.
pub fn prepare_chunks(
    docs: &[Document],
    o: &LiteratureOptions,
    progress: &Progress,
) -> Result<Arc<dyn Prepared>> {
    let (whole, chunks) = chunk_signatures(docs, o.chunking, progress)?;
    progress.stage("overlap", 0);
    let n = docs.len();
    let centers = identity_sets(&whole);
    let active: Vec<bool> = (0..n)
        .map(|d| centers[d] as usize == d && !chunks[d].is_empty())
        .collect();
    let overlaps = if o.chunk_buckets == 0 {
        sort_based(&chunks, &active, o.chunk_min_shared)
    } else {
        coarse_counting(
            &chunks,
            &active,
            o.chunk_min_shared,
            o.chunk_buckets,
            o.shingles.seed,
        )?
        .0
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
        n,
        unsigned: sets.iter().filter(|c| c.is_empty()).count(),
        pairs,
        scorer: PairScorer::Chunks { whole, sets },
    }))
}

/// RP and HM signatures of an archive.
#[derive(Debug, Clone)]
pub struct ProjectionPrepared {
    /// RP signature per document (empty for a page with no terms).
    pub rp: Vec<Vec<f64>>,
    /// HM signature per document (empty for a page with no terms).
    pub hm: Vec<Vec<f64>>,
    /// HM tolerance `C`.
    pub c: f64,
    /// Links resolved inside the archive, in total.
    pub links: usize,
}

/// Random projection + Hyperlink Map.
pub fn prepare_projection(
    docs: &[Document],
    o: &LiteratureOptions,
    progress: &Progress,
) -> Result<Arc<dyn Prepared>> {
    let tokens = term_hashes(docs, o.projection_tokens, progress)?;
    progress.stage("projection", 0);
    let mut rp = rp_signatures(&tokens, &o.projection)?;
    let links: Vec<Vec<String>> = docs
        .par_iter()
        .map(|d| {
            d.url
                .as_deref()
                .map_or_else(Vec::new, |u| page_links(&d.html.text(), u))
        })
        .collect();
    let urls: Vec<Option<String>> = docs.iter().map(|d| d.url.clone()).collect();
    let children = resolve_links(&urls, &links);
    let mut hm = hm_signatures(&rp, &children, &o.projection);
    for (d, t) in tokens.iter().enumerate() {
        if t.is_empty() {
            rp[d].clear();
            hm[d].clear();
        }
    }
    progress.check()?;
    Ok(Arc::new(ProjectionPrepared {
        rp,
        hm,
        c: o.projection.c,
        links: children.iter().map(Vec::len).sum(),
    }))
}

impl Prepared for ProjectionPrepared {
    fn algo(&self) -> Algo {
        Algo::Projection
    }

    fn len(&self) -> usize {
        self.rp.len()
    }

    fn unsigned(&self) -> usize {
        self.rp.iter().filter(|r| r.is_empty()).count()
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        check_threshold(spec)?;
        progress.stage("collisions", 0);
        let d = 1.0 - spec.matching.threshold;
        let found = colliding_pairs(&self.rp, &self.hm, self.c, d);
        progress.check()?;
        let counts = candidate_counts(self.len(), found.iter().map(|&(a, b, _)| (a, b)));
        let pairs = found
            .into_iter()
            .map(|(a, b, dr)| scored(a, b, 1.0 - dr))
            .collect();
        detection_from_pairs(Algo::Projection, spec, self.len(), pairs, &counts)
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let (ra, rb) = (self.rp.get(a.index())?, self.rp.get(b.index())?);
        if ra.is_empty() || rb.is_empty() {
            return None;
        }
        let within_c = sup_distance(&self.hm[a.index()], &self.hm[b.index()]) < self.c;
        within_c.then(|| 1.0 - sup_distance(ra, rb))
    }
}
