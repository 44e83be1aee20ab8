//! One ring interface: an agent's port on one ringlet. Its ring side is the
//! bypass FIFO in front of its output link and the state of that link; its
//! client side is an output queue and an input queue per traffic class.

use crate::bypass::{BypassFifo, Entry, Occupancy};
use crate::client::{InputQueue, OutputQueue};
use crate::packet::{PacketKind, Slab};
use crate::params::{Params, MAX_CLASSES};
use crate::topology::{AgentId, IfaceId, RingletId, Topology};
use ringlet_engine::Time;
use std::cell::Cell;
use std::collections::VecDeque;

/// Whether bypass entry `(id, ready)` is in the FIFO by `now`: it is ready,
/// or it is a control packet (one enters a bypass FIFO only when a node puts
/// it there, so it is in even while held: `RingProtocol::control_hold`).
#[inline]
pub fn in_fifo(slab: &Slab, &(id, ready): &Entry, now: Time) -> bool {
    ready <= now || slab.get(id).kind == PacketKind::Control
}

/// No output decision is pending.
pub const NO_DECISION: Time = Time::MAX;

/// One ring interface's state.
///
/// Laid out by hand (`repr(C)`), each interface starting on a cache line
/// of its own: a network of thousands of interfaces keeps few of them in
/// cache, so each line an event touches is a miss, and the compiler's
/// order scattered the fields every hop looks at over both ends of the
/// structure. The link, the bypass FIFO and the own packets' counts fill
/// the first line; the interface's place, its flags, the hops and the
/// generated packets the second; what an own packet's decision reads next
/// the third. The queues of the classes in use follow (the rest of the
/// classes' are never touched), each input queue with its server's timing.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Iface {
    /// The output link is busy (packet symbols and separator idles) until then.
    pub out_free_at: Time,
    /// Time of the pending output decision (`OutputFree` event), or
    /// `NO_DECISION`. Packets arriving at that instant wait for it, so an own
    /// packet can take the idle slot (register insertion wins ties).
    pub decision_at: Time,
    /// Packets in (or on their way into) the bypass FIFO, in arrival order,
    /// with the time each can leave (head arrival + bypass delay). Entries
    /// with a time still in the future have not arrived yet.
    pub bypass: BypassFifo,
    /// Changes so far to the own packets waiting to be sent, and how many wait.
    own_changes: u64,
    own_len: u32,
    /// Where the output link leads (`hop`, `strip_hop`: how long a head takes to get there).
    pub next: IfaceId,
    pub ringlet: RingletId,
    /// Position on the ringlet: what the ringlet's protocol instance calls it.
    pub pos: u16,
    pub agent: AgentId,
    /// It carries traffic: false for a ringlet retired by a reconfiguration
    /// (a GigaRing folded around a failure), or one waiting to be activated.
    pub live: bool,
    /// In transmission recovery: an own packet was started and the bypass
    /// FIFO has not been empty since (kept with `Rules::recovery` only).
    pub recovering: bool,
    /// The input queues' servers are pipelines: a packet's service may
    /// start `spacing` after the previous one's (see `topology::PortSpec::spacing`).
    pub pipelined: bool,
    /// The input queues' servers are the agent's one client port (`topology::PortSpec::shared_server`).
    pub shared_server: bool,
    /// The agent passes packets between its interfaces over a bus (`topology::Agent::bus`).
    pub on_bus: bool,
    /// How long a head takes from the output to the next interface and
    /// through: out of its bypass FIFO for a packet passing it, decoded
    /// there for one it strips.
    pub hop: Time,
    pub strip_hop: Time,
    /// Packets this interface puts into the stream itself, not in place of a
    /// stripped one (control packets, echoes sent on service or eviction),
    /// waiting for room in the bypass FIFO, first first.
    pub generated: VecDeque<u32>,
    /// Entries in the bypass FIFO that add to the stream rather than pass
    /// along it (generated packets, a train this node made longer): the
    /// node's own packet waits until they have left, as the FIFO could not
    /// hold them and what arrives while it sends.
    pub inserted: Vec<u32>,
    /// `first_own()` as of an `own_changes()` count.
    first_own_cache: Cell<(u64, Option<u32>)>,
    /// The protocol asked not to hear of this interface's own packet being
    /// blocked again until `own_changes()` differs from this count.
    pub blocked_quiet: Option<u64>,
    /// The send path: a packet the agent queues here arrives this long later
    /// (`topology::PortSpec::send_delay`).
    pub send_delay: Time,
    /// The protocol skipped every own packet when last asked: its permit
    /// epoch then, `own_changes()` then, and how many packets it skipped
    /// (see `RingProtocol::permit_epoch`).
    pub all_skipped: Option<(u64, u64, u32)>,
    /// With `Rules::firm_holds`: the protocol holds own packets of
    /// effective priority `held_eff` until then, unless it wakes the
    /// interface first (see `Rules::firm_holds`).
    pub held_until: Time,
    pub held_eff: u16,
    /// The latest time a hold's wake was scheduled for (an `OutputFree`
    /// event at it is pending while it lies ahead): a repeated hold asks for none.
    pub wake_queued: Time,
    classes: usize,
    /// With `Classes::round_robin`: where in `order` the next look starts
    /// (past the class of the last own packet taken).
    turn: usize,
    /// The classes in use, in precedence order (the first `classes` entries).
    order: [u8; MAX_CLASSES],
    round_robin: bool,
    /// The most the bypass FIFO has held (see [`Occupancy`]).
    pub occupancy: Occupancy,
    outputs: [OutputQueue; MAX_CLASSES],
    inputs: [InputQueue; MAX_CLASSES],
}

