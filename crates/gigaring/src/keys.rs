//! The GigaRing family's scenario keys (beside the core ones), and the
//! settings the model reads from them (seed 002; what the seed leaves open
//! is chosen in `docs/assumptions.md`).

use ringlet_engine::time::ns_to_time;
use ringlet_scenario::schema::{Default, Kind, Param};
use ringlet_scenario::Scenario;

const INF: f64 = f64::INFINITY;

/// The keys of `network.kind = "gigaring"`.
pub const PARAMS: &[Param] = &[
    // [gigaring]
    Param { section: "gigaring", key: "rings", kind: Kind::Int { min: 1, max: 2 }, default: Default::Int(2),
        doc: "Rings in use: 2, the channel's pair of counter-rotating rings; 1 masks ring 1 off (US patent 6,233,704), leaving one ring." },
    Param { section: "gigaring", key: "bandwidth_sharing", kind: Kind::Bool, default: Default::Bool(true),
        doc: "Bandwidth allocation by adaptive bandwidth sharing (US patent 6,205,119): a node held back by passing traffic sets the request-to-share bit in the packets it passes; their sources, told by the echoes, insert idles. Off: a node sends whenever its bypass buffer is empty." },
    Param { section: "gigaring", key: "sharing_law", kind: Kind::Choice(&["equal-share", "per-request"]), default: Default::Str("equal-share"),
        doc: "How a source turns the requests to share it hears into idles. `equal-share`: a source that has more to send counts the nodes contending with it (those its packets pass that ask to share, from its echoes, and those upstream whose packets pass it, sources included, from those packets' fields) and with n of them follows each own packet with n - 1 packets' worth of idles, taking one n-th of the ring. `per-request`: one slot of `sharing_idle_symbols` per request heard, added as each echo returns (nodes next to a hot spot starve)." },
    Param { section: "gigaring", key: "sharing_idle_symbols", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(0),
        doc: "With `sharing_law = \"per-request\"`: idle symbols a source inserts per request to share it hears; 0: one maximum packet with its idles (the patent gives no constant)." },
    Param { section: "gigaring", key: "queue_reservation", kind: Kind::Bool, default: Default::Bool(true),
        doc: "Queue reservation: a packet busied twice gets a reserved receive buffer slot (IEEE 1596's A/B queue allocation), so none is busied forever." },
    Param { section: "gigaring", key: "clock_mhz", kind: Kind::Float { min: 1.0, max: 1e5 }, default: Default::Float(150.0),
        doc: "Symbol clock, MHz: one 32-bit symbol per cycle on each ring link (150 MHz: 600 MB/s raw per ring, the Cray T3E guide's figure)." },
    Param { section: "gigaring", key: "wire_m", kind: Kind::Float { min: 0.0, max: 1e4 }, default: Default::Float(0.0),
        doc: "Wire length between neighbouring nodes, metres; a signal takes 5 ns per metre (seed 002)." },
    Param { section: "gigaring", key: "node_latency_ns", kind: Kind::Float { min: 0.0, max: 1e6 }, default: Default::Float(224.0),
        doc: "From a packet's head entering a node chip to its head leaving it (passing) or being decoded there (stripped), ns. Calibrated on seed 002 Figure 6: with 2-symbol echoes, a two-node channel's unloaded channel latency is 462 ns at 0 m." },
    Param { section: "gigaring", key: "header_symbols", kind: Kind::Int { min: 1, max: 64 }, default: Default::Int(4),
        doc: "Header of every send packet, 32-bit symbols (SCI's 16-byte header)." },
    Param { section: "gigaring", key: "framing_symbols", kind: Kind::Int { min: 0, max: 256 }, default: Default::Int(12),
        doc: "Symbols every send packet carries beyond its SCI header, payload and checksum (GigaRing's own fields: traffic control, virtual channel and the like; no source gives their size). Calibrated on seed 002 Figure 4 (half duplex peak 916 MB/s); echoes do not carry them." },
    Param { section: "gigaring", key: "checksum_symbols", kind: Kind::Int { min: 0, max: 16 }, default: Default::Int(1),
        doc: "Trailing checksum of every send packet, 32-bit symbols." },
    Param { section: "gigaring", key: "echo_symbols", kind: Kind::Int { min: 1, max: 64 }, default: Default::Int(2),
        doc: "An echo packet, 32-bit symbols (SCI's 8-byte echo)." },
    Param { section: "gigaring", key: "echo_after", kind: Kind::Choice(&["header", "checksum"]), default: Default::Str("header"),
        doc: "When a target puts the echo on the ring: `header`, in the stripped packet's place as soon as its header is decoded (IEEE 1596); or `checksum`, once the packet's checksum is in. With `checksum` a channel's latency grows by a packet's length (540 ns for a 32-word packet), more than seed 002's whole 462 ns unloaded latency: the calibration of `node_latency_ns` is then impossible." },
    Param { section: "gigaring", key: "idle_symbols_between_packets", kind: Kind::Int { min: 0, max: 256 }, default: Default::Int(1),
        doc: "Idle symbols that must follow every packet, echoes included (SCI's separating idle). Beyond them a link carries idles only when a node has nothing to send, and a node's bypass buffer drains by absorbing those (seed 002: a node sends idles when it is not transmitting and nothing passes through)." },
    Param { section: "gigaring", key: "send_buffer_packets", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(0),
        doc: "Send buffer per ring and virtual channel, packets (sent packets keep their slot until their echo). 0: enough for a lone node to keep its ring busy (Little's law): the longest send packets it can send while one goes round the channel's longest ring to its echo, plus the one waiting to go; at least 8 (the two-node channel of seed 002's figures)." },
    Param { section: "gigaring", key: "receive_buffer_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Int(8),
        doc: "Receive buffer per ring and virtual channel, packets: a packet that finds it full is busied." },
    Param { section: "gigaring", key: "client_port_mbps", kind: Kind::Float { min: 1.0, max: INF }, default: Default::Float(1200.0),
        doc: "Rate at which a node's client takes a packet out of a receive buffer, MB/s (a 64-bit client port at 150 MHz): a packet of b bytes holds its virtual channel's receive server b / rate." },
    Param { section: "gigaring", key: "slave_access_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Float(0.0),
        doc: "A slave's memory access on a ReadBlk request before its DMA engine sends the first response, ns (beyond the client port time)." },
    Param { section: "gigaring", key: "dma_setup_words", kind: Kind::Int { min: 0, max: 32 }, default: Default::Int(2),
        doc: "Payload of a DMA transfer's set-up message, 64-bit words (the memory region: an address and a length). A ReadBlk or WriteBlk opens with a handshake (seed 002: DMA 'generally require[s] some form of handshaking'): the master's set-up, the slave's ready, then the block; a ReadBlk's data is followed by the slave's status. All three are peer messages on the write-request channel. 0: no handshake." },
    Param { section: "gigaring", key: "dma_status_words", kind: Kind::Int { min: 0, max: 32 }, default: Default::Int(1),
        doc: "Payload of the slave's ready and status messages of the DMA handshake, 64-bit words; a WriteBlk's write response carries as much (it is the transfer's status)." },
    Param { section: "gigaring", key: "dma_queue_transfers", kind: Kind::Int { min: 0, max: 65535 }, default: Default::Int(8),
        doc: "Transfers a slave's DMA engine holds at once, from the acceptance of a transfer's set-up (without a handshake, of its first request packet: a ReadBlk request, a WriteBlk's first data packet) until its last response (or status) is put into a send buffer; a set-up (or request) that would open one more is busied. 0: no bound." },
    Param { section: "gigaring", key: "load_balancing", kind: Kind::Choice(&["per-packet", "shortest"]), default: Default::Str("per-packet"),
        doc: "Which ring a packet goes on: `per-packet`, the ring whose send buffer for its virtual channel holds the fewest packets (ties to the fewer hops, then ring 0): seed 002's automatic load balancing; or `shortest`, the ring with fewer hops to the target (where both are as far, the emptier as `per-packet`)." },
    Param { section: "gigaring", key: "congestion_control", kind: Kind::Bool, default: Default::Bool(true),
        doc: "Adaptive congestion control: each stream's window of outstanding request packets halves on a busy echo (not below `window_min`) and opens by one per window's worth of accepted echoes (up to `window_max`)." },
    Param { section: "gigaring", key: "window_max", kind: Kind::Int { min: 0, max: 65535 }, default: Default::Int(0),
        doc: "Most request packets one stream may have outstanding (put into a send buffer and not yet accepted). 0: what its node's send buffers of one virtual channel hold on all rings in use (`send_buffer_packets` times `rings`), at least 16." },
    Param { section: "gigaring", key: "window_min", kind: Kind::Int { min: 1, max: 65535 }, default: Default::Int(1),
        doc: "Fewest the window closes to under congestion." },
    Param { section: "gigaring", key: "backoff_round_trips", kind: Kind::Int { min: 1, max: 65535 }, default: Default::Int(16),
        doc: "Adaptive congestion control below the window's floor: a stream whose request is busied again at `window_min` sends no request but those of blocks whose ready is back (their DMA slot is promised) for 1, 3, 7, ... of that packet's round trips (sent to busy echo): one request per 2, 4, 8, ... round trips, down to one per this many. An accepting echo starts the doubling again; one of the stream's transfers completing (its target freed a slot) ends the wait. 1: none (a stream at its floor sends a request every round trip)." },
    Param { section: "gigaring", key: "transfers_per_stream", kind: Kind::Int { min: 0, max: 65535 }, default: Default::Int(4),
        doc: "DMA transfers (ReadBlk, WriteBlk) one stream may have issued and not complete at once: a client's DMA engines. 0: no limit. A message takes none: done with, for its sender, once accepted, it counts against the stream's window only." },
    // [faults]
    Param { section: "faults", key: "fail_node", kind: Kind::Int { min: 0, max: 4095 }, default: Default::None,
        doc: "A node that fails at `faults.at_ns`: the two rings fold into one that bypasses it (US patent 6,233,704; beyond seed 002). Its transactions, as requester or target, are lost; packets not yet echoed are sent again on the folded ring. Needs at least 3 nodes and both rings." },
    Param { section: "faults", key: "fail_link", kind: Kind::Int { min: 0, max: 4095 }, default: Default::None,
        doc: "A link that fails at `faults.at_ns`: the wires between node k and node k + 1 (mod N), both rings'; the rings fold into one through every node. Not with `fail_node`." },
    Param { section: "faults", key: "at_ns", kind: Kind::Float { min: 0.0, max: 1e15 }, default: Default::Float(100_000.0),
        doc: "When the node or link fails, ns of simulated time (after the warm-up, to see before and after)." },
    Param { section: "faults", key: "detection_ns", kind: Kind::Float { min: 0.0, max: 1e12 }, default: Default::Float(10_000.0),
        doc: "From the failure until the nodes next to it know (a loss-of-signal timeout on their inputs) and fold the rings, ns. Meanwhile the others go on sending into the broken rings: what reaches the dead link or node is lost, and sent again after the fold." },
    Param { section: "faults", key: "reinit_circulations", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(4),
        doc: "The folded ring's reinitialisation after the fold, in circulations of it (its interfaces times a hop each): no link carries a packet meanwhile, and send buffers fill. 4: a flush, a scrubber selection, node identification and a start-up pass, as an SCI ringlet's reset." },
    // [traffic]
    Param { section: "traffic", key: "transaction", kind: Kind::Choice(&["readblk", "writeblk", "message", "mixed"]), default: Default::Str("readblk"),
        doc: "What masters issue: `readblk` (a request; the slave answers with the block in packets of up to 32 words), `writeblk` (the block in request packets; one write response), `message` (one packet of `block_words` words, at most 32; no response), or `mixed`: equal shares of the load as messages of 32 words, ReadBlk and WriteBlk of 64 words, and ReadBlk and WriteBlk of `block_words`." },
    Param { section: "traffic", key: "block_words", kind: Kind::Int { min: 1, max: MAX_BLOCK_WORDS }, default: Default::Int(1024),
        doc: "Block size of a ReadBlk or WriteBlk (a message's size), 64-bit words." },
    Param { section: "traffic", key: "masters", kind: Kind::Int { min: 0, max: 4096 }, default: Default::Int(0),
        doc: "Nodes 0 to `masters` - 1 issue transactions and the others only answer (seed 002's half duplex: 1 of 2); 0: every node does both (full duplex). `load_mbps_per_node` is the payload each master offers." },
];

