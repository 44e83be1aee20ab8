//! Traffic sources: per endpoint that sends and priority, Poisson or
//! deterministic transaction arrivals with uniform, hot-spot, local or
//! permutation destinations among the endpoints that receive. Endpoints
//! are the topology's agents that source and sink traffic, numbered in its
//! order (the scenario's node numbers); on a ring each both sends and
//! receives, in the switch study processors send and memories receive.

use crate::params::Params;
use crate::topology::{AgentId, Topology};
use rand::Rng;
use rand_distr::{Distribution, Exp};
use ringlet_engine::rng::{Stream, StreamSeeds};
use ringlet_engine::time::{ps_to_time, round_to_u64, Time};
use ringlet_scenario::{Arrivals, Destinations, Scenario};

pub struct Source {
    pub agent: AgentId,
    /// Its endpoint number.
    endpoint: u16,
    pub priority: u16,
    /// The kind of transaction it generates (`Params::shapes`).
    pub kind: u8,
    rng: Stream,
    /// Mean inter-arrival time, ps (infinite load 0 = no source). Gaps are
    /// drawn in ps and rounded to whole ps, so that a seed gives the same
    /// arrival times whatever the unit of [`Time`].
    mean_gap_ps: f64,
    exp: Option<Exp<f64>>,
}

pub struct Traffic {
    pub sources: Vec<Source>,
    /// Endpoint numbers to agents.
    endpoints: Vec<AgentId>,
    /// Per endpoint: the endpoint a `local` transaction goes to (its home,
    /// or else the first downstream of its first interface).
    local: Vec<u16>,
    /// The endpoints that receive, when some do not (else `None`: all do).
    receivers: Option<Vec<u16>>,
    /// Per endpoint: its fixed destination with `permutation` destinations.
    fixed: Vec<u16>,
    destinations: Destinations,
    hotspot: u16,
    hotspot_fraction: f64,
    locality: f64,
    aligned: bool,
}

impl Traffic {
    /// The sources of scenario `s` on `topo`'s endpoints, a transaction
    /// each counting its kind's `load_bytes` in the offered load.
    pub fn new(s: &Scenario, topo: &Topology, p: &Params) -> Traffic {
        let seeds = StreamSeeds::new(s.run.seed);
        let load = s.traffic.load_mbps_per_node;
        let endpoints = topo.endpoints().to_vec();
        // Agents to endpoint numbers (`None` for agents that only pass packets on).
        let mut number: Vec<Option<u16>> = vec![None; topo.agents().len()];
        for (k, &a) in endpoints.iter().enumerate() {
            number[a as usize] = Some(k as u16);
        }
        let local = endpoints
            .iter()
            .map(|&a| {
                if let Some(home) = topo.agent(a).home {
                    return number[home as usize].expect("a home is an endpoint");
                }
                let first = topo.agent(a).ifaces[0];
                let mut i = topo.next(first);
                while number[topo.agent_of(i) as usize].is_none_or(|k| endpoints[k as usize] == a) && i != first {
                    i = topo.next(i);
                }
                number[topo.agent_of(i) as usize].expect("an endpoint downstream")
            })
            .collect();
        let role = |k: usize| topo.agent(endpoints[k]).role;
        let receivers = (0..endpoints.len())
            .any(|k| role(k) != crate::topology::Role::Both)
            .then(|| (0..endpoints.len()).filter(|&k| role(k).receives()).map(|k| k as u16).collect::<Vec<_>>());
        let fixed = match s.traffic.destinations {
            Destinations::Permutation => {
                let senders: Vec<usize> = (0..endpoints.len()).filter(|&k| role(k).sends()).collect();
                permutation(&mut seeds.stream(PERMUTATION_STREAM), endpoints.len(), &senders, receivers.as_deref())
            }
            _ => Vec::new(),
        };
        let mut sources = Vec::new();
        if load > 0.0 {
            for (node, &agent) in endpoints.iter().enumerate() {
                if !role(node).sends() {
                    continue;
                }
                let node = node as u16;
                for (kind, (shape, &share)) in p.shapes.iter().zip(&p.shares).enumerate() {
                    if share <= 0.0 {
                        continue;
                    }
                    // bytes / (MB/s) = bytes / (load * 1e6) s = bytes * 1e6 / load ps.
                    let mean_gap_ps = shape.load_bytes as f64 * 1e6 / (load * share);
                    for priority in 0..s.traffic.priorities as u16 {
                        let exp = match s.traffic.arrivals {
                            Arrivals::Poisson => Some(Exp::new(1.0 / mean_gap_ps).expect("positive rate")),
                            Arrivals::Deterministic => None,
                        };
                        // Kind 0's streams are numbered as when there was one kind.
                        let id = if kind == 0 { node as u64 * 1024 + priority as u64 } else { (1 << 40) + ((node as u64 * 16 + kind as u64) << 10) + priority as u64 };
                        sources.push(Source { agent, endpoint: node, priority, kind: kind as u8, rng: seeds.stream(id), mean_gap_ps, exp });
                    }
                }
            }
        }
        Traffic {
            sources,
            endpoints,
            local,
            receivers,
            fixed,
            destinations: s.traffic.destinations,
            hotspot: s.traffic.hotspot_node as u16,
            hotspot_fraction: s.traffic.hotspot_fraction,
            locality: p.sources.locality,
            aligned: p.sources.aligned,
        }
    }

