"""``reproduce``: run a study's figures, plot them and compare them with the paper.

Every figure's grid is expanded and validated with :func:`ringlet.runs.grid.points`
before anything runs. Points that several figures share (same canonical
scenario, so the same simulation) run once. All points go through the sweep
machinery (:func:`ringlet.runs.sweep.execute`) together, under one progress
bar, and each figure's table is the one ``ringlet.sweep`` would return for it.

Writes, per figure, ``<id>.csv``, ``<id>.png`` and ``<id>.svg``; for the
study, ``validation.csv``, ``sensitivity.csv`` and ``validation.md`` (and, with
``docs``, the generated block of a document, see :mod:`.docs`): all of them together, through
the one policy for result files (:mod:`ringlet.files`), so a reproduction's
outputs never mix with the last one's; and every point's run, as it finishes,
to the results store ``results.sqlite`` (see :mod:`ringlet.runs.store`).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from .. import _core, files
from ..api import preflight
from ..api.errors import ScenarioError
from ..api.scenario import Override
from ..runs.executors import LocalExecutor
from ..runs.grid import points
from ..runs.limits import MAX_PROCESSES, check_count
from ..runs.progress import Progress, Reporter, reporter
from ..runs.replications import replication_seed
from ..runs.store import FILENAME, Store
from ..runs.sweep import execute, plan_runs
from ..api import schema
from ..runs.table import PRIORITY_FIELDS, PROVENANCE_FIELDS, columns, frame, optional_present, rows
from .draws import DRAW
from .format import CAPACITY_COLUMNS, Figure, Study, StudyError, default_x, load_study, max_priorities

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..api.scenario import Scenario


@dataclass
class Plan:
    """What a reproduction runs: unique points, and which of them each figure's table uses."""

    work: list[tuple[str, tuple[Override, ...]]] = field(default_factory=list)
    #: data figure id -> [(swept values, index into work)] in grid order
    layout: dict[str, list[tuple[dict[str, Any], int]]] = field(default_factory=dict)
    #: capacity figure id -> [(swept values, (text, overrides))] in grid order: a search per
    #: point and deadline, run after ``work`` (its probes are decided as it goes).
    searches: dict[str, list[tuple[dict[str, Any], tuple[str, tuple[Override, ...]]]]] = field(default_factory=dict)

    @property
    def requested(self) -> int:
        """Points the figures' sweeps ask for, counting a shared point once per sweep
        (a figure that draws another figure's data asks for none)."""
        return sum(len(entries) for entries in self.layout.values())

    def swept_values(self) -> list[dict[str, Any]]:
        """Each point's swept values, as the first figure sweeping it names them
        (kept with the point in the results store, so ``ringlet results`` tells points apart)."""
        out: list[Optional[dict[str, Any]]] = [None] * len(self.work)
        for entries in self.layout.values():
            for values, k in entries:
                if out[k] is None:
                    out[k] = values
        return [v if v is not None else {} for v in out]


@dataclass
class Reproduction:
    """The outcome of :func:`run_study`."""

    study: Study
    figures: list[Figure]
    frames: dict[str, "pd.DataFrame"]
    validation: "pd.DataFrame"
    files: list[Path]
    points_requested: int
    points_run: int
    wall_s: float
    quick: bool
    #: Points that stopped before measuring their transactions (see ``validation.early_stops``).
    early_stops: "pd.DataFrame"
    #: The sensitivity figures' lines (see ``curves.sensitivity_table``).
    sensitivity: "pd.DataFrame"


def split_ids(only: "str | Sequence[str] | None") -> Optional[list[str]]:
    """Figure ids from ``"fig8a,fig11"`` or a list; None (all figures) for None.
    Naming no figure at all (``""``, ``","``, ``[]``) is an error, not "all"."""
    if only is None:
        return None
    items = only.split(",") if isinstance(only, str) else list(only)
    ids = [i.strip() for i in map(str, items) if i.strip()]
    if not ids:
        raise StudyError(f"--only: expected figure ids, e.g. fig8a,fig11; got {only!r}")
    return ids


def _check_unambiguous(study: Study, figures: Sequence[Figure], quick: bool) -> None:
    """A per-priority y with several priorities needs priority as series, panel or filter.

    Checked before running, so a spec mistake does not surface after a long run.
    """
    for fig in figures:
        plot = fig.plot
        if fig.table is not None or plot.y not in PRIORITY_FIELDS or "priority" in (plot.series, plot.panel):
            continue
        if any(column == "priority" for column, _ in plot.where):
            continue
        if max_priorities(study, fig, quick) > 1:
            raise StudyError(
                f"{study.name}: {fig.id}: plot.y {plot.y} is per priority and the sweep has several "
                f"priorities: use priority as series or panel, filter it in plot.where, or plot a total_ column"
            )


