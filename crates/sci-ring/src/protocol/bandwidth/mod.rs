//! IEEE 1596 bandwidth allocation, per ringlet: transmission recovery and
//! its debt, idles that carry the go bits and the idle priority.
//!
//! What the standard does symbol by symbol (`shared/notes/sci-facts.md`,
//! after Richter), and the exactly equivalent rule applied here per packet:
//!
//! - **Recovery.** A node that starts an own packet of `S` symbols (with its
//!   separating idle) is in transmission recovery until its bypass FIFO is
//!   empty again: what arrives meanwhile is buffered and forwarded in order,
//!   and every incoming idle is merged away to drain the FIFO. From the
//!   packet's first symbol to the empty FIFO the node emits exactly `S`
//!   symbols more than it receives, so it has absorbed exactly `S` idles:
//!   its **debt** is `S` idles, whatever the traffic. (The fabric tells the
//!   protocol when the FIFO is empty: `RingProtocol::on_recovered`.)
//! - **Repayment.** With the FIFO empty the node repays the debt by turning
//!   the next `S` low-type idles it passes on into high-type idles: the go
//!   bit those idles carried is withheld from every node downstream that
//!   sends at its priority or lower. Packets passing meanwhile go through
//!   unchanged and do not count (`on_pass` moves the end of the repayment
//!   back by their length). The node may not start a new packet before the
//!   debt is repaid.
//! - **Idle priority.** A node with an own packet it cannot send raises the
//!   idle priority (`ipr`) of the idles it emits to that packet's; this is
//!   the ringlet's estimate of the highest priority waiting. Repayment ends
//!   early as soon as the idles a node receives show nobody else waiting at
//!   its priority or above (and a node that sees nobody waiting when its
//!   recovery ends owes nothing): without contention a node sends back to
//!   back.
//! - **Go bits.** A node may start a packet only with a go bit for its
//!   priority: it holds while the idles reaching it are ones an upstream
//!   node converted (high-type for it).
//!
//! Every node learns of another's state through the idles, which travel
//! with the packets: node `j` sees node `i`'s idle priority and converted
//! idles the ringlet's travel time from `i` to `j` later. (Idles merged in a
//! node's recovery on the way are not followed individually: the state they
//! carried arrives with the next idle the node emits, which is at most a
//! packet later. docs/model-sci.md.)
//!
//! Priorities: with `prioritized` (PPQ: "the same flow-control mechanism as
//! SCI within priority levels") levels compare by packet priority, so a
//! node's repayment never holds packets of a higher priority; base SCI
//! treats every packet alike.
//!
//! How the state is kept, so that a decision costs what the few nodes that
//! wait or repay make it cost, not the ring's size: each node's idle
//! priority as a short history of steps (its latest apart), the nodes whose
//! idles may show a packet waiting in a set of bits (`node_set.rs`), and
//! the stretches of converted idles still travelling in one short list
//! (`stretches.rs`). A held node's wait on another is a bit as well as a
//! place in that node's list of waiters.

use ringlet_engine::Time;
use ringlet_fabric::packet::Packet;
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Effects, Permit, ProtoCounters, RingletView};
use std::collections::VecDeque;

mod node_set;
mod stretches;

use node_set::{NodeSet, NodeSets, Visit};
use stretches::Stretches;

/// Which of IEEE 1596's bandwidth allocation rules run on a ringlet
/// (`network.bandwidth_allocation`): both (`ieee`), none, or one of them
/// alone, to tell what each costs (`go-bits`: a node's converted idles
/// hold the nodes downstream, but its debt does not hold the node itself;
/// `debts`: a node waits out its own debt while others wait, and its
/// converted idles hold nobody).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub go_bits: bool,
    pub debts: bool,
}

