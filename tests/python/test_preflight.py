"""Pre-flight checks: a run that cannot mean what its scenario seems to ask
says so before it starts (one ``warning:`` line on stderr from the command,
a ``PreflightWarning`` from the Python API); what cannot run is refused,
naming the key. A long run says so up front with its estimate."""

from __future__ import annotations

import warnings

import pytest

import ringlet
from ringlet.api import preflight
from ringlet.api.estimate import CALIBRATE_S, LONG_RUN_S, RunEstimate
from ringlet.api.preflight import PreflightWarning

from conftest import one_error_line

#: A GigaRing that fails a node long after its time cap.
LATE_FAULT = """
[network]
kind = "gigaring"
nodes = 4
[traffic]
load_mbps_per_node = 10
[faults]
fail_node = 2
at_ns = 1e12
[run]
measure_transactions = 200
max_sim_time_ns = 50000
"""

#: An 8-node ring offered 1 GB/s per node (about 133 MB/s per node is what it carries), cut short.
OVERLOADED = """
[network]
nodes = 8
[traffic]
load_mbps_per_node = 1000
[run]
measure_transactions = 500
max_sim_time_ns = 20000
"""


def _warnings(lines: str) -> list[str]:
    return [line for line in lines.splitlines() if line.startswith("warning: ")]


def test_an_empty_file_runs_every_default_and_says_so(tmp_path):
    empty = tmp_path / "empty.toml"
    empty.write_text("# nothing yet\n[network]\n")
    [message] = preflight.checks(ringlet.Scenario.load(empty))
    assert message.startswith(f"{empty}: the file sets no key: the run uses every default (8-node sci-ring")
    # A key on top (from the file or an override) is a scenario of its own: no warning.
    assert preflight.checks(ringlet.Scenario.load(empty).set("run.seed", 2)) == []
    assert preflight.checks(ringlet.Scenario.from_toml("")) == []  # text, not a file


def test_the_cli_warns_of_an_empty_file_on_one_stderr_line(tmp_path, cli):
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    p = cli(["run", empty, "--json"])
    assert p.returncode == 0, p.stderr
    assert _warnings(p.stderr) == [f"warning: {empty}: the file sets no key: the run uses every default "
                                   "(8-node sci-ring, 50 MB/s per node; see ringlet params)"]


def test_a_fault_after_the_time_cap_warns_in_the_api():
    s = ringlet.Scenario.from_toml(LATE_FAULT)
    with pytest.warns(PreflightWarning, match=r"^faults.at_ns: the failure at 1,000,000,000,000 ns comes after "
                                              r"the run's time cap \(run.max_sim_time_ns = 50,000 ns\)"):
        s.run()


def test_a_fault_after_the_expected_end_warns():
    # 200 transactions of 8 KiB from 4 masters at 50 MB/s each: about 8.2 ms after the warm-up.
    s = ringlet.Scenario.from_toml(LATE_FAULT).with_overrides(["run.max_sim_time_ns=1e9", "faults.at_ns=5e8"])
    [message] = preflight.checks(s)
    assert message.startswith("faults.at_ns: the failure at 500,000,000 ns comes after the run is expected to end")
    assert preflight.checks(s.set("faults.at_ns", 1e6)) == []  # within the run: no warning


def test_the_cli_warns_of_a_late_fault(tmp_path, cli):
    f = tmp_path / "late.toml"
    f.write_text(LATE_FAULT)
    p = cli(["run", f])
    assert p.returncode == 0, p.stderr
    [line] = _warnings(p.stderr)
    assert line.startswith("warning: faults.at_ns: the failure at 1,000,000,000,000 ns comes after")


