//! The fabric parameters of the switch study, derived once from its
//! settings: sizes in 16-bit symbols, times in the engine's unit.

use crate::keys::{Settings, Transaction};
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::params::{Classes, Params, Shape, Sources, MAX_CLASSES};
use ringlet_fabric::topology::{BusSpec, PortSpec};

/// Bytes per SCI symbol.
const SYMBOL_BYTES: u16 = 2;
/// Data payload of a transaction (DMOVE64, write64, read64).
pub const DATA_BYTES: u32 = 64;
/// Packet sizes, bytes: a 16-byte header and trailer, and 64 bytes of data
/// where it travels (seed 001: 64/84 with the idles); an echo is 8 bytes.
const HEADER_BYTES: u16 = 16;
const ECHO_BYTES: u16 = 8;
/// Bytes one B-Link beat carries (Richter: a 64-bit bus).
const BEAT_BYTES: u16 = 8;
pub const REQUEST: u8 = 0;
pub const RESPONSE: u8 = 1;

/// The ring interfaces' shared parameters.
pub fn params(k: &Settings) -> Params {
    let with_data = (HEADER_BYTES + DATA_BYTES as u16) / SYMBOL_BYTES;
    let bare = HEADER_BYTES / SYMBOL_BYTES;
    let (request_len, response_len, responses, data_in_response) = match k.transaction {
        Transaction::Dmove64 => (with_data, 0, 0, false),
        Transaction::Write64 => (with_data, bare, 1, false),
        Transaction::Read64 => (bare, with_data, 1, true),
    };
    let separator = k.idle_symbols;
    Params {
        cycle: ns_to_time(k.cycle_ns),
        separator,
        echo_len: ECHO_BYTES / SYMBOL_BYTES,
        bypass_fifo_symbols: with_data as u32 + separator,
        // Every agent's ports have their own (`endpoint_ports`, `switch_ports`).
        iqst: [0; MAX_CLASSES],
        input_queue: [k.node_buffer_packets; MAX_CLASSES],
        output_queue: k.node_buffer_packets,
        shapes: vec![Shape {
            request_len,
            request_class: REQUEST,
            response_len,
            response_class: RESPONSE,
            responses,
            data_bytes: DATA_BYTES,
            data_in_response,
            requests: 1,
            packet_bytes: 0,
            last_len: 0,
            load_bytes: (with_data as u32 + separator) * SYMBOL_BYTES as u32,
        }],
        shares: vec![1.0],
        kind_names: vec![match k.transaction {
            Transaction::Dmove64 => "dmove64",
            Transaction::Write64 => "write64",
            Transaction::Read64 => "read64",
        }],
        sources: Sources { aligned: k.aligned, locality: k.locality },
        classes: Classes::requests_and_responses(),
        client: Default::default(),
    }
}

/// A processor's or memory's LC-II (seed 001: the timing holds for "all
/// SCI ports"; Dolphin's adapters are an LC-II with a B-Link to the host):
/// its send path, and a receiver that takes a packet per acceptance time
/// and hands it to the host after its receive path, where a memory stores
/// it in its cycle time (`store_ns`; a processor takes it at once). With
/// the three LC-II keys 0 the receiver is one server of the memory's cycle
/// time, and packets go straight into the output buffer.
pub fn endpoint_ports(k: &Settings, store_ns: f64) -> PortSpec {
    let (path, store) = (ns_to_time(k.node_fifo_to_blink_ns), ns_to_time(store_ns));
    let took = path + store;
    let spacing = ns_to_time(k.acceptance_ns).max(store);
    PortSpec {
        iqst: Some([took; MAX_CLASSES]),
        // One packet at a time where the spacing is the service time.
        spacing: (spacing != took).then_some([spacing; MAX_CLASSES]),
        send_delay: ns_to_time(k.node_blink_to_fifo_ns),
        ..PortSpec::default()
    }
}

/// A switch port: its buffers, and the path from its input buffer to the
/// B-Link. Where that path is a pipeline it is a delay each packet goes
/// through in order before asking for the B-Link; where it holds the
/// B-Link it is part of the transfer (`blink`).
pub fn switch_ports(k: &Settings) -> PortSpec {
    let path = if k.fifo_to_blink_holds_bus { 0 } else { ns_to_time(k.fifo_to_blink_ns) };
    PortSpec {
        iqst: Some([path; MAX_CLASSES]),
        input_queue: Some([k.switch_buffer_packets; MAX_CLASSES]),
        output_queue: Some(k.switch_buffer_packets),
        spacing: Some([0; MAX_CLASSES]),
        send_delay: 0,
        shared_server: false,
    }
}

/// The B-Link: 8-byte cycles at `blink_mbps`, a frame of the packet's
/// cycles and the framing, the arbitration, and the FIFO-to-B-Link time
/// where it holds the bus.
pub fn blink(k: &Settings) -> BusSpec {
    let beat = ns_to_time(BEAT_BYTES as f64 * 1e3 / k.blink_mbps);
    BusSpec {
        name: "B-Link",
        beat,
        symbols_per_beat: BEAT_BYTES / SYMBOL_BYTES,
        frame_beats: k.blink_frame_beats,
        entry: if k.fifo_to_blink_holds_bus { ns_to_time(k.fifo_to_blink_ns) } else { 0 },
        arbitration: k.blink_arbitration_beats as ringlet_engine::Time * beat,
        exit: ns_to_time(k.blink_to_fifo_ns),
    }
}
