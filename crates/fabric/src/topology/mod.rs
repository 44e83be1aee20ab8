//! Who is who in a fabric: agents, ring interfaces, links and ringlets, and
//! the routes between them.
//!
//! - An *agent* is an addressable device: a processor or memory node, a
//!   switch, a GigaRing node chip. Packets are addressed to agents.
//! - A *ring interface* is one agent's port on one ringlet: its bypass FIFO,
//!   its output link, its input and output queues. An agent has one ring
//!   interface per ringlet it sits on.
//! - A *link* leaves each ring interface for the next one on its ringlet;
//!   its *hop* is the time a packet's head takes from one interface's output
//!   to the next one's (link delay plus that interface's bypass delay).
//! - A *ringlet* is the cycle of ring interfaces that share one
//!   flow-control state (one protocol instance).
//!
//! A family's builder describes its network with [`TopologyBuilder`]; the
//! [`Topology`] it builds is the table the fabric runs on: the next
//! interface, ringlet and agent of every interface, and routing: which
//! interface an agent sends a packet on, and which interface on a ringlet
//! strips a packet (the destination's own, or a bridge's or switch's on the
//! way there). Routes are shortest paths in ringlets crossed, ties to the
//! lowest id, unless the family gives its own ([`Routes`]: a Banyan's
//! destination-tag routing).

use ringlet_engine::Time;

mod routing;
mod view;
pub use view::RingletView;

pub type AgentId = u16;
pub type IfaceId = u16;
pub type RingletId = u16;

/// No interface (an unreachable destination in a routing table).
pub const NO_IFACE: IfaceId = IfaceId::MAX;

/// Most ring interfaces a fabric may have: the packed events keep 16 bits
/// (and `NO_IFACE` is the one id beyond).
pub const MAX_IFACES: usize = NO_IFACE as usize;

/// Routes a family gives in place of the shortest paths: where a packet's
/// way depends on more than the ringlets it crosses (destination-tag
/// routing by stage in a Banyan; on rings that run through every stage,
/// where a packet leaves a ring depends on where it joined it).
pub trait Routes: Send + Sync + std::fmt::Debug {
    /// The interface agent `a`, which has several, sends on toward `dst`.
    fn out_iface(&self, t: &Topology, a: AgentId, dst: AgentId) -> IfaceId;
    /// The interface downstream of `from` on its ringlet that strips a
    /// packet for `dst` that `from` puts on the ringlet.
    fn strip_from(&self, t: &Topology, from: IfaceId, dst: AgentId) -> IfaceId;
}

/// One agent as its family's builder declared it.
#[derive(Clone, Debug)]
pub struct Agent {
    /// What to call it in traces ("node 3", "bridge").
    pub label: String,
    /// It sources and sinks traffic (a processor or memory), as opposed to
    /// only passing packets on (a bridge, a switch).
    pub endpoint: bool,
    /// Its ring interfaces, one per ringlet it sits on, in the order it joined them.
    pub ifaces: Vec<IfaceId>,
    /// Transactions its application queue holds beyond its output queues;
    /// one generated while both are full is lost (a switch study's
    /// sources). `None`: unbounded.
    pub app_capacity: Option<u32>,
    /// What traffic it takes part in (endpoints only).
    pub role: Role,
    /// Its own receiver, where `local` traffic goes (a processor's own
    /// memory); `None`: the first endpoint downstream.
    pub home: Option<AgentId>,
    /// Its interfaces' own timing and queue sizes, where they differ from
    /// the fabric's ([`Params`](crate::params::Params)).
    pub ports: PortSpec,
    /// The bus its interfaces share to pass packets between them (a
    /// switch's B-Link); `None`: a packet goes straight from one interface's
    /// input queue to another's output queue.
    pub bus: Option<BusSpec>,
}

/// What traffic an endpoint takes part in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Sends transactions and answers them (an SCI ring node).
    Both,
    /// Only sends (a processor of the switch study).
    Sender,
    /// Only receives and answers (a memory).
    Receiver,
}

impl Role {
    pub fn sends(self) -> bool {
        self != Role::Receiver
    }

    pub fn receives(self) -> bool {
        self != Role::Sender
    }
}

