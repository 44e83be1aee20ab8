"""Studies as data: a paper's figures described in a ``study.toml`` (:mod:`.format`, with
its parts: the plot in :mod:`.plotspec`, quotes and findings in :mod:`.claims`, capacity
searches in :mod:`.capacityspec`),
the numbers read off a figure's data (:mod:`.extract`), the figures drawn
(:mod:`.plots`), the paper's numbers checked (:mod:`.validation`), and
``ringlet reproduce``, which runs them all (:mod:`.reproduce`).

The study catalog shipped with ringlet is package data, in ``ringlet/studies/``.
"""

from .format import (STUDIES_DIR, SEED_UNITS, Figure, Finding, PlotSpec, Quote, Study, StudyError,
                     available_studies, find_study, load_study, max_priorities, parse_study)

__all__ = [
    "Study", "Figure", "PlotSpec", "Quote", "Finding", "StudyError",
    "available_studies", "find_study", "load_study", "parse_study", "max_priorities",
    "SEED_UNITS", "STUDIES_DIR",
]
