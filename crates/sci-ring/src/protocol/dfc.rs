//! Directed Flow Control (seed 003 section 3).
//!
//! Flow control only where it is needed, announced by 32-bit control
//! symbols that circulate the ring once and are removed by their sender.
//! Every node keeps what the symbols told it about every other node.
//!
//! **STOP-THRU** (output inversion, section 3.1). A node whose own packet
//! is held back by bypass traffic announces that packet's priority. A node
//! that has seen the announcement holds any packet that would *pass through*
//! the congested node (strictly between source and target) unless its
//! priority is at least the announced one; packets that do not pass it go
//! freely. After the congested node has sent, it lifts the restriction, or
//! changes the priority to its next packet's if bypass traffic still holds
//! that one.
//!
//! **STOP-TO** (input inversion, section 3.2). An input queue reaching its
//! high-water mark blocks all senders with an initial symbol that grants
//! nobody and collects the highest priority waiting for it. Each time a slot
//! frees, a symbol grants one packet to the node that held the highest
//! priority seen by the previous symbol, and collects again. At the
//! low-water mark a final symbol releases everybody. Blocking is per input
//! queue: requests and responses have their own (the symbol says which).
//! Nodes here are positions on one ringlet; a packet's target is the
//! position of the interface that strips it there.
//!
//! DFC replaces base SCI's go bits and A/B reservation: a packet that still
//! finds a full queue (sent before its source saw the block) is busied and
//! retried, held by STOP-TO from then on.
//!
//! **Beyond the seed**: `dfc.bandwidth_allocation = "ieee"` runs base SCI's
//! bandwidth allocation (recovery debt, go bits, idle priority) under DFC,
//! within priority levels as PPQ does, to see whether the two combine: DFC
//! alone has nothing that keeps a single-priority sender served.

use super::bandwidth::Bandwidth;
use super::{run_as, Registered};
use ringlet_fabric::family::{Mode, Outcome};
use ringlet_fabric::topology::Topology;
use ringlet_engine::Time;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, PacketKind, Slab};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, Effects, Payloads, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_scenario::schema::{Default, Kind, Param};
use ringlet_scenario::Scenario;

/// The keys of `[dfc]`.
const PARAMS: &[Param] = &[
    Param { section: "dfc", key: "control_symbols", kind: Kind::Int { min: 1, max: 64 }, default: Default::Int(2),
        doc: "Length of a control symbol in 16-bit ring symbols (seed: 32 bits)." },
    Param { section: "dfc", key: "stop_thru_after_packets", kind: Kind::Int { min: 1, max: 1000 }, default: Default::Int(1),
        doc: "A node is congested (sends STOP-THRU) once its own packet has waited behind this many bypass packets in a row: the packet-level reading of \"insufficient free space in the bypass queue\". Above 1 the ring can stop at saturation (a circle of STOP-THRU and STOP-TO waits: docs/model-rt.md)." },
    Param { section: "dfc", key: "stop_to_high", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("the input queue size (full)"),
        doc: "STOP-TO high-water mark: input queue occupancy, packets, at which a node enters arbitration mode. 0 = derived." },
    Param { section: "dfc", key: "stop_to_low", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(2),
        doc: "STOP-TO low-water mark: occupancy, packets, at which a blocked node releases all senders." },
    Param { section: "dfc", key: "stop_to_ties", kind: Kind::Choice(&["first", "round_robin"]), default: Default::Str("first"),
        doc: "Which of several waiters of the same highest priority a collecting STOP-TO symbol reports (the seed does not say): `first` = the first it meets on its way round from the blocked node; `round_robin` (beyond the seed) = the first after the node the symbol grants, so equal waiters take turns." },
    Param { section: "dfc", key: "bandwidth_allocation", kind: Kind::Choice(&["none", "ieee"]), default: Default::Str("none"),
        doc: "Beyond the seed: `ieee` runs base SCI's bandwidth allocation (transmission recovery debt, go bits, idle priority; within priority levels, as PPQ) under DFC's control symbols; `none` = the seed's DFC, which replaces the go bits." },
];

/// DFC's settings, read from `[dfc]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub control_symbols: u32,
    pub stop_thru_after_packets: u32,
    /// 0 = derived (the input queue size).
    pub stop_to_high: u32,
    pub stop_to_low: u32,
    /// Base SCI's bandwidth allocation underneath (beyond the seed).
    pub bandwidth_allocation: bool,
    /// STOP-TO's ties taken in turns (beyond the seed), not by the first met.
    pub round_robin_ties: bool,
}

