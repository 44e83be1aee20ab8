//! # ringlet-sci
//!
//! The SCI register-insertion ring (IEEE 1596; seed 003 section 2.1 and
//! Figure 1) at exact symbol timing, with base SCI's flow control, and the
//! interface real-time protocols plug into. See `docs/model-sci.md`.

pub mod measure;
pub mod node;
pub mod packet;
pub mod queue;
pub mod params;
pub mod protocol;
mod report;
pub mod ring;
pub mod traffic;

pub use report::*;

use protocol::dfc::Dfc;
use protocol::ppq::Ppq;
use protocol::sci::BaseSci;
use protocol::train::Train;
use ring::Ring;
use ringlet_scenario::{BandwidthAllocation, Protocol, QueueAllocation, Scenario};

/// Checks the parameters only the model can check, without running.
pub fn check(s: &Scenario) -> Result<(), String> {
    params::Params::from_scenario(s).map(|_| ())
}

/// Runs one SCI ring scenario. Fails only for parameter combinations the
/// scenario schema cannot check on its own (the message names the key).
pub fn simulate(s: &Scenario) -> Result<Report, String> {
    let p = params::Params::from_scenario(s)?;
    let report = match s.network.protocol {
        Protocol::Sci => {
            let proto = BaseSci::new(
                &p,
                s.network.bandwidth_allocation == BandwidthAllocation::GoBits,
                s.network.queue_allocation == QueueAllocation::Ab,
            );
            Ring::new(s, p, proto).run()
        }
        Protocol::Ppq => Ring::new(s, p.clone(), Ppq::new(&p, &s.ppq, s.traffic.priorities)).run(),
        Protocol::Train => Ring::new(s, p.clone(), Train::new(&p, &s.train)?).run(),
        Protocol::Dfc => Ring::new(s, p.clone(), Dfc::new(&p, &s.dfc)?).run(),
    };
    Ok(report)
}
