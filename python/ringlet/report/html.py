"""The report's HTML: escaping, tables, images, the page and its atomic write.

In one place so that every text from the results goes through one escaper and
the page needs nothing but itself: inline styles, plots as ``data:`` URIs in
``<img>`` (an SVG shown as an image can neither run scripts nor load
anything), no scripts, fonts or links, and a CSP that forbids any request.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from .. import _core

#: Nothing may be fetched: images only from data: URIs, styles only inline, no scripts.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def escape(value: Any) -> str:
    """Escapes any value for HTML text or a quoted attribute."""
    return html.escape(str(value), quote=True)


def is_missing(x: Any) -> bool:
    if x is None:
        return True
    try:
        return bool(x != x)  # NaN, pandas NA
    except (TypeError, ValueError):
        return False


def number(x: Any, digits: int = 5) -> str:
    """A number for a table: integers whole, floats to ``digits`` significant digits."""
    if is_missing(x):
        return "–"
    if isinstance(x, bool) or getattr(getattr(x, "dtype", None), "kind", "") == "b":
        return str(bool(x))
    if not isinstance(x, (int, float)) and not hasattr(x, "dtype"):
        return str(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    if 10 ** digits <= abs(f) < 1e15:  # whole units rather than an exponent (latencies in ns)
        return f"{f:.0f}"
    return f"{f:.{digits}g}"


def anchor(prefix: str, name: str) -> str:
    """An HTML id from any text."""
    return prefix + re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def html_table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = (),
           cls: str = "") -> str:
    """An HTML table; cells are already-escaped HTML."""
    align = list(numeric) + [False] * (len(header) - len(numeric))
    out = [f'<table class="{escape(cls)}">' if cls else "<table>", "<thead><tr>"]
    out += [f'<th{" class=num" if a else ""}>{escape(h)}</th>' for h, a in zip(header, align)]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f'<td{" class=num" if a else ""}>{c}</td>' for c, a in zip(row, align))
                   + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def img(data: bytes, mime: str, alt: str) -> str:
    uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return f'<img src="{uri}" alt="{escape(alt)}">'


@dataclass
class Section:
    """A part of the page: its heading (for the contents) and its HTML."""

    id: str
    title: str
    html: str


@dataclass
class Page:
    title: str
    intro: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 2em auto;
       max-width: 78em; padding: 0 1em; color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #d0d0d0; padding: 0.2em 0.5em; vertical-align: top; text-align: left; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.plots { display: flex; flex-wrap: wrap; gap: 0 1.5em; } .plots figure.plot { max-width: 46em; }
.scroll { overflow: auto; max-height: 40em; }
figure.plot { margin: 1em 0; } figure.plot img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
pre { background: #f7f7f7; padding: 0.5em; font-size: 0.9em; max-width: 60em; overflow: auto; }
code { font-size: 0.95em; } .muted { color: #666; }
.verdict { font-weight: 600; } .agree { color: #17692b; } .miss { color: #b00020; } .none { color: #666; } .noise { color: #8a5a00; }
.banner { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em; }
nav ul { columns: 2; }
"""


def render_page(page: Page) -> str:
    """The page's HTML."""
    nav = "".join(f'<li><a href="#{escape(s.id)}">{escape(s.title)}</a></li>' for s in page.sections)
    body = "".join(f'<section id="{escape(s.id)}"><h2>{escape(s.title)}</h2>{s.html}</section>' for s in page.sections)
    sources = []
    for p in page.sources:
        try:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            size = p.stat().st_size
        except OSError:
            continue
        sources.append([f"<code>{escape(p.name)}</code>", escape(f"{size:,}"), f"<code>{escape(digest)}</code>"])
    files = html_table(["file", "bytes", "sha256 (first 16 hex digits)"], sources, [False, True, False])
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="ringlet {escape(_core.version())}">'
        f"<title>{escape(page.title)}</title><style>{STYLE}</style></head>\n<body>"
        f"<h1>{escape(page.title)}</h1>" + "".join(page.intro) + f"<nav><ul>{nav}</ul></nav>\n{body}"
        f'<section id="sources"><h2>Source files</h2><p>The files this page was made from, in the folder '
        f"above; the page itself needs no other file and no network.</p>{files}</section>"
        "</body></html>\n"
    )


