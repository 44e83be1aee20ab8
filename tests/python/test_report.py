"""``ringlet report``: one self-contained HTML page of a sweep's or a reproduction's results.

The pages are opened in headless Chromium (Debian's ``chromium`` package),
driven by Playwright (``executable_path``: Playwright's own browsers are never
downloaded or used). Each page load records every request the page makes
(Playwright's ``request`` and ``websocket`` events, plus the ``data:`` URIs,
which Playwright leaves out of its events and the page's DevTools session
reports); a self-contained page makes exactly one request, for itself, plus
the ``data:`` URIs it embeds. Negative controls (pages that load an image, a
stylesheet, a script, a CSS background from a local HTTP server or open a
websocket to it, or load a sibling file) prove that the same check fails when
a page does reach out, and the local server's log shows those requests arrived.
"""

from __future__ import annotations

import hashlib
import html.parser
import http.server
import io
import json
import os
import re
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from playwright.sync_api import Browser, sync_playwright

import ringlet
from conftest import SMALL_TOML, run_cli
from ringlet.report import ReportError, build, plan_plots
from test_reproduce import STUDY_TOML, write_study

HOSTILE = "<script>alert('x')</script> & \"quoted\""

# -- headless Chromium through Playwright -----------------------------------------------------

#: Every wait's deadline, ms (Playwright's timeouts; closing the browser kills it after 30 s).
TIMEOUT_MS = 20_000


class Chromium:
    """Debian's headless Chromium, launched by Playwright; one fresh context per page load."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser

    def open(self, url: str) -> "Visit":
        """Loads ``url``, records its requests, and measures what it shows."""
        context = self.browser.new_context(viewport={"width": 1280, "height": 1600})
        try:
            context.set_default_timeout(TIMEOUT_MS)
            context.set_default_navigation_timeout(TIMEOUT_MS)
            page = context.new_page()
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.on("websocket", lambda ws: requests.append(ws.url))
            # Playwright drops data: URIs from its request events; the page's own
            # DevTools session still reports them, so the embedded plots are seen loading.
            data_uris: list[str] = []

            def note_data_uri(event: dict[str, Any]) -> None:
                if event["request"]["url"].startswith("data:"):
                    data_uris.append(event["request"]["url"])

            devtools = context.new_cdp_session(page)
            devtools.on("Network.requestWillBeSent", note_data_uri)
            devtools.send("Network.enable")
            page.goto(url, wait_until="load")
            # networkidle: no request in flight for 500 ms, so late requests are recorded too.
            page.wait_for_load_state("networkidle")
            # (wait_for_function, not evaluate: it has a deadline)
            dom = json.loads(page.wait_for_function(DOM_PROBE).json_value())
            screenshot = page.screenshot()  # the viewport, before anything scrolls it
            images = page.locator("img")
            shots = [images.nth(i).screenshot()  # what each plot paints, clipped to the image
                     for i, image in enumerate(dom["images"][:6]) if image["width"] > 0 and image["height"] > 0]
        finally:
            context.close()
        return Visit(url=url, requests=requests, data_uris=data_uris, dom=dom, screenshot=screenshot,
                     image_shots=shots)


#: Run in the page: what it shows, measured as laid out.
DOM_PROBE = """JSON.stringify({
  title: document.title,
  headings: [...document.querySelectorAll('h1,h2,h3')].map(h => h.textContent.trim()),
  tables: [...document.querySelectorAll('table')].map(t => t.tBodies[0] ? t.tBodies[0].rows.length : 0),
  details: document.querySelectorAll('details').length,
  scripts: document.scripts.length,
  text: document.body.innerText.length,
  images: [...document.images].map(i => { const r = i.getBoundingClientRect();
    return {alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
            x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height,
            scheme: i.currentSrc.split(':')[0]}; }),
})"""


class Visit:
    """What one page load did and showed."""

    def __init__(self, url: str, requests: list[str], data_uris: list[str], dom: dict, screenshot: bytes,
                 image_shots: list[bytes]):
        self.url, self.requests, self.data_uris = url, requests, data_uris
        self.dom, self.screenshot, self.image_shots = dom, screenshot, image_shots

    @property
    def outside(self) -> list[str]:
        """Requests for anything but the page itself and the data: URIs it embeds."""
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]


def painted(png: bytes) -> float:
    """The fraction of pixels of a screenshot that are not (near) the page's white."""
    from matplotlib.image import imread

    pixels = imread(io.BytesIO(png))[..., :3]
    return float((pixels.min(axis=-1) < 0.9).mean())