impl Allocation {
    pub const IEEE: Allocation = Allocation { go_bits: true, debts: true };
    pub const NONE: Allocation = Allocation { go_bits: false, debts: false };
    /// The names `network.bandwidth_allocation` takes, in the schema's order.
    pub const NAMES: [&'static str; 4] = ["ieee", "none", "go-bits", "debts"];

    /// The rules a `network.bandwidth_allocation` value names.
    pub fn named(name: &str) -> Allocation {
        match name {
            "ieee" => Allocation::IEEE,
            "go-bits" => Allocation { go_bits: true, debts: false },
            "debts" => Allocation { go_bits: false, debts: true },
            _ => Allocation::NONE,
        }
    }

    /// Whether any rule runs.
    pub fn on(self) -> bool {
        self.go_bits || self.debts
    }
}

impl From<bool> for Allocation {
    /// All of the standard's rules, or none.
    fn from(ieee: bool) -> Allocation {
        if ieee { Allocation::IEEE } else { Allocation::NONE }
    }
}

/// Why a node was held (counted for the report).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holds {
    /// Held to repay its own debt while others wait.
    pub debt: u64,
    /// Held by go bits an upstream node withheld (converted idles).
    pub go: u64,
}

/// What one node's latest own packet left it with, and what its idles
/// show: the fields a decision reads together, side by side (in a network
/// of thousands of ringlets, each table a decision looked in was a cache
/// miss).
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// Idle time owed for its latest own packet (until its recovery ends).
    debt: Time,
    /// Repaying until then, if packets stop passing (`None`: not repaying).
    repay_until: Option<Time>,
    /// Its latest idle-priority step (the back of its `ipr`), where most looks end.
    ipr_last: (Time, u16),
    /// The level of its latest own packet (what its repayment withholds).
    sent_level: u16,
    /// What held it when last asked (`HELD_BY_DEBT`, `HELD_BY_GO_BITS`).
    held_by: u8,
}

const HELD_BY_DEBT: u8 = 1;
const HELD_BY_GO_BITS: u8 = 2;

/// One ringlet's bandwidth allocation. Laid out by hand (`repr(C)`): what
/// every decision reads (the switches, the node table, the nodes that may
/// signal) in the first cache line; in a network of thousands of ringlets
/// the compiler's order spread it over all six.
#[repr(C)]
pub struct Bandwidth {
    enabled: bool,
    rules: Allocation,
    prioritized: bool,
    /// Idles that follow every packet (part of a packet's debt).
    separator: u32,
    max_dist: Time,
    /// Per node: its debt, repayment and latest idle priority (`Node`).
    nodes: Vec<Node>,
    /// Nodes whose idles may show a packet waiting to some node now (a
    /// superset, dropped lazily): a decision looks only at those, as it
    /// looks only at the stretches of converted idles still travelling, so
    /// its cost follows the few nodes that wait or repay, not the ring's size.
    signalling: NodeSet,
    /// The stretches of idles nodes converted that some node may still
    /// see; a node's latest one's `to` moves while it repays.
    withheld: Stretches,
    view: RingletView,
    cycle: Time,
    /// Per node: the idle priority its idles carry, as (from, level)
    /// steps, oldest first (0 = nothing waiting, else 1 + priority). The
    /// last step may lie in the future (a change made at the end of a packet).
    ipr: Vec<VecDeque<(Time, u16)>>,
    /// Per node: the nodes held by its state, to wake when that changes,
    /// in the order they were held.
    waiters: Vec<Vec<u16>>,
    /// The same as bits (node `i`'s waiters in row `i`), so that holding a
    /// node again costs one look, not a search of the list.
    waiter_bits: NodeSets,
    pub holds: Holds,
    /// Go-bit holds per place (the report's per-link figure: which
    /// interfaces the go bits hold).
    pub go_holds_at: Vec<u64>,
    /// Debts repaid in full, and debts forgiven or ended early (nobody waiting).
    pub repaid: u64,
    pub forgiven: u64,
}

