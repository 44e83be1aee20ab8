"""The study format: a published paper's figures, described as data (``study.toml``).

A study is a folder with a ``study.toml`` and the base scenario it names. The
file lists figures: what to sweep, how to plot it, and the numbers the paper
quotes, each with a recipe (see :mod:`ringlet.study.extract`) for reading ringlet's
own value off the figure's data. Nothing here runs a simulation;
:mod:`ringlet.study.reproduce` does. The format is documented in docs/studies.md.

Studies shipped with ringlet live in ``ringlet/studies/<name>/`` inside the
package, so they install with it; any other folder can be given by path.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from ..api import schema
from ..api.errors import ScenarioError
from ..api.overrides import check_key
from ..api.scenario import Override, Scenario
from ..runs.limits import MAX_REPLICATIONS
from ..runs.table import NUMERIC_FIELDS
from .capacityspec import CAPACITY_COLUMNS, CAPACITY_NUMERIC, CAPACITY_TABLE, CapacitySpec, parse_capacity
from .claims import COMPARISONS, NO, SEED_UNITS, WITHIN_NOISE, YES, Finding, Quote, parse_finding, parse_quote
from .draws import DRAW
from .extract import TABLE_UNITS, same_value, unit_of
from .fields import ID, StudyError, as_axis, as_overrides, as_table, as_text, check_fields
from .plotspec import PLOT_FIELDS, REDUCE_STATS, PlotSpec, parse_plot

# The format's parts live in their own modules (the plot in :mod:`.plotspec`, quotes and
# findings in :mod:`.claims`, capacity searches in :mod:`.capacityspec`, the shared field
# readers in :mod:`.fields`); their names are this module's too, where they always were.
__all__ = [
    "STUDIES_DIR", "STUDY_FILE", "DEFAULT_QUICK", "Figure", "Study", "StudyError", "PlotSpec", "Quote", "Finding",
    "CapacitySpec", "SEED_UNITS", "COMPARISONS", "YES", "NO", "WITHIN_NOISE", "REDUCE_STATS", "PLOT_FIELDS",
    "CAPACITY_TABLE", "CAPACITY_NUMERIC", "CAPACITY_COLUMNS", "FIGURE_FIELDS", "available_studies", "find_study",
    "drawable_tables", "parse_study", "default_x", "load_study", "max_priorities",
]


#: Where the studies shipped with ringlet are (installed with the package).
STUDIES_DIR = Path(__file__).resolve().parent.parent / "studies"
STUDY_FILE = "study.toml"

#: The ``--quick`` reduction when a study does not give its own ``[study.quick]``.
DEFAULT_QUICK = {"run.measure_transactions": 10000}


@dataclass(frozen=True)
class Figure:
    """One figure: its own sweep (``fixed`` + ``grid``), or another figure's data (``data``)."""

    id: str
    title: str
    description: str
    plot: PlotSpec
    fixed: tuple[Override, ...] = ()
    grid: Mapping[str, list[Any]] = field(default_factory=dict)
    data: Optional[str] = None
    quotes: tuple[Quote, ...] = ()
    findings: tuple[Finding, ...] = ()
    #: A report table of the runs (``per_vc``, ``per_ringlet``, ...) that the figure draws
    #: instead of the sweep table: one row per point and table row.
    table: Optional[str] = None
    #: Capacity searches instead of a sweep (its table: ``CAPACITY_TABLE``).
    capacity: Optional[CapacitySpec] = None
    #: Independent draws (``draws = N``): every point of the grid runs N times, draw ``d``
    #: with the seed a sweep's replication ``d`` gets (draw 0 the scenario's own
    #: ``run.seed``); the figure's values are the means over the draws (:mod:`.draws`).
    #: 1: one run per point, no draws.
    draws: int = 1

    @property
    def data_id(self) -> str:
        """The figure whose sweep this figure draws (itself unless ``data`` names another)."""
        return self.data or self.id

    @property
    def frame_key(self) -> str:
        """The key of the figure's data among a reproduction's frames: its data figure's id,
        and ``/<table>`` for a figure that draws a report table."""
        return self.data_id if self.table is None else f"{self.data_id}/{self.table}"


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    source: str
    folder: Path
    base: Scenario
    figures: tuple[Figure, ...]
    quick: tuple[Override, ...]
    description: str = ""

    def figure(self, fig_id: str) -> Figure:
        for fig in self.figures:
            if fig.id == fig_id:
                return fig
        raise StudyError(f"unknown figure {fig_id!r} in study {self.name}; available: {', '.join(self.ids)}")

    @property
    def ids(self) -> list[str]:
        return [f.id for f in self.figures]

    def scenario(self, fig: Figure, quick: bool = False) -> Scenario:
        """The scenario the figure's grid sweeps over: base + fixed (+ the quick reduction)."""
        owner = self.figure(fig.data_id)
        try:
            return self.base.with_overrides(owner.fixed + (self.quick if quick else ()))
        except ScenarioError as e:
            raise StudyError(f"{self.name}: {owner.id}: {e}") from None

    def draws(self, fig: Figure) -> int:
        """How many draws the figure's data has: its data figure's ``draws`` (1: none)."""
        return self.figure(fig.data_id).draws

    def frame_keys(self, fig: Figure) -> list[str]:
        """The columns that tell the runs of the figure's data apart: its data figure's
        swept keys, and ``draw`` when it has draws (as a per-replication sweep table has
        ``replication``)."""
        owner = self.figure(fig.data_id)
        return [*owner.grid, DRAW] if owner.draws > 1 else list(owner.grid)

    def select(self, only: Optional[Sequence[str]]) -> list[Figure]:
        """The figures named in ``only`` (all if None), in study order; unknown ids raise."""
        if not only:
            return list(self.figures)
        unknown = [i for i in only if i not in self.ids]
        if unknown:
            raise StudyError(
                f"--only {','.join(unknown)}: unknown figure in study {self.name}; available: {', '.join(self.ids)}"
            )
        return [f for f in self.figures if f.id in only]


