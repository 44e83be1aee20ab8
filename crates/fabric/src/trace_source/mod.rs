//! A traffic source that replays a trace file (`traffic.source = "trace"`):
//! each row one transaction, issued at its `time_ns` from endpoint `src` to
//! endpoint `dst`. The file is read lazily, a chunk of rows at a time from a
//! buffered reader, so a trace of any length runs in bounded memory; the
//! fabric keeps one event for the next row due (`Event::TraceRow`).
//!
//! Before a run the whole file is read once the same way ([`survey`]): every
//! row is checked (an error names the file, the row and the column, before
//! anything is simulated) and the trace's span is known, to set beside the
//! run's warm-up and measurement window in the report.
//!
//! Columns, by name, in any order (docs/traces.md):
//! - `time_ns` (required): when the transaction enters its source's
//!   application queue, ns, never earlier than the row before;
//! - `src`, `dst` (required): endpoint numbers, as the report's `per_node`
//!   numbers them; `src` must send and `dst` receive;
//! - `transaction` and/or `bytes` (one at least): the kind of transaction,
//!   by the family's name for it, by its data payload, or both;
//! - `priority` (optional, default 0): below `traffic.priorities`;
//! - `vc` or `class` (optional): the class its request travels in, by name
//!   or number, checked against the kind (a kind fixes its class).

mod csv_rows;
mod parquet_rows;

use crate::params::Params;
use crate::topology::{AgentId, Role, Topology};
use ringlet_engine::time::{ns_to_time, Time};
use std::collections::VecDeque;

/// Rows decoded per refill of a source's chunk.
pub const CHUNK_ROWS: usize = 4096;

/// Largest time a row may have, ns (as `run.max_sim_time_ns`).
const MAX_TIME_NS: f64 = 1e15;

/// One transaction of the trace, as the fabric issues it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRow {
    pub at: Time,
    pub src: AgentId,
    pub dst: AgentId,
    pub priority: u16,
    /// Its kind (`Params::shapes`).
    pub kind: u8,
}

/// One cell of a row, as a reader found it: text (CSV), or a typed value (Parquet).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cell<'a> {
    Text(&'a str),
    Int(i64),
    Float(f64),
    Null,
}

/// The columns a trace may have.
const COLUMNS: &[&str] = &["time_ns", "src", "dst", "transaction", "bytes", "priority", "vc", "class"];

/// Where each known column is in the file's rows.
#[derive(Clone, Copy, Debug, Default)]
struct Layout {
    time: usize,
    src: usize,
    dst: usize,
    transaction: Option<usize>,
    bytes: Option<usize>,
    priority: Option<usize>,
    class: Option<usize>,
}

impl Layout {
    fn of(file: &str, names: &[String]) -> Result<Layout, String> {
        let find = |name: &str| names.iter().position(|n| n == name);
        for (k, n) in names.iter().enumerate() {
            if !COLUMNS.contains(&n.as_str()) {
                return Err(format!("{file}: column {n:?} (number {}): unknown; a trace has columns {}", k + 1, COLUMNS.join(", ")));
            }
            if names[..k].contains(n) {
                return Err(format!("{file}: column {n:?} given twice"));
            }
        }
        let required = |name: &str| find(name).ok_or_else(|| format!("{file}: missing column {name:?} (a trace has time_ns, src, dst, and transaction or bytes)"));
        let (transaction, bytes) = (find("transaction"), find("bytes"));
        if transaction.is_none() && bytes.is_none() {
            return Err(format!("{file}: missing column \"transaction\" or \"bytes\" (one of them names each row's kind of transaction)"));
        }
        if find("vc").is_some() && find("class").is_some() {
            return Err(format!("{file}: columns \"vc\" and \"class\" are the same; give one"));
        }
        Ok(Layout { time: required("time_ns")?, src: required("src")?, dst: required("dst")?, transaction, bytes, priority: find("priority"), class: find("vc").or(find("class")) })
    }
}

