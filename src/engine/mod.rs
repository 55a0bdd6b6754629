//! Jobs: progress, cancel and the wake callback through which the engine tells a watcher
//! (GUI or CLI) there is news, without ever knowing who watches.

pub mod job;
pub mod progress;

pub use job::Job;
pub use progress::{Progress, ProgressSnapshot};