impl Bandwidth {
    pub fn new(view: &RingletView, p: &Params, rules: impl Into<Allocation>, prioritized: bool) -> Self {
        let n = view.len();
        let rules = rules.into();
        let enabled = rules.on();
        Bandwidth {
            enabled,
            rules,
            prioritized,
            view: view.clone(),
            max_dist: view.longest_travel(),
            cycle: p.cycle,
            separator: p.separator,
            ipr: (0..n).map(|_| VecDeque::from([(0, 0)])).collect(),
            nodes: vec![Node::default(); n],
            withheld: Stretches::new(n),
            waiters: vec![Vec::new(); n],
            waiter_bits: NodeSets::new(if enabled { n } else { 0 }, n),
            signalling: NodeSet::new(n),
            holds: Holds::default(),
            go_holds_at: vec![0; n],
            repaid: 0,
            forgiven: 0,
        }
    }

    #[inline]
    fn level(&self, priority: u16) -> u16 {
        if self.prioritized {
            priority + 1
        } else {
            1
        }
    }

    /// Starts fetching node `j`'s entry of the node table (a hint).
    #[inline(always)]
    pub fn prefetch(&self, j: usize) {
        ringlet_engine::hint::prefetch(self.nodes.as_ptr().wrapping_add(j));
    }

    /// Node `i`'s idle priority at time `t`.
    #[inline]
    fn ipr_at(&self, i: usize, t: Time) -> u16 {
        match self.nodes[i].ipr_last {
            // Mostly the latest step, seen after its travel.
            (at, level) if at <= t => level,
            _ => self.ipr[i].iter().rev().skip(1).find(|&&(at, _)| at <= t).map_or(0, |&(_, l)| l),
        }
    }

    /// When node `i`'s idle priority first drops below `level` after time
    /// `t`, among the steps it has made (a later one wakes those waiting on it).
    fn first_lower_step(&self, i: usize, t: Time, level: u16) -> Option<Time> {
        match self.nodes[i].ipr_last {
            // Mostly: no step since, and the latest still shows it waiting.
            (at, last) if at <= t && last >= level => None,
            _ => self.ipr[i].iter().find(|&&(at, l)| at > t && l < level).map(|&(at, _)| at),
        }
    }

    /// Whether node `i`'s idles may show a packet waiting to another node
    /// from now on (`horizon`: now less the ringlet's longest travel).
    fn signals(&self, i: usize, horizon: Time) -> bool {
        let (at, level) = self.nodes[i].ipr_last;
        level != 0 || at > horizon
    }

    /// Forgets node `i`'s idle-priority steps and converted idles that no
    /// node can see any more at `now` (each reaches every node within the
    /// ringlet's longest travel). Never a time still ahead: what the
    /// farthest nodes still see would go early, and a node it holds would
    /// not be woken when it goes.
    fn prune(&mut self, i: usize, now: Time) {
        let horizon = now.saturating_sub(self.max_dist);
        let ipr = &mut self.ipr[i];
        while ipr.len() >= 2 && ipr[1].0 <= horizon {
            ipr.pop_front();
        }
        self.withheld.forget(i, horizon);
    }

    /// Sets node `i`'s idle priority from time `at` (now or later) on;
    /// waiters are woken when a lower one reaches them.
    fn set_ipr(&mut self, i: usize, now: Time, at: Time, level: u16, fx: &mut Effects) {
        let (last_at, last) = self.nodes[i].ipr_last;
        if last == level {
            return;
        }
        let at = at.max(last_at);
        self.prune(i, now);
        self.ipr[i].push_back((at, level));
        self.nodes[i].ipr_last = (at, level);
        self.signalling.insert(i);
        if level < last {
            self.wake_waiters(i, at, fx);
        }
    }

    fn wake_waiters(&mut self, i: usize, at: Time, fx: &mut Effects) {
        // (The list keeps its capacity: no allocation when it fills again.)
        for &j in &self.waiters[i] {
            self.waiter_bits.remove(i, j as usize);
            fx.wakes.push((j, at + self.view.travel(i, j as usize)));
        }
        self.waiters[i].clear();
    }

    fn wait_on(&mut self, i: usize, j: usize) {
        if self.waiter_bits.insert(i, j) {
            self.waiters[i].push(j as u16);
        }
    }

