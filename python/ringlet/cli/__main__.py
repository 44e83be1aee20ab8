"""``python -m ringlet.cli``: the same as the ``ringlet`` command."""

import sys

from .command import main

if __name__ == "__main__":
    sys.exit(main())
