//! Forward progress, node by node, judged by each node's own completions:
//! the longest stretch of the measurement window in which a node had
//! transactions outstanding (generated, neither completed nor lost) and
//! completed none. A node whose longest stretch exceeds the stall window
//! (`STALL_FRACTION` of the measurement window) is *stalled*, whatever the
//! other nodes carried: unlike a starved node (`measure::STARVED_BELOW`),
//! it is not named by comparison with a well-served one, so a run in which
//! every node is overloaded still names the one that completes nothing.
//!
//! Beside it, the same stretch judged by data: none of the node's
//! transactions delivered any (a copy's aside) nor completed. A block of
//! many packets moves packet by packet long before its last one completes
//! it, so where its node's share of a busy channel is small the two part:
//! a GigaRing node whose write-request channel holds a 1,024-word block's
//! 32 packets completes nothing for 1.6 ms while the block's data goes
//! every 50 µs.

use ringlet_engine::Time;

/// A node that completes nothing for longer than this fraction of the
/// measurement window, while it has work outstanding, is stalled.
pub const STALL_FRACTION: f64 = 0.1;

/// Per agent: since when its current stretch without a completion runs,
/// and the longest stretch so far (both clipped to the measurement window);
/// the same for its stretches without data delivered (`by_data`).
pub struct Stalls {
    by_completion: Stretches,
    by_data: Stretches,
    warmup_end: Time,
}

/// Stretches of one kind, per agent.
struct Stretches {
    since: Vec<Time>,
    longest: Vec<Time>,
}

impl Stretches {
    fn new(agents: usize) -> Stretches {
        Stretches { since: vec![0; agents], longest: vec![0; agents] }
    }

    /// The part of the stretch of agent `a` from its start to `now` inside the window.
    #[inline(always)]
    fn stretch(&self, a: usize, now: Time, warmup_end: Time) -> Time {
        now.saturating_sub(self.since[a].max(warmup_end))
    }

    #[inline(always)]
    fn end(&mut self, a: usize, now: Time, warmup_end: Time) {
        let s = self.stretch(a, now, warmup_end);
        if s > self.longest[a] {
            self.longest[a] = s;
        }
        self.since[a] = now;
    }

    fn longest(&self, a: usize, end: Time, outstanding: u64, warmup_end: Time) -> Time {
        let open = if outstanding > 0 { self.stretch(a, end, warmup_end) } else { 0 };
        self.longest[a].max(open)
    }
}

impl Stalls {
    pub fn new(agents: usize, warmup_end: Time) -> Stalls {
        Stalls { by_completion: Stretches::new(agents), by_data: Stretches::new(agents), warmup_end }
    }

    /// Agent `a` generated a transaction, with `outstanding` before it: a
    /// stretch starts if it had nothing outstanding.
    #[inline(always)]
    pub fn generated(&mut self, a: usize, now: Time, outstanding: u64) {
        if outstanding == 0 {
            self.by_completion.since[a] = now;
            self.by_data.since[a] = now;
        }
    }

    /// Agent `a` completed a transaction, or lost its last outstanding one
    /// (nothing left to wait for): its stretches end.
    #[inline(always)]
    pub fn ended(&mut self, a: usize, now: Time) {
        self.by_completion.end(a, now, self.warmup_end);
        self.by_data.end(a, now, self.warmup_end);
    }

    /// Data of a transaction of agent `a` was delivered: its stretch without
    /// data ends.
    #[inline(always)]
    pub fn delivered(&mut self, a: usize, now: Time) {
        self.by_data.end(a, now, self.warmup_end);
    }

    /// The longest stretch of agent `a` without a completion at the run's
    /// end (`end`), counting the one still open if it has work outstanding.
    pub fn longest(&self, a: usize, end: Time, outstanding: u64) -> Time {
        self.by_completion.longest(a, end, outstanding, self.warmup_end)
    }

    /// The same for its stretches without data delivered.
    pub fn longest_without_data(&self, a: usize, end: Time, outstanding: u64) -> Time {
        self.by_data.longest(a, end, outstanding, self.warmup_end)
    }
}

#[cfg(test)]
mod tests {
    use super::Stalls;

    /// Stretches count from the warm-up's end, only while work is
    /// outstanding, and the open one counts at the end.
    #[test]
    fn a_stretch_runs_from_work_to_completion_inside_the_window() {
        let mut s = Stalls::new(2, 100);
        s.generated(0, 10, 0);
        s.ended(0, 150); // 100..150 inside the window
        assert_eq!(s.longest(0, 1000, 0), 50);
        s.generated(0, 200, 0);
        s.generated(0, 250, 1); // more work: the stretch still runs from 200
        s.ended(0, 400);
        assert_eq!(s.longest(0, 1000, 1), 600, "the open stretch from 400 to the end");
        assert_eq!(s.longest(0, 1000, 0), 200);
        // Nothing outstanding: no stretch, however long the run.
        assert_eq!(s.longest(1, 1000, 0), 0);
        s.generated(1, 900, 0);
        assert_eq!(s.longest(1, 1000, 1), 100);
    }

    /// Data delivered ends a stretch judged by data, not one judged by
    /// completions; a completion ends both.
    #[test]
    fn data_delivered_ends_only_the_stretch_without_data() {
        let mut s = Stalls::new(1, 0);
        s.generated(0, 0, 0);
        s.delivered(0, 30);
        s.delivered(0, 70);
        s.ended(0, 100);
        assert_eq!((s.longest(0, 100, 0), s.longest_without_data(0, 100, 0)), (100, 40));
        s.generated(0, 200, 0);
        s.delivered(0, 260);
        assert_eq!((s.longest(0, 300, 1), s.longest_without_data(0, 300, 1)), (100, 60), "the open stretches from 200 and 260");
        assert_eq!(s.longest_without_data(0, 400, 1), 140);
    }
}
