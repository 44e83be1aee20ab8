//! The routing tables: shortest routes to every endpoint, found by a
//! breadth-first search from it over the graph of agents and ringlets
//! (direct where every ringlet has the destination on it).

use super::{AgentId, IfaceId, Leg, Topology, NO_COLUMN, NO_IFACE, NO_LEG};

impl Topology {
    /// Shortest routes to every destination. Most are direct: a ringlet a
    /// destination sits on strips at its own interface, and an agent that
    /// shares a ringlet with it sends on that one. Only destinations some
    /// ringlet or agent cannot reach directly (across a bridge or switch)
    /// need a search, and only their routes need checking: on a ring none do.
    pub(super) fn route(&mut self) -> Result<(), String> {
        let (na, nr, span) = (self.agents.len(), self.ringlets.len(), self.span);
        self.strip = vec![NO_IFACE; span * nr];
        self.single = self.agents.iter().map(|a| if a.ifaces.len() == 1 { a.ifaces[0] } else { NO_IFACE }).collect();
        let mut columns = 0;
        self.column = self.agents.iter().map(|a| if a.ifaces.len() > 1 { columns += 1; columns as u32 - 1 } else { NO_COLUMN }).collect();
        self.columns = columns;
        if self.endpoints.iter().all(|&d| self.agents[d as usize].ifaces.len() == nr) {
            self.lowest = self.agents.iter().map(|a| a.ifaces.iter().copied().min().unwrap_or(NO_IFACE)).collect();
        } else {
            self.out = vec![NO_LEG; span * columns];
        }
        if let Some(&a) = self.endpoints.iter().find(|&&a| self.agents[a as usize].ifaces.is_empty()) {
            if let Some(&d) = self.endpoints.iter().find(|&&d| d != a) {
                return Err(format!("{} cannot reach {}", self.agents[a as usize].label, self.agents[d as usize].label));
            }
        }
        // Each agent's interfaces and each ringlet's, flat: the search reads them for every
        // destination, and a pointer per agent (its `Vec`) was a cache miss apiece.
        let mut agent_start = Vec::with_capacity(na + 1);
        let mut agent_ifaces = Vec::with_capacity(self.next.len());
        for a in &self.agents {
            agent_start.push(agent_ifaces.len() as u32);
            agent_ifaces.extend_from_slice(&a.ifaces);
        }
        agent_start.push(agent_ifaces.len() as u32);
        let mut ringlet_start: Vec<u32> = self.ringlets.iter().map(|r| r.first().map_or(0, |&i| i as u32)).collect();
        ringlet_start.push(self.next.len() as u32);
        let mut search = Search {
            agent_level: vec![u32::MAX; na],
            ringlet_level: vec![u32::MAX; nr],
            agents: Vec::new(),
            ringlets: Vec::new(),
            agent_start,
            agent_ifaces,
            ringlet_start,
        };
        // The first (sender, destination) pair, in agent order, that has no route.
        let mut unreachable: Option<(AgentId, AgentId)> = None;
        // Packets are addressed to endpoints only: no routes to the others.
        // Each destination's legs are found as a row (one leg per agent of
        // several interfaces), `ROWS` destinations at a time, then laid out
        // agent by agent (`out[c * span + d]`): a packet's look-ups are
        // scattered either way, but the analytic estimate walks each
        // source's destinations in turn, and an agent's legs to consecutive
        // destinations then share cache lines; writing each leg straight
        // into its agent's column cost a cache miss apiece, most of a large
        // Banyan's build.
        let mut rows = Rows { legs: vec![NO_LEG; if self.out.is_empty() { 0 } else { ROWS * columns }], of: Vec::with_capacity(ROWS) };
        let mut searched = Vec::new();
        for d in self.endpoints.clone() {
            let row = rows.next(d as usize, columns);
            if self.direct_routes(d as usize, row) {
                rows.flush_if_full(&mut self.out, span, columns);
                continue;
            }
            self.shortest_routes(d as usize, row, &mut search);
            rows.flush_if_full(&mut self.out, span, columns);
            searched.push(d);
        }
        rows.flush(&mut self.out, span, columns);
        for d in searched {
            for &a in &self.endpoints {
                let out = self.out_iface(a, d);
                if a != d && (out == NO_IFACE || self.strip_iface(self.ringlet_of(out), d) == NO_IFACE) {
                    if unreachable.is_none_or(|u| (a, d) < u) {
                        unreachable = Some((a, d));
                    }
                    break;
                }
            }
        }
        match unreachable {
            Some((a, d)) => Err(format!("{} cannot reach {}", self.agents[a as usize].label, self.agents[d as usize].label)),
            None => Ok(()),
        }
    }

