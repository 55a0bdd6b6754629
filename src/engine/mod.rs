//! Jobs: progress, cancel and the wake callback through which the engine tells a watcher
//! (GUI or CLI) there is news, without ever knowing who watches; and the workspace the
//! workbench drives (opened archives, detector runs, pair comparisons, word statistics).

pub mod job;
pub mod pair;
pub mod vocabulary;
pub mod workspace;

pub use crate::progress::{Progress, ProgressSnapshot};
pub use job::Job;
pub use workspace::{AlgoRun, PreparedCache, RunReport, RunRequest, Workspace};
