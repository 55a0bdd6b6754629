//! Fuzz the zip-of-pages reader: whatever the bytes, reading them as a `.zip` must never panic
//! nor take more memory than the page-size limit allows; its counts must stay consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("samecore-fuzz-{}.zip", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let options = samecore::archive::ReadOptions::default();
    let progress = samecore::progress::Progress::new();
    if let Ok(report) = samecore::archive::read_file(&path, &options, &progress, &mut |_| {}) {
        let records: u64 = report.records.values().sum();
        assert!(report.documents <= records);
    }
    let _ = std::fs::remove_file(&path);
});
