//! Tables indexed by the fabric's own ids, without bounds checks.
//!
//! Interfaces, ringlets and agents are numbered by the topology, traffic
//! classes by the parameters, and every id the fabric indexes with comes
//! from them (events the fabric scheduled, the topology's tables, packets
//! it made, protocol effects mapped through a ringlet's interface list), all
//! below the table's length. The tables never shrink.
//! The fabric indexes interfaces several times per event, so a bounds check
//! costs about 4% of a run; debug builds, and so every `cargo test`, keep it.
//! Crate-private, so no caller outside can pass a bad index.

pub(crate) struct Dense<T>(Vec<T>);

impl<T> Dense<T> {
    pub fn new(items: Vec<T>) -> Self {
        Dense(items)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Where item `i` is (for a prefetch hint: any `i`, never dereferenced here).
    #[inline(always)]
    pub fn address(&self, i: usize) -> *const T {
        self.0.as_ptr().wrapping_add(i)
    }
}

impl<T> std::ops::Index<usize> for Dense<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < self.0.len(), "id {i} of a table of {}", self.0.len());
        // SAFETY: see the module documentation; `i < self.0.len()`.
        unsafe { self.0.get_unchecked(i) }
    }
}

impl<T> std::ops::IndexMut<usize> for Dense<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.0.len(), "id {i} of a table of {}", self.0.len());
        // SAFETY: as for `index`.
        unsafe { self.0.get_unchecked_mut(i) }
    }
}
