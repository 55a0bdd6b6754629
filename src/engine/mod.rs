//! Jobs: a piece of work (load archives, run a detector, sweep thresholds) off the caller's
//! thread, with the [`crate::progress::Progress`] through which it reports and is cancelled,
//! and its result handed over once when ready. The engine never knows whether a GUI, a CLI or a
//! test watches. [`memory`] sets how the allocator returns freed memory for a piece of work.

pub mod job;
pub mod memory;

pub use job::Job;