def plan(study: Study, figures: Sequence[Figure], quick: bool = False) -> Plan:
    """Expands and validates the sweeps the figures need; shared points appear once in ``work``."""
    out = Plan()
    index: dict[str, int] = {}  # canonical scenario TOML -> position in work
    owners = list(dict.fromkeys(fig.data_id for fig in figures))
    for owner_id in owners:
        owner = study.figure(owner_id)
        scenario = study.scenario(owner, quick)
        try:
            expanded = points(scenario, owner.grid, replications=owner.draws)
        except ScenarioError as e:
            raise StudyError(f"{study.name}: {owner.id}: {e}") from None
        if owner.draws > 1:
            expanded = _drawn(expanded, scenario, owner.draws)
        if owner.capacity is not None:
            out.searches[owner_id] = [(values, (scenario.text, overrides)) for values, overrides in expanded]
            continue
        entries = []
        for values, overrides in expanded:
            # Equal canonical TOML (every default filled in, seed included) is the same simulation.
            key = _core.validate(scenario.text, list(overrides))
            if key not in index:
                index[key] = len(out.work)
                out.work.append((scenario.text, overrides))
            entries.append((values, index[key]))
        out.layout[owner_id] = entries
    _check_unambiguous(study, figures, quick)
    return out


def _drawn(expanded: list[tuple[dict[str, Any], tuple[Override, ...]]], scenario: "Scenario",
           draws: int) -> list[tuple[dict[str, Any], tuple[Override, ...]]]:
    """The grid's points once per draw, draw 0's first: draw ``d`` is the point with
    ``run.seed`` set as a sweep's replication ``d`` sets it (draw 0 keeps the scenario's),
    and ``draw = d`` among its swept values."""
    seed = int(scenario.get("run.seed"))
    out = []
    for d in range(draws):
        seed_d = () if d == 0 else (("run.seed", str(replication_seed(seed, d))),)
        out += [({**values, DRAW: d}, (*overrides, *seed_d)) for values, overrides in expanded]
    return out


def table_frame(table: str, keys: Sequence[str], entries: Sequence[tuple[Mapping[str, Any], int]],
                results: Sequence[Mapping[str, Any]]) -> "pd.DataFrame":
    """The report table ``table`` of a figure's points: one row per point and table row,
    with the point, its swept values, the table's columns and the point's provenance."""
    import pandas as pd

    names = schema.names(schema.table(table) or [])
    out: list[dict[str, Any]] = []
    for i, (values, k) in enumerate(entries):
        prov = results[k].get("provenance", {})
        for r in results[k].get(table) or []:
            names += [c for c in r if c not in names]  # columns the core added that this schema lacks
            out.append({"point": i, **values, **r, **{f: prov.get(f) for f in PROVENANCE_FIELDS}})
    return pd.DataFrame(out, columns=["point", *keys, *names, *PROVENANCE_FIELDS])


def _frames(plan_: Plan, study: Study, figures: Sequence[Figure],
            results: list[dict[str, Any]]) -> dict[str, "pd.DataFrame"]:
    """Each data figure's sweep table, as ``ringlet.sweep`` would return it, and each
    report table a figure draws (keyed ``<data figure>/<table>``: :attr:`Figure.frame_key`)."""
    frames = {}
    for owner_id, entries in plan_.layout.items():
        table: list[dict[str, Any]] = []
        for i, (values, k) in enumerate(entries):
            table.extend(rows(i, values, results[k]))
        frames[owner_id] = frame(table, columns(study.frame_keys(study.figure(owner_id)), optional_present(table)))
    for fig in figures:
        if fig.capacity is not None or fig.frame_key in frames:
            continue
        if fig.table is not None:
            keys = study.frame_keys(fig)
            frames[fig.frame_key] = table_frame(fig.table, keys, plan_.layout[fig.data_id], results)
    return frames


def _run_all(work: list[tuple[str, tuple[Override, ...]]], processes: int, report_to: Reporter, store: Store,
             values: Sequence[Mapping[str, Any]]) -> list[str]:
    """Runs every ``(text, overrides)`` on local processes; results in order. Raises the first
    failure's :class:`ScenarioError` once every other run has finished (and been stored).
    ``values`` gives each item's swept values, kept with it in ``store``."""
    runs = plan_runs([(text, ov, values[i]) for i, (text, ov) in enumerate(work)])
    out = execute(runs, LocalExecutor(processes), report_to, store)
    if out.failures:
        raise ScenarioError(out.failures[min(out.failures)])
    return out.results  # type: ignore[return-value]


