//! The fabric parameters of the switch study, derived once from its
//! settings: sizes in 16-bit symbols, times in the engine's unit.

use crate::keys::{Settings, Transaction};
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::params::{Classes, Params, Shape, Sources, MAX_CLASSES};
use ringlet_fabric::topology::{BusSpec, PortSpec};

/// Bytes per SCI symbol.
const SYMBOL_BYTES: u16 = 2;
/// Data payload of a transaction (DMOVE64, read64).
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
        Transaction::Read64 => (bare, with_data, 1, true),
    };
    let separator = k.idle_symbols;
    Params {
        cycle: ns_to_time(k.cycle_ns),
        separator,
        echo_len: ECHO_BYTES / SYMBOL_BYTES,
        bypass_fifo_symbols: with_data as u32 + separator,
        // Processors take responses as they come; memories and switch ports have their own (`ports`).
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
        sources: Sources { aligned: k.aligned, locality: k.locality },
        classes: Classes::requests_and_responses(),
        client: Default::default(),
    }
}

/// A memory's interface: it stores (or reads) a packet in its cycle time.
pub fn memory_ports(k: &Settings) -> PortSpec {
    PortSpec { iqst: Some([ns_to_time(k.memory_store_ns); MAX_CLASSES]), ..PortSpec::default() }
}

/// A switch port: its buffers, and the path from its input buffer to the
/// B-Link, a delay every packet goes through in order (seed 001: one port
/// pair alone reaches the port rate, which one packet per 106 ns plus a
/// transfer could not).
pub fn switch_ports(k: &Settings) -> PortSpec {
    PortSpec {
        iqst: Some([ns_to_time(k.fifo_to_blink_ns); MAX_CLASSES]),
        input_queue: Some([k.switch_buffer_packets; MAX_CLASSES]),
        output_queue: Some(k.switch_buffer_packets),
        delay_line: true,
        shared_server: false,
    }
}

/// The B-Link: 8-byte beats at `blink_mbps`.
pub fn blink(k: &Settings) -> BusSpec {
    BusSpec {
        beat: ns_to_time(BEAT_BYTES as f64 * 1e3 / k.blink_mbps),
        symbols_per_beat: BEAT_BYTES / SYMBOL_BYTES,
        overhead_beats: k.blink_overhead_beats,
        exit: ns_to_time(k.blink_to_fifo_ns),
    }
}
