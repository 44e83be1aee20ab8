//! A bare register-insertion ring on ringlet's engine: roughly the fastest
//! an event-per-transmission design on it can go, for comparison with the
//! real model (docs/performance.md, "Session 19").
//!
//! It runs the reference workload's traffic (8 nodes, read64, uniform,
//! Poisson, 150 MB/s per node, IQST 100 ns) with the model's event
//! structure and timing conventions: one output decision per transmission,
//! passing packets put straight into the next node's bypass FIFO, the
//! register-insertion rule, echoes stripped at their source, request output
//! queues of 5. It leaves out everything else the real model does: no
//! protocol (no DFC control symbols, no go bits), unbounded input queues
//! (so no busy echoes or retries), no priorities, no statistics beyond a
//! count, no trace hooks. So it is a rough lower bound on what a faithful
//! model costs per hop (written plainly, not tuned), not a model: do not
//! read its throughput as SCI's.
//!
//! ```text
//! cargo run --release -p ringlet-sci --example ring_skeleton [TRANSACTIONS]
//! ```

use rand::Rng;
use rand_distr::{Distribution, Exp};
use ringlet_engine::rng::{Stream, StreamSeeds};
use ringlet_engine::{Scheduler, Time};
use ringlet_sci::protocol::Payloads;
use std::collections::VecDeque;

const NODES: usize = 8;
/// One 16-bit symbol at 2 ns, in ps.
const CYCLE: Time = 2000;
/// Link delay 0 plus one cycle of node delay.
const HOP: Time = 2000;
/// Idle symbols after every packet.
const SEPARATOR: Time = 1;
/// read64: 16-byte request, 80-byte response, 8-byte echo, in symbols.
const REQUEST: u16 = 8;
const RESPONSE: u16 = 40;
const ECHO: u16 = 4;
const IQST: Time = 100_000;
const OUTPUT_QUEUE: usize = 5;
const LOAD_MBPS: f64 = 150.0;

/// Event kinds, packed with the node in bits 3-15 and a packet id in bits 32-63.
const ARRIVAL: u64 = 0;
const HEAD_ARRIVE: u64 = 1;
const OUTPUT_FREE: u64 = 2;
const ECHO_IN: u64 = 3;
const SERVICE_DONE: u64 = 4;
/// No output decision pending.
const NO_DECISION: Time = Time::MAX;

fn pack(kind: u64, node: usize, x: u32) -> u64 {
    kind | (node as u64) << 3 | (x as u64) << 32
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Request,
    Response,
    Echo,
}

#[derive(Clone, Copy)]
struct Packet {
    kind: Kind,
    src: u16,
    dst: u16,
    len: u16,
    /// When the transaction entered its application queue. Nothing here
    /// reads it (no latency is kept); it is carried as the model's packets
    /// carry it, so that packets and queues weigh what the model's do.
    born: Time,
    /// An echo: whether it answers a request (else a response).
    echoes_request: bool,
}

struct Node {
    /// Transactions waiting for room in the request output queue: (born, target).
    app: VecDeque<(Time, u16)>,
    requests: VecDeque<u32>,
    /// Requests sent or waiting, not yet echoed (the output queue's occupancy).
    requests_held: usize,
    responses: VecDeque<u32>,
    /// Passing packets and the time each can leave.
    bypass: VecDeque<(u32, Time)>,
    out_free_at: Time,
    decision_at: Time,
    /// Input queues (responder, requestor) and whether each server is busy.
    inputs: [VecDeque<u32>; 2],
    serving: [bool; 2],
}

struct Ring {
    nodes: Vec<Node>,
    /// Packets by id (a free list reuses ids).
    slab: Payloads<Packet>,
    sched: Scheduler<u64>,
    streams: Vec<Stream>,
    gaps: Exp<f64>,
    hops: u64,
    completed: u64,
}

impl Ring {
    fn new(seed: u64) -> Ring {
        let seeds = StreamSeeds::new(seed);
        let node = || Node {
            app: VecDeque::new(),
            requests: VecDeque::new(),
            requests_held: 0,
            responses: VecDeque::new(),
            bypass: VecDeque::new(),
            out_free_at: 0,
            decision_at: NO_DECISION,
            inputs: [VecDeque::new(), VecDeque::new()],
            serving: [false; 2],
        };
        // 64 data bytes per transaction; rate per ps.
        let per_ps = LOAD_MBPS * 1e6 / 64.0 * 1e-12;
        let mut ring = Ring {
            nodes: (0..NODES).map(|_| node()).collect(),
            slab: Payloads::new(),
            sched: Scheduler::with_capacity(64),
            streams: (0..NODES as u64).map(|i| seeds.stream(i)).collect(),
            gaps: Exp::new(per_ps).expect("positive rate"),
            hops: 0,
            completed: 0,
        };
        for n in 0..NODES {
            let gap = ring.gap(n);
            ring.sched.at(gap, pack(ARRIVAL, n, 0));
        }
        ring
    }

    fn gap(&mut self, node: usize) -> Time {
        (self.gaps.sample(&mut self.streams[node]) as Time).max(1)
    }

    /// An output decision at `node` no later than `at` (or when its link frees).
    fn decide_at(&mut self, node: usize, at: Time) {
        let now = self.sched.now();
        let n = &mut self.nodes[node];
        let at = at.max(n.out_free_at);
        if n.decision_at > at || n.decision_at < now {
            n.decision_at = at;
            self.sched.at(at, pack(OUTPUT_FREE, node, 0));
        }
    }

