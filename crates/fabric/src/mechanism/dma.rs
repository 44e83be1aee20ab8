//! An agent's DMA engine (`params::Responder::Dma`): the responses a
//! serviced request asks for (a ReadBlk's data packets, a WriteBlk's
//! acknowledgement) wait here, first come first, and enter output queues
//! one by one as room frees, each on the interface the ring choice gives.

use super::Fabric;
use crate::packet::{Packet, PacketKind};
use crate::protocol::RingProtocol;

impl<P: RingProtocol> Fabric<P> {
    /// Puts agent `a`'s waiting responses into output queues while they have room.
    pub(super) fn dma_fill(&mut self, a: usize) {
        let now = self.sched.now();
        let mut moved = false;
        while let Some(&job) = self.dma[a].front() {
            let shape = self.p.shapes[job.kind as usize];
            let class = shape.response_class;
            let (o, to) = self.route_packet(a as u16, job.dst, class);
            if !self.ifaces[o].output(class).has_room() {
                break;
            }
            let mut pk = Packet::new(PacketKind::Response, class, a as u16, job.dst, job.priority, shape.len_of(true, job.sent), now).on(o as u16, to);
            pk.tag = job.tag;
            let id = self.slab.alloc(pk);
            self.queue_own(o, class, job.priority, id);
            moved = true;
            let head = self.dma[a].front_mut().expect("a job");
            head.sent += 1;
            if head.sent == shape.responses {
                self.dma[a].pop_front();
            }
        }
        if moved {
            self.try_outputs(a);
        }
    }
}