/// What a row may name in one run: its endpoints and their roles, the
/// kinds of transaction and classes of its fabric, its priority levels.
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// Endpoint numbers to agents, and each one's role.
    endpoints: Vec<(AgentId, Role)>,
    /// Per kind: its name, data bytes and request class.
    kinds: Vec<(&'static str, u32, u8)>,
    classes: Vec<&'static str>,
    priorities: u32,
}

impl TraceSpec {
    pub fn new(topo: &Topology, p: &Params, priorities: u32) -> TraceSpec {
        TraceSpec {
            endpoints: topo.endpoints().iter().map(|&a| (a, topo.agent(a).role)).collect(),
            kinds: p.shapes.iter().zip(&p.kind_names).map(|(s, &n)| (n, s.data_bytes, s.request_class)).collect(),
            classes: p.classes.names.clone(),
            priorities,
        }
    }

    /// The endpoints that play `role`'s part, for a message: "0..7".
    fn numbers(&self, sends: bool) -> String {
        let ok: Vec<usize> = (0..self.endpoints.len()).filter(|&k| if sends { self.endpoints[k].1.sends() } else { self.endpoints[k].1.receives() }).collect();
        match (ok.first(), ok.last()) {
            (Some(a), Some(b)) if b - a + 1 == ok.len() => format!("{a}..{b}"),
            _ => ok.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", "),
        }
    }

    fn kinds_named(&self) -> String {
        self.kinds.iter().map(|(n, b, _)| format!("{n} ({b} bytes)")).collect::<Vec<_>>().join(", ")
    }

    /// The kind a row names by `name` and/or `bytes`.
    fn kind(&self, name: Option<&str>, bytes: Option<i64>) -> Result<u8, String> {
        let fits = |k: &&(&str, u32, u8)| name.is_none_or(|n| k.0 == n) && bytes.is_none_or(|b| k.1 as i64 == b);
        let found: Vec<usize> = self.kinds.iter().enumerate().filter(|(_, k)| fits(k)).map(|(i, _)| i).collect();
        match (found.first(), name, bytes) {
            (Some(&k), _, Some(_)) | (Some(&k), None, None) => Ok(k as u8),
            (Some(&k), Some(_), None) if found.iter().all(|&j| self.kinds[j].1 == self.kinds[k].1) => Ok(k as u8),
            (Some(_), Some(n), None) => Err(format!("column transaction: this run has several {n:?} ({}); give bytes too", self.kinds_named())),
            (None, Some(n), None) => Err(format!("column transaction: expected one of this run's kinds, {}, got {n:?}", self.kinds_named())),
            (None, None, Some(b)) => Err(format!("column bytes: no transaction of this run carries {b} bytes (its kinds: {})", self.kinds_named())),
            (None, Some(n), Some(b)) => Err(format!("columns transaction, bytes: no {n:?} of {b} bytes in this run (its kinds: {})", self.kinds_named())),
            (None, None, None) => unreachable!("a layout has transaction or bytes"),
        }
    }
}

/// A cell read as an integer, or why not (`what` names the column).
fn int(c: Cell, what: &str) -> Result<i64, String> {
    match c {
        Cell::Int(i) => Ok(i),
        Cell::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Ok(f as i64),
        Cell::Text(t) => t.trim().parse::<i64>().map_err(|_| format!("column {what}: expected an integer, got {t:?}")),
        Cell::Float(f) => Err(format!("column {what}: expected an integer, got {f}")),
        Cell::Null => Err(format!("column {what}: expected an integer, got nothing")),
    }
}

fn number(c: Cell, what: &str) -> Result<f64, String> {
    let x = match c {
        Cell::Int(i) => i as f64,
        Cell::Float(f) => f,
        Cell::Text(t) => t.trim().parse::<f64>().map_err(|_| format!("column {what}: expected a number, got {t:?}"))?,
        Cell::Null => return Err(format!("column {what}: expected a number, got nothing")),
    };
    if !x.is_finite() {
        return Err(format!("column {what}: expected a finite number, got {x}"));
    }
    Ok(x)
}

