"""ringlet: cycle-accurate simulation of SCI (IEEE 1596) ring interconnects.

>>> import ringlet
>>> s = ringlet.Scenario.load("scenarios/sci/base-8node.toml")      # doctest: +SKIP
>>> r = s.with_(traffic={"load_mbps_per_node": 120}).run()         # doctest: +SKIP
>>> df = ringlet.sweep(s, {"traffic.load_mbps_per_node": [10, 50]})  # doctest: +SKIP
>>> table = ringlet.reproduce("sci-rt", "results/sci-rt")           # doctest: +SKIP
>>> ringlet.report("results/sci-rt", "report.html")                 # doctest: +SKIP
>>> ringlet.trace(s, "trace.json", to_ns=20_000)                     # doctest: +SKIP
"""

from . import _core
from .errors import ScenarioError
from .report import report
from .reproduce import reproduce
from .result import Result
from .scenario import Scenario
from .sweep import SweepError, sweep
from .trace import trace

__version__: str = _core.version()

__all__ = ["Scenario", "Result", "sweep", "reproduce", "report", "trace", "ScenarioError", "SweepError", "__version__"]
