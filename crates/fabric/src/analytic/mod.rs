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
//!   pipelined; an agent's shared client port), buses (the transfer),
//!   output queues (a slot from queueing until the echo is back).
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
//!
//! Memory is linear in the network (docs/analytic.md): each resource keeps
//! accumulators of its load, and no pair's path is kept. The work is a
//! walk of every (source, destination) pair's packets, or beyond
//! `MAX_PAIRS` of one pair in `k`, each standing for its neighbours; a leg
//! is walked link by link (`Legs::ByHop`, the reference, while the work is
//! small) or added as runs of its ringlet in constant time (`Legs::ByRun`).
//! The files by job: `packets` (the traffic's pairs and packets), `loads`
//! (a packet's way and the resources' loads), `latency` (the waits).

mod latency;
mod loads;
mod packets;

use crate::mechanism::Fabric;
use crate::params::Shape;
use crate::protocol::RingProtocol;
use crate::topology::AgentId;
use crate::traffic::Traffic;
use latency::{RunLoads, Visits, Waits};
pub use loads::Legs;
use loads::{Load, Resources, Use, Walker};
use packets::Pkt;

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
    /// One (source, destination) pair in `stride` was walked, standing for
    /// its neighbours (1: every pair; docs/analytic.md states the error).
    pub stride: usize,
    /// How the legs were walked.
    pub legs: Legs,
}

impl Analytic {
    /// No figures (no traffic sources to model).
    pub fn none() -> Analytic {
        Analytic { throughput_mbps: f64::NAN, latency_ns_mean: f64::NAN, saturation_load_mbps_per_node: f64::NAN, utilization: f64::NAN, bottleneck: String::new(), stride: 1, legs: Legs::ByHop }
    }
}

/// How the model goes over the traffic: `Fabric::analytic` takes
/// `Plan::default()`; tests set it, to compare the ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Most (source, destination) pairs walked: beyond, one in `k` (`k`
    /// odd) stands for its neighbours.
    pub max_pairs: usize,
    /// How legs are walked (`None`: link by link while the pairs walked
    /// times the longest ringlet are at most `BY_HOP_WORK`, else by runs).
    pub legs: Option<Legs>,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan { max_pairs: MAX_PAIRS, legs: None }
    }
}

/// Most pairs walked by default: a 1,448-node ring's every pair; a
/// 4,096-node ring or Banyan (16.8 million pairs) walks one in nine.
pub const MAX_PAIRS: usize = 1 << 21;

/// Most pairs walked times the longest ringlet for legs to be walked link
/// by link by default (a 256-node ring's every pair is 16.7 million: about
/// 0.1 s of walking; a 1,024-node ring's would be 64 times that).
pub const BY_HOP_WORK: usize = 1 << 25;

impl<P: RingProtocol> Fabric<P> {
    /// The analytic estimate of the scenario's traffic (`None` without
    /// traffic sources: a hand-built fabric).
    pub fn analytic(&self, load_mbps_per_node: f64) -> Option<Analytic> {
        self.analytic_by(load_mbps_per_node, Plan::default())
    }

    /// `analytic`, going over the traffic as `plan` says.
    pub fn analytic_by(&self, load_mbps_per_node: f64, plan: Plan) -> Option<Analytic> {
        let traffic = self.traffic.as_ref()?;
        let pairs: usize = (0..traffic.sources.len()).map(|i| traffic.destination_weights(i).len()).sum();
        let stride = packets::stride(pairs, plan.max_pairs);
        let longest = (0..self.topo.ringlets()).map(|r| self.topo.ringlet_ifaces(r as u16).len()).max().unwrap_or(0);
        let legs = plan.legs.unwrap_or(if pairs.div_ceil(stride).saturating_mul(longest) <= BY_HOP_WORK { Legs::ByHop } else { Legs::ByRun });
        let walker = Walker::new(self, legs);
        let (offered, loads, visits) = match legs {
            Legs::ByHop => {
                let (offered, loads) = self.loads_by_hop(&walker, traffic, stride);
                (offered, loads, None)
            }
            Legs::ByRun => {
                let (offered, loads, visits) = self.by_run(&walker, traffic, stride);
                (offered, loads, Some(visits))
            }
        };
        let (busiest, util) = loads.iter().enumerate().map(|(k, l)| (k, l.busy)).fold((0, 0.0), |b, x| if x.1 > b.1 { x } else { b });
        let saturation = if util > 0.0 { load_mbps_per_node / util } else { f64::INFINITY };
        // Latency: the mean over measured packets, weighted by their rates.
        let latency = match visits {
            _ if util >= 1.0 => f64::NAN,
            None => self.latency_by_hop(&walker, traffic, stride, &loads),
            Some(v) => v.mean(&loads, walker.res),
        };
        Some(Analytic {
            throughput_mbps: offered / util.max(1.0),
            latency_ns_mean: latency,
            saturation_load_mbps_per_node: saturation,
            utilization: util,
            bottleneck: if util > 0.0 { self.resource_name(busiest, walker.res) } else { String::new() },
            stride,
            legs,
        })
    }