@pytest.fixture(scope="module")
def browser():
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("chromium is not installed: apt-get install -y chromium (see README, Set up)")
    with sync_playwright() as p:
        # Playwright adds headless, --no-sandbox and its quiet-startup switches itself.
        chrome = p.chromium.launch(executable_path=exe, args=["--disable-gpu"], timeout=TIMEOUT_MS)
        try:
            yield Chromium(chrome)
        finally:
            chrome.close()


class _Recorder(http.server.BaseHTTPRequestHandler):
    paths: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        type(self).paths.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    """A local HTTP server that records the paths it is asked for (the negative controls' target)."""
    handler = type("Recorder", (_Recorder,), {"paths": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1], handler.paths
    httpd.shutdown()
    httpd.server_close()


# -- the results the reports are made from ---------------------------------------------

GRID = {"traffic.load_mbps_per_node": [10, 60, 120], "traffic.priorities": [1, 2]}

#: The plots of a sweep's page: throughput, mean and p99 latency; the fairness index, the smallest carried
#: share and each priority's worst node tail; output and input inversions (the 2-priority points count some).
SWEEP_PLOTS = 3 + 3 + 2


def make_store(path: Path, frame: pd.DataFrame, base: ringlet.Scenario, keys: list[str],
               extra: str = "") -> None:
    """A results store as the sweep writes it (schema ringlet-results/1), made here with sqlite3."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    con.execute("INSERT INTO meta VALUES ('format', 'ringlet-results/1')")
    con.execute("CREATE TABLE results(id INTEGER PRIMARY KEY, scenario_hash TEXT, seed INTEGER, "
                "ringlet_version TEXT, replication INTEGER, values_json TEXT, scenario TEXT, result TEXT, "
                "finished_at TEXT)")
    for _, row in frame.drop_duplicates("point").iterrows():
        values = {k: row[k].item() if hasattr(row[k], "item") else row[k] for k in keys}
        scenario = base
        for k, v in values.items():
            scenario = scenario.set(k, v)
        assert scenario.hash == row["scenario_hash"]  # the store's TOML is the point's scenario
        # The result is cut down to the provenance the store's check reads.
        key = (row["scenario_hash"], int(row["seed"]), row["ringlet_version"])
        result = json.dumps({"provenance": dict(zip(("scenario_hash", "seed", "ringlet_version"), key),
                                                scenario=scenario.toml + extra)})
        con.execute("INSERT INTO results(scenario_hash, seed, ringlet_version, replication, values_json, "
                    "scenario, result, finished_at) VALUES (?, ?, ?, 0, ?, ?, ?, ?)",
                    (*key, json.dumps(values), scenario.toml + extra, result,
                     f"2026-01-01T00:00:{int(row['point']):02d}Z"))
    con.commit()
    con.close()


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    """A small real sweep (6 points, 9 rows) with its results store; one stored TOML carries hostile text."""
    folder = tmp_path_factory.mktemp("sweep")
    base = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 1500)
    frame = ringlet.sweep(base, GRID, processes=1)
    frame.to_csv(folder / "sweep.csv", index=False)
    frame.to_parquet(folder / "sweep.parquet", index=False)
    make_store(folder / "results.sqlite", frame, base, list(GRID), extra=f"# {HOSTILE}\n")
    return folder


@pytest.fixture(scope="module")
def repro_dir(tmp_path_factory) -> Path:
    """The tiny test study, reproduced; its titles carry hostile text."""
    root = tmp_path_factory.mktemp("repro")
    hostile = HOSTILE.replace('"', "'")
    study = write_study(root / "tiny", STUDY_TOML.replace('title = "A: throughput"', f'title = "A: {hostile}"')
                        .replace('title = "Tiny test study"', f'title = "Tiny {hostile}"'))
    out = root / "out"
    ringlet.reproduce(study, out, jobs=1, quick=True, progress=False)
    return out


@pytest.fixture(scope="module")
def sweep_html(sweep_dir, tmp_path_factory) -> Path:
    return ringlet.report(sweep_dir, tmp_path_factory.mktemp("html") / "sweep.html")


@pytest.fixture(scope="module")
def repro_html(repro_dir, tmp_path_factory) -> Path:
    return ringlet.report(repro_dir, tmp_path_factory.mktemp("html") / "repro.html")


class _Refs(html.parser.HTMLParser):
    """Every URL-valued attribute and every CSS url() of a page."""

    ATTRIBUTES = {"src", "href", "srcset", "poster", "data", "action", "formaction", "background",
                  "xlink:href", "manifest", "ping", "cite", "longdesc", "icon"}

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for name, value in attrs:
            if name in self.ATTRIBUTES and value is not None:
                self.refs.append(value)
            if name == "style" and value:
                self.refs += re.findall(r"url\(\s*['\"]?([^'\")]*)", value)
        self.in_style = tag == "style"

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.refs += re.findall(r"url\(\s*['\"]?([^'\")]*)", data)
            self.refs += re.findall(r"@import\s+['\"]([^'\"]*)", data)


def outside_refs(text: str) -> list[str]:
    """URLs in a page's markup that point outside it (not a #fragment and not data:)."""
    parser = _Refs()
    parser.feed(text)
    return [r for r in parser.refs if not (r.startswith("#") or r.startswith("data:"))]


# -- in the browser ---------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["sweep", "reproduce"])
def test_report_renders_its_plots_offline(browser, which, sweep_html, repro_html, sweep_dir):
    page = sweep_html if which == "sweep" else repro_html
    visit = browser.open(page.as_uri())
    dom = visit.dom
    # (c) nothing but the page itself and its embedded data: URIs is requested...
    assert visit.outside == []
    # ... and the recorder did see the page's own request and the plots' data: URIs.
    assert visit.requests.count(visit.url) == 1
    assert sum(u.startswith("data:image/svg+xml") for u in visit.data_uris) >= 1
    # (a) it renders: headings, tables, text; a screenshot that is not blank.
    if which == "sweep":
        assert dom["title"].startswith("ringlet sweep")
        assert {"Sweep", "Plots", "Results", "Fairness", "Points and provenance",
                "Source files"} <= set(dom["headings"])
        frame = pd.read_csv(sweep_dir / "sweep.csv")
        assert len(frame) in dom["tables"]  # the results table, every row
        assert dom["details"] == frame["point"].nunique()  # one stored TOML per point
        assert len(dom["images"]) == SWEEP_PLOTS
    else:
        assert dom["title"].startswith("ringlet reproduction")
        assert {"Reproduction", "Validation: ringlet beside the seed", "Figures", "Quoted numbers",
                "Findings"} <= set(dom["headings"])
        assert len(dom["images"]) == 3  # figA, figB, figC
        assert any(h.startswith("figA: A: <script>") for h in dom["headings"])  # escaped text, shown as text
    assert dom["scripts"] == 0
    assert dom["text"] > 500
    assert painted(visit.screenshot) > 0.01
    # (b) every plot is decoded, laid out with a real size, and paints something.
    for image in dom["images"]:
        assert image["scheme"] == "data"
        assert image["complete"] and image["naturalWidth"] > 100 and image["naturalHeight"] > 100, image
        assert image["width"] > 100 and image["height"] > 100, image
    assert len(visit.image_shots) == min(6, len(dom["images"]))  # (the first six are shot)
    for shot in visit.image_shots:
        assert painted(shot) > 0.02


def test_report_requests_nothing_even_without_its_csp(browser, sweep_html, tmp_path):
    """The page's Content-Security-Policy is a safeguard, not what keeps it offline."""
    text = sweep_html.read_text()
    assert 'http-equiv="Content-Security-Policy"' in text
    bare = tmp_path / "bare.html"
    bare.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text))
    assert "Content-Security-Policy" not in bare.read_text()
    visit = browser.open(bare.as_uri())
    assert visit.outside == []
    assert len(visit.dom["images"]) == SWEEP_PLOTS and all(i["naturalWidth"] > 0 for i in visit.dom["images"])


