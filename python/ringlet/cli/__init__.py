"""The ``ringlet`` command line: the parser (:mod:`.parser`), one module per
command or pair of related commands, the rich views (:mod:`.render`) and the
progress bars (:mod:`.progress`). ``ringlet.cli:main`` is the console script.
"""

from .command import main

__all__ = ["main"]
