//! The workbench's running jobs in one table keyed by what they do, so "is anything busy",
//! the progress bars, cancel and polling go over the table instead of listing fields by hand.
//!
//! In: work closures started with a [`JobKind`]. Out: each finished job once, as its kind and
//! its [`JobOutput`] (or the error, a panic included: see [`crate::engine::job`]). Starting a
//! job of a kind that is running cancels the old one; the newest wins.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::model::pair::PairComparison;
use super::model::vocabulary::WordStat;
use super::model::{AlgoRun, RunReport, Workspace};
use super::project::Waker;
use crate::engine::Job;
use crate::eval::sweep::SweepRow;
use crate::progress::Progress;

/// What a job does; at most one of each runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum JobKind {
    /// Read archives into a workspace.
    Load,
    /// Run the chosen detectors.
    Run,
    /// Precision/recall curves of the runs.
    Sweep,
    /// Re-cluster one run at a new threshold.
    Rerun,
    /// Compare two pages.
    Pair,
    /// Corpus word statistics.
    Vocab,
    /// Write an export file.
    Export,
    /// Capture histories of the URLs captured more than once.
    History,
    /// What a cluster's members copied from its representative.
    Shares,
    /// Answer a search (the index built or updated first).
    Search,
}

impl JobKind {
    /// What the job does, for messages ("Opening failed: …").
    pub fn what(self) -> &'static str {
        match self {
            JobKind::Load => "Opening",
            JobKind::Run => "Run",
            JobKind::Sweep => "Precision/recall sweep",
            JobKind::Rerun => "Re-clustering",
            JobKind::Pair => "Comparing",
            JobKind::Vocab => "Word statistics",
            JobKind::Export => "Export",
            JobKind::History => "Capture history",
            JobKind::Shares => "Reuse shares",
            JobKind::Search => "Search",
        }
    }
}

/// What a finished job hands over.
pub enum JobOutput {
    /// [`JobKind::Load`], with what was prepared while reading.
    Load(Arc<Workspace>),
    /// [`JobKind::Run`], with what each rerun detector changed from its previous run.
    Run(
        Arc<RunReport>,
        Vec<(
            crate::detectors::Algo,
            Arc<super::model::changes::RunChanges>,
        )>,
    ),
    /// [`JobKind::Sweep`]: the curves, in the order of the runs it was started for.
    Sweep(Vec<Vec<SweepRow>>),
    /// [`JobKind::Rerun`], with what it changed from the run it replaces.
    Rerun(Arc<AlgoRun>, Arc<super::model::changes::RunChanges>),
    /// [`JobKind::Pair`].
    Pair(Arc<PairComparison>),
    /// [`JobKind::Vocab`].
    Vocab(Arc<Vec<WordStat>>),
    /// [`JobKind::Export`]: what was written, for the person.
    Exported(String),
    /// [`JobKind::History`].
    History(Arc<crate::history::Index>),
    /// [`JobKind::Shares`].
    Shares(Arc<super::model::shares::ClusterShares>),
    /// [`JobKind::Search`].
    Search(Arc<super::search::SearchAnswer>),
}

/// The running jobs.
pub struct Jobs {
    /// Run jobs to completion on the calling thread (tests).
    sync: bool,
    waker: Option<Waker>,
    running: BTreeMap<JobKind, Job<JobOutput>>,
}

impl Jobs {
    /// No jobs; `sync` runs each job inside the call that starts it (tests only).
    pub fn new(sync: bool) -> Self {
        Jobs {
            sync,
            waker: None,
            running: BTreeMap::new(),
        }
    }

    /// The closure that makes the window repaint when a job has news.
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = Some(waker);
    }

    /// Start `work` as the job of `kind`, cancelling the one running.
    pub fn start(
        &mut self,
        kind: JobKind,
        work: impl FnOnce(&Progress) -> crate::Result<JobOutput> + Send + 'static,
    ) {
        self.cancel(kind);
        let progress = Progress::new();
        if let Some(w) = &self.waker {
            let w = w.clone();
            progress.set_waker(move || w());
        }
        let job = if self.sync {
            Job::run_now(progress, work)
        } else {
            Job::spawn(progress, work)
        };
        self.running.insert(kind, job);
    }

    /// Whether a job of `kind` runs.
    pub fn is_running(&self, kind: JobKind) -> bool {
        self.running.contains_key(&kind)
    }

    /// Whether any job runs.
    pub fn is_busy(&self) -> bool {
        !self.running.is_empty()
    }

    /// The progress of every running job, in [`JobKind`] order.
    pub fn progresses(&self) -> Vec<Progress> {
        self.running
            .values()
            .map(|j| j.progress().clone())
            .collect()
    }

    /// Ask the job of `kind` to stop (it still reports, as cancelled).
    pub fn cancel(&self, kind: JobKind) {
        if let Some(j) = self.running.get(&kind) {
            j.cancel();
        }
    }

    /// Ask every job to stop.
    pub fn cancel_all(&self) {
        for j in self.running.values() {
            j.cancel();
        }
    }

    /// The jobs that finished since the last call, each once, in [`JobKind`] order.
    pub fn finished(&mut self) -> Vec<(JobKind, crate::Result<Arc<JobOutput>>)> {
        let mut done = Vec::new();
        for (&kind, job) in self.running.iter_mut() {
            if let Some(result) = job.ready() {
                done.push((kind, result));
            }
        }
        for (kind, _) in &done {
            self.running.remove(kind);
        }
        done
    }
}