/// The least `send_buffer_packets` and `window_max` sized to the channel
/// (0): the two-node channel of seed 002's figures, whose round trip holds
/// fewer full packets than its virtual channels' short handshake messages
/// need (docs/assumptions.md).
pub const SMALLEST_SEND_BUFFER: u32 = 8;
pub const SMALLEST_WINDOW_MAX: u16 = 16;

/// The largest block (`traffic.block_words`), 64-bit words: 32 768 packets,
/// within a block's packet count (16 bits).
pub const MAX_BLOCK_WORDS: i64 = 1 << 20;
const _: () = assert!(MAX_BLOCK_WORDS as u32 / crate::params::PACKET_WORDS <= u16::MAX as u32);

/// What masters issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transaction {
    ReadBlk,
    WriteBlk,
    Message,
    Mixed,
}

/// What the model reads from a scenario of this family.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub nodes: usize,
    pub clock_mhz: f64,
    pub wire_m: f64,
    pub node_latency_ns: f64,
    pub header_symbols: u16,
    pub framing_symbols: u16,
    pub checksum_symbols: u16,
    pub echo_symbols: u16,
    pub echo_after_checksum: bool,
    pub idle_symbols: u32,
    pub send_buffer: u32,
    pub receive_buffer: u32,
    pub client_port_mbps: f64,
    pub slave_access_ns: f64,
    pub dma_setup_words: u32,
    pub dma_status_words: u32,
    pub dma_queue: u32,
    pub balance: bool,
    pub congestion_control: bool,
    pub window_max: u16,
    pub window_min: u16,
    pub backoff_round_trips: u16,
    pub transfers_per_stream: u16,
    pub rings: usize,
    pub bandwidth_sharing: bool,
    pub sharing_law: crate::arbitration::SharingLaw,
    pub sharing_idle_symbols: u32,
    pub queue_reservation: bool,
    pub transaction: Transaction,
    pub block_words: u32,
    pub masters: usize,
    pub fault: Option<Fault>,
}

