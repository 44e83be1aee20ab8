//! Packet lifetimes as a Chrome trace-event file (the JSON object format
//! that Perfetto and chrome://tracing open).
//!
//! Each agent is a process with, for each of its ring interfaces, one
//! thread per place a packet can be there: its output queues, its output
//! link, its bypass FIFO, its input queues (one per traffic class), and a
//! row for echoes and control symbols reaching it. A packet on a link
//! is a complete event (`X`): a link carries one packet at a time, so these
//! never overlap. Waiting in a queue or FIFO is an async span (`b`/`e`),
//! because several packets wait in one queue at once. Echoes returning,
//! busy echoes, retries, preemptions and control symbols are instants (`i`).
//! An agent with a bus (a switch's B-Link) has a row for it: each packet
//! across is a span from the grant to its arrival in the output queue.

use crate::packet::PacketKind;
use crate::topology::Topology;
use crate::trace::{TraceKind, TraceRecord};
use ringlet_engine::run::TraceWindow;
use ringlet_engine::time::{time_to_ps, Time};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// What a traced run recorded, with what the conversion needs to know.
pub struct TraceOutput {
    pub records: Vec<TraceRecord>,
    /// Records were dropped at the window's `max_records`.
    pub truncated: bool,
    pub window: TraceWindow,
    pub cycle: Time,
    pub topology: Topology,
    /// Traffic class names (an input queue row each).
    pub classes: Vec<&'static str>,
}

/// Thread ids within an agent's process, for its first ring interface;
/// its `k`-th interface's are `k * IFACE_TIDS` further.
const OUTPUT_QUEUE: u32 = 1;
const OUTPUT_LINK: u32 = 2;
const BYPASS_FIFO: u32 = 3;
const ARRIVALS: u32 = 4;
/// The input queue of class `c` is `INPUT_QUEUE + c`.
const INPUT_QUEUE: u32 = 5;
const IFACE_TIDS: u32 = 16;
/// The row of an agent's bus (in its first interface's block, after the rest).
const BUS: u32 = IFACE_TIDS - 1;

/// One trace event. Times are microseconds, as the format wants.
#[derive(Serialize)]
struct Event {
    name: String,
    cat: &'static str,
    ph: &'static str,
    ts: f64,
    pid: u32,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    /// Async span id (`b`/`e`).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    /// Instant scope: thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "Value::is_null")]
    args: Value,
}

fn us(t: Time) -> f64 {
    time_to_ps(t) / 1e6
}

fn kind_name(k: PacketKind) -> &'static str {
    match k {
        PacketKind::Request => "request",
        PacketKind::Response => "response",
        PacketKind::Echo => "echo",
        PacketKind::Control => "control",
    }
}

/// Process (agent) and base thread id of the rows of interface `i`.
fn rows(t: &Topology, i: u16) -> (u32, u32) {
    let agent = t.agent_of(i);
    let k = t.agent(agent).ifaces.iter().position(|&x| x == i).expect("the agent's interface") as u32;
    (agent as u32, k * IFACE_TIDS)
}

fn label(r: &TraceRecord) -> String {
    match r.kind {
        PacketKind::Control => format!("control from {}", r.src),
        k => format!("{} {}→{} p{}", kind_name(k), r.src, r.dst, r.priority),
    }
}

/// Counts of what the trace shows, to compare with the run's counters.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct TraceCounts {
    /// Packets put on a link, in all (every hop of every packet).
    pub link_transmissions: u64,
    /// Requests and responses a node sent from its own output queue (retries included).
    pub send_packets: u64,
    /// Send packets busied at their target (queue full), and busy echoes back at the source.
    pub busied: u64,
    pub retries: u64,
    pub preemptions: u64,
    pub control_arrivals: u64,
    pub serviced: u64,
}

impl TraceOutput {
    /// What the records show, counted.
    pub fn counts(&self) -> TraceCounts {
        let mut c = TraceCounts::default();
        for r in &self.records {
            match r.what {
                TraceKind::Transmit { own } => {
                    c.link_transmissions += 1;
                    if own && matches!(r.kind, PacketKind::Request | PacketKind::Response) {
                        c.send_packets += 1;
                    }
                }
                TraceKind::Busied => c.busied += 1,
                TraceKind::EchoBack { busy: true } => c.retries += 1,
                TraceKind::Preempted => c.preemptions += 1,
                TraceKind::Control => c.control_arrivals += 1,
                TraceKind::Serviced => c.serviced += 1,
                _ => {}
            }
        }
        c
    }

