//! What one run reports (the JSON contract of `ringlet run --json`), and its
//! column schema: the same tables for every network family.
//!
//! Every table of the report is declared once, in `tables`, with the
//! [`table!`] macro: the struct the model fills and serialises, and the list of its
//! columns with their units and meanings ([`Columns::COLUMNS`]).
//! [`schema`] exports them, so the Python side (result frames, sweep
//! tables, the CLI's views) and the documentation read the columns from
//! the code instead of copying them.

use serde::Serialize;

/// One column of a report table, or one scalar of the summary.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Column {
    pub name: &'static str,
    /// Unit of the values (`""` for counts and names).
    pub unit: &'static str,
    pub doc: &'static str,
    /// For counters: the label under which a run's view shows it when it
    /// occurred (counters without one only explain other figures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'static str>,
}

/// A struct of the report whose fields are its columns.
pub trait Columns {
    const COLUMNS: &'static [Column];
}

/// Declares a report struct and its column list in one place: each field
/// is `/// doc` then `name: type [unit]`, or `name: type [unit, "label"]`
/// for a counter a run's view shows by that label.
macro_rules! table {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty [$unit:literal $(, $label:literal)?]
            ),* $(,)?
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, Default, Serialize)]
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl Columns for $name {
            const COLUMNS: &'static [Column] = &[
                $( Column { name: stringify!($field), unit: $unit, doc: concat!($($doc),*), label: table!(@label $($label)?) }, )*
            ];
        }
    };
    (@label) => { None };
    (@label $l:literal) => { Some($l) };
}

mod tables;
pub use tables::*;

/// The result of one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    #[serde(flatten)]
    pub summary: Summary,
    pub per_priority: Vec<PriorityReport>,
    pub per_node: Vec<NodeReport>,
    pub per_link: Vec<LinkReport>,
    pub per_ringlet: Vec<RingletReport>,
    pub per_class: Vec<ClassReport>,
    pub hardware: HardwareReport,
    /// Agents with a bus (switches); absent for networks without.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_switch: Vec<SwitchReport>,
    /// The ports of those agents.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_port: Vec<PortReport>,
    /// Each node's latency per priority, where there are several (nodes x
    /// priorities at most 4096); rows with packets only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_node_priority: Vec<NodePriorityReport>,
    /// Priority inversions by kind and (higher, lower) priority, those that
    /// occurred; absent with a single priority.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_inversion: Vec<InversionReport>,
    /// Sending nodes flagged as starved: each carried less than a tenth of
    /// its offered load while another carried more than half of its own.
    pub starved_nodes: Vec<u32>,
    /// Sending nodes flagged as stalled: each had transactions outstanding
    /// and completed none for longer than `stall_window_ns`, judged by its
    /// own completions alone.
    pub stalled_nodes: Vec<u32>,
    /// Data per traffic class (GigaRing's virtual channels), where transactions are kept.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_vc: Vec<VcReport>,
    /// Channel and transaction latencies, where transactions are kept
    /// (absent elsewhere, so an SCI ring's report is as it was).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientFigures>,
    /// Before and after the network changed mid-run (a GigaRing folding
    /// around a failure); absent when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconfiguration: Option<ReconfigurationReport>,
    /// The run interval by interval around a failure (with a fault only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_interval: Vec<IntervalReport>,
    /// A trace-driven run's trace beside its windows; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceReport>,
    pub counters: Counters,
    pub conservation: Conservation,
    /// The most packets alive at once (echoes and control packets
    /// included): how many `ringlet bench`'s yardstick loop keeps in
    /// flight for this run. A property of the simulation, not of the
    /// network, so not among the results.
    #[serde(skip)]
    pub packets_peak: u64,
    /// Events handled over the whole run by kind (their sum is
    /// `counters.events`): what the simulation cost, for `ringlet bench`;
    /// not among the results either.
    #[serde(skip)]
    pub events_by_kind: Vec<(&'static str, u64)>,
    /// A trace row that could not be read once the run had begun: the run
    /// is an error, not a result (`family::drive`).
    #[serde(skip)]
    pub trace_error: Option<String>,
}

impl std::ops::Deref for Report {
    type Target = Summary;
    fn deref(&self) -> &Summary {
        &self.summary
    }
}

impl std::ops::DerefMut for Report {
    fn deref_mut(&mut self) -> &mut Summary {
        &mut self.summary
    }
}

/// The summary figures a sweep table copies into every row, each under its
/// column name (`total_` + figure for numbers, as they sit beside the
/// per-priority figures).
pub const SWEEP_TOTALS: &[(&str, &str)] = &[
    ("total_throughput_mbps", "throughput_mbps"),
    ("total_throughput_mbps_ci95", "throughput_mbps_ci95"),
    ("total_loss_mbps", "loss_mbps"),
    ("total_latency_ns_mean", "latency_ns_mean"),
    ("total_latency_ns_mean_ci95", "latency_ns_mean_ci95"),
    ("total_latency_ns_p99", "latency_ns_p99"),
    ("total_retries", "retries"),
    ("total_fairness_index", "fairness_index"),
    ("total_min_carried_share", "min_carried_share"),
    ("total_min_carried_share_node", "min_carried_share_node"),
    ("total_output_inversions_per_kpacket", "output_inversions_per_kpacket"),
    ("total_input_inversions_per_kpacket", "input_inversions_per_kpacket"),
    ("total_transactions", "transactions"),
    ("stopped_by", "stopped_by"),
    // The analytic estimate beside each point (docs/analytic.md).
    ("model_throughput_mbps", "model_throughput_mbps"),
    ("model_latency_ns_mean", "model_latency_ns_mean"),
    ("model_saturation_load_mbps_per_node", "model_saturation_load_mbps_per_node"),
    ("model_utilization", "model_utilization"),
];