/// What fails mid-run, and when.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fault {
    pub at_ns: f64,
    pub what: Failure,
    pub detection_ns: f64,
    pub reinit_circulations: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Node k.
    Node(usize),
    /// The wires between node k and node k + 1.
    Link(usize),
}

impl Settings {
    pub fn of(s: &Scenario) -> Settings {
        let (g, traffic) = (s.section("gigaring"), s.section("traffic"));
        Settings {
            nodes: s.network.nodes as usize,
            clock_mhz: g.float("clock_mhz"),
            wire_m: g.float("wire_m"),
            node_latency_ns: g.float("node_latency_ns"),
            header_symbols: g.int("header_symbols") as u16,
            framing_symbols: g.int("framing_symbols") as u16,
            checksum_symbols: g.int("checksum_symbols") as u16,
            echo_symbols: g.int("echo_symbols") as u16,
            echo_after_checksum: g.str("echo_after") == "checksum",
            idle_symbols: g.int("idle_symbols_between_packets") as u32,
            send_buffer: g.int("send_buffer_packets") as u32,
            receive_buffer: g.int("receive_buffer_packets") as u32,
            client_port_mbps: g.float("client_port_mbps"),
            slave_access_ns: g.float("slave_access_ns"),
            dma_setup_words: g.int("dma_setup_words") as u32,
            dma_status_words: g.int("dma_status_words") as u32,
            dma_queue: g.int("dma_queue_transfers") as u32,
            balance: g.str("load_balancing") == "per-packet",
            congestion_control: g.bool("congestion_control"),
            window_max: g.int("window_max") as u16,
            window_min: g.int("window_min") as u16,
            backoff_round_trips: g.int("backoff_round_trips") as u16,
            transfers_per_stream: g.int("transfers_per_stream") as u16,
            rings: g.int("rings") as usize,
            bandwidth_sharing: g.bool("bandwidth_sharing"),
            sharing_law: match g.str("sharing_law") {
                "per-request" => crate::arbitration::SharingLaw::PerRequest,
                _ => crate::arbitration::SharingLaw::EqualShare,
            },
            sharing_idle_symbols: g.int("sharing_idle_symbols") as u32,
            queue_reservation: g.bool("queue_reservation"),
            transaction: match traffic.str("transaction") {
                "writeblk" => Transaction::WriteBlk,
                "message" => Transaction::Message,
                "mixed" => Transaction::Mixed,
                _ => Transaction::ReadBlk,
            },
            block_words: traffic.int("block_words") as u32,
            masters: traffic.int("masters") as usize,
            fault: {
                let f = s.section("faults");
                let what = match (f.opt_int("fail_node"), f.opt_int("fail_link")) {
                    (Some(n), _) => Some(Failure::Node(n as usize)),
                    (None, Some(l)) => Some(Failure::Link(l as usize)),
                    (None, None) => None,
                };
                what.map(|what| Fault {
                    at_ns: f.float("at_ns"),
                    what,
                    detection_ns: f.float("detection_ns"),
                    reinit_circulations: f.int("reinit_circulations") as u32,
                })
            },
        }
    }

