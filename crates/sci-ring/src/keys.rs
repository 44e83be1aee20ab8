//! The SCI ring's scenario keys (beside the core ones), and the settings
//! the model reads from them.

use ringlet_scenario::schema::{Default, Kind, Param};
use ringlet_scenario::Scenario;

/// Base SCI's bandwidth allocation on or off (every family whose ringlets run base SCI has it).
pub const BANDWIDTH_ALLOCATION: Param = Param { section: "network", key: "bandwidth_allocation", kind: Kind::Choice(&crate::protocol::bandwidth::Allocation::NAMES), default: Default::Str("ieee"),
    doc: "Bandwidth allocation of base SCI and PPQ (DFC has its own key, `dfc.bandwidth_allocation`, off by default): `ieee` = IEEE 1596's transmission recovery with its debt repaid in converted idles, go bits and idle priority; `none` leaves only the register-insertion rule. To tell what each rule costs, one alone: `go-bits` (a node's converted idles hold the nodes downstream; its own debt does not hold it) or `debts` (a node waits out its own debt while others wait; its converted idles hold nobody)." };

/// Base SCI's queue allocation on or off (as [`BANDWIDTH_ALLOCATION`]).
pub const QUEUE_ALLOCATION: Param = Param { section: "network", key: "queue_allocation", kind: Kind::Choice(&["ab", "none"]), default: Default::Str("ab"),
    doc: "Base SCI queue allocation: `ab` = IEEE 1596's NOTRY/DOTRY phases, input-queue space reserved for a packet busied twice (A/B phases); `none` = every busied packet retries as NOTRY, nothing reserved." };

/// The keys of `network.kind = "sci-ring"`.
pub const PARAMS: &[Param] = &[
    // [network]
    Param { section: "network", key: "protocol", kind: Kind::Protocol, default: Default::Str("sci"),
        doc: "Ring protocol (see Protocols below); a protocol's own keys are in its section." },
    Param { section: "network", key: "link_delay_ns", kind: Kind::Float { min: 0.0, max: 1e6 }, default: Default::Float(0.0),
        doc: "Propagation delay of every link, ns (Table 1: ideal, 0)." },
    Param { section: "network", key: "node_delay_cycles", kind: Kind::Int { min: 1, max: 1000 }, default: Default::Int(1),
        doc: "Bypass latency of a node, in symbol cycles (Table 1: 1)." },
    Param { section: "network", key: "cycle_ns", kind: Kind::Float { min: 0.001, max: 1e3 }, default: Default::Float(2.0),
        doc: "Symbol time, ns: one 16-bit symbol per cycle (1 GB/s links: 2 ns)." },
    Param { section: "network", key: "idle_symbols_between_packets", kind: Kind::Int { min: 0, max: 64 }, default: Default::Int(1),
        doc: "Idle symbols that follow every packet on a link (IEEE 1596: at least one; carries the go bits)." },
    Param { section: "network", key: "bypass_fifo_symbols", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("longest send packet + separator idles"),
        doc: "Bypass FIFO capacity in symbols; must hold the longest send packet and its idles. 0 = derived." },
    BANDWIDTH_ALLOCATION,
    QUEUE_ALLOCATION,
    // [node]
    Param { section: "node", key: "input_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Int(5),
        doc: "Requestor and responder input queue size, packets (Table 1: 5)." },
    Param { section: "node", key: "requestor_input_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::SameAs("input_queue_packets"),
        doc: "Requestor input queue (responses arrive here), packets." },
    Param { section: "node", key: "responder_input_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::SameAs("input_queue_packets"),
        doc: "Responder input queue (requests arrive here), packets." },
    Param { section: "node", key: "output_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Int(5),
        doc: "Request and response output queue size, packets, counting sent packets that await their echo." },
    Param { section: "node", key: "response_waiting_packets", kind: Kind::Int { min: 0, max: 65535 }, default: Default::Int(0),
        doc: "Response waiting queue (RWQ, seed 003 Figure 2): requests a node may have sent whose response has not been serviced, over all its priorities; a request waits in the node's application queue (highest priority first) until a slot is free. 0: no limit (the seeds give no size). move64 has no response and takes no slot." },
    Param { section: "node", key: "response_timeout_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Float(0.0),
        doc: "Response time-out of the RWQ (seed 003: it 'handles retransmissions in the event of a timeout condition while the destination node is servicing a request'): a read whose response has not been serviced this long after its responder serviced the request is asked again (a copy of the request); the first response serviced answers it, a later one is dropped (`counters.request_timeouts`, `duplicate_responses`). 0: none (the seeds give no value)." },
    Param { section: "node", key: "iqst_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Float(100.0),
        doc: "Input queue service time: time to remove and service one packet from an input queue, ns." },
    Param { section: "node", key: "requestor_iqst_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::SameAs("iqst_ns"),
        doc: "Service time of the requestor input queue (responses arrive here), ns." },
    Param { section: "node", key: "responder_iqst_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::SameAs("iqst_ns"),
        doc: "Service time of the responder input queue (requests arrive here), ns." },
    // [traffic]
    Param { section: "traffic", key: "transaction", kind: Kind::Choice(&["read64", "write64", "move64"]), default: Default::Str("read64"),
        doc: "Transaction type (Table 1: read64)." },
];

