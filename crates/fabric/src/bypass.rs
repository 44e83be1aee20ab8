//! A node's bypass FIFO: the packets passing through it, in arrival order,
//! each with the time its head can leave (arrival + node delay).
//!
//! Every packet hop pushes one entry here and a later output decision takes
//! it off the front, so this is a ring buffer whose capacity is a power of
//! two: positions wrap with a mask rather than `VecDeque`'s compare and
//! subtract. It holds a handful of entries (what one link can deliver while
//! the node sends), and grows if a protocol ever buffers more.

use ringlet_engine::Time;

/// One entry: packet id and the time it can leave.
pub type Entry = (u32, Time);

#[derive(Clone, Debug)]
pub struct BypassFifo {
    /// Length a power of two; `head` and every slot index are masked by `len - 1`.
    buf: Box<[Entry]>,
    head: usize,
    len: usize,
}

impl BypassFifo {
    /// Room for `capacity` entries (rounded up to a power of two) before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        BypassFifo { buf: vec![(0, 0); capacity.max(2).next_power_of_two()].into_boxed_slice(), head: 0, len: 0 }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len() - 1
    }

    /// The buffer slot of the `k`-th entry from the front (`k <= len`).
    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        (self.head + k) & self.mask()
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry in buffer slot `s`, which `slot` made (masked, so in range).
    #[inline(always)]
    fn at(&self, s: usize) -> &Entry {
        debug_assert!(s < self.buf.len());
        // SAFETY: every slot index is `(...) & mask`, below `buf.len()`.
        unsafe { self.buf.get_unchecked(s) }
    }

    #[inline(always)]
    fn at_mut(&mut self, s: usize) -> &mut Entry {
        debug_assert!(s < self.buf.len());
        // SAFETY: as for `at`.
        unsafe { self.buf.get_unchecked_mut(s) }
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&Entry> {
        (self.len != 0).then(|| self.at(self.head))
    }

    #[inline(always)]
    pub fn back(&self) -> Option<&Entry> {
        (self.len != 0).then(|| self.at(self.slot(self.len - 1)))
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = *self.at(self.head);
        self.head = self.slot(1);
        self.len -= 1;
        Some(e)
    }

    #[inline(always)]
    pub fn push_back(&mut self, e: Entry) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let at = self.slot(self.len);
        *self.at_mut(at) = e;
        self.len += 1;
    }

    #[cold]
    fn grow(&mut self) {
        let mut bigger = vec![(0, 0); 2 * self.buf.len()].into_boxed_slice();
        for (k, e) in self.iter().enumerate() {
            bigger[k] = *e;
        }
        self.buf = bigger;
        self.head = 0;
    }

    /// The entries from front to back.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> + ExactSizeIterator + '_ {
        (0..self.len).map(move |k| &self.buf[self.slot(k)])
    }

    /// Puts `e` at position `at` (0 = front), moving the entries behind it back.
    pub fn insert(&mut self, at: usize, e: Entry) {
        assert!(at <= self.len, "insert at {at} of {}", self.len);
        self.push_back(e);
        for k in (at..self.len - 1).rev() {
            let (to, from) = (self.slot(k + 1), self.slot(k));
            self.buf.swap(to, from);
        }
    }

    /// Takes out the entry at position `at`, moving the entries behind it forward.
    pub fn remove(&mut self, at: usize) -> Option<Entry> {
        if at >= self.len {
            return None;
        }
        let e = self[at];
        for k in at..self.len - 1 {
            self.buf[self.slot(k)] = self.buf[self.slot(k + 1)];
        }
        self.len -= 1;
        Some(e)
    }
}

impl std::ops::Index<usize> for BypassFifo {
    type Output = Entry;
    fn index(&self, k: usize) -> &Entry {
        assert!(k < self.len, "entry {k} of {}", self.len);
        &self.buf[self.slot(k)]
    }
}

impl std::ops::IndexMut<usize> for BypassFifo {
    fn index_mut(&mut self, k: usize) -> &mut Entry {
        assert!(k < self.len, "entry {k} of {}", self.len);
        let s = self.slot(k);
        &mut self.buf[s]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Every operation agrees with `VecDeque` over a random mix that wraps
    /// the buffer and makes it grow.
    #[test]
    fn same_as_a_vecdeque() {
        let mut f = BypassFifo::with_capacity(2);
        let mut d: VecDeque<Entry> = VecDeque::new();
        let mut x: u64 = 5;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let e = (step as u32, x % 1000);
            match x % 8 {
                0..=2 => {
                    f.push_back(e);
                    d.push_back(e);
                }
                3 | 4 => assert_eq!(f.pop_front(), d.pop_front()),
                5 => {
                    let at = (x >> 10) as usize % (d.len() + 1);
                    f.insert(at, e);
                    d.insert(at, e);
                }
                6 => {
                    let at = (x >> 10) as usize % (d.len() + 1);
                    assert_eq!(f.remove(at), d.remove(at));
                }
                _ => {
                    if !d.is_empty() {
                        let at = (x >> 10) as usize % d.len();
                        f[at].1 = step;
                        d[at].1 = step;
                    }
                }
            }
            assert_eq!(f.len(), d.len());
            assert_eq!(f.front(), d.front());
            assert_eq!(f.back(), d.back());
            assert!(f.iter().eq(d.iter()), "step {step}");
            assert_eq!(f.iter().rposition(|e| e.1 < 500), d.iter().rposition(|e| e.1 < 500));
        }
    }
}
