//! Integer simulated time.
//!
//! A tick is 1/3 ps, so that clocks in thirds of a nanosecond are exact as
//! well as whole picoseconds: B-Link's 40/3 ns bus beat (8 bytes at 600
//! MB/s) and GigaRing's 20/3 ns symbol (150 MHz), besides SCI's 2 ns.
//!
//! Times that were whole picoseconds convert to the same `f64` as they did
//! when time was counted in picoseconds ([`time_to_ps`], [`time_to_ns`]), so
//! reports do not change with the unit.

/// Simulated time in ticks of 1/3 ps. `u64` ticks last about 71 days of
/// simulated time, far beyond any run.
pub type Time = u64;

/// Ticks per picosecond.
pub const TICKS_PER_PS: Time = 3;

/// Ticks per nanosecond.
pub const TICKS_PER_NS: Time = 1_000 * TICKS_PER_PS;

/// Converts nanoseconds (possibly fractional, from a scenario file) to
/// time, rounding to the nearest tick.
pub fn ns_to_time(ns: f64) -> Time {
    (ns * TICKS_PER_NS as f64).round() as Time
}

/// Converts whole picoseconds to time.
pub const fn ps_to_time(ps: u64) -> Time {
    ps * TICKS_PER_PS
}

/// `x.round() as u64` (nearest, halves away from zero; saturating, NaN
/// 0) without a call: the x86-64 baseline has no rounding instruction, so
/// `f64::round` is a libm call (1% of the time of a ring past saturation,
/// where a fifth of the events are arrivals). The truncation is exact, and so is the fraction `x - t`
/// (below 2^53; from there on `x` is a whole number and the fraction 0).
#[inline(always)]
pub fn round_to_u64(x: f64) -> u64 {
    let t = x as u64;
    t.saturating_add((x - t as f64 >= 0.5) as u64)
}

/// Below this many ticks (2^53, about 50 simulated minutes) a time is
/// exact as an `f64` (and an `i64`, whose conversion is one instruction),
/// so one division by 3.0 or 3000.0 is correctly rounded from the exact
/// quotient: for a whole number of ps, exactly what the ps gave. Beyond it
/// the ticks as `f64` are rounded, so whole ps go through the integer
/// quotient.
const EXACT_IN_F64: Time = 1 << f64::MANTISSA_DIGITS;

/// Time in picoseconds: for a whole number of them, exactly the `f64` of
/// that integer.
#[inline]
pub fn time_to_ps(t: Time) -> f64 {
    if t < EXACT_IN_F64 {
        t as i64 as f64 / TICKS_PER_PS as f64
    } else if t.is_multiple_of(TICKS_PER_PS) {
        (t / TICKS_PER_PS) as f64
    } else {
        t as f64 / TICKS_PER_PS as f64
    }
}

/// Time in nanoseconds for reporting: for a whole number of picoseconds,
/// the same `f64` as picoseconds / 1000.
pub fn time_to_ns(t: Time) -> f64 {
    if t < EXACT_IN_F64 {
        t as i64 as f64 / TICKS_PER_NS as f64
    } else if t.is_multiple_of(TICKS_PER_PS) {
        (t / TICKS_PER_PS) as f64 / 1e3
    } else {
        t as f64 / TICKS_PER_NS as f64
    }
}

/// Time in seconds, for rates: picoseconds x 1e-12, as a rate in whole
/// picoseconds always was.
pub fn time_to_s(t: Time) -> f64 {
    time_to_ps(t) * 1e-12
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same as `round() as u64` on halves, their neighbours, the
    /// largest exact integers, the saturating ends and random draws.
    #[test]
    fn rounding_without_a_call_is_f64_round() {
        let mut xs = vec![0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -0.7, -3.2, 0.49999999999999994, 1e300, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
        for k in [1u64 << 52, 1 << 53, 1 << 63, u64::MAX] {
            let x = k as f64;
            xs.extend([x, x - 0.5, x + 0.5, f64::from_bits(x.to_bits() - 1), f64::from_bits(x.to_bits() + 1)]);
        }
        let mut r: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let x = (r >> 11) as f64 / (1u64 << 53) as f64 * 2e6;
            xs.extend([x, x.floor() + 0.5, f64::from_bits((x.floor() + 0.5).to_bits() - 1)]);
        }
        for x in xs {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
    }

    #[test]
    fn ns_round_trip() {
        assert_eq!(ns_to_time(2.0), 6_000);
        assert_eq!(ns_to_time(0.0015), 5);
        assert_eq!(time_to_ns(318_000), 106.0);
        assert_eq!(time_to_ps(ps_to_time(7)), 7.0);
    }

    #[test]
    fn thirds_of_a_nanosecond_are_exact() {
        assert_eq!(ns_to_time(40.0 / 3.0), 40_000);
        assert_eq!(ns_to_time(20.0 / 3.0), 20_000);
        assert_eq!(3 * ns_to_time(20.0 / 3.0), ns_to_time(20.0));
    }

    /// Whole picoseconds give the `f64` they gave as a count of picoseconds,
    /// also beyond 2^53 ticks, where ticks / 3000.0 would not.
    #[test]
    fn whole_picoseconds_convert_as_before() {
        for ps in [1u64, 7, 999, 106_000, 123_456_789, (1 << 53) / 3, (1 << 53) / 3 + 1, (1 << 53) + 1, 900_068_540_727_392_564, u64::MAX / 3] {
            let t = ps_to_time(ps);
            assert_eq!(time_to_ns(t).to_bits(), (ps as f64 / 1e3).to_bits(), "{ps} ps");
            assert_eq!(time_to_ps(t).to_bits(), (ps as f64).to_bits(), "{ps} ps");
            assert_eq!(time_to_s(t).to_bits(), (ps as f64 * 1e-12).to_bits(), "{ps} ps");
        }
    }
}
