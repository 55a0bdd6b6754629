//! A [`Job`] runs one piece of engine work (load archives, run a detector, sweep thresholds) off
//! the caller's thread and hands back an immutable result when it is ready.
//!
//! The watcher polls: [`Job::ready`] each frame, [`Job::progress`] for the bar, [`Job::cancel`]
//! for the button. Work that panics ends the job with [`crate::Error::Panicked`] carrying the
//! panic's message, so a watcher shows an error instead of waiting forever. The worker wakes
//! the watcher through the [`Progress`] waker, so the engine never knows whether a GUI, a CLI
//! or a test is watching. Jobs made with [`Job::run_now`] finish
//! on the calling thread: tests use them to drive the GUI deterministically.

use std::sync::{Arc, Mutex};

use crate::progress::Progress;

/// The nice value of background threads in the workbench: low enough that the window's thread
/// gets a core as soon as it wakes, while the work still has every idle cycle.
const BACKGROUND_NICE: i32 = 10;

/// Lower the calling thread's scheduling priority (Linux: `setpriority` on its thread id, nice
/// +10; elsewhere nothing). Threads it starts inherit the value.
///
/// Why: on a 2-core machine a detector run keeps both cores busy (the rayon pool plus the job
/// thread), and a frame then waited for a core: `cargo bench --bench workbench` measured frames
/// of 12 ms wall with 5 ms on the CPU, and 27–33 ms at worst under machine load.
pub fn background_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread's own id; failure leaves the priority as
    // it was, which is harmless.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, BACKGROUND_NICE);
    }
}

/// Build rayon's global pool with [`background_priority`] threads, for a process whose own
/// thread draws a window. Returns false when the pool already existed (its threads then keep
/// their priority); call it before any parallel work.
pub fn init_background_pool() -> bool {
    rayon::ThreadPoolBuilder::new()
        .start_handler(|_| background_priority())
        .build_global()
        .is_ok()
}

/// Run `work`, turning a panic into [`crate::Error::Panicked`] with its message.
fn guarded<T>(work: impl FnOnce() -> crate::Result<T>) -> crate::Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a job panicked".to_string());
            Err(crate::Error::Panicked(message))
        }
    }
}

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
                background_priority();
                let result = guarded(|| work(&progress)).map(Arc::new);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(result);
                }
                // A last wake so the watcher sees the result without waiting for input.
                progress.notify();
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
        let result = guarded(|| work(&progress)).map(Arc::new);
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
    fn a_panicking_job_ends_with_an_error_instead_of_running_forever() {
        let mut job = Job::<u32>::spawn(Progress::new(), |_| panic!("detector bug"));
        let started = std::time::Instant::now();
        let result = loop {
            if let Some(r) = job.ready() {
                break r;
            }
            assert!(started.elapsed().as_secs() < 10, "job never finished");
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        match result {
            Err(crate::Error::Panicked(m)) => assert!(m.contains("detector bug"), "{m}"),
            other => panic!("{other:?}"),
        }
        let mut now = Job::<u32>::run_now(Progress::new(), |_| panic!("again"));
        assert!(matches!(now.ready(), Some(Err(crate::Error::Panicked(_)))));
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
