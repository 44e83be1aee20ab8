//! Priority inversions, counted for every protocol where there are several
//! priorities (`docs/model-rt.md`, "Priority inversions"):
//!
//! - an **output inversion**: an interface puts a send packet on its link
//!   (its own, or one passing through its bypass FIFO) while an own packet
//!   of a higher priority waits in its output queues;
//! - an **input inversion**: an input queue accepts a send packet while a
//!   packet of a higher priority that it busied has not yet been accepted.
//!
//! Each is counted by (higher, lower) priority, with the time the higher
//! packet had waited: in its output queue, or since the queue first busied it.
//! Only the measurement window counts.

use super::Fabric;
use crate::packet::Packet;
use crate::protocol::RingProtocol;
use crate::report::InversionReport;
use ringlet_engine::time::time_to_ns;
use ringlet_engine::Time;
use std::collections::HashMap;

/// What the counting keeps.
pub(super) struct Inversions {
    levels: usize,
    /// By `higher * levels + lower`: how many, and the higher packets' waits summed.
    output: Vec<(u64, Time)>,
    input: Vec<(u64, Time)>,
    /// Busied packets not yet accepted, by id: the queue (interface, class), priority, first busy.
    busied: HashMap<u32, (u16, u8, u16, Time)>,
    /// Per queue (interface, class; `iface * MAX_CLASSES + class`): how many of those wait, by priority.
    pending: HashMap<usize, Vec<u32>>,
    /// Per interface with FIFO queues: its highest-priority own packet (priority,
    /// when queued) as of an `own_changes()` count (looked for again only after a change).
    highest: Vec<(u64, Option<(u16, Time)>)>,
}

impl Inversions {
    pub(super) fn new(levels: usize, ifaces: usize) -> Self {
        Inversions { levels, output: vec![(0, 0); levels * levels], input: vec![(0, 0); levels * levels], busied: HashMap::new(), pending: HashMap::new(), highest: vec![(u64::MAX, None); ifaces] }
    }

    /// The inversions counted, a row per (kind, higher, lower) that occurred.
    pub(super) fn report(&self) -> (u64, u64, Vec<InversionReport>) {
        let mut rows = Vec::new();
        let mut totals = [0u64; 2];
        for (k, (kind, table)) in [("output", &self.output), ("input", &self.input)].into_iter().enumerate() {
            for (at, &(n, waited)) in table.iter().enumerate() {
                if n > 0 {
                    totals[k] += n;
                    rows.push(InversionReport {
                        kind,
                        higher: (at / self.levels) as u32,
                        lower: (at % self.levels) as u32,
                        count: n,
                        waited_ns_mean: time_to_ns(waited) / n as f64,
                    });
                }
            }
        }
        (totals[0], totals[1], rows)
    }
}

impl<P: RingProtocol> Fabric<P> {
    /// Interface `i` puts send packet `pk` on its link now: an output
    /// inversion if an own packet of a higher priority waits.
    #[cold]
    pub(super) fn output_inversion(&mut self, i: usize, pk: &Packet) {
        let now = self.sched.now();
        if now < self.measure.warmup_end {
            return;
        }
        let n = &self.ifaces[i];
        // Priority queues put the highest first; FIFO ones are looked through
        // once per change to the interface's own packets.
        let waiting = if P::RULES.priority_queues {
            n.first_own().map(|id| {
                let w = self.slab.at(id);
                (w.priority, w.queued_at)
            })
        } else {
            let changes = n.own_changes();
            match self.inversions.as_ref().expect("counting").highest[i] {
                (at, w) if at == changes => w,
                _ => {
                    let slab = &self.slab;
                    let w = n.own_iter(|id| slab.at(id).eff).map(|id| slab.at(id)).max_by_key(|w| (w.priority, std::cmp::Reverse(w.queued_at))).map(|w| (w.priority, w.queued_at));
                    self.inversions.as_mut().expect("counting").highest[i] = (changes, w);
                    w
                }
            }
        };
        let Some((priority, queued_at)) = waiting else { return };
        if priority > pk.priority {
            let inv = self.inversions.as_mut().expect("counting");
            let at = priority as usize * inv.levels + pk.priority as usize;
            inv.output[at].0 += 1;
            inv.output[at].1 += now.saturating_sub(queued_at);
        }
    }

    /// The input queue of `class` at `i` busied send packet `id` (`pk`).
    #[cold]
    pub(super) fn busied_for_inversions(&mut self, i: usize, class: usize, id: u32, pk: &Packet) {
        let now = self.sched.now();
        let inv = self.inversions.as_mut().expect("counting");
        if inv.busied.contains_key(&id) {
            return;
        }
        let levels = inv.levels;
        inv.busied.insert(id, (i as u16, class as u8, pk.priority, now));
        inv.pending.entry(i * crate::params::MAX_CLASSES + class).or_insert_with(|| vec![0; levels])[pk.priority as usize] += 1;
    }

    /// The input queue of `class` at `i` accepts send packet `id` (`pk`): an
    /// input inversion if a packet of a higher priority it busied still waits.
    #[cold]
    pub(super) fn accepted_for_inversions(&mut self, i: usize, class: usize, id: u32, pk: &Packet) {
        let now = self.sched.now();
        let counting = now >= self.measure.warmup_end;
        let inv = self.inversions.as_mut().expect("counting");
        let key = i * crate::params::MAX_CLASSES + class;
        if let Some((q, c, prio, _)) = inv.busied.remove(&id) {
            // From the queue that busied it: after a fold, one busied on a
            // retired ring is accepted on the folded one.
            if let Some(p) = inv.pending.get_mut(&(q as usize * crate::params::MAX_CLASSES + c as usize)) {
                p[prio as usize] -= 1;
            }
        }
        let Some(p) = inv.pending.get(&key) else { return };
        let Some(higher) = (pk.priority as usize + 1..inv.levels).rev().find(|&h| p[h] > 0) else { return };
        if !counting {
            return;
        }
        // The longest any packet of that priority has waited since it was first busied here.
        let first = inv.busied.values().filter(|&&(q, c, pr, _)| (q as usize, c as usize) == (i, class) && pr as usize == higher).map(|e| e.3).min().unwrap_or(now);
        let at = higher * inv.levels + pk.priority as usize;
        inv.input[at].0 += 1;
        inv.input[at].1 += now - first;
    }
}