def test_a_load_above_capacity_warns_in_the_api_and_the_cli(tmp_path, cli):
    s = ringlet.Scenario.from_toml(OVERLOADED)
    with pytest.warns(PreflightWarning, match=r"^traffic.load_mbps_per_node: 1,000 MB/s per node is 7.5x what the "
                                              r"network can carry \(about 133 MB/s per node, the analytic model's "
                                              r"saturation\): the run measures the peak it carries, and may stop at "
                                              r"the time or backlog cap$"):
        s.run()
    # The model's saturation is the line: 130 MB/s per node runs without a word, and so does a priority each of 65.
    for quiet in (s.set("traffic.load_mbps_per_node", 130),
                  s.with_(traffic={"load_mbps_per_node": 65, "priorities": 2})):
        assert preflight.checks(quiet) == []
    # Past it, the run measures the peak; only far past it (4x) may it stop at a cap.
    [just_past] = preflight.checks(s.set("traffic.load_mbps_per_node", 140))
    assert just_past.endswith("is 1.05x what the network can carry (about 133 MB/s per node, the analytic model's "
                              "saturation): the run measures the peak it carries"), just_past
    assert "2 priorities of 300" in preflight.checks(s.with_(traffic={"load_mbps_per_node": 300, "priorities": 2}))[0]
    f = tmp_path / "over.toml"
    f.write_text(OVERLOADED)
    p = cli(["run", f])
    assert p.returncode == 0, p.stderr
    [line] = _warnings(p.stderr)
    assert line.startswith("warning: traffic.load_mbps_per_node: 1,000 MB/s per node is 7.5x")


def test_a_load_that_cannot_be_meant_is_refused_naming_the_key_and_the_capacity(tmp_path, cli, small_file):
    """Over 1,000 times what the network carries (a slip of the exponent) is
    refused before anything runs, by the API, the command (exit 2, one line)
    and a sweep; 990 times is still run (and warned of)."""
    s = ringlet.Scenario.from_toml(OVERLOADED)
    for load in (1e308, 1e300, 134_000):
        with pytest.raises(ringlet.ScenarioError, match=r"^traffic.load_mbps_per_node: .* MB/s per node is more than "
                                                        r"1,000 times what the network can carry \(about 133.3 MB/s per "
                                                        r"node, the analytic model's saturation\)"):
            s.set("traffic.load_mbps_per_node", load).run()
    # Each priority offers the load: three of 1e308 are refused too (their sum is no number).
    with pytest.raises(ringlet.ScenarioError, match=r"\(3 priorities of it\)"):
        s.with_(traffic={"load_mbps_per_node": 1e308, "priorities": 3}).run()
    [far] = preflight.checks(s.set("traffic.load_mbps_per_node", 990 * 64 / 30 / 2e-9 / 1e6 / 8))
    assert " is 990x what the network can carry" in far, far
    f = tmp_path / "over.toml"
    f.write_text(OVERLOADED)
    message = one_error_line(cli(["run", f, "--set", "traffic.load_mbps_per_node=1e308"]))
    assert message.startswith("traffic.load_mbps_per_node: 1e+308 MB/s per node is more than 1,000 times"), message
    message = one_error_line(cli(["sweep", small_file, "--set", "traffic.load_mbps_per_node=10,1e300",
                                  "--out", tmp_path / "out"]))
    assert message.startswith("traffic.load_mbps_per_node: 1e+300 MB/s per node is more than 1,000 times"), message
    assert not (tmp_path / "out").exists()


def test_each_family_has_a_capacity_estimate():
    """The analytic model's saturation load (docs/analytic.md), over all priorities."""
    ring = ringlet.Scenario.from_toml("[network]\nnodes = 8\n")
    assert preflight.capacity_mbps_per_node(ring) == pytest.approx(64 / 30 / 2e-9 / 1e6 / 8)
    assert preflight.capacity_mbps_per_node(ring.set("traffic.priorities", 2)) == pytest.approx(64 / 30 / 2e-9 / 1e6 / 8)
    # A local read's response goes round the rest of the ring: less.
    assert preflight.capacity_mbps_per_node(ring.set("traffic.destinations", "local")) < 100
    for f in ("scenarios/banyan/uO4nS16.toml", "scenarios/gigaring/mixed-8node.toml"):
        s = ringlet.Scenario.load(f).set("run.measure_transactions", 200)
        assert preflight.capacity_mbps_per_node(s) == pytest.approx(s.run().summary["model_saturation_load_mbps_per_node"])


def test_a_sweep_warns_once_per_kind_of_warning(tmp_path, cli, small_file):
    p = cli(["sweep", small_file, "--set", "traffic.load_mbps_per_node=10,1000,2000", "--set", "run.max_sim_time_ns=20000",
             "--set", "run.measure_transactions=300", "--processes", "1", "--out", tmp_path / "out"])
    assert p.returncode == 0, p.stderr
    overload = [line for line in _warnings(p.stderr) if "what the network can carry" in line]
    assert len(overload) == 1 and overload[0].startswith(
        "warning: 2 of 3 points, the first: traffic.load_mbps_per_node: 1,000 MB/s per node"), p.stderr


