//! A deterministic event scheduler keyed by (time, sequence): a timing
//! wheel for the near future and a binary heap beyond it.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scheduled event. Ordered so that `BinaryHeap` (a max-heap) pops the
/// earliest time first and, among equal times, the earliest scheduled first.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    /// (time << 64) | sequence: unique, and one integer compare orders both.
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Width of one wheel bucket: 2^11 ps = 2.048 ns, about one SCI symbol.
const BUCKET_BITS: u32 = 11;
/// Buckets on the wheel: events up to 4096 buckets (8.4 us) ahead live on
/// the wheel, later ones in a heap until the wheel reaches them.
const WHEEL: u64 = 4096;

/// The event list of one simulation: a timing wheel (calendar queue) for
/// the near future, where nearly all of a ring's events fall, and a binary
/// heap for the far future. Order is exactly (time, scheduling order), as a
/// single heap would give. `E` is the model's own event type, usually a small
/// `Copy` enum, so scheduling allocates nothing once buckets have grown to
/// their working size.
pub struct Scheduler<E> {
    /// Bucket `b % WHEEL` holds the events of absolute bucket `b` for
    /// `base <= b < base + WHEEL`; the current bucket is kept sorted with the
    /// earliest event last once it is being drained.
    wheel: Vec<Vec<Entry<E>>>,
    /// Bit set per non-empty bucket.
    occupied: Vec<u64>,
    /// Absolute index of the current bucket.
    base: u64,
    /// The current bucket is sorted (newly scheduled entries are inserted in order).
    sorted: bool,
    far: BinaryHeap<Entry<E>>,
    len: usize,
    now: Time,
    seq: u64,
    executed: u64,
}

impl<E: Copy> Scheduler<E> {
    /// An empty scheduler at time 0 with room for `capacity` far-future events.
    pub fn with_capacity(capacity: usize) -> Self {
        Scheduler {
            wheel: (0..WHEEL).map(|_| Vec::new()).collect(),
            occupied: vec![0; (WHEEL / 64) as usize],
            base: 0,
            sorted: false,
            far: BinaryHeap::with_capacity(capacity),
            len: 0,
            now: 0,
            seq: 0,
            executed: 0,
        }
    }

    /// The current simulated time: the time of the event being handled.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    #[inline]
    fn place(&mut self, entry: Entry<E>) {
        let b = ((entry.key >> 64) as u64) >> BUCKET_BITS;
        if b >= self.base + WHEEL {
            self.far.push(entry);
            return;
        }
        let slot = (b % WHEEL) as usize;
        let bucket = &mut self.wheel[slot];
        if b == self.base && self.sorted {
            // Descending by key: the earliest stays last.
            let at = bucket.partition_point(|e| e.key > entry.key);
            bucket.insert(at, entry);
        } else {
            bucket.push(entry);
        }
        self.occupied[slot / 64] |= 1 << (slot % 64);
    }

    /// Schedules `event` at absolute time `at`. Scheduling into the past is a
    /// model bug, caught in debug builds.
    #[inline]
    pub fn at(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        self.place(Entry { key: ((at as u128) << 64) | self.seq as u128, event });
        self.seq += 1;
        self.len += 1;
    }

    /// Schedules `event` `delay` picoseconds from now.
    #[inline]
    pub fn after(&mut self, delay: Time, event: E) {
        self.at(self.now + delay, event);
    }

    /// Makes the current bucket the one holding the next event (sorted);
    /// false if nothing is pending.
    fn settle(&mut self) -> bool {
        loop {
            let slot = (self.base % WHEEL) as usize;
            if !self.wheel[slot].is_empty() {
                if !self.sorted {
                    self.wheel[slot].sort_unstable_by(|a, b| b.key.cmp(&a.key));
                    self.sorted = true;
                }
                return true;
            }
            if self.len == 0 {
                return false;
            }
            // Next non-empty bucket on the wheel, or jump to the far heap's first.
            let next = self.next_occupied().unwrap_or_else(|| {
                let first = self.far.peek().expect("pending events are somewhere");
                ((first.key >> 64) as u64) >> BUCKET_BITS
            });
            self.base = next;
            self.sorted = false;
            // Far events the wheel now reaches move onto it.
            while let Some(e) = self.far.peek() {
                if (((e.key >> 64) as u64) >> BUCKET_BITS) >= self.base + WHEEL {
                    break;
                }
                let e = self.far.pop().expect("peeked");
                self.place(e);
            }
        }
    }