/// The queue slot of `class`. Classes are below `MAX_CLASSES`, a power of
/// two, so the mask changes nothing but spares a bounds check on every
/// queue access (a few per hop).
#[inline(always)]
fn slot(class: usize) -> usize {
    const { assert!(MAX_CLASSES.is_power_of_two()) };
    debug_assert!(class < MAX_CLASSES, "class {class}");
    class & (MAX_CLASSES - 1)
}

impl Iface {
    /// Interface `i` of `topology`, its queues with `levels` priority levels
    /// (1 = FIFO) and `ewq` echo-waiting slots beyond each output queue.
    pub fn new(topology: &Topology, i: IfaceId, p: &Params, levels: usize, ewq: u32) -> Self {
        let mut order = [0u8; MAX_CLASSES];
        order[..p.classes.len()].copy_from_slice(&p.classes.precedence);
        let own = topology.agent(topology.agent_of(i)).ports;
        let input_queue = own.input_queue.unwrap_or(p.input_queue);
        let output_queue = own.output_queue.unwrap_or(p.output_queue);
        let (iqst, spacing) = (own.iqst.unwrap_or(p.iqst), own.spacing.unwrap_or([0; MAX_CLASSES]));
        Iface {
            bypass: BypassFifo::with_capacity(16),
            occupancy: Occupancy::default(),
            out_free_at: 0,
            decision_at: NO_DECISION,
            next: topology.next(i),
            hop: topology.hop(i),
            strip_hop: topology.strip_hop(i),
            pipelined: own.spacing.is_some(),
            send_delay: own.send_delay,
            shared_server: own.shared_server,
            on_bus: topology.agent(topology.agent_of(i)).bus.is_some(),
            ringlet: topology.ringlet_of(i),
            live: true,
            pos: topology.position(i),
            agent: topology.agent_of(i),
            outputs: std::array::from_fn(|_| OutputQueue::new(output_queue, ewq, levels)),
            inputs: std::array::from_fn(|c| InputQueue::new(input_queue[c], levels, iqst[c], spacing[c])),
            order,
            classes: p.classes.len(),
            turn: 0,
            round_robin: p.classes.round_robin,
            own_len: 0,
            own_changes: 0,
            all_skipped: None,
            held_until: 0,
            held_eff: 0,
            wake_queued: 0,
            blocked_quiet: None,
            first_own_cache: Cell::new((u64::MAX, None)),
            recovering: false,
            generated: VecDeque::new(),
            inserted: Vec::new(),
        }
    }

    /// Symbol times the bypass FIFO is committed to: until the output link
    /// is free (the own packet or the entry it is sending, separator
    /// included), then every entry that has arrived (or, a control packet,
    /// been put in) with its separator idles. While the FIFO forwards what
    /// it holds, up to a symbol can arrive in each of those symbol times,
    /// and no more, so what a node inserts must fit in the FIFO's size on
    /// top of them; arrivals after that bring their own separators.
    pub fn bypass_committed(&self, slab: &Slab, p: &Params, now: Time) -> u32 {
        let arrived = self.bypass.iter().filter(|e| in_fifo(slab, e, now)).map(|&(id, _)| p.slot_of(slab.get(id))).sum::<Time>();
        (arrived + self.out_free_at.saturating_sub(now)).div_ceil(p.cycle) as u32
    }

    /// Which protocol instance it answers to and what that calls it: its
    /// ringlet and its position there.
    #[inline(always)]
    pub fn place(&self) -> (usize, usize) {
        (self.ringlet as usize, self.pos as usize)
    }