    fn transmit(&mut self, node: usize, id: u32) {
        let now = self.sched.now();
        let p = self.slab.get(id);
        let slot = (p.len as Time + SEPARATOR) * CYCLE;
        let n = &mut self.nodes[node];
        n.out_free_at = now + slot;
        n.decision_at = now + slot;
        self.sched.at(now + slot, pack(OUTPUT_FREE, node, 0));
        let next = if node + 1 == NODES { 0 } else { node + 1 };
        let ready = now + HOP;
        // Hops counted as the model counts them: one per node a packet
        // passes or is stripped by (a send packet's last one at its head).
        if p.dst as usize == next {
            if p.kind == Kind::Echo {
                self.hops += 1;
                self.sched.at(ready + p.len as Time * CYCLE, pack(ECHO_IN, next, id));
            } else {
                self.sched.at(ready, pack(HEAD_ARRIVE, next, id));
            }
        } else {
            self.hops += 1;
            self.nodes[next].bypass.push_back((id, ready));
            self.decide_at(next, ready);
        }
    }

    /// Register insertion: what arrived before now drains first; an own
    /// packet (responses first) may start ahead of one arriving now.
    fn decide(&mut self, node: usize) {
        let now = self.sched.now();
        let n = &mut self.nodes[node];
        if let Some(&(id, ready)) = n.bypass.front() {
            if ready < now {
                n.bypass.pop_front();
                return self.transmit(node, id);
            }
        }
        if let Some(id) = n.responses.pop_front().or_else(|| n.requests.pop_front()) {
            return self.transmit(node, id);
        }
        match n.bypass.front() {
            Some(&(id, ready)) if ready <= now => {
                n.bypass.pop_front();
                self.transmit(node, id)
            }
            Some(&(_, ready)) => self.decide_at(node, ready),
            None => {}
        }
    }

    fn try_output(&mut self, node: usize) {
        let now = self.sched.now();
        let n = &self.nodes[node];
        if n.out_free_at <= now && n.decision_at != now {
            self.decide(node);
        }
    }

    fn fill_requests(&mut self, node: usize) {
        while self.nodes[node].requests_held < OUTPUT_QUEUE {
            let Some((born, dst)) = self.nodes[node].app.pop_front() else { break };
            let id = self.slab.put(Packet { kind: Kind::Request, src: node as u16, dst, len: REQUEST, born, echoes_request: false });
            let n = &mut self.nodes[node];
            n.requests.push_back(id);
            n.requests_held += 1;
        }
    }

    fn start_service(&mut self, node: usize, side: usize) {
        let n = &mut self.nodes[node];
        if !n.serving[side] && !n.inputs[side].is_empty() {
            n.serving[side] = true;
            self.sched.after(IQST, pack(SERVICE_DONE, node, side as u32));
        }
    }

    fn handle(&mut self, event: u64) {
        let node = ((event >> 3) & 0x1fff) as usize;
        let x = (event >> 32) as u32;
        let now = self.sched.now();
        match event & 7 {
            OUTPUT_FREE => {
                let n = &mut self.nodes[node];
                if n.decision_at == now {
                    n.decision_at = NO_DECISION;
                }
                if n.out_free_at <= now {
                    self.decide(node);
                }
            }
            ARRIVAL => {
                let gap = self.gap(node);
                self.sched.after(gap, pack(ARRIVAL, node, 0));
                let mut dst = self.streams[node].gen_range(0..NODES as u16 - 1);
                if dst as usize >= node {
                    dst += 1;
                }
                self.nodes[node].app.push_back((now, dst));
                self.fill_requests(node);
                self.try_output(node);
            }
            HEAD_ARRIVE => {
                self.hops += 1;
                let p = self.slab.get(x);
                let side = (p.kind == Kind::Response) as usize;
                self.nodes[node].inputs[side].push_back(x);
                let echo = Packet { kind: Kind::Echo, src: node as u16, dst: p.src, len: ECHO, born: now, echoes_request: side == 0 };
                let e = self.slab.put(echo);
                self.nodes[node].bypass.push_back((e, now));
                self.start_service(node, side);
                self.decide_at(node, now);
            }
            ECHO_IN => {
                let p = self.slab.get(x);
                self.slab.release(x);
                if p.echoes_request {
                    self.nodes[node].requests_held -= 1;
                    self.fill_requests(node);
                }
                self.try_output(node);
            }
            _ => {
                let side = x as usize;
                let n = &mut self.nodes[node];
                n.serving[side] = false;
                let id = n.inputs[side].pop_front().expect("a packet in service");
                let p = self.slab.get(id);
                self.slab.release(id);
                if side == 0 {
                    let response = Packet { kind: Kind::Response, src: node as u16, dst: p.src, len: RESPONSE, born: p.born, echoes_request: false };
                    let r = self.slab.put(response);
                    self.nodes[node].responses.push_back(r);
                } else {
                    self.completed += 1;
                }
                self.start_service(node, side);
                self.try_output(node);
            }
        }
    }
}

fn main() {
    let transactions: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let mut ring = Ring::new(1);
    let start = std::time::Instant::now();
    while ring.completed < transactions {
        let event = ring.sched.pop().expect("arrivals never stop");
        ring.handle(event);
    }
    let wall = start.elapsed().as_secs_f64();
    println!(
        "{} transactions, {} packet-hops, {} events in {:.3} s: {:.2} M packet-hops/s ({:.0} MB/s delivered)",
        ring.completed,
        ring.hops,
        ring.sched.executed(),
        wall,
        ring.hops as f64 / wall / 1e6,
        ring.completed as f64 * 64.0 / (ring.sched.now() as f64 * 1e-12) / 1e6
    );
}
