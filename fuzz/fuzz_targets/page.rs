//! Fuzz one loose page (what a folder of pages hands on) through every HTML tokenizer, the
//! title and date extraction: none may panic, and each must stay linear in the input (a case
//! that runs past libFuzzer's timeout is a finding).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    samecore::archive::scan_page(data);
});
