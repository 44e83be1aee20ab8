"""Rich renderings for the CLI: a run's tables, the bench's, a results store's and a
reproduction's validation."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Mapping, Optional

from rich import box
from rich.console import Group
from rich.text import Text

from ..api import schema, units
from ..report.html import is_missing
from ..report.provenance import wall_split
from .fit import Column, FitTable

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: "1 node", "8 nodes"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _num(x: Any, digits: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.{digits}f}"


def _with_ci(value: Any, ci: Any, digits: int = 1) -> str:
    return f"{_num(value, digits)} ± {_num(ci, digits)}"


def result_view(r: Mapping[str, Any]) -> Group:
    """The summary and per-priority tables of one run's JSON dict, and lines on
    its links, its nodes' shares, and what explains it."""
    rows: list[tuple[Any, Any, str]] = []

    def add(label: Any, value: Any, unit: str) -> None:
        rows.append((label if isinstance(label, Text) else Text(label, style="bold"), value, unit))

    def with_ci(label: str, key: str, unit: str) -> None:
        """A figure and its 95% half-width, or the figure alone and why it has none."""
        value, ci = r.get(key), r.get(f"{key}_ci95")
        if is_missing(ci):
            # (Batch means need two batches: a short run, or a trace played out early, closes fewer.)
            add(label, _num(value), f"{unit} (no 95% CI: the run closed fewer than two batches)")
        else:
            add(label, _with_ci(value, ci), f"{unit} (95% CI)")

    with_ci("throughput", "throughput_mbps", "MB/s")
    add("offered", _num(r.get("offered_mbps")), "MB/s payload")
    raw = units.raw_input_mbps(dict(r))
    if raw is not None:
        # A switch family's load key is the processors' raw input; every other figure is payload.
        add("raw input", _num(raw), "MB/s with headers and idles")
    if "loss_mbps" in r:
        # Lost data: a source's full buffer dropped transactions (switches and Banyans
        # lose at overload; an SCI ring's queues are unbounded, so it shows 0).
        loss, offered = r.get("loss_mbps"), r.get("offered_mbps")
        share = f" ({100 * loss / offered:.1f}% of offered)" if loss and offered else ""
        add(Text("lost", style="bold yellow" if loss else "bold"),
                        Text(_num(loss) + share, style="bold yellow" if loss else ""), "MB/s")
    # (A packet's one-way latency, told apart from a GigaRing's channel and transaction latencies.)
    with_ci("packet latency mean", "latency_ns_mean", "ns")
    for label, key in (("packet latency p50", "latency_ns_p50"), ("packet latency p99", "latency_ns_p99"),
                       ("packet latency p99.9", "latency_ns_p999"), ("packet latency max", "latency_ns_max")):
        add(label, _num(r.get(key)), "ns")
    # The figures only some families report (a GigaRing's channel latency, ...), when this run has them.
    for column in schema.optional_summary():
        if column["name"] in r:
            digits = 1 if column["unit"] else 0
            add(_label(column["name"]), _num(r.get(column["name"]), digits), column["unit"])
    # The analytic model beside the run (docs/analytic.md).
    if r.get("model_saturation_load_mbps_per_node") is not None:
        add("model throughput", _num(r.get("model_throughput_mbps")), "MB/s (analytic model)")
        latency = r.get("model_latency_ns_mean")
        add("model latency mean", _num(latency),
            "ns (analytic model: none past its saturation)" if is_missing(latency) else "ns (analytic model)")
        # The model's saturation is per priority level; the row gives a node's, all levels together,
        # as the offered load and the pre-flight do.
        per_level, levels = r.get("model_saturation_load_mbps_per_node"), len(r.get("per_priority") or []) or 1
        each = f" ({levels} priorities of {_num(per_level)})" if levels > 1 else ""
        bottleneck = r.get("model_bottleneck")
        add("model saturation", _num(per_level * levels if isinstance(per_level, (int, float)) else per_level),
            f"MB/s offered per node{each}" + (f": beyond it the {bottleneck} is full" if bottleneck else ""))
    add("transactions", _num(r.get("transactions")), "")
    add("retries", _num(r.get("retries")), "")
    add("simulated time", _num(r.get("sim_time_ns"), 0), "ns")
    add("stopped by", str(r.get("stopped_by") or "-"), "")
    summary_table = FitTable([Column("figure", justify="left", wrap=True, key=True), Column("value"),
                              Column("unit", justify="left", wrap=True)], rows,
                             title="ringlet run", show_header=False, box=box.SQUARE, show_edge=True,
                             padding=(0, 1))

    # (The title is a line of its own: a table's title wraps at the table's width.)
    prio_title = Text("per priority: throughput and offered payload in MB/s, packet latency in ns")
    levels = r.get("per_priority", [])
    prio = FitTable(
        [Column("priority", short="prio", key=True), Column("MB/s"), Column("offered"),
         Column("txns", meaning="transactions"), Column("mean"), Column("p50"), Column("p99"), Column("p99.9"),
         Column("max")],
        [(str(p.get("priority")), _num(p.get("throughput_mbps")), _num(p.get("offered_mbps")),
          _num(p.get("transactions")),
          *(_num(p.get(k), 0) for k in ("latency_ns_mean", "latency_ns_p50", "latency_ns_p99",
                                         "latency_ns_p999", "latency_ns_max"))) for p in levels],
)
    # With several priorities, each one's worst node tail (one priority: the per-node line has it).
    worst = [(p.get("priority"), p.get("node_latency_ns_p99_max"), node) for p in levels
             if (node := p.get("node_latency_ns_p99_max_node")) is not None and node >= 0]
    worst_line = [Text("worst node per priority (the largest p99 of one node's own packets): " + "; ".join(
        f"priority {prio_}: {_num(p99, 0)} ns (node {node})" for prio_, p99, node in worst))] if len(levels) > 1 and worst else []

    parts: list[Any] = [summary_table, prio_title, prio, *worst_line]
    parts += switch_views(r)
    parts += channel_views(r)
    links = r.get("per_link", [])
    # (None when nothing was measured: the run ended within its warm-up.)
    util = [u for link in links if (u := link.get("utilization")) is not None]
    if util:
        parts.append(Text(
            f"link utilisation over {len(links)} links: min {min(util):.3f}, "
            f"mean {sum(util) / len(util):.3f}, max {max(util):.3f}"
        ))
    parts += node_views(r)
    change = r.get("reconfiguration")
    if change:
        parts.append(Text(
            f"the rings folded at {change['at_ns']:,.0f} ns: throughput {_num(change['throughput_before_mbps'])} MB/s "
            f"before, {_num(change['throughput_after_mbps'])} after; transaction latency mean "
            f"{_num(change['transaction_latency_before_ns'], 0)} ns before, {_num(change['transaction_latency_after_ns'], 0)} after; "
            f"detected at {change['folded_ns']:,.0f} ns, the folded ring running from {change['live_ns']:,.0f} ns; "
            f"{change['resent']:,} packets sent again ({change['duplicates_suppressed']:,} of them duplicates, dropped "
            f"by their targets); {change['lost_transactions']:,} transactions lost with the failed node "
            f"({change['lost_at_fold']:,} cut off at the fold, {change['lost_after_fold']:,} generated for it afterwards)",
            style="bold"))
    if r.get("loss_mbps"):
        why = ("whose requester or target failed" if change and change.get("lost_transactions")
               else "generated while their source's buffer was full")
        parts.append(Text(f"lost: {r['loss_mbps']:,.1f} MB/s of transactions {why}", style="bold yellow"))
    trace = r.get("trace")
    if trace:
        parts.append(Text(
            f"trace {trace['file']}: {trace['rows']:,} rows from {trace['first_ns']:,.0f} to {trace['last_ns']:,.0f} ns; "
            f"{trace['rows_issued']:,} issued, {trace['rows_issued_in_warmup']:,} of them in the warm-up and "
            f"{trace['rows_issued_measured']:,} in the measurement window ({trace['measure_from_ns']:,.0f} to "
            f"{trace['measure_to_ns']:,.0f} ns)"))
        for w in trace.get("warnings") or []:
            parts.append(Text(f"trace: {w}", style="bold yellow"))
    if r.get("stopped_by") == "backlog":
        parts.append(Text("stopped by the backlog cap: more transactions were waiting than "
                          "run.max_backlog_transactions; the offered load is far above what the network carries",
                          style="bold yellow"))
    elif not r.get("transactions"):
        parts.append(Text("nothing was measured: no transaction completed after the warm-up "
                          "(raise run.max_sim_time_ns or lower run.warmup_ns)", style="bold yellow"))
    elif r.get("stopped_by") == "time_cap":
        parts.append(Text("stopped at the time cap (run.max_sim_time_ns) before measuring "
                          "run.measure_transactions: the figures rest on fewer; raise the cap for the full count",
                          style="bold yellow"))
    # Counters that explain a result (SPEC section 4), only those that occurred.
    counters = r.get("counters", {})
    explain = [(label, counters.get(key, 0)) for key, label in schema.labelled_counters()]
    explain = [f"{label} {value:,}" for label, value in explain if value]
    if explain:
        parts.append(Text("counters: " + ", ".join(explain)))
    prov = r.get("provenance", {})
    parts.append(Text(
        f"ringlet {prov.get('ringlet_version')} · seed {prov.get('seed')} · "
        f"scenario {prov.get('scenario_hash')}\n"  # (the wall time on a line of its own: 80 columns hold the rest)
        f"{wall_split(r.get('wall_time_s', 0.0), r.get('setup_time_s'))}",
        style="dim",
    ))
    return Group(*parts)


