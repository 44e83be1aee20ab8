"""ringlet: cycle-accurate simulation of SCI (IEEE 1596) ring interconnects.

>>> import ringlet
>>> s = ringlet.Scenario.load("scenarios/sci/base-8node.toml")      # doctest: +SKIP
>>> r = s.with_(traffic={"load_mbps_per_node": 120}).run()         # doctest: +SKIP
>>> df = ringlet.sweep(s, {"traffic.load_mbps_per_node": [10, 50]})  # doctest: +SKIP
>>> c = ringlet.capacity(s, "p99<=2us", out="results/capacity")    # doctest: +SKIP
>>> table = ringlet.reproduce("sci-rt", "results/sci-rt")           # doctest: +SKIP
>>> ringlet.report("results/sci-rt", "results/report.html")         # doctest: +SKIP
>>> ringlet.trace(s, "results/trace.json", to_ns=20_000)             # doctest: +SKIP
>>> ringlet.trace_gen("all-reduce", "results/allreduce.csv", nodes=8)  # doctest: +SKIP

The package is laid out by job: ``api`` (Scenario, Result, the report schema),
``runs`` (grids, sweeps, executors, the results store, traces), ``traces``
(trace files of common traffic patterns: ``trace_gen``), ``study``
(studies and ``reproduce``), ``report`` (the HTML report), ``files`` (how
result files are written) and ``cli`` (the ``ringlet`` command).
"""

from . import _core
from .api.errors import ScenarioError
from .api.result import Result
from .api.scenario import Scenario
from .report import report
from .runs.capacity import Capacity, CapacityError, capacity
from .runs.sweep import SweepError, sweep
from .runs.trace import trace
from .traces import trace_gen
from .study.reproduce import reproduce

__version__: str = _core.version()

__all__ = ["Scenario", "Result", "sweep", "capacity", "reproduce", "report", "trace", "trace_gen", "Capacity", "CapacityError",
           "ScenarioError", "SweepError", "__version__"]
