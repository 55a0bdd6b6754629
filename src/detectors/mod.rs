//! Every near-duplicate detector, one file each, behind one trait ([`Detector`]), listed in one
//! registry ([`Algo`], this file) from which the CLI's `--algo`, the workbench's Run panel, the
//! sweeps, the tests and the benchmarks take their lists.
//!
//! Documents in, an immutable [`Detection`] out (scored pairs, declarations, clusters), in two
//! steps so the expensive part is done once: [`Detector::prepare`] (tokenize and sign, parallel
//! over documents) and [`Prepared::detect`] (one matching run for a [`RunSpec`]).
//!
//! Which one should you use?
//!
//! | `--algo` | what it finds | paper | score in `[0, 1]` |
//! | --- | --- | --- | --- |
//! | `spotsigs` | the same story in different frames (same core) | Workbench paper; SIGIR 2008 | multiset Jaccard of spot signatures |
//! | `shingles` | near-identical pages (mirrors, recrawls) | Henzinger §2, Alg. B | equal supershingles / `m'` |
//! | `minhash` | pages sharing most word shingles | Broder; Indyk–Motwani | Jaccard estimate |
//! | `simhash` | near-identical pages by term weights | Henzinger §2, §3.3, Alg. C | agreeing bits / 384 |
//! | `simhash64` | the same, 64 bits | Manku et al. 2007 | agreeing bits / 64 |
//! | `combined` | Alg. B pairs confirmed by Alg. C | Henzinger §3.5 | agreeing bits / 384 |
//! | `chunks` | exact copies, then pages sharing chunks | Shivakumar & Garcia-Molina §2 | shared / smaller chunk count |
//! | `projection` | similar bags of words with similar links | Di Iorio et al. §2–3 | `1 − ‖ΔR‖∞` |
//!
//! On same-core news pages (goldset-dev: one story in many sites' frames) none of the others
//! comes near SpotSigs (pairwise F1 0.93): MinHash-LSH on 4-word shingles of the text is the best
//! of them (0.75 at Jaccard 0.12, mean of 5 signature seeds, 0.70–0.83), then 4-word chunks
//! (0.61), Alg. C at 0.80 (0.54), projection (0.29), simhash64 (0.32); Alg. B and the combined
//! algorithm, built to find pages that are *almost identical*, find next to nothing there
//! (F1 < 0.01) — as Henzinger's paper predicts for pages whose frames differ. Use them for what
//! they were made for: mirrors, recrawls and URL-only differences (`benches/henzinger_counts.rs`
//! prints Henzinger's breakdowns of [`report`] for them).
//!
//! SpotSigs runs every matching [`Mode`]; the others find *all* pairs at or above their
//! threshold that their candidate scheme reaches and make declarations as Incremental (or
//! Seeded) matching would from those pairs ([`scored::detection_from_pairs`]), so they support
//! Incremental, Seeded and AllPairs, and refuse Full.
//!
//! ## Adding a detector
//! Write `src/detectors/<name>.rs` with its options (`Default` = the paper's or the tuned
//! values), a [`Detector`] and a [`Prepared`] (most reuse [`scored::ScoredPrepared`]) and a
//! `pub const INFO: DetectorInfo`; then add it here: a `pub mod`, a variant of [`Algo`] with
//! its entry in [`Algo::ALL`] and [`Algo::info`], its options in [`DetectorOptions`] and its
//! arm in [`detector`]. `tests/detectors.rs` loops over [`Algo::ALL`]; add a test of what it
//! finds.

pub mod chunks;
pub mod combined;
pub mod detection;
pub mod distributed;
pub mod exact;
pub mod minhash;
pub mod projection;
pub mod report;
pub mod scored;
pub mod shingles;
pub mod simhash;
pub mod simhash64;
pub mod spotsigs;
pub mod spotsigs_reference;
mod spotsigs_reference_match;

use serde::{Deserialize, Serialize};

pub use detection::{Detection, Detector, Prepared, RunSpec};

use crate::matching::Mode;
use crate::signature::SpotSigsParams;
use crate::{Error, Result};

/// What the registry knows of a detector without building it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectorInfo {
    /// Command-line name (`--algo`).
    pub name: &'static str,
    /// What it finds, in one line, for `--help` and the Run panel.
    pub finds: &'static str,
    /// What its score means (the scale its threshold is on).
    pub score: &'static str,
    /// The threshold used when none is given, chosen on goldset-dev (best pairwise F1).
    pub default_threshold: f64,
    /// The threshold its paper uses, on this detector's scale.
    pub paper_threshold: f64,
    /// The matching modes it supports; any other is refused.
    pub modes: &'static [Mode],
}

