"""Tables that fit the console they are printed to, 80 columns included.

A :class:`FitTable` is laid out when it is rendered, at the width the console
gives it, by the first of these that fits:

1. the whole table, every header in full;
2. headers abbreviated (the columns that have a ``short`` header), with a
   legend line after the table saying what each abbreviation stands for;
3. the text columns marked ``wrap`` (labels, never numbers) wrapped onto more
   lines, each no narrower than its longest word;
4. the table split into stacked tables, each repeating the ``key`` columns
   (the row's name), as many further columns in each as fit.

A cell is never truncated or ellipsized: a number keeps every digit. Only a
single column wider than the console by itself (a cell longer than the
whole line) is folded onto more lines, and even then loses no character.
``ringlet ... --wide`` prints on a console as wide as the widest table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

from rich import box as rich_box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

#: A console width no table reaches: the width tables are measured at.
UNLIMITED = 1_000_000


@dataclass(frozen=True)
class Column:
    """One column of a :class:`FitTable`."""

    name: str
    justify: str = "right"
    #: An abbreviated header, used (with a legend line) when the full headers do not fit.
    short: Optional[str] = None
    #: What ``short`` stands for, in the legend (default: ``name``).
    meaning: Optional[str] = None
    #: A text column that may wrap at its spaces onto more lines (never a number).
    wrap: bool = False
    #: Repeated in every part when the table is split (the row's name).
    key: bool = False


def _cell(value: Any) -> Text:
    return value if isinstance(value, Text) else Text(str(value))


class FitTable:
    """A table laid out to fit the width it is rendered at (see the module's doc)."""

    def __init__(self, columns: Sequence[Column], rows: Iterable[Sequence[Any]], *, title: Optional[str] = None,
                 box: Any = rich_box.SIMPLE_HEAD, show_header: bool = True, show_edge: bool = False,
                 padding: Any = (0, 0, 0, 1)) -> None:
        self.columns = list(columns)
        self.rows = [[_cell(v) for v in row] for row in rows]
        self.title = title
        self.box = box
        self.show_header = show_header
        self.show_edge = show_edge
        self.padding = padding

    # --- building and measuring ---------------------------------------------------------------

    def _table(self, indices: Sequence[int], short: bool, widths: Optional[dict[int, int]] = None,
               title: Optional[str] = None, fold: bool = False) -> Table:
        t = Table(title=title, title_justify="left", box=self.box, show_header=self.show_header,
                  show_edge=self.show_edge, padding=self.padding)
        for i in indices:
            c = self.columns[i]
            header = c.short if short and c.short else c.name
            width = (widths or {}).get(i)
            t.add_column(header, justify=c.justify, width=width, overflow="fold",
                         no_wrap=not (c.wrap or fold or width is not None))
        for row in self.rows:
            t.add_row(*(row[i] for i in indices))
        return t

    @staticmethod
    def _width(console: Console, options: ConsoleOptions, table: Table) -> int:
        return Measurement.get(console, options.update_width(UNLIMITED), table).maximum

    def _natural(self, i: int, short: bool) -> int:
        """Column ``i``'s width without wrapping (header included)."""
        c = self.columns[i]
        header = c.short if short and c.short else c.name
        return max([cell_len(header), *(row[i].cell_len for row in self.rows)])

    def _longest_word(self, i: int, short: bool) -> int:
        c = self.columns[i]
        header = c.short if short and c.short else c.name
        texts = [header, *(row[i].plain for row in self.rows)]
        return max((cell_len(w) for t in texts for w in t.split()), default=1)

    def _legend(self, indices: Iterable[int]) -> list[Text]:
        used = [self.columns[i] for i in dict.fromkeys(indices) if self.columns[i].short]
        if not used:
            return []
        return [Text("; ".join(f"{c.short} = {c.meaning or c.name}" for c in used),
                     style="dim")]

    # --- layout ---------------------------------------------------------------------------------

    def layout(self, console: Console, options: ConsoleOptions) -> list[Any]:
        """The renderables that show this table within ``options.max_width``."""
        width = options.max_width
        every = list(range(len(self.columns)))
        full = self._table(every, short=False, title=self.title)
        if self._width(console, options, full) <= width:
            return [full]
        shorts = any(c.short for c in self.columns)
        short = self._table(every, short=True, title=self.title)
        over = self._width(console, options, short) - width
        legend = self._legend(every) if shorts else []
        if over <= 0:
            return [short, *legend]
        widths = self._wrapped(every, over)
        if widths is not None:
            return [self._table(every, short=True, widths=widths, title=self.title), *legend]
        return self._stacked(console, options, width)

    def _wrapped(self, indices: Sequence[int], over: int) -> Optional[dict[int, int]]:
        """Widths of the wrap columns that take ``over`` columns off the table, each kept
        at least as wide as its longest word; None when they cannot."""
        widths = {i: self._natural(i, True) for i in indices if self.columns[i].wrap}
        floors = {i: self._longest_word(i, True) for i in widths}
        while over > 0:
            room = [i for i in widths if widths[i] > floors[i]]
            if not room:
                return None
            widest = max(room, key=lambda i: widths[i])
            widths[widest] -= 1
            over -= 1
        return widths

    def _fits(self, console: Console, options: ConsoleOptions, indices: Sequence[int], width: int) -> bool:
        over = self._width(console, options, self._table(indices, short=True)) - width
        return over <= 0 or self._wrapped(indices, over) is not None

    def _stacked(self, console: Console, options: ConsoleOptions, width: int) -> list[Any]:
        keys = [i for i, c in enumerate(self.columns) if c.key]
        rest = [i for i, c in enumerate(self.columns) if not c.key]
        parts: list[list[int]] = []
        current: list[int] = []
        for i in rest:
            if not current or self._fits(console, options, keys + current + [i], width):
                current.append(i)
            else:
                parts.append(current)
                current = [i]
        if current or not parts:
            parts.append(current)
        out: list[Any] = []
        for n, part in enumerate(parts):
            indices = keys + part
            title = self.title if n == 0 else None
            table = self._table(indices, short=True, title=title)
            over = self._width(console, options, table) - width
            if over > 0:
                widths = self._wrapped(indices, over)
                # (A column wider than the console by itself: folded, every character kept.)
                table = self._table(indices, short=True, widths=widths, title=title, fold=widths is None)
            out.append(table)
        return out + self._legend(i for part in parts for i in keys + part)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.layout(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        full = self._table(list(range(len(self.columns))), short=False, title=self.title)
        natural = self._width(console, options, full)
        return Measurement(min(natural, options.max_width), natural)