def _search_all(plan_: Plan, study: Study, jobs: int, store: Store, progress: Progress) -> dict[str, "pd.DataFrame"]:
    """Each capacity figure's table: a search per grid point and deadline, every probe's
    runs through ``store`` (a repeated reproduction runs nothing new)."""
    import pandas as pd

    from ..api.scenario import Scenario
    from ..runs.capacity import capacity, parse_deadlines
    from ..runs.table import describe

    frames = {}
    for fig_id, entries in plan_.searches.items():
        fig = study.figure(fig_id)
        spec = fig.capacity
        rows = []
        for i, (values, (text, overrides)) in enumerate(entries):
            scenario = Scenario.from_toml(text).with_overrides(overrides)
            for deadline in spec.deadlines:
                c = capacity(scenario, deadline, key=spec.key, range=spec.range, tolerance=spec.tolerance,
                             priority=spec.priority, replications=spec.replications, processes=jobs, store=store)
                rows.append({"point": i, **values, "deadline": deadline, "verdict": c.verdict,
                             "deadline_value": parse_deadlines(deadline)[0].limit,
                             "capacity": math.nan if c.capacity is None else c.capacity,
                             "fails_at": math.nan if c.fails_at is None else c.fails_at, "probes": len(c.probes),
                             "throughput_mbps_per_port": (math.nan if c.throughput_mbps_per_port is None
                                                          else c.throughput_mbps_per_port),
                             **c.decisive().provenance})
                if progress:
                    print(f"{fig_id}: {describe(values)}: {c.message()}", file=sys.stderr, flush=True)
        frames[fig.frame_key] = pd.DataFrame(rows, columns=["point", *fig.grid, *CAPACITY_COLUMNS, *PROVENANCE_FIELDS])
    return frames


def _transactions(study: Study, fig: Figure, quick: bool) -> Any:
    return study.scenario(fig, quick).get("run.measure_transactions")


def _draw_all(render: Any, drawings: list[tuple[Any, ...]], jobs: int) -> list[Any]:
    """Draws the figures, on ``jobs`` processes, and returns what ``render`` gave
    for each, in order: saving a figure as PNG and SVG takes about a second, so
    a study's dozen figures are worth spreading. The sweep's executor runs
    them, so a Ctrl-C here stops as cleanly as one during the runs."""
    drawn: list[Any] = [None] * len(drawings)
    with LocalExecutor(min(jobs, len(drawings)) or 1) as executor:
        for i, result, error in executor.start(render, drawings):
            if error is not None:
                # Drawing is deterministic: again here, the error comes with its traceback.
                render(*drawings[i])
                raise RuntimeError(f"drawing figure {drawings[i][0].id} failed: {error}")
            drawn[i] = result
    return drawn