impl Settings {
    pub fn of(s: &Scenario) -> Settings {
        let k = s.section(<Dfc>::NAME);
        Settings {
            control_symbols: k.int("control_symbols") as u32,
            stop_thru_after_packets: k.int("stop_thru_after_packets") as u32,
            stop_to_high: k.int("stop_to_high") as u32,
            stop_to_low: k.int("stop_to_low") as u32,
            bandwidth_allocation: k.str("bandwidth_allocation") == "ieee",
            round_robin_ties: k.str("stop_to_ties") == "round_robin",
        }
    }
}

/// What one control symbol carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// STOP-THRU from the sender: 0 lifts it, else 1 + the announced priority.
    StopThru { level: u16 },
    /// STOP-TO for the sender's input queue `side`.
    StopTo { side: u8, grant: Grant, best: Option<(u16, u16)> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// Enter arbitration mode; grant nobody (collects).
    Initial,
    /// One packet to this node, or to nobody (`None`; still collects).
    One(Option<u16>),
    /// Leave arbitration mode: everybody may send again.
    Release,
}

/// A congested input queue's side of STOP-TO.
#[derive(Clone, Copy, Debug, Default)]
struct Arbitration {
    blocked: bool,
    /// Highest waiting (node, priority) reported by the last returned symbol.
    best: Option<(u16, u16)>,
    /// Freed slots not granted yet.
    ungranted: u32,
    /// A collecting symbol is on its way round.
    collecting: bool,
}

/// DFC on one ringlet; `BANDWIDTH`: base SCI's bandwidth allocation
/// underneath (`dfc.bandwidth_allocation`), a type of its own so that the
/// seed's DFC pays nothing for it.
pub struct Dfc<const BANDWIDTH: bool = false> {
    view: RingletView,
    n: usize,
    symbol_len: u16,
    high: [u32; 2],
    low: u32,
    /// Control symbols in flight, by the packet's tag.
    symbols: Payloads<Symbol>,
    /// `thru[j * n + i]`: what node `j` last saw of node `i`'s STOP-THRU.
    thru: Vec<u16>,
    /// Number of non-zero STOP-THRU entries node `j` sees (fast path).
    thru_seen: Vec<u32>,
    /// `blocked[(j * n + i) * 2 + side]`: node `j` saw node `i`'s input queue `side` blocked.
    blocked: Vec<bool>,
    /// `grants[(j * n + i) * 2 + side]`: packets node `j` may still send to a blocked `i`.
    grants: Vec<u16>,
    /// Each node's own announced STOP-THRU level.
    announced: Vec<u16>,
    /// Bypass packets each node's own packet has waited behind since it last sent.
    waits: Vec<u32>,
    thru_after: u32,
    round_robin_ties: bool,
    arb: Vec<[Arbitration; 2]>,
    /// Occupancy of each input queue at the last change (tells removals from arrivals).
    occupied: Vec<[u32; 2]>,
    /// Bumped whenever what node `j` knows or announced changes (everything
    /// `may_send` reads besides the packet).
    epoch: Vec<u64>,
    /// Base SCI's bandwidth allocation (used with `BANDWIDTH` only).
    bandwidth: Bandwidth,
    counters: ProtoCounters,
}

impl<const BANDWIDTH: bool> Dfc<BANDWIDTH> {
    /// The high-water mark per input side (responder, requestor).
    fn water_marks(p: &Params, s: &Settings) -> Result<[u32; 2], String> {
        let derive = |cap: u32| if s.stop_to_high == 0 { cap } else { s.stop_to_high };
        let (responder, requestor) = (p.input_queue[0], p.input_queue[1]);
        let high = [derive(responder), derive(requestor)];
        let smallest = responder.min(requestor);
        if s.stop_to_high > smallest {
            return Err(format!(
                "dfc.stop_to_high: expected at most the input queue size ({smallest}), got {}",
                s.stop_to_high
            ));
        }
        if s.stop_to_low >= high[0].min(high[1]) {
            return Err(format!(
                "dfc.stop_to_low: expected less than the high-water mark ({}), got {}",
                high[0].min(high[1]),
                s.stop_to_low
            ));
        }
        Ok(high)
    }