NEGATIVE_CONTROLS = {
    "img": '<img src="http://127.0.0.1:{port}/img.png" width="10" height="10">',
    "stylesheet": '<link rel="stylesheet" href="http://127.0.0.1:{port}/style.css">',
    "script": '<script src="http://127.0.0.1:{port}/script.js"></script>',
    "css-background": '<div style="background: url(http://127.0.0.1:{port}/bg.png); width: 10px; height: 10px"></div>',
    "sibling-file": '<img src="plot.svg" width="10" height="10">',
    "websocket": '<script>new WebSocket("ws://127.0.0.1:{port}/socket")</script>',
}


@pytest.mark.parametrize("kind", NEGATIVE_CONTROLS)
def test_the_network_check_catches_a_page_that_is_not_self_contained(browser, server, tmp_path, kind):
    port, served = server
    (tmp_path / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    page = tmp_path / "control.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>control</title></head><body><h1>control</h1>"
                    f"{NEGATIVE_CONTROLS[kind].format(port=port)}</body></html>")
    before = len(served)
    visit = browser.open(page.as_uri())
    assert len(visit.outside) == 1, visit.requests
    # The static checks see it too (a script's socket only as the script, which pages may not have).
    text = page.read_text()
    assert outside_refs(text) or (kind == "websocket" and "<script" in text)
    if kind == "sibling-file":
        assert visit.outside == [(tmp_path / "plot.svg").as_uri()]
    else:
        assert re.match(rf"(http|ws)://127\.0\.0\.1:{port}/", visit.outside[0]), visit.outside
        deadline = time.monotonic() + 5
        while len(served) == before and time.monotonic() < deadline:
            time.sleep(0.02)
        assert served[before:] == [visit.outside[0].split(str(port), 1)[1]]  # it reached the server