/// An agent's interfaces' service times, paths and queue sizes where they
/// differ from the fabric's: a memory's store time is not a switch port's
/// path to its bus. `None` keeps the fabric's value.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortSpec {
    /// Input queue service time per class: from the start of a packet's
    /// service until it is done.
    pub iqst: Option<[Time; crate::params::MAX_CLASSES]>,
    /// Input queue size per class, packets.
    pub input_queue: Option<[u32; crate::params::MAX_CLASSES]>,
    /// Output queue size (every class), packets.
    pub output_queue: Option<u32>,
    /// The input queues' servers are pipelines, per class: a packet's
    /// service starts once its tail is in and at least this long after the
    /// previous packet's started, and ends `iqst` later, in order. `None`:
    /// one packet at a time (the spacing is the service time). A spacing of
    /// 0 is a delay line, each packet done its service time after its tail
    /// is in whatever the ones ahead are doing (a switch port's FIFO to its
    /// bus); a spacing below the service time is a receiving LC-II that
    /// accepts a packet per spacing and hands each on after its path.
    pub spacing: Option<[Time; crate::params::MAX_CLASSES]>,
    /// The send path: a packet the agent puts into an output queue takes
    /// its slot at once and is there, ready to be sent, this long later (an
    /// LC-II's B-Link to output FIFO). 0: at once.
    pub send_delay: Time,
    /// The servers of all the agent's input queues (every interface and
    /// class) share one client port: a packet's service waits until the
    /// port has finished the packets whose service started before it (a
    /// GigaRing node's 64-bit client port behind both rings' receive buffers).
    pub shared_server: bool,
}

/// A bus shared by all of an agent's interfaces (Dolphin's B-Link in an SCI
/// switch): a packet serviced at one interface's input queue for another
/// agent waits to win the bus (round robin among the interfaces that ask,
/// and only once the output queue it goes to has room), holds it for its
/// frame, and reaches that output queue `exit` later. The input slot frees
/// when the transfer ends; the output slot is held from the grant.
#[derive(Clone, Copy, Debug)]
pub struct BusSpec {
    /// What its users call it ("B-Link"): the analytic model names it when it is the bottleneck.
    pub name: &'static str,
    /// One bus cycle (8 bytes at 600 MB/s: 40/3 ns).
    pub beat: Time,
    /// Packet symbols one beat carries (8 bytes of 2-byte symbols: 4).
    pub symbols_per_beat: u16,
    /// Cycles a frame takes beyond the packet's own beats (framing).
    pub frame_beats: u16,
    /// Bus time a transfer takes before its first beat (the port moving
    /// the packet from its input FIFO onto the bus, where that holds the
    /// bus); 0 where the port's path is a pipeline before it asks.
    pub entry: Time,
    /// A grant made while the bus was idle takes this long before the
    /// transfer starts (the bus is reserved meanwhile); a grant made as a
    /// transfer ends was decided during it and costs nothing.
    pub arbitration: Time,
    /// From the end of a transfer to the packet's arrival in the output queue.
    pub exit: Time,
}

impl BusSpec {
    /// How long a packet of `len` symbols holds the bus once granted
    /// (arbitration apart).
    #[inline]
    pub fn transfer(&self, len: u16) -> Time {
        self.entry + (len.div_ceil(self.symbols_per_beat) + self.frame_beats) as Time * self.beat
    }
}

/// One member of a ringlet: its agent, and the hops from its output to the
/// next member's: for a packet that passes the next member (link delay plus
/// the next member's bypass delay), and for one the next member strips
/// (link delay plus its address decode), often the same.
#[derive(Clone, Copy, Debug)]
pub struct Member {
    pub agent: AgentId,
    pub hop: Time,
    pub strip_hop: Time,
    /// The next member is the next chip of this one's cascade (Richter's
    /// switch of several B-Links, a port being link controllers in series):
    /// a send packet this member should strip but whose input queue of its
    /// class is full passes on to that chip, which strips it in its stead.
    pub cascade: bool,
}

/// Describes a network, agent by agent and ringlet by ringlet.
#[derive(Default)]
pub struct TopologyBuilder {
    agents: Vec<Agent>,
    /// Each ringlet's members in ring order, with the hops from each to the next.
    ringlets: Vec<Vec<Member>>,
    routes: Option<std::sync::Arc<dyn Routes>>,
}

