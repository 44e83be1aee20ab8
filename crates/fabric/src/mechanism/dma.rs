//! An agent's DMA engine (`params::Responder::Dma`): the responses a
//! serviced request asks for (a ReadBlk's data packets, a WriteBlk's
//! acknowledgement), and with a handshake the ready answering a set-up and
//! the status after a block's data, wait here, first come first, and enter
//! output queues one by one as room frees, each on the interface the ring
//! choice gives. Where the engine holds a bounded number of transfers
//! (`ClientRules::dma_queue`), a transfer's slot is freed when its last
//! packet is put out.

use super::Fabric;
use crate::client::{stage, DmaJob, Txn};
use crate::packet::{Packet, PacketKind};
use crate::params::Shape;
use crate::protocol::RingProtocol;

impl<P: RingProtocol> Fabric<P> {
    /// Puts agent `a`'s waiting responses into output queues while they have room.
    pub(super) fn dma_fill(&mut self, a: usize) {
        let now = self.sched.now();
        let mut moved = false;
        while let Some(&job) = self.dma[a].front() {
            let shape = self.p.shapes[job.kind as usize];
            let (class, len) = self.dma_packet(&job, &shape);
            let (o, to) = self.route_packet(a as u16, job.dst, class);
            if !self.ifaces[o].output(class).has_room() {
                break;
            }
            let mut pk = Packet::new(PacketKind::Response, class, a as u16, job.dst, job.priority, len, now).on(o as u16, to);
            pk.tag = job.tag;
            let id = self.slab.alloc(pk);
            self.queue_own(o, class, job.priority, id);
            moved = true;
            let head = self.dma[a].front_mut().expect("a job");
            head.sent += 1;
            if head.sent == self.dma_packets(&job, &shape) {
                self.dma[a].pop_front();
                if !job.ready {
                    // The transfer is done here: its slot takes the next one.
                    self.free_dma_slot(a, job.tag);
                }
            }
        }
        if moved {
            self.try_outputs(a);
        }
    }

    /// Packets job `job` puts out: a ready; or the responses, and a status
    /// after data-carrying responses under a handshake.
    fn dma_packets(&self, job: &DmaJob, shape: &Shape) -> u16 {
        match self.p.client.handshake {
            Some(_) if job.ready => 1,
            Some(_) if shape.data_in_response => shape.responses + 1,
            _ => shape.responses,
        }
    }

    /// Class and symbols of job `job`'s next packet.
    fn dma_packet(&self, job: &DmaJob, shape: &Shape) -> (u8, u16) {
        match self.p.client.handshake {
            Some(h) if job.ready || job.sent == shape.responses => (h.status_class, h.status_len),
            _ => (shape.response_class, shape.len_of(true, job.sent)),
        }
    }

    /// Whether the transactions of `shape` open with a handshake.
    #[inline]
    pub(super) fn handshakes(&self, shape: &Shape) -> bool {
        self.p.client.handshake.is_some() && shape.has_response()
    }

    /// Whether send packet `pk` arriving at agent `me` is a request its
    /// bounded DMA engine (`ClientRules::dma_queue`) has a say on.
    #[inline]
    pub(super) fn dma_bounded(&self, me: u16, pk: &Packet) -> bool {
        self.p.client.dma_queue > 0 && pk.kind == PacketKind::Request && pk.dst == me
    }

    /// Whether request `pk` arriving at agent `me` would open one more
    /// transfer at its DMA engine when it holds all it may: then it is
    /// busied. A transfer opens with its set-up (the engine's ready is its
    /// promise: the block's requests are never busied for want of a
    /// slot), or without a handshake with its first request. Otherwise, if
    /// it opens one, the slot is its transaction's from now on (`take`: it
    /// is being accepted).
    pub(super) fn dma_full(&mut self, me: usize, pk: &Packet, take: bool) -> bool {
        let t: Txn = self.txns.get(pk.tag);
        if t.dma_held || !self.p.shapes[t.kind as usize].has_response() {
            return false;
        }
        if self.dma_held[me] >= self.p.client.dma_queue {
            return true;
        }
        if take {
            self.dma_held[me] += 1;
            self.txns.set(pk.tag, Txn { dma_held: true, ..t });
        }
        false
    }

    /// Transaction `tag`'s transfer leaves agent `a`'s DMA engine (done, or
    /// lost with a failed node): the slot it holds, if any, is free.
    pub(super) fn free_dma_slot(&mut self, a: usize, tag: u32) {
        let t: Txn = self.txns.get(tag);
        if t.dma_held {
            self.dma_held[a] -= 1;
            self.txns.set(tag, Txn { dma_held: false, ..t });
        }
    }

    /// The set-up of transaction `pk.tag` is serviced at its responder
    /// `me`: the DMA engine answers with the ready.
    pub(super) fn setup_in(&mut self, me: usize, pk: &Packet, kind: u8) {
        self.dma[me].push_back(DmaJob { ready: true, dst: pk.src, priority: pk.priority, kind, tag: pk.tag, sent: 0 });
        self.dma_fill(me);
    }

    /// Whether a transaction `t` under a handshake still waits for its status.
    #[inline]
    pub(super) fn awaits_status(&self, t: &Txn, shape: &Shape) -> bool {
        self.handshakes(shape) && shape.data_in_response && t.stage != stage::STATUS_IN
    }
}