fn text<'a>(c: Cell<'a>, what: &str) -> Result<Option<&'a str>, String> {
    match c {
        Cell::Text(t) if t.trim().is_empty() => Ok(None),
        Cell::Text(t) => Ok(Some(t.trim())),
        Cell::Null => Ok(None),
        Cell::Int(i) => Err(format!("column {what}: expected a name, got {i}")),
        Cell::Float(f) => Err(format!("column {what}: expected a name, got {f}")),
    }
}

/// Reads a row's cells into a [`TraceRow`], checked against `spec`; the
/// message names the column (the caller adds the file and row).
fn decode(spec: &TraceSpec, l: &Layout, cells: &[Cell]) -> Result<TraceRow, String> {
    let cell = |k: usize| cells.get(k).copied().unwrap_or(Cell::Null);
    let t = number(cell(l.time), "time_ns")?;
    if !(0.0..=MAX_TIME_NS).contains(&t) {
        return Err(format!("column time_ns: expected a time in 0..{MAX_TIME_NS} ns, got {t}"));
    }
    let n = spec.endpoints.len() as i64;
    let endpoint = |what: &str, sends: bool| -> Result<usize, String> {
        let k = int(cell(if sends { l.src } else { l.dst }), what)?;
        if !(0..n).contains(&k) {
            return Err(format!("column {what}: expected an endpoint in 0..{} (the network's {n} endpoints), got {k}", n - 1));
        }
        let role = spec.endpoints[k as usize].1;
        if sends && !role.sends() {
            return Err(format!("column src: endpoint {k} only receives (the endpoints that send are {})", spec.numbers(true)));
        }
        if !sends && !role.receives() {
            return Err(format!("column dst: endpoint {k} only sends (the endpoints that receive are {})", spec.numbers(false)));
        }
        Ok(k as usize)
    };
    let (src, dst) = (endpoint("src", true)?, endpoint("dst", false)?);
    if src == dst {
        return Err(format!("column dst: the same endpoint as src ({src}); a transaction goes to another endpoint"));
    }
    let name = match l.transaction {
        Some(k) => text(cell(k), "transaction")?,
        None => None,
    };
    let bytes = match l.bytes.map(cell) {
        None | Some(Cell::Null) => None,
        Some(Cell::Text(t)) if t.trim().is_empty() => None,
        Some(c) => Some(int(c, "bytes")?),
    };
    if let Some(b) = bytes.filter(|&b| b <= 0) {
        return Err(format!("column bytes: expected a payload > 0 bytes, got {b}"));
    }
    if name.is_none() && bytes.is_none() {
        return Err("columns transaction, bytes: expected the kind of transaction in one of them, got neither".to_string());
    }
    let kind = spec.kind(name, bytes)?;
    let priority = match l.priority.map(cell) {
        None | Some(Cell::Null) => 0,
        Some(c) => {
            let p = int(c, "priority")?;
            if !(0..spec.priorities as i64).contains(&p) {
                return Err(format!("column priority: expected a priority in 0..{} (traffic.priorities = {}), got {p}", spec.priorities - 1, spec.priorities));
            }
            p as u16
        }
    };
    if let Some(k) = l.class {
        let want = spec.kinds[kind as usize].2;
        let given = match cell(k) {
            Cell::Null => None,
            Cell::Text(t) if t.trim().is_empty() => None,
            Cell::Text(t) => Some(t.trim().parse::<usize>().ok().or_else(|| spec.classes.iter().position(|c| *c == t.trim())).ok_or_else(|| {
                format!("column vc: expected one of {} (or its number), got {t:?}", spec.classes.join(", "))
            })?),
            c => Some(int(c, "vc")? as usize),
        };
        if let Some(g) = given.filter(|&g| g != want as usize) {
            return Err(format!("column vc: a {} travels in class {} ({}), not {g}", spec.kinds[kind as usize].0, want, spec.classes[want as usize]));
        }
    }
    Ok(TraceRow { at: ns_to_time(t), src: spec.endpoints[src].0, dst: spec.endpoints[dst].0, priority, kind })
}

/// What a format's reader does with a row: its cells and CSV line number to a [`TraceRow`].
pub(crate) type Decode<'a> = dyn FnMut(&[Cell], u64) -> Result<TraceRow, String> + 'a;