impl TopologyBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new agent; `endpoint` if it sources and sinks traffic.
    pub fn agent(&mut self, label: impl Into<String>, endpoint: bool) -> AgentId {
        let agent = Agent { label: label.into(), endpoint, ifaces: Vec::new(), app_capacity: None, role: Role::Both, home: None, ports: PortSpec::default(), bus: None };
        self.agents.push(agent);
        (self.agents.len() - 1) as AgentId
    }

    /// Bounds `agent`'s application queue (see [`Agent::app_capacity`]).
    pub fn app_capacity(&mut self, agent: AgentId, transactions: u32) {
        self.agents[agent as usize].app_capacity = Some(transactions);
    }

    /// Sets what traffic endpoint `agent` takes part in.
    pub fn role(&mut self, agent: AgentId, role: Role) {
        self.agents[agent as usize].role = role;
    }

    /// Makes `home` the receiver `agent`'s `local` traffic goes to.
    pub fn home(&mut self, agent: AgentId, home: AgentId) {
        self.agents[agent as usize].home = Some(home);
    }

    /// Gives `agent`'s interfaces their own service times and queue sizes.
    pub fn ports(&mut self, agent: AgentId, spec: PortSpec) {
        self.agents[agent as usize].ports = spec;
    }

    /// Gives `agent` a bus its interfaces share (see [`BusSpec`]).
    pub fn bus(&mut self, agent: AgentId, spec: BusSpec) {
        self.agents[agent as usize].bus = Some(spec);
    }

    /// A ringlet through `members` in ring order: each gets a ring interface
    /// on it, whose link leads to the next member's, the last's to the
    /// first's; the time is the hop from that member's output to the next
    /// one's, for packets passing and stripped alike.
    pub fn ringlet(&mut self, members: &[(AgentId, Time)]) -> RingletId {
        let members: Vec<Member> = members.iter().map(|&(agent, hop)| Member { agent, hop, strip_hop: hop, cascade: false }).collect();
        self.ringlet_of(&members)
    }

    /// The family's routes, in place of the shortest paths (which are then
    /// not computed: the family's tests show every endpoint reaches every other).
    pub fn routes(&mut self, routes: std::sync::Arc<dyn Routes>) {
        self.routes = Some(routes);
    }

    /// A ringlet through `members` in ring order, each with its own hops.
    pub fn ringlet_of(&mut self, members: &[Member]) -> RingletId {
        self.ringlets.push(members.to_vec());
        (self.ringlets.len() - 1) as RingletId
    }

    /// The ring interfaces the network described so far has: one per
    /// member of each ringlet. A family checks it against [`MAX_IFACES`]
    /// before [`build`](Self::build), to name the scenario keys that set it.
    pub fn interfaces(&self) -> usize {
        self.ringlets.iter().map(Vec::len).sum()
    }

    /// The topology table. Interfaces are numbered ringlet by ringlet, in
    /// ring order: a ringlet's are consecutive, so an interface's position
    /// is its id less its ringlet's first. Fails if a ringlet has fewer than two members, an agent
    /// sits twice on one ringlet, the fabric is too large, or an endpoint
    /// cannot reach another.
    pub fn build(mut self) -> Result<Topology, String> {
        let mut next = Vec::new();
        let mut ringlet_of = Vec::new();
        let mut agent_of = Vec::new();
        let mut position = Vec::new();
        let mut hop = Vec::new();
        let mut strip_hop = Vec::new();
        let mut cascade = Vec::new();
        let mut ringlets = Vec::new();
        for (r, members) in self.ringlets.iter().enumerate() {
            if members.len() < 2 {
                return Err(format!("ringlet {r}: expected at least 2 ring interfaces, got {}", members.len()));
            }
            let first = next.len();
            let mut ifaces = Vec::with_capacity(members.len());
            for (k, &Member { agent, hop: h, strip_hop: sh, cascade: c }) in members.iter().enumerate() {
                let id = first + k;
                if id >= MAX_IFACES {
                    return Err(format!("the network needs more than {MAX_IFACES} ring interfaces"));
                }
                let a = self.agents.get_mut(agent as usize).ok_or_else(|| format!("ringlet {r}: no agent {agent}"))?;
                // (A family with its own routes may put an agent on a ringlet twice: a folded GigaRing passes each node both ways.)
                if self.routes.is_none() && a.ifaces.iter().any(|&i| ringlet_of[i as usize] == r as RingletId) {
                    return Err(format!("ringlet {r}: agent {agent} ({}) sits on it twice", a.label));
                }
                a.ifaces.push(id as IfaceId);
                next.push((first + (k + 1) % members.len()) as IfaceId);
                ringlet_of.push(r as RingletId);
                agent_of.push(agent);
                position.push(k as u16);
                hop.push(h);
                strip_hop.push(sh);
                cascade.push(if c { (first + (k + 1) % members.len()) as IfaceId } else { NO_IFACE });
                ifaces.push(id as IfaceId);
            }
            ringlets.push(ifaces);
        }
        let endpoints: Vec<AgentId> = (0..self.agents.len()).filter(|&a| self.agents[a].endpoint).map(|a| a as AgentId).collect();
        let span = endpoints.last().map_or(0, |&a| a as usize + 1);
        // (Empty where no member has a cascade: the look-up is then one length test.)
        let cascade = if cascade.iter().any(|&c| c != NO_IFACE) { cascade } else { Vec::new() };
        let mut t = Topology {
            cascade,
            next,
            ringlet_of,
            agent_of,
            position,
            hop,
            strip_hop,
            ringlets,
            agents: self.agents,
            endpoints,
            span,
            strip: Vec::new(),
            single: Vec::new(),
            column: Vec::new(),
            columns: 0,
            out: Vec::new(),
            lowest: Vec::new(),
            routes: self.routes,
        };
        if t.routes.is_some() {
            t.single = t.agents.iter().map(|a| if a.ifaces.len() == 1 { a.ifaces[0] } else { NO_IFACE }).collect();
        } else {
            t.route()?;
        }
        Ok(t)
    }
}

