//! # ringlet-engine
//!
//! The discrete-event core every ringlet model runs on. It knows nothing of SCI:
//! it offers integer simulated [`Time`], a deterministic [`Scheduler`] of
//! model-defined events, independent random streams derived from one seed
//! ([`rng::StreamSeeds`]), the statistics models declare ([`stats`]), and
//! what every run shares: stop reasons, progress and its loop ([`run`]).
//!
//! Design rules (see `docs/architecture.md`):
//! - time is an integer number of ticks of 1/3 ps, so 2 ns SCI cycles,
//!   20/3 ns GigaRing symbols, 40/3 ns B-Link beats and nanosecond switch
//!   delays add up without rounding drift;
//! - events with equal time run in the order they were scheduled (FIFO
//!   tie-break), which makes every run bit-reproducible;
//! - the hot path allocates nothing per event: the calendar queue's pool of
//!   entries is reused and events are small `Copy` values chosen by the model.

pub mod hint;
pub mod rng;
pub mod run;
pub mod scheduler;
pub mod stats;
pub mod time;

pub use scheduler::Scheduler;
pub use time::Time;
