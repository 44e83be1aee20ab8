//! Statistics a model declares: batch means with confidence intervals and
//! latency histograms with percentiles.

mod batch_means;
mod histogram;

pub use batch_means::{t95, BatchMeans, Estimate};
pub use histogram::{CoarseHistogram, LatencyHistogram, Latencies};
