//! What a failure loses (`reconfigure`): the transactions a failed agent
//! was requester or target of, at the change ("at the fold") or generated
//! for it afterwards ("after the fold"), and which agents have failed.

use super::Fabric;
use crate::protocol::RingProtocol;
use ringlet_engine::Time;

impl<P: RingProtocol> Fabric<P> {
    /// Every transaction the failed agents were requester or target of is
    /// lost: counted, its waiting entries and DMA jobs dropped, its slot kept
    /// (as lost) until the run ends so that its packets still somewhere are
    /// dropped when they are serviced.
    pub(super) fn lose_transactions_of_failed(&mut self, now: Time) {
        for tag in self.txns.live_tags() {
            let t = self.txns.get(tag);
            if !self.lost_tags.contains(&tag) && (self.has_failed(t.src) || self.has_failed(t.dst)) {
                self.lost_tags.insert(tag);
                // A live slave's DMA engine drops the transfer of a failed
                // master: the slot it held takes another. (A failed one's is
                // never read again.)
                self.free_dma_slot(t.dst as usize, tag);
                if self.p.shapes[t.kind as usize].has_response() {
                    self.streams[t.stream as usize].state.in_flight -= 1;
                    self.release_response_slot(t.src as usize);
                }
                self.lose(now, t.src, self.p.shapes[t.kind as usize].data_bytes, true);
            }
        }
        for s in 0..self.streams.len() {
            let queue = std::mem::take(&mut self.streams[s].queue);
            for e in queue {
                let agent = self.stream_agent(s);
                if self.has_failed(agent) || self.has_failed(e.dst) {
                    self.apps[agent as usize].waiting -= 1;
                    // One issued in part is lost with its slot, above.
                    if e.tag == crate::packet::NO_TAG {
                        self.lose(now, agent, self.p.shapes[e.kind as usize].data_bytes, true);
                    }
                } else {
                    self.streams[s].queue.push_back(e);
                }
            }
            // A block whose ready is back waits to send its requests: if its
            // transaction is lost (above), they go nowhere. Left here, they
            // went to an interface the fold retired and never came back: a
            // request counted against its stream's window for ever.
            let lost = &self.lost_tags;
            let before = self.streams[s].ready.len();
            self.streams[s].ready.retain(|e| !lost.contains(&e.tag));
            let (dropped, agent) = ((before - self.streams[s].ready.len()) as u32, self.stream_agent(s));
            self.apps[agent as usize].waiting -= dropped;
        }
        for a in 0..self.dma.len() {
            let lost = &self.lost_tags;
            self.dma[a].retain(|j| !lost.contains(&j.tag));
        }
    }

    /// A transaction of `agent` carrying `bytes` is lost with a failed
    /// agent: at the change (`at_fold`), or generated for one afterwards.
    pub(super) fn lose(&mut self, now: Time, agent: u16, bytes: u32, at_fold: bool) {
        self.lost += 1;
        self.note_ended(agent, false);
        let c = &mut self.reconfiguration_counts;
        *if at_fold { &mut c.lost_at_fold } else { &mut c.lost_after_fold } += 1;
        self.measure.lost(now, bytes, agent);
        self.measure.series_lost(now);
        self.check_drained();
    }

    /// A hand-injected transaction from agent `src` (dead) or to `dst`
    /// (known dead) is lost at once; returns whether it was.
    pub(super) fn injected_for_failed(&mut self, src: u16, dst: u16, kind: u8) -> bool {
        if !(self.has_failed(src) || self.knows_failed(dst)) {
            return false;
        }
        self.note_generated(src);
        self.lose(self.sched.now(), src, self.p.shapes[kind as usize].data_bytes, false);
        true
    }

    /// Whether agent `a` has failed (in a fabric that changed).
    #[inline(always)]
    pub(super) fn has_failed(&self, a: u16) -> bool {
        !self.failed.is_empty() && self.failed[a as usize]
    }

    /// Whether agent `a` has failed and the network has changed since
    /// (sources know: what they generate for it is lost at once).
    #[inline(always)]
    pub(super) fn knows_failed(&self, a: u16) -> bool {
        !self.failed.is_empty() && self.fold.known[a as usize]
    }
}
