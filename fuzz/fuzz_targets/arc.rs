//! Fuzz the ARC reader (plain and gzip, told by the first bytes): it must never panic, and
//! its counts must stay consistent whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = samecore::archive::scan_bytes(data, true);
    let records: u64 = report.records.values().sum();
    assert!(report.html_responses <= records);
    assert!(report.documents <= records);
});
