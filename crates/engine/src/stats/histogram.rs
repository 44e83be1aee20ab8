//! Latency percentiles from an HDR histogram (the `hdrhistogram` crate).

use crate::time::{time_to_ps, Time, TICKS_PER_PS};
use hdrhistogram::{Counter, Histogram};

/// Latencies recorded in picoseconds (the nearest one to a time in ticks:
/// 3 significant digits need no finer, and the buckets stay those of
/// picoseconds), with their exact sum (for the mean), counted in `T` (see
/// [`LatencyHistogram`] and [`CoarseHistogram`]).
#[derive(Clone, Debug)]
pub struct Latencies<T: Counter> {
    h: Histogram<T>,
    sum: f64,
}

/// Latencies with 3 significant digits, from 1 ps to about 1.1 simulated
/// hours; larger values saturate at the top bucket.
pub type LatencyHistogram = Latencies<u64>;

/// Latencies with 2 significant digits, in a histogram that grows only as
/// far as the values recorded, with 32-bit counts (saturating): small
/// enough to keep one per agent of a large fabric (a few kilobytes where a
/// [`LatencyHistogram`] takes 350) and to touch little cache per record.
pub type CoarseHistogram = Latencies<u32>;

const HIGHEST_PS: u64 = 1 << 52;

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        Latencies { h: Histogram::new_with_bounds(1, HIGHEST_PS, 3).expect("valid bounds"), sum: 0.0 }
    }

    /// One histogram of everything `parts` recorded. `sum` is the sum of
    /// all recorded values in recording order (adding the parts' sums
    /// would round differently).
    pub fn merged(parts: &[LatencyHistogram], sum: f64) -> Self {
        let mut all = LatencyHistogram::new();
        for part in parts {
            all.add(part);
        }
        all.sum = sum;
        all
    }

    pub fn add(&mut self, other: &LatencyHistogram) {
        self.h.add(&other.h).expect("same bounds");
        self.sum += other.sum;
    }
}

impl CoarseHistogram {
    pub fn coarse() -> Self {
        let mut h = Histogram::new(2).expect("valid precision");
        h.auto(true);
        Latencies { h, sum: 0.0 }
    }
}

impl<T: Counter> Latencies<T> {
    #[inline]
    pub fn record(&mut self, t: Time) {
        let ps = ((t + TICKS_PER_PS / 2) / TICKS_PER_PS).max(1);
        // A growing histogram grows to the value; a bounded one saturates at its top.
        if self.h.record(ps).is_err() {
            self.h.saturating_record(ps);
        }
        self.sum += time_to_ps(t);
    }

    pub fn count(&self) -> u64 {
        self.h.len()
    }

    /// Exact mean of the recorded values (not bucketed), ps.
    pub fn mean_ps(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.sum / self.count() as f64
        }
    }

    /// The value at percentile `p` (0-100), within the histogram's precision, ps.
    pub fn percentile_ps(&self, p: f64) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.h.value_at_percentile(p) as f64
        }
    }

    /// The largest value, within the histogram's precision, ps.
    pub fn max_ps(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.h.max() as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ps_to_time;

    #[test]
    fn coarse_percentiles_within_two_digits() {
        let mut h = CoarseHistogram::coarse();
        for v in 1..=1000u64 {
            h.record(ps_to_time(v * 1_000_000));
        }
        let p99 = h.percentile_ps(99.0);
        assert!((p99 - 990e6).abs() / 990e6 < 0.01, "{p99}");
        assert!((h.mean_ps() - 500.5e6).abs() < 1.0);
    }

    #[test]
    fn percentiles_within_precision() {
        let mut h = LatencyHistogram::new();
        for v in 1..=1000u64 {
            h.record(ps_to_time(v * 1000));
        }
        assert_eq!(h.count(), 1000);
        assert!((h.mean_ps() - 500_500.0).abs() < 1e-6);
        let p99 = h.percentile_ps(99.0);
        assert!((p99 - 990_000.0).abs() / 990_000.0 < 0.002, "{p99}");
        assert!((h.max_ps() - 1_000_000.0).abs() / 1e6 < 0.002);
    }

    #[test]
    fn records_the_nearest_picosecond() {
        let mut h = LatencyHistogram::new();
        h.record(ps_to_time(5) + 1);
        assert_eq!(h.max_ps(), 5.0);
        h.record(ps_to_time(5) + 2);
        assert_eq!(h.max_ps(), 6.0);
        assert_eq!(h.mean_ps(), (16.0 / 3.0 + 17.0 / 3.0) / 2.0);
    }
}
