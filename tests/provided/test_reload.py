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
