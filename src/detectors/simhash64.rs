//! 64-bit simhash with permuted tables (Manku, Jain, Das Sarma, WWW 2007) as a detector: the
//! same bit strings as [`super::simhash`] at 64 bits, candidates from 6 blocks that find every
//! pair differing in at most 3 bits (the paper's `k = 3`). Score: agreeing bits / 64.

use super::simhash::{SimhashDetector, SimhashOptions};
use super::{Algo, DetectorInfo, PAIR_MODES};
use crate::Result;

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "simhash64",
    finds: "near-identical pages by their weighted terms (64 bits, permuted tables)",
    score: "agreeing bits / 64 of the pages' simhashes",
    default_threshold: 0.82,
    paper_threshold: 61.0 / 64.0,
    modes: PAIR_MODES,
};

/// The 64-bit detector.
pub fn detector(options: &SimhashOptions) -> Result<SimhashDetector> {
    Ok(SimhashDetector::with_bits(Algo::Simhash64, 64, options))
}
