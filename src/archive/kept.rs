//! Buffers a decoding thread keeps from one page for the next: a page read into, or decoded
//! into, fresh memory is fresh pages the kernel zeroes at first touch (on goldset-dev 1,887 of
//! a `run`'s 3,645 page faults). Used by the pipeline's reads ([`super::pipeline`]) and by
//! decoding ([`super::decode::with_page_text`]), each with a slot of its own.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread's kept buffer.
pub(crate) type Slot = RefCell<Vec<u8>>;

/// The largest buffer a thread keeps: three times a large page (a byte of a single-byte
/// charset takes up to three in UTF-8). A larger one is freed.
const KEEP: usize = 4 << 20;

/// The buffer `slot` keeps, emptied (a new one when it keeps none, or while the thread is
/// being torn down). Taken out of the slot while in use, so that a page handled inside the
/// use gets a buffer of its own.
pub(crate) fn take(slot: &'static LocalKey<Slot>) -> Vec<u8> {
    let mut buf = take_written(slot);
    buf.clear();
    buf
}

/// The buffer `slot` keeps with what was last written in it (its length is then how much of it
/// is initialized, which a reader can fill without zeroing it again; see [`take`]).
pub(crate) fn take_written(slot: &'static LocalKey<Slot>) -> Vec<u8> {
    slot.try_with(|s| std::mem::take(&mut *s.borrow_mut()))
        .unwrap_or_default()
}

/// Keep `buf` in `slot` for the thread's next page, unless it is larger than [`KEEP`] or the
/// slot already keeps a larger one.
pub(crate) fn give_back(slot: &'static LocalKey<Slot>, buf: Vec<u8>) {
    if buf.capacity() > KEEP {
        return;
    }
    // Not kept while the thread is being torn down.
    let _ = slot.try_with(|s| {
        let mut s = s.borrow_mut();
        if s.capacity() < buf.capacity() {
            *s = buf;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SLOT: Slot = const { RefCell::new(Vec::new()) };
    }

    #[test]
    fn the_larger_buffer_is_kept_emptied_and_a_huge_one_is_not() {
        let mut a = take(&SLOT);
        a.extend_from_slice(&[1; 100]);
        let cap = a.capacity();
        give_back(&SLOT, a);
        give_back(&SLOT, Vec::with_capacity(10));
        let b = take(&SLOT);
        assert!(b.is_empty());
        assert_eq!(b.capacity(), cap);
        give_back(&SLOT, Vec::with_capacity(KEEP + 1));
        assert_eq!(take(&SLOT).capacity(), 0);
    }
}
