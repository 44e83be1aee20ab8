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
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> + ExactSizeIterator + Clone + '_ {
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

    /// Takes out the entry at position `at`, moving up the entries on its
    /// shorter side: those ahead of it back, or those behind it forward
    /// (a priority-ordered bypass takes its best entry from near the front
    /// of a FIFO that a long node delay fills with entries still coming).
    pub fn remove(&mut self, at: usize) -> Option<Entry> {
        if at >= self.len {
            return None;
        }
        let e = self[at];
        if at < self.len / 2 {
            for k in (0..at).rev() {
                self.buf[self.slot(k + 1)] = self.buf[self.slot(k)];
            }
            self.head = self.slot(1);
        } else {
            for k in at..self.len - 1 {
                self.buf[self.slot(k)] = self.buf[self.slot(k + 1)];
            }
        }
        self.len -= 1;
        Some(e)
    }
}

/// The most a bypass FIFO has held, in symbol times (symbols x cycle).
///
/// An entry's symbols come in one per cycle from the time its head is ready
/// to leave (`Entry`'s time: a passing packet's head after the node delay;
/// an echo, a control packet or a busy echo put into the stream, from the
/// time it is put there) and go out one per cycle from the time its head
/// leaves; the FIFO holds those that have come in and not gone out. Idles
/// are not held (an idle that arrives while the FIFO holds symbols is what
/// drains it). Counted continuously, the holding is piecewise linear and
/// rises only while some entry is coming in, so its peaks are where an entry
/// is all in or one starts to leave: `Occupancy` looks at exactly those
/// instants, each once, when the FIFO is about to change other than by
/// arrivals (an entry leaves, or is replaced) and when asked.
#[derive(Clone, Copy, Debug, Default)]
pub struct Occupancy {
    /// The entry that left last (it may still be leaving): its head's ready
    /// time, its length (symbol times) and the time its head left.
    last: Option<(Time, Time, Time)>,
    /// Peaks up to this time are in `peak`.
    checked: Time,
    peak: Time,
}

impl Occupancy {
    /// Symbol times held at `t`, of `entries` (ready time, length in
    /// symbol times) still in the FIFO and the entry that left last.
    fn held(&self, entries: &[(Time, Time)], t: Time) -> Time {
        let arrived = |ready: Time, len: Time| t.saturating_sub(ready).min(len);
        let waiting: Time = entries.iter().map(|&(ready, len)| arrived(ready, len)).sum();
        match self.last {
            Some((ready, len, left)) => waiting + arrived(ready, len) - arrived(left, len),
            None => waiting,
        }
    }

    /// The most held up to `now`, with `entries` (ready time, length in
    /// symbol times) in the FIFO since the last call to `seen` or `leaves`.
    #[inline(always)]
    pub fn peak_until(&self, entries: impl Iterator<Item = (Time, Time)> + Clone, now: Time) -> Time {
        // A bound first, exact enough to answer most calls (every hop makes
        // one): since the last look, what the entries brought in has only
        // grown, to at most what they hold now, and what is left of the
        // entry that left last has only shrunk (it goes out at least as
        // fast as it comes in once it has started to leave). No new peak
        // unless the two together pass the old.
        let coming: Time = entries.clone().map(|(ready, len)| now.saturating_sub(ready).min(len)).sum();
        let left = self.last_left(self.checked);
        if coming + left <= self.peak || self.one_at_a_time_bound(entries.clone(), now, coming, left) <= self.peak {
            return self.peak;
        }
        self.peak_at_changes(entries, now)
    }

    /// A tighter bound for entries that come in one after another, as a
    /// link delivers them (`Time::MAX` for any others): until the entry
    /// that left last is all in, what is left of it stays as it was (it
    /// comes in as fast as it goes out); from then on it drains as fast as
    /// one entry at a time can come in, until it is gone. So the holding
    /// never passes what was left of it with what the entries had brought
    /// by then (`left` and `at_all_in`), nor what the entries hold now
    /// (`coming`).
    #[inline(never)]
    fn one_at_a_time_bound(&self, entries: impl Iterator<Item = (Time, Time)>, now: Time, coming: Time, left: Time) -> Time {
        let Some((ready, len, _)) = self.last else { return Time::MAX };
        let all_in = (ready + len).max(self.checked).min(now);
        let (mut at_all_in, mut end) = (0, 0);
        for (came, len) in entries {
            if came < end {
                return Time::MAX; // two at once
            }
            end = came + len;
            at_all_in += all_in.saturating_sub(came).min(len);
        }
        (at_all_in + left).max(coming)
    }

