"""``workbook check --watch``: a real process on a workspace runs the checks, then again after a save of a lab
file, and prints the new lines under a rule naming the file saved."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from packages import STARTER_PACKAGE

from workbook.paths import REPO, SOLUTIONS

DEADLINE = 120.0
"""Seconds to wait for a line before the test gives up (a bound on waiting, never a measured time)."""
RESAVE = 2.0
"""Seconds between saves while the watcher has printed nothing new."""


def next_line(lines: queue.Queue, wanted: str, save: Callable[[], None] = lambda: None) -> list[str]:
    """The lines read until one starting with ``wanted`` (that one included); fails when the process ends or
    ``DEADLINE`` passes first. Until a line comes, ``save`` is called again every ``RESAVE`` seconds: watching
    starts just after the first run's lines, so a save in between is not seen."""
    seen: list[str] = []
    end = time.monotonic() + DEADLINE
    while not seen or not seen[-1].startswith(wanted):
        assert time.monotonic() < end, f"no {wanted!r} within {DEADLINE:g} s; it printed {seen}"
        if not seen:
            save()
        try:
            line = lines.get(timeout=RESAVE)
        except queue.Empty:
            continue
        assert line is not None, f"workbook check --watch ended before {wanted!r}; it printed {seen}"
        seen.append(line.rstrip("\n"))
    return seen


def test_a_save_runs_the_checks_again(tmp_path: Path) -> None:
    folder = tmp_path / "labs"
    shutil.copytree(STARTER_PACKAGE, folder / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    watcher = subprocess.Popen(
        [sys.executable, "-m", "workbook.cli.main", "check", "--watch", "1", "--workspace", str(folder)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    )
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in watcher.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        assert next_line(lines, "lab 1:") == [
            "lab 1: not started (parse_compaction_entry raises LabNotImplementedError)"
        ]
        records = folder / "compaction_lab" / "records.py"
        rule, *rest = next_line(lines, "lab 1:", lambda: shutil.copyfile(SOLUTIONS / "records.py", records))
        assert " compaction_lab/records.py " in rule and rule.startswith("─")
        assert rest == ["lab 1: 4/4 visible checks pass; hidden tests run at grading; extra credit: 3/3 checks pass"]
        assert watcher.poll() is None, "it keeps watching"
    finally:
        watcher.terminate()
        watcher.wait(timeout=DEADLINE)
