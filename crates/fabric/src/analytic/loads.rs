//! The resources' loads: how a packet's way through an idle fabric uses
//! links, input queue servers, client ports and buses (`path`), and the
//! accumulators each resource keeps of what uses it. Nothing is kept per
//! packet or pair: a way is handed on use by use as it is walked.
//!
//! A leg crosses consecutive links of its ringlet, so it is handed on
//! either link by link (`Legs::ByHop`, the reference: its sums in the
//! order first written) or as runs of its ringlet (`Legs::ByRun`: a
//! packet's own link, the links it passes, its echo's), which `Runs` adds
//! in constant time per run as differences along the ringlet.

use super::packets::Pkt;
use crate::dense::Dense;
use crate::mechanism::Fabric;
use crate::protocol::RingProtocol;
use crate::topology::{AgentId, NO_IFACE};
use ringlet_engine::time::{time_to_s, TICKS_PER_PS};
use ringlet_engine::Time;

/// How a leg hands on the links it crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legs {
    /// Link by link.
    ByHop,
    /// As runs of consecutive links of its ringlet.
    ByRun,
}

/// One resource's load: utilisation and the sum of rate x hold² (the
/// Pollaczek-Khinchine numerator); for a link also the same for the
/// packets its interface sends itself.
#[derive(Clone, Copy, Default)]
pub(super) struct Load {
    pub busy: f64,
    pub second: f64,
    pub own_busy: f64,
    pub own_second: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    /// Queues for it (M/G/1).
    Queue,
    /// Passes it: waits out the residual of the owner's own packet.
    Residual,
    /// Loads it, no packet measured waits (an echo).
    None,
}

/// A packet's use of `run` resources from `res` on, each for `hold` s:
/// one (a link, an input queue server, a port, a bus), or consecutive
/// links of a ringlet, downstream from link `res`.
#[derive(Clone, Copy)]
pub(super) struct Use {
    pub res: usize,
    pub run: usize,
    pub hold: f64,
    pub wait: Wait,
}

/// A packet's way, apart from what it uses: its latency with every
/// resource idle, and from its head leaving its sender until its echo is
/// back there (a send buffer's slot is held that long), s.
pub(super) struct Path {
    pub fixed: f64,
    pub round: f64,
}

/// The resources, numbered: each link, then each (interface, class)'s
/// input queue server, each agent's client port, each agent's bus, each
/// (interface, class)'s output queue (its slots, each held until the
/// packet's echo is back).
#[derive(Clone, Copy)]
pub(super) struct Resources {
    pub links: usize,
    pub classes: usize,
    pub agents: usize,
}

impl Resources {
    /// (One past the last output queue, the last resource.)
    pub fn len(&self) -> usize {
        self.output(self.links, 0)
    }
    pub fn output(&self, iface: usize, class: usize) -> usize {
        self.links + self.links * self.classes + 2 * self.agents + iface * self.classes + class
    }
    pub fn input(&self, iface: usize, class: usize) -> usize {
        self.links + iface * self.classes + class
    }
    pub fn port(&self, agent: usize) -> usize {
        self.links + self.links * self.classes + agent
    }
    pub fn bus(&self, agent: usize) -> usize {
        self.links + self.links * self.classes + self.agents + agent
    }
}

/// The ringlets as runs of link ids (a ringlet's interfaces are
/// consecutive ids in ring order): where each starts, its length, and
/// the hop times summed from its start, to time a run in constant time.
/// (No division: a run is never longer than its ringlet, so a position
/// past the end is one subtraction from its place; divisions were most of
/// a walk by runs.)
pub(super) struct Ringlets {
    links: Vec<Link>,
}

/// A link's place on its ringlet.
#[derive(Clone, Copy, Default)]
struct Link {
    /// Its ringlet's first link and length, and its position on it.
    start: u32,
    len: u32,
    pos: u32,
    /// Its ringlet's hops before it.
    before: Time,
    /// Its ringlet's hops all round.
    round: Time,
}

