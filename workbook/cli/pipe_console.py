"""Rich's console for a command whose output is not a terminal (a log, CI): each table printed at its own width.

Rich assumes 80 columns when the output is not a terminal and ``COLUMNS`` is not set, and cuts a wider table's
cells to ``stude…``. ``PipeConsole`` keeps 80 columns for prose and prints a table at the width it measures
(``Console.measure``): every cell whole, and no column wider than its widest cell.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

UNBOUNDED = 100_000
"""Columns a table is measured in: wider than any table a command prints, so nothing in it wraps."""


def table_width(console: Console, table: Table) -> int:
    """The columns ``table`` takes with every cell on one line, as ``console`` renders it."""
    return console.measure(table, options=console.options.update_width(UNBOUNDED)).maximum


class PipeConsole(Console):
    """A console for output that is not a terminal: prose in rich's width, tables in their own (see the module)."""

    def print(self, *objects: Any, **options: Any) -> None:
        """Rich's ``print``, widened for the call to the widest ``Table`` among ``objects`` when it is wider than
        the console."""
        widest = max((table_width(self, item) for item in objects if isinstance(item, Table)), default=0)
        if widest <= self.width:
            super().print(*objects, **options)
            return
        prose = self.width
        self.width = widest
        try:
            super().print(*objects, **options)
        finally:
            self.width = prose
