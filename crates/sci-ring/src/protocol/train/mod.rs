//! TRAIN (seed 003 section 2.3): ring-wide arbitration.
//!
//! The TicketMaster keeps one train circling: a LocalMotive, plus tickets
//! in arbitrated mode. The train is a control packet that visits each node:
//! a node holds it in its bypass FIFO while it reads the LocalMotive
//! (`train.handling_cycles`; tickets follow on the fly, as Figure 3
//! describes), so the revolution time is the ring's. The train streams
//! through: a node adds tickets only as far as its bypass FIFO can buffer
//! what comes in behind them. The TicketMaster passes it on as every node
//! does, setting the next revolution's mode in the LocalMotive.
//! - **Immediate send mode.** The LocalMotive carries the bandwidth still
//!   available this revolution. A node with a waiting packet takes its size
//!   off the tally and sends the packet once the LocalMotive has passed: at
//!   most one packet per node per revolution. A packet larger than what is
//!   left waits, but the node still marks what it wishes to send (the seed:
//!   nodes "decrement this field by the amount they wish to send"), so the
//!   TicketMaster sees the demand, not only what fitted.
//! - **Arbitrated send mode.** The request train collects tickets (priority,
//!   size) in priority order; a node inserting a ticket truncates the train
//!   where the sizes would exceed the LocalMotive's budget (Figure 3). A
//!   destination deletes tickets that would not fit its input queue, and
//!   reserves a slot for each one it keeps. After a full circle the
//!   TicketMaster turns it into a grant train; a node whose ticket is still
//!   on it may send that packet, which is never busied.
//! - **Mode switches** at the TicketMaster: to arbitrated when an immediate
//!   revolution claimed and wished for more than `train.arbitrate_above` of its tally;
//!   back when nodes put tickets for less than `train.immediate_below` of
//!   the budget on a request train (the LocalMotive's running total: a
//!   ticket a destination deleted still counts).
//! - **Gearshift** (beyond the seed, `train.gearshift`): the low-load mode is
//!   base SCI itself (go bits, no waiting for the LocalMotive); nodes only
//!   report on the LocalMotive what they sent, and the TicketMaster shifts to
//!   arbitrated mode on the same threshold.
//!
//! Here the protocol's state and its answers to the fabric; `visit` (the
//! train at a node), `tickets` (Figure 3's insertion), `settings` (the
//! keys of `[train]`).

use super::go_bits::GoBits;
use super::Registered;
use ringlet_engine::Time;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, PacketKind, Phase, Slab};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_scenario::schema::Param;
use ringlet_scenario::Scenario;

mod settings;
mod tickets;
mod visit;

pub use settings::Settings;
pub use tickets::{insert_ticket, Ticket};
use settings::PARAMS;

/// What the train is on this revolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainPhase {
    /// Immediate send mode; the tally of bandwidth left.
    Immediate { tally: u32 },
    /// Gearshift's base-SCI mode; symbols reported sent this revolution.
    Free { used: u32 },
    Request,
    Grant,
}

