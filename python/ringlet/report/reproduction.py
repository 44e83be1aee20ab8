"""A ``ringlet reproduce`` folder's sections of the report: figures, validation table, provenance."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional
from xml.etree import ElementTree

from ..runs.store import FILENAME
from .errors import ReportError
from .html import Page, Section, anchor, escape, html_table, img, is_missing, number
from .provenance import provenance_table
from .store import store_for
from .tables import check_figure_table, read_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Files in a reproduce folder that are not figures.
NOT_FIGURES = {"validation", "sweep", "results", "capacity"}

SVG_NS = "{http://www.w3.org/2000/svg}"
DC_NS = "{http://purl.org/dc/elements/1.1/}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _figure_ids(folder: Path) -> list[str]:
    """Stems of the folder's figure files: a CSV beside an SVG or PNG, or an image alone."""
    stems: dict[str, set[str]] = {}
    for p in folder.iterdir():
        if p.is_file() and p.suffix in (".csv", ".svg", ".png") and not p.name.startswith("."):
            stems.setdefault(p.stem, set()).add(p.suffix)
    return [s for s, exts in stems.items()
            if s not in NOT_FIGURES and exts & {".svg", ".png"}]


def is_reproduction(folder: Path) -> bool:
    return (folder / "validation.csv").is_file() or any(
        (folder / f"{i}.csv").is_file() for i in _figure_ids(folder))


def _natural(text: str) -> list[Any]:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text)]


def _svg_info(data: bytes) -> Optional[tuple[str, str]]:
    """``(title, description)`` of a well-formed SVG (empty when absent); None if it is not SVG."""
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return None
    if root.tag != f"{SVG_NS}svg":
        return None
    title = root.findtext(f"{SVG_NS}title") or root.findtext(f".//{DC_NS}title") or ""
    description = root.findtext(f".//{DC_NS}description") or ""
    return title.strip(), description.strip()


def _study_info(folder: Path) -> dict[str, str]:
    """What validation.md says of the study: title, source, name, version."""
    info: dict[str, str] = {}
    md = folder / "validation.md"
    if not md.is_file():
        return info
    try:
        text = md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return info
    for pattern, key in ((r"^# Validation: (.+)$", "title"), (r"^Source: (.+)$", "source"),
                         (r"^ringlet (\S+), study `([^`]+)`", "name")):
        m = re.search(pattern, text, flags=re.M)
        if m:
            info[key] = m.group(m.lastindex or 1)
            if key == "name":
                info["version"] = m.group(1)
    return info


def study_title(folder: Path) -> Optional[str]:
    """The title of the study reproduced in ``folder`` (from its validation.md), if it says."""
    return _study_info(folder).get("title")


def _shipped_figures(name: Optional[str]) -> dict[str, tuple[str, str]]:
    """Titles and descriptions of a shipped study's figures (for outputs whose SVG has no title)."""
    from ..study import StudyError, available_studies, load_study

    if not name or name not in available_studies():
        return {}
    try:
        study = load_study(name)
    except (StudyError, OSError):
        return {}
    return {f.id: (f.title, f.description or "") for f in study.figures}


def _holds(x: Any) -> Optional[bool]:
    if isinstance(x, bool):
        return x
    text = str(x).strip().lower()
    return {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}.get(text)


def _verdict(ok: Optional[bool]) -> str:
    if ok is None:
        return '<span class="verdict none">no value</span>'
    return '<span class="verdict agree">agrees</span>' if ok else '<span class="verdict miss">miss</span>'


def _finding_verdict(r: Any) -> tuple[Optional[bool], str]:
    """A finding's verdict: ``verdict`` (yes, no, within noise) where the table has it,
    else (a reproduction written before it) the plain ``holds``."""
    verdict = r.get("verdict")
    if not is_missing(verdict) and str(verdict) == "within noise":
        return None, '<span class="verdict noise">within noise</span>'
    if not is_missing(verdict) and str(verdict) in ("yes", "no"):
        ok = str(verdict) == "yes"
    else:
        ok = _holds(r.get("holds"))
    return ok, _verdict(ok)


