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
    /// Of own packets of the same priority, the classes take turns (after a
    /// packet of one class, the next class in `precedence` order is looked
    /// at first): GigaRing's virtual channels share a link so that none
    /// starves another. Otherwise `precedence` is strict.
    pub round_robin: bool,
}

impl Classes {
    /// Requests and responses (SCI).
    pub fn requests_and_responses() -> Classes {
        Classes { names: vec!["request", "response"], precedence: vec![1, 0], round_robin: false }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Most kinds of transaction one fabric carries at once (GigaRing's
/// messages, ReadBlk and WriteBlk of several sizes).
pub const MAX_KINDS: usize = 16;

/// What one kind of transaction is on the wire: its requests, and the
/// responses that complete it (none for a responseless transaction such as
/// move64 or a GigaRing message; several for a block read split into
/// packets). A transaction completes when its last packet is serviced at
/// its destination.
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
    /// Request packets one transaction sends: 1, or a block write's data packets.
    pub requests: u16,
    /// Data bytes each packet carrying data holds, the last taking the
    /// rest; 0: an equal share each.
    pub packet_bytes: u32,
    /// Symbols of the last packet carrying data, when its share is smaller
    /// (0: as long as the others).
    pub last_len: u16,
    /// Bytes one transaction counts for in `traffic.load_mbps_per_node`:
    /// its data (SCI rings, GigaRing), or every byte it puts on the link
    /// (the switch study's raw input rate).
    pub load_bytes: u32,
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
    /// (`packet_bytes`, or an equal share; the last takes the rest).
    pub fn data_share(&self, k: u16, n: u16) -> u32 {
        let share = if self.packet_bytes > 0 { self.packet_bytes } else { self.data_bytes / n as u32 };
        if k + 1 == n {
            self.data_bytes - share * (n as u32 - 1)
        } else {
            share
        }
    }

    /// Packets on the side that carries the data (requests or responses).
    pub fn data_packets(&self) -> u16 {
        if self.data_in_response { self.responses } else { self.requests }
    }

    /// Symbols of the `k`-th request (`response` false) or response packet.
    #[inline]
    pub fn len_of(&self, response: bool, k: u16) -> u16 {
        let (len, n) = if response { (self.response_len, self.responses) } else { (self.request_len, self.requests) };
        if self.last_len != 0 && k + 1 == n && self.carries_data(response) {
            self.last_len
        } else {
            len
        }
    }

    /// Whether one transaction has more than one packet on a side (its
    /// packets then carry its slot in the fabric's transaction table).
    pub fn is_multi(&self) -> bool {
        self.requests > 1 || self.responses > 1
    }
}

/// Who carries a serviced request's responses into the output queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Responder {
    /// The input queue's server, holding the request until the output queue
    /// has room for all of them, if the protocol's rules say so (SCI).
    Server,
    /// The agent's DMA engine: the server hands them over and goes on; they
    /// enter output queues one by one as room frees, first come first
    /// (GigaRing, whose ReadBlk answers with more packets than a send buffer holds).
    Dma,
}

/// Which of an agent's interfaces a packet goes out on, when several reach its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingChoice {
    /// The topology's routes (shortest paths, or the family's own).
    Routes,
    /// Per packet, the interface whose output queue for its class holds
    /// the fewest packets (to send, or sent and awaiting their echo); ties
    /// to the fewer hops, then the lower ringlet (GigaRing's automatic load
    /// balancing over its two rings).
    Balance,
    /// The interface with the fewest hops to the destination; ties balanced
    /// as `Balance` does (on an even ring the opposite node is as far both
    /// ways, and ties to one ringlet would load it alone).
    Nearest,
}

