//! What a traced run records: one record per step of a packet's life at
//! one ring interface. Tests of hand-built fabrics read the records; `ringlet
//! trace` turns them into a Chrome trace (`crate::chrome_trace`).

use crate::packet::{Packet, PacketKind};
use ringlet_engine::run::TraceWindow;
use ringlet_engine::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// Head of a packet leaves an interface's output; `own` if that
    /// interface put it on the ringlet.
    Transmit { own: bool },
    Accepted,
    Busied,
    /// Tail of an accepted send packet in the input queue. Written when the
    /// packet is accepted, with the tail's time, so it can precede records
    /// of earlier times.
    Received,
    /// Echo fully back at the interface it answers.
    EchoBack { busy: bool },
    Serviced,
    /// A waiting packet evicted from an input queue, or a bypass packet
    /// turned into a busy echo (PPQ).
    Preempted,
    /// A control packet reaches an interface (DFC symbols, TRAIN train, PPQ message).
    Control,
    /// A serviced packet wins its agent's bus at the interface it came in
    /// on (after the arbitration, where the bus was idle: a record may
    /// precede records of earlier times).
    BusGranted,
    /// A packet across the bus reaches the output queue of the interface it leaves from.
    BusDelivered,
    /// An own packet down its agent's send path reaches its output queue.
    Queued,
    /// The interface stops at a reconfiguration (its ring folded away), or
    /// (`live`) starts carrying traffic. No packet: `pkt` is `u32::MAX`.
    Reconfigured { live: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: Time,
    /// The ring interface where it happened.
    pub iface: u16,
    pub what: TraceKind,
    pub kind: PacketKind,
    pub class: u8,
    /// The packet's end agents (see `Packet::src`).
    pub src: u16,
    pub dst: u16,
    pub priority: u16,
    /// The packet's slab slot (reused once the packet is gone).
    pub pkt: u32,
    /// Length in symbols.
    pub len: u16,
    /// When the packet entered its queue (send packets: the latency start).
    pub born: Time,
    /// Times the packet was busied before this record.
    pub retries: u16,
}

/// The records of a traced run, inside its window and up to its size bound.
#[derive(Clone, Debug)]
pub struct Recorder {
    pub records: Vec<TraceRecord>,
    pub window: TraceWindow,
    /// Records were dropped because the trace reached `window.max_records`.
    pub truncated: bool,
}

impl Recorder {
    pub fn new(window: TraceWindow) -> Self {
        Recorder { records: Vec::new(), window, truncated: false }
    }

    /// Keeps a change of interface `iface` at `time` that concerns no packet
    /// (`TraceKind::Reconfigured`), its agent `agent`.
    pub fn keep_change(&mut self, time: Time, iface: u16, agent: u16, what: TraceKind) {
        let pk = Packet::new(PacketKind::Control, 0, agent, agent, 0, 0, time);
        self.keep(time, iface, what, u32::MAX, &pk);
    }

    /// Keeps what happens to `pk` (slot `pkt`) at interface `iface` at `time`, if in the window.
    pub fn keep(&mut self, time: Time, iface: u16, what: TraceKind, pkt: u32, pk: &Packet) {
        let w = self.window;
        if time < w.from || time > w.to {
            return;
        }
        if self.records.len() >= w.max_records {
            self.truncated = true;
            return;
        }
        self.records.push(TraceRecord {
            time,
            iface,
            what,
            kind: pk.kind,
            class: pk.class,
            src: pk.src,
            dst: pk.dst,
            priority: pk.priority,
            pkt,
            len: pk.len,
            born: pk.born,
            retries: pk.retries as u16,
        });
    }
}
