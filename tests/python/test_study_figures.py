"""A study's figures show the seed's numbers without hiding ringlet's, name them in
the legend as they are drawn, and print differences without float noise; a
reproduction's page is titled after its study."""

from __future__ import annotations

import re

import matplotlib.figure
import pytest

import ringlet
from ringlet.report import build
from ringlet.study.validation import signed_difference, signed_pct


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """GigaRing's fig4 (a star), fig6-wire (differences) and sens-framing-half (a dashed
    line), quick, with the matplotlib figures each drew."""
    out = tmp_path_factory.mktemp("gigaring")
    figures = []
    original = matplotlib.figure.Figure.savefig

    def keep(self, *args, **kwargs):
        if self not in figures:
            figures.append(self)
        return original(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(matplotlib.figure.Figure, "savefig", keep)
        ringlet.reproduce("gigaring", out, quick=True, only="fig4,fig6-wire,sens-framing-half", jobs=1,
                          progress=False)
    by_title = {f._suptitle.get_text().split(":")[0]: f for f in figures}
    return out, by_title


def _stars(ax):
    return [line for line in ax.get_lines() if line.get_marker() == "*"]


def _ringlet(ax):
    return next(line for line in ax.get_lines() if line.get_label() == "ringlet")


def _legend(fig):
    legend = fig.legends[0]
    return {t.get_text(): h for t, h in zip(legend.get_texts(), legend.legend_handles)}


def test_the_seeds_star_is_drawn_under_ringlets_line(drawn):
    _, figs = drawn
    ax = figs["Fig. 4"].axes[0]
    (star,) = _stars(ax)
    line = _ringlet(ax)
    assert star.get_zorder() < line.get_zorder()
    # Its label too: ringlet's last points show through it.
    labels = [t for t in ax.texts if t.get_text().startswith("seed 916")]
    assert labels and all(t.get_zorder() < line.get_zorder() for t in labels)


def test_the_wire_figure_shows_the_10_and_50_m_quotes(drawn):
    out, figs = drawn
    ax = figs["Fig. 6 text"].axes[0]
    stars = {tuple(s.get_xdata()): s.get_ydata()[0] for s in _stars(ax)}
    line = _ringlet(ax)
    at0 = line.get_ydata()[list(line.get_xdata()).index(0)]
    assert set(stars) == {(0.0,), (10.0,), (50.0,)}
    assert stars[(10.0,)] == pytest.approx(at0 + 100) and stars[(50.0,)] == pytest.approx(at0 + 500)
    texts = [t.get_text() for t in ax.texts]
    assert "seed +100 ns over x = 0" in texts and "seed +500 ns over x = 0" in texts
    svg = (out / "fig6-wire.svg").read_text()
    assert "seed +100 ns over x = 0" in svg


def test_the_legend_shows_the_seed_as_it_is_drawn(drawn):
    _, figs = drawn
    dashed = _legend(figs["Sensitivity"])["seed's quoted value"]
    assert dashed.get_linestyle() == "--" and dashed.get_marker() in ("None", "", None)
    star = _legend(figs["Fig. 4"])["seed's quoted value"]
    assert star.get_marker() == "*" and star.get_linestyle() in ("None", "")


def test_differences_print_without_float_noise(drawn):
    out, _ = drawn
    md = (out / "validation.md").read_text()
    assert not re.search(r"\de-\d", md) and "| +0 (+0.0%) |" in md
    assert signed_difference(5.684e-14, 462) == "+0"
    assert signed_difference(-5.684e-14, 462) == "+0"
    assert signed_difference(-0.6666667, 462) == "-0.7"
    assert signed_difference(12.345678, 916) == "+12.3"  # (916 is shown to 0.1)
    assert signed_difference(float("nan"), 1) == "–"
    assert signed_pct(-0.01) == "+0.0%" and signed_pct(-3.25) == "-3.2%" and signed_pct(8e-12) == "+0.0%"


def test_a_reproduction_page_is_titled_after_its_study(drawn):
    out, _ = drawn
    html, kinds = build(out)
    assert kinds == "reproduction"
    title = ringlet.study.load_study("gigaring").title
    assert f"<title>ringlet reproduction: {title}" in html.replace("&#x27;", "'")
    assert f"<title>ringlet reproduction: {out.name}</title>" not in html


def test_the_analytic_model_is_drawn_beside_ringlets_line(drawn):
    """docs/analytic.md: a throughput figure carries the model's line in the series'
    colour, named in the legend; at fig. 4's saturating load the simulation carries
    no more than the model's bound, and the validation table gives the model's value
    of the quote beside ringlet's."""
    out, figs = drawn
    fig = figs["Fig. 4"]
    ax = fig.axes[0]
    line = _ringlet(ax)
    (model,) = [m for m in ax.get_lines() if m.get_gid() == "analytic-model"]
    assert model.get_color() == line.get_color() and model.get_zorder() < line.get_zorder()
    assert list(model.get_xdata()) == list(line.get_xdata())
    assert all(y <= 1.01 * m for y, m in zip(line.get_ydata(), model.get_ydata()))
    assert "analytic model" in _legend(fig)
    import pandas as pd

    table = pd.read_csv(out / "validation.csv")
    row = table[table["quote_id"] == "half-duplex-peak"].iloc[0]
    frame = pd.read_csv(out / "fig4.csv")
    at = frame[(frame["traffic.masters"] == 1) & (frame["traffic.block_words"] == 1024)]
    assert row["model_value"] == pytest.approx(at["model_throughput_mbps"].iloc[0])
    assert row["ringlet_value"] <= 1.01 * row["model_value"]
    assert "| ringlet | difference | model |" in (out / "validation.md").read_text()
