"""The grader's runner: run cases on one lab module and report each as plain data, nothing more.

``python -s -E -m compaction_lab.provided.runner CASES.json MODULE FD`` runs inside the grading sandbox,
in a private copy of a package made of your module for the lab being graded and the course's modules for
everything else. It imports ``compaction_lab.MODULE``, then calls each case of ``CASES.json`` (a list of
``{"key", "function", "args", "kwargs"}``) with ``wire.observe`` and writes JSON lines to file descriptor
``FD`` (a pipe to the grader): ``{"ready": true}`` (or ``{"import_error": ...}``), then per case
``{"start": key}`` and ``{"key": key, "observation": ...}``. What the code prints goes to stdout and
stderr, which the grader caps and never scores. The runner decides nothing: the grader compares its
reports with the reference solutions' outcomes, which never enter this process.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

_write, _dumps = os.write, json.dumps  # bound before any student code runs


def reporter(fd: int) -> Callable[[dict[str, Any]], None]:
    """A function writing one JSON line to the grader's pipe ``fd``."""
    def report(line: dict[str, Any]) -> None:
        _write(fd, (_dumps(line) + "\n").encode("utf-8", "backslashreplace"))
    return report


def main(argv: list[str]) -> int:
    """Run the cases of file ``argv[0]`` after importing module ``argv[1]``, reporting to fd ``argv[2]``."""
    cases_file, module, fd = argv
    report = reporter(int(fd))
    with open(cases_file, encoding="utf-8") as handle:
        cases = json.load(handle)
    try:
        importlib.import_module(f"compaction_lab.{module}")
    except BaseException as error:  # noqa: BLE001 (any failure to import is reported as such)
        report({"import_error": {"classes": [cls.__name__ for cls in type(error).__mro__],
                                 "message": str(error)[:2000]}})
        return 0
    report({"ready": True})
    from .wire import observe  # only now: it imports lab modules, whose failures are reported above

    for case in cases:
        report({"start": case["key"]})
        observation = observe(case["function"], case["args"], case["kwargs"])
        report({"key": case["key"], "observation": observation})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