/// The table a fabric runs on (see the module documentation).
#[derive(Clone, Debug)]
pub struct Topology {
    next: Vec<IfaceId>,
    ringlet_of: Vec<RingletId>,
    agent_of: Vec<AgentId>,
    position: Vec<u16>,
    hop: Vec<Time>,
    strip_hop: Vec<Time>,
    /// Per interface, the next chip of its cascade (`Member::cascade`), or
    /// `NO_IFACE`; empty where the network has no cascades.
    cascade: Vec<IfaceId>,
    /// Each ringlet's interfaces, consecutive ids in ring order.
    ringlets: Vec<Vec<IfaceId>>,
    agents: Vec<Agent>,
    endpoints: Vec<AgentId>,
    /// One more than the last endpoint. Packets are addressed to endpoints
    /// only, so the routing tables have columns for the agents below it
    /// only (a Banyan's switches, two thirds of its agents, come after its
    /// endpoints): a look-up needs no map from agent to column.
    span: usize,
    /// `strip[dst * ringlets + r]`: the interface on ringlet `r` that strips
    /// packets for endpoint `dst` (`NO_IFACE` for other agents; a
    /// destination's column is contiguous: its search fills it).
    strip: Vec<IfaceId>,
    /// Per agent: its interface if it has exactly one, else `NO_IFACE`.
    single: Vec<IfaceId>,
    /// Per agent: its column of `out` if it has several interfaces, else `NO_COLUMN`.
    column: Vec<u32>,
    /// The agents with several interfaces: the columns of `out`.
    columns: usize,
    /// `out[column[a] * span + dst]`: the leg agent `a`, which has
    /// several interfaces, sends a packet for endpoint `dst` on (agent by
    /// agent, found a few destinations at a time: `routing::Rows`).
    out: Vec<Leg>,
    /// Where every endpoint sits on every ringlet (a ring, a GigaRing
    /// channel), every route is direct and an agent of several interfaces
    /// sends on its lowest one whatever the destination: per agent, that
    /// interface, and `out` is empty (endpoints x agents legs, 64 MB for a
    /// 4,096-node channel, for one column's worth of information).
    lowest: Vec<IfaceId>,
    /// The family's routes, if it gives them (then `strip` and `out` are empty).
    routes: Option<std::sync::Arc<dyn Routes>>,
}

impl Topology {
    pub fn ifaces(&self) -> usize {
        self.next.len()
    }

    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    pub fn agent(&self, a: AgentId) -> &Agent {
        &self.agents[a as usize]
    }

