//! Packets and the slab that stores them without per-packet allocation.

use crate::topology::{AgentId, IfaceId, NO_IFACE};
use ringlet_engine::Time;

/// What a packet is. Requests and responses are *send packets*: the target
/// strips them and answers with an *echo* in their place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Request,
    Response,
    Echo,
    /// A protocol's own symbols (DFC control symbols, TRAIN's train, PPQ
    /// inheritance messages): every node on the way reads them, the
    /// protocol decides where they end.
    Control,
}

/// The queue-allocation phase a send packet carries (IEEE 1596; see
/// docs/model-sci.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// NOTRY: sent for the first time, or retried after a busy echo that reserved nothing (BUSY_N).
    Fresh,
    /// DOTRY: retried after a BUSY_D echo; if busied again, the target reserves space for it.
    DoTry,
    /// RETRY_A (0) / RETRY_B (1): space is reserved for it in that phase (BUSY_A / BUSY_B).
    Retry(u8),
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PacketKind,
    /// A send packet's traffic class: the output and input queues it uses.
    pub class: u8,
    /// The agents it goes between, end to end (for an echo: the agent
    /// answering, and the agent of the interface it answers).
    pub src: AgentId,
    pub dst: AgentId,
    /// The ring interface that put it on its current ringlet (an echo goes
    /// back there), and the one that strips it there.
    pub from: IfaceId,
    pub to: IfaceId,
    /// The priority the application gave (statistics are kept per this).
    pub priority: u16,
    /// The priority queues order by: `priority`, unless raised by PPQ's
    /// priority inheritance.
    pub eff: u16,
    /// Length in symbols (excluding the separating idles).
    pub len: u16,
    /// For send packets: when it entered its application/output queue (latency start).
    pub born: Time,
    /// For send packets: when it entered the output queue it is sent from
    /// (a request waits in the application queue first; a response or a
    /// packet sent on by a bridge is created into it). TRAIN orders tickets by it.
    /// For a control packet: when it came into the bypass FIFO it is in
    /// (it may be held there past that, see `RingProtocol::control_hold`).
    /// For a send packet accepted into a delay-line input queue (a switch
    /// port's FIFO to its bus): when its tail was in.
    pub queued_at: Time,
    /// For send packets: the phase of the next transmission.
    pub phase: Phase,
    /// For echoes: the send packet echoed, whether busy, and the phase
    /// granted. For a stream's request packet (where the fabric keeps
    /// transactions): its stream, which its echo carries back in `tag`.
    pub echo_of: u32,
    /// For echoes: the class of the send packet echoed (it may be gone by
    /// the time an accepting echo returns: the target can service it first).
    pub echoed_class: u8,
    pub busy: bool,
    pub echo_phase: Phase,
    /// Times this send packet was busied and sent again (at most 255 counted).
    pub retries: u8,
    /// The traffic-control field (US patent 6,205,119; with
    /// `Rules::traffic_control`): bits a node the send packet passes may
    /// set, copied by its target into the echo, read by its source.
    pub traffic_control: u8,
    /// For control packets: the protocol's tag for what they carry. For
    /// the responses of a transaction that has several: its slot in the
    /// fabric's table of transactions awaiting their responses (`NO_TAG`
    /// otherwise).
    pub tag: u32,
    /// Debug builds: the send packet's identity, the same in every copy of
    /// it (a packet sent on across a bridge, a target's copy of what it
    /// accepted), for the audit that no packet is delivered twice
    /// (`Slab::alloc` gives a new one, `Slab::alloc_copy` keeps it).
    #[cfg(debug_assertions)]
    pub serial: u64,
}

/// A packet's `tag` when it carries none.
pub const NO_TAG: u32 = u32::MAX;

impl Packet {
    /// A packet of `kind` and `class` from agent `src` to agent `dst`, not
    /// yet on a ringlet (see [`Packet::on`]).
    pub fn new(kind: PacketKind, class: u8, src: AgentId, dst: AgentId, priority: u16, len: u16, born: Time) -> Packet {
        Packet {
            kind,
            class,
            src,
            dst,
            from: NO_IFACE,
            to: NO_IFACE,
            priority,
            eff: priority,
            len,
            born,
            queued_at: born,
            phase: Phase::Fresh,
            echo_of: u32::MAX,
            echoed_class: class,
            busy: false,
            echo_phase: Phase::Fresh,
            retries: 0,
            traffic_control: 0,
            tag: NO_TAG,
            #[cfg(debug_assertions)]
            serial: 0,
        }
    }

