//! The traffic's packets: the (source, destination) pairs the model walks
//! (every one, or beyond a bound one in `k` standing for its neighbours),
//! the packets one transaction sends, the ways each may leave its agent
//! by, and its wait behind the earlier packets of its burst.

use crate::mechanism::Fabric;
use crate::params::{Responder, RingChoice, Shape};
use crate::protocol::RingProtocol;
use crate::topology::AgentId;
use crate::traffic::Traffic;
use ringlet_engine::time::time_to_s;

/// Packets of a transaction, as sent: one, or `count` alike in a row (a
/// block's full data packets), the `k`-th of its burst first.
pub(super) struct Pkt {
    pub from: AgentId,
    pub to: AgentId,
    pub class: u8,
    pub len: u16,
    /// Its place in the burst it is sent in, and whether it was born with
    /// the burst (requests: the transaction's birth) or as it entered the
    /// send buffer (a DMA engine's packets).
    pub k: u16,
    /// How many alike: the `k`-th to the `k + count - 1`-th (their ways
    /// and holds are the same; only their places in the burst differ).
    pub count: u16,
    pub born_together: bool,
    /// It is a handshake's set-up or ready.
    pub handshake: bool,
    /// It is a request that goes once the handshake is through (born with
    /// the transaction, before it).
    pub after_handshake: bool,
}

impl Pkt {
    /// How many of the group take the way of its `first`-th: it and every
    /// `ways`-th after it (the `k`-th of a burst takes the `k`-th way, in turn).
    pub fn taking(&self, first: u64, ways: usize) -> u64 {
        (self.k as u64 + self.count as u64).saturating_sub(first).div_ceil(ways as u64)
    }
}

/// The stride that keeps the pairs walked within `max_pairs`: 1 (every
/// pair), or an odd number, so that a run's middle destination stands
/// for it (with an even stride the destinations it stands for would lie
/// more on one side: on a ring, a bias of half a destination per source).
pub(super) fn stride(pairs: usize, max_pairs: usize) -> usize {
    let k = pairs.div_ceil(max_pairs.max(1)).max(1);
    if k > 1 && k.is_multiple_of(2) { k + 1 } else { k }
}

/// Hands `pair` each destination of source `i` walked, with the share of
/// its transactions it stands for: with `stride` 1 every destination
/// alone, in the traffic's order; else, within each run of destinations
/// of equal weight (a hot spot or a home is a run of its own), each
/// `stride` consecutive destinations stand as one, their middle one
/// walked, the first run of `stride` taken from the source's own place
/// on (`places`: its place among the senders, theirs among the
/// receivers), round. On a ring that is the first destination after the
/// source, so each run is of destinations one hop further each; and the
/// destinations walked differ from source to source, so that each stands
/// for as many sources (a Banyan's last stage sees every memory's load).
pub(super) fn destinations(traffic: &Traffic, i: usize, stride: usize, places: &(Vec<u32>, Vec<u32>), mut pair: impl FnMut(AgentId, f64)) {
    let weights = traffic.destination_weights(i);
    if stride == 1 {
        for c in weights.chunks(1) {
            pair(c[0].0, standing_for(c, 0));
        }
        return;
    }
    let (send, receive) = places;
    let me = send[traffic.sources[i].agent as usize];
    let mut run = Vec::new();
    let mut start = 0;
    while start < weights.len() {
        let end = start + weights[start..].iter().take_while(|d| d.1 == weights[start].1).count();
        // (Receivers are in agent order: their places grow along the run.)
        let after = weights[start..end].partition_point(|d| receive[d.0 as usize] < me);
        run.clear();
        run.extend_from_slice(&weights[start + after..end]);
        run.extend_from_slice(&weights[start..start + after]);
        for c in run.chunks(stride) {
            let mid = c.len() / 2;
            pair(c[mid].0, standing_for(c, mid));
        }
        start = end;
    }
}

/// The weight destination `c[at]` is walked with, standing for the run `c`:
/// its own scaled to the run's (w * sum / w, not the sum: as first written,
/// so that a destination walked alone keeps its figures bit for bit).
fn standing_for(c: &[(AgentId, f64)], at: usize) -> f64 {
    let w = c[at].1;
    w * c.iter().map(|d| d.1).sum::<f64>() / w
}