impl Ringlets {
    pub fn new<P: RingProtocol>(f: &Fabric<P>) -> Ringlets {
        Ringlets::of((0..f.topo.ringlets()).map(|r| {
            let ifaces = f.topo.ringlet_ifaces(r as u16);
            debug_assert!(ifaces.iter().enumerate().all(|(k, &i)| i == ifaces[0] + k as u16), "a ringlet's interfaces are consecutive ids");
            ifaces.iter().map(|&i| f.ifaces[i as usize].hop).collect()
        }))
    }

    /// Ringlets of the given hops, link by link, numbered on from one to
    /// the next (as a topology numbers its interfaces).
    fn of(rings: impl Iterator<Item = Vec<Time>>) -> Ringlets {
        let mut links = Vec::new();
        for hops in rings {
            let (start, round) = (links.len() as u32, hops.iter().sum());
            let mut before = 0;
            for (k, &h) in hops.iter().enumerate() {
                links.push(Link { start, len: hops.len() as u32, pos: k as u32, before, round });
                before += h;
            }
        }
        Ringlets { links }
    }

    /// Links from link `from` downstream to link `to` (its ringlet's
    /// length where they are the same: once round).
    fn distance(&self, from: usize, to: usize) -> usize {
        let (f, t) = (&self.links[from], &self.links[to]);
        let d = t.pos + f.len - f.pos;
        (if d > f.len { d - f.len } else { d }) as usize
    }

    /// The link `k` (at most its ringlet's length) links downstream of link `i`.
    fn ahead(&self, i: usize, k: usize) -> usize {
        let l = &self.links[i];
        let p = l.pos as usize + k;
        l.start as usize + if p >= l.len as usize { p - l.len as usize } else { p }
    }

    /// The hops of the `k` links (fewer than its ringlet's) from link `i` on.
    fn hops(&self, i: usize, k: usize) -> Time {
        let l = &self.links[i];
        let end = l.pos as usize + k;
        let at = if end >= l.len as usize { l.round + self.links[l.start as usize + end - l.len as usize].before } else { self.links[l.start as usize + end].before };
        at - l.before
    }

    /// Adds `x` to `diff` over the `k` links (at most its ringlet's) from
    /// link `i` on (a difference per ringlet: `settle` makes it the value
    /// per link).
    pub fn add(&self, diff: &mut [f64], i: usize, k: usize, x: f64) {
        if k == 0 {
            return;
        }
        let l = &self.links[i];
        let (s, len, p) = (l.start as usize, l.len as usize, l.pos as usize);
        diff[s + p] += x;
        if p + k < len {
            diff[s + p + k] -= x;
        } else if p + k > len {
            // Round past the end: on again from the start.
            diff[s] += x;
            diff[s + p + k - len] -= x;
        }
    }

    /// `diff`'s differences summed along each ringlet: the value per link.
    pub fn settle(&self, diff: &mut [f64]) {
        for i in 0..diff.len() {
            if self.links[i].pos > 0 {
                diff[i] += diff[i - 1];
            }
        }
    }
}

/// What walking a packet's way reads of the fabric: each interface's
/// figures side by side, its times in seconds once (the fabric's `Iface`
/// is several cache lines, a miss apiece on a large ring; `time_to_s`
/// divides), and, where legs are walked by runs, the ringlets as runs.
pub(super) struct Walker<'a, P: RingProtocol> {
    pub f: &'a Fabric<P>,
    pub res: Resources,
    pub runs: Option<Ringlets>,
    cycle: f64,
    per_symbol: f64,
    nodes: Dense<Node>,
    /// Per (interface, class): its input queue's service time and spacing, s.
    service: Dense<[f64; 2]>,
    /// Per (interface, class): one over the slots its output queue's
    /// packets may await their echoes in (the queue's and any echo-waiting
    /// slots beyond it).
    per_slot: Dense<f64>,
    /// Per agent: which of `bus_kinds` its bus is (`NO_BUS`: none). The
    /// topology's agent is several cache lines, read once per leg; and a
    /// network's buses are mostly alike, so a way works out a transfer's
    /// time once per kind.
    bus_of: Dense<u16>,
    /// The buses' kinds: each spec and its arbitration and exit, s.
    bus_kinds: Vec<(crate::topology::BusSpec, f64)>,
}