/// How many request packets a stream may have outstanding (put into an
/// output queue and not yet accepted by their target).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowPolicy {
    /// No limit beyond the output queue's room.
    Unlimited,
    /// Adaptive congestion control: the window starts at `max`; every busy
    /// echo halves it (not below `min`); a window's worth of accepted
    /// echoes in a row opens it by one, up to `max` (additive increase,
    /// multiplicative decrease).
    Adaptive { min: u16, max: u16 },
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
    /// The kinds of transaction the fabric carries: kind 0 first (the
    /// only one on SCI rings and switches), at most [`MAX_KINDS`].
    pub shapes: Vec<Shape>,
    /// The share of each sender's offered load each kind takes (sums to 1).
    pub shares: Vec<f64>,
    /// Each kind's name (`traffic.transaction`'s, or the family's own for
    /// the kinds of a mix): what a trace's `transaction` column gives.
    pub kind_names: Vec<&'static str>,
    /// How the traffic sources start and where `local` traffic goes.
    pub sources: Sources,
    pub classes: Classes,
    /// How agents' client sides issue and answer transactions.
    pub client: ClientRules,
}

/// The handshake that opens and closes a transaction with responses (a
/// DMA transfer; seed 002: DMA "generally require[s] some form of
/// handshaking to establish the correct memory region within the slave"),
/// with the DMA responder:
///
/// 1. the requester sends a set-up packet, ahead of the transaction's requests;
/// 2. serviced at the responder, it is answered by a ready packet (from the
///    DMA engine); the requests go only once the ready is serviced back at
///    the requester;
/// 3. where the responses carry the data (a block read), the DMA engine
///    follows them with a status packet, and the transaction completes when
///    the responses and the status are all serviced (where the requests
///    carry it, the response is the status).
///
/// Ready and status packets are responses of `status_class`, which must
/// differ from the response class of every kind that has responses (that
/// is how a requester tells them from the data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handshake {
    pub setup_len: u16,
    pub setup_class: u8,
    pub status_len: u16,
    pub status_class: u8,
}

/// How agents' client sides issue and answer transactions. The default is
/// the SCI node's: one interface choice by route, a server that answers,
/// no window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClientRules {
    pub responder: Responder,
    pub ring_choice: RingChoice,
    pub window: WindowPolicy,
    /// Transfers (transactions with responses) a stream may have issued
    /// and not complete at once (a client's DMA engines); 0: no limit. A
    /// transaction without responses (a message) is done with, for its
    /// sender, once accepted: its window bounds it.
    pub transactions_per_stream: u16,
    /// Transactions with responses an agent may have issued and not
    /// complete at once, over all its streams: a requester's response
    /// waiting queue (SCI's RWQ, seed 003 Figure 2), whose slot a request
    /// takes when it goes out and its last response frees. A freed slot goes
    /// in the agent's usual order (its application queue's, highest
    /// priority first; where streams are kept, their turns). 0: no limit.
    pub transactions_per_agent: u16,
    /// With an adaptive window: below its floor, a stream whose request is
    /// busied again waits 1, 3, 7, ... of the packet's round trips before
    /// sending again (one request per 2, 4, 8, ... round trips), down to
    /// one per `backoff` round trips; its blocks whose ready is back do not
    /// wait (their slot is promised), and an accepting echo resets the
    /// doubling, one of its transfers completing the wait. 1: none.
    pub backoff: u16,
    /// Measure the channel latency (from sending a packet that carries
    /// data until its accepting echo is back: seed 002 Figure 6).
    pub channel_latency: bool,
    /// With the DMA responder: the handshake of transactions with responses (`None`: none).
    pub handshake: Option<Handshake>,
    /// With the DMA responder: transfers an agent's DMA engine holds at once
    /// (from the acceptance of a transaction's first packet at the responder
    /// until its last response is put out); a request that would open one
    /// more is busied. 0: no bound.
    pub dma_queue: u32,
    /// Input queue service time per symbol of the packet, added to the
    /// class's `Params::iqst` (a client port that moves a packet's bytes).
    pub service_per_symbol: Time,
    /// A target echoes a send packet once its checksum is in (its tail),
    /// rather than as soon as its header is decoded (IEEE 1596's echo in
    /// the stripped packet's place).
    pub echo_at_tail: bool,
    /// A requester's response time-out (its RWQ's, seed 003: "handles
    /// retransmissions in the event of a timeout condition while the
    /// destination node is servicing a request"): when a transaction's
    /// response has not been serviced this long after its responder
    /// serviced the request, the requester sends the request again. The
    /// first response to be serviced answers it; a later one is dropped.
    /// Single-response transactions only. 0: none.
    pub response_timeout: Time,
}

