//! Progress and cancellation shared between a running job and whoever watches it (the GUI,
//! the CLI's progress bar). Lock-free: workers bump atomics, watchers read them.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// A job's progress: the current stage, done / total units in it, and a cancel flag.
/// Cheap to clone (an `Arc`); every clone sees the same state.
#[derive(Clone)]
pub struct Progress {
    inner: Arc<Inner>,
}

struct Inner {
    stage: Mutex<String>,
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
    stage_started: Mutex<Instant>,
    waker: Mutex<Option<Box<dyn Fn() + Send + Sync>>>,
}

/// A copy of a job's progress at one instant, for display.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressSnapshot {
    /// What the job is doing ("reading", "signatures", "matching" ...).
    pub stage: String,
    /// Units done in this stage.
    pub done: u64,
    /// Units in this stage (0 when unknown).
    pub total: u64,
    /// Seconds since the stage began.
    pub elapsed_secs: f64,
}

impl ProgressSnapshot {
    /// Units per second in this stage so far.
    pub fn rate(&self) -> f64 {
        if self.elapsed_secs > 0.0 {
            self.done as f64 / self.elapsed_secs
        } else {
            0.0
        }
    }

    /// Estimated seconds left in this stage, when it can be told.
    pub fn eta_secs(&self) -> Option<f64> {
        let rate = self.rate();
        (self.total > self.done && rate > 0.0).then(|| (self.total - self.done) as f64 / rate)
    }

    /// Share done in `0..=1` (0 when the total is unknown).
    pub fn fraction(&self) -> f32 {
        if self.total == 0 {
            0.0
        } else {
            (self.done as f64 / self.total as f64).min(1.0) as f32
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}

impl Progress {
    /// A fresh progress with no stage.
    pub fn new() -> Self {
        Progress {
            inner: Arc::new(Inner {
                stage: Mutex::new(String::new()),
                done: AtomicU64::new(0),
                total: AtomicU64::new(0),
                cancelled: AtomicBool::new(false),
                stage_started: Mutex::new(Instant::now()),
                waker: Mutex::new(None),
            }),
        }
    }

    /// Set the closure called when there is news (the GUI passes `ctx.request_repaint`).
    pub fn set_waker(&self, waker: impl Fn() + Send + Sync + 'static) {
        if let Ok(mut w) = self.inner.waker.lock() {
            *w = Some(Box::new(waker));
        }
    }

    fn wake(&self) {
        if let Ok(w) = self.inner.waker.lock()
            && let Some(w) = w.as_ref()
        {
            w();
        }
    }

    /// Begin a stage with `total` units (0 if unknown).
    pub fn stage(&self, name: &str, total: u64) {
        if let Ok(mut s) = self.inner.stage.lock() {
            name.clone_into(&mut s);
        }
        if let Ok(mut t) = self.inner.stage_started.lock() {
            *t = Instant::now();
        }
        self.inner.done.store(0, Ordering::Relaxed);
        self.inner.total.store(total, Ordering::Relaxed);
        self.wake();
    }

    /// Add to the total of the current stage (when work is discovered as it goes).
    pub fn add_total(&self, n: u64) {
        self.inner.total.fetch_add(n, Ordering::Relaxed);
    }

    /// Count `n` more units done, waking the watcher.
    pub fn advance(&self, n: u64) {
        self.inner.done.fetch_add(n, Ordering::Relaxed);
        self.wake();
    }

    /// Ask the job to stop at its next check.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
        self.wake();
    }

    /// Whether cancel was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once cancel was asked for; call it between units of work.
    pub fn check(&self) -> crate::Result<()> {
        if self.is_cancelled() {
            Err(crate::Error::Cancelled)
        } else {
            Ok(())
        }
    }

    /// The state now.
    pub fn snapshot(&self) -> ProgressSnapshot {
        ProgressSnapshot {
            stage: self
                .inner
                .stage
                .lock()
                .map(|s| s.clone())
                .unwrap_or_default(),
            done: self.inner.done.load(Ordering::Relaxed),
            total: self.inner.total.load(Ordering::Relaxed),
            elapsed_secs: self
                .inner
                .stage_started
                .lock()
                .map(|t| t.elapsed().as_secs_f64())
                .unwrap_or(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_state_and_cancel_is_seen() {
        let p = Progress::new();
        let q = p.clone();
        p.stage("reading", 10);
        q.advance(4);
        let s = p.snapshot();
        assert_eq!((s.stage.as_str(), s.done, s.total), ("reading", 4, 10));
        assert!((s.fraction() - 0.4).abs() < 1e-6);
        assert!(p.check().is_ok());
        q.cancel();
        assert!(matches!(p.check(), Err(crate::Error::Cancelled)));
    }
}
