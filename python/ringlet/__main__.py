"""``python -m ringlet``: the same as the ``ringlet`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
