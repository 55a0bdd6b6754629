//! Signatures: terms in, compact per-document signatures out, one file per scheme.
//!
//! - [`spotsigs`]: SpotSigs spot signatures (Workbench paper §3.1; Theobald et al. SIGIR 2008
//!   §3): antecedents with their own spot distances and chains, stopwords skipped.
//! - [`set`]: the collection-level step every multiset scheme shares — dense ids, the
//!   collection-IDF band filter, the minimum number of signatures, and the multiset Jaccard.
//!
//! Later schemes (shingles, simhash, chunks, projection) add a file here each.

pub mod chunks;
pub mod frame;
pub mod languages;
pub mod projection;
pub mod set;
pub mod shingles;
pub mod simhash;
pub mod spotsigs;

pub use set::{Counts, SignatureSet, SignedCollection, jaccard};
pub use spotsigs::{Antecedent, SpotSignature, SpotSigsParams};
