//! samecore: find **same-core** near-duplicate pages in web archives — the same story in a
//! different frame of ads and navigation — so a researcher codes a cluster once instead of
//! every copy.
//!
//! The pipeline, one module a stage:
//!
//! ```text
//! archive -> document -> token -> signature -> matching -> cluster -> eval
//! (WARC,ARC,  (ids,site, (markup, (SpotSigs,  (incremental, (groups,   (pairwise,
//!  WACZ,dir)   charset)   visible) shingles..) full, all-pairs) reps)   doc-level, B³)
//! ```
//!
//! [`engine`] runs stages as jobs with progress and cancel; the `samecore` binary is a thin CLI
//! and (feature `gui`) the egui workbench over the same library. The library never depends on
//! egui outside [`gui`].

pub mod agreement;
pub mod archive;
pub mod calendar;
pub mod cluster;
pub mod codebook;
pub mod coding;
pub mod dates;
pub mod detectors;
pub mod document;
pub mod engine;
pub mod error;
pub mod eval;
pub mod export;
pub mod guard;
#[cfg(feature = "gui")]
pub mod gui;
pub mod headline;
pub mod history;
pub mod labels;
pub mod matching;
pub mod package;
pub mod passages;
pub mod progress;
pub mod safe_view;
pub mod search;
pub mod session;
pub mod signature;
pub mod store;
pub mod synth;
pub mod terminal;
pub mod token;
pub mod union_find;

pub use document::{DocId, Document};
pub use error::{Error, Result};
