"""The Python API's values: :class:`Scenario` (one validated point), :class:`Result`
(one run's figures), the report schema they are read by, TOML literals and the
error every bad input raises.

Kept apart from running sweeps (:mod:`ringlet.runs`) and from studies
(:mod:`ringlet.study`), which build on these and nothing here builds on them.
"""
