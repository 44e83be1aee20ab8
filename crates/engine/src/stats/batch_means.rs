//! Batch means: a steady-state estimator with a 95% confidence interval.
//!
//! Observations are grouped into consecutive batches; each batch is a ratio
//! (sum of a quantity / sum of a weight): data bytes per picosecond for
//! throughput, latency per packet for mean latency. Batch ratios are treated
//! as roughly independent samples. To keep a bounded number of batches
//! however long the run, when `max_batches` are full every adjacent pair is
//! merged (sums added) and the batch length doubles.

use serde::Serialize;

/// A point estimate with its 95% confidence half-width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Estimate {
    pub mean: f64,
    /// Half-width of the 95% confidence interval; `NaN` when fewer than two
    /// batches exist.
    pub ci95: f64,
    pub batches: usize,
}

impl Estimate {
    /// Half-width relative to the mean (infinite when undefined).
    pub fn relative_halfwidth(&self) -> f64 {
        if self.batches < 2 || self.mean == 0.0 || !self.ci95.is_finite() {
            f64::INFINITY
        } else {
            (self.ci95 / self.mean).abs()
        }
    }
}

#[derive(Clone, Debug)]
pub struct BatchMeans {
    /// Closed batches as (quantity sum, weight sum).
    batches: Vec<(f64, f64)>,
    max_batches: usize,
    /// Number of raw batches that make one stored batch (doubles on merge).
    span: u64,
    /// Raw batches accumulated toward the next stored batch.
    pending: (f64, f64, u64),
}

impl BatchMeans {
    /// `max_batches` must be even and at least 4.
    pub fn new(max_batches: usize) -> Self {
        assert!(max_batches >= 4 && max_batches.is_multiple_of(2));
        BatchMeans { batches: Vec::with_capacity(max_batches), max_batches, span: 1, pending: (0.0, 0.0, 0) }
    }

    /// Adds one raw batch (quantity, weight), for example (bytes, duration).
    pub fn push(&mut self, quantity: f64, weight: f64) {
        self.pending.0 += quantity;
        self.pending.1 += weight;
        self.pending.2 += 1;
        if self.pending.2 < self.span {
            return;
        }
        self.batches.push((self.pending.0, self.pending.1));
        self.pending = (0.0, 0.0, 0);
        if self.batches.len() == self.max_batches {
            let merged: Vec<(f64, f64)> =
                self.batches.chunks(2).map(|p| (p[0].0 + p[1].0, p[0].1 + p[1].1)).collect();
            self.batches.clear();
            self.batches.extend(merged);
            self.span *= 2;
        }
    }

    /// The ratio estimate over all closed batches and its 95% half-width.
    pub fn estimate(&self) -> Estimate {
        let b = self.batches.len();
        let (q, w) = self.batches.iter().fold((0.0, 0.0), |a, x| (a.0 + x.0, a.1 + x.1));
        if b == 0 || w == 0.0 {
            return Estimate { mean: f64::NAN, ci95: f64::NAN, batches: b };
        }
        let mean = q / w;
        if b < 2 {
            return Estimate { mean, ci95: f64::NAN, batches: b };
        }
        let ratios = self.batches.iter().filter(|x| x.1 > 0.0).map(|x| x.0 / x.1);
        let n = ratios.clone().count() as f64;
        let avg = ratios.clone().sum::<f64>() / n;
        let var = ratios.map(|r| (r - avg) * (r - avg)).sum::<f64>() / (n - 1.0);
        let ci95 = t95(n as usize - 1) * (var / n).sqrt();
        Estimate { mean, ci95, batches: b }
    }
}

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => TABLE[df - 1],
        _ => {
            // Cornish-Fisher expansion around the normal quantile; error < 1e-3 for df > 30.
            let z: f64 = 1.959_964;
            let d = df as f64;
            z + (z.powi(3) + z) / (4.0 * d) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn constant_batches_have_zero_width() {
        let mut b = BatchMeans::new(8);
        for _ in 0..20 {
            b.push(10.0, 2.0);
        }
        let e = b.estimate();
        assert_eq!(e.mean, 5.0);
        assert_eq!(e.ci95, 0.0);
    }

    #[test]
    fn merging_keeps_totals() {
        let mut b = BatchMeans::new(4);
        for i in 0..16 {
            b.push(i as f64, 1.0);
        }
        // 16 raw batches of span growth 1,2,4: every raw batch lands in a closed batch.
        let e = b.estimate();
        assert!((e.mean - 7.5).abs() < 1e-12, "{e:?}");
        assert!(e.batches >= 2 && e.batches < 4);
    }

    #[test]
    fn t_quantile_is_continuous_at_the_table_edge() {
        assert!((t95(30) - t95(31)).abs() < 0.01);
        assert!((t95(1000) - 1.962).abs() < 0.002);
    }

    proptest! {
        #[test]
        fn mean_is_total_ratio(xs in proptest::collection::vec((0.0f64..100.0, 0.1f64..10.0), 8..200)) {
            let mut b = BatchMeans::new(8);
            for &(q, w) in &xs { b.push(q, w); }
            let e = b.estimate();
            // Only closed batches count: recompute over the prefix the estimator saw.
            prop_assert!(e.mean.is_finite());
            let lo = xs.iter().map(|x| x.0 / x.1).fold(f64::INFINITY, f64::min);
            let hi = xs.iter().map(|x| x.0 / x.1).fold(0.0, f64::max);
            prop_assert!(e.mean >= lo - 1e-9 && e.mean <= hi + 1e-9);
            prop_assert!(e.ci95 >= 0.0);
        }
    }
}
