//! Trace-driven traffic (`traffic.source = "trace"`): the trace's rows
//! issued at their times, one event for the next row due, the rows read
//! lazily from the file (`crate::trace_source`); the run stops once every
//! row is issued and every transaction has ended; the report states the
//! trace beside the run's windows.

use super::Fabric;
use crate::client::{AppEntry, NO_STREAM};
use crate::event::Event;
use crate::protocol::RingProtocol;
use crate::report::{Report, TraceReport};
use crate::trace_source::{survey, Survey, TraceReader, TraceSpec};
use ringlet_engine::run::Stop;
use ringlet_engine::time::{time_to_ns, time_to_s};
use ringlet_engine::Time;

/// The trace a fabric replays: what the scenario names, then its reader.
pub(crate) struct Replay {
    path: String,
    sha256: String,
    priorities: u32,
    reader: Option<TraceReader>,
    survey: Survey,
    issued: u64,
    issued_in_warmup: u64,
    last_issued: Time,
    /// Data bytes the trace offers in the measurement window, per agent and
    /// per priority: its rows issued there, and what those issued in the
    /// warm-up had not delivered when it ended (carried over: delivered in
    /// the window, it counts in the throughput too).
    offered_by_agent: Vec<u64>,
    offered_by_priority: Vec<u64>,
    /// A row that could not be read once the run had begun (the file changed).
    error: Option<String>,
}

impl Replay {
    pub(crate) fn new(path: String, sha256: String, priorities: u32, agents: usize) -> Replay {
        Replay {
            path,
            sha256,
            priorities,
            reader: None,
            survey: Survey::default(),
            issued: 0,
            issued_in_warmup: 0,
            last_issued: 0,
            offered_by_agent: vec![0; agents],
            offered_by_priority: vec![0; priorities as usize],
            error: None,
        }
    }
}

impl<P: RingProtocol> Fabric<P> {
    /// With a trace: reads it through once (every row checked, its span
    /// known), opens it again for the run and schedules its first row. An
    /// error names the file, the row and the column; nothing has run.
    pub fn start_trace(&mut self) -> Result<(), String> {
        let Some(replay) = self.replay.as_mut() else { return Ok(()) };
        // The scenario's hash holds the file's digest: a file changed since it was loaded would give results filed under another content.
        let now = ringlet_scenario::trace_sha256(&replay.path)?;
        if now != replay.sha256 {
            return Err(format!("traffic.trace: {} changed after the scenario was loaded (its SHA-256 is now {now}); load the scenario again", replay.path));
        }
        let spec = TraceSpec::new(&self.topo, &self.p, replay.priorities);
        replay.survey = survey(&replay.path, &spec, self.measure.warmup_end)?;
        let mut reader = TraceReader::open(&replay.path, spec)?;
        // (A trace of no rows would run idle to the time cap, measuring nothing.)
        let Some(first) = reader.peek()? else {
            return Err(format!("{}: no rows after the header: a trace gives at least one transaction", replay.path));
        };
        replay.reader = Some(reader);
        self.sched.at(first, Event::TraceRow.pack());
        Ok(())
    }

    /// The rows due now: each a transaction into its source's application
    /// queue, in the trace's order; then the next row's event. (Kept out
    /// of the event loop: inlined there, it cost runs without a trace
    /// instructions.)
    #[inline(never)]
    pub(super) fn on_trace_row(&mut self) {
        let now = self.sched.now();
        loop {
            let replay = self.replay.as_mut().expect("a trace is replayed");
            let reader = replay.reader.as_mut().expect("the trace is open");
            let due = match reader.peek() {
                Ok(Some(at)) if at <= now => reader.next_row().map(|r| r.expect("peeked")),
                Ok(Some(at)) => {
                    self.sched.at(at, Event::TraceRow.pack());
                    break;
                }
                Ok(None) => {
                    self.trace_drained = true;
                    break;
                }
                Err(e) => Err(e),
            };
            let row = match due {
                Ok(row) => row,
                Err(e) => {
                    replay.error = Some(e);
                    self.stop = Some(Stop::Interrupted);
                    return;
                }
            };
            replay.issued += 1;
            replay.last_issued = now;
            if now < self.measure.warmup_end {
                replay.issued_in_warmup += 1;
            }
            // (A row issued in the warm-up is offered until its data is delivered: `delivered_in_warmup`.)
            let bytes = self.p.shapes[row.kind as usize].data_bytes as u64;
            replay.offered_by_agent[row.src as usize] += bytes;
            replay.offered_by_priority[row.priority as usize] += bytes;
            if self.has_failed(row.src) {
                continue; // A failed node issues nothing more.
            }
            // Where streams are kept, an agent's trace rows are its own stream.
            let stream = if self.tracked { self.hand_stream(row.src) } else { NO_STREAM };
            self.generate(row.src, AppEntry::new(now, row.dst, row.priority, row.kind, stream));
            if self.generated - self.completed - self.lost > self.backlog_cap {
                self.stop = Some(Stop::Backlog);
            }
            self.serve_application(row.src as usize);
        }
        self.check_drained();
    }

