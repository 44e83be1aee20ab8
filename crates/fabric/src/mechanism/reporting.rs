//! The run's report: the measurement's figures, with what the fabric
//! itself knows beside them: counters, conservation, each node's backlog,
//! the analytic estimate, a fold's counts.

use super::Fabric;
use crate::analytic::Analytic;
use crate::protocol::{ProtoCounters, RingProtocol};
use crate::report::{Conservation, Counters, HardwareReport, Report};
use ringlet_engine::run::Stop;
use ringlet_engine::time::time_to_ns;
use ringlet_engine::Time;

/// Below this share of its offered load carried, a run is past saturation.
pub const SATURATED_BELOW: f64 = 0.9;

impl<P: RingProtocol> Fabric<P> {
    fn end_time(&self) -> Time {
        match self.stop {
            Some(Stop::TimeCap) | None => self.cap.max(self.sched.now()),
            _ => self.sched.now(),
        }
    }

    pub fn report(&self) -> Report {
        let end = self.end_time();
        let mut r = self.measure.report(end, self.stop.unwrap_or(Stop::TimeCap), self.offered_per_prio, &self.topo, &self.p.classes.names);
        let pc: ProtoCounters = self.protos.iter().map(|proto| proto.counters()).sum();
        r.counters = Counters {
            events: self.sched.executed(),
            go_bit_holds: pc.go_bit_holds,
            debt_holds: pc.debt_holds,
            debts_repaid: pc.debts_repaid,
            debts_forgiven: pc.debts_forgiven,
            reservations: pc.reservations,
            preemptions: self.counters.preemptions + pc.preemptions,
            control_symbols: pc.control_symbols,
            tickets_deleted: pc.tickets_deleted,
            tickets_without_room: pc.tickets_without_room,
            flow_holds: pc.flow_holds,
            inheritances: pc.inheritances,
            slots_reserved: pc.slots_reserved,
            slots_released: pc.slots_released,
            slot_held_ns_mean: if pc.slots_released == 0 { 0.0 } else { time_to_ns(pc.slot_held) / pc.slots_released as f64 },
            slot_held_ns_max: time_to_ns(pc.slot_held_max),
            bypass_max_symbols: 0,
            ..self.counters.clone()
        };
        for l in r.per_link.iter_mut() {
            l.bypass_max_symbols = self.bypass_max_symbols(l.link as usize);
            let (ringlet, at) = self.ifaces[l.link as usize].place();
            l.go_bit_holds = self.protos[ringlet].go_bit_holds_at(at);
            r.counters.bypass_max_symbols = r.counters.bypass_max_symbols.max(l.bypass_max_symbols);
        }
        let queued: u64 = self.apps.iter().map(|a| a.queue.len() as u64).sum();
        r.conservation = if self.tracked {
            // Transactions with a slot are in flight (a block partly put out
            // included); the rest of the streams' queues wait.
            let waiting: u64 = self.streams.iter().map(|s| s.queue.iter().filter(|e| e.tag == crate::packet::NO_TAG).count() as u64).sum();
            let in_flight = self.txns.live() - self.lost_tags.len();
            Conservation { generated: self.generated, completed: self.completed, queued: queued + waiting, in_flight: in_flight as u64, lost: self.lost, delivered_twice: self.seqs.delivered_twice() }
        } else {
            // Timed reads count by their slots: a time-out's copies are one transaction.
            let in_flight = if self.timed_transactions() { self.timed_in_flight() } else { self.slab.live_send() };
            Conservation { generated: self.generated, completed: self.completed, queued, in_flight, lost: self.lost, delivered_twice: self.seqs.delivered_twice() }
        };
        r.packets_peak = self.slab.peak();
        // Output decisions are every event not counted by kind.
        use crate::event::Event;
        let mut by_kind = self.events_by_kind;
        by_kind[Event::OUTPUT_FREE as usize] = self.sched.executed() - by_kind.iter().sum::<u64>();
        r.events_by_kind = Event::KIND_NAMES.iter().copied().zip(by_kind).collect();
        self.backlogs(&mut r, end);
        let failure = self.failed.iter().any(|&f| f);
        if failure {
            // A failed node offered load only until it failed: no share of it is judged.
            for n in r.per_node.iter_mut().filter(|n| self.has_failed(n.node as u16)) {
                n.carried_share = f64::NAN;
            }
            crate::measure::refresh_fairness(&mut r);
        }
        if let Some(c) = r.client.as_mut() {
            c.window_decreases = self.streams.iter().map(|s| s.state.decreases).sum();
        }
        if let Some(inv) = self.inversions.as_ref() {
            (r.counters.output_inversions, r.counters.input_inversions, r.per_inversion) = inv.report();
        }
        // Per thousand packets whose one-way latency was measured (the window's).
        let packets: u64 = r.per_priority.iter().map(|p| p.packets).sum();
        let per_k = |n: u64| if packets > 0 { n as f64 * 1e3 / packets as f64 } else { 0.0 };
        r.summary.output_inversions_per_kpacket = per_k(r.counters.output_inversions);
        r.summary.input_inversions_per_kpacket = per_k(r.counters.input_inversions);
        let model = self.analytic.clone().or_else(|| (!self.analysed).then(|| self.analytic(self.load_per_node)).flatten()).unwrap_or_else(Analytic::none);
        r.summary.model_throughput_mbps = model.throughput_mbps;
        r.summary.model_latency_ns_mean = model.latency_ns_mean;
        r.summary.model_saturation_load_mbps_per_node = model.saturation_load_mbps_per_node;
        r.summary.model_bottleneck = model.bottleneck;
        r.summary.model_utilization = model.utilization;
        r.hardware = self.hardware(r.summary.throughput_mbps);
        self.report_trace(&mut r, end);
        if let Some(rc) = r.reconfiguration.as_mut() {
            let c = self.reconfiguration_counts;
            (rc.resent, rc.duplicates_suppressed, rc.held) = (c.resent, c.duplicates_suppressed, c.held);
            (rc.lost_transactions, rc.lost_at_fold, rc.lost_after_fold) = (c.lost_at_fold + c.lost_after_fold, c.lost_at_fold, c.lost_after_fold);
        }
        // After a failure only the live nodes' load, less what the failure
        // lost of it (their transactions with the failed node), was carriable.
        // (Read after `report_trace`, which sets a trace's offered load.)
        let carriable = if failure {
            r.per_node.iter().filter(|n| !self.has_failed(n.node as u16)).map(|n| n.offered_mbps - n.loss_mbps).sum()
        } else {
            r.summary.offered_mbps
        };
        // (A run that completed nothing in its window, as one ended just
        // after its warm-up, measured nothing of its load: its stalled nodes
        // say why where that is the network's doing.)
        r.summary.saturated = r.summary.transactions > 0 && r.summary.throughput_mbps < SATURATED_BELOW * carriable;
        r
    }