/// An agent without a bus (`Walker::bus_of`).
const NO_BUS: u16 = u16::MAX;

/// Whether two buses take the same times (their names aside).
fn same_times(a: &crate::topology::BusSpec, b: &crate::topology::BusSpec) -> bool {
    (a.beat, a.symbols_per_beat, a.frame_beats, a.entry, a.arbitration, a.exit) == (b.beat, b.symbols_per_beat, b.frame_beats, b.entry, b.arbitration, b.exit)
}

/// An interface and its link, as a walk reads them.
#[derive(Clone, Copy)]
struct Node {
    /// Its send path, its protocol's leave to go on an idle ringlet, its
    /// hop and its stripping hop, s.
    send_delay: f64,
    idle_wait: f64,
    hop: f64,
    strip_hop: f64,
    /// The stripping hop, in ticks (walking by runs sums ticks).
    strip_ticks: Time,
    next: u32,
    agent: AgentId,
    server: Server,
}

/// What serves an interface's input queues.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Server {
    /// Its own server per class, for the service time.
    Own,
    /// Its own pipeline per class, a packet per spacing.
    Pipelined,
    /// The agent's client port, shared by its interfaces.
    Shared,
}

/// Seconds per tick: a sum of ticks walked by runs is converted by one
/// product (`time_to_s` divides; the two differ in the last bit at most).
const S_PER_TICK: f64 = 1e-12 / TICKS_PER_PS as f64;

