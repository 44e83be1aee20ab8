"""Running simulations in numbers: grids of points and their sweeps, replications,
the executors that run them (local processes, Dask), the results store that
keeps every finished run, and traces of one run.

Everything here works on :class:`~ringlet.api.scenario.Scenario` values; the
CLI (:mod:`ringlet.cli`) and studies (:mod:`ringlet.study`) build on it.
"""
