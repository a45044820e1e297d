"""A command's tables keep their cells whole when its output is a log, not a terminal, and take no more columns
than their cells need."""

from __future__ import annotations

import io

import pytest
from rich.table import Table

from workbook.cli.main import command_console
from workbook.cli.pipe_console import PipeConsole

NAME = "student-with-a-long-name-" * 4
HEADERS = ["student", "lab 1", "lab 2", "lab 3", "lab 4", "lab 5", "total"]
ROW = [NAME, "8/8", "8/8", "8/8", "8/8", "8/8", "40/40"]
PROSE = "a note: " + "word " * 30


def printed() -> list[str]:
    console = command_console()
    console.file = io.StringIO()
    table = Table(*HEADERS, title="grades")
    table.add_row(*ROW)
    console.print(table)
    console.print(PROSE)
    return console.file.getvalue().splitlines()


def test_in_a_pipe_a_table_prints_every_name_whole_at_its_measured_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert isinstance(command_console(), PipeConsole)
    lines = printed()
    row = next(line for line in lines if NAME in line)
    # each column as wide as its header or cell, padded by a space on each side, and the 8 borders: no more
    widths = [max(len(header), len(cell)) for header, cell in zip(HEADERS, ROW, strict=True)]
    assert len(row) == sum(width + 2 for width in widths) + 8 == 152
    assert "…" not in "".join(lines)
    assert max(map(len, lines[-2:])) <= 80, "prose still wraps at rich's 80 columns"
    assert lines[0].strip() == "grades"


def test_columns_set_by_the_user_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert command_console().width == 60
    assert not any(NAME in line for line in printed())