impl<'a, P: RingProtocol> Walker<'a, P> {
    pub fn new(f: &'a Fabric<P>, legs: Legs) -> Walker<'a, P> {
        let res = Resources { links: f.ifaces.len(), classes: f.p.classes.len(), agents: f.topo.agents().len() };
        let nodes = f
            .ifaces
            .iter()
            .map(|n| Node {
                send_delay: time_to_s(n.send_delay),
                idle_wait: time_to_s(f.protos[n.ringlet as usize].idle_send_wait()),
                hop: time_to_s(n.hop),
                strip_hop: time_to_s(n.strip_hop),
                strip_ticks: n.strip_hop,
                next: n.next as u32,
                agent: n.agent,
                server: if n.shared_server { Server::Shared } else if n.pipelined { Server::Pipelined } else { Server::Own },
            })
            .collect();
        let service = Dense::new(f.ifaces.iter().flat_map(|n| (0..res.classes).map(|c| [n.service_time(c), n.spacing(c)].map(time_to_s))).collect());
        let per_slot = Dense::new(f.ifaces.iter().flat_map(|n| (0..res.classes).map(|c| n.output(c as u8)).map(|q| 1.0 / (q.capacity + q.ewq).max(1) as f64)).collect());
        let runs = (legs == Legs::ByRun).then(|| Ringlets::new(f));
        let mut bus_kinds: Vec<(crate::topology::BusSpec, f64)> = Vec::new();
        let bus_of = f
            .topo
            .agents()
            .iter()
            .map(|a| {
                let Some(b) = a.bus else { return NO_BUS };
                let kind = bus_kinds.iter().position(|(k, _)| same_times(k, &b)).unwrap_or_else(|| {
                    bus_kinds.push((b, time_to_s(b.arbitration + b.exit)));
                    bus_kinds.len() - 1
                });
                u16::try_from(kind).ok().filter(|&k| k != NO_BUS).expect("fewer kinds of bus than 65 535")
            })
            .collect();
        Walker { f, res, runs, cycle: time_to_s(f.p.cycle), per_symbol: time_to_s(f.p.client.service_per_symbol), nodes: Dense::new(nodes), service, per_slot, bus_of: Dense::new(bus_of), bus_kinds }
    }

    /// Packet `pk`'s way through an idle fabric, leg by leg, from output
    /// interface `o` to stripping interface `s` first: hands `use_` what it
    /// uses, in order (links link by link, or as runs where walking by
    /// runs), and returns its latency with every resource idle and its
    /// first leg's round.
    pub fn path(&self, pk: &Pkt, (mut o, mut s): (usize, usize), mut use_: impl FnMut(Use)) -> Path {
        let (f, res, cycle) = (self.f, self.res, self.cycle);
        let slot = |len: u16| (len as f64 + f.p.separator as f64) * cycle;
        // (What a packet and its echo hold of each link, the same on every leg.)
        let (hold, echo) = (slot(pk.len), slot(f.p.echo_len));
        let mut path = Path { fixed: self.nodes[o].send_delay, round: 0.0 };
        let mut first = true;
        // How long its output queue slot is held before its head leaves
        // (down its send path; across a bus, from the grant).
        let mut held_before = self.nodes[o].send_delay;
        let class = pk.class as usize;
        // The kind of bus last crossed and the packet's transfer on it, s.
        let mut transfer_on = (NO_BUS, 0.0);
        loop {
            // Its protocol's leave to go, on an idle ringlet.
            path.fixed += self.nodes[o].idle_wait;
            // The packet from `o` to `s`, and its echo from `s` back to `o`.
            let (travel, back) = match &self.runs {
                None => self.leg_by_hop(o, s, hold, echo, &mut use_),
                Some(r) => {
                    let (k, e) = (r.distance(o, s), if s == o { 0 } else { r.distance(s, o) });
                    use_(Use { res: o, run: 1, hold, wait: Wait::Queue });
                    use_(Use { res: r.ahead(o, 1), run: k - 1, hold, wait: Wait::Residual });
                    use_(Use { res: s, run: e, hold: echo, wait: Wait::None });
                    // Every hop but the last, which strips.
                    let timed = |i: usize, k: usize| if k == 0 { 0 } else { r.hops(i, k - 1) + self.nodes[r.ahead(i, k - 1)].strip_ticks };
                    (timed(o, k) as f64 * S_PER_TICK, timed(s, e) as f64 * S_PER_TICK)
                }
            };
            let round = travel + back + f.p.echo_len as f64 * cycle;
            if first {
                path.round = round;
                first = false;
            }
            // Its output queue slot, held until the echo is back: a queue
            // of `q` slots lets `q` go per round (however fast its link).
            let hold = (held_before + round) * self.per_slot[o * res.classes + class];
            use_(Use { res: res.output(o, class), run: 1, hold, wait: Wait::None });
            // In at `s` with its tail, then serviced.
            path.fixed += travel + pk.len as f64 * cycle;
            // A cascade's chips (a switch of several buses, `Member::cascade`)
            // share what reaches its first: each takes an even part.
            let chips = || std::iter::successors(Some(s), |&c| Some(f.topo.cascade_next(c as u16)).filter(|&n| n != NO_IFACE).map(|n| n as usize));
            let share = 1.0 / chips().count() as f64;
            let [service, _] = self.service[s * res.classes + class];
            let took = service + pk.len as f64 * self.per_symbol;
            path.fixed += took;
            for c in chips() {
                let [service, spacing] = self.service[c * res.classes + class];
                let took = service + pk.len as f64 * self.per_symbol;
                let n = &self.nodes[c];
                match n.server {
                    Server::Shared => use_(Use { res: res.port(n.agent as usize), run: 1, hold: took * share, wait: Wait::Queue }),
                    Server::Pipelined => use_(Use { res: res.input(c, class), run: 1, hold: spacing * share, wait: Wait::Queue }),
                    Server::Own => use_(Use { res: res.input(c, class), run: 1, hold: took * share, wait: Wait::Queue }),
                }
            }
            let a = self.nodes[s].agent;
            if a == pk.to {
                return path;
            }
            // Passed on: across the agent's bus, if it has one, to the next leg.
            let leg = f.topo.leg(a, pk.to);
            if leg.out == NO_IFACE {
                return path;
            }
            let kind = self.bus_of[a as usize];
            if kind != NO_BUS {
                let (bus, arbitration_exit) = &self.bus_kinds[kind as usize];
                if transfer_on.0 != kind {
                    transfer_on = (kind, time_to_s(bus.transfer(pk.len)));
                }
                let transfer = transfer_on.1;
                for c in chips() {
                    use_(Use { res: res.bus(self.nodes[c].agent as usize), run: 1, hold: transfer * share, wait: Wait::Queue });
                }
                path.fixed += arbitration_exit + transfer;
                held_before = arbitration_exit + transfer;
            } else {
                held_before = 0.0;
            }
            (o, s) = (leg.out as usize, leg.strip as usize);
        }
    }

    /// One leg link by link: the packet from `o` to `s` (held `hold` on
    /// each link), its echo back (`echo`); returns their travel times.
    fn leg_by_hop(&self, o: usize, s: usize, hold: f64, echo: f64, use_: &mut impl FnMut(Use)) -> (f64, f64) {
        let mut i = o;
        let mut travel = 0.0;
        loop {
            use_(Use { res: i, run: 1, hold, wait: if i == o { Wait::Queue } else { Wait::Residual } });
            let n = &self.nodes[i];
            if n.next as usize == s {
                travel += n.strip_hop;
                break;
            }
            travel += n.hop;
            i = n.next as usize;
        }
        let mut e = s;
        let mut back = 0.0;
        while e != o {
            use_(Use { res: e, run: 1, hold: echo, wait: Wait::None });
            let n = &self.nodes[e];
            back += if n.next as usize == o { n.strip_hop } else { n.hop };
            e = n.next as usize;
        }
        (travel, back)
    }
}

#[cfg(test)]
mod tests {
    use super::Ringlets;
    use rand::{Rng, SeedableRng};