# -- finding studies -------------------------------------------------------------


def available_studies() -> list[str]:
    """Names of the studies shipped with ringlet."""
    if not STUDIES_DIR.is_dir():
        return []
    return sorted(p.name for p in STUDIES_DIR.iterdir() if (p / STUDY_FILE).is_file())


def find_study(study: "str | os.PathLike[str]") -> Path:
    """The folder of a study given by shipped name, by folder path, or by path to its study.toml."""
    path = Path(study)
    if path.is_file() and path.name == STUDY_FILE:
        return path.parent
    if path.is_dir() and (path / STUDY_FILE).is_file():
        return path
    name = os.fspath(study)
    # A shipped name wins over a folder of that name without a study in it
    # (an earlier run's --out folder, say).
    if name in available_studies():
        return STUDIES_DIR / name
    if path.is_dir():
        raise StudyError(f"{study}: not a study folder (no {STUDY_FILE})")
    shipped = ", ".join(available_studies()) or "none"
    raise StudyError(f"unknown study {name!r}: give a study folder or one of: {shipped}")


# -- parsing ---------------------------------------------------------------------


FIGURE_FIELDS = {"id", "title", "description", "fixed", "grid", "data", "plot", "quote", "finding", "table",
                 "capacity", "draws"}


def _draws(spec: Mapping[str, Any], grid: Mapping[str, Any], context: str) -> int:
    """``draws``: an integer of at least 2, on a figure that runs its own sweep, whose grid
    leaves ``run.seed`` to the draws. Absent: 1 (one run per point)."""
    if "draws" not in spec:
        return 1
    draws = spec["draws"]
    if isinstance(draws, bool) or not isinstance(draws, int) or not 2 <= draws <= MAX_REPLICATIONS:
        raise StudyError(f"{context}: draws must be an integer from 2 to {MAX_REPLICATIONS} (leave it out for "
                         f"one run per point), got {draws!r}")
    if spec.get("data") is not None:
        raise StudyError(f"{context}: draws: a figure with data = {spec['data']!r} has that figure's draws")
    if "capacity" in spec:
        raise StudyError(f"{context}: draws: a capacity figure has its own replications "
                         "([figure.capacity] replications)")
    if "run.seed" in grid:
        raise StudyError(f"{context}: draws: each draw sets run.seed, so the grid cannot sweep it")
    return draws