    /// How much of the trace is issued, 0..1 (0 without one): a long
    /// trace's progress.
    pub(super) fn trace_progress(&self) -> f64 {
        self.replay.as_ref().filter(|r| r.survey.rows > 0).map_or(0.0, |r| r.issued as f64 / r.survey.rows as f64)
    }

    /// Once the trace is issued whole, the run stops when nothing of it is
    /// left (one test of a flag where a transaction ends, in a run without a trace).
    #[inline(always)]
    pub(super) fn check_drained(&mut self) {
        if self.trace_drained {
            self.stop_if_drained();
        }
    }

    /// Data of `requester`'s transaction delivered before the measurement
    /// window: what the trace offers there is less by it.
    #[cold]
    pub(super) fn delivered_in_warmup(&mut self, bytes: u32, priority: u16, requester: u16) {
        if let Some(replay) = self.replay.as_mut() {
            replay.offered_by_agent[requester as usize] -= bytes as u64;
            replay.offered_by_priority[priority as usize] -= bytes as u64;
        }
    }

    #[inline(never)]
    fn stop_if_drained(&mut self) {
        if self.stop.is_none() && self.generated == self.completed + self.lost {
            self.stop = Some(Stop::TraceDone);
        }
    }

    /// With a trace: the report's `trace` section and warnings, and the
    /// load offered as what the trace offers in the measurement window (its
    /// rows issued there, and what those of the warm-up still had to
    /// deliver), instead of `traffic.load_mbps_per_node`.
    pub(super) fn report_trace(&self, r: &mut Report, end: Time) {
        let Some(replay) = self.replay.as_ref() else { return };
        r.trace_error = replay.error.clone();
        let warmup = self.measure.warmup_end;
        let window = end.saturating_sub(warmup);
        let mbps = |bytes: u64| if window > 0 { bytes as f64 / time_to_s(window) / 1e6 } else { f64::NAN };
        for n in r.per_node.iter_mut() {
            n.offered_mbps = replay.offered_by_agent.get(n.node as usize).map_or(0.0, |&b| mbps(b));
            n.carried_share = if n.offered_mbps > 0.0 { n.throughput_mbps / n.offered_mbps } else { f64::NAN };
        }
        for p in r.per_priority.iter_mut() {
            p.offered_mbps = mbps(replay.offered_by_priority[p.priority as usize]);
        }
        r.summary.offered_mbps = mbps(replay.offered_by_priority.iter().sum());
        crate::measure::refresh_fairness(r);
        let s = replay.survey;
        let mut warnings = Vec::new();
        if s.rows > 0 && s.last < warmup {
            warnings.push(format!(
                "the trace ends at {} ns, before run.warmup_ns ({} ns) does: none of its rows is issued in the measurement window (lower run.warmup_ns)",
                time_to_ns(s.last),
                time_to_ns(warmup)
            ));
        }
        if replay.issued < s.rows {
            let why = r.summary.stopped_by;
            let hint = match why {
                "transactions" => "; raise run.measure_transactions to play it whole",
                "time_cap" => "; raise run.max_sim_time_ns to play it whole",
                "precision" => "; unset run.ci_rel_halfwidth to play it whole",
                "backlog" => ": the network does not carry the trace's load",
                _ => "",
            };
            warnings.push(format!(
                "the run stopped ({why}) at {} ns, before the trace was done: {} of its {} rows issued (the last row is due at {} ns){hint}",
                time_to_ns(end),
                replay.issued,
                s.rows,
                time_to_ns(s.last)
            ));
        }
        r.trace = Some(TraceReport {
            file: replay.path.clone(),
            sha256: replay.sha256.clone(),
            rows: s.rows,
            first_ns: time_to_ns(s.first),
            last_ns: time_to_ns(s.last),
            rows_due_in_warmup: s.in_warmup,
            rows_issued: replay.issued,
            rows_issued_in_warmup: replay.issued_in_warmup,
            rows_issued_measured: replay.issued - replay.issued_in_warmup,
            warmup_ns: time_to_ns(warmup),
            measure_from_ns: time_to_ns(warmup),
            measure_to_ns: time_to_ns(end.max(warmup)),
            warnings,
        });
    }
}
