//! An analytic estimate beside each simulated point: the load at which the
//! busiest resource saturates, the throughput that gives, and the mean
//! packet latency below it (`docs/analytic.md` states the model).
//!
//! - Traffic: each source's transactions per second and its destinations'
//!   probabilities (`Traffic::destination_weights`), every family alike.
//! - Each transaction's packets (a handshake's set-up and ready, the
//!   requests, the responses, a status) follow their routes leg by leg as
//!   in an idle fabric (`route_packet`, then `Topology::leg` at each bridge
//!   or switch); each leg's echo goes back over the rest of its ringlet.
//! - Resources: links (a packet holds one for its symbols and the separator
//!   idles), input queue servers (the service time, or the spacing where
//!   pipelined; an agent's shared client port), buses (the transfer).
//! - Saturation: utilisations grow linearly with the load; the load at
//!   which the busiest resource is always busy bounds the throughput.
//! - Latency: a packet's unloaded latency (hops, its symbols, service, bus,
//!   send path), the wait behind the earlier packets of its own burst in
//!   its send buffer, and M/G/1 waits (Pollaczek-Khinchine) where it
//!   queues: at every input queue server and bus, and at its sender's
//!   output link, where what passes the interface goes first (a
//!   non-preemptive priority queue: Cobham's formula); at a link it passes,
//!   the residual of the passing node's own packet and what passed meanwhile.
//!   Resources are taken as independent (Kleinrock's independence
//!   approximation, as Scott, Goodman and Vernon's M/G/1 model of the SCI
//!   ring does).
//!
//! What it leaves out, on purpose: busy retries, protocols' control
//! packets and holds (TRAIN, DFC, go bits), priorities, windows and
//! loss. Near saturation it parts from simulation; below, it should not.

use crate::mechanism::Fabric;
use crate::params::{Responder, RingChoice, Shape};
use crate::protocol::RingProtocol;
use crate::topology::{AgentId, NO_IFACE};
use ringlet_engine::time::time_to_s;

/// The model's figures for one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Analytic {
    /// Data delivered per second over all nodes: the offered data, capped
    /// where the busiest resource saturates, MB/s.
    pub throughput_mbps: f64,
    /// Mean one-way packet latency, as the simulator measures it (NaN at
    /// or beyond saturation), ns.
    pub latency_ns_mean: f64,
    /// The load per node (`traffic.load_mbps_per_node`) at which the
    /// busiest resource is always busy.
    pub saturation_load_mbps_per_node: f64,
    /// That resource's utilisation at the scenario's load.
    pub utilization: f64,
    /// What it is ("link out of node 3", "bus of switch 2", ...).
    pub bottleneck: String,
}

/// Most (source, destination) pairs walked: beyond, every k-th destination
/// of a source stands for k (a 4,096-node Banyan has 16 million pairs).
const MAX_PAIRS: usize = 1 << 19;

/// One resource's load: packets per second, utilisation, and the sum of
/// rate x hold² (the Pollaczek-Khinchine numerator); for a link also the
/// same for the packets its interface sends itself.
#[derive(Clone, Copy, Default)]
struct Load {
    busy: f64,
    second: f64,
    own_busy: f64,
    own_second: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// Queues for it (M/G/1).
    Queue,
    /// Passes it: waits out the residual of the owner's own packet.
    Residual,
    /// Loads it, no packet measured waits (an echo).
    None,
}

#[derive(Clone, Copy)]
struct Use {
    res: usize,
    hold: f64,
    wait: Wait,
}

/// One packet's way: what it uses, and its latency with every resource idle, s.
#[derive(Default)]
struct Path {
    uses: Vec<Use>,
    fixed: f64,
    /// From its head leaving its sender until its echo is back there, s
    /// (a send buffer's slot is held that long).
    round: f64,
}

/// One packet of a transaction, as sent.
struct Pkt {
    from: AgentId,
    to: AgentId,
    class: u8,
    len: u16,
    /// Its place in the burst it is sent in, and whether it was born with
    /// the burst (requests: the transaction's birth) or as it entered the
    /// send buffer (a DMA engine's packets).
    k: u16,
    born_together: bool,
    /// It is a handshake's set-up or ready.
    handshake: bool,
    /// It is a request that goes once the handshake is through (born with
    /// the transaction, before it).
    after_handshake: bool,
}

