"""``expect``: a one-sentence assertion for the notebooks' worked examples (the autograder tests use
``cases.check``). A failure says what was called, what came back and what was expected, and where the
two values first differ (the same path rule as the cases' verdicts: ``cases.first_difference``).
"""

from __future__ import annotations

from typing import Any

from .cases import SHORT, first_difference


def expect(actual: Any, expected: Any, call: str) -> None:
    """Raise ``AssertionError`` ("called <call>, got <actual>, expected <expected>") unless equal.

    Long values are shortened; the message then adds where they first differ, e.g.
    ``first difference at [0]['content']: got 'x', expected 'y'``.
    """
    if actual == expected:
        return
    message = f"called {call}, got {SHORT.repr(actual)}, expected {SHORT.repr(expected)}"
    where = first_difference(actual, expected)
    if where is not None and where[0]:
        path, got, wanted = where
        message += f" (first difference at {path}: got {got!r}, expected {wanted!r})"
    raise AssertionError(message)