/// The transactions an SCI ring carries (64 data bytes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transaction {
    Read64,
    Write64,
    Move64,
}

/// What the SCI ring model reads from a scenario, every derived value filled.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub protocol: String,
    pub link_delay_ns: f64,
    pub node_delay_cycles: u32,
    pub cycle_ns: f64,
    pub idle_symbols_between_packets: u32,
    /// 0 = derived from the packet sizes.
    pub bypass_fifo_symbols: u32,
    pub bandwidth_allocation: crate::protocol::bandwidth::Allocation,
    pub queue_allocation: bool,
    pub requestor_input_queue_packets: u32,
    pub responder_input_queue_packets: u32,
    pub output_queue_packets: u32,
    /// 0: no limit.
    pub response_waiting_packets: u32,
    pub response_timeout_ns: f64,
    pub iqst_ns: f64,
    pub requestor_iqst_ns: f64,
    pub responder_iqst_ns: f64,
    pub transaction: Transaction,
}

impl Settings {
    pub fn of(s: &Scenario) -> Settings {
        let (net, node) = (s.section("network"), s.section("node"));
        Settings {
            protocol: net.str("protocol").to_string(),
            link_delay_ns: net.float("link_delay_ns"),
            node_delay_cycles: net.int("node_delay_cycles") as u32,
            cycle_ns: net.float("cycle_ns"),
            idle_symbols_between_packets: net.int("idle_symbols_between_packets") as u32,
            bypass_fifo_symbols: net.int("bypass_fifo_symbols") as u32,
            bandwidth_allocation: crate::protocol::bandwidth::Allocation::named(net.str("bandwidth_allocation")),
            queue_allocation: net.str("queue_allocation") == "ab",
            requestor_input_queue_packets: node.int("requestor_input_queue_packets") as u32,
            responder_input_queue_packets: node.int("responder_input_queue_packets") as u32,
            output_queue_packets: node.int("output_queue_packets") as u32,
            response_waiting_packets: node.int("response_waiting_packets") as u32,
            response_timeout_ns: node.float("response_timeout_ns"),
            iqst_ns: node.float("iqst_ns"),
            requestor_iqst_ns: node.float("requestor_iqst_ns"),
            responder_iqst_ns: node.float("responder_iqst_ns"),
            transaction: match s.section("traffic").str("transaction") {
                "read64" => Transaction::Read64,
                "write64" => Transaction::Write64,
                _ => Transaction::Move64,
            },
        }
    }
}
