//! A deterministic event scheduler keyed by (time, sequence).
//!
//! Nearly every event a ring schedules lands a few nanoseconds to a few
//! microseconds ahead (a hop, a packet slot, an input queue service time),
//! so the event list is a calendar queue: a wheel of 1.37 ns buckets
//! covering about 2.8 us, each a short sorted list, with a binary heap for the
//! rare events beyond it (sparse traffic arrivals, long hold-offs). Pushing
//! and popping cost a few instructions; a bitmap finds the next non-empty
//! bucket. A model with many more events per nanosecond (thousands of ring
//! interfaces) asks for narrower buckets, so that the lists stay short.
//! The pop order is exactly that of one heap ordered by (time, sequence),
//! so results do not depend on the data structure (`same_order_as_a_heap`).

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Bucket width: 2^12 ticks, 1.37 ns: under one 2 ns SCI symbol, so a
/// bucket holds at most one symbol time of a ring's aligned events and
/// nearly every event is appended to its list (2^13 ticks, 2.73 ns, cost 1%
/// more instructions on the reference workload, in `insert_sorted`). A
/// model with many more events per nanosecond asks for finer buckets
/// (`Scheduler::with_bucket`).
pub const BUCKET_SHIFT: u32 = 12;
/// Buckets on the wheel: 2^11, about 2.8 us ahead (at the default width).
const BUCKETS: u64 = 1 << 11;
const MASK: u64 = BUCKETS - 1;
const WORDS: usize = (BUCKETS / 64) as usize;
/// End of a bucket's list.
const NIL: u32 = u32::MAX;

/// One scheduled event. `key` = (time << 64) | sequence: unique, and one
/// integer compare orders both time and, among equal times, scheduling order.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }

    #[inline]
    fn bucket(&self, shift: u32) -> u64 {
        self.time() >> shift
    }
}

/// Far-future entries: `BinaryHeap` is a max-heap, so the order is reversed.
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

/// A pool entry: one event in a slot's list, or (ids below `BUCKETS`,
/// `event` the default and never read, time 0) a slot's own list head. No
/// sequence number: a list keeps events of equal time in the order they
/// were put in, and an event goes in after every event of its time already
/// there (events come off the far heap before any later-scheduled event of
/// their time can reach the wheel), which is the order of scheduling.
#[derive(Clone, Copy)]
struct Link<E> {
    time: Time,
    event: E,
    next: u32,
}

/// The event list of one simulation. `E` is the model's own event type, a
/// small `Copy` value, so scheduling allocates nothing once the pool has
/// grown to its working size. An integer the model packs its event into is
/// fastest: an enum gets built in memory field by field and read back whole,
/// which the processor cannot forward from its store buffer (the ring packs
/// its events; see `Event::pack` in `ringlet-sci`).
///
/// Each wheel slot is a list sorted by key, linked through one pool of
/// entries, so the few live events stay in a few cache lines. Pool ids below
/// `BUCKETS` are the slots' own list heads (sentinels, key 0): appending to a
/// list, empty or not, takes no data-dependent branch, and nearly every new
/// event is appended (it is scheduled after those already in its bucket).
pub struct Scheduler<E> {
    /// Absolute index of the current bucket (`now >> shift`); the
    /// wheel holds buckets `cur .. cur + BUCKETS`, bucket `b` in slot `b % BUCKETS`.
    cur: u64,
    /// Bucket width: 2^`shift` ticks.
    shift: u32,
    /// Entries by id; `pool[slot].next` is the first entry of a slot.
    pool: Vec<Link<E>>,
    /// Last entry of each slot's list (the slot's sentinel when empty).
    tails: Box<[u32; BUCKETS as usize]>,
    /// Per slot, where its last out-of-order insertion went: the next one
    /// usually goes right after it. Poisson arrivals, at any picosecond,
    /// end up at the tail of buckets that then fill with cycle-aligned
    /// events; walking from the head past all of those cost half the
    /// instructions of a 2 048-node ring. Only a hint, with the time its
    /// entry had: one later than now has not been popped, so it is still
    /// in the list (checked before use; the pop path pays nothing).
    hints: Box<[(u32, Time); BUCKETS as usize]>,
    /// Bit `s % 64` of word `s / 64`: slot `s` is non-empty.
    nonempty: [u64; WORDS],
    /// Free pool entries, linked through `next`.
    free: u32,
    /// Events at least a wheel's span ahead of the current bucket.
    far: BinaryHeap<Entry<E>>,
    /// Bucket of the first far event (`u64::MAX` if none).
    far_bucket: u64,
    now: Time,
    /// Sequence numbers order far events of equal time.
    seq: u64,
    executed: u64,
}