    /// The direct routes to endpoint `d`: its own interface strips on each
    /// ringlet it sits on; an agent with several interfaces sends on its
    /// lowest one on a ringlet `d` sits on. Returns whether every route to
    /// `d` is direct, having set them; if not, sets nothing (the search
    /// sets them all).
    fn direct_routes(&mut self, d: usize, row: &mut [Leg]) -> bool {
        let nr = self.ringlets.len();
        // Some ringlet does not have `d` on it: its packets for `d` go across a bridge or switch.
        if self.agents[d].ifaces.len() != nr {
            return false;
        }
        let strip = &mut self.strip[d * nr..(d + 1) * nr];
        for &i in &self.agents[d].ifaces {
            strip[self.ringlet_of[i as usize] as usize] = i;
        }
        if !self.lowest.is_empty() {
            return true; // (`out_leg` reads the legs off `lowest` and `strip`.)
        }
        for (a, &c) in self.column.iter().enumerate() {
            if c != NO_COLUMN {
                // (`d` is on every ringlet: any interface is on one it sits on.)
                let out = self.agents[a].ifaces.iter().copied().min().unwrap_or(NO_IFACE);
                row[c as usize] = Leg { out, strip: strip[self.ringlet_of[out as usize] as usize] };
            }
        }
        true
    }

    /// Every route to endpoint `d`, by breadth-first search from it over
    /// the graph of agents and ringlets; ties go to the lowest interface id.
    ///
    /// A ringlet's stripping interface is its member closest to the
    /// destination, and an agent sends on its interface on a ringlet
    /// closest to it: both are found as the search first reaches them, from
    /// the level before theirs (the lowest id among the interfaces it
    /// reaches them by), so each interface is looked at twice per
    /// destination, not each ringlet and agent once more after the search.
    /// What the search does not reach keeps `NO_IFACE`.
    fn shortest_routes(&mut self, d: usize, row: &mut [Leg], search: &mut Search) {
        let nr = self.ringlets.len();
        let strip = &mut self.strip[d * nr..(d + 1) * nr];
        let Search { agent_level, ringlet_level, agents, ringlets, agent_start, agent_ifaces, ringlet_start } = search;
        agent_level.fill(u32::MAX);
        ringlet_level.fill(u32::MAX);
        agent_level[d] = 0;
        if self.column[d] != NO_COLUMN {
            // Its lowest interface, which strips on that ringlet.
            let out = self.agents[d].ifaces.iter().copied().min().unwrap_or(NO_IFACE);
            row[self.column[d] as usize] = Leg { out, strip: out };
        }
        agents.clear();
        agents.push(d);
        let mut level = 0;
        while !agents.is_empty() {
            ringlets.clear();
            for &a in agents.iter() {
                for &i in &agent_ifaces[agent_start[a] as usize..agent_start[a + 1] as usize] {
                    let r = self.ringlet_of[i as usize] as usize;
                    // (`d`'s own interface, on a ringlet it sits on.)
                    if ringlet_level[r] == u32::MAX {
                        ringlet_level[r] = level + 1;
                        ringlets.push(r);
                        strip[r] = i;
                    } else if ringlet_level[r] == level + 1 {
                        strip[r] = strip[r].min(i);
                    }
                }
            }
            agents.clear();
            // (The ringlets' stripping interfaces are final: the legs through them may be set.)
            for &r in ringlets.iter() {
                // (A ringlet's interfaces are consecutive ids.)
                for i in ringlet_start[r] as IfaceId..ringlet_start[r + 1] as IfaceId {
                    let a = self.agent_of[i as usize] as usize;
                    let first = agent_level[a] == u32::MAX;
                    if first {
                        agent_level[a] = level + 2;
                        agents.push(a);
                    } else if agent_level[a] != level + 2 {
                        continue; // closer to `d` than this ringlet
                    }
                    let c = self.column[a];
                    if c != NO_COLUMN && (first || i < row[c as usize].out) {
                        row[c as usize] = Leg { out: i, strip: strip[r] };
                    }
                }
            }
            level += 2;
        }
    }
}

