"""``ringlet reproduce STUDY --check [PAGE]``: a reproduction's verdicts
against the committed validation page's; exit 1, each difference on one
line, when one differs. (CI runs the whole gigaring study with it; these
tests run two of its cheapest figures.)"""

from __future__ import annotations

import pytest

from conftest import ROOT, one_error_line, run_cli
from ringlet.study import StudyError, available_studies, load_study
from ringlet.study.check import differences, verdicts_of_page

PAGE = ROOT / "docs" / "validation" / "gigaring.md"
#: Two cheap figures of the gigaring study: two quotes and a finding; two findings.
ONLY = "fig6-wire,sharing-12"


@pytest.mark.parametrize("name", available_studies())
def test_every_committed_page_gives_a_verdict_for_every_quote_and_finding(name):
    study = load_study(name)
    page = verdicts_of_page(ROOT / "docs" / "validation" / f"{name}.md", name)
    rows = {(kind, fig.id, item.id) for fig in study.figures
            for kind, items in (("quote", fig.quotes), ("finding", fig.findings)) for item in items}
    assert set(page) == rows
    assert set(page.values()) <= {"yes", "no", "within noise", "no value"} | {
        v for v in page.values() if v.startswith(("within 10% (", "beyond 10% ("))}


def test_a_run_agrees_with_the_committed_page_and_not_with_one_whose_verdicts_changed(tmp_path):
    p = run_cli(["reproduce", "gigaring", "--only", ONLY, "--out", tmp_path / "a", "--check", PAGE])
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip().endswith(f"check: every verdict as {PAGE} gives it (5 verdicts)"), p.stdout
    text = PAGE.read_text(encoding="utf-8")
    finding = ("| sharing-12 | equal-shares-12 | Twelve senders on one ring: every sender within 10% of the "
               "senders' mean | yes |")
    quote = "| 100 ns | 100 ns | 100 ns | +0 (+0.0%) |"
    assert text.count(finding) == 1 and text.count(quote) == 1
    changed = tmp_path / "changed.md"
    changed.write_text(text.replace(finding, finding[:-len(" yes |")] + " **no** |")
                       .replace(quote, "| 100 ns | 100 ns | 100 ns | +12 (+12.0%) |"), encoding="utf-8")
    p = run_cli(["reproduce", "gigaring", "--only", ONLY, "--out", tmp_path / "a", "--check", changed])
    assert p.returncode == 1, p.stderr
    lines = p.stderr.splitlines()
    assert lines[next(i for i, x in enumerate(lines) if x.startswith("check:")):] == [
        f"check: 2 of 5 verdicts differ from {changed}:",
        "  fig6-wire quote wire-10m: the page says beyond 10% (+12.0%); this run: within 10% (+0.0%)",
        "  sharing-12 finding equal-shares-12: the page says no; this run: yes",
    ], p.stderr


def test_a_quote_moving_within_its_side_of_the_tolerance_is_no_difference():
    page = {("quote", "f", "q"): "within 10% (+3.0%)", ("finding", "f", "a"): "yes"}
    assert differences(page, {("quote", "f", "q"): "within 10% (-9.9%)", ("finding", "f", "a"): "yes"}) == []
    assert differences(page, {("quote", "f", "q"): "within 10% (+3.0%)", ("finding", "f", "a"): "within noise"}) == [
        "f finding a: the page says yes; this run: within noise"]
    # A row the page lacks, or one the study lost, is a difference too.
    assert differences(page, {("quote", "f", "q"): "within 10% (+3.0%)"}) == [
        "f finding a: on the page (yes); not in the study any more"]


def test_check_refuses_a_page_without_the_block_and_a_quick_run(tmp_path):
    bare = tmp_path / "bare.md"
    bare.write_text("# no block\n")
    message = one_error_line(run_cli(["reproduce", "gigaring", "--out", tmp_path / "o", "--check", bare]))
    assert message.startswith(f"--check {bare}: needs the lines"), message
    message = one_error_line(run_cli(["reproduce", "gigaring", "--quick", "--out", tmp_path / "o", "--check", PAGE]))
    assert message == "reproduce: --check compares a full run's verdicts with the page: not with --quick"
    assert not (tmp_path / "o").exists()
    message = one_error_line(run_cli(["reproduce", "gigaring", "--out", tmp_path / "o", "--check", tmp_path / "none.md"]))
    assert message.startswith(f"--check {tmp_path / 'none.md'}: cannot read it"), message
    with pytest.raises(StudyError, match="needs the lines"):
        verdicts_of_page(bare, "gigaring")