def drawable_tables() -> list[str]:
    """Report tables a figure may draw (``table = ...``): every table of the core's report
    but per_priority, whose figures the sweep table already holds."""
    return [t for t in schema.report_schema()["tables"] if t != "per_priority"]


def _figure(spec: Any, index: int, where: str) -> Figure:
    spec = as_table(spec, f"{where}: figure {index + 1}")
    fig_id = spec.get("id")
    if not isinstance(fig_id, str) or not ID.match(fig_id):
        raise StudyError(f"{where}: figure {index + 1}: id must be letters, digits, '-', '_' or '.', got {fig_id!r}")
    context = f"{where}: {fig_id}"
    check_fields(spec, FIGURE_FIELDS, context)
    data = spec.get("data")
    if data is not None and ("grid" in spec or "fixed" in spec):
        raise StudyError(f"{context}: a figure with data = {data!r} reuses that figure's sweep; drop fixed/grid")
    grid_spec = as_table(spec.get("grid"), f"{context}: grid")
    if data is None and not grid_spec:
        raise StudyError(f"{context}: needs a grid (or data = \"<figure id>\" to reuse another figure's sweep)")
    fixed = as_overrides(as_table(spec.get("fixed"), f"{context}: fixed"), f"{context}: fixed")
    grid: dict[str, list[Any]] = {}
    for key, values in grid_spec.items():
        try:
            check_key(key)
        except ScenarioError as e:
            raise StudyError(f"{context}: grid: {e}") from None
        if any(k == key for k, _ in fixed):
            raise StudyError(f"{context}: {key} is both fixed and swept")
        grid[key] = as_axis(key, values, f"{context}: grid")
    quotes = tuple(parse_quote(q, f"{context}: quote") for q in spec.get("quote", []))
    findings = tuple(parse_finding(f, f"{context}: finding") for f in spec.get("finding", []))
    ids = [q.id for q in quotes] + [f.id for f in findings]
    if len(set(ids)) != len(ids):
        raise StudyError(f"{context}: quote and finding ids must be unique within a figure")
    table = spec.get("table")
    if table is not None and table not in drawable_tables():
        raise StudyError(f"{context}: table must be one of {', '.join(drawable_tables())}, got {table!r}")
    draws = _draws(spec, grid, context)
    capacity = None
    if "capacity" in spec:
        if data is not None or table is not None:
            raise StudyError(f"{context}: a capacity figure runs its own searches: no data or table")
        capacity, table = parse_capacity(spec["capacity"], f"{context}: capacity"), CAPACITY_TABLE
    return Figure(
        id=fig_id,
        title=as_text(spec, "title", context),
        description=as_text(spec, "description", context, default=""),
        plot=parse_plot(spec.get("plot"), f"{context}: plot"),
        fixed=fixed,
        grid=grid,
        data=data,
        quotes=quotes,
        findings=findings,
        table=table,
        capacity=capacity,
        draws=draws,
    )


