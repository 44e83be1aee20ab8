"""The report's section of a ``ringlet capacity --out`` folder: the answer,
the figure of the probed points and their table."""

from __future__ import annotations

import json
from pathlib import Path

from .errors import ReportError
from .html import Page, Section, escape, html_table, img, number

#: The capacity search's files (its results store aside).
SUMMARY, FIGURE = "capacity.json", "capacity.png"


def is_capacity(folder: Path) -> bool:
    return (folder / SUMMARY).is_file()


def capacity_sections(folder: Path, page: Page) -> None:
    path = folder / SUMMARY
    try:
        doc = json.loads(path.read_text())
        key, probes, deadlines = doc["key"], doc["probes"], doc["deadlines"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ReportError(f"{path}: damaged or not a capacity search's summary: {e}") from None
    page.sources.append(path)
    who = f" at priority {doc['priority']}" if doc.get("priority") is not None else ""
    answer = {"found": f"{key} = {number(doc['capacity'])} meets {' and '.join(deadlines)}{who}; "
                       f"{number(doc['fails_at'])} does not",
              "nowhere": f"{' and '.join(deadlines)}{who} is met nowhere in the range probed",
              "everywhere": f"{' and '.join(deadlines)}{who} is met everywhere probed, up to "
                            f"{key} = {number(doc['capacity'])}"}.get(doc.get("verdict"), "no verdict")
    parts = [f"<p class=verdict>{escape(answer)}</p>",
             f"<p class=muted>{len(probes)} points probed, {doc['replications']} replications each; a point meets a "
             "deadline when the bound of its 95% confidence interval (Student t over the replications) does.</p>"]
    png = folder / FIGURE
    if png.is_file():
        page.sources.append(png)
        parts.append(f'<figure class="plot">{img(png.read_bytes(), "image/png", "capacity search")}</figure>')
    header = [key, "meets"] + [f"{d} ({what})" for d in deadlines for what in ("figure", "±95%", "bound")]
    rows = []
    for p in sorted(probes, key=lambda p: p["value"]):
        cells = [number(p["value"]), "yes" if p["meets"] else "no"]
        for c in p["checks"]:
            cells += [number(c["figure"]), number(c["ci95"]), number(c["bound"])]
        rows.append(cells)
    parts.append(html_table(header, rows, numeric=[True, False] + [True] * (len(header) - 2)))
    page.sections.append(Section("capacity", "Capacity search", "".join(parts)))