impl<E: Copy + Default> Scheduler<E> {
    /// An empty scheduler at time 0 with room for `capacity` pending events.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_bucket(capacity, BUCKET_SHIFT)
    }

    /// `with_capacity`, buckets 2^`shift` ticks wide (the wheel spans
    /// `BUCKETS` of them). Finer buckets keep the lists short where events
    /// are dense (thousands of ring interfaces), at the price of a shorter
    /// span: events beyond it wait in the far heap. The order events are
    /// popped in does not depend on it.
    pub fn with_bucket(capacity: usize, shift: u32) -> Self {
        let slots = BUCKETS as usize;
        let mut pool = Vec::with_capacity(slots + capacity);
        pool.resize(slots, Link { time: 0, event: E::default(), next: NIL });
        let mut tails = Box::new([0; BUCKETS as usize]);
        for (slot, tail) in tails.iter_mut().enumerate() {
            *tail = slot as u32;
        }
        let hints = Box::new([(NIL, 0); BUCKETS as usize]);
        Scheduler {
            cur: 0,
            shift,
            pool,
            tails,
            hints,
            nonempty: [0; WORDS],
            free: NIL,
            far: BinaryHeap::new(),
            far_bucket: u64::MAX,
            now: 0,
            seq: 0,
            executed: 0,
        }
    }

    /// Pool entry `id`, unchecked: ids come only from this pool (its
    /// sentinels, its free list, its lists' links), and the pool never
    /// shrinks. The bounds checks cost about 4% of a ring simulation; debug
    /// builds (every `cargo test`) keep them.
    #[inline(always)]
    fn link(&self, id: usize) -> &Link<E> {
        debug_assert!(id < self.pool.len(), "pool id {id} out of range");
        // SAFETY: see above; `id < self.pool.len()`.
        unsafe { self.pool.get_unchecked(id) }
    }

    #[inline(always)]
    fn link_mut(&mut self, id: usize) -> &mut Link<E> {
        debug_assert!(id < self.pool.len(), "pool id {id} out of range");
        // SAFETY: as for `link`.
        unsafe { self.pool.get_unchecked_mut(id) }
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
        let b = at >> self.shift;
        if b - self.cur >= BUCKETS {
            return self.place_far(at, event);
        }
        self.place(b, at, event);
    }

    /// Schedules `event` `delay` ticks from now.
    #[inline]
    pub fn after(&mut self, delay: Time, event: E) {
        self.at(self.now + delay, event);
    }

    /// Puts an event at `time` (on the wheel's span) into its bucket `b`'s list.
    #[inline(always)]
    fn place(&mut self, b: u64, time: Time, event: E) {
        debug_assert!(b == time >> self.shift && b >= self.cur && b - self.cur < BUCKETS);
        let slot = (b & MASK) as usize;
        let link = Link { time, event, next: NIL };
        let id = if self.free != NIL {
            let id = self.free;
            self.free = self.link(id as usize).next;
            *self.link_mut(id as usize) = link;
            id
        } else {
            self.pool.push(link);
            (self.pool.len() - 1) as u32
        };
        let tail = self.tails[slot];
        if self.link(tail as usize).time <= time {
            self.link_mut(tail as usize).next = id;
            self.tails[slot] = id;
            self.nonempty[slot / 64] |= 1 << (slot % 64);
        } else {
            self.insert_sorted(slot, id);
        }
    }

    /// Rare: an event earlier than the last one of its bucket goes in after
    /// every event of its time (they were scheduled before it).
    #[inline(never)]
    fn insert_sorted(&mut self, slot: usize, id: u32) {
        let time = self.pool[id as usize].time;
        // The walk may start at any entry of this list no later than `time`:
        // the hint if it is still one, else the list's head. Pops go in time
        // order, so an entry due after now is still in its list; in this
        // slot's, if its bucket is `time`'s (the wheel holds each slot's
        // bucket once).
        let (hint, h) = self.hints[slot];
        let usable = h > self.now && h <= time && h >> self.shift == time >> self.shift;
        let mut prev = if usable { hint } else { slot as u32 };
        while self.pool[self.pool[prev as usize].next as usize].time <= time {
            prev = self.pool[prev as usize].next;
        }
        self.pool[id as usize].next = self.pool[prev as usize].next;
        self.pool[prev as usize].next = id;
        self.hints[slot] = (id, time);
    }

    #[inline(never)]
    fn place_far(&mut self, at: Time, event: E) {
        let entry = Entry { key: ((at as u128) << 64) | self.seq as u128, event };
        self.seq += 1;
        self.far_bucket = self.far_bucket.min(entry.bucket(self.shift));
        self.far.push(entry);
    }

    /// Removes the next event and advances time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<E> {
        self.pop_until(Time::MAX)
    }

    /// Removes the next event if it is due no later than `until`.
    #[inline(always)]
    pub fn pop_until(&mut self, until: Time) -> Option<E> {
        // `first_bucket` taken apart, so that the rare further search does
        // not cost the common case a merge of the two answers.
        let b = match self.first_bucket_in_word() {
            Some(b) => b,
            None => match self.first_bucket_further() {
                Some(b) => b,
                None => return self.pop_far(until),
            },
        };
        let slot = (b & MASK) as usize;
        let id = self.link(slot).next as usize;
        let link = *self.link(id);
        let time = link.time;
        if time > until {
            // Nothing changes, so `now` and the current bucket keep agreeing.
            return None;
        }
        self.link_mut(slot).next = link.next;
        // Emptied: the tail goes back to the sentinel and the slot's bit is
        // cleared, without a branch (the predictor would miss half of them).
        let emptied = link.next == NIL;
        self.tails[slot] = std::hint::select_unpredictable(emptied, slot as u32, self.tails[slot]);
        self.nonempty[slot / 64] &= !((emptied as u64) << (slot % 64));
        self.link_mut(id).next = self.free;
        self.free = id as u32;
        self.cur = b;
        if self.far_bucket < b + BUCKETS {
            self.migrate_far();
        }
        self.now = time;
        self.executed += 1;
        Some(link.event)
    }

    /// The wheel is empty: moves the first far event's span onto it, if that
    /// event is due by `until`, and pops from there.
    #[cold]
    fn pop_far(&mut self, until: Time) -> Option<E> {
        let first = self.far.peek()?;
        if first.time() > until {
            return None;
        }
        self.cur = first.bucket(self.shift);
        self.migrate_far();
        self.pop_until(until)
    }

    /// Far events now within the wheel's span move onto it.
    #[cold]
    fn migrate_far(&mut self) {
        while let Some(e) = self.far.peek() {
            if e.bucket(self.shift) - self.cur >= BUCKETS {
                break;
            }
            let e = self.far.pop().expect("peeked");
            self.place(e.bucket(self.shift), e.time(), e.event);
        }
        self.far_bucket = self.far.peek().map_or(u64::MAX, |e| e.bucket(self.shift));
    }

    /// Absolute index of the first non-empty bucket on the wheel (the
    /// current one included). Events are dense, so the answer is nearly
    /// always in the current bucket's word of the bitmap: one predictable
    /// test rather than an unpredictable "is the current bucket empty?".
    #[inline(always)]
    fn first_bucket(&self) -> Option<u64> {
        self.first_bucket_in_word().or_else(|| self.first_bucket_further())
    }

    /// `first_bucket` within the current bucket's word of the bitmap.
    #[inline(always)]
    fn first_bucket_in_word(&self) -> Option<u64> {
        let start = (self.cur & MASK) as usize;
        let bit0 = start % 64;
        let word = self.nonempty[start / 64] & (!0u64 << bit0);
        (word != 0).then(|| self.cur + (word.trailing_zeros() as usize - bit0) as u64)
    }

    /// `first_bucket` beyond the current bucket's word of the bitmap.
    #[inline(never)]
    fn first_bucket_further(&self) -> Option<u64> {
        let start = (self.cur & MASK) as usize;
        let (w0, bit0) = (start / 64, start % 64);
        let mut found = None;
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let mut word = self.nonempty[w];
            if k == WORDS {
                // Back at the first word: only the bits before the start.
                word &= (1u64 << bit0).wrapping_sub(1);
            }
            if word != 0 {
                found = Some(w * 64 + word.trailing_zeros() as usize);
                break;
            }
        }
        let ahead = (found? as u64).wrapping_sub(self.cur) & MASK;
        Some(self.cur + ahead)
    }

    /// Time of the next pending event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        match self.first_bucket() {
            Some(b) => Some(self.pool[self.pool[(b & MASK) as usize].next as usize].time),
            None => self.far.peek().map(Entry::time),
        }
    }

    /// Number of events handled so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Number of events still pending (counted, not kept: nothing on the
    /// hot path needs it).
    pub fn pending(&self) -> usize {
        let mut pending = self.far.len();
        for slot in 0..BUCKETS as usize {
            let mut id = self.pool[slot].next;
            while id != NIL {
                pending += 1;
                id = self.pool[id as usize].next;
            }
        }
        pending
    }
}

#[cfg(test)]
mod tests;