    pub fn new(view: &RingletView, p: &Params, s: &Settings) -> Result<Self, String> {
        let n = view.len();
        let high = Self::water_marks(p, s)?;
        Ok(Dfc {
            view: view.clone(),
            n,
            symbol_len: s.control_symbols as u16,
            high,
            low: s.stop_to_low,
            symbols: Payloads::new(),
            thru: vec![0; n * n],
            thru_seen: vec![0; n],
            blocked: vec![false; n * n * 2],
            grants: vec![0; n * n * 2],
            announced: vec![0; n],
            waits: vec![0; n],
            thru_after: s.stop_thru_after_packets,
            round_robin_ties: s.round_robin_ties,
            arb: vec![[Arbitration::default(); 2]; n],
            occupied: vec![[0; 2]; n],
            epoch: vec![0; n],
            bandwidth: Bandwidth::new(view, p, BANDWIDTH, true),
            counters: ProtoCounters::default(),
        })
    }

    fn send(&mut self, node: usize, sym: Symbol, fx: &mut Effects) {
        let tag = self.symbols.put(sym);
        self.counters.control_symbols += 1;
        fx.controls.push((node as u16, self.symbol_len, tag, 0));
    }

    /// Announces `level` (0 = lift) if it differs from what `node` announced.
    fn announce(&mut self, node: usize, level: u16, fx: &mut Effects) {
        if self.announced[node] != level {
            self.announced[node] = level;
            self.epoch[node] += 1;
            self.send(node, Symbol::StopThru { level }, fx);
        }
    }

    /// Whether `j`'s packet to `dst` of priority `prio` passes a node whose
    /// STOP-THRU (as `j` saw it) holds it.
    fn thru_holds(&self, j: usize, dst: usize, prio: u16) -> bool {
        // A congested node itself is not held (as a blocked SCI node keeps
        // its go bit): two congested nodes must not wait on each other.
        if self.thru_seen[j] == 0 || self.announced[j] != 0 {
            return false;
        }
        let mut i = self.view.downstream(j);
        while i != dst {
            let level = self.thru[j * self.n + i];
            // level = 1 + announced priority: held if below it (equal passes).
            if level > 0 && prio + 1 < level {
                return true;
            }
            i = self.view.downstream(i);
        }
        false
    }

    #[inline]
    fn slot(&self, j: usize, i: usize, side: usize) -> usize {
        (j * self.n + i) * 2 + side
    }

    /// What node `j` saw: is node `i`'s input queue `side` blocked, and how many grants does `j` hold?
    pub fn stop_to_seen(&self, j: usize, i: usize, side: usize) -> (bool, u16) {
        let k = self.slot(j, i, side);
        (self.blocked[k], self.grants[k])
    }

    /// What control symbol `tag` carries now.
    pub fn symbol(&self, tag: u32) -> Symbol {
        self.symbols.get(tag)
    }

    /// What node `j` saw of node `i`'s STOP-THRU (0 = none, else 1 + priority).
    pub fn stop_thru_seen(&self, j: usize, i: usize) -> u16 {
        self.thru[j * self.n + i]
    }

    /// Whether node `j` takes a tie of priorities from `held`, the node a
    /// collecting symbol of `origin` carrying `grant` reports so far. `first`:
    /// never (the first met keeps it); `round_robin`: if `j` comes sooner
    /// after the node granted (the blocked node itself for a grant to nobody).
    fn wins_tie(&self, j: usize, held: usize, origin: usize, grant: Grant) -> bool {
        if !self.round_robin_ties {
            return false;
        }
        let after = match grant {
            Grant::One(Some(g)) => g as usize,
            _ => origin,
        };
        let turn = |x: usize| (self.view.distance(after, x) + self.n - 1) % self.n;
        turn(j) < turn(held)
    }

    /// Highest-priority own packet of `n` for the input queue of `class` of
    /// node `target`, passing over the first `skip` (those already granted).
    fn waiting_for(&self, n: &Iface, slab: &Slab, target: usize, class: usize, skip: usize) -> Option<u16> {
        let q = &n.output(class as u8).to_send;
        q.iter().map(|&id| slab.get(id)).filter(|pk| self.view.pos(pk.to) == target).nth(skip).map(|pk| pk.eff)
    }
}

