"""What a notebook's test cells and worked examples call: ``check`` and ``expect``.

``check(grade_id)`` is an autograder test cell: it runs that cell's visible cases on your code and prints one
line per case. ``expect(actual, expected, call)`` is a worked example's one-sentence assertion. Both say what was
called, what came back and what was expected, and where the two values first differ (the cases' own rule:
``checking.verdict.first_difference``).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path
from typing import Any

from ..checking.alone import run_on_its_own
from ..checking.case import visible_cases
from ..checking.cut import cut
from ..checking.verdict import SHORT, first_difference
from ..errors import LabNotImplementedError
from ..labs import LABS
from ..messages import say
from .checklist import Checklist
from .saved import sync
from .status import cell_points

PRINTED = "What your code printed while these checks ran (shown, never scored):"
"""The line before what the student's code printed (warnings, log lines, stderr) in a test cell's output. It stays
in English in every edition: the feedback page finds the printed part by this line."""


class ChecksFailed(AssertionError):
    """A test cell's failure. Its message is the cell's one closing line (the cell, its points, how many checks
    failed); IPython shows that line alone, without a traceback: the ✓/✗ lines above it say what failed, and the
    course's code a traceback would walk through says nothing more."""

    def _render_traceback_(self) -> list[str]:  # IPython's hook: these lines instead of a traceback
        return [f"{type(self).__name__}: {self}"]


def check(grade_id: str) -> None:
    """A notebook test cell: run the visible cases of ``grade_id``, print one line per case, and raise
    ``ChecksFailed`` with one closing line naming the cell and its points (``LabNotImplementedError`` while the
    lab is not started), neither shown with a traceback. While a lab it uses is not done yet, the course's answers
    stand in for it (``checking.answers``) and a first line says so. A cell without visible cases says its points
    are graded by hidden tests. The lab's saved files (``saved.sync``) must compile first: otherwise the checks
    would run code that is no longer in them.

    What your code prints while the cases run, on stdout or stderr (a warning, a log line, a debug print), is
    collected and printed after the case lines, below ``PRINTED``, on stdout: it is shown, and never decides
    anything (nbgrader would score a cell that writes to stderr as failed)."""
    cases = tuple(
        case for case in visible_cases(int(grade_id.removeprefix("lab").split("_")[0])) if case.grade_id == grade_id
    )
    if not cases:
        print(say("hidden_cell", grade_id=grade_id))
        return
    lab = next(item for item in LABS if item.number == cases[0].lab)
    problems = sync(list(lab.modules)).problems
    if problems:
        raise ChecksFailed(
            f"{problems[0]}\nFix it and save the file: until then this kernel runs the code it "
            "loaded before, and no check can pass."
        )
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), warnings.catch_warnings():
        warnings.simplefilter("always")  # a warning shown by an earlier cell is shown here again
        verdicts, answered = run_on_its_own(lab.number, cases)
    if answered:
        print(Checklist(lab, answered=answered).checked_on(own=False))
    for case, result in zip(cases, verdicts, strict=True):
        print(
            f"{'✓' if result.passed else '✗'} {case.name}: {case.call}"
            + ("" if result.passed else f"\n    {result.message}")
        )
    if printed.getvalue():
        print(f"{PRINTED}\n{printed.getvalue().rstrip()}")
    started = [result for result in verdicts if result.status != "not started"]
    if not started:
        raise LabNotImplementedError(
            *(LabNotImplementedError.named_in(verdicts[0].message) or (lab.number, lab.function))
        )
    failed = [result for result in verdicts if not result.passed]
    if failed:
        points = cell_points(Path(lab.notebook), grade_id)  # the kernel runs beside its notebook
        shown = "" if points is None else say("cell_points", points=f"{points:g}", s="" if points == 1 else "s")
        raise ChecksFailed(
            say("checks_failed", grade_id=grade_id, points=shown, failed=len(failed), total=len(verdicts))
        )


def expect(actual: Any, expected: Any, call: str) -> None:
    """Raise ``AssertionError`` ("called <call>, got <actual>, expected <expected>") unless equal.

    Long values are shortened (each cut to a readable length around where the two differ, ``checking.cut``); the
    message then adds where they first differ, e.g. ``first difference at [0]['content']: got 'x', expected 'y'``.
    """
    if actual == expected:
        return
    got_text, want_text = SHORT.repr(actual), SHORT.repr(expected)
    message = f"called {call}, got {cut(got_text, want_text)}, expected {cut(want_text, got_text)}"
    where = first_difference(actual, expected)
    if where is not None and where[0]:
        path, got, wanted = where
        got_text, want_text = repr(got), repr(wanted)
        message += f" (first difference at {path}: got {cut(got_text, want_text)}, expected {cut(want_text, got_text)})"
    raise AssertionError(message)
