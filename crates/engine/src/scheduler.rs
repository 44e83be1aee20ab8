//! A deterministic event scheduler: a binary heap keyed by (time, sequence).

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

/// The event list of one simulation. `E` is the model's own event type,
/// usually a small `Copy` enum, so scheduling allocates nothing once the heap
/// has grown to its working size.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    now: Time,
    seq: u64,
    executed: u64,
}

impl<E: Copy> Scheduler<E> {
    /// An empty scheduler at time 0 with room for `capacity` pending events.
    pub fn with_capacity(capacity: usize) -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(capacity), now: 0, seq: 0, executed: 0 }
    }

    /// The current simulated time: the time of the event being handled.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `event` at absolute time `at`. Scheduling into the past is a
    /// model bug, caught in debug builds.
    #[inline]
    pub fn at(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        self.heap.push(Entry { key: ((at as u128) << 64) | self.seq as u128, event });
        self.seq += 1;
    }

    /// Schedules `event` `delay` picoseconds from now.
    #[inline]
    pub fn after(&mut self, delay: Time, event: E) {
        self.at(self.now + delay, event);
    }

    /// Removes the next event and advances time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<E> {
        let entry = self.heap.pop()?;
        self.now = (entry.key >> 64) as Time;
        self.executed += 1;
        Some(entry.event)
    }

    /// Removes the next event if it is due no later than `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<E> {
        match self.peek_time() {
            Some(t) if t <= until => self.pop(),
            _ => None,
        }
    }

    /// Time of the next pending event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| (e.key >> 64) as Time)
    }

    /// Number of events handled so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Number of events still pending.
    pub fn pending(&self) -> usize {
        self.heap.len()
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

    /// Against an ordered map on a random mix of near, equal-time and
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