impl Default for ClientRules {
    fn default() -> Self {
        ClientRules { responder: Responder::Server, ring_choice: RingChoice::Routes, window: WindowPolicy::Unlimited, transactions_per_stream: 0, transactions_per_agent: 0, backoff: 1, channel_latency: false, handshake: None, dma_queue: 0, service_per_symbol: 0, echo_at_tail: false, response_timeout: 0 }
    }
}

impl ClientRules {
    /// Whether the fabric keeps when each packet was last sent: for the
    /// channel latency, and for an adaptive window's hold-off (in round trips).
    #[inline]
    pub fn keeps_send_times(&self) -> bool {
        self.channel_latency || matches!(self.window, WindowPolicy::Adaptive { .. })
    }
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
    /// The one kind of transaction of a fabric that carries one (SCI rings, switches).
    pub fn single(shape: Shape) -> (Vec<Shape>, Vec<f64>) {
        (vec![shape], vec![1.0])
    }

    /// The first kind of transaction (the only one, but on GigaRing).
    #[inline(always)]
    pub fn shape(&self) -> &Shape {
        &self.shapes[0]
    }

    /// The data payload each node offers per priority, MB/s, for a load of
    /// `load` MB/s counted in each kind's `load_bytes` per transaction.
    pub fn offered_data_mbps(&self, load: f64) -> f64 {
        self.shapes
            .iter()
            .zip(&self.shares)
            .map(|(s, &share)| if s.load_bytes == s.data_bytes { load * share } else { load * share * s.data_bytes as f64 / s.load_bytes as f64 })
            .sum()
    }

    /// Whether every transaction takes a slot in the fabric's transaction
    /// table (several kinds, packets, windows or a DMA responder); else
    /// only those of several responses do, as on SCI rings.
    pub fn tracks_transactions(&self) -> bool {
        self.shapes.len() > 1 || self.shapes.iter().any(|s| s.requests > 1) || self.client.responder == Responder::Dma || self.client.window != WindowPolicy::Unlimited || self.client.transactions_per_stream > 0
    }

    /// Whether packets of `class` are requests of some kind: a kind's
    /// requests, or a handshake's set-ups (a ReadBlk's go in its own
    /// class, not the block's read requests').
    pub fn is_request_class(&self, class: u8) -> bool {
        self.shapes.iter().any(|s| s.request_class == class) || self.client.handshake.is_some_and(|h| h.setup_class == class)
    }

    /// Time a packet of `len` symbols occupies a link, with its separator idles.
    #[inline]
    pub fn slot(&self, len: u16) -> Time {
        self.slot_symbols(len) * self.cycle
    }

    /// `slot(len)` in symbols: the packet's and its separator idles.
    #[inline]
    pub fn slot_symbols(&self, len: u16) -> Time {
        (len as u32 + self.separator) as Time
    }

    /// Time packet `pk` occupies a link: its symbols, and the separator
    /// idles after a packet (control symbols ride in the stream without them).
    #[inline]
    pub fn slot_of(&self, pk: &crate::packet::Packet) -> Time {
        if pk.kind == crate::packet::PacketKind::Control { pk.len as Time * self.cycle } else { self.slot(pk.len) }
    }

    /// The longest send packet, symbols.
    pub fn longest_send(&self) -> u16 {
        self.shapes.iter().map(|s| s.request_len.max(s.response_len)).max().unwrap_or(0)
    }
}