    /// Absolute index of the first non-empty bucket after the current one.
    fn next_occupied(&self) -> Option<u64> {
        let start = self.base % WHEEL;
        let words = self.occupied.len() as u64;
        // Scan the bitmap circularly, starting just after the current slot.
        for step in 0..=words {
            let w = ((start / 64) + step) % words;
            let mut bits = self.occupied[w as usize];
            if step == 0 {
                // Only slots after `start` in the first word.
                let shift = start % 64 + 1;
                bits = if shift >= 64 { 0 } else { bits & (!0u64 << shift) };
            }
            if step == words {
                // Back at the first word: slots up to `start`.
                bits = self.occupied[w as usize] & ((1u64 << (start % 64)) - 1).max(0);
            }
            if bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as u64;
                let ahead = (slot + WHEEL - start) % WHEEL;
                return Some(self.base + ahead);
            }
        }
        None
    }

    /// Removes the next event and advances time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<E> {
        if !self.settle() {
            return None;
        }
        let slot = (self.base % WHEEL) as usize;
        let bucket = &mut self.wheel[slot];
        let entry = bucket.pop().expect("settled bucket is non-empty");
        if bucket.is_empty() {
            self.occupied[slot / 64] &= !(1 << (slot % 64));
        }
        self.len -= 1;
        self.now = (entry.key >> 64) as Time;
        self.executed += 1;
        Some(entry.event)
    }

    /// Time of the next pending event, if any.
    pub fn peek_time(&mut self) -> Option<Time> {
        if !self.settle() {
            return None;
        }
        self.wheel[(self.base % WHEEL) as usize].last().map(|e| (e.key >> 64) as Time)
    }

    /// Number of events handled so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Number of events still pending.
    pub fn pending(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_fifo_order() {
        let mut s = Scheduler::with_capacity(8);
        s.at(30, 'c');
        s.at(10, 'a');
        s.at(30, 'd');
        s.at(20, 'b');
        let mut seen = Vec::new();
        while let Some(e) = s.pop() {
            seen.push((s.now(), e));
        }
        assert_eq!(seen, vec![(10, 'a'), (20, 'b'), (30, 'c'), (30, 'd')]);
        assert_eq!(s.executed(), 4);
    }

    /// Against a plain binary heap on a random mix of near, equal-time and
    /// far-future events, interleaving pops and pushes as a model does.
    #[test]
    fn same_order_as_a_heap() {
        let mut s = Scheduler::with_capacity(8);
        let mut reference = std::collections::BTreeMap::new();
        let mut x: u64 = 12345;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut id = 0u32;
        for _ in 0..20_000 {
            let now = s.now();
            for _ in 0..next(3) {
                let delay = match next(4) {
                    0 => 0,
                    1 => next(5000),
                    2 => next(200_000),
                    _ => next(50_000_000),
                };
                reference.insert((now + delay, id), id);
                s.at(now + delay, id);
                id += 1;
            }
            if let Some((&(t, k), &want)) = reference.iter().next() {
                reference.remove(&(t, k));
                assert_eq!(s.peek_time(), Some(t));
                assert_eq!(s.pop(), Some(want));
                assert_eq!(s.now(), t);
            }
        }
        while let Some((&(t, k), &want)) = reference.iter().next() {
            reference.remove(&(t, k));
            assert_eq!(s.pop(), Some(want), "at {t}");
        }
        assert_eq!(s.pop(), None);
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn after_is_relative_to_now() {
        let mut s = Scheduler::with_capacity(2);
        s.at(5, 1u8);
        s.pop();
        s.after(7, 2u8);
        assert_eq!(s.peek_time(), Some(12));
    }
}