# -- the page's content (no browser) ---------------------------------------------------------------


def test_markup_points_nowhere_outside(sweep_html, repro_html):
    for page in (sweep_html, repro_html):
        text = page.read_text()
        assert outside_refs(text) == []
        assert "<script" not in text and "<link" not in text and "@import" not in text


def test_sweep_report_shows_table_plots_and_stored_scenarios(sweep_dir, sweep_html):
    text = sweep_html.read_text()
    frame = pd.read_csv(sweep_dir / "sweep.csv")
    assert text.count('<img src="data:image/svg+xml;base64,') == SWEEP_PLOTS
    for h in frame["scenario_hash"].unique():
        assert f"<code>{h}</code>" in text
    assert text.count("<summary>scenario TOML</summary>") == frame["point"].nunique()
    assert "load_mbps_per_node = 120" in text  # a stored TOML, in full
    assert "finished 2026-01-01T00:00:05Z" in text
    # The hostile comment in a stored TOML is text, not markup.
    assert "<script>" not in text
    assert "# &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot;" in text
    # Plots: x is the first swept key, a line per priorities value and priority.
    pp = plan_plots(frame, list(GRID))
    assert pp.x == "traffic.load_mbps_per_node" and pp.group_by == ["traffic.priorities", "priority"]
    assert len(pp.lines) == 3 and not pp.totals


def test_store_is_only_read(sweep_dir, tmp_path):
    store = sweep_dir / "results.sqlite"
    before = (hashlib.sha256(store.read_bytes()).hexdigest(), store.stat().st_mtime_ns)
    ringlet.report(sweep_dir, tmp_path / "r.html")
    assert (hashlib.sha256(store.read_bytes()).hexdigest(), store.stat().st_mtime_ns) == before
    assert sorted(p.name for p in sweep_dir.iterdir()) == ["results.sqlite", "sweep.csv", "sweep.parquet"]


def test_sweep_without_store_uses_the_csv_provenance(sweep_dir, tmp_path):
    folder = tmp_path / "sweep"
    folder.mkdir()
    shutil.copy(sweep_dir / "sweep.csv", folder)
    text = ringlet.report(folder, tmp_path / "r.html").read_text()
    assert "No results store" in text and "<details>" not in text
    for h in pd.read_csv(folder / "sweep.csv")["scenario_hash"].unique():
        assert f"<code>{h}</code>" in text


def test_parquet_only_sweep(sweep_dir, tmp_path):
    folder = tmp_path / "sweep"
    folder.mkdir()
    shutil.copy(sweep_dir / "sweep.parquet", folder)
    text, kinds = build(folder)
    assert kinds == "sweep" and text.count("<img ") == SWEEP_PLOTS
    fairness = text[text.index('<section id="sweep-fairness">'):]
    fairness = fairness[:fairness.index("</section>")]
    for alt in ("Output inversions per 1000 packets", "Input inversions per 1000 packets"):
        assert f'alt="{alt} vs traffic.load_mbps_per_node"' in fairness


