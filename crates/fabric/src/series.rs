//! The run interval by interval (`run.series_interval_ns`, or a fold's
//! default): what each interval carried from the warm-up's end, to watch a
//! run settle, a fold, or congestion windows close and open again.

use crate::report::IntervalReport;
use ringlet_engine::time::{time_to_ns, time_to_s, Time};

/// The intervals of one run and the windows' running sum.
#[derive(Clone)]
pub struct Series {
    every: Time,
    /// The warm-up's end: the first interval's start.
    from: Time,
    bins: Vec<Bin>,
    /// Streams whose windows adapt and are averaged (0: none), the sum of
    /// their windows now, and since when it has held.
    windows: u32,
    window_sum: u64,
    window_since: Time,
}

/// What one interval carried.
#[derive(Clone, Copy, Default)]
pub struct Bin {
    pub bytes: u64,
    /// Packets serviced and their latencies' sum, ps.
    pub packets: u64,
    pub latency_sum: f64,
    /// Transactions completed.
    pub txns: u64,
    /// Transaction latencies recorded (where transactions are kept) and their sum, ps.
    pub txn_latencies: u64,
    pub txn_latency_sum: f64,
    /// Packets busied and sent again.
    pub retries: u64,
    /// The windows' sum integrated over the interval (window x time units).
    window_time: f64,
    pub decreases: u64,
    pub resent: u64,
    pub duplicates: u64,
    pub lost: u64,
}

impl Series {
    /// Intervals `every` long from `from`, no windows averaged.
    pub fn new(every: Time, from: Time) -> Series {
        Series { every: every.max(1), from, bins: Vec::new(), windows: 0, window_sum: 0, window_since: from }
    }

    /// Averages the windows of `streams` streams, `sum` their windows' sum at the start.
    pub fn average_windows(&mut self, streams: u32, sum: u64) {
        self.windows = streams;
        self.window_sum = sum;
    }

    /// The interval of `now`, if `now` is measured.
    #[inline]
    pub fn bin(&mut self, now: Time) -> Option<&mut Bin> {
        if now < self.from {
            return None;
        }
        let k = ((now - self.from) / self.every) as usize;
        if k >= self.bins.len() {
            self.bins.resize(k + 1, Bin::default());
        }
        Some(&mut self.bins[k])
    }

    /// An averaged stream's window went from `old` to `new` at `now`.
    pub fn window_changed(&mut self, now: Time, old: u16, new: u16) {
        if self.windows == 0 {
            return;
        }
        self.spread(now);
        self.window_sum = self.window_sum + new as u64 - old as u64;
        if new < old {
            if let Some(b) = self.bin(now) {
                b.decreases += 1;
            }
        }
    }

    /// Integrates the windows' sum from when it last changed up to `until`
    /// into the intervals that time covers.
    fn spread(&mut self, until: Time) {
        let mut t = self.window_since.max(self.from);
        while t < until {
            let k = (t - self.from) / self.every;
            let end = (self.from + (k + 1) * self.every).min(until);
            let sum = self.window_sum as f64;
            if let Some(b) = self.bin(t) {
                b.window_time += sum * (end - t) as f64;
            }
            t = end;
        }
        self.window_since = self.window_since.max(until);
    }

