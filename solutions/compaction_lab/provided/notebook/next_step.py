"""Where to go next across the labs: one sentence from every lab's checklist, for ``workbook check``'s overview.

The first lab, in order, whose own visible checks do not all pass decides it: fix a file that does not compile,
write a function not started, finish the lab another one waits for, or make its first failing check pass (with
``workbook hint``). When every lab passes, the first "Going further" with extra-credit checks left; when those
pass too, that nothing is left but the hidden tests run at grading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..messages import say

if TYPE_CHECKING:  # checklist's runner imports this module
    from .checklist import Checklist


def failing(checklist: Checklist) -> tuple[str, ...]:
    """The names of the checklist's cases that ran and failed (neither passed nor "not started"), the lab's own
    checks first, then its extra-credit ones: the cases ``workbook hint`` has a hint for."""
    ran = zip(checklist.cases, checklist.verdicts, strict=True)
    wrong = [(case, item) for case, item in ran if item.status not in ("passed", "not started")]
    return tuple(case.name for case, _ in sorted(wrong, key=lambda pair: pair[0].extra_credit))


def lab_next_step(checklist: Checklist) -> str:
    """What to do next in this lab alone: one sentence, empty when nothing is left (every check passes, extra
    credit included)."""
    info, state = checklist.lab, checklist.state
    if state == "broken":
        return say("next_fix", lab=info.number)
    if state == "not started":
        return say("next_write", lab=info.number, function=info.function, module=info.module, notebook=info.notebook)
    if state == "blocked":
        return say("next_blocked", lab=info.number, other=checklist.waiting_for)
    if state == "failed":
        first = next(case for case, item in checklist.own if not item.passed)
        return say("next_failing", lab=info.number, case=first.name)
    if any(not item.passed for item in checklist.extra_credit):
        hint = say("next_hint", lab=info.number) if failing(checklist) else ""
        return say("next_extra", lab=info.number, notebook=info.notebook) + hint
    return ""


def next_step(checklists: Sequence[Checklist]) -> str:
    """The one next thing to do across ``checklists`` (in lab order), by the rule of the module's docstring."""
    pending = [item for item in checklists if not item.passed] or list(checklists)
    for checklist in pending:
        sentence = lab_next_step(checklist)
        if sentence:
            return sentence
    return say("next_nothing_left")