def _check_columns(fig: Figure, owner: Figure, where: str) -> None:
    """Every column the figure plots, filters or reads exists in its data, and filtered values are swept."""
    context = f"{where}: {fig.id}"
    keys = list(owner.grid)
    plot = fig.plot
    if fig.table is None:
        selectable, numeric, what = keys + ["priority"], list(NUMERIC_FIELDS), "a swept key or priority"
    elif fig.table == CAPACITY_TABLE:
        selectable, numeric = keys + list(CAPACITY_COLUMNS), list(CAPACITY_NUMERIC)
        what = f"a swept key or a column of the capacity table ({', '.join(CAPACITY_COLUMNS)})"
    else:
        columns = schema.names(schema.table(fig.table) or [])
        selectable, what = keys + columns, f"a swept key or a column of {fig.table}"
        numeric = [c for c in columns if c in TABLE_UNITS]
    # A table's figure may also run along one of the table's numeric columns (x = "node").
    if plot.x not in keys and not (fig.table is not None and plot.x in numeric):
        raise StudyError(f"{context}: plot.x {plot.x!r} is not {'a swept key' if fig.table is None else what} "
                         f"({', '.join(keys if fig.table is None else keys + numeric)})")
    if plot.y not in numeric:
        raise StudyError(f"{context}: plot.y {plot.y!r} is not a result column ({', '.join(numeric)})")
    for item in (*fig.quotes, *fig.findings):
        values = (item.value,) if isinstance(item, Quote) else (item.left, item.right)
        for pick in (p for v in values for p in v.picks()):
            if pick.column not in numeric:
                raise StudyError(f"{context}: {item.id}: column {pick.column!r} is not a column of the figure's "
                                 f"data ({', '.join(numeric)})")
    # With draws, the plot may pick draws (a line per draw, or one draw); a recipe reads every draw.
    drawn = [DRAW] if owner.draws > 1 else []
    for role in ("series", "panel"):
        column = getattr(plot, role)
        if column is not None and column not in selectable + drawn:
            raise StudyError(f"{context}: plot.{role} {column!r} is not {what}")
        if column is None and getattr(plot, f"{role}_values") is not None:
            raise StudyError(f"{context}: plot.{role}_values without plot.{role}")
    wheres = [("plot.where", plot.where)]
    for item in (*fig.quotes, *fig.findings):
        values = (item.value,) if isinstance(item, Quote) else (item.left, item.right)
        wheres += [(f"{item.id}", p.where) for v in values for p in v.picks()]
    for label, entries in wheres:
        for column, wanted in entries:
            if column == DRAW and drawn and label != "plot.where":
                raise StudyError(f"{context}: {label}: where {column!r}: a recipe reads every draw (its value is "
                                 "their mean); only the plot may pick draws")
            if column not in selectable + (drawn if label == "plot.where" else []):
                raise StudyError(f"{context}: {label}: where {column!r} is not {what}")
            if column == DRAW and column not in selectable:
                missing = [w for w in wanted if not any(same_value(w, d) for d in range(owner.draws))]
                if missing:
                    raise StudyError(f"{context}: {label}: where {column} = {missing[0]!r}: the draws are "
                                     f"0 to {owner.draws - 1}")
            if column in owner.grid:
                missing = [w for w in wanted if not any(same_value(w, v) for v in owner.grid[column])]
                if missing:
                    raise StudyError(f"{context}: {label}: where {column} = {missing[0]!r} is not in the grid")


