"""A command's tables keep their cells whole when its output is a log, not a terminal."""

from __future__ import annotations

import io

import pytest
from rich.table import Table

from workbook.cli.main import PIPE_WIDTH, command_console

NAME = "student-with-a-long-name-" * 4


def printed(monkeypatch: pytest.MonkeyPatch) -> str:
    console = command_console()
    console.file = io.StringIO()
    table = Table("student", "lab 1", "lab 2", "lab 3", "lab 4", "lab 5", "total")
    table.add_row(NAME, "8/8", "8/8", "8/8", "8/8", "8/8", "40/40")
    console.print(table)
    return console.file.getvalue()


def test_in_a_pipe_a_table_prints_every_name_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert command_console().width == PIPE_WIDTH
    assert NAME in printed(monkeypatch)
    assert "…" not in printed(monkeypatch)


def test_columns_set_by_the_user_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert command_console().width == 60
    assert NAME not in printed(monkeypatch)