pub struct Train {
    view: RingletView,
    tm: usize,
    go: GoBits,
    gearshift: bool,
    /// No immediate send mode: every revolution a request or a grant train.
    always_arbitrated: bool,
    loco_len: u16,
    ticket_len: u16,
    budget: u32,
    arbitrate_above: f64,
    immediate_below: f64,
    max_tickets: usize,
    /// The train's current revolution and its tickets.
    phase: TrainPhase,
    /// Immediate mode: symbols nodes wished to send this revolution beyond
    /// the tally left (their packets wait for a later one). A request
    /// train: the sizes of the tickets nodes put on it, the LocalMotive's
    /// running total as they added them (a ticket a full destination
    /// deleted, or one truncated, was demand all the same).
    wanted: u32,
    tickets: Vec<Ticket>,
    /// Mode the TicketMaster switches to when this grant train comes home.
    after_grant_immediate: bool,
    /// Per node: packets granted (immediate claim or grant ticket), with the
    /// time the grant was read (the packet goes after the LocalMotive).
    granted: Vec<Vec<(u32, Time)>>,
    /// The same packets, ids only (what the node offers when its first packet is not granted).
    granted_ids: Vec<Vec<u32>>,
    /// Per node: packets with a ticket on the train (not to be ticketed twice).
    ticketed: Vec<Vec<u32>>,
    /// Per node and side: packets this destination reserved a slot for, and when.
    reserved: Vec<[Vec<(u32, Time)>; 2]>,
    /// Per node: the train's mode as the node last saw it is base SCI (gearshift).
    sees_free: Vec<bool>,
    /// Per node: symbols sent since the train last passed (gearshift report).
    sent: Vec<u32>,
    /// Per node: packets whose ticket a full destination deleted; the node
    /// does not ticket them on the next request train (it tries its others).
    deferred: Vec<Vec<u32>>,
    /// Reused buffers (nothing allocated per train visit).
    scratch_ids: Vec<u32>,
    scratch_tickets: Vec<Ticket>,
    /// How long a node holds the train before passing it on.
    handling: Time,
    /// The longest train, symbols: the idle ring's revolution (hops and
    /// every node's handling) in symbol times.
    longest: u32,
    /// The ring's parameters (the cycle; a node grows a passing train only
    /// as far as its bypass FIFO, `bypass_fifo_symbols`, has room).
    p: Params,
    counters: ProtoCounters,
}

impl Train {
    /// The request train's size budget, in symbols.
    fn size_budget(view: &RingletView, p: &Params, s: &Settings) -> Result<u32, String> {
        // Symbols one link carries while the LocalMotive circles an idle
        // ring, twice over (with uniform traffic a ring carries twice a
        // link's worth), for the two revolutions between one grant train
        // and the next: a request train, then a grant train.
        let hops: u64 = (0..view.len()).map(|k| view.hop(k) / p.cycle).sum();
        let revolution = hops + view.len() as u64 * (s.locomotive_symbols as u64 + p.separator as u64);
        let budget = if s.budget_symbols == 0 { (4 * revolution) as u32 } else { s.budget_symbols };
        if budget < p.longest_send() as u32 {
            return Err(format!(
                "train.budget_symbols: expected 0 (derived) or at least the longest send packet ({} symbols), got {budget}",
                p.longest_send()
            ));
        }
        Ok(budget)
    }

    /// How long a node holds the train (derived: the LocalMotive's length).
    fn handling(p: &Params, s: &Settings) -> Time {
        (if s.handling_cycles == 0 { s.locomotive_symbols } else { s.handling_cycles }) as Time * p.cycle
    }

    /// The idle ring's revolution in symbol times (hops and every node's
    /// handling). The train streams through every node, the TicketMaster
    /// too, so a node's own packets go in the gap between the train's tail
    /// leaving it and its head coming back (every hop and the other nodes'
    /// handling later): a ring where even the bare LocalMotive and its
    /// separator leave no gap would be all train, and is refused.
    fn revolution(view: &RingletView, p: &Params, s: &Settings) -> Result<u32, String> {
        let handling = Self::handling(p, s);
        let back = ((view.round() + (view.len() as Time - 1) * handling) / p.cycle) as u32;
        let needs = s.locomotive_symbols + p.separator;
        if back <= needs {
            return Err(format!(
                "train.handling_cycles: the LocalMotive comes back to a node {back} symbol times after it left (the hops and the other {} nodes' handling), no later than its own {needs} symbols and separator have left: the ring would be all train; hold the train longer at each node or shorten the LocalMotive",
                view.len() - 1
            ));
        }
        Ok(((view.round() + view.len() as Time * handling) / p.cycle) as u32)
    }

