//! Which stream each transaction belongs to, where agents keep streams
//! (`Params::tracks_transactions`): the unit an agent's window of
//! outstanding requests, its hold-off and its transfers in flight count
//! (seed 002: congestion control "limiting the number of outstanding
//! request packets for each stream"), and that takes turns at its agent's
//! output queues.
//!
//! A traffic source generates one kind of transaction at one priority.
//! Where the protocol keeps priority queues, each source is a stream of its
//! own. Where it does not, the priority levels are labels the network never
//! sees, and an agent's sources of one kind are one stream: as many windows
//! as levels would let an agent of eighteen levels send eighteen times the
//! retries congestion control allows one (76 masters' 1,368 streams kept a
//! GigaRing slave's DMA engine busying set-ups at 1.9 of 8.8 MB/s), and the
//! order of its requests would differ from the same traffic untracked, whose
//! application queue there is one FIFO.

use crate::traffic::Source;

/// The streams' numbering: the traffic sources' streams first (in the order
/// of their first source), then one per agent for its hand-injected
/// transactions and trace rows.
#[derive(Debug, Default)]
pub(super) struct StreamMap {
    /// Per traffic source: its stream.
    pub of_source: Vec<u32>,
    /// Per stream: its agent.
    pub agent: Vec<u16>,
    /// Streams of traffic sources; the agents' own follow.
    pub sourced: u32,
    /// Per agent: its streams, in the order they take turns.
    pub of_agent: Vec<Vec<u32>>,
}

impl StreamMap {
    pub fn new(sources: &[Source], agents: usize, priority_queues: bool) -> StreamMap {
        let mut m = StreamMap { of_agent: vec![Vec::new(); agents], ..Default::default() };
        // (agent, kind) -> its stream, where levels share one.
        let mut shared: std::collections::HashMap<(u16, u8), u32> = Default::default();
        for src in sources {
            let fresh = m.agent.len() as u32;
            let s = if priority_queues { fresh } else { *shared.entry((src.agent, src.kind)).or_insert(fresh) };
            if s == fresh {
                m.agent.push(src.agent);
                m.of_agent[src.agent as usize].push(s);
            }
            m.of_source.push(s);
        }
        m.sourced = m.agent.len() as u32;
        for a in 0..agents {
            m.of_agent[a].push(m.sourced + a as u32);
            m.agent.push(a as u16);
        }
        m
    }

    /// All streams, the agents' own included.
    pub fn len(&self) -> usize {
        self.agent.len()
    }

    /// The stream of agent `a`'s hand-injected transactions and trace rows.
    pub fn own(&self, a: u16) -> u32 {
        self.sourced + a as u32
    }
}