def test_reproduce_report_shows_figures_validation_and_provenance(repro_dir, repro_html):
    text = repro_html.read_text()
    validation = pd.read_csv(repro_dir / "validation.csv")
    assert text.count('<img src="data:image/svg+xml;base64,') == 3
    for fig in ("figA", "figB", "figC"):
        assert f'id="fig-{fig}"' in text
    # Captions come from the SVGs' own titles; hostile text is escaped.
    assert "C: latency from A&#x27;s points" in text
    assert "A: &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &#x27;quoted&#x27;" in text
    assert "Tiny &lt;script&gt;" in text and "<script>" not in text
    # Every quote and finding, with a verdict; quick runs are flagged.
    assert text.count('class="verdict') == len(validation)
    assert "Quick run" in text
    # Provenance: every point of every figure CSV.
    for fig in ("figA", "figB"):
        for h in pd.read_csv(repro_dir / f"{fig}.csv")["scenario_hash"].unique():
            assert f"<code>{h}</code>" in text


def test_verdicts_follow_the_tolerance(repro_dir, tmp_path):
    validation = pd.read_csv(repro_dir / "validation.csv")
    quotes = validation[validation["kind"] == "quote"]
    findings = validation[validation["kind"] == "finding"]
    holds = int(findings["holds"].astype(str).str.lower().eq("true").sum())
    for tolerance in (0.0, 1e9):
        text, _ = build(repro_dir, tolerance)
        agree = len(quotes) if tolerance else 0
        assert text.count('class="verdict agree"') == agree + holds
        assert text.count('class="verdict miss"') == len(validation) - agree - holds


def test_same_folder_same_page(sweep_dir, repro_dir):
    assert build(sweep_dir)[0] == build(sweep_dir)[0]
    assert build(repro_dir)[0] == build(repro_dir)[0]


def test_plot_defaults():
    frame = pd.DataFrame({
        "point": [0, 1, 2, 3], "traffic.destinations": ["uniform", "uniform", "hotspot", "hotspot"],
        "traffic.load_mbps_per_node": [10, 20, 10, 20], "priority": [0, 0, 0, 0],
    })
    pp = plan_plots(frame, ["traffic.destinations", "traffic.load_mbps_per_node"])
    assert pp.x == "traffic.load_mbps_per_node" and pp.group_by == ["traffic.destinations"]  # first numeric key
    many = pd.DataFrame({"point": [p for p in range(4) for _ in range(16)], "x": [p for p in range(4) for _ in range(16)],
                         "priority": list(range(16)) * 4})
    pp = plan_plots(many, ["x"])
    assert pp.totals and pp.group_by == [] and "Totals" in pp.note  # 16 priorities: drawn as totals
    assert plan_plots(frame.head(1), ["traffic.destinations", "traffic.load_mbps_per_node"]) is None


# -- the command and its errors ---------------------------------------------------------------------


def test_cli_writes_the_page(sweep_dir, tmp_path):
    out = tmp_path / "report.html"
    out.write_text("old")
    proc = run_cli(["report", sweep_dir, "--out", out])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"wrote {out} (")
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary file left
    assert out.stat().st_mode & 0o777 == 0o666 & ~_umask()