    pub fn new(view: &RingletView, p: &Params, s: &Settings) -> Result<Self, String> {
        let n = view.len();
        let loco = s.locomotive_symbols as u16;
        let budget = Self::size_budget(view, p, s)?;
        let handling = Self::handling(p, s);
        let start = if s.always_arbitrated {
            TrainPhase::Request
        } else if s.gearshift {
            TrainPhase::Free { used: 0 }
        } else {
            TrainPhase::Immediate { tally: Self::tally_of(budget) }
        };
        Ok(Train {
            view: view.clone(),
            tm: s.ticketmaster as usize,
            go: GoBits::new(view),
            gearshift: s.gearshift,
            always_arbitrated: s.always_arbitrated,
            loco_len: loco,
            ticket_len: s.ticket_symbols as u16,
            budget,
            arbitrate_above: s.arbitrate_above,
            immediate_below: s.immediate_below,
            max_tickets: s.max_tickets_per_node as usize,
            phase: start,
            wanted: 0,
            tickets: Vec::new(),
            after_grant_immediate: false,
            granted: vec![Vec::new(); n],
            granted_ids: vec![Vec::new(); n],
            ticketed: vec![Vec::new(); n],
            reserved: vec![[Vec::new(), Vec::new()]; n],
            sees_free: vec![s.gearshift; n],
            sent: vec![0; n],
            deferred: vec![Vec::new(); n],
            scratch_ids: Vec::new(),
            scratch_tickets: Vec::new(),
            handling,
            longest: Self::revolution(view, p, s)?,
            p: p.clone(),
            counters: ProtoCounters::default(),
        })
    }

    /// The immediate-mode tally a revolution starts with: the ring's
    /// capacity over one revolution, half the budget's two.
    fn tally(&self) -> u32 {
        Self::tally_of(self.budget)
    }

    /// The tally of a size budget of `budget` symbols.
    fn tally_of(budget: u32) -> u32 {
        budget / 2
    }

    /// The budget, symbols.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// The phase of the train now.
    pub fn phase(&self) -> TrainPhase {
        self.phase
    }

    /// How long the train may grow at a node whose bypass FIFO is `n`'s
    /// now. The train streams through: the node holds its head for the
    /// handling (or behind what the FIFO is committed to send first), and
    /// every symbol it adds is one more of the stream behind to buffer, so
    /// those two together must fit the FIFO. A train the node shortens
    /// (tickets deleted or taken) needs no room.
    ///
    /// Nor may it grow longer than the idle ring's revolution (`longest`):
    /// a train whose head came round to its own tail would fill every link
    /// for good, and no granted packet would find a gap to follow it.
    fn room(&self, n: &Iface, slab: &Slab, now: Time, len: u16) -> u32 {
        let held = n.bypass_committed(slab, &self.p, now).max((self.handling / self.p.cycle) as u32);
        (len as u32 + self.p.bypass_fifo_symbols.saturating_sub(held)).min(self.longest.max(len as u32))
    }

    fn train_len(&self) -> u16 {
        self.loco_len + self.ticket_len * self.tickets.len() as u16
    }

    fn low_mode(&self) -> TrainPhase {
        if self.gearshift {
            TrainPhase::Free { used: 0 }
        } else {
            TrainPhase::Immediate { tally: self.tally() }
        }
    }

    /// A dropped ticket frees the slot its destination reserved for it.
    fn drop_ticket(&mut self, t: &Ticket, now: Time) {
        self.counters.tickets_deleted += 1;
        self.ticketed[t.src as usize].retain(|&x| x != t.pkt);
        if t.approved {
            self.release(t.dst as usize, t.side as usize, t.pkt, now);
        }
    }

    /// The slot node `j` reserved on `side` for packet `pkt` is free again;
    /// whether there was one.
    fn release(&mut self, j: usize, side: usize, pkt: u32, now: Time) -> bool {
        let reserved = &mut self.reserved[j][side];
        let Some(k) = reserved.iter().position(|&(x, _)| x == pkt) else { return false };
        let (_, since) = reserved.swap_remove(k);
        self.counters.slot_released(since, now);
        true
    }

    /// Node `j` as a destination: keep the tickets for it that fit its input
    /// queues (highest priority first, reserving a slot each), delete the rest.
    fn screen(&mut self, j: usize, now: Time, n: &Iface) {
        let mut k = 0;
        while k < self.tickets.len() {
            let t = self.tickets[k];
            if t.dst as usize != j || t.approved {
                k += 1;
                continue;
            }
            let q = n.input(t.side as usize);
            let reserved = &mut self.reserved[j][t.side as usize];
            if q.capacity > q.occupied + reserved.len() as u32 {
                reserved.push((t.pkt, now));
                self.counters.slots_reserved += 1;
                self.tickets[k].approved = true;
                k += 1;
            } else {
                let t = self.tickets.remove(k);
                self.drop_ticket(&t, now);
                self.deferred[t.src as usize].push(t.pkt);
            }
        }
    }