impl<P: RingProtocol> Fabric<P> {
    /// The analytic estimate of the scenario's traffic (`None` without
    /// traffic sources: a hand-built fabric).
    pub fn analytic(&self, load_mbps_per_node: f64) -> Option<Analytic> {
        let traffic = self.traffic.as_ref()?;
        let (links, classes, agents) = (self.ifaces.len(), self.p.classes.len(), self.topo.agents().len());
        let n_res = links + links * classes + 2 * agents;
        let mut loads = vec![Load::default(); n_res];
        // Per (source, destination): rate and packets, kept for the latency pass.
        let mut flows: Vec<(f64, Vec<(Pkt, Path)>)> = Vec::new();
        let mut offered = 0.0;
        let pairs: usize = (0..traffic.sources.len()).map(|i| traffic.destination_weights(i).len()).sum();
        let stride = pairs.div_ceil(MAX_PAIRS).max(1);
        for i in 0..traffic.sources.len() {
            let rate = traffic.rate_per_s(i);
            if rate <= 0.0 {
                continue;
            }
            let (src, kind) = (traffic.sources[i].agent, traffic.sources[i].kind as usize);
            let shape = self.p.shapes[kind];
            offered += rate * shape.data_bytes as f64 / 1e6;
            let weights = traffic.destination_weights(i);
            for chunk in weights.chunks(stride) {
                let (dst, w) = chunk[0];
                let w: f64 = w * chunk.iter().map(|c| c.1).sum::<f64>() / chunk[0].1;
                let r = rate * w;
                let mut pkts = Vec::new();
                for pk in self.transaction_packets(&shape, src, dst) {
                    // Balanced over several ways, each takes an equal share
                    // in the long run (the emptier send buffer wins).
                    let ways = self.ways(&pk);
                    let share = r / ways.len() as f64;
                    for &way in &ways {
                        for u in &self.path_of(&pk, way).uses {
                            let l = &mut loads[u.res];
                            l.busy += share * u.hold;
                            l.second += share * u.hold * u.hold;
                            if u.wait == Wait::Queue && u.res < links {
                                l.own_busy += share * u.hold;
                                l.own_second += share * u.hold * u.hold;
                            }
                        }
                    }
                    // An idle fabric sends it the way its place in its burst gives.
                    let path = self.path_of(&pk, ways[pk.k as usize % ways.len()]);
                    pkts.push((pk, path));
                }
                flows.push((r, pkts));
            }
        }
        let (busiest, util) = loads.iter().enumerate().map(|(k, l)| (k, l.busy)).fold((0, 0.0), |b, x| if x.1 > b.1 { x } else { b });
        let saturation = if util > 0.0 { load_mbps_per_node / util } else { f64::INFINITY };
        // Latency: the mean over measured packets, weighted by their rates.
        let mut latency = if util < 1.0 { 0.0 } else { f64::NAN };
        let mut weight = 0.0;
        if util < 1.0 {
            for (r, pkts) in &flows {
                let rounds: Vec<f64> = pkts.iter().map(|(_, p)| p.round).collect();
                let mut handshake = 0.0;
                for (n, (pk, path)) in pkts.iter().enumerate() {
                    let mut l = path.fixed + self.burst_wait(pk, rounds[n]);
                    if pk.after_handshake {
                        l += handshake;
                    }
                    for u in &path.uses {
                        let ld = &loads[u.res];
                        // What passes an interface goes before its own
                        // packets (a non-preemptive priority M/G/1): its own
                        // wait out the passing traffic's busy periods too;
                        // passing packets wait only behind an own packet
                        // leaving and what passed meanwhile.
                        let passing = ld.busy - ld.own_busy;
                        l += match u.wait {
                            Wait::Queue if u.res < links => ld.second / (2.0 * (1.0 - passing) * (1.0 - ld.busy)),
                            Wait::Queue => ld.second / (2.0 * (1.0 - ld.busy)),
                            Wait::Residual => ld.own_second / (2.0 * (1.0 - passing)),
                            Wait::None => 0.0,
                        };
                    }
                    if pk.handshake {
                        handshake += l;
                    }
                    latency += r * l;
                    weight += r;
                }
            }
            latency = if weight > 0.0 { latency / weight * 1e9 } else { f64::NAN };
        }
        Some(Analytic {
            throughput_mbps: offered / util.max(1.0),
            latency_ns_mean: latency,
            saturation_load_mbps_per_node: saturation,
            utilization: util,
            bottleneck: if util > 0.0 { self.resource_name(busiest) } else { String::new() },
        })
    }

