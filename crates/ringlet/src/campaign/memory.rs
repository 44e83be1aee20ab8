//! Peak heap memory of a run, counted by the allocator of the program
//! that runs the campaign (its test or its example declares
//! `#[global_allocator] static A: Counting = Counting;`). Counted per
//! thread, so that runs on other threads (tests run side by side) do not
//! mix in: a run allocates and frees on its own thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // Const-initialised cells without destructors: safe to touch from the
    // allocator itself.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// The system allocator, counting each thread's live bytes and their peak.
pub struct Counting;

fn add(bytes: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counting touches only const-initialised thread-local cells.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        System.realloc(ptr, layout, new_size)
    }
}

/// Starts a measurement on this thread: the peak from now, above what is live now.
pub fn start() -> isize {
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    live
}

/// Bytes this thread held at most since `start` returned `base`, above it
/// (0 where the program does not count: no `Counting` allocator).
pub fn peak_since(base: isize) -> u64 {
    (PEAK.with(Cell::get) - base).max(0) as u64
}
