//! The scheduler's pop order: time, then scheduling order, whatever the
//! events' spread over the wheel and the far heap.

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

/// A small deterministic generator for the randomized tests.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

type Reference = std::collections::BTreeMap<(Time, u32), u32>;

/// Schedules 0-2 events at random delays drawn from `spans` (one of
/// them, then uniformly below it; 0 means "now"), in `s` and in `reference`.
fn schedule_some(s: &mut Scheduler<u32>, reference: &mut Reference, rng: &mut XorShift, id: &mut u32, spans: [u64; 4]) {
    let now = s.now();
    for _ in 0..rng.below(3) {
        let span = spans[rng.below(4) as usize];
        let delay = if span == 0 { 0 } else { rng.below(span) };
        reference.insert((now + delay, *id), *id);
        s.at(now + delay, *id);
        *id += 1;
    }
}

/// A large ring's pattern: buckets whose tail is an unaligned event (a
/// Poisson arrival) keep receiving events of cycle-aligned times, which
/// go in before it (from the slot's hint), while pops free entries that
/// are reused, the hint's among them.
#[test]
fn aligned_events_behind_an_unaligned_tail_keep_their_order() {
    let mut s = Scheduler::with_capacity(8);
    let mut reference = Reference::new();
    let mut rng = XorShift(4242);
    let mut id = 0u32;
    let cycle = 2 * crate::time::TICKS_PER_NS;
    for step in 0..4000u64 {
        let now = s.now();
        if step % 7 == 0 {
            // An arrival somewhere in the next few cycles, off the cycle grid.
            let t = (now + rng.below(8 * cycle)) | 1;
            reference.insert((t, id), id);
            s.at(t, id);
            id += 1;
        }
        if step % 3 == 0 {
            // Now, in the current bucket: reuses the entry just popped,
            // maybe the hint's, ahead of a later arrival there.
            let t = now;
            reference.insert((t, id), id);
            s.at(t, id);
            id += 1;
        }
        for _ in 0..rng.below(6) {
            let t = (now / cycle + 1 + rng.below(4)) * cycle;
            reference.insert((t, id), id);
            s.at(t, id);
            id += 1;
        }
        for _ in 0..rng.below(5) {
            if let Some((&(t, k), &want)) = reference.iter().next() {
                reference.remove(&(t, k));
                assert_eq!(s.pop(), Some(want), "at {t}");
            }
        }
    }
    while let Some((&(t, k), &want)) = reference.iter().next() {
        reference.remove(&(t, k));
        assert_eq!(s.pop(), Some(want), "at {t}");
    }
    assert_eq!(s.pop(), None);
}

/// Against an ordered map on a random mix of near, equal-time and
/// far-future events, interleaving pops and pushes as a model does.
#[test]
fn same_order_as_a_heap() {
    same_order_as_a_heap_with(BUCKET_SHIFT);
}

/// The same with finer buckets (a wheel of a shorter span, more events
/// in the far heap), as a fabric of thousands of interfaces asks for.
#[test]
fn same_order_as_a_heap_with_finer_buckets() {
    same_order_as_a_heap_with(BUCKET_SHIFT - 3);
}