    /// The packets one transaction of `shape` from `src` to `dst` sends, in
    /// the order the client sides send them (`client`, `dma`).
    fn transaction_packets(&self, shape: &Shape, src: AgentId, dst: AgentId) -> Vec<Pkt> {
        let mut out = Vec::new();
        let pkt = |from, to, class, len, k, born_together| Pkt { from, to, class, len, k, born_together, handshake: false, after_handshake: false };
        let dma = self.p.client.responder == Responder::Dma;
        let handshake = self.p.client.handshake.filter(|_| dma && shape.has_response());
        if let Some(h) = handshake {
            // The requests go once the ready is serviced back at the requester.
            out.push(Pkt { handshake: true, ..pkt(src, dst, h.setup_class, h.setup_len, 0, true) });
            out.push(Pkt { handshake: true, ..pkt(dst, src, h.status_class, h.status_len, 0, false) });
        }
        for k in 0..shape.requests {
            out.push(Pkt { after_handshake: handshake.is_some(), ..pkt(src, dst, shape.request_class, shape.len_of(false, k), k, true) });
        }
        for k in 0..shape.responses {
            // A server answers with all of them at once; a DMA engine puts them out as room frees.
            out.push(pkt(dst, src, shape.response_class, shape.len_of(true, k), k, !dma));
        }
        if let Some(h) = handshake.filter(|_| shape.data_in_response) {
            out.push(pkt(dst, src, h.status_class, h.status_len, 0, false));
        }
        out
    }

    /// The ways (output interface, stripping interface) packet `pk` may
    /// leave its agent by: the route's one, or, where the ring choice
    /// balances, each of the agent's interfaces (with `Nearest`, each of
    /// those of fewest hops), fewest hops first (the `k`-th packet of a
    /// burst in an idle fabric takes the `k`-th, in turn).
    fn ways(&self, pk: &Pkt) -> Vec<(usize, usize)> {
        let route = || {
            let (o, to) = self.route_packet(pk.from, pk.to, pk.class);
            vec![(o, to as usize)]
        };
        let mut ways: Vec<(usize, u16, u16)> = Vec::new();
        if !self.choice_ways(pk.from, pk.to, |i, s, hops| ways.push((hops, i, s))) || ways.is_empty() {
            return route();
        }
        ways.sort_unstable();
        if self.p.client.ring_choice == RingChoice::Nearest {
            let fewest = ways[0].0;
            ways.retain(|w| w.0 == fewest);
        }
        ways.into_iter().map(|(_, i, s)| (i as usize, s as usize)).collect()
    }

    /// The wait of packet `pk` in its send buffer behind the earlier packets
    /// of its burst: the `j`-th on its interface goes `j` slots after the
    /// first while the buffer has room, and a buffer of `q` packets, each
    /// held a round, lets `q` go per round.
    fn burst_wait(&self, pk: &Pkt, round: f64) -> f64 {
        let j = (pk.k as usize / self.ways(pk).len()) as f64;
        if j == 0.0 {
            return 0.0;
        }
        let slot = (pk.len as f64 + self.p.separator as f64) * time_to_s(self.p.cycle);
        let q = self.p.output_queue.max(1) as f64;
        let sent = |j: f64| if round <= q * slot { j * slot } else { (j / q).floor() * round + (j % q) * slot };
        if pk.born_together || j < q {
            sent(j)
        } else {
            // It entered when the packet `q` ahead had its echo back.
            (sent(j) - (sent(j - q) + round)).max(0.0)
        }
    }