/// Destinations whose legs are found together before they are laid out
/// agent by agent: sixteen legs of 4 bytes fill a cache line of an agent's
/// column.
const ROWS: usize = 16;

/// The legs of up to `ROWS` destinations, a row each (`legs[k * columns + c]`),
/// and which destination each row is for.
struct Rows {
    legs: Vec<Leg>,
    of: Vec<usize>,
}

impl Rows {
    /// Destination `d`'s row, empty (no legs: every route is direct and
    /// none is kept, `Topology::lowest`).
    fn next(&mut self, d: usize, columns: usize) -> &mut [Leg] {
        if self.legs.is_empty() {
            return &mut [];
        }
        let k = self.of.len();
        self.of.push(d);
        let row = &mut self.legs[k * columns..(k + 1) * columns];
        row.fill(NO_LEG);
        row
    }

    fn flush_if_full(&mut self, out: &mut [Leg], span: usize, columns: usize) {
        if self.of.len() == ROWS {
            self.flush(out, span, columns);
        }
    }

    /// Lays the rows out agent by agent: `out[c * span + d]`.
    fn flush(&mut self, out: &mut [Leg], span: usize, columns: usize) {
        for c in 0..columns {
            for (k, &d) in self.of.iter().enumerate() {
                out[c * span + d] = self.legs[k * columns + c];
            }
        }
        self.of.clear();
    }
}

/// A breadth-first search's levels and frontiers, reused from one
/// destination to the next.
struct Search {
    agent_level: Vec<u32>,
    ringlet_level: Vec<u32>,
    /// The agents at the level being left, then those at the next.
    agents: Vec<usize>,
    /// The ringlets between them.
    ringlets: Vec<usize>,
    /// `agent_ifaces[agent_start[a]..agent_start[a + 1]]`: agent `a`'s interfaces.
    agent_start: Vec<u32>,
    agent_ifaces: Vec<IfaceId>,
    /// Ringlet `r`'s interfaces: ids `ringlet_start[r]..ringlet_start[r + 1]`.
    ringlet_start: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// The routes as the search defined them before it found them on the
    /// way: every level first, then each ringlet's member and each agent's
    /// interface closest to `d`, ties to the lowest id.
    fn reference_routes(t: &Topology, d: usize) -> (Vec<IfaceId>, Vec<Option<IfaceId>>) {
        let (na, nr) = (t.agents.len(), t.ringlets.len());
        let (mut agent_level, mut ringlet_level) = (vec![u32::MAX; na], vec![u32::MAX; nr]);
        agent_level[d] = 0;
        let (mut frontier, mut level) = (vec![d], 0);
        while !frontier.is_empty() {
            let mut ringlets = Vec::new();
            for &a in &frontier {
                for &i in &t.agents[a].ifaces {
                    let r = t.ringlet_of[i as usize] as usize;
                    if ringlet_level[r] == u32::MAX {
                        ringlet_level[r] = level + 1;
                        ringlets.push(r);
                    }
                }
            }
            frontier.clear();
            for &r in &ringlets {
                for &i in &t.ringlets[r] {
                    let a = t.agent_of[i as usize] as usize;
                    if agent_level[a] == u32::MAX {
                        agent_level[a] = level + 2;
                        frontier.push(a);
                    }
                }
            }
            level += 2;
        }
        let agent_of = |i: IfaceId| t.agent_of[i as usize] as usize;
        let strip = (0..nr).map(|r| t.ringlets[r].iter().copied().filter(|&i| agent_level[agent_of(i)] != u32::MAX).min_by_key(|&i| (agent_level[agent_of(i)], i)).unwrap_or(NO_IFACE)).collect();
        let ringlet_of = |i: IfaceId| t.ringlet_of[i as usize] as usize;
        let out = (0..na)
            .map(|a| (t.agents[a].ifaces.len() > 1).then(|| t.agents[a].ifaces.iter().copied().filter(|&i| ringlet_level[ringlet_of(i)] != u32::MAX).min_by_key(|&i| (ringlet_level[ringlet_of(i)], i)).unwrap_or(NO_IFACE)))
            .collect();
        (strip, out)
    }