impl<const BANDWIDTH: bool> Registered for Dfc<BANDWIDTH> {
    const NAME: &'static str = "dfc";
    const DOC: &'static str = "Directed Flow Control (seed 003 section 3): circulating STOP-THRU and STOP-TO control symbols hold only the senders that congest a node.";
    const PARAMS: &'static [Param] = PARAMS;

    /// The STOP-TO water marks against the input queues (`new` checks them too).
    fn check(_view: &RingletView, p: &Params, s: &Scenario) -> Result<(), String> {
        Self::water_marks(p, &Settings::of(s)).map(|_| ())
    }

    fn build(view: &RingletView, p: &Params, s: &Scenario) -> Result<Self, String> {
        Dfc::new(view, p, &Settings::of(s))
    }

    fn run(s: &Scenario, t: Topology, p: Params, mode: Mode<'_>) -> Result<Outcome, String> {
        if Settings::of(s).bandwidth_allocation {
            run_as::<Dfc<true>>(s, t, p, mode)
        } else {
            run_as::<Dfc<false>>(s, t, p, mode)
        }
    }
}

impl<const BANDWIDTH: bool> RingProtocol for Dfc<BANDWIDTH> {
    /// Transmission recovery is followed for the optional bandwidth allocation.
    const RULES: Rules = Rules { priority_queues: true, recovery: BANDWIDTH, host_preempts: true, ..Rules::IEEE };

    #[inline(always)]
    fn may_send(&mut self, node: usize, now: Time, _id: u32, pk: &Packet, fx: &mut Effects) -> Permit {
        let dst = self.view.pos(pk.to);
        let k = self.slot(node, dst, pk.class as usize);
        if (self.blocked[k] && self.grants[k] == 0) || self.thru_holds(node, dst, pk.eff) {
            self.counters.flow_holds += 1;
            return Permit::Skip;
        }
        if BANDWIDTH {
            return self.bandwidth.may_start(node, now, pk.eff, fx);
        }
        Permit::Go
    }

    /// Go bits and debts change with time, not with what the symbols say:
    /// with the bandwidth allocation every decision asks again.
    fn permit_epoch(&self, node: usize) -> Option<u64> {
        (!BANDWIDTH).then(|| self.epoch[node])
    }

    fn skipped_again(&mut self, _node: usize, skips: u64) {
        self.counters.flow_holds += skips;
    }

    fn on_sent(&mut self, node: usize, now: Time, _id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects) {
        if BANDWIDTH {
            self.bandwidth.on_sent_packet(node, now, pk, next_own, fx);
        }
        self.waits[node] = 0;
        let k = self.slot(node, self.view.pos(pk.to), pk.class as usize);
        if self.blocked[k] && self.grants[k] > 0 {
            self.grants[k] -= 1;
            self.epoch[node] += 1;
        }
        if self.announced[node] != 0 {
            // Lift the restriction, or change it to the next packet's priority (section 3.1).
            self.announce(node, next_own.map_or(0, |q| q + 1), fx);
        }
    }

    fn on_recovered(&mut self, node: usize, now: Time, _fx: &mut Effects) {
        if BANDWIDTH {
            self.bandwidth.on_recovered(node, now);
        }
    }

    #[inline]
    fn on_pass(&mut self, node: usize, now: Time, symbols: u16) {
        if BANDWIDTH {
            self.bandwidth.on_pass(node, now, symbols as u32);
        }
    }

    fn on_blocked(&mut self, node: usize, now: Time, waiting: u16, fx: &mut Effects) -> bool {
        if BANDWIDTH {
            self.bandwidth.on_blocked(node, now, waiting, fx);
        }
        // "Insufficient free space": the own packet has waited behind this
        // many bypass packets in a row (one short wait is the ordinary
        // register-insertion delay, not congestion).
        self.waits[node] += 1;
        if self.waits[node] < self.thru_after {
            return true;
        }
        self.announce(node, waiting + 1, fx);
        // Announced; only sending (on_sent) or another waiting priority changes that.
        false
    }

    fn admit(&mut self, _node: usize, _now: Time, _class: usize, _id: u32, _pk: &Packet, q: QueueView) -> Admission {
        Admission::if_room(q.free())
    }