@pytest.mark.filterwarnings("ignore:1 point")  # (it stops at its time cap, as it should)
def test_the_python_sweep_warns_too(small_file):
    s = ringlet.Scenario.load(small_file).with_overrides(["run.max_sim_time_ns=20000", "run.measure_transactions=300"])
    with pytest.warns(PreflightWarning, match=r"^traffic.load_mbps_per_node: 1,000 MB/s per node"):
        ringlet.sweep(s, {"traffic.load_mbps_per_node": [1000]}, processes=1)


def test_a_study_point_with_a_late_fault_warns():
    work = [(LATE_FAULT, ()), (LATE_FAULT, (("faults.at_ns", "2e12"),)), (OVERLOADED, ())]
    [message] = preflight.study_checks(work)
    # (A study's curves go past saturation on purpose: no overload warning for its points.)
    assert message.startswith("2 of 3 points, the first: faults.at_ns: the failure at 1,000,000,000,000 ns")


def test_rerun_checks_before_it_runs(tmp_path, cli, small_file):
    out = tmp_path / "out"
    p = cli(["sweep", small_file, "--set", "traffic.load_mbps_per_node=1000", "--set", "run.max_sim_time_ns=20000",
             "--set", "run.measure_transactions=300", "--processes", "1", "--out", out])
    assert p.returncode == 0, p.stderr
    again = cli(["rerun", out, "1"])
    assert again.returncode == 0, again.stderr
    [line] = _warnings(again.stderr)
    assert line.startswith("warning: traffic.load_mbps_per_node: 1,000 MB/s per node")


def test_a_switch_with_more_ports_than_allowed_is_refused(cli, tmp_path):
    f = tmp_path / "switch.toml"
    f.write_text('[network]\nkind = "sci-switch"\nnodes = 2\n')
    message = one_error_line(cli(["run", f, "--set", "network.nodes=4096"]))
    assert message.startswith("network.nodes: one switch (network.kind = \"sci-switch\") takes at most 64 rings")
    assert "got 4096" in message and 'network.kind = "banyan"' in message
    with pytest.raises(ringlet.ScenarioError, match=r"^network.nodes: one switch"):
        ringlet.Scenario.from_toml('[network]\nkind = "sci-switch"\nnodes = 128\n')


def test_a_network_over_the_interface_limit_names_the_keys(cli, tmp_path):
    f = tmp_path / "banyan.toml"
    f.write_text('[network]\nkind = "banyan"\nnodes = 16\nringlets = "bidirectional"\n')
    message = one_error_line(cli(["run", f, "--set", "network.nodes=4096"]))
    assert message.startswith("network.nodes: 4096 processors on bidirectional ringlets need ")
    assert "more than the 65535 ring interfaces" in message and "network.switch_ports" in message
    assert "network.ringlets" in message
    with pytest.raises(ringlet.ScenarioError, match="65535 ring interfaces"):
        ringlet.Scenario.from_toml('[network]\nkind = "banyan"\nnodes = 4096\nringlets = "bidirectional"\n')


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_long_run_says_so_up_front_once():
    clock, said = Clock(), []
    estimate = RunEstimate(said.append, clock)
    clock.now = CALIBRATE_S / 2
    estimate(0.001)  # too early to tell
    assert said == []
    clock.now = 2.0
    estimate(0.01)  # 1% in 2 s: about 200 s in all
    clock.now = 4.0
    estimate(0.02)  # decided: said once
    assert said == ["this run will take about 0:03:20 (estimated from its first 2 s, 1.0% done); Ctrl-C stops it"]
    assert estimate.total_s == pytest.approx(200.0)


def test_a_short_run_says_nothing():
    clock, said = Clock(), []
    estimate = RunEstimate(said.append, clock)
    clock.now = 2.0
    estimate(2.0 / (LONG_RUN_S - 1))  # done in just under LONG_RUN_S
    assert said == [] and estimate.total_s == pytest.approx(LONG_RUN_S - 1)


def test_a_run_without_warnings_raises_none(small_file):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ringlet.Scenario.load(small_file).run()