    /// `peak_until` the long way: the holding at `now` and wherever an
    /// entry was all in since the last look.
    #[inline(never)]
    fn peak_at_changes(&self, entries: impl Iterator<Item = (Time, Time)>, now: Time) -> Time {
        // Only entries that have started to come in hold anything by now;
        // they are few (what one link brought while the node was busy).
        let mut few = [(0, 0); 8];
        let (mut n, mut many) = (0, Vec::new());
        for (ready, len) in entries.filter(|&(ready, _)| ready < now) {
            if n < few.len() {
                few[n] = (ready, len);
                n += 1;
            } else {
                many.push((ready, len));
            }
        }
        let entries = if many.is_empty() {
            &few[..n]
        } else {
            many.extend_from_slice(&few[..n]);
            &many[..]
        };
        let mut peak = self.peak.max(self.held(entries, now));
        let last = self.last.map(|(ready, len, _)| (ready, len));
        for &(ready, len) in entries.iter().chain(last.as_ref()) {
            let all_in = ready + len;
            if all_in > self.checked && all_in < now {
                peak = peak.max(self.held(entries, all_in));
            }
        }
        peak
    }

    /// What is left in the FIFO at `t` of the entry that left last.
    #[inline(always)]
    fn last_left(&self, t: Time) -> Time {
        let arrived = |ready: Time, len: Time| t.saturating_sub(ready).min(len);
        self.last.map_or(0, |(ready, len, left)| arrived(ready, len) - arrived(left, len))
    }

    /// Counts the peaks up to `now` (the entries are about to change).
    #[inline(always)]
    pub fn seen(&mut self, entries: impl Iterator<Item = (Time, Time)> + Clone, now: Time) {
        self.peak = self.peak_until(entries, now);
        self.checked = now;
    }

    /// The entry of `ready` and `len` (symbol times), one of `entries`,
    /// starts to leave now.
    #[inline(always)]
    pub fn leaves(&mut self, entries: impl Iterator<Item = (Time, Time)> + Clone, now: Time, ready: Time, len: Time) {
        self.seen(entries, now);
        self.last = Some((ready, len, now));
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

    /// Occupancy in symbol times of 1 tick: a 40-symbol packet buffered from 0
    /// leaves at 41 (behind an own packet and its separator); a 2-symbol
    /// control packet is put into the stream then, while the next
    /// 40-symbol packet comes in from 41. The control packet is all in at
    /// 43 (38 + 2 + 2 = 42 held) and leaves at 82, when the second packet
    /// is all in too (2 + 40): 42 at both peaks, over a 41-symbol FIFO.
    #[test]
    fn occupancy_counts_what_has_come_in_and_not_gone_out() {
        let (a, c, b) = ((0, 40), (41, 2), (41, 40));
        let mut o = Occupancy::default();
        assert_eq!(o.peak_until([a].into_iter(), 20), 20);
        assert_eq!(o.peak_until([a].into_iter(), 41), 40);
        o.leaves([a, c, b].into_iter(), 41, a.0, a.1);
        assert_eq!(o.held(&[c, b], 42), 39 + 1 + 1);
        assert_eq!(o.held(&[c, b], 43), 42);
        assert_eq!(o.held(&[c, b], 60), 21 + 2 + 19);
        assert_eq!(o.peak_until([c, b].into_iter(), 82), 42);
        o.leaves([c, b].into_iter(), 82, c.0, c.1);
        // Then the second packet leaves at 84 (2 + 0 separators after the
        // control packet) with all of it in: 40 held, 42 the peak.
        assert_eq!(o.held(&[b], 84), 40);
        o.leaves([b].into_iter(), 84, b.0, b.1);
        assert_eq!(o.peak_until(std::iter::empty(), 1000), 42);
        // A packet that passes straight through (leaves when its head is ready) holds nothing.
        let mut o = Occupancy::default();
        o.leaves([(5, 40)].into_iter(), 5, 5, 40);
        assert_eq!(o.peak_until(std::iter::empty(), 100), 0);
    }

    /// A peak between two looks, where an entry is all in: a 10-symbol
    /// packet starts to leave at 2 while still coming in (2 held until it
    /// is all in at 10, then draining by 12); a 3-symbol one comes in from
    /// 5 and waits. 5 are held from 8 (its tail) to 10 (the first's tail);
    /// asked at 20, when only the 3 are left, the peak is still 5.
    #[test]
    fn a_peak_between_two_looks_is_found_at_an_entrys_tail() {
        let mut o = Occupancy::default();
        o.leaves(std::iter::empty(), 2, 0, 10);
        let b = (5, 3);
        assert_eq!(o.held(&[b], 20), 3);
        assert_eq!((o.held(&[b], 8), o.held(&[b], 10)), (5, 5));
        assert_eq!(o.peak_until([b].into_iter(), 20), 5);
    }

    /// Every operation agrees with `VecDeque` over a random mix that wraps
    /// the buffer and makes it grow.
    #[test]
    fn same_as_a_vecdeque() {
        let mut f = BypassFifo::with_capacity(2);
        let mut d: VecDeque<Entry> = VecDeque::new();
        assert!(f.is_empty());
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
            assert_eq!((f.len(), f.is_empty()), (d.len(), d.is_empty()));
            assert_eq!(f.front(), d.front());
            assert_eq!(f.back(), d.back());
            assert!(f.iter().eq(d.iter()), "step {step}");
            assert_eq!(f.iter().rposition(|e| e.1 < 500), d.iter().rposition(|e| e.1 < 500));
        }
        // Drained: empty again.
        while let Some(e) = d.pop_front() {
            assert!(!f.is_empty());
            assert_eq!(f.pop_front(), Some(e));
        }
        assert!(f.is_empty() && f.front().is_none());
    }