def _duration(ns: Any) -> str:
    """A time in ns in the unit that reads best: ``2163003.2`` -> ``2.2 ms``."""
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:,.1f} {unit}"
    return f"{ns:,.0f} ns"


def _percent(share: Any) -> str:
    """A carried share (throughput / offered) as a percentage: ``0.0031`` -> ``0.3%``."""
    return "-" if share is None else f"{100 * share:,.1f}%"


#: Starved nodes the run view names one by one at most; the rest are counted.
MAX_STARVED_LISTED = 8


def node_views(r: Mapping[str, Any]) -> list[Any]:
    """Each sending node's share (a bridge or switch offers none and is left out): the
    spread of their throughput and p99 latency, the run's fairness (Jain's index over
    their carried shares, the smallest share and its node) and, when the core flagged
    starved nodes, a warning naming each with its carried share, its backlog and the
    age of its oldest waiting transaction. A starved node's latency rests on the few
    transactions that got through, so the p99 range leaves the starved nodes out."""
    parts: list[Any] = []
    nodes = [n for n in r.get("per_node", []) if n.get("offered_mbps")]
    starved = set(r.get("starved_nodes") or [])
    shares = [t for n in nodes if (t := n.get("throughput_mbps")) is not None]
    if shares:
        tails = [t for n in nodes if n.get("node") not in starved and (t := n.get("latency_ns_p99")) is not None]
        parts.append(Text(
            f"per node over {counted(len(nodes), 'node')}: throughput min {min(shares):,.1f}, "
            f"mean {sum(shares) / len(shares):,.1f}, max {max(shares):,.1f} MB/s"
            + (f"; latency p99 {min(tails):,.0f} to {max(tails):,.0f} ns" if tails else "")
            + (" (the starved nodes left out)" if tails and starved else "")
        ))
    node = r.get("min_carried_share_node")
    if "fairness_index" in r and node is not None and node >= 0:
        index = r.get("fairness_index")
        parts.append(Text(
            f"fairness over {counted(len(nodes), 'sending node')}: Jain's index "
            f"{'-' if index is None else f'{index:.3f}'} (1 when all carry equal shares of their load); "
            f"smallest carried share {_percent(r.get('min_carried_share'))} (node {node})"
        ))
    if starved:
        by_node = {n.get("node"): n for n in r.get("per_node", [])}
        flagged = list(r.get("starved_nodes") or [])
        listed = []
        for i, k in enumerate(flagged[:MAX_STARVED_LISTED]):
            n = by_node.get(k, {})
            what, unit = (" of its offered load", " transactions") if i == 0 else ("", "")
            listed.append(
                f"node {k} carried {_percent(n.get('carried_share'))}{what} "
                f"({_num(n.get('transactions'))}{unit} completed; backlog {_num(n.get('backlog'))}, "
                f"oldest waiting {_duration(n.get('oldest_waiting_ns'))})")
        more = len(flagged) - len(listed)
        parts.append(Text(
            "starved: " + "; ".join(listed) + (f"; and {more:,} more nodes" if more > 0 else ""),
            style="bold yellow"))
        parts.append(Text(
            "a starved node's latency figures come only from the few of its transactions that got through: "
            "read its carried share, backlog and oldest waiting age instead (per_node in --json)",
            style="yellow"))
    parts.extend(progress_views(r))
    return parts