def validation_html(table: "pd.DataFrame", tolerance_pct: float, known: set[str]) -> str:
    """The validation table: quotes (ours vs the seed's) and findings, each agreeing or missing."""
    def g(r: Any, column: str) -> Any:
        return r.get(column)

    def link(figure: Any) -> str:
        name = str(figure)
        return f'<a href="#{anchor("fig-", name)}">{escape(name)}</a>' if name in known else escape(name)

    out = []
    kinds = table["kind"].astype(str)
    quotes = table[kinds == "quote"]
    if len(quotes):
        from ..study.validation import is_calibrated, signed_difference, signed_pct

        # Calibration targets (a parameter was chosen to hit them) get a role column, when there are any.
        roles = "calibrated" in quotes.columns and any(is_calibrated(v) for v in quotes["calibrated"])
        rows, agree, calibrated = [], 0, 0
        for _, r in quotes.iterrows():
            pct = g(r, "difference_pct")
            ok = None if is_missing(pct) or is_missing(g(r, "ringlet_value")) else abs(float(pct)) <= tolerance_pct
            agree += ok is True
            unit = "" if is_missing(g(r, "unit")) else str(g(r, "unit"))
            ringlet = (escape(f"{number(g(r, 'ringlet_value'), 4)} {unit}") if not is_missing(g(r, "ringlet_value"))
                       else "– " + escape(g(r, "note") or ""))
            diff = "–" if is_missing(pct) else escape(
                f"{signed_difference(float(g(r, 'difference')), float(g(r, 'seed_value_si')))} "
                f"({signed_pct(float(pct))})")
            seed = "" if is_missing(g(r, "seed_value")) else f"{number(g(r, 'seed_value'), 4)} {g(r, 'seed_unit')}"
            role = []
            if roles:
                cal = is_calibrated(g(r, "calibrated"))
                calibrated += cal
                role = ["<strong>calibration</strong>" if cal else "validation"]
            rows.append([link(g(r, "figure")), escape(g(r, "quote_id")), *role, escape(g(r, "description")),
                         escape(seed), escape(f"{number(g(r, 'seed_value_si'), 4)} {unit}"), ringlet, diff,
                         _verdict(ok)])
        note = ""
        if roles:
            note = (f" {calibrated} of them are calibration targets: a parameter the seed does not give was "
                    "chosen to hit them, so they agree by construction and are no evidence; the others "
                    "(validation) had no parameter tuned to them.")
        out.append(f"<h3>Quoted numbers</h3><p>{agree} of {len(quotes)} within ±{number(tolerance_pct)}% of the "
                   "seed's value (in SI units: the seed's MiB/s × 1.048576, µs × 1000); "
                   f"difference = ringlet − seed.{escape(note)}</p>")
        out.append(html_table(["figure", "quote", *(["role"] if roles else []), "what the seed says", "seed",
                               "seed (SI)", "ringlet", "difference", "verdict"], rows,
                              [False, False, *([False] if roles else []), False, True, True, True, True, False],
                              cls="validation"))
    findings = table[kinds == "finding"]
    if len(findings):
        rows, agree = [], 0
        for _, r in findings.iterrows():
            ok, shown = _finding_verdict(r)
            agree += ok is True
            unit = "" if is_missing(g(r, "unit")) else str(g(r, "unit"))
            ringlet = (escape(f"{number(g(r, 'ringlet_value'), 4)} {unit}") if not is_missing(g(r, "ringlet_value"))
                       else "– " + escape(g(r, "note") or ""))
            rows.append([link(g(r, "figure")), escape(g(r, "finding_id")), escape(g(r, "description")), ringlet,
                         escape(f"{number(g(r, 'compared_to'), 4)} {unit}"), shown])
        out.append(f"<h3>Findings</h3><p>{agree} of {len(findings)} of the seed's claims hold in ringlet "
                   "(within noise: the runs' 95% confidence intervals cannot tell).</p>")
        out.append(html_table(["figure", "finding", "claim", "ringlet", "compared to", "verdict"], rows,
                          [False, False, False, True, True, False], cls="validation"))
    return "".join(out) or "<p>No quotes or findings.</p>"