    /// Packet `pk`'s way through an idle fabric, leg by leg, from output
    /// interface `o` to stripping interface `s` first.
    fn path_of(&self, pk: &Pkt, (mut o, mut s): (usize, usize)) -> Path {
        let cycle = time_to_s(self.p.cycle);
        let slot = |len: u16| (len as f64 + self.p.separator as f64) * cycle;
        let links = self.ifaces.len();
        let classes = self.p.classes.len();
        let agents = self.topo.agents().len();
        let mut path = Path::default();
        path.fixed += time_to_s(self.ifaces[o].send_delay);
        let mut first = true;
        loop {
            // Its protocol's leave to go, on an idle ringlet.
            path.fixed += time_to_s(self.protos[self.ifaces[o].ringlet as usize].idle_send_wait());
            // The packet from `o` to `s`.
            let mut i = o;
            let mut travel = 0.0;
            loop {
                path.uses.push(Use { res: i, hold: slot(pk.len), wait: if i == o { Wait::Queue } else { Wait::Residual } });
                let n = &self.ifaces[i];
                if n.next as usize == s {
                    travel += time_to_s(n.strip_hop);
                    break;
                }
                travel += time_to_s(n.hop);
                i = n.next as usize;
            }
            // Its echo, from `s` back to `o`.
            let mut e = s;
            let mut back = 0.0;
            while e != o {
                path.uses.push(Use { res: e, hold: slot(self.p.echo_len), wait: Wait::None });
                let n = &self.ifaces[e];
                back += time_to_s(if n.next as usize == o { n.strip_hop } else { n.hop });
                e = n.next as usize;
            }
            if first {
                path.round = travel + back + self.p.echo_len as f64 * cycle;
                first = false;
            }
            // In at `s` with its tail, then serviced.
            path.fixed += travel + pk.len as f64 * cycle;
            let n = &self.ifaces[s];
            let class = pk.class as usize;
            let took = time_to_s(n.service_time(class)) + pk.len as f64 * time_to_s(self.p.client.service_per_symbol);
            path.fixed += took;
            let a = n.agent;
            if n.shared_server {
                path.uses.push(Use { res: links + links * classes + a as usize, hold: took, wait: Wait::Queue });
            } else if n.pipelined {
                path.uses.push(Use { res: links + s * classes + class, hold: time_to_s(n.spacing(class)), wait: Wait::Queue });
            } else {
                path.uses.push(Use { res: links + s * classes + class, hold: took, wait: Wait::Queue });
            }
            if a == pk.to {
                return path;
            }
            // Passed on: across the agent's bus, if it has one, to the next leg.
            let leg = self.topo.leg(a, pk.to);
            if leg.out == NO_IFACE {
                return path;
            }
            if let Some(bus) = self.topo.agent(a).bus {
                let hold = time_to_s(bus.transfer(pk.len));
                path.uses.push(Use { res: links + links * classes + agents + a as usize, hold, wait: Wait::Queue });
                path.fixed += time_to_s(bus.arbitration + bus.exit) + hold;
            }
            (o, s) = (leg.out as usize, leg.strip as usize);
        }
    }

    /// What resource `k` of `analytic`'s numbering is, in words.
    fn resource_name(&self, k: usize) -> String {
        let (links, classes) = (self.ifaces.len(), self.p.classes.len());
        let label = |a: AgentId| self.topo.agent(a).label.clone();
        if k < links {
            let n = &self.ifaces[k];
            format!("link out of {} (ringlet {})", label(n.agent), n.ringlet)
        } else if k < links + links * classes {
            let (i, c) = ((k - links) / classes, (k - links) % classes);
            format!("{} input queue of {}", self.p.classes.names[c], label(self.ifaces[i].agent))
        } else if k < links + links * classes + self.topo.agents().len() {
            format!("client port of {}", label((k - links - links * classes) as AgentId))
        } else {
            format!("bus of {}", label((k - links - links * classes - self.topo.agents().len()) as AgentId))
        }
    }
}