def progress_views(r: Mapping[str, Any]) -> list[Any]:
    """Warnings of broken promises: the nodes that completed nothing for longer than the
    stall window while they had work outstanding (each with its longest stretch, whether
    its data went meanwhile, what it completed and its backlog), and packets delivered
    twice."""
    parts: list[Any] = []
    stalled = list(r.get("stalled_nodes") or [])
    if stalled:
        by_node = {n.get("node"): n for n in r.get("per_node", [])}
        listed = []
        window = r.get("stall_window_ns")
        for k in stalled[:MAX_STARVED_LISTED]:
            n = by_node.get(k, {})
            # A block moves packet by packet: a node whose data went is slow, not stuck.
            by_data = n.get("longest_stall_by_data_ns")
            went = (f", its data going (none for at most {_duration(by_data)})"
                    if by_data is not None and window is not None and by_data <= window else "")
            listed.append(f"node {k} completed nothing for {_duration(n.get('longest_stall_ns'))}{went} "
                          f"({_num(n.get('transactions'))} completed; backlog {_num(n.get('backlog'))})")
        more = len(stalled) - len(listed)
        parts.append(Text(
            f"stalled (no completion for over {_duration(r.get('stall_window_ns'))} with work outstanding): "
            + "; ".join(listed) + (f"; and {more:,} more nodes" if more > 0 else ""),
            style="bold yellow"))
    twice = (r.get("conservation") or {}).get("delivered_twice")
    if twice:
        parts.append(Text(f"{twice:,} packets delivered twice: their targets did not tell them from new "
                          "(a defect of the model: please report it)", style="bold red"))
    return parts