    /// The output queue of `class`. Its packets to send change only
    /// through this interface's methods, which keep count of them.
    #[inline]
    pub fn output(&self, class: u8) -> &OutputQueue {
        &self.outputs[slot(class as usize)]
    }

    /// The service time of the input queue of `class`.
    #[inline(always)]
    pub fn service_time(&self, class: usize) -> Time {
        self.inputs[slot(class)].service_time
    }

    /// The least time between the starts of two services of the input
    /// queue of `class`, where its server is a pipeline.
    #[inline(always)]
    pub fn spacing(&self, class: usize) -> Time {
        self.inputs[slot(class)].spacing
    }

    /// The input queue of `class`.
    #[inline(always)]
    pub fn input(&self, class: usize) -> &InputQueue {
        &self.inputs[slot(class)]
    }

    #[inline(always)]
    pub fn input_mut(&mut self, class: usize) -> &mut InputQueue {
        &mut self.inputs[slot(class)]
    }

    /// Takes own packet `id` of `class`, not yet sent, out of its output
    /// queue (`Rules::host_preempts`: it goes back to the application queue).
    ///
    /// [`Rules::host_preempts`]: crate::protocol::Rules::host_preempts
    pub fn unqueue_own(&mut self, class: u8, id: u32) {
        let taken = self.outputs[slot(class as usize)].to_send.remove_first(|&x| x == id);
        debug_assert_eq!(taken, Some(id));
        self.own_len -= 1;
        self.own_changes += 1;
    }

    /// Queues own packet `id` of `class` behind everything of its priority.
    #[inline]
    pub fn push_own(&mut self, class: u8, priority: u16, id: u32) {
        self.outputs[slot(class as usize)].to_send.push(priority, id);
        self.own_len += 1;
        self.own_changes += 1;
    }

    /// Busied packet `id` of `class` no longer awaits its echo: it goes
    /// again, ahead of the packets of its priority not yet sent but behind
    /// those busied before it that wait to go again (`retried`), so that
    /// every busied packet keeps its turn. (Put first of all, a packet
    /// busied again and again would keep an earlier one from ever being
    /// resent: with A/B, one holding the reservation the queue waits for.)
    #[inline]
    pub fn retry(&mut self, class: u8, priority: u16, id: u32, retried: impl Fn(u32) -> bool) {
        self.echoed(class, id);
        self.outputs[slot(class as usize)].to_send.push_front_behind(priority, id, |&x| retried(x));
        self.own_len += 1;
        self.own_changes += 1;
    }

    /// Takes own packet `id` of `class` out to be sent; it then awaits its echo.
    #[inline(always)]
    pub fn take_own(&mut self, id: u32, class: u8) {
        if self.round_robin {
            let k = self.order[..self.classes].iter().position(|&c| c == class).expect("a class in use");
            self.turn = (k + 1) % self.classes;
        }
        let q = &mut self.outputs[slot(class as usize)];
        let taken = if q.to_send.peek() == Some(&id) { q.to_send.pop() } else { q.to_send.remove_first(|&x| x == id) };
        debug_assert_eq!(taken, Some(id));
        q.awaiting.push(id);
        self.own_len -= 1;
        self.own_changes += 1;
    }

    /// The echo for `id` of `class` came back: it no longer waits.
    #[inline]
    pub fn echoed(&mut self, class: u8, id: u32) {
        self.outputs[slot(class as usize)].echoed(id);
    }

    /// Holds a slot of `class`'s output queue for a packet on its way in
    /// (across the agent's bus, or down its send path).
    pub fn hold_incoming(&mut self, class: u8) {
        self.outputs[slot(class as usize)].incoming += 1;
    }

    /// The packet a slot was held for has come in: own packet `id` of
    /// `class` takes the slot, queued behind everything of its priority.
    pub fn incoming_arrived(&mut self, class: u8, priority: u16, id: u32) {
        self.outputs[slot(class as usize)].incoming -= 1;
        self.push_own(class, priority, id);
    }

    /// Empties `class`'s output queue (a reconfiguration retires the
    /// interface): its sent packets awaiting echoes, and those to send in order.
    pub fn drain_output(&mut self, class: u8) -> (Vec<u32>, Vec<u32>) {
        let q = &mut self.outputs[slot(class as usize)];
        let awaiting = std::mem::take(&mut q.awaiting);
        let mut to_send = Vec::with_capacity(q.to_send.len());
        while let Some(id) = q.to_send.pop() {
            to_send.push(id);
        }
        q.incoming = 0;
        self.own_len -= to_send.len() as u32;
        self.own_changes += 1;
        (awaiting, to_send)
    }

