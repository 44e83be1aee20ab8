//! The waits, and what measured packets wait at: a packet's latency is its
//! unloaded latency, its wait behind the earlier packets of its burst, and
//! an M/G/1 wait at each resource it queues for or passes, each resource
//! taken as independent (Kleinrock's independence approximation).
//!
//! The mean over every packet measured, weighted by its rate, is linear in
//! those waits: walking link by link, each packet's latency is summed as
//! it goes (`Fabric::latency_by_hop`, once the loads are known); walking by runs,
//! `Visits` keeps per resource how often a measured packet waits there,
//! and the mean is summed over resources at the end.

use super::loads::{Load, Resources, Ringlets, Use, Wait};

impl Load {
    /// The wait of a packet at this resource, by how it uses it (`link`: a
    /// link). What passes an interface goes before its own packets (a
    /// non-preemptive priority M/G/1, Cobham's formula): its own wait out
    /// the passing traffic's busy periods too; passing packets wait only
    /// behind an own packet leaving and what passed meanwhile. Input queue
    /// servers, client ports and buses: Pollaczek-Khinchine.
    pub fn wait(&self, wait: Wait, link: bool) -> f64 {
        let passing = self.busy - self.own_busy;
        match wait {
            Wait::Queue if link => self.second / (2.0 * (1.0 - passing) * (1.0 - self.busy)),
            Wait::Queue => self.second / (2.0 * (1.0 - self.busy)),
            Wait::Residual => self.own_second / (2.0 * (1.0 - passing)),
            Wait::None => 0.0,
        }
    }

    /// Adds `share` packets per second using it for `hold` s (a link's own
    /// packets are those queued for it).
    pub fn add(&mut self, u: &Use, share: f64, link: bool) {
        self.busy += share * u.hold;
        self.second += share * u.hold * u.hold;
        if u.wait == Wait::Queue && link {
            self.own_busy += share * u.hold;
            self.own_second += share * u.hold * u.hold;
        }
    }
}

/// Every resource's waits, worked out once the loads are known: a walk
/// link by link looks each up per packet that uses it (`Load::wait`
/// divides), the same value each time.
pub(super) struct Waits(Vec<[f64; 2]>);

impl Waits {
    pub fn new(loads: &[Load], res: Resources) -> Waits {
        Waits(loads.iter().enumerate().map(|(k, l)| [l.wait(Wait::Queue, k < res.links), l.wait(Wait::Residual, k < res.links)]).collect())
    }

    /// `Load::wait` of what `u` uses, as it uses it.
    #[inline]
    pub fn of(&self, u: &Use) -> f64 {
        match u.wait {
            Wait::Queue => self.0[u.res][0],
            Wait::Residual => self.0[u.res][1],
            Wait::None => 0.0,
        }
    }
}

/// The loads as runs add them (`Legs::ByRun`): a resource used alone
/// directly, a run of links as differences along its ringlet.
pub(super) struct RunLoads {
    pub loads: Vec<Load>,
    busy: Vec<f64>,
    second: Vec<f64>,
}

impl RunLoads {
    pub fn new(res: Resources) -> RunLoads {
        RunLoads { loads: vec![Load::default(); res.len()], busy: vec![0.0; res.links], second: vec![0.0; res.links] }
    }

    pub fn add(&mut self, u: &Use, share: f64, rings: &Ringlets, res: Resources) {
        if u.run == 1 {
            self.loads[u.res].add(u, share, u.res < res.links);
        } else {
            rings.add(&mut self.busy, u.res, u.run, share * u.hold);
            rings.add(&mut self.second, u.res, u.run, share * u.hold * u.hold);
        }
    }

    /// The loads, the runs' added to each link's.
    pub fn settle(mut self, rings: &Ringlets) -> Vec<Load> {
        rings.settle(&mut self.busy);
        rings.settle(&mut self.second);
        for (l, (b, s)) in self.loads.iter_mut().zip(self.busy.iter().zip(&self.second)) {
            l.busy += b;
            l.second += s;
        }
        self.loads
    }
}

/// Where measured packets wait, weighted by their rates (`Legs::ByRun`):
/// per resource, packets per second that queue for it; per link, those
/// that pass it (as differences along its ringlet until `settle`); and
/// their unloaded latencies and waits behind their bursts, summed.
pub(super) struct Visits {
    queue: Vec<f64>,
    pass: Vec<f64>,
    pub fixed: f64,
    pub weight: f64,
}

impl Visits {
    pub fn new(res: Resources) -> Visits {
        Visits { queue: vec![0.0; res.len()], pass: vec![0.0; res.links], fixed: 0.0, weight: 0.0 }
    }

    /// `rate` packets per second use `u` (`rate` counts a handshake's
    /// packet once more for each request that waits for it).
    pub fn add(&mut self, u: &Use, rate: f64, rings: &Ringlets) {
        match u.wait {
            Wait::Queue => self.queue[u.res] += rate,
            Wait::Residual => rings.add(&mut self.pass, u.res, u.run, rate),
            Wait::None => {}
        }
    }

    /// The passing visits' differences summed along each ringlet.
    pub fn settle(&mut self, rings: &Ringlets) {
        rings.settle(&mut self.pass);
    }

    /// The mean latency, ns: every wait times how often it is waited.
    pub fn mean(&self, loads: &[Load], res: Resources) -> f64 {
        if self.weight <= 0.0 {
            return f64::NAN;
        }
        let mut total = self.fixed;
        for (k, (&q, l)) in self.queue.iter().zip(loads).enumerate() {
            if q > 0.0 {
                total += q * l.wait(Wait::Queue, k < res.links);
            }
        }
        for (&p, l) in self.pass.iter().zip(loads) {
            if p != 0.0 {
                total += p * l.wait(Wait::Residual, true);
            }
        }
        total / self.weight * 1e9
    }
}