def run_study(
    study: "str | os.PathLike[str] | Study",
    out: "str | os.PathLike[str]",
    jobs: Optional[int] = None,
    quick: bool = False,
    only: "str | Sequence[str] | None" = None,
    progress: Progress = True,
    docs: "str | os.PathLike[str] | None" = None,
) -> Reproduction:
    """Runs a study and writes its outputs to ``out``; see :func:`reproduce`."""
    from . import docs as docs_block
    from .curves import sensitivity_table
    from .plots import render, seed_lines
    from .validation import early_stops, to_markdown, validation_table

    start = time.monotonic()
    study = load_study(study)
    figures = study.select(split_ids(only))
    docs_level = 0
    if docs is not None:
        if quick or only is not None:
            raise StudyError("--docs writes the validation into a document: it needs a full run "
                             "(no --quick, no --only)")
        docs, docs_level = docs_block.check(docs, study.name)
    if jobs is None:
        jobs = min(os.cpu_count() or 1, MAX_PROCESSES)
    check_count("jobs", jobs, MAX_PROCESSES)
    # An ``out`` that cannot hold the outputs fails now, not after every point has run.
    names = [f"{fig.id}.{ext}" for fig in figures for ext in ("csv", "png", "svg")]
    out = files.check_out_dir(out, StudyError, [*names, "validation.csv", "sensitivity.csv", "validation.md"])
    the_plan = plan(study, figures, quick)
    preflight.warn(preflight.study_checks(the_plan.work), stacklevel=3)
    files.make_dir(out, StudyError)

    # Points go into the results store under ``out`` as they finish: an interrupted
    # reproduction resumes, and a repeated one runs nothing.
    with Store(out / FILENAME) as store:
        texts = _run_all(the_plan.work, jobs, reporter(progress, len(the_plan.work)), store,
                         the_plan.swept_values())
        searched = _search_all(the_plan, study, jobs, store, progress)
    results = [json.loads(text) for text in texts]
    frames = {**_frames(the_plan, study, figures, results), **searched}
    version = _core.version()

    drawings = []
    for fig in figures:
        frame = frames[fig.frame_key]
        draws = study.draws(fig)
        runs = len(frame["point"].unique())
        footer = (f"ringlet {version} · study {study.name} · "
                  + (f"{runs // draws} points x {draws} draws (each its own run.seed) · " if draws > 1
                     else f"{runs} points · ")
                  + f"{_transactions(study, fig, quick):,} transactions per point"
                  + (" · QUICK RUN (smoke test, not a result)" if quick else ""))
        default = default_x(study, fig) if fig.plot.mark_default else None
        drawings.append((fig, frame, footer, default, seed_lines(study, fig)))
    outputs: list[tuple[Path, bytes | str]] = []
    for (fig, frame, *_), (png, svg) in zip(drawings, _draw_all(render, drawings, jobs)):
        outputs += [(out / f"{fig.id}.csv", files.table_bytes(frame, "csv")), (out / f"{fig.id}.png", png),
                    (out / f"{fig.id}.svg", svg)]
    table = validation_table(figures, frames, quick, version)
    early = early_stops(study, figures, frames, quick)
    sensitivity = sensitivity_table(study, figures, frames)
    outputs += [(out / "validation.csv", files.table_bytes(table, "csv")),
                (out / "validation.md", to_markdown(table, study, quick, version, early, sensitivity))]
    # Only with sensitivity figures; else a last run's sensitivity.csv goes, so nothing stale stays.
    stale = [] if any(fig.plot.mark_default for fig in figures) else [out / "sensitivity.csv"]
    if not stale:
        outputs.append((out / "sensitivity.csv", files.table_bytes(sensitivity, "csv")))
    if docs is not None:
        generated = to_markdown(table, study, quick, version, early, sensitivity, level=docs_level)
        try:
            text = docs.read_text(encoding="utf-8")
            docs_block.check(docs, study.name)  # still there, after the run
        except OSError as e:
            raise StudyError(f"--docs {docs}: cannot read it: {e.strerror or e}") from None
        outputs.append((docs, docs_block.fill(text, study.name, generated)))
    files.write_together(outputs, StudyError, remove=[p for p in stale if p.exists()])
    return Reproduction(
        study=study, figures=figures, frames=frames, validation=table, files=[path for path, _ in outputs],
        points_requested=the_plan.requested, points_run=len(the_plan.work),
        wall_s=time.monotonic() - start, quick=quick, early_stops=early, sensitivity=sensitivity,
    )


def reproduce(
    study: "str | os.PathLike[str] | Study",
    out: "str | os.PathLike[str]",
    jobs: Optional[int] = None,
    quick: bool = False,
    only: "str | Sequence[str] | None" = None,
    progress: Progress = True,
    docs: "str | os.PathLike[str] | None" = None,
) -> "pd.DataFrame":
    """Runs every figure of ``study`` (a shipped name such as ``"sci-rt"``, or a folder).

    Writes ``<figure>.csv/.png/.svg``, ``validation.csv``, ``sensitivity.csv``
    and ``validation.md`` to ``out`` (created if needed) and returns the validation table.

    ``docs``: a document (such as ``docs/validation/sci-rt.md``) whose block between
    ``<!-- begin generated: ringlet reproduce STUDY -->`` and
    ``<!-- end generated: ringlet reproduce STUDY -->`` is replaced by the
    validation (only with a full run: not with ``quick`` or ``only``).

    ``jobs``: worker processes (default: one per core). ``quick``: the study's
    documented reduction (fewer transactions per point), marked in the
    outputs. ``only``: figure ids (a list or ``"fig8a,fig11"``). ``progress``:
    ``True`` for one progress bar over all points, or a ``(done, total)`` callable.

    Points that stop at their time cap or the backlog cap before measuring their
    transactions are listed in ``validation.md`` and named in a ``UserWarning``.
    """
    done = run_study(study, out, jobs=jobs, quick=quick, only=only, progress=progress, docs=docs)
    if not done.early_stops.empty:
        from .validation import early_stops_message

        warnings.warn(early_stops_message(done.early_stops), stacklevel=2)
    return done.validation