/// The modes of a detector that scores every candidate pair (all but SpotSigs).
pub const PAIR_MODES: &[Mode] = &[Mode::Incremental, Mode::Seeded, Mode::AllPairs];

/// Every detector samecore knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Algo {
    /// SpotSigs ([`spotsigs`]).
    SpotSigs,
    /// Broder shingling, Henzinger's Alg. B ([`shingles`]).
    Shingles,
    /// MinHash + LSH bands ([`minhash`]).
    MinHash,
    /// Charikar random projections, Henzinger's Alg. C, 384 bits ([`simhash`]).
    Simhash,
    /// 64-bit simhash with permuted tables ([`simhash64`]).
    Simhash64,
    /// Henzinger's combined algorithm ([`combined`]).
    Combined,
    /// Exact and chunk overlap ([`chunks`]).
    Chunks,
    /// Random projection + Hyperlink Map ([`projection`]).
    Projection,
    /// The published SpotSigs Java code, reproduced ([`spotsigs_reference`]).
    SpotSigsReference,
}

impl Algo {
    /// Every algorithm, for loops in the CLI, the workbench, tests and benchmarks.
    pub const ALL: [Algo; 9] = [
        Algo::SpotSigs,
        Algo::Shingles,
        Algo::MinHash,
        Algo::Simhash,
        Algo::Simhash64,
        Algo::Combined,
        Algo::Chunks,
        Algo::Projection,
        Algo::SpotSigsReference,
    ];

    /// Its registry entry.
    pub fn info(self) -> &'static DetectorInfo {
        match self {
            Algo::SpotSigs => &spotsigs::INFO,
            Algo::Shingles => &shingles::INFO,
            Algo::MinHash => &minhash::INFO,
            Algo::Simhash => &simhash::INFO,
            Algo::Simhash64 => &simhash64::INFO,
            Algo::Combined => &combined::INFO,
            Algo::Chunks => &chunks::INFO,
            Algo::Projection => &projection::INFO,
            Algo::SpotSigsReference => &spotsigs_reference::INFO,
        }
    }

    /// Command-line name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The threshold used when none is given, chosen on goldset-dev.
    pub fn default_threshold(self) -> f64 {
        self.info().default_threshold
    }

    /// The default link rules ([`crate::matching::MatchParams::link_share`] and
    /// [`crate::matching::MatchParams::cross_links`]): measured for SpotSigs
    /// ([`crate::matching::DEFAULT_LINK_SHARE`], [`crate::matching::DEFAULT_CROSS_LINKS`]);
    /// none (the paper: every pair at the threshold links, every link holds) for the others,
    /// whose scores run on other scales, and for the published SpotSigs code.
    pub fn default_link_rules(self) -> crate::matching::LinkRules {
        if self == Algo::SpotSigs {
            crate::matching::LinkRules {
                share: crate::matching::DEFAULT_LINK_SHARE,
                refused_stays_alone: true,
                cross_links: crate::matching::DEFAULT_CROSS_LINKS,
            }
        } else {
            crate::matching::LinkRules::default()
        }
    }

    /// Which signatures are too common to count as shared by default
    /// ([`crate::matching::MatchParams::common`]): `auto` for SpotSigs, off for the others
    /// (and for the published code's reproduction).
    pub fn default_common(self) -> crate::matching::CommonLimit {
        if self == Algo::SpotSigs {
            crate::matching::CommonLimit::Auto
        } else {
            crate::matching::CommonLimit::Off
        }
    }

    /// The threshold of the algorithm's paper, on this detector's scale.
    pub fn paper_threshold(self) -> f64 {
        self.info().paper_threshold
    }

    /// Whether it runs in `mode`.
    pub fn supports(self, mode: Mode) -> bool {
        self.info().modes.contains(&mode)
    }
}

impl std::str::FromStr for Algo {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Algo::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                let known: Vec<&str> = Algo::ALL.iter().map(|a| a.name()).collect();
                Error::InvalidParameter(format!(
                    "unknown algorithm {s:?} (known: {})",
                    known.join(", ")
                ))
            })
    }
}

