//! # ringlet-switch
//!
//! SCI switches and SCI-based Banyan networks (seed 001, Richter, Kleber,
//! Hellwagner: *Cost-efficient SCI-based Banyan networks*) as two network
//! families on the shared fabric:
//!
//! - `sci-switch`: one switch joining `network.nodes` processors and as
//!   many memories (Figures 5 and 6a);
//! - `banyan`: a multistage network of s x s switching elements (Figures
//!   7-9), Omega, Baseline, Flip or a cube network.
//!
//! Both are built by [`network`] from the [`wiring`] of a Banyan, with
//! bidirectional ringlets or unidirectional rings through every stage
//! ([`routes`]). A switch is an agent whose ports share a bus, the B-Link
//! (`ringlet_fabric::bus`); every ringlet runs base SCI's flow control
//! (`ringlet_sci`). See `docs/model-switch.md`.

pub mod keys;
pub mod network;
pub mod params;
pub mod routes;
pub mod wiring;

use keys::Settings;
use ringlet_fabric::family::{drive, Family, Mode, Outcome, Workload};
use ringlet_fabric::Fabric;
use ringlet_scenario::schema::{FamilySchema, Schema};
use ringlet_scenario::{Scenario, ScenarioError};
use std::sync::OnceLock;
use ringlet_sci::protocol::sci::BaseSci;

/// One SCI switch with its processors and memories.
pub const SWITCH: Family = Family {
    schema: FamilySchema {
        kind: "sci-switch",
        doc: "One SCI switch (seed 001 Figures 5, 6a): `network.nodes` processors send to as many memories through a switch whose ports share a B-Link; bidirectional ringlets (every packet across the B-Link) or unidirectional rings through its ports' bypass FIFOs.",
        params: keys::SWITCH_PARAMS,
        protocols: &[],
        validate,
    },
    check,
    run,
    workloads: &[Workload {
        name: "switch-uO2nS2",
        description: "one 4-port SCI switch, 2 processors on unidirectional rings, dmove64, 100% locality, 450 MB/s raw per processor",
        scenario: "[network]\nkind = \"sci-switch\"\nnodes = 2\n[traffic]\narrivals = \"deterministic\"\ndestinations = \"local\"\nload_mbps_per_node = 450.0\n[run]\nmeasure_transactions = 200000\n",
    }],
};

/// Multistage SCI Banyan networks.
pub const BANYAN: Family = Family {
    schema: FamilySchema {
        kind: "banyan",
        doc: "A multistage SCI Banyan (seed 001 section V): `network.nodes` = N processors and memories, log_s N stages of s x s switching elements (Omega, Baseline, Flip, indirect binary cube or generalized cube), bidirectional ringlets between stages or unidirectional rings through all of them.",
        params: keys::BANYAN_PARAMS,
        protocols: &[],
        validate,
    },
    check,
    run,
    workloads: &[
        Workload {
            name: "banyan-uO4nS256",
            description: "256x256 Omega of 4-port switches, unidirectional rings, dmove64, uniform, 60 MB/s raw per processor",
            scenario: "[network]\nkind = \"banyan\"\nnodes = 256\nswitch_ports = 4\n[traffic]\narrivals = \"deterministic\"\nstart = \"random\"\nload_mbps_per_node = 60.0\n[run]\nmeasure_transactions = 100000\n",
        },
        Workload {
            name: "banyan-bO2nS256",
            description: "256x256 Omega of 2x2 elements, bidirectional ringlets, dmove64, uniform, 30 MB/s raw per processor",
            scenario: "[network]\nkind = \"banyan\"\nnodes = 256\nringlets = \"bidirectional\"\n[traffic]\narrivals = \"deterministic\"\nstart = \"random\"\nload_mbps_per_node = 30.0\n[run]\nmeasure_transactions = 100000\n",
        },
    ],
};

/// Checks across keys when a scenario is loaded.
fn validate(s: &Scenario) -> Result<(), String> {
    let k = Settings::of(s);
    // A single switch has a port per ring (or a pair per ringlet pair): as many as the rings.
    if s.network.kind == SWITCH.schema.kind && k.switch_ports > keys::MAX_LINES {
        return Err(format!(
            "network.nodes: one switch (network.kind = \"sci-switch\") takes at most {} rings or ringlet pairs, \
             a port for each, got {} (network.nodes {} / network.nodes_per_ring {}); \
             use network.kind = \"banyan\" for a network of switches",
            keys::MAX_LINES, k.switch_ports, k.nodes, k.nodes_per_ring
        ));
    }
    if k.elementary_rings {
        return elementary_rings_fit(s, &k);
    }
    network::banyan(&k).map(|_| ())
}

/// An elementary ring has a processor and its own memory and nothing else:
/// every packet must stay on it.
fn elementary_rings_fit(s: &Scenario, k: &Settings) -> Result<(), String> {
    let why = "with network.elementary_rings = true (each processor alone on a ring with its own memory)";
    if k.bidirectional {
        return Err(format!("network.ringlets: expected \"unidirectional\" {why}, got \"bidirectional\""));
    }
    if k.nodes_per_ring != 1 {
        return Err(format!("network.nodes_per_ring: expected 1 {why}, got {}", k.nodes_per_ring));
    }
    if s.traffic.destinations != ringlet_scenario::Destinations::Local {
        return Err(format!("traffic.destinations: expected \"local\" {why}, got {:?}", s.traffic.destinations));
    }
    if k.locality != 1.0 {
        return Err(format!("traffic.locality: expected 1 {why}, got {}", k.locality));
    }
    Ok(())
}

/// Checks what only the laid-out network can: its size. (The routes are
/// not searched: a Banyan's reach every endpoint by construction, which
/// the crate's tests show, and the search is most of a large build.)
fn check(s: &Scenario) -> Result<(), String> {
    network::layout(&Settings::of(s)).map(|_| ())
}

/// Builds and runs a scenario of either kind.
fn run(s: &Scenario, mode: Mode<'_>) -> Result<Outcome, String> {
    drive(fabric(s, false)?, mode)
}

/// The fabric of a scenario of either kind: base SCI on every ringlet.
fn fabric(s: &Scenario, hand_built: bool) -> Result<Fabric<BaseSci>, String> {
    let k = Settings::of(s);
    let t = network::topology(&k)?;
    let p = params::params(&k);
    let protocols = (0..t.ringlets() as u16).map(|r| BaseSci::new(&t.view(r), &p, k.bandwidth_allocation, k.queue_allocation)).collect();
    Ok(if hand_built { Fabric::hand_built(s, t, p, protocols) } else { Fabric::new(s, t, p, protocols) })
}

/// The fabric of scenario `s`, with its traffic, not yet run (for tests
/// that set how it runs before `Fabric::run`).
pub fn built(s: &Scenario) -> Result<Fabric<BaseSci>, String> {
    fabric(s, false)
}

/// A traced fabric of scenario `s` with no traffic sources, for
/// hand-injected transactions (`Fabric::inject`; the exact-timing tests).
pub fn hand_built(s: &Scenario) -> Result<Fabric<BaseSci>, String> {
    fabric(s, true)
}

/// The scenario contract of the switch families beside the SCI ring (the
/// default kind), for this crate's tests; the front crate's registry joins
/// every family.
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::new(&[ringlet_sci::FAMILY.schema, SWITCH.schema, BANYAN.schema]))
}

/// Parses and validates scenario text against [`schema`].
pub fn load_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    ringlet_scenario::load_str(schema(), text, overrides)
}
