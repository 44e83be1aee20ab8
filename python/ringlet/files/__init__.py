"""Writing result files: the one policy every output of ringlet goes through.

An output path is checked before any work is done (:mod:`.targets`); then one
file is written whole or not at all, or the files of one output (a sweep's
tables, a reproduction's figures and validation) all or none
(:mod:`.write`); tables are rendered to bytes first (:mod:`.tables`).
Callers use these names from the package (``files.write_together``), so there
is one place to look for how ringlet writes.
"""

from .tables import TABLE_KINDS, table_bytes, table_files
from .targets import check_out_dir, check_out_file, in_place
from .write import make_dir, write_atomic, write_together

__all__ = ["TABLE_KINDS", "table_bytes", "table_files", "check_out_dir", "check_out_file", "in_place", "make_dir",
           "write_atomic", "write_together"]
