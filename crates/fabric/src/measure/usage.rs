//! How busy each link and each agent's bus was in the measurement window,
//! and what crossed each bus: the figures of the `per_link`,
//! `per_ringlet`, `per_switch` and `per_port` tables.

use crate::report::{PortReport, SwitchReport};
use crate::topology::Topology;
use ringlet_engine::time::{time_to_ps, time_to_s};
use ringlet_engine::Time;

pub(super) struct Usage {
    warmup_end: Time,
    /// Per link (the one leaving each interface): busy time, of it for send packets.
    link_busy: Vec<Time>,
    link_send_busy: Vec<Time>,
    /// Per link: when its last transmission ends (`<< 1`, with bit 0 set
    /// for a send packet), to clip the part beyond the measurement window.
    link_last: Vec<Time>,
    /// Per agent with a bus: its busy time in the window, and when its last
    /// transfer ends (to clip it at the window's end); per interface: the
    /// data it passed to its agent's bus and took from it. Empty in
    /// networks without buses.
    bus_busy: Vec<Time>,
    bus_last: Vec<Time>,
    bus_crossings: Vec<u64>,
    to_bus: Vec<u64>,
    from_bus: Vec<u64>,
}

impl Usage {
    pub(super) fn new(topo: &Topology, warmup_end: Time) -> Usage {
        let links = topo.ifaces();
        let buses = topo.agents().iter().any(|a| a.bus.is_some());
        Usage {
            warmup_end,
            link_busy: vec![0; links],
            link_send_busy: vec![0; links],
            link_last: vec![0; links],
            bus_busy: if buses { vec![0; topo.agents().len()] } else { Vec::new() },
            bus_last: if buses { vec![0; topo.agents().len()] } else { Vec::new() },
            bus_crossings: if buses { vec![0; topo.agents().len()] } else { Vec::new() },
            to_bus: if buses { vec![0; links] } else { Vec::new() },
            from_bus: if buses { vec![0; links] } else { Vec::new() },
        }
    }

    /// A packet occupies the link leaving interface `i` from `start` for
    /// `dur`. Only the part inside the measurement window counts: one that
    /// starts in the warm-up counts from its end, and the report clips the
    /// last one of each link at the window's end.
    #[inline]
    pub(super) fn link_used(&mut self, i: usize, start: Time, dur: Time, send: bool) {
        if start < self.warmup_end {
            return self.link_used_in_warmup(i, start, dur, send);
        }
        self.add_link_use(i, start + dur, dur, send);
    }

    #[cold]
    fn link_used_in_warmup(&mut self, i: usize, start: Time, dur: Time, send: bool) {
        self.add_link_use(i, start + dur, (start + dur).saturating_sub(self.warmup_end), send);
    }

    /// Adds `counted` of busy time to the link leaving interface `i`, whose
    /// transmission ends at `end`.
    #[inline(always)]
    fn add_link_use(&mut self, i: usize, end: Time, counted: Time, send: bool) {
        // Sends and echoes alternate unpredictably: add, don't branch.
        // Once per hop: unchecked, as the fabric's interface ids are (see
        // `crate::dense`); the lists have one entry per interface.
        debug_assert!(i < self.link_busy.len() && i < self.link_send_busy.len() && i < self.link_last.len());
        // SAFETY: `i` is an interface of this fabric, below the lengths.
        unsafe {
            *self.link_busy.get_unchecked_mut(i) += counted;
            *self.link_send_busy.get_unchecked_mut(i) += counted * send as Time;
            *self.link_last.get_unchecked_mut(i) = end << 1 | send as Time;
        }
    }

    /// Agent `a`'s bus carries a transfer from `start` for `dur` (the part
    /// inside the measurement window counts, as for links).
    pub(super) fn bus_used(&mut self, a: usize, start: Time, dur: Time) {
        let counted = (start + dur).saturating_sub(start.max(self.warmup_end));
        self.bus_busy[a] += counted;
        self.bus_last[a] = start + dur;
    }

    /// A packet with `data` payload bytes crossed agent `a`'s bus from interface `from` to `to`.
    pub(super) fn crossed(&mut self, now: Time, a: usize, from: usize, to: usize, data: u32) {
        if now >= self.warmup_end {
            self.bus_crossings[a] += 1;
            self.to_bus[from] += data as u64;
            self.from_bus[to] += data as u64;
        }
    }

    /// The switch and port tables (empty without buses).
    pub(super) fn switches(&self, topo: &Topology, end: Time, window: Time, links: &[(Time, Time)]) -> (Vec<SwitchReport>, Vec<PortReport>) {
        let (mut switches, mut ports) = (Vec::new(), Vec::new());
        if self.bus_busy.is_empty() {
            return (switches, ports);
        }
        let window_s = time_to_s(window);
        let mbps = |bytes: u64| if window > 0 { bytes as f64 / window_s / 1e6 } else { f64::NAN };
        let share = |busy: Time| if window > 0 { time_to_ps(busy) / time_to_ps(window) } else { f64::NAN };
        for (a, agent) in topo.agents().iter().enumerate() {
            if agent.bus.is_none() {
                continue;
            }
            let over = self.bus_last[a].saturating_sub(end.max(self.warmup_end)).min(self.bus_busy[a]);
            let across: u64 = agent.ifaces.iter().map(|&i| self.to_bus[i as usize]).sum();
            switches.push(SwitchReport {
                switch: a as u32,
                ports: agent.ifaces.len() as u32,
                bus_utilization: share(self.bus_busy[a] - over),
                crossings: self.bus_crossings[a],
                bus_mbps: mbps(across),
            });
            for (k, &i) in agent.ifaces.iter().enumerate() {
                ports.push(PortReport {
                    switch: a as u32,
                    port: k as u32,
                    link: i as u32,
                    ringlet: topo.ringlet_of(i) as u32,
                    to_bus_mbps: mbps(self.to_bus[i as usize]),
                    from_bus_mbps: mbps(self.from_bus[i as usize]),
                    send_utilization: share(links[i as usize].1),
                });
            }
        }
        (switches, ports)
    }

    /// Each link's busy and send-busy time inside the window ending at `end`.
    pub(super) fn links_until(&self, topo: &Topology, end: Time) -> Vec<(Time, Time)> {
        (0..topo.ifaces()).map(|i| self.link_busy_until(i, end)).collect()
    }

    /// Busy and send-busy time of link `i` inside the window ending at `end`.
    fn link_busy_until(&self, i: usize, end: Time) -> (Time, Time) {
        let (last_end, send) = (self.link_last[i] >> 1, self.link_last[i] & 1 == 1);
        // Links never carry two packets at once: only the last can run past `end`.
        let over = last_end.saturating_sub(end.max(self.warmup_end)).min(self.link_busy[i]);
        let send_over = if send { over.min(self.link_send_busy[i]) } else { 0 };
        (self.link_busy[i] - over, self.link_send_busy[i] - send_over)
    }

}