    /// Time to the first arrival of a source. Deterministic sources start at
    /// a random phase so that nodes are not synchronised, or all at time 0
    /// when aligned.
    pub fn first_gap(&mut self, i: usize) -> Time {
        let s = &mut self.sources[i];
        match s.exp {
            Some(e) => ps_to_time(round_to_u64(e.sample(&mut s.rng))),
            None if self.aligned => 0,
            None => ps_to_time(round_to_u64(s.rng.gen::<f64>() * s.mean_gap_ps)),
        }
    }

    /// Time to the next arrival of a source.
    pub fn next_gap(&mut self, i: usize) -> Time {
        let s = &mut self.sources[i];
        match s.exp {
            Some(e) => ps_to_time(round_to_u64(e.sample(&mut s.rng)).max(1)),
            None => ps_to_time(round_to_u64(s.mean_gap_ps)),
        }
    }

    /// Draws the destination agent of a new transaction from source `i`.
    #[inline(always)]
    pub fn destination(&mut self, i: usize) -> AgentId {
        if self.receivers.is_some() {
            return self.destination_among_receivers(i);
        }
        let n = self.endpoints.len() as u16;
        let s = &mut self.sources[i];
        let me = s.endpoint;
        let uniform_except = |rng: &mut Stream, excluded: &[u16]| -> u16 { nth_not_excluded(rng.gen_range(0..n - excluded.len() as u16), excluded) };
        let k = match self.destinations {
            Destinations::Uniform => uniform_except(&mut s.rng, &[me]),
            Destinations::Local if self.locality >= 1.0 || s.rng.gen::<f64>() < self.locality => self.local[me as usize],
            Destinations::Local => uniform_except(&mut s.rng, &[me, self.local[me as usize]]),
            Destinations::Permutation => self.fixed[me as usize],
            Destinations::Hotspot => {
                let h = self.hotspot;
                if me == h {
                    uniform_except(&mut s.rng, &[me])
                } else if n == 2 || s.rng.gen::<f64>() < self.hotspot_fraction {
                    h
                } else {
                    uniform_except(&mut s.rng, &[me, h])
                }
            }
        };
        self.endpoints[k as usize]
    }
}

impl Traffic {
    /// Transactions per second source `i` generates (0 for none).
    pub fn rate_per_s(&self, i: usize) -> f64 {
        let gap = self.sources[i].mean_gap_ps;
        if gap.is_finite() && gap > 0.0 { 1e12 / gap } else { 0.0 }
    }