impl<P: RingProtocol> Fabric<P> {
    /// The packets one transaction of `shape` from `src` to `dst` sends, in
    /// the order the client sides send them (`client`, `dma`), into `out`:
    /// those alike in a row as one `Pkt` (a block of kilowords is a few,
    /// not a packet each, walked once per way, not once per packet).
    pub(super) fn transaction_packets(&self, shape: &Shape, src: AgentId, dst: AgentId, out: &mut Vec<Pkt>) {
        out.clear();
        let pkt = |from, to, class, len, k, born_together| Pkt { from, to, class, len, k, count: 1, born_together, handshake: false, after_handshake: false };
        // Appends `p`, or counts it with the last if it is alike.
        let push = |out: &mut Vec<Pkt>, p: Pkt| match out.last_mut() {
            Some(l) if l.class == p.class && l.len == p.len && (l.from, l.to) == (p.from, p.to) && l.k + l.count == p.k && !l.handshake && !p.handshake && l.born_together == p.born_together && l.after_handshake == p.after_handshake => l.count += p.count,
            _ => out.push(p),
        };
        // A side's `n` packets: all alike but the last (which may carry the
        // rest of the data), pushed as two groups, not packet by packet.
        let side = |out: &mut Vec<Pkt>, n: u16, response: bool, p: Pkt| {
            if n > 1 {
                push(out, Pkt { len: shape.len_of(response, 0), count: n - 1, ..p });
            }
            if n > 0 {
                push(out, Pkt { len: shape.len_of(response, n - 1), k: n - 1, ..p });
            }
        };
        let dma = self.p.client.responder == Responder::Dma;
        let handshake = self.p.client.handshake.filter(|_| dma && shape.has_response());
        if let Some(h) = handshake {
            // The requests go once the ready is serviced back at the requester.
            out.push(Pkt { handshake: true, ..pkt(src, dst, h.setup_class, h.setup_len, 0, true) });
            out.push(Pkt { handshake: true, ..pkt(dst, src, h.status_class, h.status_len, 0, false) });
        }
        side(out, shape.requests, false, Pkt { after_handshake: handshake.is_some(), ..pkt(src, dst, shape.request_class, 0, 0, true) });
        // A server answers with all of them at once; a DMA engine puts them out as room frees.
        side(out, shape.responses, true, pkt(dst, src, shape.response_class, 0, 0, !dma));
        if let Some(h) = handshake.filter(|_| shape.data_in_response) {
            out.push(pkt(dst, src, h.status_class, h.status_len, 0, false));
        }
    }

    /// The ways (hops, output interface, stripping interface) packet `pk`
    /// may leave its agent by, into `ways`: the route's one, or, where the
    /// ring choice balances, each of the agent's interfaces (with
    /// `Nearest`, each of those of fewest hops), fewest hops first (the
    /// `k`-th packet of a burst in an idle fabric takes the `k`-th, in turn).
    pub(super) fn ways(&self, pk: &Pkt, ways: &mut Vec<(usize, u16, u16)>) {
        ways.clear();
        // The route (`route_packet`'s where there is no choice, read from
        // the topology's tables alone: on a large ring the interface's and
        // application's state are a cache miss apiece).
        let route = |ways: &mut Vec<(usize, u16, u16)>| {
            let leg = self.topo.leg(pk.from, pk.to);
            ways.clear();
            ways.push((0, leg.out, leg.strip));
        };
        if self.topo.agent(pk.from).ifaces.len() == 1 || !self.choice_ways(pk.from, pk.to, |i, s, hops| ways.push((hops, i, s))) || ways.is_empty() {
            return route(ways);
        }
        ways.sort_unstable();
        if self.p.client.ring_choice == RingChoice::Nearest {
            let fewest = ways[0].0;
            ways.retain(|w| w.0 == fewest);
        }
    }

    /// The wait of packet `pk`, which has `ways` ways, in its send buffer
    /// behind the earlier packets of its burst (`Pace::wait`).
    pub(super) fn burst_wait(&self, pk: &Pkt, ways: usize, round: f64) -> f64 {
        self.pace(pk).wait((pk.k as usize / ways) as u64, pk.born_together, round)
    }

    /// The summed latencies of the packets of `pk`'s group that take the
    /// way of its `first`-th (every `ways`-th from it on, `Pkt::taking`),
    /// each `fixed` plus its wait in its burst (`Pace::waits`).
    pub(super) fn burst_waits(&self, pk: &Pkt, first: u64, ways: usize, round: f64, fixed: f64) -> f64 {
        self.pace(pk).waits(pk, first, ways, round, fixed)
    }

    fn pace(&self, pk: &Pkt) -> Pace {
        Pace { slot: (pk.len as f64 + self.p.separator as f64) * time_to_s(self.p.cycle), q: self.p.output_queue.max(1) as u64 }
    }
}

/// How a burst leaves a send buffer: each packet takes a `slot` (s, its
/// separator with it), and the buffer holds `q` packets, each until its
/// echo is back, a round later.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    pub slot: f64,
    pub q: u64,
}

