//! Forward progress, node by node, judged by each node's own completions:
//! the longest stretch of the measurement window in which a node had
//! transactions outstanding (generated, neither completed nor lost) and
//! completed none. A node whose longest stretch exceeds the stall window
//! (`STALL_FRACTION` of the measurement window) is *stalled*, whatever the
//! other nodes carried: unlike a starved node (`measure::STARVED_BELOW`),
//! it is not named by comparison with a well-served one, so a run in which
//! every node is overloaded still names the one that completes nothing.

use ringlet_engine::Time;

/// A node that completes nothing for longer than this fraction of the
/// measurement window, while it has work outstanding, is stalled.
pub const STALL_FRACTION: f64 = 0.1;

/// Per agent: since when its current stretch without a completion runs,
/// and the longest stretch so far (both clipped to the measurement window).
pub struct Stalls {
    since: Vec<Time>,
    longest: Vec<Time>,
    warmup_end: Time,
}

impl Stalls {
    pub fn new(agents: usize, warmup_end: Time) -> Stalls {
        Stalls { since: vec![0; agents], longest: vec![0; agents], warmup_end }
    }

    /// The part of the stretch of agent `a` from its start to `now` inside the window.
    #[inline(always)]
    fn stretch(&self, a: usize, now: Time) -> Time {
        now.saturating_sub(self.since[a].max(self.warmup_end))
    }

    /// Agent `a` generated a transaction, with `outstanding` before it: a
    /// stretch starts if it had nothing outstanding.
    #[inline(always)]
    pub fn generated(&mut self, a: usize, now: Time, outstanding: u64) {
        if outstanding == 0 {
            self.since[a] = now;
        }
    }

    /// Agent `a` completed a transaction, or lost its last outstanding one
    /// (nothing left to wait for): its stretch ends.
    #[inline(always)]
    pub fn ended(&mut self, a: usize, now: Time) {
        let s = self.stretch(a, now);
        if s > self.longest[a] {
            self.longest[a] = s;
        }
        self.since[a] = now;
    }

    /// The longest stretch of agent `a` at the run's end (`end`), counting
    /// the one still open if it has work outstanding.
    pub fn longest(&self, a: usize, end: Time, outstanding: u64) -> Time {
        let open = if outstanding > 0 { self.stretch(a, end) } else { 0 };
        self.longest[a].max(open)
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
}
