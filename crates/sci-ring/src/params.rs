//! Model parameters derived once from a scenario: sizes in symbols, times in ps.

use ringlet_engine::time::ns_to_ps;
use ringlet_engine::Time;
use ringlet_scenario::{Scenario, Transaction};

/// Bytes per 16-bit symbol.
pub const SYMBOL_BYTES: u32 = 2;
/// Data payload of every transaction type modelled (read64, write64, move64).
pub const DATA_BYTES: u32 = 64;
/// Echo size, bytes (SPEC 3.1; Richter: targetId, command, sourceId, CRC).
pub const ECHO_BYTES: u32 = 8;

#[derive(Clone, Debug)]
pub struct Params {
    pub nodes: usize,
    /// One symbol time.
    pub cycle: Time,
    /// Link propagation delay plus node bypass delay: the time one hop adds.
    pub hop: Time,
    /// Idle symbols that follow every packet.
    pub separator: u32,
    pub request_len: u16,
    /// 0 for responseless transactions (move64).
    pub response_len: u16,
    pub echo_len: u16,
    /// True if the data travels in the response (read64), false if in the request.
    pub data_in_response: bool,
    pub bypass_fifo_symbols: u32,
    pub iqst: Time,
    pub responder_queue: u32,
    pub requestor_queue: u32,
    pub output_queue: u32,
}

impl Params {
    pub fn from_scenario(s: &Scenario) -> Result<Params, String> {
        // Packet sizes, bytes (SPEC 3.1, seed 003 section 4).
        let (req, resp, data_in_response) = match s.traffic.transaction {
            Transaction::Read64 => (16, 80, true),
            Transaction::Write64 => (80, 16, false),
            Transaction::Move64 => (80, 0, false),
        };
        let cycle = ns_to_ps(s.network.cycle_ns);
        let separator = s.network.idle_symbols_between_packets;
        let longest = (req.max(resp) / SYMBOL_BYTES) + separator;
        let fifo = if s.network.bypass_fifo_symbols == 0 { longest } else { s.network.bypass_fifo_symbols };
        if fifo < longest {
            return Err(format!(
                "network.bypass_fifo_symbols: expected 0 (derived) or at least {longest} (longest send packet plus separator idles), got {fifo}"
            ));
        }
        Ok(Params {
            nodes: s.network.nodes as usize,
            cycle,
            hop: ns_to_ps(s.network.link_delay_ns) + s.network.node_delay_cycles as Time * cycle,
            separator,
            request_len: (req / SYMBOL_BYTES) as u16,
            response_len: (resp / SYMBOL_BYTES) as u16,
            echo_len: (ECHO_BYTES / SYMBOL_BYTES) as u16,
            data_in_response,
            bypass_fifo_symbols: fifo,
            iqst: ns_to_ps(s.node.iqst_ns),
            responder_queue: s.node.responder_input_queue_packets,
            requestor_queue: s.node.requestor_input_queue_packets,
            output_queue: s.node.output_queue_packets,
        })
    }

    /// Hops from node `from` to node `to` downstream (1..nodes-1; 0 if equal).
    #[inline]
    pub fn hops(&self, from: usize, to: usize) -> usize {
        (to + self.nodes - from) % self.nodes
    }

    /// Time a packet of `len` symbols occupies a link, with its separator idles.
    #[inline]
    pub fn slot(&self, len: u16) -> Time {
        (len as u32 + self.separator) as Time * self.cycle
    }
}