/// Parameters of every detector; each reads its own field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DetectorOptions {
    /// SpotSigs signature parameters.
    pub spotsigs: SpotSigsParams,
    /// Alg. B.
    pub shingles: shingles::ShinglesOptions,
    /// MinHash + LSH.
    pub minhash: minhash::MinHashOptions,
    /// Alg. C (384 bits).
    pub simhash: simhash::SimhashOptions,
    /// 64-bit simhash.
    pub simhash64: simhash::SimhashOptions,
    /// The combined algorithm.
    pub combined: combined::CombinedOptions,
    /// Chunk overlap.
    pub chunks: chunks::ChunksOptions,
    /// Random projection + Hyperlink Map.
    pub projection: projection::ProjectionOptions,
    /// The published SpotSigs code.
    pub spotsigs_reference: spotsigs_reference::ReferenceOptions,
}

impl DetectorOptions {
    /// The options `algo` reads, as JSON: what identifies its prepared signatures (a cache
    /// key) and what a project stores with a run.
    pub fn of(&self, algo: Algo) -> serde_json::Value {
        let v = match algo {
            Algo::SpotSigs => serde_json::to_value(&self.spotsigs),
            Algo::Shingles => serde_json::to_value(&self.shingles),
            Algo::MinHash => serde_json::to_value(&self.minhash),
            Algo::Simhash => serde_json::to_value(&self.simhash),
            Algo::Simhash64 => serde_json::to_value(&self.simhash64),
            Algo::Combined => serde_json::to_value(&self.combined),
            Algo::Chunks => serde_json::to_value(&self.chunks),
            Algo::Projection => serde_json::to_value(&self.projection),
            Algo::SpotSigsReference => serde_json::to_value(&self.spotsigs_reference),
        };
        // Plain structs of numbers, strings and enums: serialising cannot fail.
        v.unwrap_or(serde_json::Value::Null)
    }
}

/// The detector for `algo` with its part of `options`, parameters checked. Every detector but
/// `spotsigs-reference` keeps identical pages together ([`exact`]; SpotSigs does it in
/// [`spotsigs::SpotSigsDetector::prepare_raw`]).
pub fn detector(algo: Algo, options: &DetectorOptions) -> Result<Box<dyn Detector>> {
    let exact = |d: Box<dyn Detector>| -> Box<dyn Detector> { Box::new(ExactFirst(d)) };
    Ok(match algo {
        Algo::SpotSigs => Box::new(spotsigs::SpotSigsDetector::new(&options.spotsigs)?),
        Algo::Shingles => exact(Box::new(shingles::ShinglesDetector::new(
            &options.shingles,
        )?)),
        Algo::MinHash => exact(Box::new(minhash::MinHashDetector::new(&options.minhash)?)),
        Algo::Simhash => exact(Box::new(simhash::SimhashDetector::new(&options.simhash)?)),
        Algo::Simhash64 => exact(Box::new(simhash64::detector(&options.simhash64)?)),
        Algo::Combined => exact(Box::new(combined::CombinedDetector::new(
            &options.combined,
        )?)),
        Algo::Chunks => exact(Box::new(chunks::ChunksDetector::new(&options.chunks)?)),
        Algo::Projection => exact(Box::new(projection::ProjectionDetector::new(
            &options.projection,
        )?)),
        Algo::SpotSigsReference => Box::new(spotsigs_reference::ReferenceDetector::new(
            &options.spotsigs_reference,
        )?),
    })
}

/// A detector whose runs keep identical pages together ([`exact`]).
struct ExactFirst(Box<dyn Detector>);

impl Detector for ExactFirst {
    fn algo(&self) -> Algo {
        self.0.algo()
    }

    fn prepare(
        &self,
        docs: &[crate::Document],
        progress: &crate::progress::Progress,
    ) -> Result<std::sync::Arc<dyn Prepared>> {
        Ok(exact::wrap(self.0.prepare(docs, progress)?, docs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algo_names_parse_and_have_defaults() {
        for a in Algo::ALL {
            assert_eq!(a.name().parse::<Algo>().ok(), Some(a));
            assert!((0.0..=1.0).contains(&a.default_threshold()));
            assert!((0.0..=1.0).contains(&a.paper_threshold()));
            assert!(a.supports(Mode::Incremental), "{a:?}");
            assert!(!a.info().finds.is_empty() && !a.info().score.is_empty());
        }
        assert!("nope".parse::<Algo>().is_err());
    }
}