    /// Hands `pair` every (source, destination) pair walked: the source's
    /// agent and kind of transaction, the destination, and the
    /// transactions per second it stands for; returns the offered data, MB/s.
    fn each_pair(&self, traffic: &Traffic, stride: usize, mut pair: impl FnMut(AgentId, &Shape, AgentId, f64)) -> f64 {
        let places = if stride > 1 { traffic.places(self.topo.agents().len()) } else { Default::default() };
        let mut offered = 0.0;
        for i in 0..traffic.sources.len() {
            let rate = traffic.rate_per_s(i);
            if rate <= 0.0 {
                continue;
            }
            let (src, kind) = (traffic.sources[i].agent, traffic.sources[i].kind as usize);
            let shape = self.p.shapes[kind];
            offered += rate * shape.data_bytes as f64 / 1e6;
            packets::destinations(traffic, i, stride, &places, |dst, w| pair(src, &shape, dst, rate * w));
        }
        offered
    }

    /// The loads, legs walked link by link: every way a packet may take,
    /// each its share. Returns them and the offered data, MB/s.
    fn loads_by_hop(&self, walker: &Walker<P>, traffic: &Traffic, stride: usize) -> (f64, Vec<Load>) {
        let res = walker.res;
        let mut loads = vec![Load::default(); res.len()];
        let (mut pkts, mut ways) = (Vec::new(), Vec::new());
        let offered = self.each_pair(traffic, stride, |src, shape, dst, r| {
            self.transaction_packets(shape, src, dst, &mut pkts);
            for pk in &pkts {
                // Balanced over several ways, each takes an equal share in
                // the long run (the emptier send buffer wins).
                self.ways(pk, &mut ways);
                let share = r * pk.count as f64 / ways.len() as f64;
                for &(_, o, s) in &ways {
                    walker.path(pk, (o as usize, s as usize), |u| loads[u.res].add(&u, share, u.res < res.links));
                }
            }
        });
        (offered, loads)
    }

    /// The mean latency, ns, every load known, legs walked link by link
    /// again: each measured packet's (the way an idle fabric sends it by)
    /// summed as it goes, weighted by its rate.
    fn latency_by_hop(&self, walker: &Walker<P>, traffic: &Traffic, stride: usize, loads: &[Load]) -> f64 {
        let waits = Waits::new(loads, walker.res);
        let (mut latency, mut weight) = (0.0, 0.0);
        let (mut pkts, mut ways, mut uses) = (Vec::new(), Vec::new(), Vec::new());
        self.each_pair(traffic, stride, |src, shape, dst, r| {
            self.transaction_packets(shape, src, dst, &mut pkts);
            let mut handshake = 0.0;
            for pk in &pkts {
                self.ways(pk, &mut ways);
                if pk.count > 1 {
                    latency += r * self.group_latency(walker, pk, &ways, &waits, handshake, &mut uses);
                    weight += r * pk.count as f64;
                    continue;
                }
                // An idle fabric sends it the way its place in its burst gives.
                let (_, o, s) = ways[pk.k as usize % ways.len()];
                uses.clear();
                let path = walker.path(pk, (o as usize, s as usize), |u| uses.push(u));
                let mut l = path.fixed + self.burst_wait(pk, ways.len(), path.round);
                if pk.after_handshake {
                    l += handshake;
                }
                for u in &uses {
                    l += waits.of(u);
                }
                if pk.handshake {
                    handshake += l;
                }
                latency += r * l;
                weight += r;
            }
        });
        if weight > 0.0 { latency / weight * 1e9 } else { f64::NAN }
    }