    /// Random networks of ringlets joined by agents on several of them
    /// (bridges, switches, endpoints on two ringlets): the search's routes
    /// are the reference's, ringlet by ringlet and agent by agent.
    #[test]
    fn the_search_finds_the_closest_members_and_lowest_ids() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut searched = 0;
        for _ in 0..300 {
            let mut b = TopologyBuilder::new();
            let n = rng.gen_range(2..12);
            let agents: Vec<AgentId> = (0..n).map(|k| b.agent(format!("a{k}"), rng.gen_bool(0.6))).collect();
            // A chain of ringlets, each sharing an agent with the one before, then a few more anywhere.
            let mut joined = vec![agents[0]];
            for r in 0..rng.gen_range(1..8) {
                let mut members: Vec<AgentId> = vec![joined[rng.gen_range(0..joined.len())]];
                for _ in 0..rng.gen_range(1..4) {
                    let a = agents[rng.gen_range(0..n)];
                    if !members.contains(&a) {
                        members.push(a);
                    }
                }
                if members.len() < 2 || (r > 3 && rng.gen_bool(0.3)) {
                    members = agents.iter().copied().filter(|_| rng.gen_bool(0.5)).take(4).collect();
                }
                if members.len() < 2 {
                    continue;
                }
                joined.extend(members.iter().copied());
                b.ringlet(&members.iter().map(|&a| (a, 1)).collect::<Vec<_>>());
            }
            let Ok(t) = b.build() else { continue };
            searched += usize::from(t.ringlets() > 1);
            for &d in t.endpoints() {
                let (strip, out) = reference_routes(&t, d as usize);
                for (r, &want) in strip.iter().enumerate() {
                    assert_eq!(t.strip_iface(r as RingletId, d), want, "ringlet {r} toward {d}");
                }
                for (a, want) in out.iter().enumerate() {
                    if let Some(want) = *want {
                        let a = a as AgentId;
                        assert_eq!(t.out_iface(a, d), want, "agent {a} toward {d}");
                        let strip = if want == NO_IFACE { NO_IFACE } else { strip[t.ringlet_of(want) as usize] };
                        assert_eq!(t.leg(a, d), Leg { out: want, strip }, "agent {a}'s leg toward {d}");
                    }
                }
            }
        }
        assert!(searched > 100, "only {searched} networks of several ringlets built");
    }

    #[test]
    fn unreachable_and_malformed_networks_are_refused() {
        let mut b = TopologyBuilder::new();
        let (x, y, z, w) = (b.agent("x", true), b.agent("y", true), b.agent("z", true), b.agent("w", true));
        b.ringlet(&[(x, 1), (y, 1)]);
        b.ringlet(&[(z, 1), (w, 1)]);
        assert_eq!(b.build().unwrap_err(), "x cannot reach z");
        let mut b = TopologyBuilder::new();
        let x = b.agent("x", true);
        b.ringlet(&[(x, 1), (x, 1)]);
        assert_eq!(b.build().unwrap_err(), "ringlet 0: agent 0 (x) sits on it twice");
        let mut b = TopologyBuilder::new();
        let x = b.agent("x", true);
        b.ringlet(&[(x, 1)]);
        assert_eq!(b.build().unwrap_err(), "ringlet 0: expected at least 2 ring interfaces, got 1");
    }
}
