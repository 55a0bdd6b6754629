//! Progress and cancellation shared between a running piece of work and whoever watches it
//! (the workbench, the CLI's progress bar, a test). Every pipeline stage takes a [`Progress`],
//! so this module is a leaf: it imports nothing of the crate but [`crate::Error`].
//!
//! Workers bump atomics; watchers read a [`ProgressSnapshot`]. A watcher may install a waker
//! (the workbench passes `request_repaint`): it is called outside every lock, and
//! [`Progress::advance`] calls it at most once per [`WAKE_INTERVAL`] however many rayon
//! threads advance, while stage changes, cancel and [`Progress::notify`] always call it.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The shortest time between two wakes from [`Progress::advance`]: a frame at 60 Hz. More
/// would only make the watcher redraw a bar nobody can see move.
pub const WAKE_INTERVAL: Duration = Duration::from_millis(16);

/// The watcher's callback.
type Waker = Arc<dyn Fn() + Send + Sync>;

/// A job's progress: the current stage, done / total units in it, and a cancel flag.
/// Cheap to clone (an `Arc`); every clone sees the same state.
#[derive(Clone)]
pub struct Progress {
    inner: Arc<Inner>,
}

struct Inner {
    stage: Mutex<String>,
    /// What the stages belong to (a detector), shown before the stage.
    context: Mutex<String>,
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
    stage_started: Mutex<Instant>,
    waker: Mutex<Option<Waker>>,
    /// When this progress was made; wake times are nanoseconds since then.
    born: Instant,
    /// Nanoseconds after `born` of the last wake by `advance` (throttling).
    last_wake: AtomicU64,
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
                context: Mutex::new(String::new()),
                done: AtomicU64::new(0),
                total: AtomicU64::new(0),
                cancelled: AtomicBool::new(false),
                stage_started: Mutex::new(Instant::now()),
                waker: Mutex::new(None),
                born: Instant::now(),
                last_wake: AtomicU64::new(0),
            }),
        }
    }

    /// Set the closure called when there is news (the GUI passes `ctx.request_repaint`).
    pub fn set_waker(&self, waker: impl Fn() + Send + Sync + 'static) {
        if let Ok(mut w) = self.inner.waker.lock() {
            *w = Some(Arc::new(waker));
        }
    }

    /// Call the waker now, outside the lock (a waker may take locks of its own).
    pub fn notify(&self) {
        let waker = self.inner.waker.lock().ok().and_then(|w| w.clone());
        if let Some(w) = waker {
            w();
        }
    }

    /// Call the waker unless another thread did so less than [`WAKE_INTERVAL`] ago.
    fn wake_throttled(&self) {
        let now = self.inner.born.elapsed().as_nanos() as u64;
        let last = self.inner.last_wake.load(Ordering::Relaxed);
        if now.saturating_sub(last) < WAKE_INTERVAL.as_nanos() as u64 {
            return;
        }
        // One thread wins the interval; the others see the new time and skip.
        if self
            .inner
            .last_wake
            .compare_exchange(last, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            self.notify();
        }
    }

    /// Name what the coming stages belong to (a detector's name): the snapshot's stage reads
    /// `context: stage` until it is set again (empty: none).
    pub fn set_context(&self, context: &str) {
        if let Ok(mut c) = self.inner.context.lock() {
            context.clone_into(&mut c);
        }
        self.notify();
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
        self.notify();
    }

    /// Add to the total of the current stage (when work is discovered as it goes).
    pub fn add_total(&self, n: u64) {
        self.inner.total.fetch_add(n, Ordering::Relaxed);
    }

    /// Count `n` more units done, waking the watcher (throttled, see [`WAKE_INTERVAL`]).
    pub fn advance(&self, n: u64) {
        self.inner.done.fetch_add(n, Ordering::Relaxed);
        self.wake_throttled();
    }

    /// Ask the job to stop at its next check.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
        self.notify();
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
            stage: {
                let stage = self
                    .inner
                    .stage
                    .lock()
                    .map(|s| s.clone())
                    .unwrap_or_default();
                match self.inner.context.lock().map(|c| c.clone()) {
                    Ok(c) if !c.is_empty() => format!("{c}: {stage}"),
                    _ => stage,
                }
            },
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
    fn a_context_names_what_the_stages_belong_to() {
        let p = Progress::new();
        p.set_context("minhash");
        p.stage("signatures", 10);
        assert_eq!(p.snapshot().stage, "minhash: signatures");
        p.set_context("");
        assert_eq!(p.snapshot().stage, "signatures");
    }

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

    #[test]
    fn advance_wakes_at_most_once_an_interval_and_never_under_the_lock() {
        let p = Progress::new();
        let wakes = Arc::new(AtomicU64::new(0));
        let (q, w) = (p.clone(), wakes.clone());
        // A waker that reads the progress: it would deadlock if called under a lock of `p`.
        p.set_waker(move || {
            let _ = q.snapshot();
            w.fetch_add(1, Ordering::Relaxed);
        });
        p.stage("work", 100_000);
        let after_stage = wakes.load(Ordering::Relaxed);
        assert_eq!(after_stage, 1, "a stage change always wakes");
        let started = Instant::now();
        for _ in 0..100_000 {
            p.advance(1);
        }
        let elapsed = started.elapsed();
        let by_advance = wakes.load(Ordering::Relaxed) - after_stage;
        let allowed = elapsed.as_nanos() / WAKE_INTERVAL.as_nanos() + 1;
        assert!(
            u128::from(by_advance) <= allowed,
            "{by_advance} wakes in {elapsed:?}"
        );
        p.notify();
        assert_eq!(wakes.load(Ordering::Relaxed), after_stage + by_advance + 1);
    }
}