    /// The destinations source `i` draws (`destination`), each with its
    /// probability: the same rules, stated rather than sampled (the
    /// analytic estimate's traffic matrix).
    pub fn destination_weights(&self, i: usize) -> Vec<(AgentId, f64)> {
        let me = self.sources[i].endpoint;
        // (Written into one vector in one pass over the candidates: the
        // analytic model asks for every source's, 16 million on a
        // 4,096-node ring.)
        let mut out: Vec<(AgentId, f64)> = Vec::with_capacity(self.receivers.as_ref().map_or(self.endpoints.len(), |r| r.len()));
        let one = |out: &mut Vec<(AgentId, f64)>, k: u16, p: f64| {
            if p > 0.0 {
                out.push((self.endpoints[k as usize], p));
            }
        };
        match self.destinations {
            Destinations::Uniform => self.uniform_but(&mut out, me, me, 1.0),
            Destinations::Permutation => one(&mut out, self.fixed[me as usize], 1.0),
            Destinations::Local => {
                let (home, p) = (self.local[me as usize], self.locality.min(1.0));
                one(&mut out, home, p);
                if p < 1.0 {
                    self.uniform_but(&mut out, me, home, 1.0 - p);
                }
            }
            Destinations::Hotspot => {
                let h = match &self.receivers {
                    Some(r) => r[self.hotspot as usize],
                    None => self.hotspot,
                };
                let others = match &self.receivers {
                    Some(r) => r.iter().filter(|&&k| k != me && k != h).count(),
                    None => self.endpoints.len().saturating_sub(2),
                };
                if self.receivers.is_none() && me == h {
                    self.uniform_but(&mut out, me, me, 1.0);
                } else if others == 0 {
                    one(&mut out, h, 1.0);
                } else {
                    one(&mut out, h, self.hotspot_fraction);
                    self.uniform_but(&mut out, me, h, 1.0 - self.hotspot_fraction);
                }
            }
        }
        out
    }

    /// Appends to `out` the candidate destinations (the receivers, or every
    /// endpoint) but `me` and `but`, each `p` over their number.
    fn uniform_but(&self, out: &mut Vec<(AgentId, f64)>, me: u16, but: u16, p: f64) {
        // (Counted, not filtered: the receivers are in endpoint order.)
        let (n, is) = match &self.receivers {
            Some(r) => (r.len(), r.binary_search(&me).is_ok() as usize + (but != me && r.binary_search(&but).is_ok()) as usize),
            None => (self.endpoints.len(), 1 + (but != me) as usize),
        };
        let w = p / (n - is).max(1) as f64;
        if w <= 0.0 {
            return;
        }
        let mut one = |k: u16| {
            if k != me && k != but {
                out.push((self.endpoints[k as usize], w));
            }
        };
        match &self.receivers {
            Some(r) => r.iter().for_each(|&k| one(k)),
            None => (0..self.endpoints.len() as u16).for_each(one),
        }
    }

    /// Per agent (of `agents`), its place among the agents that send (in
    /// endpoint order) and among those that receive (`u32::MAX` where it
    /// does not): the analytic model's sampling takes each source's
    /// destinations from its own place on.
    pub fn places(&self, agents: usize) -> (Vec<u32>, Vec<u32>) {
        let (mut send, mut receive) = (vec![u32::MAX; agents], vec![u32::MAX; agents]);
        let mut senders = 0;
        for s in &self.sources {
            if send[s.agent as usize] == u32::MAX {
                send[s.agent as usize] = senders;
                senders += 1;
            }
        }
        match &self.receivers {
            Some(r) => r.iter().enumerate().for_each(|(k, &e)| receive[self.endpoints[e as usize] as usize] = k as u32),
            None => self.endpoints.iter().enumerate().for_each(|(k, &a)| receive[a as usize] = k as u32),
        }
        (send, receive)
    }

    /// The transactions these sources generate before `until`, as trace
    /// rows in the order a fabric would issue them (by time; at equal
    /// times, in the order their arrivals were scheduled): the built-in
    /// traffic written out, row for row, for a trace-driven run to replay.
    pub fn rows_until(&mut self, until: Time) -> Vec<crate::trace_source::TraceRow> {
        use std::cmp::Reverse;
        let mut due = std::collections::BinaryHeap::new();
        let mut seq = 0u64;
        for i in 0..self.sources.len() {
            due.push(Reverse((self.first_gap(i), seq, i)));
            seq += 1;
        }
        let mut rows = Vec::new();
        while let Some(Reverse((at, _, i))) = due.pop() {
            if at >= until {
                break;
            }
            let dst = self.destination(i);
            let s = &self.sources[i];
            rows.push(crate::trace_source::TraceRow { at, src: s.agent, dst, priority: s.priority, kind: s.kind });
            due.push(Reverse((at + self.next_gap(i), seq, i)));
            seq += 1;
        }
        rows
    }
}