    /// Packets per send buffer (`gigaring.send_buffer_packets`; 0: at least
    /// 8, and the longest send packets a node can send while one goes
    /// round the channel's longest ring, the folded one if a fault folds
    /// it, to its echo, plus the one waiting to go: Little's law for a lone
    /// node that keeps its ring busy).
    pub fn send_buffer_packets(&self) -> u32 {
        if self.send_buffer > 0 {
            return self.send_buffer;
        }
        let ring = crate::network::folded_order(self).map_or(self.nodes, |o| o.len()) as u64;
        let cycle = ns_to_time(1e3 / self.clock_mhz);
        let hop = ns_to_time(self.node_latency_ns + crate::params::NS_PER_METRE * self.wire_m);
        let longest = crate::params::longest_packet(self) as u64;
        // From the packet's head leaving to its echo's tail back (the echo waits for the packet's tail where it follows the checksum).
        let round_trip = ring * hop + self.echo_symbols as u64 * cycle + if self.echo_after_checksum { longest * cycle } else { 0 };
        let slot = (longest + self.idle_symbols as u64) * cycle;
        (round_trip.div_ceil(slot) as u32 + 1).max(SMALLEST_SEND_BUFFER)
    }

    /// The most request packets a stream may have outstanding
    /// (`gigaring.window_max`; 0: its node's send buffers of one virtual
    /// channel on all rings in use, at least 16).
    pub fn window_max(&self) -> u16 {
        if self.window_max > 0 {
            return self.window_max;
        }
        (self.send_buffer_packets() * self.rings as u32).clamp(SMALLEST_WINDOW_MAX as u32, u16::MAX as u32) as u16
    }