/// The per-priority figures a sweep table has, one row per point and priority.
pub const SWEEP_PER_PRIORITY: &[&str] = &[
    "throughput_mbps",
    "offered_mbps",
    "latency_ns_mean",
    "latency_ns_p50",
    "latency_ns_p99",
    "latency_ns_p999",
    "latency_ns_max",
    "transactions",
    "node_latency_ns_p99_max",
    "node_latency_ns_p99_max_node",
];

/// The report's schema: every table's columns, the counters, and what a
/// sweep table copies (see `docs/usage.md`).
pub fn schema() -> serde_json::Value {
    // (A doc comment's lines each start with a space.)
    let cols = |c: &[Column]| c.iter().map(|c| Column { doc: c.doc.trim(), ..*c }).collect::<Vec<_>>();
    serde_json::json!({
        "summary": cols(Summary::COLUMNS),
        "tables": {
            "per_priority": cols(PriorityReport::COLUMNS),
            "per_node": cols(NodeReport::COLUMNS),
            "per_link": cols(LinkReport::COLUMNS),
            "per_ringlet": cols(RingletReport::COLUMNS),
            "per_class": cols(ClassReport::COLUMNS),
            "per_switch": cols(SwitchReport::COLUMNS),
            "per_port": cols(PortReport::COLUMNS),
            "per_vc": cols(VcReport::COLUMNS),
            "per_inversion": cols(InversionReport::COLUMNS),
            "per_node_priority": cols(NodePriorityReport::COLUMNS),
            "per_interval": cols(IntervalReport::COLUMNS),
        },
        "client": cols(ClientFigures::COLUMNS),
        "reconfiguration": cols(ReconfigurationReport::COLUMNS),
        "hardware": cols(HardwareReport::COLUMNS),
        "trace": cols(TraceReport::COLUMNS),
        "counters": cols(Counters::COLUMNS),
        "conservation": cols(Conservation::COLUMNS),
        "sweep": {
            "per_priority": SWEEP_PER_PRIORITY,
            "totals": SWEEP_TOTALS.iter().map(|&(column, figure)| serde_json::json!([column, figure])).collect::<Vec<_>>(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cols: &[Column]) -> Vec<&str> {
        cols.iter().map(|c| c.name).collect()
    }

    /// The exported columns are the JSON the model writes, in its order.
    #[test]
    fn columns_are_the_serialised_fields() {
        fn keys<T: Serialize + Default>() -> Vec<String> {
            match serde_json::to_value(T::default()).unwrap() {
                serde_json::Value::Object(m) => m.keys().cloned().collect(),
                _ => unreachable!(),
            }
        }
        let mut want = keys::<PriorityReport>();
        want.sort();
        let mut got = names(PriorityReport::COLUMNS);
        got.sort();
        assert_eq!(got, want);
        for (cols, mut json) in [
            (NodeReport::COLUMNS, keys::<NodeReport>()),
            (LinkReport::COLUMNS, keys::<LinkReport>()),
            (RingletReport::COLUMNS, keys::<RingletReport>()),
            (ClassReport::COLUMNS, keys::<ClassReport>()),
            (SwitchReport::COLUMNS, keys::<SwitchReport>()),
            (PortReport::COLUMNS, keys::<PortReport>()),
            (VcReport::COLUMNS, keys::<VcReport>()),
            (InversionReport::COLUMNS, keys::<InversionReport>()),
            (NodePriorityReport::COLUMNS, keys::<NodePriorityReport>()),
            (ClientFigures::COLUMNS, keys::<ClientFigures>()),
            (ReconfigurationReport::COLUMNS, keys::<ReconfigurationReport>()),
            (TraceReport::COLUMNS, keys::<TraceReport>()),
            (HardwareReport::COLUMNS, keys::<HardwareReport>()),
            (IntervalReport::COLUMNS, keys::<IntervalReport>()),
            (Counters::COLUMNS, keys::<Counters>()),
            (Conservation::COLUMNS, keys::<Conservation>()),
            (Summary::COLUMNS, keys::<Summary>()),
        ] {
            let mut got = names(cols);
            got.sort();
            json.sort();
            assert_eq!(got, json);
        }
        for c in Summary::COLUMNS.iter().chain(Counters::COLUMNS).chain(PriorityReport::COLUMNS) {
            assert!(!c.doc.trim().is_empty(), "{} has no doc", c.name);
        }
    }

    /// What a sweep copies exists in the report.
    #[test]
    fn sweep_columns_exist() {
        let summary = names(Summary::COLUMNS);
        for (_, figure) in SWEEP_TOTALS {
            assert!(summary.contains(figure), "{figure}");
        }
        let prio = names(PriorityReport::COLUMNS);
        for f in SWEEP_PER_PRIORITY {
            assert!(prio.contains(f), "{f}");
        }
    }
}
