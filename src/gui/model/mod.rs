//! The workbench's view-model: what the views show, computed off the UI thread by jobs and
//! handed over as immutable snapshots. Plain data and logic, no egui: the opened archives with
//! their gold and detector runs as the workbench shows them ([`workspace`], over the
//! library's [`crate::session::Session`]), a pair compared side by side ([`pair`]), the
//! corpus word statistics of the Antecedents tab ([`vocabulary`]), what changed between two
//! runs of a detector ([`changes`]).

pub mod changes;
pub mod pair;
pub mod shares;
pub mod vocabulary;
pub mod workspace;

pub use workspace::{AlgoRun, RunReport, RunRequest, Workspace};
