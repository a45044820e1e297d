"""A save under a running kernel changes no verdict: provided code looks lab classes up when it uses them.

The setup cell's autoreload reloads a lab module on every save, which makes new class objects; a provided
module that bound a lab class at import would hand the student's new code the old class (``BudgetError('policy:
expected a CachePolicy, got CachePolicy')`` after a save of ``budget.py``).
"""

from __future__ import annotations

import importlib

import pytest

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.checking.limits import run_visible
from compaction_lab.provided.labs import LABS
from compaction_lab.provided.notebook import saved


def statuses() -> dict[str, str]:
    return {verdict.key: verdict.status for verdict in run_visible(visible_cases())}


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.module)
def test_every_visible_case_reads_the_same_after_a_lab_module_is_reloaded(lab) -> None:
    before = statuses()
    saved.reload(importlib.import_module(f"compaction_lab.{lab.module}"))
    assert statuses() == before


def test_the_courses_answers_stand_in_for_every_binding_of_a_reloaded_lab() -> None:
    """After a reload, ``grouping.group_interactions`` is a new object while ``budget`` still holds the earlier
    one (autoreload gives it the new code): while the course answers for lab 2, both are its stand-in, and both are
    put back after."""
    from compaction_lab import budget, grouping
    from compaction_lab.provided.checking.answers import answering

    saved.reload(grouping)
    before = (budget.group_interactions, grouping.group_interactions)
    assert before[0] is not before[1]
    with answering((2,)):
        standing_in = {budget.group_interactions.__qualname__, grouping.group_interactions.__qualname__}
        assert standing_in == {"stand_in.<locals>.answer"}
        assert run_visible(visible_cases(3))[0].passed
    assert (budget.group_interactions, grouping.group_interactions) == before