fn same_order_as_a_heap_with(shift: u32) {
    let mut s = Scheduler::with_bucket(8, shift);
    let mut reference = Reference::new();
    let mut rng = XorShift(12345);
    let mut id = 0u32;
    for _ in 0..20_000 {
        schedule_some(&mut s, &mut reference, &mut rng, &mut id, [0, 15_000, 600_000, 150_000_000]);
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

/// As above, with pops bounded at random times (as runs that stop at a
/// time, or at a trace window's end, do) and pushes in between.
#[test]
fn bounded_pops_in_the_same_order_as_a_heap() {
    let mut s = Scheduler::with_capacity(8);
    let mut reference = Reference::new();
    let mut rng = XorShift(987654321);
    let mut id = 0u32;
    for _ in 0..20_000 {
        let now = s.now();
        schedule_some(&mut s, &mut reference, &mut rng, &mut id, [9000, 300_000, 15_000_000, 60_000_000_000]);
        let until = now + rng.below(12_000_000);
        let want = reference.iter().next().filter(|(&(t, _), _)| t <= until).map(|(&k, &v)| (k, v));
        assert_eq!(s.pop_until(until), want.map(|(_, v)| v), "until {until}");
        if let Some((k, _)) = want {
            reference.remove(&k);
            assert_eq!(s.now(), k.0);
        } else {
            assert_eq!(s.now(), now, "a pop that finds nothing leaves time alone");
        }
        assert_eq!(s.peek_time(), reference.keys().next().map(|&(t, _)| t));
    }
    assert_eq!(s.pending(), reference.len());
}

/// A bounded pop that finds nothing due leaves the list as it was, so
/// events scheduled afterwards (earlier than the next pending one, in
/// the same bucket or not, near or beyond the wheel) still come in order.
#[test]
fn bounded_pops_then_earlier_pushes() {
    let mut s = Scheduler::with_capacity(4);
    let far = 10_000_000_000; // beyond the wheel's span
    s.at(100_000, 'c');
    s.at(far, 'f');
    assert_eq!(s.pop_until(50_000), None);
    assert_eq!(s.now(), 0);
    s.at(99_999, 'b'); // same bucket as 'c', earlier
    s.at(40_000, 'a');
    assert_eq!(s.peek_time(), Some(40_000));
    assert_eq!(s.pop_until(50_000), Some('a'));
    assert_eq!(s.pop_until(99_998), None);
    assert_eq!(s.pop_until(100_000), Some('b'));
    assert_eq!(s.pop_until(100_000), Some('c'));
    assert_eq!(s.peek_time(), Some(far));
    assert_eq!(s.pop_until(far - 1), None);
    s.at(far - 1, 'e'); // near the far event, scheduled from far away
    s.at(5_000_000_000, 'd');
    let rest: String = std::iter::from_fn(|| s.pop()).collect();
    assert_eq!(rest, "def");
    assert_eq!(s.now(), far);
    assert_eq!(s.pending(), 0);
}

/// Events of one time keep their scheduling order whether they waited
/// beyond the wheel or were scheduled onto it later, or out of order
/// within a bucket.
#[test]
fn equal_times_keep_scheduling_order_across_far_and_near() {
    let mut s = Scheduler::with_capacity(4);
    let t = 50_000_000; // beyond the wheel at time 0
    s.at(t, 1);
    s.at(t + 1, 2);
    s.at(t - 40_000, 0); // far too, earlier
    assert_eq!(s.pop(), Some(0)); // the wheel turns: 1 and 2 come onto it
    s.at(t, 3); // same time as 1, scheduled later
    s.at(t + 1, 4);
    s.at(t, 5);
    s.at(t - 1, 6); // earlier than everything in that bucket
    let order: Vec<i32> = std::iter::from_fn(|| s.pop()).collect();
    assert_eq!(order, vec![6, 1, 3, 5, 2, 4]);
}

/// Many events of a few equal times, all beyond the wheel: the far
/// heap alone orders them, by their sequence numbers.
#[test]
fn equal_far_times_pop_in_scheduling_order() {
    let mut s = Scheduler::with_capacity(4);
    let far = 50_000_000; // beyond the wheel at time 0
    let times = [far + 7, far, far + 7, far + 3];
    for id in 0..64u32 {
        s.at(times[id as usize % times.len()], id);
    }
    let order: Vec<u32> = std::iter::from_fn(|| s.pop()).collect();
    let mut want: Vec<u32> = (0..64).collect();
    want.sort_by_key(|&id| times[id as usize % times.len()]); // stable: ties keep their order
    assert_eq!(order, want);
}

#[test]
fn after_is_relative_to_now() {
    let mut s = Scheduler::with_capacity(2);
    s.at(5, 1u8);
    s.pop();
    s.after(7, 2u8);
    assert_eq!(s.peek_time(), Some(12));
}