    /// Runs of every length from every link, on ringlets of 2 to 7 links
    /// with random hops, against walking them link by link: where they
    /// end, the hops they cross, and the values added along them.
    #[test]
    fn runs_are_the_walk() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let rings: Vec<Vec<u64>> = (2..8).map(|len| (0..len).map(|_| rng.gen_range(1..1000)).collect()).collect();
        let r = Ringlets::of(rings.clone().into_iter());
        let (mut first, mut next, mut hop) = (0, Vec::new(), Vec::new());
        for ring in &rings {
            for (k, &h) in ring.iter().enumerate() {
                next.push(first + (k + 1) % ring.len());
                hop.push(h);
            }
            first += ring.len();
        }
        let n = next.len();
        let (mut diff, mut walked) = (vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            let len = rings.iter().find(|ring| r.links[i].len as usize == ring.len()).unwrap().len();
            let (mut j, mut sum) = (i, 0);
            for k in 0..=len {
                assert_eq!(r.ahead(i, k), j, "link {i}, {k} ahead");
                if k < len {
                    assert_eq!(r.hops(i, k), sum, "link {i}, {k} hops");
                }
                if k > 0 {
                    assert_eq!(r.distance(i, j), k, "link {i} to {j}");
                    // Each run adds k (exact in floating point, whatever the order).
                    r.add(&mut diff, i, k, k as f64);
                    let mut l = i;
                    for _ in 0..k {
                        walked[l] += k as f64;
                        l = next[l];
                    }
                }
                sum += hop[j];
                j = next[j];
            }
        }
        r.settle(&mut diff);
        assert_eq!(diff, walked);
    }
}