def _label(name: str) -> str:
    """A figure's name as a label: ``channel_latency_ns_p99`` -> ``channel latency p99``."""
    words = [w for w in name.split("_") if w not in ("ns", "mbps")]
    return " ".join(words)


def channel_views(r: Mapping[str, Any]) -> list[Any]:
    """The figures of a run that reports virtual channels (``per_vc``: a GigaRing
    channel): a line per ring (its ringlet: send utilisation, and utilisation with
    echoes and pass-through, mean and busiest link), and a table per virtual
    channel: the data its packets delivered, with its packets' count, mean one-way
    latency and retries (``per_class``)."""
    vcs = r.get("per_vc") or []
    if not vcs:
        return []
    parts: list[Any] = []
    rings = r.get("per_ringlet") or []
    if rings:
        parts.append(Text("per ring: link utilisation by send packets; by all symbols, mean and busiest link"))
        for ring in rings:
            # A third ringlet is the one the two fold into (gigaring `[faults]`).
            name = "folded ring" if ring.get("ringlet") == 2 and r.get("reconfiguration") else f"ring {ring.get('ringlet')}"
            parts.append(Text(
                f"  {name}: send {_num(ring.get('send_utilization_mean'), 3)}; "
                f"all mean {_num(ring.get('utilization_mean'), 3)}, max {_num(ring.get('utilization_max'), 3)}"
            ))
    classes = {c.get("class"): c for c in r.get("per_class") or []}
    parts.append(Text("per virtual channel: data delivered in MB/s, packets, mean one-way latency in ns"))
    rows = []
    for vc in vcs:
        c = classes.get(vc.get("class"), {})
        rows.append((str(vc.get("class")), str(vc.get("name")), _num(vc.get("throughput_mbps")),
                     _num(c.get("packets")), _num(c.get("latency_ns_mean"), 0), _num(c.get("retries"))))
    parts.append(FitTable([Column("vc", key=True), Column("name", justify="left", wrap=True, key=True),
                           Column("MB/s"), Column("packets"), Column("mean"), Column("retries")], rows))
    return parts