    /// The trace as a Chrome trace-event JSON object, and its `otherData`:
    /// `meta`, the window, the counts and whether it was truncated.
    pub fn to_chrome_json(&self, meta: Value) -> (String, Value) {
        let t = &self.topology;
        let mut events: Vec<Event> = Vec::with_capacity(self.records.len() * 2 + 16 * t.ifaces());
        for (agent, a) in t.agents().iter().enumerate() {
            let pid = agent as u32;
            let meta_event = |name: &str, tid: u32, args: Value| Event {
                name: name.to_string(),
                cat: "__metadata",
                ph: "M",
                ts: 0.0,
                pid,
                tid,
                dur: None,
                id: None,
                s: None,
                args,
            };
            events.push(meta_event("process_name", 0, json!({ "name": a.label })));
            events.push(meta_event("process_sort_index", 0, json!({ "sort_index": pid })));
            if a.bus.is_some() {
                events.push(meta_event("thread_name", BUS, json!({ "name": "bus (B-Link): grant to output queue" })));
                events.push(meta_event("thread_sort_index", BUS, json!({ "sort_index": BUS })));
            }
            for (k, &i) in a.ifaces.iter().enumerate() {
                let base = k as u32 * IFACE_TIDS;
                let on = if a.ifaces.len() > 1 { format!(" (port {k}, ringlet {})", t.ringlet_of(i)) } else { String::new() };
                let mut threads = vec![
                    (OUTPUT_QUEUE, "output queue (own packets)".to_string()),
                    (OUTPUT_LINK, "output link".to_string()),
                    (BYPASS_FIFO, "bypass FIFO".to_string()),
                ];
                threads.extend(self.classes.iter().enumerate().map(|(c, name)| (INPUT_QUEUE + c as u32, format!("{name} input queue"))));
                threads.push((ARRIVALS, "echoes and control symbols in".to_string()));
                for (tid, name) in threads {
                    events.push(meta_event("thread_name", base + tid, json!({ "name": format!("{name}{on}") })));
                    events.push(meta_event("thread_sort_index", base + tid, json!({ "sort_index": base + tid })));
                }
            }
        }
        let mut next_id: u64 = 1;
        // Last link transmission of each packet slot, and from which interface (for bypass waits).
        let mut last_tx: HashMap<u32, (Time, u16)> = HashMap::new();
        // Open input-queue spans: packet slot -> (span id, name, thread, agent).
        let mut in_queue: HashMap<u32, (u64, String, u32, u32)> = HashMap::new();
        // When each packet slot across a bus reached its output queue (a
        // forwarded packet waits there from then, not from its birth).
        let mut delivered: HashMap<u32, Time> = HashMap::new();
        // Open bus spans per agent, in grant order (deliveries come in that order).
        let mut on_bus: HashMap<u32, std::collections::VecDeque<u64>> = HashMap::new();
        #[allow(clippy::too_many_arguments)]
        fn span(events: &mut Vec<Event>, next_id: &mut u64, name: &str, cat: &'static str, pid: u32, tid: u32, from: Time, to: Time, args: Value) {
            let id = *next_id;
            *next_id += 1;
            events.push(Event { name: name.to_string(), cat, ph: "b", ts: us(from), pid, tid, dur: None, id: Some(id), s: None, args });
            events.push(Event { name: name.to_string(), cat, ph: "e", ts: us(to), pid, tid, dur: None, id: Some(id), s: None, args: Value::Null });
        }
        fn instant(events: &mut Vec<Event>, name: String, cat: &'static str, pid: u32, tid: u32, t: Time, args: Value) {
            events.push(Event { name, cat, ph: "i", ts: us(t), pid, tid, dur: None, id: None, s: Some("t"), args });
        }
        for r in &self.records {
            let (pid, base) = rows(t, r.iface);
            let input = base + INPUT_QUEUE + r.class as u32;
            let name = label(r);
            match r.what {
                TraceKind::Transmit { own } => {
                    let args = json!({ "src": r.src, "dst": r.dst, "priority": r.priority, "own": own, "retries": r.retries, "symbols": r.len });
                    let dur = r.len as Time * self.cycle;
                    events.push(Event { name: name.clone(), cat: "link", ph: "X", ts: us(r.time), pid, tid: base + OUTPUT_LINK, dur: Some(us(dur)), id: None, s: None, args });
                    let send = matches!(r.kind, PacketKind::Request | PacketKind::Response);
                    let queued = if own { delivered.remove(&r.pkt) } else { None };
                    if own && send {
                        if r.retries == 0 {
                            // Born before the window (or crossed a bus before it): from the window's start.
                            let from = queued.unwrap_or(r.born.max(self.window.from)).min(r.time);
                            span(&mut events, &mut next_id, &format!("{name} queued"), "queue", pid, base + OUTPUT_QUEUE, from, r.time, json!({ "born_us": us(r.born) }));
                        } else {
                            instant(&mut events, format!("{name} retry {}", r.retries), "retry", pid, base + OUTPUT_QUEUE, r.time, Value::Null);
                        }
                    } else if !own {
                        if let Some(&(prev, from)) = last_tx.get(&r.pkt) {
                            let arrived = prev + t.hop(from);
                            if r.time > arrived {
                                span(&mut events, &mut next_id, &format!("{name} in bypass"), "bypass", pid, base + BYPASS_FIFO, arrived, r.time, Value::Null);
                            }
                        }
                    }
                    last_tx.insert(r.pkt, (r.time, r.iface));
                }
                TraceKind::Accepted => {
                    let id = next_id;
                    next_id += 1;
                    events.push(Event { name: name.clone(), cat: "input", ph: "b", ts: us(r.time), pid, tid: input, dur: None, id: Some(id), s: None, args: json!({ "src": r.src, "priority": r.priority }) });
                    in_queue.insert(r.pkt, (id, name, input, pid));
                    last_tx.remove(&r.pkt);
                }
                TraceKind::Received => {}
                TraceKind::Serviced | TraceKind::Preempted if in_queue.contains_key(&r.pkt) => {
                    let (id, name, tid, _) = in_queue.remove(&r.pkt).expect("checked");
                    let serviced = r.what == TraceKind::Serviced;
                    let args = if serviced { Value::Null } else { json!({ "preempted": true }) };
                    events.push(Event { name: name.clone(), cat: "input", ph: "e", ts: us(r.time), pid, tid, dur: None, id: Some(id), s: None, args });
                    if !serviced {
                        instant(&mut events, format!("{name} preempted"), "preempt", pid, tid, r.time, Value::Null);
                    }
                }
                TraceKind::Serviced => {}
                TraceKind::Preempted => {
                    instant(&mut events, format!("{name} preempted"), "preempt", pid, base + BYPASS_FIFO, r.time, Value::Null);
                }
                TraceKind::Busied => {
                    instant(&mut events, format!("{name} busied"), "busy", pid, input, r.time, Value::Null);
                    last_tx.remove(&r.pkt);
                }
                TraceKind::EchoBack { busy } => {
                    let what = if busy { "busy echo back: retry" } else { "echo back" };
                    instant(&mut events, format!("{what} from {}", r.src), "echo", pid, base + ARRIVALS, r.time, json!({ "busy": busy }));
                    last_tx.remove(&r.pkt);
                }
                TraceKind::Control => {
                    instant(&mut events, name, "control", pid, base + ARRIVALS, r.time, Value::Null);
                }
                TraceKind::Reconfigured { live } => {
                    let what = if live { "ring folded: this interface starts" } else { "ring folded away: this interface stops" };
                    instant(&mut events, what.to_string(), "reconfigure", pid, base + OUTPUT_LINK, r.time, json!({ "live": live }));
                }
                TraceKind::Queued => {
                    instant(&mut events, format!("{name} down the send path"), "queue", pid, base + OUTPUT_QUEUE, r.time, Value::Null);
                }
                TraceKind::BusGranted => {
                    let id = next_id;
                    next_id += 1;
                    let args = json!({ "src": r.src, "dst": r.dst, "from_port": base / IFACE_TIDS });
                    events.push(Event { name: format!("{name} across"), cat: "bus", ph: "b", ts: us(r.time), pid, tid: BUS, dur: None, id: Some(id), s: None, args });
                    on_bus.entry(pid).or_default().push_back(id);
                }
                TraceKind::BusDelivered => {
                    delivered.insert(r.pkt, r.time);
                    if let Some(id) = on_bus.get_mut(&pid).and_then(|q| q.pop_front()) {
                        let args = json!({ "to_port": base / IFACE_TIDS });
                        events.push(Event { name: format!("{name} across"), cat: "bus", ph: "e", ts: us(r.time), pid, tid: BUS, dur: None, id: Some(id), s: None, args });
                    }
                }
            }
        }
        // Packets still in an input queue when the trace ends: close their
        // spans there (marked unfinished) so every span has its end.
        let end = self.records.last().map_or(0, |r| r.time);
        let mut open: Vec<_> = in_queue.into_iter().collect();
        open.sort_by_key(|(_, (id, ..))| *id); // HashMap order is not deterministic
        for (_, (id, name, tid, agent)) in open {
            events.push(Event { name, cat: "input", ph: "e", ts: us(end), pid: agent, tid, dur: None, id: Some(id), s: None, args: json!({ "unfinished": true }) });
        }
        let window_end = if self.window.to == Time::MAX { Value::Null } else { json!(us(self.window.to) * 1000.0) };
        let other = json!({
            "ringlet": meta,
            "from_ns": us(self.window.from) * 1000.0,
            "to_ns": window_end,
            "records": self.records.len(),
            "truncated": self.truncated,
            "counts": self.counts(),
        });
        // Serialised straight from the events (no intermediate JSON tree: a
        // full trace is a few hundred thousand events).
        let doc = Document { trace_events: &events, display_time_unit: "ns", other_data: &other };
        (serde_json::to_string(&doc).expect("trace serialises"), other)
    }
}

/// The trace-event JSON object format's top level.
#[derive(Serialize)]
struct Document<'a> {
    #[serde(rename = "traceEvents")]
    trace_events: &'a [Event],
    #[serde(rename = "displayTimeUnit")]
    display_time_unit: &'static str,
    #[serde(rename = "otherData")]
    other_data: &'a Value,
}
