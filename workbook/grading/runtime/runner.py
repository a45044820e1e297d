"""The grader's runner: run cases on one lab module and report each as plain data, nothing more.

``python -s -E -m compaction_lab._grader.runner CASES.json MODULE FD [READ_FD WRITE_FD FUNCTION...]`` runs
inside the grading sandbox, in a private copy of a package made of your module for the lab being graded, the
course's starters of the labs it does not use and, for those it uses, stubs whose lab functions the oracle
answers (``oracle.py``, over ``relay.py``'s channel on ``READ_FD`` and ``WRITE_FD``; the runner answers the
oracle's calls of the ``FUNCTION``s of your module). It imports ``compaction_lab.MODULE``, then calls each
case of ``CASES.json`` (a list of ``{"key", "function", "args", "kwargs"}``) with ``wire.observe`` and writes
JSON lines to file descriptor ``FD`` (a pipe to the grader): ``{"ready": true}`` (or ``{"import_error":
...}``), then per case ``{"start": key}`` and ``{"key": key, "observation": ...}``. What the code prints goes
to stdout and stderr, which the grader caps and never scores. Nothing can be typed: reading stdin (``input()``,
``sys.stdin.readline()``) raises ``InputAtGrading`` at once, which the grader names in the lab's status.
The runner decides nothing: the grader compares its reports with the reference solutions' outcomes, which never
enter this process.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

_write, _dumps = os.write, json.dumps  # bound before any student code runs


class InputAtGrading(EOFError):
    """Raised when your code reads stdin while it is graded (``input()``, ``sys.stdin.read()``): nothing can be
    typed there. An ``EOFError``, as a closed stdin gives, so code that handles the end of its input still can."""


class NoInput:
    """``sys.stdin`` while the cases run: every read raises ``InputAtGrading`` (instead of waiting, or of a
    bare ``EOFError`` the grader could not tell apart from any other)."""

    def _refuse(self, *args: object) -> str:
        raise InputAtGrading("your code asked for input, and nothing can be typed while your work is graded")

    read = readline = readlines = _refuse

    def __iter__(self) -> NoInput:
        return self

    def __next__(self) -> str:
        return self._refuse()

    def isatty(self) -> bool:
        """Never a terminal."""
        return False

    def fileno(self) -> int:
        """Standard input's descriptor (``/dev/null`` in the sandbox)."""
        return 0


def reporter(fd: int) -> Callable[[dict[str, Any]], None]:
    """A function writing one JSON line to the grader's pipe ``fd``."""

    def report(line: dict[str, Any]) -> None:
        _write(fd, (_dumps(line) + "\n").encode("utf-8", "backslashreplace"))

    return report


def main(argv: list[str]) -> int:
    """Run the cases of file ``argv[0]`` after importing module ``argv[1]``, reporting to fd ``argv[2]``; with
    more arguments, first connect the oracle's channel (``argv[3]``, ``argv[4]``, serving ``argv[5:]``)."""
    cases_file, module, fd, *oracle = argv
    report = reporter(int(fd))
    with open(cases_file, encoding="utf-8") as handle:
        cases = json.load(handle)
    sys.stdin = NoInput()  # before any student code: input() fails at once
    try:
        if oracle:  # before your module: its import may call another lab's function already
            from . import relay

            relay.connect(int(oracle[0]), int(oracle[1]), oracle[2:])
        importlib.import_module(f"compaction_lab.{module}")
    except BaseException as error:  # noqa: BLE001 (any failure to import is reported as such)
        report(
            {"import_error": {"classes": [cls.__name__ for cls in type(error).__mro__], "message": str(error)[:2000]}}
        )
        return 0
    report({"ready": True})
    from compaction_lab.provided.checking.wire import (
        observe,  # only now: it imports lab modules, whose failures are reported above
    )

    for case in cases:
        report({"start": case["key"]})
        observation = observe(case["function"], case["args"], case["kwargs"])
        report({"key": case["key"], "observation": observation})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