impl Pace {
    /// The wait of the `j`-th packet of a burst on its interface: `j`
    /// slots after the first while the buffer has room; a buffer of `q`
    /// lets `q` go per round. One born as it entered the buffer (a DMA
    /// engine's), from the `q`-th on, entered when the packet `q` ahead had
    /// its echo back.
    pub fn wait(self, j: u64, born_together: bool, round: f64) -> f64 {
        let j = j as f64;
        if j == 0.0 {
            return 0.0;
        }
        let (slot, q) = (self.slot, self.q as f64);
        let sent = |j: f64| if round <= q * slot { j * slot } else { (j / q).floor() * round + (j % q) * slot };
        if born_together || j < q {
            sent(j)
        } else {
            (sent(j) - (sent(j - q) + round)).max(0.0)
        }
    }

    /// The sum of `fixed` plus its `wait` over the packets of `pk`'s group
    /// from its `first`-th on, every `ways`-th (those that take one way,
    /// `Pkt::taking`): in closed form, as a block of kilowords is thousands of
    /// packets, summed for every pair (119 nodes sending 65,536-word
    /// blocks to one took 15 s packet by packet, `campaign 1000 91 wide`).
    pub fn waits(self, pk: &Pkt, first: u64, ways: usize, round: f64, fixed: f64) -> f64 {
        let (times, n) = (pk.taking(first, ways), ways as u64);
        if times == 0 {
            return 0.0;
        }
        // The `k`-th packet is the `k / n`-th on its interface: here `a` to `b - 1`.
        let (a, b) = (first / n, first / n + times);
        let (slot, q) = (self.slot, self.q);
        let paced = round > q as f64 * slot;
        // The sum of `wait`'s `sent(j)` for `j` below `j_end`.
        let sent_below = |j_end: u64| -> f64 {
            if !paced {
                return slot * (j_end * j_end.saturating_sub(1) / 2) as f64;
            }
            let (c, r) = (j_end / q, j_end % q);
            round * (q * c * c.saturating_sub(1) / 2) as f64 + slot * (c * q * (q - 1) / 2) as f64 + round * (r * c) as f64 + slot * (r * r.saturating_sub(1) / 2) as f64
        };
        let sent = |lo: u64, hi: u64| if lo < hi { sent_below(hi) - sent_below(lo) } else { 0.0 };
        let waits = if pk.born_together {
            sent(a, b)
        } else {
            // From the `q`-th on: sent(j) - sent(j - q) is `q` slots, or a round once paced.
            let late = b.saturating_sub(a.max(q));
            sent(a, b.min(q)) + late as f64 * (q as f64 * slot - round).max(0.0)
        };
        times as f64 * fixed + waits
    }
}

#[cfg(test)]
mod tests {
    use super::{stride, Pace, Pkt};

    /// The closed form sums what packet-by-packet waits sum, for bursts
    /// born together or as they enter, buffers of 1 to 5, rounds shorter
    /// and longer than a buffer's slots, 1 to 3 ways and any first packet.
    #[test]
    fn a_groups_waits_in_closed_form_are_the_packets_summed() {
        for q in 1..=5 {
            let pace = Pace { slot: 3.5e-8, q };
            for round in [0.0, 1.0e-8, 3.5e-8 * q as f64, 2.0e-7, 1.3e-6] {
                for born_together in [true, false] {
                    for (k, count) in [(0, 1), (0, 7), (3, 40), (1, 257)] {
                        let pk = Pkt { from: 0, to: 1, class: 0, len: 8, k, count, born_together, handshake: false, after_handshake: false };
                        for ways in 1..=3 {
                            for first in k as u64..k as u64 + ways as u64 + 1 {
                                let each: Vec<u64> = (first..(k + count) as u64).step_by(ways).collect();
                                let summed: f64 = each.iter().map(|&k| 5e-7 + pace.wait(k / ways as u64, born_together, round)).sum();
                                let sum = pace.waits(&pk, first, ways, round, 5e-7);
                                assert_eq!(pk.taking(first, ways), each.len() as u64, "q {q}, round {round}, {ways} ways from {first}");
                                assert!((sum - summed).abs() <= 1e-12 * summed.abs().max(1e-9), "q {q}, round {round}, born together {born_together}, k {k}, count {count}, {ways} ways from {first}: {sum} against {summed}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every pair up to the bound; beyond, the least odd stride that keeps within it.
    #[test]
    fn strides_are_one_or_odd() {
        assert_eq!(stride(100, 100), 1);
        assert_eq!(stride(101, 100), 3);
        assert_eq!(stride(300, 100), 3);
        assert_eq!(stride(301, 100), 5);
        assert_eq!(stride(16_773_120, 1 << 21), 9);
        assert_eq!(stride(0, 100), 1);
    }
}
