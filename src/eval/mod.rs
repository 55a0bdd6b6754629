//! Evaluation: clusterings and gold clusters in, the three metrics of DESIGN.md out, for one run
//! or a sweep over thresholds × seeds.
//!
//! - [`metrics`]: pairwise P/R/F1, the Workbench paper's document-level P/R (§3.2) and B-cubed
//!   P/R/F1, all computed on a [`crate::cluster::Clustering`].
//! - [`gold`]: gold clusters from folder names ([`crate::Document::gold`]) or a `doc,cluster`
//!   TSV/CSV file.
//! - [`sweep`]: many runs (threshold × seed) on the rayon pool with mean and standard deviation,
//!   identical whatever the thread count.

pub mod gold;
pub mod metrics;
pub mod sweep;

pub use gold::GoldStandard;
pub use metrics::{Metrics, Prf, evaluate};
pub use sweep::{Aggregate, SweepRow, parse_thresholds, sweep};