def reproduce_sections(folder: Path, page: Page, tolerance_pct: float) -> None:
    """Adds a reproduce folder's figures, validation table and provenance to ``page``."""
    import pandas as pd

    info = _study_info(folder)
    validation: Optional[pd.DataFrame] = None
    vpath = folder / "validation.csv"
    if vpath.is_file():
        validation = read_table(vpath)
        for column in ("kind", "figure", "description"):
            if column not in validation.columns:
                raise ReportError(f"{vpath}: damaged or not a validation table: no column {column!r}")
        page.sources.append(vpath)
    if (folder / "validation.md").is_file():
        page.sources.append(folder / "validation.md")

    shipped = _shipped_figures(info.get("name"))
    ids = _figure_ids(folder)
    order = {fid: i for i, fid in enumerate(shipped)}
    ids.sort(key=lambda i: (order.get(i, len(order)), _natural(i)))

    figures = []  # (id, title, description, image html, frame, keys)
    for fid in ids:
        frame, keys = None, []
        csv = folder / f"{fid}.csv"
        if csv.is_file():
            frame = read_table(csv)
            keys = check_figure_table(frame, csv)
            page.sources.append(csv)
        title, description, image = "", "", ""
        svg, png = folder / f"{fid}.svg", folder / f"{fid}.png"
        if svg.is_file():
            data = svg.read_bytes()
            meta = _svg_info(data)
            if meta is not None:
                title, description = meta
                image = img(data, "image/svg+xml", title or fid)
                page.sources.append(svg)
        if not image and png.is_file():
            data = png.read_bytes()
            if data.startswith(PNG_SIGNATURE):
                image = img(data, "image/png", fid)
                page.sources.append(png)
        if not image:
            image = f'<p class="miss">{escape(fid)}: the figure\'s SVG/PNG file is damaged; it is not shown.</p>'
        if fid in shipped:
            title = title or shipped[fid][0]
            description = description or shipped[fid][1]
        figures.append((fid, title or fid, description, image, frame, keys))

    quick = validation is not None and "quick" in validation.columns and any(
        _holds(v) for v in validation["quick"].tolist())
    versions: set[str] = set()
    for *_, frame, _ in figures:
        if frame is not None:
            versions.update(str(v) for v in frame["ringlet_version"])
    if validation is not None and "ringlet_version" in validation.columns:
        versions.update(str(v) for v in validation["ringlet_version"].dropna())
    store = store_for(folder, [f for *_, f, _ in figures if f is not None])
    if store is not None:
        page.sources.append(folder / FILENAME)

    head = []
    if info.get("title"):
        head.append(f"<p><strong>{escape(info['title'])}</strong></p>")
    if info.get("name"):
        head.append(f"<p>Study <code>{escape(info['name'])}</code>.</p>")
    if info.get("source"):
        head.append(f"<p>Source: {escape(info['source'])}</p>")
    head.append(f"<p>{len(figures)} figures; ringlet {escape(', '.join(sorted(versions)) or 'unknown')}.</p>")
    if quick:
        head.append('<p class="banner">Quick run: fewer transactions per point, a smoke test, not a result.</p>')
    contents = "".join(f'<li><a href="#{anchor("fig-", fid)}">{escape(fid)}</a>: {escape(title)}</li>'
                       for fid, title, *_ in figures)
    if contents:
        head.append(f"<ul>{contents}</ul>")
    page.sections.append(Section("reproduction", "Reproduction", "".join(head)))

    if validation is not None:
        page.sections.append(Section("validation", "Validation: ringlet beside the seed",
                                     validation_html(validation, tolerance_pct, {f[0] for f in figures})))

    blocks = []
    for fid, title, description, image, frame, keys in figures:
        block = [f'<section class="figure" id="{anchor("fig-", fid)}"><h3>{escape(fid)}: {escape(title)}</h3>',
                 f'<figure class="plot">{image}<figcaption>{escape(title)}'
                 + (f": {escape(description)}" if description else "") + "</figcaption></figure>"]
        if frame is not None:
            n = frame["point"].nunique()
            versions_f = ", ".join(sorted({str(v) for v in frame["ringlet_version"]}))
            block.append(f"<details><summary>Points and provenance ({n} points, ringlet {escape(versions_f)}, "
                         f"from {escape(fid)}.csv)</summary>"
                         f'<div class="scroll">{provenance_table(frame, keys, store)}</div></details>')
        else:
            block.append(f'<p class="muted">No {escape(fid)}.csv: no provenance for this figure.</p>')
        block.append("</section>")
        blocks.append("".join(block))
    page.sections.append(Section("figures", "Figures", "".join(blocks) or "<p>No figures.</p>"))