    /// Servers waiting for room in `class`'s output queue.
    pub fn waiters(&mut self, class: u8) -> &mut Vec<(u16, u8, u16)> {
        &mut self.outputs[slot(class as usize)].waiters
    }

    /// Changes so far to the own packets waiting to be sent.
    #[inline]
    pub fn own_changes(&self) -> u64 {
        self.own_changes
    }

    #[inline]
    pub fn has_own(&self) -> bool {
        self.own_len != 0
    }

    /// Whether anything here waits for the output link to free: a passing
    /// packet, an own or generated one, or (where the protocol recovers) a
    /// transmission recovery.
    #[inline(always)]
    pub fn waits_for_link(&self, recovery: bool) -> bool {
        !self.bypass.is_empty() || self.has_own() || !self.generated.is_empty() || (recovery && self.recovering)
    }

    /// What waits for the link are own packets only, and the protocol holds
    /// them firmly past `at` if the first is of priority `first_eff`
    /// (`Rules::firm_holds`).
    #[inline(always)]
    pub fn held_past(&self, at: Time, recovery: bool, first_eff: impl FnOnce(u32) -> u16) -> bool {
        // (The hold's time first: most transmissions are of a node not held.)
        self.firmly_held(at, first_eff).is_some() && self.bypass.is_empty() && self.generated.is_empty() && !(recovery && self.recovering)
    }

    /// The protocol's firm hold on the first own packet (of priority
    /// `first_eff`), if it still stands at `now`.
    #[inline(always)]
    pub fn firmly_held(&self, now: Time, first_eff: impl FnOnce(u32) -> u16) -> Option<Time> {
        (now < self.held_until && self.first_own().is_some_and(|first| first_eff(first) == self.held_eff)).then_some(self.held_until)
    }

    /// The own packet that goes first: highest priority; on a tie, the one
    /// whose class comes first in the classes' precedence.
    #[inline(always)]
    pub fn first_own(&self) -> Option<u32> {
        // Asked several times per packet sent (each output decision, each
        // wait behind bypass traffic); the queues change far less often.
        let changes = self.own_changes;
        let (at, first) = self.first_own_cache.get();
        if at == changes {
            return first;
        }
        self.first_own_again(changes)
    }

    /// `first_own` when the queues have changed since it was cached.
    #[inline(never)]
    fn first_own_again(&self, changes: u64) -> Option<u32> {
        let head = |k: usize| self.outputs[slot(self.order[k] as usize)].to_send.head();
        let first = if self.classes == 2 && !self.round_robin {
            // SCI's two classes, asked once per change to its own packets.
            match (head(0), head(1)) {
                (Some((a, _)), Some((b, id))) if b > a => Some(id),
                (Some((_, id)), _) => Some(id),
                (None, b) => b.map(|(_, id)| id),
            }
        } else {
            let mut best: Option<(u16, u32)> = None;
            for k in 0..self.classes {
                let k = if self.round_robin { (self.turn + k) % self.classes } else { k };
                if let Some((level, id)) = head(k) {
                    if best.is_none_or(|(b, _)| level > b) {
                        best = Some((level, id));
                    }
                }
            }
            best.map(|(_, id)| id)
        };
        self.first_own_cache.set((changes, first));
        first
    }

    /// Every own packet in the order they would go (see [`Iface::first_own`]),
    /// lazily: callers that stop early do not pay for long queues.
    pub fn own_iter<'a>(&'a self, level: impl Fn(u32) -> u16 + 'a) -> impl Iterator<Item = u32> + 'a {
        let mut queues: [_; MAX_CLASSES] = std::array::from_fn(|k| self.outputs[self.order[k] as usize].to_send.iter().copied().peekable());
        let n = self.classes;
        std::iter::from_fn(move || {
            let mut pick: Option<(usize, u16)> = None;
            for (k, q) in queues[..n].iter_mut().enumerate() {
                if let Some(&id) = q.peek() {
                    let l = level(id);
                    if pick.is_none_or(|(_, b)| l > b) {
                        pick = Some((k, l));
                    }
                }
            }
            pick.and_then(|(k, _)| queues[k].next())
        })
    }

    /// Every own packet in send order, into `out`.
    pub fn own_in_order(&self, out: &mut Vec<u32>, level: impl Fn(u32) -> u16) {
        out.clear();
        let queue = |k: usize| self.outputs[self.order[k] as usize].to_send.iter().copied();
        match self.classes {
            1 => queue(0).for_each(|id| out.push(id)),
            // SCI's two classes, on the path a held DFC node takes at saturation.
            2 => merge_two(queue(0), queue(1), out, level),
            _ => out.extend(self.own_iter(level)),
        }
    }