    /// The agents that source and sink traffic, in the order the traffic
    /// sources and the scenario's node numbers count them.
    pub fn endpoints(&self) -> &[AgentId] {
        &self.endpoints
    }

    pub fn ringlets(&self) -> usize {
        self.ringlets.len()
    }

    /// The interfaces of ringlet `r` in ring order.
    pub fn ringlet_ifaces(&self, r: RingletId) -> &[IfaceId] {
        &self.ringlets[r as usize]
    }

    /// The next chip of interface `i`'s cascade, which strips a packet `i`
    /// has no room for (`Member::cascade`), or `NO_IFACE`.
    #[inline]
    pub fn cascade_next(&self, i: IfaceId) -> IfaceId {
        self.cascade.get(i as usize).copied().unwrap_or(NO_IFACE)
    }

    /// Whether some interface is a chip of a cascade.
    pub fn has_cascades(&self) -> bool {
        !self.cascade.is_empty()
    }

    /// The interface at position `pos` of ringlet `r`.
    #[inline]
    pub fn ringlet_iface(&self, r: RingletId, pos: usize) -> IfaceId {
        self.ringlets[r as usize][pos]
    }

    /// The interface downstream of `i`: where its link leads.
    #[inline]
    pub fn next(&self, i: IfaceId) -> IfaceId {
        self.next[i as usize]
    }

    #[inline]
    pub fn ringlet_of(&self, i: IfaceId) -> RingletId {
        self.ringlet_of[i as usize]
    }

    pub fn agent_of(&self, i: IfaceId) -> AgentId {
        self.agent_of[i as usize]
    }

    /// `i`'s position on its ringlet (0 for the first member).
    pub fn position(&self, i: IfaceId) -> u16 {
        self.position[i as usize]
    }

    /// Time from `i`'s output to the next interface's output, for a packet
    /// that passes the next interface.
    pub fn hop(&self, i: IfaceId) -> Time {
        self.hop[i as usize]
    }

    /// Time from `i`'s output until the next interface has decoded a packet
    /// it strips (its head is there, ready to be taken in).
    pub fn strip_hop(&self, i: IfaceId) -> Time {
        self.strip_hop[i as usize]
    }

    /// The interface agent `a` sends on toward `dst`.
    #[inline(always)]
    pub fn out_iface(&self, a: AgentId, dst: AgentId) -> IfaceId {
        let single = self.single[a as usize];
        if single != NO_IFACE {
            return single;
        }
        if let Some(r) = &self.routes {
            return r.out_iface(self, a, dst);
        }
        self.out_leg(a, dst).out
    }

    /// The first leg of the way from agent `a` to `dst`: the interface `a`
    /// sends on, and the one that strips the packet (`out_iface`, then `strip_from`).
    #[inline(always)]
    pub fn leg(&self, a: AgentId, dst: AgentId) -> Leg {
        let single = self.single[a as usize];
        if self.routes.is_none() && single == NO_IFACE {
            return self.out_leg(a, dst);
        }
        let out = if single != NO_IFACE { single } else { self.out_iface(a, dst) };
        Leg { out, strip: self.strip_from(out, self.ringlet_of(out), dst) }
    }

    /// Starts fetching the routing table's entry `leg(a, dst)` will read,
    /// where it reads one (a hint: in a large network the table is out of
    /// cache, and a packet's head is on its way to `a` meanwhile).
    #[inline(always)]
    pub fn prefetch_leg(&self, a: AgentId, dst: AgentId) {
        if self.out.is_empty() || self.routes.is_some() {
            return;
        }
        let c = self.column[a as usize];
        if c != NO_COLUMN {
            ringlet_engine::hint::prefetch(self.out.as_ptr().wrapping_add(c as usize * self.span + dst as usize));
        }
    }

    /// The leg agent `a`, which has several interfaces, sends on toward
    /// `dst` on shortest-path routes.
    #[inline(always)]
    fn out_leg(&self, a: AgentId, dst: AgentId) -> Leg {
        let c = self.column[a as usize];
        if c == NO_COLUMN || dst as usize >= self.span {
            return NO_LEG;
        }
        if !self.lowest.is_empty() {
            // Every route direct: as `direct_routes` would have written it.
            let out = self.lowest[a as usize];
            return Leg { out, strip: self.strip[dst as usize * self.ringlets.len() + self.ringlet_of[out as usize] as usize] };
        }
        self.out[c as usize * self.span + dst as usize]
    }