def report_cli(args: list, capsys) -> tuple[int, str]:
    """``ringlet report ARGS`` in this process (the error paths; one test runs the real command)."""
    from ringlet.cli import main

    code = main(["report", *map(str, args)])
    return code, capsys.readouterr().err


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _damage(folder: Path, kind: str, sweep_dir: Path) -> None:
    csv = folder / "sweep.csv"
    text = csv.read_text()
    if kind == "truncated":
        csv.write_text(text[: len(text) * 2 // 3])
    elif kind == "binary":
        csv.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe garbage")
    elif kind == "not-a-number":
        lines = text.splitlines()
        lines[3] = lines[3].replace(lines[3].split(",")[4], "fast", 1)
        csv.write_text("\n".join(lines) + "\n")
    elif kind == "empty":
        csv.write_text("")
    elif kind == "other-table":
        csv.write_text("a,b\n1,2\n")
    elif kind == "bad-store":
        (folder / "results.sqlite").write_bytes(b"this is not a database" * 100)
    elif kind == "damaged-row":  # the real store, one stored result cut short
        shutil.copy(sweep_dir / "results.sqlite", folder)
        con = sqlite3.connect(folder / "results.sqlite")
        (rid, text), = con.execute("SELECT id, result FROM results ORDER BY id LIMIT 1 OFFSET 2")
        con.execute("UPDATE results SET result = ? WHERE id = ?", (text[: len(text) // 2], rid))
        con.commit()
        con.close()
    elif kind == "foreign-store":
        con = sqlite3.connect(folder / "results.sqlite")
        con.execute("CREATE TABLE meta(key TEXT, value TEXT)")
        con.execute("INSERT INTO meta VALUES ('format', 'something-else/9')")
        con.commit()
        con.close()


@pytest.mark.parametrize("kind, message", [
    ("truncated", r"sweep\.csv: damaged: line \d+ has no \w+ \(cut short\?\)"),
    ("binary", r"sweep\.csv: damaged: "),
    ("not-a-number", r"sweep\.csv: damaged: line 4: throughput_mbps is not a number: 'fast'"),
    ("empty", r"sweep\.csv: damaged: the file is empty"),
    ("other-table", r"sweep\.csv: damaged or not a ringlet sweep table: no column 'point'"),
    ("bad-store", r"results\.sqlite: not a ringlet results store: "),
    ("damaged-row", r"results\.sqlite: damaged results store: row \d+: stored result does not parse$"),
    ("foreign-store", r"results\.sqlite: not a ringlet results store: format 'something-else/9', "
                      r"expected 'ringlet-results/1'"),
])
def test_damaged_results_are_one_line_errors(sweep_dir, tmp_path, capsys, kind, message):
    folder = tmp_path / "sweep"
    folder.mkdir()
    shutil.copy(sweep_dir / "sweep.csv", folder)
    _damage(folder, kind, sweep_dir)
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    out.write_text("old")
    code, err = report_cli([folder, "--out", out], capsys)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("ringlet: error: "), err
    assert re.search(message, err), err
    assert out.read_text() == "old" and [p.name for p in out.parent.iterdir()] == ["report.html"]


def test_folders_without_results(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.csv").write_text("a,b\n1,2\n")
    (tmp_path / "file").write_text("x")
    cases = [
        (tmp_path / "missing", "missing: no such directory"),
        (tmp_path / "file", "file: not a directory"),
        (tmp_path / "empty", "empty: holds no sweep results (sweep.csv, sweep.parquet), reproduce results (validation.csv, <figure>.csv with <figure>.svg) or capacity search (capacity.json)"),
        (tmp_path / "other", "other: holds no sweep results"),
    ]
    for folder, message in cases:
        code, err = report_cli([folder, "--out", tmp_path / "r.html"], capsys)
        assert code == 2 and message in err, err
        assert len(err.splitlines()) == 1
        assert not (tmp_path / "r.html").exists()


def test_unwritable_out(sweep_dir, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-dir").mkdir()
    cases = [
        (tmp_path / "a-dir", "is a directory"),
        (tmp_path / "no" / "such" / "r.html", "does not exist"),
        (tmp_path / "a-file" / "r.html", "is not a directory"),
    ]
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((locked / "r.html", "is not writable"))
    for out, message in cases:
        code, err = report_cli([sweep_dir, "--out", out], capsys)
        assert code == 2, err
        assert err.startswith(f"ringlet: error: --out {out}: ") and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-dir", "a-file"]
    assert list((tmp_path / "a-dir").iterdir()) == []


def test_python_api(sweep_dir, tmp_path):
    assert ringlet.report is not None and "report" in ringlet.__all__
    out = ringlet.report(str(sweep_dir), str(tmp_path / "r.html"))
    assert out == tmp_path / "r.html" and out.is_file()
    with pytest.raises(ReportError, match="no such directory"):
        ringlet.report(tmp_path / "missing", tmp_path / "x.html")
    assert issubclass(ReportError, ValueError)
    with pytest.raises(ReportError, match="tolerance"):
        ringlet.report(sweep_dir, tmp_path / "x.html", tolerance_pct=-1)
    assert not (tmp_path / "x.html").exists()
