//! The fabric parameters of an SCI ring, derived once from a scenario:
//! sizes in symbols, times in ps (seed 003 Table 1; SPEC section 3.1).

use crate::keys::{Settings, Transaction};
use ringlet_engine::time::ns_to_ps;
use ringlet_engine::Time;
use ringlet_fabric::params::{Classes, Params, Shape, MAX_CLASSES};

/// Bytes per 16-bit symbol.
pub const SYMBOL_BYTES: u32 = 2;
/// Data payload of every transaction type modelled (read64, write64, move64).
pub const DATA_BYTES: u32 = 64;
/// Echo size, bytes (SPEC 3.1; Richter: targetId, command, sourceId, CRC).
pub const ECHO_BYTES: u32 = 8;
/// The traffic classes: requests (into the responder's input queue) and
/// responses (into the requestor's).
pub const REQUEST: u8 = 0;
pub const RESPONSE: u8 = 1;

/// One symbol time.
pub fn cycle(s: &Settings) -> Time {
    ns_to_ps(s.cycle_ns)
}

/// The ring interfaces' parameters for settings `s`; fails (naming the key)
/// for a bypass FIFO too small for the transaction's packets.
pub fn params(s: &Settings) -> Result<Params, String> {
    // Packet sizes, bytes (SPEC 3.1, seed 003 section 4).
    let (req, resp, data_in_response) = match s.transaction {
        Transaction::Read64 => (16, 80, true),
        Transaction::Write64 => (80, 16, false),
        Transaction::Move64 => (80, 0, false),
    };
    let separator = s.idle_symbols_between_packets;
    let longest = (req.max(resp) / SYMBOL_BYTES) + separator;
    let fifo = if s.bypass_fifo_symbols == 0 { longest } else { s.bypass_fifo_symbols };
    if fifo < longest {
        return Err(format!(
            "network.bypass_fifo_symbols: expected 0 (derived) or at least {longest} (longest send packet plus separator idles), got {fifo}"
        ));
    }
    let mut iqst = [0; MAX_CLASSES];
    iqst[REQUEST as usize] = ns_to_ps(s.responder_iqst_ns);
    iqst[RESPONSE as usize] = ns_to_ps(s.requestor_iqst_ns);
    let mut input_queue = [0; MAX_CLASSES];
    input_queue[REQUEST as usize] = s.responder_input_queue_packets;
    input_queue[RESPONSE as usize] = s.requestor_input_queue_packets;
    Ok(Params {
        cycle: cycle(s),
        separator,
        echo_len: (ECHO_BYTES / SYMBOL_BYTES) as u16,
        bypass_fifo_symbols: fifo,
        iqst,
        input_queue,
        output_queue: s.output_queue_packets,
        shape: Shape {
            request_len: (req / SYMBOL_BYTES) as u16,
            request_class: REQUEST,
            response_len: (resp / SYMBOL_BYTES) as u16,
            response_class: RESPONSE,
            responses: (resp > 0) as u16,
            data_bytes: DATA_BYTES,
            data_in_response,
        },
        classes: Classes::requests_and_responses(),
    })
}