    /// The interface on ringlet `r` that strips a packet for `dst` (on
    /// shortest-path routes, where it does not depend on where the packet
    /// joined the ringlet).
    #[inline]
    pub fn strip_iface(&self, r: RingletId, dst: AgentId) -> IfaceId {
        if dst as usize >= self.span {
            return NO_IFACE;
        }
        self.strip[dst as usize * self.ringlets.len() + r as usize]
    }

    /// The interface that strips a packet for `dst` that interface `from`
    /// (on ringlet `r`) puts on its ringlet.
    #[inline]
    pub fn strip_from(&self, from: IfaceId, r: RingletId, dst: AgentId) -> IfaceId {
        match &self.routes {
            None => self.strip_iface(r, dst),
            Some(routes) => routes.strip_from(self, from, dst),
        }
    }
}

/// One leg of a packet's way: the interface an agent sends it on, and the
/// one on that interface's ringlet that strips it. A bridge or switch needs
/// both for every packet it passes on, and in a large network each table
/// look-up is a cache miss: the routing table keeps them side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leg {
    pub out: IfaceId,
    pub strip: IfaceId,
}

/// No leg: the destination is unreachable (or not an endpoint).
pub const NO_LEG: Leg = Leg { out: NO_IFACE, strip: NO_IFACE };

/// An agent with one interface has no column in the routing table.
const NO_COLUMN: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring: interface `i` is agent `i`'s, and every packet is stripped by its destination.
    #[test]
    fn a_ring_is_one_ringlet_of_its_agents() {
        let mut b = TopologyBuilder::new();
        let agents: Vec<_> = (0..5).map(|k| b.agent(format!("node {k}"), true)).collect();
        b.ringlet(&agents.iter().map(|&a| (a, 2000)).collect::<Vec<_>>());
        let t = b.build().unwrap();
        assert_eq!(t.ifaces(), 5);
        for i in 0..5u16 {
            assert_eq!((t.agent_of(i), t.position(i), t.next(i)), (i, i, (i + 1) % 5));
            assert_eq!(t.out_iface(i, (i + 2) % 5), i);
            assert_eq!(t.strip_iface(0, i), i);
        }
        let v = t.view(0);
        assert_eq!((v.distance(3, 1), v.travel(3, 1), v.longest_travel(), v.round()), (3, 6000, 8000, 10_000));
    }

    /// Two ringlets joined by a bridge: a packet for the far side is
    /// stripped by the bridge's interface, which sends it on on the other ringlet.
    #[test]
    fn a_bridge_strips_for_the_far_ringlet() {
        let mut b = TopologyBuilder::new();
        let left: Vec<_> = (0..3).map(|k| b.agent(format!("L{k}"), true)).collect();
        let right: Vec<_> = (0..3).map(|k| b.agent(format!("R{k}"), true)).collect();
        let bridge = b.agent("bridge", false);
        let a = b.ringlet(&[(left[0], 1), (left[1], 1), (left[2], 1), (bridge, 1)]);
        let c = b.ringlet(&[(bridge, 1), (right[0], 1), (right[1], 1), (right[2], 1)]);
        let t = b.build().unwrap();
        let (ba, bc) = (t.agent(bridge).ifaces[0], t.agent(bridge).ifaces[1]);
        assert_eq!((t.ringlet_of(ba), t.ringlet_of(bc)), (a, c));
        assert_eq!(t.endpoints(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(t.strip_iface(a, right[1]), ba);
        assert_eq!(t.strip_iface(c, left[2]), bc);
        assert_eq!(t.strip_iface(a, left[2]), t.agent(left[2]).ifaces[0]);
        assert_eq!(t.out_iface(bridge, right[0]), bc);
        assert_eq!(t.out_iface(bridge, left[0]), ba);
        // Packets are addressed to endpoints only: none to the bridge (beyond the tables' span).
        assert_eq!((t.out_iface(bridge, bridge), t.leg(bridge, bridge).out, t.strip_iface(a, bridge)), (NO_IFACE, NO_IFACE, NO_IFACE));
    }
}