    /// Checks across keys; the message names the key.
    pub fn check(&self) -> Result<(), String> {
        if self.transaction == Transaction::Message && self.block_words > crate::params::PACKET_WORDS {
            return Err(format!("traffic.block_words: a message carries at most {} words (256 bytes), got {}", crate::params::PACKET_WORDS, self.block_words));
        }
        if self.masters >= self.nodes {
            return Err(format!("traffic.masters: expected fewer than network.nodes ({}) so that some node answers, got {} (0: every node is master and slave)", self.nodes, self.masters));
        }
        if let Some(f) = self.fault {
            let f_section = |key: &str| format!("faults.{key}");
            let (key, k) = match f.what {
                Failure::Node(n) => ("fail_node", n),
                Failure::Link(l) => ("fail_link", l),
            };
            if k >= self.nodes {
                return Err(format!("{}: expected a node number below network.nodes ({}), got {k}", f_section(key), self.nodes));
            }
            if self.rings != 2 {
                return Err(format!("{}: folding needs both rings (gigaring.rings = 2), got gigaring.rings = {}", f_section(key), self.rings));
            }
            if matches!(f.what, Failure::Node(_)) && self.nodes < 3 {
                return Err(format!("faults.fail_node: a channel of {} nodes cannot fold around a node (at least 3)", self.nodes));
            }
            if self.masters == 1 && f.what == Failure::Node(0) {
                return Err("faults.fail_node: node 0 is the only master (traffic.masters = 1); nothing would be left to measure after it fails".to_string());
            }
        }
        // (Sized to the channel, the window needs a valid fault's folded ring first.)
        if self.window_min > self.window_max() {
            return Err(format!("gigaring.window_min: expected at most gigaring.window_max ({}), got {}", self.window_max(), self.window_min));
        }
        Ok(())
    }
}
