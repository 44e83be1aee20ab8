//! The fabric parameters of a GigaRing channel, derived once from its
//! settings: sizes in 32-bit symbols, times in the engine's unit, the
//! kinds of transaction masters issue, and the client side's rules.

use crate::keys::{Settings, Transaction};
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::params::{ClientRules, Classes, Handshake, Params, Responder, RingChoice, Shape, Sources, WindowPolicy, MAX_CLASSES};

/// Bytes per symbol (32-bit symbols).
pub const SYMBOL_BYTES: u32 = 4;
/// Payload of a full data packet, 64-bit words (256 bytes: seed 002, "for
/// block sizes greater than 32 words there is more than one data packet").
pub const PACKET_WORDS: u32 = 32;
/// A signal's time per metre of wire, ns (seed 002).
pub const NS_PER_METRE: f64 = 5.0;

/// The four virtual channels (seed 002: "roughly read requests, read
/// responses, write requests, and write responses"); messages go on the
/// write-request channel.
pub const READ_REQUEST: u8 = 0;
pub const READ_RESPONSE: u8 = 1;
pub const WRITE_REQUEST: u8 = 2;
pub const WRITE_RESPONSE: u8 = 3;

/// The virtual channels, taking turns at each link (so that none starves another), responses first.
pub fn classes() -> Classes {
    Classes { names: vec!["read-request", "read-response", "write-request", "write-response"], precedence: vec![READ_RESPONSE, WRITE_RESPONSE, READ_REQUEST, WRITE_REQUEST], round_robin: true }
}

/// Symbols of a send packet carrying `words` 64-bit words.
fn packet_len(k: &Settings, words: u32) -> u16 {
    k.header_symbols + k.framing_symbols + k.checksum_symbols + (words * 8 / SYMBOL_BYTES) as u16
}

/// A ReadBlk (`read`) or WriteBlk of `words`: the block in packets of up
/// to 32 words, the last taking the rest.
pub fn block(k: &Settings, words: u32, read: bool) -> Shape {
    let packets = words.div_ceil(PACKET_WORDS) as u16;
    let last = words - PACKET_WORDS * (packets as u32 - 1);
    let full = packet_len(k, words.min(PACKET_WORDS));
    // (The full packet's length when the block is one packet, or whole packets.)
    let last_len = packet_len(k, last);
    let bare = packet_len(k, 0);
    let data_bytes = words * 8;
    let common = Shape {
        request_len: bare,
        request_class: READ_REQUEST,
        response_len: full,
        response_class: READ_RESPONSE,
        responses: packets,
        data_bytes,
        data_in_response: true,
        requests: 1,
        packet_bytes: PACKET_WORDS * 8,
        last_len,
        load_bytes: data_bytes,
    };
    if read {
        common
    } else {
        // Under a handshake the write response is the transfer's status.
        let status = if k.dma_setup_words > 0 { packet_len(k, k.dma_status_words) } else { bare };
        Shape { request_len: full, request_class: WRITE_REQUEST, response_len: status, response_class: WRITE_RESPONSE, responses: 1, data_in_response: false, requests: packets, ..common }
    }
}

/// A message of `words` (at most 32): one packet, no response.
pub fn message(k: &Settings, words: u32) -> Shape {
    Shape {
        request_len: packet_len(k, words),
        request_class: WRITE_REQUEST,
        response_len: 0,
        response_class: WRITE_RESPONSE,
        responses: 0,
        data_bytes: words * 8,
        data_in_response: false,
        requests: 1,
        packet_bytes: 0,
        last_len: 0,
        load_bytes: words * 8,
    }
}

/// The DMA handshake (`gigaring.dma_setup_words`, `dma_status_words`; none
/// if no set-up words): the master's set-up message and the slave's ready
/// and status messages are peer messages, on the write-request channel.
pub fn handshake(k: &Settings) -> Option<Handshake> {
    (k.dma_setup_words > 0).then(|| Handshake { setup_len: packet_len(k, k.dma_setup_words), setup_class: WRITE_REQUEST, status_len: packet_len(k, k.dma_status_words), status_class: WRITE_REQUEST })
}