    /// Makes an output decision due no later than `at` (the time now is
    /// `now`); returns whether that needs a new decision event.
    #[inline(always)]
    pub fn decide_by(&mut self, at: Time, now: Time) -> bool {
        // (`NO_DECISION` is later than any time; one in the past is spent.)
        if self.decision_at > at || self.decision_at < now {
            self.decision_at = at;
            true
        } else {
            false
        }
    }
}

/// The merge of `own_iter` for two queues, `a` going first on a tie:
/// each packet's level looked up once, and the rest of one queue copied
/// when the other runs out.
fn merge_two(mut a: impl Iterator<Item = u32>, mut b: impl Iterator<Item = u32>, out: &mut Vec<u32>, level: impl Fn(u32) -> u16) {
    let (mut x, mut y) = (a.next(), b.next());
    let (mut lx, mut ly) = (x.map(&level), y.map(&level));
    loop {
        match (x, y) {
            (Some(p), Some(q)) => {
                if ly > lx {
                    out.push(q);
                    y = b.next();
                    ly = y.map(&level);
                } else {
                    out.push(p);
                    x = a.next();
                    lx = x.map(&level);
                }
            }
            // (The rest folded: the queue's own iteration, not a `next` per packet.)
            (Some(p), None) => {
                out.push(p);
                a.for_each(|id| out.push(id));
                return;
            }
            (None, Some(q)) => {
                out.push(q);
                b.for_each(|id| out.push(id));
                return;
            }
            (None, None) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{Classes, Shape};
    use crate::topology::TopologyBuilder;

    fn params() -> Params {
        let shape = Shape { request_len: 8, request_class: 0, response_len: 40, response_class: 1, responses: 1, data_bytes: 64, data_in_response: true, requests: 1, packet_bytes: 0, last_len: 0, load_bytes: 64 };
        Params { cycle: 2000, separator: 1, echo_len: 4, bypass_fifo_symbols: 41, iqst: [0; MAX_CLASSES], input_queue: [5; MAX_CLASSES], output_queue: 8, shapes: vec![shape], shares: vec![1.0], kind_names: vec!["read64"], sources: Default::default(), classes: Classes::requests_and_responses(), client: Default::default() }
    }

    /// The fields every event looks at first stay where `Iface`'s layout
    /// puts them: the link, the bypass FIFO and the own packets' counts in
    /// the first cache line, the place, flags, hops and generated packets
    /// in the second.
    #[test]
    fn the_hot_fields_fill_the_first_cache_lines() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Iface>(), 64);
        let end = |offset: usize, size: usize| offset + size;
        assert!(end(offset_of!(Iface, ringlet), 2) <= 64);
        assert!(end(offset_of!(Iface, own_len), 4) <= 64);
        assert!(offset_of!(Iface, pos) >= 64 && end(offset_of!(Iface, generated), size_of::<VecDeque<u32>>()) <= 128);
    }

    /// The collecting merge and the lazy one agree: highest level first,
    /// responses before requests on a tie, FIFO within a level.
    #[test]
    fn own_packets_in_send_order() {
        let mut b = TopologyBuilder::new();
        let (x, y) = (b.agent("x", true), b.agent("y", true));
        b.ringlet(&[(x, 1), (y, 1)]);
        let t = b.build().unwrap();
        let mut rng: u64 = 7;
        for case in 0..200 {
            let mut n = Iface::new(&t, 0, &params(), 4, 0);
            let mut level = std::collections::HashMap::new();
            let mut responses = Vec::new();
            for id in 0..(case % 9) as u32 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let prio = (rng % 4) as u16;
                level.insert(id, prio);
                let class = if rng.is_multiple_of(3) { 1 } else { 0 };
                if class == 1 {
                    responses.push(id);
                }
                n.push_own(class, prio, id);
            }
            let lazy: Vec<u32> = n.own_iter(|id| level[&id]).collect();
            let mut collected = Vec::new();
            n.own_in_order(&mut collected, |id| level[&id]);
            assert_eq!(collected, lazy, "case {case}");
            assert_eq!(lazy.first().copied(), n.first_own(), "case {case}");
            assert_eq!(lazy.len(), case % 9);
            assert_eq!(n.has_own(), !lazy.is_empty());
            for w in lazy.windows(2) {
                let (a, b) = (level[&w[0]], level[&w[1]]);
                assert!(a > b || (a == b && (responses.contains(&w[0]) || !responses.contains(&w[1]))), "case {case}: {lazy:?}");
            }
        }
    }
}
