//! The fabric's events, and how each is packed into the one integer the
//! scheduler keeps.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A traffic source generates a transaction.
    Arrival { source: u32 },
    /// A send or control packet's head reaches the ring interface that
    /// strips it (after link and bypass delay). Packets that only pass an
    /// interface need no event: they are put straight into its bypass FIFO
    /// with their arrival time. Nor does an echo's head: nothing happens
    /// until its tail is in.
    HeadArrive { iface: u16, pkt: u32 },
    /// An interface decides what its output link sends next (the link has
    /// become free, or a passing packet arrives at an idle link).
    OutputFree { iface: u16 },
    /// An echo is completely received by the interface it answers
    /// (scheduled when the echo leaves the interface before it).
    EchoIn { iface: u16, pkt: u32 },
    /// The server of an interface's input queue of `class` finishes one
    /// packet (its service time elapsed).
    ServiceDone { iface: u16, class: u8 },
    /// A transaction injected by hand (tests) enters agent `src`'s application queue.
    Inject { src: u16, dst: u16, priority: u16 },
    /// A busied packet's retry hold-off is over: it rejoins its output queue.
    Requeue { iface: u16, pkt: u32 },
    /// A protocol's delayed control packet leaves its interface.
    EmitControl { iface: u16, len: u16, tag: u32 },
}

impl Event {
    /// The event as one integer, the form the scheduler keeps: kind in bits
    /// 0-2, interface (or agent) in bits 3-15 (at most 8191), a 16-bit
    /// field in bits 16-31 and a 32-bit one in bits 32-63. Built in a
    /// register: an enum is written to memory field by field and read back
    /// whole, which defeats the processor's store-to-load forwarding on
    /// every event scheduled (7% of `perf`'s samples fell on one such store;
    /// packing saved 3% of the run time).
    #[inline(always)]
    pub fn pack(self) -> u64 {
        let (kind, node, a, b): (u64, u16, u16, u32) = match self {
            Event::Arrival { source } => (0, 0, 0, source),
            Event::HeadArrive { iface, pkt } => (1, iface, 0, pkt),
            Event::OutputFree { iface } => (Self::OUTPUT_FREE, iface, 0, 0),
            Event::EchoIn { iface, pkt } => (3, iface, 0, pkt),
            Event::ServiceDone { iface, class } => (4, iface, class as u16, 0),
            Event::Inject { src, dst, priority } => (5, src, dst, priority as u32),
            Event::Requeue { iface, pkt } => (6, iface, 0, pkt),
            Event::EmitControl { iface, len, tag } => (7, iface, len, tag),
        };
        debug_assert!(node <= Self::NODE_MASK, "interface id {node} does not fit the packed event");
        kind | (node as u64) << Self::NODE_SHIFT | (a as u64) << 16 | (b as u64) << 32
    }

    /// Packed kind of an `OutputFree` (as `pack` numbers the kinds).
    const OUTPUT_FREE: u64 = 2;
    const KIND_MASK: u64 = 7;
    const NODE_SHIFT: u32 = 3;
    const NODE_MASK: u16 = 0x1fff;

    /// The interface field of a packed event.
    #[inline(always)]
    fn packed_node(x: u64) -> u16 {
        (x >> Self::NODE_SHIFT) as u16 & Self::NODE_MASK
    }

    /// The interface of a packed `OutputFree`, or `None` for any other event.
    #[inline(always)]
    pub fn output_free_iface(x: u64) -> Option<u16> {
        (x & Self::KIND_MASK == Self::OUTPUT_FREE).then_some(Self::packed_node(x))
    }

    #[inline(always)]
    pub fn unpack(x: u64) -> Event {
        let node = Self::packed_node(x);
        let a = (x >> 16) as u16;
        let b = (x >> 32) as u32;
        match x & Self::KIND_MASK {
            0 => Event::Arrival { source: b },
            1 => Event::HeadArrive { iface: node, pkt: b },
            Self::OUTPUT_FREE => Event::OutputFree { iface: node },
            3 => Event::EchoIn { iface: node, pkt: b },
            4 => Event::ServiceDone { iface: node, class: a as u8 },
            5 => Event::Inject { src: node, dst: a, priority: b as u16 },
            6 => Event::Requeue { iface: node, pkt: b },
            _ => Event::EmitControl { iface: node, len: a, tag: b },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Event;

    /// Every kind of event survives packing with each field at its extremes
    /// (interface ids up to 8191, the most a topology may have).
    #[test]
    fn packed_events_unpack_to_themselves() {
        let mut events = Vec::new();
        for (iface, wide, narrow) in [(0u16, 0u32, 0u16), (8191, u32::MAX, u16::MAX), (1234, 0x8000_0001, 0x8001)] {
            events.extend([
                Event::Arrival { source: wide },
                Event::HeadArrive { iface, pkt: wide },
                Event::OutputFree { iface },
                Event::EchoIn { iface, pkt: wide },
                Event::ServiceDone { iface, class: narrow as u8 & 3 },
                Event::Inject { src: iface, dst: narrow, priority: narrow },
                Event::Requeue { iface, pkt: wide },
                Event::EmitControl { iface, len: narrow, tag: wide },
            ]);
        }
        for e in events {
            let packed = e.pack();
            assert_eq!(Event::unpack(packed), e, "{packed:#x}");
            let is_output_free = matches!(e, Event::OutputFree { .. });
            assert_eq!(Event::output_free_iface(packed).is_some(), is_output_free, "{e:?}");
        }
    }
}
