//! The switch family's scenario keys (beside the core ones), and the
//! settings the model reads from them (seed 001 section VI; Dolphin's
//! LC-2 figures as Richter's book gives them, `docs/assumptions.md`).

use crate::wiring::Kind;
use ringlet_scenario::schema::{Default, Kind as KeyKind, Param};
use ringlet_scenario::Scenario;

const INF: f64 = f64::INFINITY;

/// Keys both kinds (`sci-switch`, `banyan`) have.
const COMMON: [Param; 23] = [
    // [network]
    Param { section: "network", key: "ringlets", kind: KeyKind::Choice(&["unidirectional", "bidirectional"]), default: Default::Str("unidirectional"),
        doc: "How processors, memories and switch ports are joined: `unidirectional` rings through every stage and the ports' bypass FIFOs (seed 001 Figures 5b, 7b-9), or a 2-node `bidirectional` ringlet per wire, every packet crossing each switch's B-Link (Figures 5a, 7a)." },
    Param { section: "network", key: "cycle_ns", kind: KeyKind::Float { min: 0.001, max: 1e3 }, default: Default::Float(4.0),
        doc: "Symbol time, ns: one 16-bit symbol per cycle (a port's 500 MB/s per direction: 4 ns)." },
    Param { section: "network", key: "link_delay_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(1.0),
        doc: "Propagation delay of every link between processors, switches and memories, ns (seed 001: 1)." },
    Param { section: "network", key: "idle_symbols_between_packets", kind: KeyKind::Int { min: 0, max: 64 }, default: Default::Int(2),
        doc: "Idle symbols after every packet (seed 001: 4 bytes of idle overhead per packet, 64/84 payload)." },
    // Base SCI runs every ringlet.
    ringlet_sci::keys::BANDWIDTH_ALLOCATION,
    ringlet_sci::keys::QUEUE_ALLOCATION,
    // [switch]
    Param { section: "switch", key: "address_decode_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(20.0),
        doc: "Address decoder delay of every SCI port (processors', memories' and switches'): a packet it strips is in its buffer this long after its head arrives, ns (LC-II: 20)." },
    Param { section: "switch", key: "bypass_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(48.0),
        doc: "Bypass FIFO delay of every SCI port: a packet it passes leaves this long after its head arrives, ns (LC-II: 48)." },
    Param { section: "switch", key: "fifo_to_blink_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(106.0),
        doc: "From a packet fully in a switch port's input buffer onto the B-Link, ns (LC-II: 106); how it is spent is `switch.fifo_to_blink_mode`." },
    Param { section: "switch", key: "fifo_to_blink_mode", kind: KeyKind::Choice(&["bus", "pipeline"]), default: Default::Str("bus"),
        doc: "Whether the B-Link is held while a packet moves from the input FIFO onto it: `bus`, the B-Link's time per packet is `fifo_to_blink_ns` plus its frame (seed 001's 272 MB/s through one switch); `pipeline`, a delay each packet goes through in order before it asks for the B-Link, which then holds only its frame (seed 001 section III's 500 MB/s per port pair)." },
    Param { section: "switch", key: "blink_to_fifo_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(82.0),
        doc: "From the end of a B-Link transfer to the packet in the output port's buffer, ns (LC-II: 82)." },
    Param { section: "switch", key: "blink_mbps", kind: KeyKind::Float { min: 1.0, max: INF }, default: Default::Float(600.0),
        doc: "B-Link bandwidth, MB/s: one 8-byte cycle per 8 / this us (600 MB/s: 40/3 ns)." },
    Param { section: "switch", key: "blink_frame_beats", kind: KeyKind::Int { min: 0, max: 64 }, default: Default::Int(2),
        doc: "B-Link cycles a frame takes beyond the packet's own bytes in 8-byte cycles (Richter, SCINET book p. 54: a first cycle with code, ids and priority before the packet, a trailer after it: 2)." },
    Param { section: "switch", key: "blink_arbitration_beats", kind: KeyKind::Int { min: 0, max: 64 }, default: Default::Int(1),
        doc: "B-Link cycles from a port's request to its transfer when the bus was idle (Richter p. 53: the arbiter grants once per 13.3 ns cycle, round robin); a grant as a transfer ends was decided during it and costs none." },
    Param { section: "switch", key: "blinks", kind: KeyKind::Int { min: 1, max: 8 }, default: Default::Int(1),
        doc: "B-Links per switch (Richter, SCINET book section 8.3.2): each port is a cascade of this many LC-II chips in series on its ring, chip j of every port on B-Link j (p. 117). A packet for the switch is taken by the first chip of the port's cascade with room in its input buffer, else by the last, which busies it if it has none (SCINET's first adaptive strategy, p. 119); the echo and any retry name the chip that took it (p. 120). A packet passing a port passes every chip's bypass FIFO." },
    Param { section: "switch", key: "buffer_packets", kind: KeyKind::Int { min: 1, max: 1_000_000 }, default: Default::Int(4),
        doc: "Input and output buffer of every switch port, per class (requests, responses), packets (LC-II: 4)." },
    // [node]
    Param { section: "node", key: "memory_store_ns", kind: KeyKind::Float { min: 0.0, max: 1e9 }, default: Default::Float(40.0),
        doc: "A memory's cycle time to store (or read) one 64-byte packet, ns (seed 001: 40)." },
    Param { section: "node", key: "buffer_packets", kind: KeyKind::Int { min: 1, max: 1_000_000 }, default: Default::Int(4),
        doc: "Input and output buffers of processors and memories, per class, packets (LC-II: 4). A packet a processor generates while its output buffer is full is lost." },
    Param { section: "node", key: "blink_to_fifo_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(82.0),
        doc: "Send path of a processor's or memory's LC-II: a packet it generates takes an output buffer slot at once and is there, ready to be sent, this long later, ns (LC-II: 82, B-Link to FIFO; 0: at once)." },
    Param { section: "node", key: "fifo_to_blink_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(106.0),
        doc: "Receive path of a processor's or memory's LC-II: from a packet fully in its input buffer to its host, before a memory stores it, ns (LC-II: 106, FIFO to B-Link; 0: at once)." },
    Param { section: "node", key: "acceptance_ns", kind: KeyKind::Float { min: 0.0, max: 1e6 }, default: Default::Float(166.0),
        doc: "Receiver acceptance time of a processor's or memory's LC-II: it takes the packets of an input buffer one at a time, at most one per this interval (Richter: 20 ns decode + 106 ns FIFO to B-Link + 40 ns handling = 166 ns per packet; 0: only the memory's cycle time limits)." },
    // [traffic]
    Param { section: "traffic", key: "transaction", kind: KeyKind::Choice(&["dmove64", "write64", "read64"]), default: Default::Str("dmove64"),
        doc: "Transaction: `dmove64`, a responseless 64-byte move (80-byte packet; seed 001's text), `write64` (80-byte request, a 16-byte response from the memory once it has stored the data, each with its echo: the transaction Richter's SCINET book simulates, pp. 82, 111), or `read64` (16-byte request, 80-byte response). `load_mbps_per_node` counts the raw bytes of the packet carrying the data with its idles (84)." },
    Param { section: "traffic", key: "locality", kind: KeyKind::Float { min: 0.0, max: 1.0 }, default: Default::Float(1.0),
        doc: "With `destinations = \"local\"`: the fraction of a processor's transactions for its own memory (the one on its ring; seed 001: 1.0); the rest are uniform over the other memories." },
];