    /// Node `j` at `now` sees someone else waiting at `level` or above:
    /// returns the first such node in node order, if any.
    fn contender(&mut self, j: usize, now: Time, level: u16) -> Option<usize> {
        let horizon = now.saturating_sub(self.max_dist);
        let mut set = std::mem::take(&mut self.signalling);
        let found = set.find(|i| {
            if !self.signals(i, horizon) {
                return Visit::Drop;
            }
            let d = self.view.travel(i, j);
            if i != j && now >= d && self.ipr_at(i, now - d) >= level {
                return Visit::Stop;
            }
            Visit::Keep
        });
        self.signalling = set;
        found
    }

    /// May node `j` start a packet of `priority` now? (Asked only when its
    /// bypass FIFO lets an own packet in: its recovery is over.) A hold's
    /// wake is firm: nothing that holds the node can end before it without
    /// a wake of the node in the effects (`Rules::firm_holds`), so asking
    /// again before it about a packet of the same priority, after no packet
    /// of the node's has been sent, gets the same answer.
    pub fn may_start(&mut self, j: usize, now: Time, priority: u16, fx: &mut Effects) -> Permit {
        if !self.enabled {
            return Permit::Go;
        }
        let mine = self.level(priority);
        let mut wake: Option<Time> = None;
        let mut held_by = 0;
        // The repayment may end before it is repaid (at `wake`).
        let mut ends_early = false;
        // Its own debt, unless nobody else is waiting (the ipr condition).
        if let Some(until) = self.nodes[j].repay_until.filter(|_| self.rules.debts) {
            if now < until {
                match self.contender(j, now, self.nodes[j].sent_level) {
                    Some(i) => {
                        held_by |= HELD_BY_DEBT;
                        // Decide again when repaid, or when the waiting node
                        // is first seen with nothing waiting at the level, if
                        // that is sooner; a change it has yet to make wakes
                        // this node when seen.
                        let d = self.view.travel(i, j);
                        match self.first_lower_step(i, now - d, self.nodes[j].sent_level) {
                            Some(at) => {
                                ends_early = at + d < until;
                                wake = Some(until.min(at + d));
                            }
                            None => {
                                self.wait_on(i, j);
                                wake = Some(until);
                            }
                        }
                    }
                    None => self.end_repayment(j, now, fx),
                }
            } else {
                self.nodes[j].repay_until = None;
                self.repaid += 1;
            }
        }
        // Go bits withheld upstream, as the idles reaching it show them.
        // It waits on every node that holds it. (A node's stretches do not
        // overlap, so it sees at most one of each node's; neither the
        // latest release nor whom it waits on depends on the order the
        // stretches are looked at in.)
        let mut go_until: Time = 0;
        let (waiters, waiter_bits) = (&mut self.waiters, &mut self.waiter_bits);
        let go_bits = self.rules.go_bits;
        self.withheld.visit(now, now.saturating_sub(self.max_dist), &self.view, j, |c, d, left| {
            // Whether the stretch's idles are reaching `j` now: those
            // reaching it left their node `d` ago, at `left` (the stretch
            // had begun by then).
            let i = c.node as usize;
            if go_bits & (i != j) & (now >= d) & (left < c.to) & (c.level >= mine) {
                go_until = go_until.max(c.to + d);
                if waiter_bits.insert(i, j) {
                    waiters[i].push(j as u16);
                }
            }
        });
        // (A release is later than now: 0 means none.)
        if go_until != 0 {
            held_by |= HELD_BY_GO_BITS;
            // Decide again when both holds are over, or when the repayment
            // may end early if that is sooner: its converted idles stop
            // then, not when the go bits come back.
            wake = Some(match wake {
                None => go_until,
                Some(w) if ends_early => w.min(go_until),
                Some(w) => w.max(go_until),
            });
        }
        match wake {
            None => Permit::Go,
            Some(at) => {
                self.nodes[j].held_by = held_by;
                self.count_hold(j);
                // It waits with a packet: its idles say so.
                self.set_ipr(j, now, now, mine, fx);
                Permit::Hold { wake_at: Some(at) }
            }
        }
    }