def parse_study(text: str, folder: Path, name: Optional[str] = None) -> Study:
    """A :class:`Study` from the text of a study.toml in ``folder``; raises :class:`StudyError`."""
    where = str(folder / STUDY_FILE)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{where}: malformed TOML: {e}") from None
    check_fields(doc, {"study", "figure"}, where)
    head = as_table(doc.get("study"), f"{where}: [study]")
    check_fields(head, {"name", "title", "source", "description", "base", "quick"}, f"{where}: [study]")
    base_path = folder / as_text(head, "base", f"{where}: [study]")
    try:
        base = Scenario.load(base_path)
    except ScenarioError as e:
        raise StudyError(str(e)) from None
    quick = as_overrides(as_table(head.get("quick", DEFAULT_QUICK), f"{where}: [study.quick]"), f"{where}: [study.quick]")
    figures = tuple(_figure(spec, i, where) for i, spec in enumerate(doc.get("figure", [])))
    if not figures:
        raise StudyError(f"{where}: no [[figure]]")
    ids = [f.id for f in figures]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate:
        raise StudyError(f"{where}: figure id {duplicate!r} is used twice")
    by_id = {f.id: f for f in figures}
    for fig in figures:
        owner = by_id.get(fig.data_id)
        if owner is None or owner.data is not None:
            raise StudyError(f"{where}: {fig.id}: data = {fig.data!r} must name a figure that has its own grid")
        _check_columns(fig, owner, where)
    study = Study(
        name=head.get("name") or name or folder.name,
        title=as_text(head, "title", f"{where}: [study]"),
        source=as_text(head, "source", f"{where}: [study]", default=""),
        description=as_text(head, "description", f"{where}: [study]", default=""),
        folder=folder,
        base=base,
        figures=figures,
        quick=quick,
    )
    for fig in figures:
        _check_sensitivity(study, fig, by_id[fig.data_id], where)
    return study


def default_x(study: Study, fig: Figure) -> Any:
    """The value of ``fig``'s x that ringlet uses: the base scenario's, after the figure's ``fixed``;
    for a key ringlet derives from the ring (0 in the scenario), the figure's ``plot.derived_x``."""
    value = study.scenario(fig).get(fig.plot.x)
    if fig.plot.derived_x is not None and same_value(value, 0):
        return fig.plot.derived_x
    return value


def _check_sensitivity(study: Study, fig: Figure, owner: Figure, where: str) -> None:
    """``reduce``, ``mark_default`` and ``seed_lines``: the keys are swept, ringlet's own
    value of x is on the grid, and each referenced quote exists, in the plotted unit."""
    context = f"{where}: {fig.id}: plot"
    plot = fig.plot
    if plot.reduce is not None:
        over = plot.reduce[0]
        if over not in owner.grid or over in (plot.x, plot.series, plot.panel):
            raise StudyError(f"{context}: reduce.over {over!r} must be a swept key other than x, series and panel")
    if plot.derived_x is not None and not same_value(study.scenario(fig).get(plot.x), 0):
        raise StudyError(f"{context}: derived_x: {plot.x} is set to {study.scenario(fig).get(plot.x)!r} "
                         "for this figure, not derived (0)")
    if plot.mark_default:
        value = default_x(study, fig)
        if not any(same_value(value, v) for v in owner.grid[plot.x]):
            raise StudyError(f"{context}: mark_default: ringlet's value of {plot.x} ({value!r}) is not on the grid")
    for fig_id, quote_id in plot.seed_lines:
        quote = next((q for f in study.figures if f.id == fig_id for q in f.quotes if q.id == quote_id), None)
        if quote is None:
            raise StudyError(f"{context}: seed_lines: no quote {quote_id!r} in a figure {fig_id!r}")
        if quote.unit != unit_of(plot.y):
            raise StudyError(f"{context}: seed_lines: {fig_id}:{quote_id} is in {quote.unit}, "
                             f"plot.y in {unit_of(plot.y) or 'counts'}")


def load_study(study: "str | os.PathLike[str] | Study") -> Study:
    """Loads a study by shipped name (``"sci-rt"``) or by folder; raises :class:`StudyError`."""
    if isinstance(study, Study):
        return study
    folder = find_study(study)
    path = folder / STUDY_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{path}: cannot read study file: {getattr(e, 'strerror', None) or e}") from None
    return parse_study(text, folder, name=folder.name)


def max_priorities(study: Study, fig: Figure, quick: bool = False) -> int:
    """The largest ``traffic.priorities`` among the points of a figure's sweep (without running it)."""
    owner = study.figure(fig.data_id)
    if "traffic.priorities" in owner.grid:
        return max(int(v) for v in owner.grid["traffic.priorities"])
    return int(study.scenario(owner, quick).get("traffic.priorities"))
