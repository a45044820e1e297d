"""The labs' time limit per call, and running visible cases in this process within it.

The notebook's test cells and status light and ``workbook check`` run a lab's visible cases in the student's own
process, each call stopped after ``CALL_SECONDS``; the grader's judge reads the same limit.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from .case import Case, expected_observations
from .verdict import Verdict, verdict

CALL_SECONDS = 5.0
"""The labs' time limit per call: a call of your function in a check that runs longer is stopped and the check
fails, the same in the notebook's test cells (so also when you Validate), in ``workbook check`` and when your
work is graded (the grader's judge reads it from here)."""


class CallTimedOut(BaseException):
    """Raised inside a call of your function that ran longer than ``CALL_SECONDS`` (a ``BaseException``, so an
    ``except Exception`` in your code cannot swallow it)."""


def observe_within_limit(case: Case) -> dict[str, Any]:
    """``wire.observe`` of ``case``, stopped after ``CALL_SECONDS`` (a timer signal; in the main thread only,
    where a notebook's cells and ``workbook check`` run): the observation then reports ``CallTimedOut``."""
    from .wire import observe

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return observe(case.function, list(case.args), dict(case.kwargs))

    def stop(signum: int, frame: Any) -> None:
        raise CallTimedOut(f"the call ran longer than the labs' limit of {CALL_SECONDS:g} seconds and was stopped")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        return observe(case.function, list(case.args), dict(case.kwargs))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_visible(cases: tuple[Case, ...]) -> list[Verdict]:
    """Run ``cases`` in this process on the package imported here, each call within ``CALL_SECONDS``, and decide
    each against the reference outcome ``visible.json`` holds."""
    expected = expected_observations()
    return [verdict(case, observe_within_limit(case), expected[case.key]) for case in cases]
