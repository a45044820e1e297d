"""A lab checked on its own: which labs it uses are not done yet, and running its cases with the course's answers
standing in for them (``answers``).

A used lab is done when its own visible checks (extra credit apart) all pass with the labs *it* uses answering from
the course's answers: whether it is right on its own, whatever the state of the others, in one run of its checks.
Until then the course answers for it; once it is done, the lab under check runs on it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..labs import lab
from .answers import answering, available
from .case import Case, visible_cases
from .limits import run_visible
from .verdict import Verdict


def passes_alone(number: int) -> bool:
    """Whether lab ``number``'s own visible checks (extra credit apart) all pass with the labs it uses answering
    from the course's answers: the lab is done, whatever the state of the others."""
    cases = tuple(case for case in visible_cases(number) if not case.extra_credit)
    with answering(lab(number).uses):
        return bool(cases) and all(item.passed for item in run_visible(cases))


def answered_labs(number: int) -> tuple[int, ...]:
    """The labs lab ``number`` uses that are not done yet (``passes_alone``): the course answers for them while
    lab ``number`` is checked."""
    if not available():
        return ()
    return tuple(used for used in lab(number).uses if not passes_alone(used))


@contextlib.contextmanager
def on_its_own(number: int) -> Iterator[tuple[int, ...]]:
    """While inside, the course answers for the labs lab ``number`` uses that are not done yet
    (``answered_labs``, which it yields)."""
    answered = answered_labs(number)
    with answering(answered):
        yield answered


def run_on_its_own(number: int, cases: tuple[Case, ...]) -> tuple[list[Verdict], tuple[int, ...]]:
    """Run ``cases`` of lab ``number`` (``run_visible``) with the course answering for the labs it uses that are
    not done yet; return the verdicts and those labs."""
    with on_its_own(number) as answered:
        return run_visible(cases), answered