    /// Node `j` may send `pkt` once the train has left it, at `pass`.
    fn grant(&mut self, j: usize, pkt: u32, pass: Time, fx: &mut Effects) {
        self.granted[j].push((pkt, pass));
        self.granted_ids[j].push(pkt);
        // The LocalMotive goes first: decide just after it is in the bypass FIFO.
        fx.wakes.push((j as u16, pass + 1));
    }

    /// The TicketMaster receives the train back and starts its next revolution.
    fn turn(&mut self, now: Time) {
        self.phase = match self.phase {
            TrainPhase::Immediate { tally } => {
                let used = self.tally() - tally + std::mem::take(&mut self.wanted);
                if used as f64 > self.arbitrate_above * self.tally() as f64 {
                    TrainPhase::Request
                } else {
                    self.low_mode()
                }
            }
            TrainPhase::Free { used } => {
                if used as f64 > self.arbitrate_above * self.tally() as f64 {
                    TrainPhase::Request
                } else {
                    TrainPhase::Free { used: 0 }
                }
            }
            TrainPhase::Request => {
                let asked = std::mem::take(&mut self.wanted);
                self.after_grant_immediate = (asked as f64) < self.immediate_below * self.budget as f64;
                TrainPhase::Grant
            }
            TrainPhase::Grant => {
                // Tickets left on a grant train were for nodes that have all been passed.
                let mut left = std::mem::take(&mut self.tickets);
                for t in left.drain(..) {
                    self.drop_ticket(&t, now);
                }
                self.tickets = left; // (its buffer kept for the next train)
                if self.after_grant_immediate && !self.always_arbitrated {
                    self.low_mode()
                } else {
                    TrainPhase::Request
                }
            }
        };
    }
}

impl Registered for Train {
    const NAME: &'static str = "train";
    const DOC: &'static str = "TRAIN (seed 003 section 2.3): a TicketMaster's LocalMotive collects tickets and grants the highest-priority packets, in immediate or arbitrated send mode.";
    const PARAMS: &'static [Param] = PARAMS;

    fn validate(s: &Scenario) -> Result<(), String> {
        let t = Settings::of(s);
        let nodes = s.network.nodes;
        if t.ticketmaster >= nodes {
            return Err(format!(
                "train.ticketmaster: expected a node index in 0..{} (network.nodes = {nodes}), got {}",
                nodes - 1,
                t.ticketmaster
            ));
        }
        if t.always_arbitrated && t.gearshift {
            return Err("train.send_mode: \"arbitrated\" has no low-load mode for train.gearshift to change; set train.gearshift = false or train.send_mode = \"switching\"".to_string());
        }
        if t.immediate_below > t.arbitrate_above {
            return Err(format!(
                "train.immediate_below: expected at most train.arbitrate_above ({}), got {}",
                t.arbitrate_above, t.immediate_below
            ));
        }
        Ok(())
    }

    /// The size budget against the longest send packet, and the ring's
    /// revolution against the train (`new` checks them too).
    fn check(view: &RingletView, p: &Params, s: &Scenario) -> Result<(), String> {
        let t = Settings::of(s);
        Self::size_budget(view, p, &t)?;
        Self::revolution(view, p, &t).map(|_| ())
    }

    fn build(view: &RingletView, p: &Params, s: &Scenario) -> Result<Self, String> {
        Train::new(view, p, &Settings::of(s))
    }
}

impl RingProtocol for Train {
    /// Priority queues, and responses that never hold the responder.
    const RULES: Rules = Rules { priority_queues: true, server_waits_for_room: false, recovery: false, host_preempts: true, ..Rules::IEEE };

