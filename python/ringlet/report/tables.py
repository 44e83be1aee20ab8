"""Reading and checking results tables (CSV or Parquet), so a damaged file is one clear error."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..runs.table import PROVENANCE_FIELDS, TEXT_FIELDS
from .errors import ReportError, first_line

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Columns every sweep table (and every figure CSV) must have.
REQUIRED_COLUMNS = ("point", "priority", "throughput_mbps", "latency_ns_mean", *PROVENANCE_FIELDS)


def read_table(path: Path) -> "pd.DataFrame":
    """A CSV or Parquet file as a DataFrame; a damaged file raises :class:`ReportError`."""
    import pandas as pd

    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise ReportError(f"{path}: damaged: the file is empty") from None
    except (ValueError, OSError, UnicodeError, pd.errors.ParserError) as e:  # pyarrow's errors are ValueError/OSError
        raise ReportError(f"{path}: damaged: {first_line(e)}") from None
    except Exception as e:  # e.g. pyarrow.ArrowException from a corrupt Parquet footer
        raise ReportError(f"{path}: damaged: {first_line(e)}") from None


def check_sweep_table(frame: "pd.DataFrame", path: Path) -> list[str]:
    """Checks a sweep table (``ringlet sweep``'s, or a figure's CSV); returns its swept keys.

    A missing column, an empty table, a row cut short (no provenance) or text
    in a number column raises :class:`ReportError` naming the file and row.
    """
    import pandas as pd

    for column in REQUIRED_COLUMNS:
        if column not in frame.columns:
            raise ReportError(f"{path}: damaged or not a ringlet sweep table: no column {column!r}")
    if frame.empty:
        raise ReportError(f"{path}: damaged: the table has no rows")
    names = list(frame.columns)
    start, stop = names.index("point"), names.index("priority")
    if stop < start:
        raise ReportError(f"{path}: damaged or not a ringlet sweep table: 'priority' comes before 'point'")
    keys = names[start + 1:stop]
    line = 2 if path.suffix == ".csv" else None  # the header is line 1

    def where(i: int) -> str:
        return f"line {i + line}" if line else f"row {i}"

    for column in ("point", *PROVENANCE_FIELDS):
        bad = frame[column].isna().to_numpy().nonzero()[0]
        if len(bad):
            raise ReportError(f"{path}: damaged: {where(int(bad[0]))} has no {column} (cut short?)")
    numeric = ["point", "priority", "seed", *(c for c in names[stop + 1:] if c not in PROVENANCE_FIELDS
                                              and c not in TEXT_FIELDS)]
    for column in numeric:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            continue
        converted = pd.to_numeric(values, errors="coerce")
        bad = (converted.isna() & values.notna()).to_numpy().nonzero()[0]
        if len(bad):
            i = int(bad[0])
            raise ReportError(f"{path}: damaged: {where(i)}: {column} is not a number: {values.iloc[i]!r}")
        frame[column] = converted
    return keys


def check_figure_table(frame: "pd.DataFrame", path: Path) -> list[str]:
    """Checks a reproduction's figure CSV; returns its swept keys. A figure draws the sweep
    table (see :func:`check_sweep_table`) or a report table of its points (``table = ...``
    in the study: no ``priority`` column), whose swept keys are the dotted columns after
    ``point`` (scenario keys are ``section.key``)."""
    if "priority" in frame.columns:
        return check_sweep_table(frame, path)
    for column in ("point", *PROVENANCE_FIELDS):
        if column not in frame.columns:
            raise ReportError(f"{path}: damaged or not a ringlet figure table: no column {column!r}")
    if frame.empty:
        raise ReportError(f"{path}: damaged: the table has no rows")
    names = list(frame.columns)
    keys = []
    for column in names[names.index("point") + 1:]:
        if "." not in column:
            break
        keys.append(column)
    for column in ("point", *PROVENANCE_FIELDS):
        bad = frame[column].isna().to_numpy().nonzero()[0]
        if len(bad):
            line = f"line {int(bad[0]) + 2}" if path.suffix == ".csv" else f"row {int(bad[0])}"
            raise ReportError(f"{path}: damaged: {line} has no {column} (cut short?)")
    return keys


def is_numeric(values: "pd.Series") -> bool:
    import pandas as pd

    if pd.api.types.is_bool_dtype(values):
        return False
    return bool(pd.to_numeric(values, errors="coerce").notna().all())