/// Rows as a file format gives them.
pub(crate) trait Rows {
    /// The column names, in order.
    fn names(&self) -> &[String];
    /// Calls `f` with the next row's cells and its line number (for CSV;
    /// 0: none), or returns `None` at the end.
    fn next_row(&mut self, f: &mut Decode<'_>) -> Result<Option<TraceRow>, String>;
}

fn open(path: &str) -> Result<Box<dyn Rows>, String> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".parquet") {
        Ok(Box::new(parquet_rows::ParquetRows::open(path)?))
    } else {
        Ok(Box::new(csv_rows::CsvRows::open(path)?))
    }
}

/// A trace being read: its rows in order, a chunk at a time.
pub struct TraceReader {
    path: String,
    rows: Box<dyn Rows>,
    layout: Layout,
    spec: TraceSpec,
    chunk: VecDeque<TraceRow>,
    /// Rows read from the file so far (the next row's number is one more).
    read: u64,
    last: Time,
    done: bool,
}

impl TraceReader {
    /// Opens the trace at `path` for `spec`'s run; checks its columns.
    pub fn open(path: &str, spec: TraceSpec) -> Result<TraceReader, String> {
        let rows = open(path)?;
        let layout = Layout::of(path, rows.names())?;
        Ok(TraceReader { path: path.to_string(), rows, layout, spec, chunk: VecDeque::with_capacity(CHUNK_ROWS), read: 0, last: 0, done: false })
    }

    /// The next row, or `None` after the last; an error names the file, the row and the column.
    pub fn next_row(&mut self) -> Result<Option<TraceRow>, String> {
        if self.chunk.is_empty() && !self.done {
            self.refill()?;
        }
        Ok(self.chunk.pop_front())
    }

    /// The next row's time, without taking it.
    pub fn peek(&mut self) -> Result<Option<Time>, String> {
        if self.chunk.is_empty() && !self.done {
            self.refill()?;
        }
        Ok(self.chunk.front().map(|r| r.at))
    }

    fn refill(&mut self) -> Result<(), String> {
        let (spec, layout, path) = (&self.spec, &self.layout, &self.path);
        let mut last = self.last;
        let mut row = self.read;
        for _ in 0..CHUNK_ROWS {
            let got = self.rows.next_row(&mut |cells, line| {
                row += 1;
                let at = |m: String| if line > 0 { format!("{path}: row {row} (line {line}), {m}") } else { format!("{path}: row {row}, {m}") };
                let r = decode(spec, layout, cells).map_err(at)?;
                if r.at < last {
                    return Err(at(format!("column time_ns: {} ns is before the row before's {} ns (rows must be in time order)", ringlet_engine::time::time_to_ns(r.at), ringlet_engine::time::time_to_ns(last))));
                }
                last = r.at;
                Ok(r)
            });
            match got.map_err(|e| if e.starts_with(path.as_str()) { e } else { format!("{path}: {e}") })? {
                Some(r) => self.chunk.push_back(r),
                None => {
                    self.done = true;
                    break;
                }
            }
        }
        (self.last, self.read) = (last, row);
        Ok(())
    }

    /// Rows read from the file so far.
    pub fn rows_read(&self) -> u64 {
        self.read
    }
}

/// What a whole trace holds, as [`survey`] finds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Survey {
    pub rows: u64,
    /// Its first and last rows' times (0 without rows).
    pub first: Time,
    pub last: Time,
    /// Rows due before `warmup_end`.
    pub in_warmup: u64,
}

/// Reads the whole trace at `path` once, checking every row for `spec`'s
/// run, in bounded memory: the first bad row's error, or what it holds.
pub fn survey(path: &str, spec: &TraceSpec, warmup_end: Time) -> Result<Survey, String> {
    let mut r = TraceReader::open(path, spec.clone())?;
    let mut s = Survey::default();
    while let Some(row) = r.next_row()? {
        if s.rows == 0 {
            s.first = row.at;
        }
        s.rows += 1;
        s.last = row.at;
        s.in_warmup += (row.at < warmup_end) as u64;
    }
    Ok(s)
}
