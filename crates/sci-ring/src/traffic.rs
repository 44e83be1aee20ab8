//! Traffic sources: per node and priority, Poisson or deterministic
//! transaction arrivals with uniform, hot-spot or local destinations.

use crate::params::DATA_BYTES;
use rand::Rng;
use rand_distr::{Distribution, Exp};
use ringlet_engine::rng::{Stream, StreamSeeds};
use ringlet_engine::Time;
use ringlet_scenario::{Arrivals, Destinations, Scenario};

pub struct Source {
    pub node: u16,
    pub priority: u16,
    rng: Stream,
    /// Mean inter-arrival time, ps (infinite load 0 = no source).
    mean_gap_ps: f64,
    exp: Option<Exp<f64>>,
}

pub struct Traffic {
    pub sources: Vec<Source>,
    nodes: u16,
    destinations: Destinations,
    hotspot: u16,
    hotspot_fraction: f64,
}

impl Traffic {
    pub fn new(s: &Scenario) -> Traffic {
        let seeds = StreamSeeds::new(s.run.seed);
        let load = s.traffic.load_mbps_per_node;
        let mut sources = Vec::new();
        if load > 0.0 {
            // bytes / (MB/s) = 64 / (load * 1e6) s = 64e6 / load ps.
            let mean_gap_ps = DATA_BYTES as f64 * 1e6 / load;
            for node in 0..s.network.nodes as u16 {
                for priority in 0..s.traffic.priorities as u16 {
                    let exp = match s.traffic.arrivals {
                        Arrivals::Poisson => Some(Exp::new(1.0 / mean_gap_ps).expect("positive rate")),
                        Arrivals::Deterministic => None,
                    };
                    let id = node as u64 * 1024 + priority as u64;
                    sources.push(Source { node, priority, rng: seeds.stream(id), mean_gap_ps, exp });
                }
            }
        }
        Traffic {
            sources,
            nodes: s.network.nodes as u16,
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
            Some(e) => e.sample(&mut s.rng).round() as Time,
            None => (s.rng.gen::<f64>() * s.mean_gap_ps).round() as Time,
        }
    }

    /// Time to the next arrival of a source.
    pub fn next_gap(&mut self, i: usize) -> Time {
        let s = &mut self.sources[i];
        match s.exp {
            Some(e) => (e.sample(&mut s.rng).round() as Time).max(1),
            None => s.mean_gap_ps.round() as Time,
        }
    }

    /// Draws the destination of a new transaction from source `i`.
    #[inline(always)]
    pub fn destination(&mut self, i: usize) -> u16 {
        let n = self.nodes;
        let s = &mut self.sources[i];
        let me = s.node;
        let uniform_except = |rng: &mut Stream, excluded: &[u16]| -> u16 { nth_not_excluded(rng.gen_range(0..n - excluded.len() as u16), excluded) };
        match self.destinations {
            Destinations::Uniform => uniform_except(&mut s.rng, &[me]),
            Destinations::Local => (me + 1) % n,
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
        }
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