#: Rows a run's switch or port table shows at most; a bigger network shows its busiest rows.
MAX_SWITCH_ROWS = 16


def _busiest(rows: list[Mapping[str, Any]], key: Any, what: str, title: str) -> tuple[list[Mapping[str, Any]], str]:
    """All of ``rows`` (at most :data:`MAX_SWITCH_ROWS`), or the half as many busiest
    of them by ``key`` (a tuple, the greatest first), in their own order, with
    ``title`` saying which."""
    if len(rows) <= MAX_SWITCH_ROWS:
        return rows, title
    keep = sorted(range(len(rows)), key=lambda i: (key(rows[i]), -i), reverse=True)[:MAX_SWITCH_ROWS // 2]
    return [rows[i] for i in sorted(keep)], f"{title} ({len(keep)} busiest of {len(rows):,} {what})"


def _spread(label: str, values: list[Any], fmt: str) -> str:
    xs = [x for x in values if x is not None]
    if not xs:
        return ""
    return f"{label} min {min(xs):{fmt}}, mean {sum(xs) / len(xs):{fmt}}, max {max(xs):{fmt}}"


def switch_views(r: Mapping[str, Any]) -> list[Any]:
    """The switch figures of a run that reports them (``per_switch``, ``per_port``):
    per switch its B-Link (bus) utilisation and the data across it, per port its
    data to and from the bus and its output link's send utilisation. A network
    of more than :data:`MAX_SWITCH_ROWS` switches or ports shows its busiest
    rows and, above them, the spread over all."""
    parts: list[Any] = []
    switches = r.get("per_switch") or []
    hw = r.get("hardware") or {}
    if switches and hw:
        parts.append(Text(
            f"hardware: {hw['endpoints']:,} endpoints, {hw['switches']:,} switches with {hw['ports']:,} ports and "
            f"{hw['blinks']:,} B-Links, {hw['links']:,} links on {hw['ringlets']:,} ringlets; "
            f"{_num(hw.get('throughput_mbps_per_port'))} MB/s per switch port"))
    if switches:
        rows, title = _busiest(switches, lambda s: (s.get("bus_utilization") or 0.0, s.get("bus_mbps") or 0.0),
                               "switches",
                               "switches: B-Link utilisation and MB/s across it")
        if len(rows) < len(switches):
            parts.append(Text(_spread(f"B-Link utilisation over {len(switches):,} switches:",
                                      [s.get("bus_utilization") for s in switches], ".3f")))
        parts.append(Text(title))
        parts.append(FitTable(
            [Column("switch", key=True), Column("ports"), Column("B-Link util", short="util",
                                                                 meaning="B-Link utilisation"),
             Column("MB/s"), Column("crossings")],
            [(str(s.get("switch")), str(s.get("ports")), _num(s.get("bus_utilization"), 3),
              _num(s.get("bus_mbps")), _num(s.get("crossings"))) for s in rows]))
    ports = r.get("per_port") or []
    if ports:
        # (The busiest port: its link's send utilisation, then its traffic across the B-Link.)
        rows, title = _busiest(ports, lambda p: (p.get("send_utilization") or 0.0,
                                                 (p.get("to_bus_mbps") or 0.0) + (p.get("from_bus_mbps") or 0.0)),
                               "ports", "ports: MB/s to/from the B-Link, link send utilisation")
        if len(rows) < len(ports):
            parts.append(Text(_spread(f"link send utilisation over {len(ports):,} ports:",
                                      [p.get("send_utilization") for p in ports], ".3f")))
        parts.append(Text(title))
        parts.append(FitTable(
            [Column("switch", key=True), Column("port", key=True), Column("link"), Column("ringlet", short="rl",
                                                                                    meaning="ringlet"),
             Column("to bus", short="to", meaning="MB/s to the B-Link"),
             Column("from bus", short="from", meaning="MB/s from the B-Link"),
             Column("send util", short="send", meaning="link send utilisation")],
            [(str(p.get("switch")), str(p.get("port")), str(p.get("link")), str(p.get("ringlet")),
              _num(p.get("to_bus_mbps")), _num(p.get("from_bus_mbps")), _num(p.get("send_utilization"), 3))
             for p in rows]))
    return parts


def hops_range(workload: Mapping[str, Any]) -> str:
    """A bench workload's packet-hops/s in its slowest and fastest repeat,
    in millions: on a shared machine the spread says how far to trust the
    median."""
    walls = [x for x in workload.get("wall_s_all") or [] if x and x > 0]
    hops = workload.get("packet_hops")
    if not walls or not hops:
        return "-"
    return f"{hops / max(walls) / 1e6:.2f}-{hops / min(walls) / 1e6:.2f}"


def _scaled(x: Any, scale: float, digits: int) -> str:
    """`_num` of `x / scale`."""
    return _num(None if x is None else x / scale, digits)


def bench_view(report: Mapping[str, Any]) -> Group:
    """One row per benchmark workload (rates in millions and thousands, so
    the table fits a terminal)."""
    reps = {w.get("repeats") for w in report.get("workloads", [])}
    n = reps.pop() if len(reps) == 1 else None
    runs = "runs" if n is None else f"{n} run" + ("s" if n != 1 else "")
    t = FitTable(
        [Column("workload", justify="left", wrap=True, key=True), Column("x loop"), Column("Mhops/s"),
         Column("range"), Column("events/hop"), Column("sim/wall"), Column("wall s"), Column("MB/s")],
        [(str(w.get("workload")), _num(w.get("floor_ratio"), 3), _scaled(w.get("packet_hops_per_s"), 1e6, 2),
          hops_range(w), _num(w.get("events_per_hop"), 3), _num(w.get("sim_to_wall"), 4), _num(w.get("wall_s_median"), 3),
          _num(w.get("throughput_mbps"))) for w in report.get("workloads", [])],
        title=f"ringlet {report.get('ringlet_version')} bench (medians of {runs})")
    return Group(t, Text("x loop: Mhops/s over a bare event loop's in the same shape, run after each run "
                         "(compare this across machines); range: Mhops/s of the slowest and fastest run; "
                         "events/hop: events handled per packet-hop (--json: by kind)"))


def store_view(store: Any, current: str, last: Optional[int] = None) -> Group:
    """What a results store holds: a line per ringlet version, then a table of each
    version's rows (this version's first; other versions' rows are never reused),
    or of only its ``last`` most recent rows."""
    import json

    versions = store.versions()
    total = sum(versions.values())
    parts: list[Any] = [Text(f"results store {store.path}: {total:,} runs", style="bold")]
    order = sorted(versions, key=lambda v: v != current)
    for version in order:
        rows = store.rows(version)
        points = len({r.point_hash or r.scenario_hash for r in rows})
        times = [r.finished_at for r in rows if r.finished_at]
        when = f", finished {min(times)} to {max(times)}" if times else ""
        label = "this version" if version == current else "another version: kept apart, not reused"
        reps = max(r.replication for r in rows) + 1 if rows else 0
        reps_text = f", up to {reps} replications" if reps > 1 else ""
        parts.append(Text(f"ringlet {version} ({label}): {len(rows):,} runs of {points:,} points{reps_text}{when}"))
    for version in order:
        rows = store.rows(version)
        title = f"ringlet {version}"
        if last is not None and len(rows) > last:
            title += f": the last {last:,} of {len(rows):,} rows"
            rows = rows[-last:]
        # One column per swept key (the union over the store's sweeps), headed by
        # the key's own name when that is unambiguous: narrow enough for 80 columns.
        keys = list(dict.fromkeys(k for r in rows for k in r.values))
        short = [k.rsplit(".", 1)[-1] for k in keys]
        heads = [s if short.count(s) == 1 else k for k, s in zip(keys, short)]

        def numeric(key: str) -> bool:
            values = [r.values[key] for r in rows if key in r.values]
            return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)

        cells = []
        for r in rows:
            res = json.loads(r.result)
            cells.append((str(r.id), r.scenario_hash, str(r.seed), str(r.replication),
                          _num(res.get("throughput_mbps")), _num(res.get("latency_ns_mean"), 0),
                          *(str(r.values.get(k, "")) for k in keys)))
        parts.append(FitTable(
            [Column("id", key=True), Column("scenario hash", justify="left", short="hash", meaning="scenario hash"),
             Column("seed"), Column("rep", meaning="replication"), Column("MB/s"),
             Column("latency ns", short="lat ns", meaning="latency mean, ns"),
             # (Numbers right-aligned, as the figures are; a column of words or lists to the left.)
             *(Column(h, justify="right" if numeric(k) else "left") for k, h in zip(keys, heads))],
            cells, title=title))
    return Group(*parts)