    /// Two entries coming in at once fill the FIFO faster than the one
    /// that left last drains it: a 10-symbol packet, all in at 10, leaves
    /// then, while a 30-symbol one is coming in from 0; a 5-symbol echo is
    /// put in from 10. At 14, 6 of the first, 14 of the second and 4 of
    /// the echo are in: 24 held, more than the 20 of 10 (the bound for
    /// entries that come in one after another must not answer here).
    #[test]
    fn entries_coming_in_together_fill_faster_than_the_last_drains() {
        let (first, long, echo) = ((0, 10), (0, 30), (10, 5));
        let mut o = Occupancy::default();
        o.leaves([first, long].into_iter(), 10, first.0, first.1);
        o.seen([long].into_iter(), 10);
        assert_eq!(o.peak_until([long].into_iter(), 10), 20);
        assert_eq!(o.held(&[long, echo], 14), 24);
        assert_eq!(o.peak_until([long, echo].into_iter(), 14), 24);
    }

    /// The peak counted at the instants `Occupancy` looks at equals the
    /// most held at any instant, over random streams: entries arriving one
    /// after another from the link, now and then one put into the stream
    /// that overlaps them, leaving in order one at a time on the output
    /// link, looked at between. (The bounds that answer most looks must
    /// never hide a peak.)
    #[test]
    fn the_peak_is_the_most_held_at_any_instant() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut rand = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..300 {
            // (came, len, left) of every entry, and the FIFO's own.
            let mut all: Vec<(Time, Time, Option<Time>)> = Vec::new();
            let mut fifo: VecDeque<usize> = VecDeque::new();
            let mut o = Occupancy::default();
            let (mut now, mut link_free, mut out_free) = (0, 0, 0);
            for _ in 0..40 {
                now += rand(12);
                match rand(4) {
                    0 | 1 => {
                        // From the link, after the one before it.
                        let came = now.max(link_free);
                        let len = 1 + rand(10);
                        link_free = came + len + rand(3);
                        all.push((came, len, None));
                        fifo.push_back(all.len() - 1);
                    }
                    2 => {
                        // Put into the stream now (an echo), at the end.
                        o.seen(fifo.iter().map(|&k| (all[k].0, all[k].1)), now);
                        all.push((now, 1 + rand(3), None));
                        fifo.push_back(all.len() - 1);
                    }
                    _ => {
                        // The front leaves, once ready and the output is free.
                        if let Some(&k) = fifo.front() {
                            now = now.max(all[k].0).max(out_free);
                            o.leaves(fifo.iter().map(|&k| (all[k].0, all[k].1)), now, all[k].0, all[k].1);
                            all[k].2 = Some(now);
                            out_free = now + all[k].1;
                            fifo.pop_front();
                        }
                    }
                }
                let held = |t: Time| -> Time {
                    let part = |from: Time, len: Time| t.saturating_sub(from).min(len);
                    all.iter().map(|&(came, len, left)| part(came, len) - left.map_or(0, |l| part(l, len))).sum()
                };
                let truth = (0..=now).map(held).max().unwrap_or(0);
                let seen = o.peak_until(fifo.iter().map(|&k| (all[k].0, all[k].1)), now);
                assert_eq!(seen, truth, "at {now}: {all:?}");
            }
        }
    }
}