    /// Counts a hold of node `j` by what held it (`Node::held_by`): one
    /// `may_start` gave, or one the fabric repeats without asking before its
    /// wake (`Rules::firm_holds`).
    pub fn count_hold(&mut self, j: usize) {
        let by = self.nodes[j].held_by;
        self.holds.debt += (by & HELD_BY_DEBT != 0) as u64;
        if by & HELD_BY_GO_BITS != 0 {
            self.holds.go += 1;
            self.go_holds_at[j] += 1;
        }
    }

    /// Node `j` started own packet `pk` at `now` (its debt: the packet and
    /// its separating idles); `next` is the priority of its next own packet.
    pub fn on_sent_packet(&mut self, j: usize, now: Time, pk: &Packet, next: Option<u16>, fx: &mut Effects) {
        self.on_sent(j, now, pk.eff, pk.len as u32 + self.separator, next, fx);
    }

    /// What it counted, for the protocol's report.
    pub fn counters(&self) -> ProtoCounters {
        ProtoCounters { go_bit_holds: self.holds.go, debt_holds: self.holds.debt, debts_repaid: self.repaid, debts_forgiven: self.forgiven, ..Default::default() }
    }

    /// Node `j` started an own packet of `symbols` (with its separator) at
    /// `now`; `next` is the priority of its next own packet, if any.
    pub fn on_sent(&mut self, j: usize, now: Time, priority: u16, symbols: u32, next: Option<u16>, fx: &mut Effects) {
        if !self.enabled {
            return;
        }
        let slot = symbols as Time * self.cycle;
        if !self.rules.debts {
            // Sending before its debt is repaid (only where debts hold
            // nobody): it converts no more idles from now on.
            if let Some(last) = self.withheld.latest_mut(j).filter(|last| last.to > now) {
                last.to = now;
                // Those it held see their go bits again as the last converted idle passes.
                self.wake_waiters(j, now, fx);
            }
        }
        self.nodes[j].debt = slot;
        self.nodes[j].sent_level = self.level(priority);
        self.nodes[j].repay_until = None;
        // The idles after the packet carry what it waits with next.
        let level = next.map_or(0, |q| self.level(q));
        self.set_ipr(j, now, now + slot, level, fx);
    }

    /// Node `j`'s bypass FIFO is empty after its own packet: it repays its
    /// debt if someone else waits, otherwise owes nothing.
    pub fn on_recovered(&mut self, j: usize, now: Time) {
        if !self.enabled || self.nodes[j].debt == 0 {
            return;
        }
        let debt = std::mem::take(&mut self.nodes[j].debt);
        let level = self.nodes[j].sent_level;
        if self.contender(j, now, level).is_none() {
            self.forgiven += 1;
            return;
        }
        self.nodes[j].repay_until = Some(now + debt);
        self.prune(j, now);
        self.withheld.push(j, self.view.offset(j), now, now + debt, level);
    }

    /// Node `j` passes on a packet of `symbols` (not counting its idles):
    /// during a repayment the packet is not an idle to convert.
    #[inline]
    pub fn on_pass(&mut self, j: usize, now: Time, symbols: u32) {
        if let Some(until) = self.nodes[j].repay_until {
            if now < until {
                let until = until + symbols as Time * self.cycle;
                self.nodes[j].repay_until = Some(until);
                if let Some(last) = self.withheld.latest_mut(j) {
                    last.to = until;
                }
            }
        }
    }

    /// Node `j` waits with an own packet of `priority` behind bypass traffic.
    pub fn on_blocked(&mut self, j: usize, now: Time, priority: u16, fx: &mut Effects) {
        if self.enabled {
            let level = self.level(priority);
            self.set_ipr(j, now, now, level, fx);
        }
    }

    /// Node `j`'s repayment ends now: nobody else waits.
    fn end_repayment(&mut self, j: usize, now: Time, fx: &mut Effects) {
        self.nodes[j].repay_until = None;
        self.forgiven += 1;
        if let Some(last) = self.withheld.latest_mut(j) {
            if last.to > now {
                last.to = now;
            }
        }
        self.wake_waiters(j, now, fx);
    }
}

#[cfg(test)]
mod tests;