def validation_view(table: "pd.DataFrame") -> Any:
    """A rich summary of the validation table for the terminal: quotes, then findings."""
    from ..study.validation import is_calibrated, short_number, signed_pct

    parts = []
    quotes = table[table["kind"] == "quote"]
    if len(quotes):
        rows = []
        calibrated = False
        for r in quotes.itertuples():
            diff = "-" if math.isnan(r.difference_pct) else signed_pct(r.difference_pct)
            cal = is_calibrated(getattr(r, "calibrated", None))
            calibrated |= cal
            # (The terminal's tables say "-" for a missing figure; the documents' "–".)
            rows.append((r.figure, r.quote_id + (" *" if cal else ""), short_number(r.seed_value_si).replace("–", "-"),
                         short_number(r.ringlet_value).replace("–", "-"), r.unit, diff))
        parts.append(FitTable(
            [Column("figure", justify="left", wrap=True, key=True), Column("quote", justify="left", wrap=True, key=True),
             Column("seed"), Column("ringlet"), Column("unit", justify="left"),
             Column("difference", short="diff", meaning="ringlet's difference from the seed")],
            rows, title="seed's numbers beside ringlet's (SI units)", padding=(0, 1)))
        if calibrated:
            parts.append(Text("* a calibration target: a parameter the seed does not give was chosen to hit "
                              "it, so it agrees by construction and validates nothing"))
    findings = table[table["kind"] == "finding"]
    if len(findings):
        rows = []
        for r in findings.itertuples():
            holds = {"yes": Text("yes", style="green"), "no": Text("no", style="red"),
                     "within noise": Text("within noise", style="yellow")}.get(r.verdict, "- (no data)")
            rows.append((r.figure, r.finding_id, holds))
        parts.append(FitTable([Column("figure", justify="left", wrap=True, key=True),
                               Column("finding", justify="left", wrap=True), Column("holds", justify="left")],
                              rows, title="findings", padding=(0, 1)))
    return Group(*parts)


