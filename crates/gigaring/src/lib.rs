//! # ringlet-gigaring
//!
//! Cray's GigaRing channel (seed 002, Kaczynski: *GigaRing performance
//! analysis*) as a network family on the shared fabric:
//!
//! - [`network`]: node chips on a pair of counter-rotating rings;
//! - [`params`]: 32-bit symbols, packets of up to 32 words, the four
//!   virtual channels, messages and DMA ReadBlk / WriteBlk split into
//!   packets, per-packet load balancing over the rings, adaptive congestion
//!   control of each stream's outstanding requests;
//! - [`arbitration`]: each ring's bandwidth allocation (adaptive
//!   bandwidth sharing over a traffic-control field in packets and their
//!   echoes) and queue reservation.
//!
//! See `docs/model-gigaring.md`.

pub mod arbitration;
pub mod keys;
pub mod network;
pub mod params;

use keys::Settings;
use ringlet_fabric::family::{drive, Family, Mode, Outcome, Workload};
use ringlet_fabric::Fabric;
use ringlet_scenario::schema::{FamilySchema, Schema};
use ringlet_scenario::{Scenario, ScenarioError};
use arbitration::Arbitration;
use std::sync::OnceLock;

/// The GigaRing channel.
pub const GIGARING: Family = Family {
    schema: FamilySchema {
        kind: "gigaring",
        doc: "Cray's GigaRing channel (seed 002): `network.nodes` node chips on two counter-rotating rings of 32-bit symbols, four virtual channels, peer-to-peer messages and DMA ReadBlk / WriteBlk split into packets of up to 32 words, per-packet load balancing over the rings and adaptive congestion control; each ring runs its own bandwidth allocation (adaptive bandwidth sharing) and queue reservation.",
        params: keys::PARAMS,
        protocols: &[],
        validate,
    },
    check,
    run,
    workloads: &[
        Workload {
            name: "gigaring-p2p",
            description: "2-node GigaRing channel, full duplex ReadBlk of 1024 words, saturating",
            scenario: "[network]\nkind = \"gigaring\"\nnodes = 2\n[traffic]\narrivals = \"deterministic\"\nload_mbps_per_node = 2000.0\n[run]\nmeasure_transactions = 2000\n",
        },
        Workload {
            name: "gigaring-8node-mixed",
            description: "8-node GigaRing channel, mixed messages, ReadBlk and WriteBlk, uniform, 150 MB/s per node",
            scenario: "[network]\nkind = \"gigaring\"\nnodes = 8\n[traffic]\ntransaction = \"mixed\"\nblock_words = 256\nload_mbps_per_node = 150.0\n[run]\nmeasure_transactions = 20000\n",
        },
    ],
};

/// Checks across keys when a scenario is loaded.
fn validate(s: &Scenario) -> Result<(), String> {
    let f = s.section("faults");
    if let (Some(n), Some(l)) = (f.opt_int("fail_node"), f.opt_int("fail_link")) {
        return Err(format!("faults.fail_link: give a failed node or a failed link, not both (faults.fail_node = {n}, faults.fail_link = {l})"));
    }
    let settings = Settings::of(s);
    // (Too many masters: `check` names the key.)
    settings.check()?;
    // With masters only the others receive, and the hot spot is numbered among them.
    let slaves = s.network.nodes as usize - settings.masters;
    if settings.masters > 0 && s.traffic.destinations == ringlet_scenario::Destinations::Hotspot && s.traffic.hotspot_node as usize >= slaves {
        return Err(format!(
            "traffic.hotspot_node: expected a slave's index in 0..{} (with traffic.masters = {} only the other {slaves} nodes receive, numbered among themselves), got {}",
            slaves - 1,
            settings.masters,
            s.traffic.hotspot_node
        ));
    }
    Ok(())
}

/// Checks what only the built network can.
fn check(s: &Scenario) -> Result<(), String> {
    network::topology(&Settings::of(s)).map(|_| ())
}

fn run(s: &Scenario, mode: Mode<'_>) -> Result<Outcome, String> {
    drive(fabric(s, false)?, mode)
}

/// The fabric of a scenario: the arbitration on each ring.
fn fabric(s: &Scenario, hand_built: bool) -> Result<Fabric<Arbitration>, String> {
    let k = Settings::of(s);
    k.check()?;
    let t = network::topology(&k)?;
    let p = params::params(&k);
    let per_request = params::sharing_idles(&k, &p);
    let protocols = (0..t.ringlets() as u16).map(|r| Arbitration::new(&t.view(r), k.bandwidth_sharing, k.sharing_law, k.queue_reservation, per_request, p.cycle, p.separator).with_nodes(&network::ring_nodes(&t, r))).collect();
    let mut f = if hand_built { Fabric::hand_built(s, t, p, protocols) } else { Fabric::new(s, t, p, protocols) };
    if let Some(fold) = network::fold(&k, f.topology()) {
        f.reconfigure(fold);
        f.keep_series(ringlet_engine::time::ns_to_time(FOLD_SERIES_INTERVAL_NS));
    }
    Ok(f)
}

/// The interval of a run with a fault's `per_interval` table when the
/// scenario sets no `run.series_interval_ns`: five times finer than the
/// default detection time, so a figure shows the fold's steps.
pub const FOLD_SERIES_INTERVAL_NS: f64 = 2_000.0;

/// A traced fabric of scenario `s` with no traffic sources, for
/// hand-injected transactions (`Fabric::inject_kind`; the exact-timing tests).
pub fn hand_built(s: &Scenario) -> Result<Fabric<Arbitration>, String> {
    fabric(s, true)
}

/// The scenario contract of this family beside the SCI ring's, for this crate's tests.
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::new(&[ringlet_sci::FAMILY.schema, GIGARING.schema]))
}

/// Parses and validates scenario text against [`schema`].
pub fn load_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    ringlet_scenario::load_str(schema(), text, overrides)
}