    #[inline(always)]
    fn on_input_change(&mut self, node: usize, side: usize, q: QueueView, _now: Time, fx: &mut Effects) {
        let freed = q.occupied < self.occupied[node][side];
        self.occupied[node][side] = q.occupied;
        let a = self.arb[node][side];
        if !a.blocked {
            if q.occupied >= self.high[side] {
                self.arb[node][side] = Arbitration { blocked: true, best: None, ungranted: 0, collecting: true };
                self.send(node, Symbol::StopTo { side: side as u8, grant: Grant::Initial, best: None }, fx);
            }
            return;
        }
        // Only a removal frees a slot; an arrival (a granted packet) needs nothing.
        if freed && q.occupied <= self.low {
            self.arb[node][side] = Arbitration::default();
            self.send(node, Symbol::StopTo { side: side as u8, grant: Grant::Release, best: None }, fx);
        } else if freed {
            let a = &mut self.arb[node][side];
            a.ungranted += 1;
            if let Some((g, _)) = a.best.take() {
                a.ungranted -= 1;
                a.collecting = true;
                self.send(node, Symbol::StopTo { side: side as u8, grant: Grant::One(Some(g)), best: None }, fx);
            } else if !a.collecting {
                a.collecting = true;
                self.send(node, Symbol::StopTo { side: side as u8, grant: Grant::One(None), best: None }, fx);
            }
        }
    }

    fn on_control(&mut self, node: usize, now: Time, pk: &mut Packet, n: &Iface, slab: &Slab, fx: &mut Effects) -> bool {
        debug_assert_eq!(pk.kind, PacketKind::Control);
        let origin = self.view.pos(pk.from);
        let tag = pk.tag;
        let sym = self.symbols.get(tag);
        if node == origin {
            // Back home: removed by its sender. A collecting STOP-TO reports the best waiter.
            self.symbols.release(tag);
            if let Symbol::StopTo { side, grant, best } = sym {
                let side = side as usize;
                let a = &mut self.arb[node][side];
                if a.blocked && grant != Grant::Release {
                    a.collecting = false;
                    a.best = best;
                    if a.ungranted > 0 {
                        if let Some((g, _)) = a.best.take() {
                            a.ungranted -= 1;
                            a.collecting = true;
                            self.send(node, Symbol::StopTo { side: side as u8, grant: Grant::One(Some(g)), best: None }, fx);
                        }
                    }
                }
            }
            return false;
        }
        let j = node;
        match sym {
            Symbol::StopThru { level } => {
                let k = j * self.n + origin;
                let before = self.thru[k];
                self.epoch[j] += (before != level) as u64;
                if (before == 0) != (level == 0) {
                    if level == 0 {
                        self.thru_seen[j] -= 1;
                    } else {
                        self.thru_seen[j] += 1;
                    }
                }
                self.thru[k] = level;
                if level == 0 || level < before {
                    fx.wakes.push((j as u16, now));
                }
            }
            Symbol::StopTo { side, grant, best } => {
                let s = side as usize;
                let k = self.slot(j, origin, s);
                let seen = (self.blocked[k], self.grants[k]);
                match grant {
                    Grant::Release => {
                        self.blocked[k] = false;
                        self.grants[k] = 0;
                        fx.wakes.push((j as u16, now));
                    }
                    Grant::Initial | Grant::One(_) => {
                        self.blocked[k] = true;
                        if grant == Grant::One(Some(j as u16)) {
                            self.grants[k] += 1;
                            fx.wakes.push((j as u16, now));
                        }
                        // Collect: does this node hold a higher-priority packet for the
                        // blocked queue (beyond those its grants already cover)?
                        if let Some(prio) = self.waiting_for(n, slab, origin, s, self.grants[k] as usize) {
                            if best.is_none_or(|(b_node, b)| prio > b || (prio == b && self.wins_tie(j, b_node as usize, origin, grant))) {
                                self.symbols.set(tag, Symbol::StopTo { side, grant, best: Some((j as u16, prio)) });
                            }
                        }
                    }
                }
                self.epoch[j] += (seen != (self.blocked[k], self.grants[k])) as u64;
            }
        }
        true
    }

    fn counters(&self) -> ProtoCounters {
        let b = self.bandwidth.counters();
        ProtoCounters { go_bit_holds: b.go_bit_holds, debt_holds: b.debt_holds, debts_repaid: b.debts_repaid, debts_forgiven: b.debts_forgiven, ..self.counters }
    }

    fn go_bit_holds_at(&self, at: usize) -> u64 {
        self.bandwidth.go_holds_at[at]
    }
}