/// [`COMMON`] followed by a kind's own keys (`N` = 23 + `M`).
const fn with_common<const N: usize, const M: usize>(own: [Param; M]) -> [Param; N] {
    assert!(N == COMMON.len() + M);
    let mut all = [COMMON[0]; N];
    let mut k = 0;
    while k < N {
        all[k] = if k < COMMON.len() { COMMON[k] } else { own[k - COMMON.len()] };
        k += 1;
    }
    all
}

/// The keys of `network.kind = "sci-switch"`.
pub const SWITCH_PARAMS: &[Param] = &with_common::<26, 3>([
    Param { section: "network", key: "elementary_rings", kind: KeyKind::Bool, default: Default::Bool(false),
        doc: "`true`: no switch; each processor and its own memory alone on a ring of two LC-II nodes, Richter's elementary SCI ring (SCINET book section 7.2, pp. 80-85), against which the switch's rings compare. Unidirectional rings, one processor per ring and `traffic.destinations = \"local\"` with `traffic.locality = 1`." },
    Param { section: "network", key: "nodes_per_ring", kind: KeyKind::Int { min: 1, max: 64 }, default: Default::Int(1),
        doc: "Processors (and memories) on each unidirectional ring: 1 gives each pair its own ring and switch port (Figures 5b, 6a); 2 puts two processors and two memories on each ring (Figure 6b). `network.nodes` must be a multiple, with at least two rings." },
    Param { section: "traffic", key: "start", kind: KeyKind::Choice(&["aligned", "random"]), default: Default::Str("aligned"),
        doc: "Deterministic sources all start at time 0 (`aligned`: seed 001's single switch, whose processors send \"at the same time\"), or each at a random phase." },
]);

/// Most lines a switching element joins on each side (`network.switch_ports`
/// of a Banyan; the rings or ringlet pairs of the single switch of
/// `network.kind = "sci-switch"`): 64 rings, or a switch of 128 ports
/// between bidirectional ringlets. Dolphin's switches had 4 to 16; the
/// limit leaves room to ask what larger ones would do without building a
/// thousand-port bus.
pub const MAX_LINES: usize = 64;