    /// The summed latencies of the packets alike of `pk` (`pk.count` of
    /// them, no handshake's), the ways `ways`: each way walked once for
    /// those of the group that take it (the `k`-th of a burst takes the
    /// `k`-th way, in turn), each packet's own wait in its burst added.
    fn group_latency(&self, walker: &Walker<P>, pk: &Pkt, ways: &[(usize, u16, u16)], waits: &Waits, handshake: f64, uses: &mut Vec<Use>) -> f64 {
        let n = ways.len();
        let mut sum = 0.0;
        for first in pk.k..pk.k + (pk.count).min(n as u16) {
            let (_, o, s) = ways[first as usize % n];
            uses.clear();
            let path = walker.path(pk, (o as usize, s as usize), |u| uses.push(u));
            let waits: f64 = uses.iter().map(|u| waits.of(u)).sum();
            let fixed = path.fixed + waits + if pk.after_handshake { handshake } else { 0.0 };
            sum += self.burst_waits(pk, first as u64, n, path.round, fixed);
        }
        sum
    }

    /// The model walking legs by runs, in one walk: the loads as
    /// `loads_by_hop`'s, and, for the way each measured packet takes, where
    /// it waits and its unloaded latency (`Visits`). Returns the offered
    /// data, MB/s, the loads and the visits.
    fn by_run(&self, walker: &Walker<P>, traffic: &Traffic, stride: usize) -> (f64, Vec<Load>, Visits) {
        let (res, rings) = (walker.res, walker.runs.as_ref().expect("walking by runs"));
        let mut loads = RunLoads::new(res);
        let mut visits = Visits::new(res);
        let (mut pkts, mut ways): (Vec<Pkt>, _) = (Vec::new(), Vec::new());
        let offered = self.each_pair(traffic, stride, |src, shape, dst, r| {
            self.transaction_packets(shape, src, dst, &mut pkts);
            let mut after: usize = pkts.iter().filter(|p| p.after_handshake).map(|p| p.count as usize).sum();
            for pk in &pkts {
                after -= if pk.after_handshake { pk.count as usize } else { 0 };
                // Its latency counts once, a handshake's once more in each request that waits for it.
                let rate = r * if pk.handshake { 1 + after } else { 1 } as f64;
                self.ways(pk, &mut ways);
                let n = ways.len();
                let share = r * pk.count as f64 / n as f64;
                for (w, &(_, o, s)) in ways.iter().enumerate() {
                    // The packets of the group that take way `w` (the `k`-th of a burst the `k`-th way, in turn).
                    let first = (pk.k as usize + (w + n - pk.k as usize % n) % n) as u64;
                    let times = pk.taking(first, n) as f64;
                    let path = walker.path(pk, (o as usize, s as usize), |u| {
                        loads.add(&u, share, rings, res);
                        if times > 0.0 {
                            visits.add(&u, rate * times, rings);
                        }
                    });
                    if pk.count == 1 && times > 0.0 {
                        visits.fixed += rate * (path.fixed + self.burst_wait(pk, n, path.round));
                    } else if times > 0.0 {
                        visits.fixed += rate * self.burst_waits(pk, first, n, path.round, path.fixed);
                    }
                }
                visits.weight += r * pk.count as f64;
            }
        });
        visits.settle(rings);
        (offered, loads.settle(rings), visits)
    }

    /// What resource `k` is, in words.
    fn resource_name(&self, k: usize, res: Resources) -> String {
        let label = |a: AgentId| self.topo.agent(a).label.clone();
        if k < res.links {
            let n = &self.ifaces[k];
            format!("link out of {} (ringlet {})", label(n.agent), n.ringlet)
        } else if k < res.port(0) {
            let (i, c) = ((k - res.links) / res.classes, (k - res.links) % res.classes);
            format!("{} input queue of {}", self.p.classes.names[c], label(self.ifaces[i].agent))
        } else if k < res.bus(0) {
            format!("client port of {}", label((k - res.port(0)) as AgentId))
        } else if k < res.output(0, 0) {
            let a = (k - res.bus(0)) as AgentId;
            let name = self.topo.agent(a).bus.map_or("bus", |b| b.name);
            format!("{name} of {}", label(a))
        } else {
            let j = k - res.output(0, 0);
            let (i, c) = (j / res.classes, j % res.classes);
            format!("{} output queue of {} (slots awaiting echoes)", self.p.classes.names[c], label(self.ifaces[i].agent))
        }
    }
}