    /// The packet put on a ringlet by interface `from`, to be stripped by interface `to`.
    pub fn on(mut self, from: IfaceId, to: IfaceId) -> Packet {
        self.from = from;
        self.to = to;
        self
    }

    pub fn is_send(&self) -> bool {
        matches!(self.kind, PacketKind::Request | PacketKind::Response)
    }

    /// The agent whose transaction a send packet belongs to: the requester.
    #[inline]
    pub fn requester(&self) -> AgentId {
        if self.kind == PacketKind::Response {
            self.dst
        } else {
            self.src
        }
    }
}

/// Packets live in a slab indexed by `u32`; freed slots are reused, so the
/// steady state allocates nothing.
#[derive(Default)]
pub struct Slab {
    items: Vec<Packet>,
    free: Vec<u32>,
    live_send: u64,
    /// Debug builds: which slots hold a packet, to catch a slot freed twice
    /// or read after it was freed (an event outliving its packet).
    #[cfg(debug_assertions)]
    live: Vec<bool>,
    /// Debug builds: the next send packet's identity.
    #[cfg(debug_assertions)]
    serials: u64,
}

impl Slab {
    pub fn with_capacity(n: usize) -> Slab {
        Slab { items: Vec::with_capacity(n), free: Vec::with_capacity(n), live_send: 0, #[cfg(debug_assertions)] live: Vec::with_capacity(n), #[cfg(debug_assertions)] serials: 0 }
    }

    /// A new packet (a send packet gets an identity of its own).
    pub fn alloc(&mut self, #[allow(unused_mut)] mut p: Packet) -> u32 {
        #[cfg(debug_assertions)]
        if p.is_send() {
            self.serials += 1;
            p.serial = self.serials;
        }
        self.alloc_copy(p)
    }

    /// Another copy of a send packet already in the fabric: the same
    /// packet sent on, or a target's own copy of what it accepted.
    pub fn alloc_copy(&mut self, p: Packet) -> u32 {
        if p.is_send() {
            self.live_send += 1;
        }
        let id = if let Some(i) = self.free.pop() {
            self.items[i as usize] = p;
            i
        } else {
            self.items.push(p);
            (self.items.len() - 1) as u32
        };
        #[cfg(debug_assertions)]
        {
            self.live.resize(self.items.len(), false);
            self.live[id as usize] = true;
        }
        id
    }

    pub fn free(&mut self, id: u32) {
        #[cfg(debug_assertions)]
        {
            assert!(self.live[id as usize], "packet slot {id} freed twice");
            self.live[id as usize] = false;
        }
        if self.items[id as usize].is_send() {
            self.live_send -= 1;
        }
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.items[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.items[id as usize]
    }

    /// Packet `id` without a bounds check, for the ring's hot path: the
    /// ring's ids come only from [`Slab::alloc`] and the slab never shrinks
    /// (a stale id reads a reused slot, never out of bounds). Crate-private,
    /// so no caller outside can break that; debug builds (every `cargo
    /// test`) check. The check costs about 2% of a ring simulation.
    #[inline]
    pub(crate) fn at(&self, id: u32) -> &Packet {
        debug_assert!((id as usize) < self.items.len(), "packet id {id} never allocated");
        // SAFETY: see above; `id < self.items.len()`.
        unsafe { self.items.get_unchecked(id as usize) }
    }

    #[inline]
    pub(crate) fn at_mut(&mut self, id: u32) -> &mut Packet {
        debug_assert!((id as usize) < self.items.len(), "packet id {id} never allocated");
        // SAFETY: as for `at`.
        unsafe { self.items.get_unchecked_mut(id as usize) }
    }

    /// Whether slot `id` holds a packet (debug builds; always true in release
    /// builds, where the check is not kept).
    pub fn is_live(&self, id: u32) -> bool {
        #[cfg(debug_assertions)]
        {
            self.live.get(id as usize).copied().unwrap_or(false)
        }
        #[cfg(not(debug_assertions))]
        {
            let _ = id;
            true
        }
    }

    /// Send packets (requests and responses) alive: one per transaction in flight.
    pub fn live_send(&self) -> u64 {
        self.live_send
    }

    /// Packets alive, of every kind (send packets, echoes, control packets).
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }

    /// The most packets alive at once so far (slots are reused, never dropped).
    pub fn peak(&self) -> u64 {
        self.items.len() as u64
    }
}