    /// The intervals up to `end`, the last one cut at `end` (its rates over the part run).
    pub fn report(&self, end: Time) -> Vec<IntervalReport> {
        let mut s = self.clone();
        // (Spreading the windows up to `end` opens every interval up to it.)
        s.spread(end);
        let mean = |sum: f64, n: u64| if n > 0 { sum / n as f64 / 1e3 } else { f64::NAN };
        (0..s.bins.len())
            .map(|k| {
                let b = s.bins.get(k).copied().unwrap_or_default();
                let start = s.from + k as Time * s.every;
                let len = (start + s.every).min(end.max(start + 1)) - start;
                IntervalReport {
                    start_ns: time_to_ns(start),
                    throughput_mbps: b.bytes as f64 / time_to_s(len) / 1e6,
                    latency_ns_mean: mean(b.latency_sum, b.packets),
                    transactions: b.txns,
                    transaction_latency_ns_mean: mean(b.txn_latency_sum, b.txn_latencies),
                    retransmissions: b.retries,
                    window_mean: if s.windows > 0 { b.window_time / len as f64 / s.windows as f64 } else { f64::NAN },
                    window_decreases: b.decreases,
                    resent: b.resent,
                    duplicates_suppressed: b.duplicates,
                    lost: b.lost,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_held_half_an_interval_counts_half() {
        // Two streams, windows 8 + 8 from the start; one halves to 4 in the
        // middle of the second interval and the other at the start of the fourth.
        let mut s = Series::new(100, 1000);
        s.average_windows(2, 16);
        s.window_changed(1150, 8, 4);
        s.window_changed(1300, 8, 4);
        let r = s.report(1400);
        let w: Vec<f64> = r.iter().map(|b| b.window_mean).collect();
        assert_eq!(w, vec![8.0, 7.0, 6.0, 4.0]);
        let d: Vec<u64> = r.iter().map(|b| b.window_decreases).collect();
        assert_eq!(d, vec![0, 1, 0, 1]);
    }

    #[test]
    fn the_last_interval_is_cut_at_the_end_and_nothing_counts_before_the_warm_up() {
        let mut s = Series::new(100, 1000);
        assert!(s.bin(999).is_none());
        s.bin(1000).unwrap().bytes = 100;
        s.bin(1150).unwrap().bytes = 50;
        let r = s.report(1150 + 1);
        assert_eq!(r.len(), 2);
        // 100 bytes in 100 time units and 50 in the 51 run of the second.
        let unit = time_to_s(1);
        assert!((r[0].throughput_mbps - 100.0 / (100.0 * unit) / 1e6).abs() < 1e-9 * r[0].throughput_mbps);
        assert!((r[1].throughput_mbps - 50.0 / (51.0 * unit) / 1e6).abs() < 1e-9 * r[1].throughput_mbps);
        assert!(r[0].window_mean.is_nan(), "no windows averaged");
    }

    /// Latencies are summed in ps and reported as each interval's mean in
    /// ns; an interval with none has no mean.
    #[test]
    fn latency_means_are_per_interval_in_ns() {
        let mut s = Series::new(100, 1000);
        let b = s.bin(1000).unwrap();
        (b.packets, b.latency_sum) = (2, 3000.0);
        (b.txn_latencies, b.txn_latency_sum) = (4, 10_000.0);
        s.bin(1100).unwrap().bytes = 1;
        let r = s.report(1200);
        assert_eq!((r[0].latency_ns_mean, r[0].transaction_latency_ns_mean), (1.5, 2.5));
        assert!(r[1].latency_ns_mean.is_nan() && r[1].transaction_latency_ns_mean.is_nan());
    }

    /// An interval opened at the run's very end (something counted at the
    /// last instant, on an interval boundary) is one time unit long, so its
    /// rates stay finite.
    #[test]
    fn an_interval_opened_at_the_end_lasts_one_time_unit() {
        let mut s = Series::new(100, 1000);
        s.bin(1000).unwrap().bytes = 100;
        s.bin(1100).unwrap().bytes = 10;
        let r = s.report(1100);
        assert_eq!(r.len(), 2);
        let unit = time_to_s(1);
        assert!((r[1].throughput_mbps - 10.0 / unit / 1e6).abs() < 1e-9 * r[1].throughput_mbps);
    }

    /// Intervals after the last activity are reported, empty, up to the
    /// run's end (a network gone quiet shows as zeros, not as nothing).
    #[test]
    fn quiet_intervals_up_to_the_end_are_reported() {
        let mut s = Series::new(100, 1000);
        s.bin(1050).unwrap().bytes = 10;
        let r = s.report(1350);
        assert_eq!(r.iter().map(|b| b.start_ns).collect::<Vec<_>>(), [1000, 1100, 1200, 1300].map(time_to_ns));
        assert_eq!(r.iter().map(|b| b.throughput_mbps == 0.0).collect::<Vec<_>>(), [false, true, true, true]);
        assert!(Series::new(100, 1000).report(1000).is_empty(), "nothing measured yet");
    }
}
