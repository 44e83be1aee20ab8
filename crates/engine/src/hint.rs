//! A hint to the processor: fetch a line into cache ahead of its use. In a
//! network of thousands of interfaces most of an event's state is out of
//! cache; fetching it as soon as the model knows it will be read overlaps
//! the wait with other work. It changes no result: a hint may be ignored.

/// Starts fetching the cache line holding `p` (any address: a prefetch
/// never faults). A no-op where the target has no stable prefetch.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults,
    // whatever the address; SSE is part of every x86-64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