    /// What the network is built of, without the ringlets a
    /// reconfiguration activates (built beside the network, of its hardware).
    fn hardware(&self, throughput_mbps: f64) -> HardwareReport {
        let spare = |g: usize| self.reconfigurations.iter().any(|r| r.activate.iter().any(|&a| a as usize == g));
        let agents = self.topo.agents();
        // A switch of several buses is an agent per bus, and each of its ports
        // a cascade of chips, one per bus (`Member::cascade`): a port is its
        // first chip, a switch the agent of the first chips, and a link
        // between chips of one port is inside it.
        let later: Vec<bool> = if self.topo.has_cascades() {
            let mut later = vec![false; self.topo.ifaces()];
            for i in 0..self.topo.ifaces() {
                let next = self.topo.cascade_next(i as u16);
                if next != crate::topology::NO_IFACE {
                    later[next as usize] = true;
                }
            }
            later
        } else {
            Vec::new()
        };
        let is_later = |i: u16| later.get(i as usize).copied().unwrap_or(false);
        let first_chips = |a: &crate::topology::Agent| a.ifaces.iter().filter(|&&i| !is_later(i)).count() as u32;
        let switches = agents.iter().filter(|a| a.bus.is_some() && first_chips(a) > 0);
        let ports: u32 = switches.clone().map(first_chips).sum();
        let inside = |i: usize| self.topo.cascade_next(i as u16) != crate::topology::NO_IFACE;
        HardwareReport {
            endpoints: agents.iter().filter(|a| a.endpoint).count() as u32,
            switches: switches.count() as u32,
            ports,
            blinks: self.buses.iter().filter(|b| b.is_some()).count() as u32,
            links: (0..self.topo.ifaces()).filter(|&i| !spare(self.ifaces[i].ringlet as usize) && !inside(i)).count() as u32,
            ringlets: (0..self.topo.ringlets()).filter(|&g| !spare(g)).count() as u32,
            throughput_mbps_per_port: if ports > 0 { throughput_mbps / ports as f64 } else { f64::NAN },
        }
    }

    /// Each node's backlog when the run stops, and the age of the oldest of
    /// its transactions still in its application queue (or its streams').
    fn backlogs(&self, r: &mut Report, end: Time) {
        let mut oldest: Vec<Option<Time>> = vec![None; self.apps.len()];
        let mut note = |a: usize, born: Time| oldest[a] = Some(oldest[a].map_or(born, |o: Time| o.min(born)));
        for (a, app) in self.apps.iter().enumerate() {
            for e in app.queue.iter() {
                note(a, e.born);
            }
        }
        for (s, stream) in self.streams.iter().enumerate() {
            let agent = self.stream_agent(s) as usize;
            for e in stream.queue.iter().filter(|e| e.tag == crate::packet::NO_TAG) {
                note(agent, e.born);
            }
        }
        for n in r.per_node.iter_mut() {
            let a = n.node as usize;
            n.backlog = self.generated_by[a] - self.ended_by[a];
            n.oldest_waiting_ns = oldest[a].map_or(0.0, |born| time_to_ns(end.saturating_sub(born)));
            n.longest_stall_ns = time_to_ns(self.stalls.longest(a, end, n.backlog));
            n.longest_stall_by_data_ns = time_to_ns(self.stalls.longest_without_data(a, end, n.backlog));
        }
        let window = r.summary.stall_window_ns;
        // (A failed node stops for good: it is not judged, as for its share.)
        r.stalled_nodes = r.per_node.iter().filter(|n| n.longest_stall_ns > window && !self.has_failed(n.node as u16)).map(|n| n.node).collect();
    }

}
