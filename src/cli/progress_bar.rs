//! The command line's progress display: a bar on stderr for a [`Progress`] that work advances,
//! shown only on a terminal and only once the work has taken a second.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use samecore::progress::Progress;

/// A bar for stages counted in bytes (reading archives).
pub const BYTES: &str = "{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}";
/// A bar for stages counted in anything (pages, documents, bytes of a generated archive).
pub const COUNT: &str = "{msg} {wide_bar} {human_pos}/{human_len} eta {eta}";

/// Run `work` while a thread draws `progress` on stderr with `template` (an indicatif
/// template; its message is the stage's name).
pub fn with_progress_bar<T>(progress: &Progress, template: &str, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = progress.clone();
        let done = &done;
        scope.spawn(move || {
            let started = Instant::now();
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if started.elapsed() < Duration::from_secs(1) {
                    continue;
                }
                let snap = watcher.snapshot();
                let bar = bar.get_or_insert_with(|| {
                    let bar = indicatif::ProgressBar::new(snap.total);
                    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                        bar.set_style(style);
                    }
                    bar
                });
                bar.set_length(snap.total);
                bar.set_position(snap.done);
                bar.set_message(snap.stage);
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}