impl Traffic {
    /// `destination` when only some endpoints receive: the draw is over
    /// them, and `traffic.hotspot_node` numbers the hot spot among them.
    fn destination_among_receivers(&mut self, i: usize) -> AgentId {
        let receivers = self.receivers.as_deref().expect("some endpoints do not receive");
        let s = &mut self.sources[i];
        let me = s.endpoint;
        // Uniform over the receivers other than `me` and `but` (those of
        // them that receive), drawn by position among the receivers.
        let uniform_but = |rng: &mut Stream, but: u16| -> u16 {
            let at = |k: u16| receivers.binary_search(&k).ok().map(|x| x as u16);
            let n = receivers.len() as u16;
            let k = match (at(me), at(but)) {
                (None, None) => rng.gen_range(0..n),
                (Some(x), None) | (None, Some(x)) => nth_not_excluded(rng.gen_range(0..n - 1), &[x]),
                (Some(x), Some(y)) if x == y => nth_not_excluded(rng.gen_range(0..n - 1), &[x]),
                (Some(x), Some(y)) => nth_not_excluded(rng.gen_range(0..n - 2), &[x, y]),
            };
            receivers[k as usize]
        };
        let k = match self.destinations {
            Destinations::Uniform => uniform_but(&mut s.rng, me),
            Destinations::Local if self.locality >= 1.0 || s.rng.gen::<f64>() < self.locality => self.local[me as usize],
            Destinations::Local => uniform_but(&mut s.rng, self.local[me as usize]),
            Destinations::Permutation => self.fixed[me as usize],
            Destinations::Hotspot => {
                // The hot spot is numbered among the receivers; where it is
                // the only one besides the source, all goes there (as on two nodes).
                let h = receivers[self.hotspot as usize];
                let others = receivers.iter().filter(|&&k| k != me && k != h).count();
                if others == 0 || s.rng.gen::<f64>() < self.hotspot_fraction {
                    h
                } else {
                    uniform_but(&mut s.rng, h)
                }
            }
        };
        self.endpoints[k as usize]
    }
}

/// The random stream of the `permutation` destinations (beyond the
/// sources' streams, numbered endpoint x 1024 + priority).
const PERMUTATION_STREAM: u64 = u64::MAX;

/// Each endpoint's fixed destination for `permutation` traffic: a random
/// one-to-one map of the `senders` onto the receivers (`receivers`; `None`:
/// every endpoint, none mapped to itself).
fn permutation(rng: &mut Stream, endpoints: usize, senders: &[usize], receivers: Option<&[u16]>) -> Vec<u16> {
    use rand::seq::SliceRandom;
    let mut fixed = vec![0u16; endpoints];
    match receivers {
        Some(r) => {
            let mut to = r.to_vec();
            to.shuffle(rng);
            // Senders in endpoint order take the shuffled receivers in turn
            // (round again if there are more senders than receivers).
            for (n, &k) in senders.iter().enumerate() {
                fixed[k] = to[n % to.len()];
            }
        }
        None => {
            let mut to: Vec<u16> = (0..endpoints as u16).collect();
            // A derangement by rejection: about e draws on average.
            loop {
                to.shuffle(rng);
                if to.iter().enumerate().all(|(k, &d)| d as usize != k) {
                    break;
                }
            }
            fixed = to;
        }
    }
    fixed
}

/// The `k`-th (from 0) node id not in `excluded` (one or two ids): step over
/// the excluded ids at or below it, lowest first, rather than walk the ring.
fn nth_not_excluded(mut k: u16, excluded: &[u16]) -> u16 {
    let (lo, hi) = match *excluded {
        [a] => (a, u16::MAX),
        [a, b] => (a.min(b), a.max(b)),
        _ => unreachable!("one or two excluded nodes"),
    };
    k += (k >= lo) as u16;
    k += (k >= hi) as u16;
    k
}

#[cfg(test)]
mod tests {
    use super::nth_not_excluded;

    /// Agrees with walking the ids and counting those not excluded.
    #[test]
    fn nth_not_excluded_is_the_walk() {
        for n in 2..12u16 {
            for a in 0..n {
                for b in (0..n).filter(|&b| b != a) {
                    for excluded in [&[a][..], &[a, b][..]] {
                        let walk: Vec<u16> = (0..n).filter(|d| !excluded.contains(d)).collect();
                        for (k, &want) in walk.iter().enumerate() {
                            assert_eq!(nth_not_excluded(k as u16, excluded), want, "n {n}, excluded {excluded:?}, k {k}");
                        }
                    }
                }
            }
        }
    }
}
