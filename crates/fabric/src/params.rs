//! What the ring interfaces of one fabric share: symbol timing, packet
//! sizes, queue sizes and traffic classes. A family derives them from its
//! scenario keys; link timing is the topology's.

use ringlet_engine::Time;

/// Most traffic classes an interface has queues for (GigaRing's four
/// virtual channels; SCI has two, requests and responses).
pub const MAX_CLASSES: usize = 4;

/// The traffic classes of a fabric: each has its own output queue and
/// input queue (with its server) at every interface.
#[derive(Clone, Debug)]
pub struct Classes {
    /// Their names, for reports ("request", "response").
    pub names: Vec<&'static str>,
    /// The order an interface looks at its output queues in: of two own
    /// packets of the same priority, the one whose class comes first goes
    /// first (SCI: responses, so a node drains the work that frees other
    /// nodes' resources).
    pub precedence: Vec<u8>,
}

impl Classes {
    /// Requests and responses (SCI).
    pub fn requests_and_responses() -> Classes {
        Classes { names: vec!["request", "response"], precedence: vec![1, 0] }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// What one transaction is on the wire: a request, and the responses that
/// complete it (none for a responseless transaction such as move64; several
/// for a block read split into packets). A transaction completes when its
/// last packet is serviced at its destination.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub request_len: u16,
    pub request_class: u8,
    /// Symbols of each response (0 when there are none).
    pub response_len: u16,
    pub response_class: u8,
    /// Responses answering one request: 0 for responseless transactions.
    pub responses: u16,
    /// Data payload bytes the transaction delivers.
    pub data_bytes: u32,
    /// True if the data travels in the response (read64), false if in the request.
    pub data_in_response: bool,
}

impl Shape {
    pub fn has_response(&self) -> bool {
        self.responses > 0
    }

    /// Whether a response (or, `false`, a request) carries the data.
    #[inline]
    pub fn carries_data(&self, response: bool) -> bool {
        response == self.data_in_response
    }

    /// The data bytes the `k`-th of `n` packets carrying them delivers
    /// (an equal share, the last taking what does not divide).
    pub fn data_share(&self, k: u16, n: u16) -> u32 {
        let share = self.data_bytes / n as u32;
        if k + 1 == n {
            self.data_bytes - share * (n as u32 - 1)
        } else {
            share
        }
    }
}

#[derive(Clone, Debug)]
pub struct Params {
    /// One symbol time.
    pub cycle: Time,
    /// Idle symbols that follow every packet.
    pub separator: u32,
    pub echo_len: u16,
    pub bypass_fifo_symbols: u32,
    /// Input queue service time per class: a server takes this long per packet.
    pub iqst: [Time; MAX_CLASSES],
    /// Input queue size per class, packets.
    pub input_queue: [u32; MAX_CLASSES],
    /// Output queue size (every class), packets, counting sent packets awaiting their echo.
    pub output_queue: u32,
    pub shape: Shape,
    /// Bytes one transaction counts for in `traffic.load_mbps_per_node`:
    /// its data (SCI rings), or every byte it puts on the link (the switch
    /// study's raw input rate).
    pub load_bytes: u32,
    /// How the traffic sources start and where `local` traffic goes.
    pub sources: Sources,
    pub classes: Classes,
}

/// How traffic sources behave beyond the core `[traffic]` keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sources {
    /// Deterministic sources all start at time 0 (the switch study's "at the
    /// same time"), rather than each at a random phase.
    pub aligned: bool,
    /// With `local` destinations, the fraction of transactions that go to
    /// the local receiver; the rest are uniform over the other receivers.
    pub locality: f64,
}

impl Default for Sources {
    /// Random phases; `local` traffic all local.
    fn default() -> Self {
        Sources { aligned: false, locality: 1.0 }
    }
}

impl Params {
    /// The data payload each node offers per priority, MB/s, for a load of
    /// `load` MB/s counted in `load_bytes` per transaction.
    pub fn offered_data_mbps(&self, load: f64) -> f64 {
        if self.load_bytes == self.shape.data_bytes {
            load
        } else {
            load * self.shape.data_bytes as f64 / self.load_bytes as f64
        }
    }

    /// Time a packet of `len` symbols occupies a link, with its separator idles.
    #[inline]
    pub fn slot(&self, len: u16) -> Time {
        (len as u32 + self.separator) as Time * self.cycle
    }

    /// Time packet `pk` occupies a link: its symbols, and the separator
    /// idles after a packet (control symbols ride in the stream without them).
    #[inline]
    pub fn slot_of(&self, pk: &crate::packet::Packet) -> Time {
        if pk.kind == crate::packet::PacketKind::Control { pk.len as Time * self.cycle } else { self.slot(pk.len) }
    }

    /// The longest send packet, symbols.
    pub fn longest_send(&self) -> u16 {
        self.shape.request_len.max(self.shape.response_len)
    }
}
