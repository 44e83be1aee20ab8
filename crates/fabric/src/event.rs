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
    /// A transaction of `kind` injected by hand (tests) enters agent `src`'s application queue.
    Inject { src: u16, dst: u16, priority: u16, kind: u8 },
    /// A busied packet's retry hold-off is over: it rejoins its output queue.
    Requeue { iface: u16, pkt: u32 },
    /// A protocol's delayed control packet leaves its interface; `pending`
    /// is its length and tag's slot in the fabric's table of them.
    EmitControl { iface: u16, pending: u32 },
    /// An agent's internal bus (a switch's B-Link) ends a transfer: the
    /// port it came from frees its input slot, and the bus grants the next.
    BusFree { agent: u16 },
    /// A packet on its way into the output queue of interface `iface`
    /// reaches it: across the agent's bus (after the bus-to-FIFO delay), or
    /// down the agent's send path.
    Queued { iface: u16, pkt: u32 },
    /// The network changes: the fabric's reconfiguration `index` happens.
    Reconfigure { index: u32 },
    /// The next rows of a trace are due (`traffic.source = "trace"`).
    TraceRow,
    /// A stream's hold-off below its congestion window's floor is over.
    StreamWake { stream: u32 },
    /// A read's response time-out (`ClientRules::response_timeout`, the
    /// requester's RWQ): transaction `txn` may have to be asked again.
    ResponseTimeout { txn: u32 },
}

impl Event {
    /// The event as one integer, the form the scheduler keeps: kind in bits
    /// 0-3, interface (or agent) in bits 4-19 (up to 65535), a 12-bit
    /// field in bits 20-31 and a 32-bit one in bits 32-63. Built in a
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
            Event::Inject { src, dst, priority, kind } => (5, src, kind as u16, dst as u32 | (priority as u32) << 16),
            Event::Requeue { iface, pkt } => (6, iface, 0, pkt),
            Event::EmitControl { iface, pending } => (7, iface, 0, pending),
            Event::BusFree { agent } => (8, agent, 0, 0),
            Event::Queued { iface, pkt } => (9, iface, 0, pkt),
            Event::Reconfigure { index } => (10, 0, 0, index),
            Event::TraceRow => (11, 0, 0, 0),
            Event::StreamWake { stream } => (12, 0, 0, stream),
            Event::ResponseTimeout { txn } => (13, 0, 0, txn),
        };
        debug_assert!(a <= Self::A_MASK, "field {a} does not fit the packed event's 12 bits");
        kind | (node as u64) << Self::NODE_SHIFT | ((a & Self::A_MASK) as u64) << Self::A_SHIFT | (b as u64) << 32
    }

    /// The kinds' names, by packed kind (`ringlet bench` counts events by them).
    pub const KIND_NAMES: [&'static str; 14] = [
        "arrival",
        "head_arrive",
        "output_free",
        "echo_in",
        "service_done",
        "inject",
        "requeue",
        "emit_control",
        "bus_free",
        "queued",
        "reconfigure",
        "trace_row",
        "stream_wake",
        "response_timeout",
    ];

    /// The packed kind of a packed event (an index into `KIND_NAMES`).
    #[inline(always)]
    pub fn kind(x: u64) -> usize {
        (x & Self::KIND_MASK) as usize
    }

    /// Packed kind of an `OutputFree` (as `pack` numbers the kinds).
    pub const OUTPUT_FREE: u64 = 2;
    const KIND_MASK: u64 = 15;
    const NODE_SHIFT: u32 = 4;
    const A_SHIFT: u32 = 20;
    const A_MASK: u16 = 0xfff;

    /// The interface field of a packed event.
    #[inline(always)]
    fn packed_node(x: u64) -> u16 {
        (x >> Self::NODE_SHIFT) as u16
    }

    /// The interface of a packed `OutputFree`, or `None` for any other event.
    #[inline(always)]
    pub fn output_free_iface(x: u64) -> Option<u16> {
        (x & Self::KIND_MASK == Self::OUTPUT_FREE).then_some(Self::packed_node(x))
    }

    #[inline(always)]
    pub fn unpack(x: u64) -> Event {
        let node = Self::packed_node(x);
        let a = (x >> Self::A_SHIFT) as u16 & Self::A_MASK;
        let b = (x >> 32) as u32;
        match x & Self::KIND_MASK {
            0 => Event::Arrival { source: b },
            1 => Event::HeadArrive { iface: node, pkt: b },
            Self::OUTPUT_FREE => Event::OutputFree { iface: node },
            3 => Event::EchoIn { iface: node, pkt: b },
            4 => Event::ServiceDone { iface: node, class: a as u8 },
            5 => Event::Inject { src: node, dst: b as u16, priority: (b >> 16) as u16, kind: a as u8 },
            6 => Event::Requeue { iface: node, pkt: b },
            7 => Event::EmitControl { iface: node, pending: b },
            8 => Event::BusFree { agent: node },
            9 => Event::Queued { iface: node, pkt: b },
            11 => Event::TraceRow,
            12 => Event::StreamWake { stream: b },
            13 => Event::ResponseTimeout { txn: b },
            _ => Event::Reconfigure { index: b },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Event;

    /// Every kind of event survives packing with each field at its extremes
    /// (interface ids up to 65535, the most a topology may have).
    #[test]
    fn packed_events_unpack_to_themselves() {
        let mut events = Vec::new();
        for (iface, wide, narrow) in [(0u16, 0u32, 0u16), (u16::MAX, u32::MAX, u16::MAX), (1234, 0x8000_0001, 0x8001)] {
            events.extend([
                Event::Arrival { source: wide },
                Event::HeadArrive { iface, pkt: wide },
                Event::OutputFree { iface },
                Event::EchoIn { iface, pkt: wide },
                Event::ServiceDone { iface, class: narrow as u8 & 3 },
                Event::Inject { src: iface, dst: narrow, priority: narrow, kind: narrow as u8 },
                Event::Requeue { iface, pkt: wide },
                Event::EmitControl { iface, pending: wide },
                Event::BusFree { agent: iface },
                Event::Queued { iface, pkt: wide },
                Event::Reconfigure { index: wide },
                Event::TraceRow,
                Event::StreamWake { stream: wide },
                Event::ResponseTimeout { txn: wide },
            ]);
        }
        for e in events {
            let packed = e.pack();
            assert_eq!(Event::unpack(packed), e, "{packed:#x}");
            let is_output_free = matches!(e, Event::OutputFree { .. });
            assert_eq!(Event::output_free_iface(packed).is_some(), is_output_free, "{e:?}");
            let name = format!("{e:?}").split(' ').next().expect("a name").to_string();
            let snake: String = name.chars().enumerate().flat_map(|(k, c)| (k > 0 && c.is_uppercase()).then_some('_').into_iter().chain(c.to_lowercase())).collect();
            assert_eq!(Event::KIND_NAMES[Event::kind(packed)], snake, "{e:?}");
        }
    }
}