/// The keys of `network.kind = "banyan"`.
pub const BANYAN_PARAMS: &[Param] = &with_common::<26, 3>([
    Param { section: "network", key: "topology", kind: KeyKind::Choice(&["omega", "baseline", "flip", "indirect-cube", "generalized-cube"]), default: Default::Str("omega"),
        doc: "Banyan topology of the stages (seed 001 section V)." },
    Param { section: "network", key: "switch_ports", kind: KeyKind::Int { min: 2, max: MAX_LINES as i64 }, default: Default::Int(2),
        doc: "s: each switching element joins s lines to s lines (`network.nodes` must be a power of s). Unidirectional: an s-port switch, one port per ring; bidirectional: a 2s-port switch, s ringlets in and s out." },
    Param { section: "traffic", key: "start", kind: KeyKind::Choice(&["aligned", "random"]), default: Default::Str("random"),
        doc: "Deterministic sources each start at a random phase (`random`: seed 001 does not say its Banyans' processors start together), or all at time 0 (`aligned`)." },
]);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transaction {
    Dmove64,
    Write64,
    Read64,
}

/// What the model reads from a scenario of this family.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Processors (and memories): N.
    pub nodes: usize,
    pub topology: Kind,
    /// Lines per switching element (s); one switch: its rings or ringlet pairs.
    pub switch_ports: usize,
    /// Processors (and memories) on each unidirectional ring (one switch only).
    pub nodes_per_ring: usize,
    /// No switch: each processor and its memory on a ring of their own.
    pub elementary_rings: bool,
    pub bidirectional: bool,
    pub cycle_ns: f64,
    pub link_delay_ns: f64,
    pub idle_symbols: u32,
    pub bandwidth_allocation: ringlet_sci::protocol::bandwidth::Allocation,
    pub queue_allocation: bool,
    pub address_decode_ns: f64,
    pub bypass_ns: f64,
    pub fifo_to_blink_ns: f64,
    /// The B-Link is held while a packet moves from the input FIFO onto it.
    pub fifo_to_blink_holds_bus: bool,
    pub blink_to_fifo_ns: f64,
    pub blink_mbps: f64,
    pub blink_frame_beats: u16,
    pub blink_arbitration_beats: u16,
    /// B-Links per switch: each port a cascade of as many chips.
    pub blinks: usize,
    pub switch_buffer_packets: u32,
    pub memory_store_ns: f64,
    pub node_buffer_packets: u32,
    /// Processors' and memories' LC-II: send path, receive path, acceptance time.
    pub node_blink_to_fifo_ns: f64,
    pub node_fifo_to_blink_ns: f64,
    pub acceptance_ns: f64,
    pub transaction: Transaction,
    pub locality: f64,
    pub aligned: bool,
}

impl Settings {
    pub fn of(s: &Scenario) -> Settings {
        let (net, sw, node, traffic) = (s.section("network"), s.section("switch"), s.section("node"), s.section("traffic"));
        let banyan = s.network.kind == "banyan";
        let nodes = s.network.nodes as usize;
        let per_ring = if banyan { 1 } else { net.int("nodes_per_ring") as usize };
        Settings {
            nodes,
            topology: if banyan { Kind::from_name(net.str("topology")).expect("the schema admits only known topologies") } else { Kind::Omega },
            switch_ports: if banyan { net.int("switch_ports") as usize } else { nodes / per_ring },
            nodes_per_ring: per_ring,
            elementary_rings: !banyan && net.bool("elementary_rings"),
            bidirectional: net.str("ringlets") == "bidirectional",
            cycle_ns: net.float("cycle_ns"),
            link_delay_ns: net.float("link_delay_ns"),
            idle_symbols: net.int("idle_symbols_between_packets") as u32,
            bandwidth_allocation: ringlet_sci::protocol::bandwidth::Allocation::named(net.str("bandwidth_allocation")),
            queue_allocation: net.str("queue_allocation") == "ab",
            address_decode_ns: sw.float("address_decode_ns"),
            bypass_ns: sw.float("bypass_ns"),
            fifo_to_blink_ns: sw.float("fifo_to_blink_ns"),
            fifo_to_blink_holds_bus: sw.str("fifo_to_blink_mode") == "bus",
            blink_to_fifo_ns: sw.float("blink_to_fifo_ns"),
            blink_mbps: sw.float("blink_mbps"),
            blink_frame_beats: sw.int("blink_frame_beats") as u16,
            blink_arbitration_beats: sw.int("blink_arbitration_beats") as u16,
            blinks: sw.int("blinks") as usize,
            switch_buffer_packets: sw.int("buffer_packets") as u32,
            memory_store_ns: node.float("memory_store_ns"),
            node_buffer_packets: node.int("buffer_packets") as u32,
            node_blink_to_fifo_ns: node.float("blink_to_fifo_ns"),
            node_fifo_to_blink_ns: node.float("fifo_to_blink_ns"),
            acceptance_ns: node.float("acceptance_ns"),
            transaction: match traffic.str("transaction") {
                "read64" => Transaction::Read64,
                "write64" => Transaction::Write64,
                _ => Transaction::Dmove64,
            },
            locality: traffic.float("locality"),
            aligned: traffic.str("start") == "aligned",
        }
    }
}
