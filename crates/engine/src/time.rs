//! Integer simulated time.

/// Simulated time in picoseconds. `u64` picoseconds last about 213 days of
/// simulated time, far beyond any run.
pub type Time = u64;

/// Picoseconds per nanosecond.
pub const PS_PER_NS: Time = 1_000;

/// Converts nanoseconds (possibly fractional, from a scenario file) to
/// picoseconds, rounding to the nearest picosecond.
pub fn ns_to_ps(ns: f64) -> Time {
    (ns * PS_PER_NS as f64).round() as Time
}

/// Converts picoseconds to nanoseconds for reporting.
pub fn ps_to_ns(ps: Time) -> f64 {
    ps as f64 / PS_PER_NS as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns_round_trip() {
        assert_eq!(ns_to_ps(2.0), 2_000);
        assert_eq!(ns_to_ps(0.0015), 2);
        assert_eq!(ps_to_ns(106_000), 106.0);
    }
}