def _markdown_cell(text: str) -> Text:
    """A Markdown table cell as text: its code spans styled, its escaped pipes plain."""
    out = Text()
    for n, piece in enumerate(text.replace("\\|", "|").split("`")):
        out.append(piece, style="cyan" if n % 2 else "")
    return out


def markdown_view(text: str) -> Group:
    """Markdown (``ringlet params``' reference) for the terminal: its prose through
    rich's Markdown, its tables as :class:`FitTable` (the first column the row's
    name), so they fit the console without cutting a value."""
    from rich.markdown import Markdown

    parts: list[Any] = []
    prose: list[str] = []
    table: list[list[str]] = []

    def cells(line: str) -> list[str]:
        return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]

    def flush() -> None:
        if prose and "".join(prose).strip():
            parts.append(Markdown("".join(prose)))
        prose.clear()
        if table:
            head, body = table[0], [row for row in table[1:] if not set("".join(row)) <= set("-: ")]
            parts.append(Text(""))
            parts.append(FitTable(
                [Column(h.replace("`", ""), justify="left", wrap=n > 0, key=n == 0) for n, h in enumerate(head)],
                [[_markdown_cell(c) for c in row] for row in body], box=box.SIMPLE_HEAVY, padding=(0, 1)))
            parts.append(Text(""))
        table.clear()

    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("|"):
            if prose:
                flush()
            table.append(cells(line))
        else:
            if table:
                flush()
            prose.append(line)
    flush()
    return Group(*parts)
