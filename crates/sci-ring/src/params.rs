//! The fabric parameters of an SCI ring, derived once from a scenario:
//! sizes in symbols, times in [`Time`] ticks (seed 003 Table 1; SPEC section 3.1).

use crate::keys::{Settings, Transaction};
use ringlet_engine::time::{ns_to_time, time_to_s};
use ringlet_engine::Time;
use ringlet_fabric::params::{Classes, ClientRules, Params, Shape, MAX_CLASSES};

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
    ns_to_time(s.cycle_ns)
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
    iqst[REQUEST as usize] = ns_to_time(s.responder_iqst_ns);
    iqst[RESPONSE as usize] = ns_to_time(s.requestor_iqst_ns);
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
        shapes: vec![Shape {
            request_len: (req / SYMBOL_BYTES) as u16,
            request_class: REQUEST,
            response_len: (resp / SYMBOL_BYTES) as u16,
            response_class: RESPONSE,
            responses: (resp > 0) as u16,
            data_bytes: DATA_BYTES,
            data_in_response,
            requests: 1,
            packet_bytes: 0,
            last_len: 0,
            load_bytes: DATA_BYTES,
        }],
        shares: vec![1.0],
        kind_names: vec![match s.transaction {
            Transaction::Read64 => "read64",
            Transaction::Write64 => "write64",
            Transaction::Move64 => "move64",
        }],
        sources: Default::default(),
        classes: Classes::requests_and_responses(),
        client: ClientRules { transactions_per_agent: s.response_waiting_packets as u16, response_timeout: ns_to_time(s.response_timeout_ns), ..Default::default() },
    })
}

/// The most effective throughput uniform traffic can carry on a ring of any
/// size, MB/s (SI), counting every symbol a transaction puts on the links.
///
/// A packet to a node `d` hops downstream crosses `d` links and its echo the
/// other `N - d`; a response travels back over those `N - d` links and its echo
/// over the `d`. Each occupies a link for its length plus the separator idles.
/// Uniform destinations make the mean `d` exactly `N / 2`, so a transaction
/// takes `N / 2` link slots per symbol of (request + echo + responses x
/// (response + echo)), each with its idles, out of the `N` links' one slot per
/// cycle: `2 data / (cycle x that sum)`, whatever `N`. read64 with one idle:
/// (9 + 5 + 41 + 5) / 2 = 30 slots per link, 64 B per 30 cycles of 2 ns =
/// 1,066.7 MB/s. Without idles it is the seed's "57%" of twice the link rate,
/// 64/112 x 2 GB/s = 1,142.9 MB/s (seed 003 section 4's 1.14 GB/s).
pub fn uniform_bound_mbps(p: &Params) -> f64 {
    let slots = |len: u16| len as f64 + p.separator as f64;
    let s = p.shape();
    let per_link = slots(s.request_len) + slots(p.echo_len) + s.responses as f64 * (slots(s.response_len) + slots(p.echo_len));
    let cycle_s = time_to_s(p.cycle);
    2.0 * s.data_bytes as f64 / (cycle_s * per_link) / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::Settings;

    fn bound(overrides: &[&str]) -> f64 {
        let o: Vec<_> = overrides.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
        let s = crate::load_str("", &o).expect("valid scenario");
        uniform_bound_mbps(&params(&Settings::of(&s)).expect("params"))
    }

    /// The seed's own arithmetic (57% of 2 GB/s, no idles) and ours with one idle,
    /// each from the packet sizes: 64 B over (8 + 4 + 40 + 4) / 2 symbols, and over (9 + 5 + 41 + 5) / 2.
    #[test]
    fn uniform_bound_is_the_seeds_without_idles_and_lower_with_one() {
        let seed = 64.0 / (56.0 / 2.0 * 2e-9) / 1e6;
        assert!((bound(&["network.idle_symbols_between_packets=0"]) - seed).abs() < 1e-6);
        assert!((seed / 1000.0 - 1.14).abs() < 0.005, "the seed's 1.14 GB/s: {seed}");
        let one_idle = 64.0 / (60.0 / 2.0 * 2e-9) / 1e6;
        assert!((bound(&[]) - one_idle).abs() < 1e-6, "{}", bound(&[]));
        // No dependence on the ring's size; halving the symbol time doubles it.
        assert_eq!(bound(&["network.nodes=3"]), bound(&["network.nodes=64"]));
        assert!((bound(&["network.cycle_ns=1"]) - 2.0 * one_idle).abs() < 1e-6);
    }
}
