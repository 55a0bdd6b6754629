//! Human evaluation of detected pairs, as in henzinger §3.1–3.3: sample a run's pairs, have
//! people judge them correct / incorrect / undecided with a reason, and turn the judgements
//! into precision estimates when an archive has no gold clusters.
//!
//! - [`sample`]: uniform and stratified (similarity band × same / different site) samples,
//!   reproducible by seed.
//! - [`stats`]: Wilson intervals, stratified precision weighted by stratum sizes, Cohen's kappa
//!   between two annotators and the list of disagreements to settle.
//! - [`termdiff`]: the term difference of a pair (henzinger Figures 2 and 4).
//!
//! The labels themselves ([`Verdict`], [`Reason`], [`LabelInput`]) and samples are data of the
//! project file, defined in [`crate::store::judgements`] and re-exported here; this module
//! computes with them (labels sit above the store: they import it, it never imports them).

pub mod estimate;
pub mod sample;
pub mod stats;
pub mod termdiff;

pub use crate::store::judgements::{LabelInput, Reason, Verdict};