    /// A packet with a ticket on the train, a grant, or a deleted ticket stays.
    fn may_unqueue(&self, at: usize, id: u32) -> bool {
        !self.ticketed[at].contains(&id) && !self.granted_ids[at].contains(&id) && !self.deferred[at].contains(&id)
    }

    /// A packet waits for the LocalMotive to reach its node (half a
    /// revolution on average: every hop, and every node's handling), then
    /// for the handling there, and follows the LocalMotive. With the
    /// gearshift the low-load mode is base SCI's: no wait. Always
    /// arbitrated, it waits for the next request train (every other
    /// revolution: one on average), and its grant comes a revolution later.
    fn idle_send_wait(&self) -> Time {
        if self.gearshift {
            return 0;
        }
        let revolution = self.view.round() + self.view.len() as Time * self.handling;
        let to_the_grant = if self.always_arbitrated { 2 * revolution } else { revolution / 2 };
        to_the_grant + self.handling + self.loco_len as Time * self.p.cycle
    }

    fn on_start(&mut self, fx: &mut Effects) {
        self.counters.control_symbols += 1;
        fx.controls.push((self.tm as u16, self.loco_len, 0, 0));
    }

    fn may_send(&mut self, node: usize, now: Time, id: u32, _pk: &Packet, _fx: &mut Effects) -> Permit {
        if let Some(&(_, at)) = self.granted[node].iter().find(|&&(x, _)| x == id) {
            return if at < now { Permit::Go } else { Permit::Hold { wake_at: Some(at + 1) } };
        }
        if self.sees_free[node] {
            return self.go.may_start(node, now);
        }
        self.counters.flow_holds += 1;
        Permit::Skip
    }

    fn only_candidates(&self, node: usize) -> Option<&[u32]> {
        (!self.sees_free[node]).then_some(self.granted_ids[node].as_slice())
    }

    fn on_sent(&mut self, node: usize, now: Time, id: u32, pk: &Packet, _still: Option<u16>, fx: &mut Effects) {
        self.granted[node].retain(|&(x, _)| x != id);
        self.granted_ids[node].retain(|&x| x != id);
        self.ticketed[node].retain(|&x| x != id);
        self.sent[node] += pk.len as u32;
        self.go.set_blocked(node, now, false, fx);
    }

    fn on_blocked(&mut self, node: usize, now: Time, _waiting: u16, fx: &mut Effects) -> bool {
        if self.sees_free[node] {
            self.go.set_blocked(node, now, true, fx);
        }
        // Whether the node sees the ring free changes as the train passes.
        true
    }

    fn admit(&mut self, node: usize, now: Time, class: usize, id: u32, _pk: &Packet, q: QueueView) -> Admission {
        if self.release(node, class, id, now) {
            return Admission::Accept;
        }
        if q.free() > self.reserved[node][class].len() as u32 {
            Admission::Accept
        } else {
            Admission::Busy(Phase::Fresh)
        }
    }

    fn on_control(&mut self, node: usize, now: Time, pk: &mut Packet, n: &Iface, slab: &Slab, fx: &mut Effects) -> bool {
        debug_assert_eq!(pk.kind, PacketKind::Control);
        let j = node;
        if j == self.tm {
            // Home: the TicketMaster reads the LocalMotive (and its size
            // field, the tickets' running total) and sets the next
            // revolution's mode in it as the train passes through: a
            // request train becomes a grant train (seed: it "sets a field
            // in the LocalMotive").
            self.turn(now);
            self.counters.control_symbols += 1;
        }
        // The node holds the train in its bypass FIFO while it handles it
        // (`control_hold`): the revolution time is the ring's, handling and
        // queueing included.
        let room = self.room(n, slab, now, pk.len);
        self.visit(j, now, now + self.handling, room, pk, n, slab, fx);
        true
    }

    fn control_hold(&self) -> Time {
        self.handling
    }

    fn counters(&self) -> ProtoCounters {
        ProtoCounters { go_bit_holds: self.go.holds, ..self.counters }
    }

    fn go_bit_holds_at(&self, at: usize) -> u64 {
        self.go.holds_at[at]
    }
}
