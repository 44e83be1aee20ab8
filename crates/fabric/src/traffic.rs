//! Traffic sources: per endpoint and priority, Poisson or deterministic
//! transaction arrivals with uniform, hot-spot or local destinations.
//! Endpoints are the topology's agents that source and sink traffic,
//! numbered in its order (the scenario's node numbers).

use crate::topology::{AgentId, Topology};
use rand::Rng;
use rand_distr::{Distribution, Exp};
use ringlet_engine::rng::{Stream, StreamSeeds};
use ringlet_engine::time::{ps_to_time, Time};
use ringlet_scenario::{Arrivals, Destinations, Scenario};

pub struct Source {
    pub agent: AgentId,
    /// Its endpoint number.
    endpoint: u16,
    pub priority: u16,
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
    /// Per endpoint: the endpoint a `local` transaction goes to (the first
    /// downstream of its first interface).
    local: Vec<u16>,
    destinations: Destinations,
    hotspot: u16,
    hotspot_fraction: f64,
}

impl Traffic {
    /// The sources of scenario `s` on `topo`'s endpoints, for transactions
    /// of `data_bytes` each.
    pub fn new(s: &Scenario, topo: &Topology, data_bytes: u32) -> Traffic {
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
                let first = topo.agent(a).ifaces[0];
                let mut i = topo.next(first);
                while number[topo.agent_of(i) as usize].is_none_or(|k| endpoints[k as usize] == a) && i != first {
                    i = topo.next(i);
                }
                number[topo.agent_of(i) as usize].expect("an endpoint downstream")
            })
            .collect();
        let mut sources = Vec::new();
        if load > 0.0 {
            // bytes / (MB/s) = bytes / (load * 1e6) s = bytes * 1e6 / load ps.
            let mean_gap_ps = data_bytes as f64 * 1e6 / load;
            for (node, &agent) in endpoints.iter().enumerate() {
                let node = node as u16;
                for priority in 0..s.traffic.priorities as u16 {
                    let exp = match s.traffic.arrivals {
                        Arrivals::Poisson => Some(Exp::new(1.0 / mean_gap_ps).expect("positive rate")),
                        Arrivals::Deterministic => None,
                    };
                    let id = node as u64 * 1024 + priority as u64;
                    sources.push(Source { agent, endpoint: node, priority, rng: seeds.stream(id), mean_gap_ps, exp });
                }
            }
        }
        Traffic {
            sources,
            endpoints,
            local,
            destinations: s.traffic.destinations,
            hotspot: s.traffic.hotspot_node as u16,
            hotspot_fraction: s.traffic.hotspot_fraction,
        }
    }

    /// Time to the first arrival of a source. Deterministic sources start at
    /// a random phase so that nodes are not synchronised.
    pub fn first_gap(&mut self, i: usize) -> Time {
        let s = &mut self.sources[i];
        match s.exp {
            Some(e) => ps_to_time(e.sample(&mut s.rng).round() as u64),
            None => ps_to_time((s.rng.gen::<f64>() * s.mean_gap_ps).round() as u64),
        }
    }

    /// Time to the next arrival of a source.
    pub fn next_gap(&mut self, i: usize) -> Time {
        let s = &mut self.sources[i];
        match s.exp {
            Some(e) => ps_to_time((e.sample(&mut s.rng).round() as u64).max(1)),
            None => ps_to_time(s.mean_gap_ps.round() as u64),
        }
    }

    /// Draws the destination agent of a new transaction from source `i`.
    #[inline(always)]
    pub fn destination(&mut self, i: usize) -> AgentId {
        let n = self.endpoints.len() as u16;
        let s = &mut self.sources[i];
        let me = s.endpoint;
        let uniform_except = |rng: &mut Stream, excluded: &[u16]| -> u16 { nth_not_excluded(rng.gen_range(0..n - excluded.len() as u16), excluded) };
        let k = match self.destinations {
            Destinations::Uniform => uniform_except(&mut s.rng, &[me]),
            Destinations::Local => self.local[me as usize],
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
