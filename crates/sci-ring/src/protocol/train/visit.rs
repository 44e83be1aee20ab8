//! The train at a node: what the node claims, tickets or takes on it.

use super::{insert_ticket, Ticket, Train, TrainPhase};
use ringlet_engine::Time;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, Slab};
use ringlet_fabric::protocol::Effects;

impl Train {
    /// Node `j` handles the train, whose head reached it `now` and which
    /// leaves it at `pass` (its grants take effect then); its tickets make
    /// the train no longer than `room` symbols.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn visit(&mut self, j: usize, now: Time, pass: Time, room: u32, pk: &mut Packet, n: &Iface, slab: &Slab, fx: &mut Effects) {
        self.sees_free[j] = matches!(self.phase, TrainPhase::Free { .. });
        match self.phase {
            TrainPhase::Immediate { tally } => {
                // Claim the highest-priority packet not yet granted, if it fits.
                if self.granted[j].is_empty() {
                    if let Some(id) = first_unclaimed(n, slab, &self.ticketed[j]) {
                        let size = slab.get(id).len as u32;
                        if size <= tally {
                            self.phase = TrainPhase::Immediate { tally: tally - size };
                            self.grant(j, id, pass, fx);
                        } else {
                            self.wanted += size;
                        }
                    }
                }
            }
            TrainPhase::Free { used } => {
                self.phase = TrainPhase::Free { used: used + std::mem::take(&mut self.sent[j]) };
            }
            TrainPhase::Request => {
                self.screen(j, now, n);
                let placed = self.ticketed[j].len();
                // Packets a full destination refused on the last train sit this one out.
                let mut deferred = std::mem::take(&mut self.deferred[j]);
                let mut order = std::mem::take(&mut self.scratch_ids);
                order.clear();
                order.extend(
                    n.own_iter(|id| slab.get(id).eff)
                        .filter(|id| !deferred.contains(id) && !self.ticketed[j].contains(id) && !self.granted_ids[j].contains(id))
                        .take(self.max_tickets.saturating_sub(placed)),
                );
                deferred.clear();
                self.deferred[j] = deferred;
                // As many tickets as the bypass FIFO has room for.
                let fits = (room.saturating_sub(self.loco_len as u32) / self.ticket_len as u32) as usize;
                for &id in &order {
                    let p = slab.get(id);
                    let t = Ticket { priority: p.eff, size: p.len as u32, src: j as u16, dst: self.view.pos(p.to) as u16, side: p.class, pkt: id, queued_at: p.queued_at, approved: false };
                    self.ticketed[j].push(id);
                    self.wanted += t.size;
                    let mut dropped = std::mem::take(&mut self.scratch_tickets);
                    dropped.clear();
                    insert_ticket(&mut self.tickets, t, self.budget, &mut dropped);
                    // A train longer than the FIFO has room for loses its
                    // lowest tickets, as one over the budget does.
                    if self.tickets.len() > fits {
                        self.counters.tickets_without_room += (self.tickets.len() - fits) as u64;
                        dropped.extend(self.tickets.drain(fits..));
                    }
                    let lost_own = dropped.iter().any(|d| d.pkt == id);
                    for d in &dropped {
                        self.drop_ticket(d, now);
                    }
                    self.scratch_tickets = dropped;
                    if lost_own {
                        break;
                    }
                }
                self.scratch_ids = order;
            }
            TrainPhase::Grant => {
                self.screen(j, now, n);
                let mut mine = std::mem::take(&mut self.scratch_tickets);
                mine.clear();
                mine.extend(self.tickets.iter().filter(|t| t.src as usize == j).copied());
                self.tickets.retain(|t| t.src as usize != j);
                for t in &mine {
                    self.ticketed[j].retain(|&x| x != t.pkt);
                    self.grant(j, t.pkt, pass, fx);
                }
                self.scratch_tickets = mine;
            }
        }
        pk.len = self.train_len();
    }
}

/// The node's first own packet (in send order) with no ticket.
fn first_unclaimed(n: &Iface, slab: &Slab, ticketed: &[u32]) -> Option<u32> {
    n.own_iter(|id| slab.get(id).eff).find(|id| !ticketed.contains(id))
}
