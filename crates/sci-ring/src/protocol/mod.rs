//! The SCI ring's protocols: base SCI and the three real-time protocols of
//! seed 003, each in its own file behind the fabric's `RingProtocol`.
//!
//! Adding a protocol is one new file here, implementing `RingProtocol`
//! (what it decides) and [`Registered`] (its name, its `[section]` of
//! scenario keys, how it is built for a ringlet), plus one line in the
//! registry below.

use crate::ring;
use ringlet_fabric::family::{drive, Mode, Outcome};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{RingProtocol, RingletView};
use ringlet_fabric::topology::Topology;
use ringlet_fabric::Fabric;
use ringlet_scenario::schema::{Param, ProtocolSchema};
use ringlet_scenario::Scenario;

/// Declares each protocol module and lists its type in [`REGISTRY`] and its schema in [`SCHEMAS`].
macro_rules! registry {
    ($($module:ident :: $protocol:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Every protocol the SCI ring runs, in the order the scenario
        /// reference lists them.
        pub const REGISTRY: &[Registration] = &[$(Registration::of::<$module::$protocol>()),*];

        /// Their parts of the scenario contract.
        pub const SCHEMAS: &[ProtocolSchema] = &[$(Registration::of::<$module::$protocol>().schema),*];
    };
}

// The flow control base SCI defines, which PPQ runs on too, and the
// packet-level go bits of TRAIN's gearshift mode.
pub mod bandwidth;
pub mod go_bits;
pub mod queue_allocation;

registry! {
    sci::BaseSci,
    ppq::Ppq,
    train::Train,
    dfc::Dfc,
}

/// What a protocol tells the registry about itself.
pub trait Registered: RingProtocol + Sized {
    /// Its value of `network.protocol`, and the name of its own section.
    const NAME: &'static str;
    /// One line on what it is, for the scenario reference.
    const DOC: &'static str;
    /// The keys of its section `[NAME]` (none: no section).
    const PARAMS: &'static [Param] = &[];

    /// Checks across its section's keys and the core ones, when a scenario
    /// is loaded, whichever protocol it runs (as key ranges are checked).
    fn validate(_s: &Scenario) -> Result<(), String> {
        Ok(())
    }

    /// Checks that need the model's parameters, before a run of this
    /// protocol on the ringlet `view` (a sweep checks every point before running any).
    fn check(_view: &RingletView, _p: &Params, _s: &Scenario) -> Result<(), String> {
        Ok(())
    }

    /// The protocol instance for ringlet `view` of a run of `s`.
    fn build(view: &RingletView, p: &Params, s: &Scenario) -> Result<Self, String>;

    /// Runs `s`: one monomorphised fabric of this protocol, unless the
    /// protocol picks a variant of itself from its settings (DFC with or
    /// without the bandwidth allocation).
    fn run(s: &Scenario, t: Topology, p: Params, mode: Mode<'_>) -> Result<Outcome, String> {
        run_as::<Self>(s, t, p, mode)
    }
}

/// A registered protocol: its part of the scenario contract, and how to
/// check and run a scenario with it.
pub struct Registration {
    pub schema: ProtocolSchema,
    pub check: fn(&Topology, &Params, &Scenario) -> Result<(), String>,
    pub run: fn(&Scenario, Topology, Params, Mode<'_>) -> Result<Outcome, String>,
}

impl Registration {
    pub const fn of<P: Registered>() -> Registration {
        Registration {
            schema: ProtocolSchema { name: P::NAME, doc: P::DOC, params: P::PARAMS, validate: P::validate },
            check: check_as::<P>,
            run: P::run,
        }
    }
}

fn check_as<P: Registered>(t: &Topology, p: &Params, s: &Scenario) -> Result<(), String> {
    (0..t.ringlets() as u16).try_for_each(|r| P::check(&t.view(r), p, s))
}

/// The fabric is generic over its protocol: one monomorphised run per protocol.
pub(crate) fn run_as<P: Registered>(s: &Scenario, t: Topology, p: Params, mode: Mode<'_>) -> Result<Outcome, String> {
    let protocols = ring::instances::<P>(&t, &p, s)?;
    drive(Fabric::new(s, t, p, protocols), mode)
}
