//! A [`Job`] runs one piece of engine work (load archives, run a detector, sweep thresholds) off
//! the caller's thread and hands back an immutable result when it is ready.
//!
//! The watcher polls: [`Job::ready`] each frame, [`Job::progress`] for the bar, [`Job::cancel`]
//! for the button. The worker wakes the watcher through the [`Progress`] waker, so the engine
//! never knows whether a GUI, a CLI or a test is watching. Jobs made with [`Job::run_now`] finish
//! on the calling thread: tests use them to drive the GUI deterministically.

use std::sync::{Arc, Mutex};

use super::Progress;

/// Where a job's result lands.
type Slot<T> = Arc<Mutex<Option<crate::Result<Arc<T>>>>>;

/// A running (or finished) piece of work producing a `T`.
pub struct Job<T> {
    progress: Progress,
    slot: Slot<T>,
    taken: bool,
}

impl<T> std::fmt::Debug for Job<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("progress", &self.progress)
            .finish()
    }
}

impl<T: Send + Sync + 'static> Job<T> {
    /// Start `work` on a new thread (which may itself use the rayon pool). `progress` carries the
    /// waker the watcher installed.
    pub fn spawn(
        progress: Progress,
        work: impl FnOnce(&Progress) -> crate::Result<T> + Send + 'static,
    ) -> Job<T> {
        let slot: Slot<T> = Arc::new(Mutex::new(None));
        let job = Job {
            progress: progress.clone(),
            slot: slot.clone(),
            taken: false,
        };
        let spawned = std::thread::Builder::new()
            .name("samecore-job".into())
            .spawn(move || {
                let result = work(&progress).map(Arc::new);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(result);
                }
                // A last wake so the watcher sees the result without waiting for input.
                progress.advance(0);
            });
        if let Err(e) = spawned
            && let Ok(mut s) = job.slot.lock()
        {
            *s = Some(Err(crate::Error::io(e, "<job thread>")));
        }
        job
    }

    /// Run `work` to completion on this thread (tests, and the CLI where nothing else waits).
    pub fn run_now(progress: Progress, work: impl FnOnce(&Progress) -> crate::Result<T>) -> Job<T> {
        let result = work(&progress).map(Arc::new);
        Job {
            progress,
            slot: Arc::new(Mutex::new(Some(result))),
            taken: false,
        }
    }

    /// The result, once, when the job has finished; `None` while it runs and after it was taken.
    pub fn ready(&mut self) -> Option<crate::Result<Arc<T>>> {
        if self.taken {
            return None;
        }
        let result = self.slot.lock().ok()?.take();
        self.taken = result.is_some();
        result
    }

    /// Whether the result was handed out already.
    pub fn is_finished(&self) -> bool {
        self.taken
    }

    /// The job's progress (stage, done, total).
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Ask the job to stop; it finishes with [`crate::Error::Cancelled`] at its next check.
    pub fn cancel(&self) {
        self.progress.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawned_job_delivers_once() {
        let mut job = Job::spawn(Progress::new(), |p| {
            p.stage("sum", 3);
            p.advance(3);
            Ok(1 + 2)
        });
        let started = std::time::Instant::now();
        let value = loop {
            if let Some(r) = job.ready() {
                break r;
            }
            assert!(started.elapsed().as_secs() < 10, "job never finished");
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        assert_eq!(*value.unwrap(), 3);
        assert!(job.ready().is_none());
        assert!(job.is_finished());
    }

    #[test]
    fn cancelled_job_reports_cancelled() {
        let progress = Progress::new();
        progress.cancel();
        let mut job = Job::<u32>::run_now(progress, |p| {
            p.check()?;
            Ok(7)
        });
        assert!(matches!(job.ready(), Some(Err(crate::Error::Cancelled))));
    }
}