/// The kinds of transaction masters issue, and each one's share of the load.
pub fn kinds(k: &Settings) -> (Vec<Shape>, Vec<f64>) {
    let w = k.block_words;
    match k.transaction {
        Transaction::ReadBlk => Params::single(block(k, w, true)),
        Transaction::WriteBlk => Params::single(block(k, w, false)),
        Transaction::Message => Params::single(message(k, w)),
        Transaction::Mixed => {
            let shapes = vec![message(k, PACKET_WORDS), block(k, 64, true), block(k, 64, false), block(k, w, true), block(k, w, false)];
            let n = shapes.len();
            (shapes, vec![1.0 / n as f64; n])
        }
    }
}

/// The names of [`kinds`], as a trace's `transaction` column gives them (a
/// mix's ReadBlk and WriteBlk of two sizes are told apart by their bytes).
pub fn kind_names(k: &Settings) -> Vec<&'static str> {
    match k.transaction {
        Transaction::ReadBlk => vec!["readblk"],
        Transaction::WriteBlk => vec!["writeblk"],
        Transaction::Message => vec!["message"],
        Transaction::Mixed => vec!["message", "readblk", "writeblk", "readblk", "writeblk"],
    }
}

/// The longest send packet of the channel's traffic (its transactions and the handshake's messages), symbols.
pub fn longest_packet(k: &Settings) -> u16 {
    let handshake_len = handshake(k).map_or(0, |h| h.setup_len.max(h.status_len));
    kinds(k).0.iter().map(|s| s.request_len.max(s.response_len)).max().unwrap_or(1).max(handshake_len)
}

/// The ring interfaces' shared parameters.
pub fn params(k: &Settings) -> Params {
    let (shapes, shares) = kinds(k);
    let separator = k.idle_symbols;
    let longest = longest_packet(k);
    // A receive server holds a packet for its bytes at the client port's
    // rate (per symbol), and a ReadBlk request for the slave's access too.
    let mut iqst = [0; MAX_CLASSES];
    iqst[READ_REQUEST as usize] = ns_to_time(k.slave_access_ns);
    Params {
        cycle: ns_to_time(1e3 / k.clock_mhz),
        separator,
        echo_len: k.echo_symbols,
        // "The bypass buffer can accommodate the maximum-sized packet" (seed 002).
        bypass_fifo_symbols: longest as u32 + separator,
        iqst,
        input_queue: [k.receive_buffer; MAX_CLASSES],
        output_queue: k.send_buffer_packets(),
        shapes,
        shares,
        kind_names: kind_names(k),
        sources: Sources::default(),
        classes: classes(),
        client: ClientRules {
            responder: Responder::Dma,
            ring_choice: if k.balance { RingChoice::Balance } else { RingChoice::Nearest },
            window: if k.congestion_control { WindowPolicy::Adaptive { min: k.window_min, max: k.window_max() } } else { WindowPolicy::Unlimited },
            transactions_per_stream: k.transfers_per_stream,
            transactions_per_agent: 0,
            backoff: k.backoff_round_trips,
            channel_latency: true,
            handshake: handshake(k),
            dma_queue: k.dma_queue,
            service_per_symbol: ns_to_time(SYMBOL_BYTES as f64 * 1e3 / k.client_port_mbps),
            echo_at_tail: k.echo_after_checksum,
            response_timeout: 0,
        },
    }
}

/// Idle time a source inserts per request to share (`gigaring.sharing_idle_symbols`; 0: one maximum packet with its idles).
pub fn sharing_idles(k: &Settings, p: &Params) -> ringlet_engine::Time {
    let symbols = if k.sharing_idle_symbols == 0 { p.longest_send() as u32 + p.separator } else { k.sharing_idle_symbols };
    symbols as ringlet_engine::Time * p.cycle
}
