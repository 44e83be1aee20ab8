//! # ringlet-fabric
//!
//! One fabric core for every SCI-family network (`docs/architecture.md`):
//!
//! - [`topology`]: agents, ring interfaces, links and ringlets, and routes;
//!   a family's builder makes the table the fabric runs on;
//! - [`mechanism`]: the register-insertion mechanism over that table:
//!   bypass FIFOs, output links, stripping and echoes, input queues and
//!   their service, sending packets on across bridges;
//! - [`protocol`]: the interface a ring protocol implements, one instance
//!   per ringlet;
//! - [`client`], [`interface`]: an agent's client side and a ring
//!   interface's state; [`packet`], [`queue`], [`bypass`]: what they hold;
//!   [`bus`]: a bus an agent's interfaces share (a switch's B-Link);
//! - [`traffic`]: sources and destinations; [`measure`] and [`report`]: the
//!   figures, per priority, node, link, ringlet and class, with the report's
//!   column schema; [`trace`] and [`chrome_trace`]: packet lifetimes;
//! - [`family`]: how a network family plugs in (its contract, builder, run, benchmarks).

pub mod analytic;
pub mod bus;
pub mod bypass;
pub mod chrome_trace;
pub mod client;
mod dense;
mod event;
pub mod family;
pub mod interface;
pub mod measure;
pub mod mechanism;
pub mod packet;
pub mod params;
pub mod protocol;
pub mod queue;
pub mod report;
pub mod series;
pub mod stalls;
pub mod topology;
pub mod trace;
pub mod trace_source;
pub mod traffic;

pub use analytic::Analytic;
pub use mechanism::Fabric;
pub use report::Report;
