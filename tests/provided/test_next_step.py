"""The next thing to do across the labs (``workbook check``'s last line), from checklists given by hand: the first
lab whose own checks do not all pass decides it, then a Going further with checks left, then nothing."""

from __future__ import annotations

import html

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.checking.verdict import Verdict
from compaction_lab.provided.errors import LabNotImplementedError
from compaction_lab.provided.labs import lab
from compaction_lab.provided.notebook import status as light
from compaction_lab.provided.notebook.checklist import Checklist
from compaction_lab.provided.notebook.next_step import failing, lab_next_step, next_step


def checklist(number: int, own: str, extra: str = "passed", problem: str = "") -> Checklist:
    """Lab ``number``'s visible cases, each own check with status ``own`` (but the first, which passes, when
    ``own`` is failed) and each extra-credit check with status ``extra``."""
    cases = visible_cases(number)
    message = {
        "passed": "",
        "failed": "called f(), got 1, expected 2",
        "not started": str(LabNotImplementedError(number, lab(number).function)),
        "blocked": str(LabNotImplementedError(number - 1, lab(number - 1).function)) if number > 1 else "",
    }
    verdicts = []
    for index, case in enumerate(cases):
        status = extra if case.extra_credit else ("passed" if own == "failed" and index == 0 else own)
        verdicts.append(Verdict(case.key, "not started" if status == "blocked" else status, message[status]))
    return Checklist(lab(number), cases, tuple(verdicts), problem)


def done(number: int) -> Checklist:
    return checklist(number, "passed")


def test_each_state_of_a_lab_says_what_to_do_next():
    assert lab_next_step(checklist(3, "passed", problem="compaction_lab/budget.py does not compile")) == (
        "Next: lab 3: fix the problem above and save the file."
    )
    assert lab_next_step(checklist(4, "not started")) == (
        "Next: lab 4: write create_compaction_entry() in compaction_lab/compaction.py; "
        "04_compaction_creation.ipynb says how."
    )
    assert lab_next_step(checklist(3, "blocked")) == "Next: lab 2, which lab 3 calls."
    second = [case.name for case in visible_cases(3) if not case.extra_credit][1]
    assert lab_next_step(checklist(3, "failed")) == (
        f"Next: lab 3: make {second} pass; `workbook hint 3` gives a hint."
    )
    assert lab_next_step(checklist(3, "passed", extra="failed")) == (
        "Next, for extra credit: lab 3's Going further in 03_budget_projection.ipynb. `workbook hint 3` gives a hint."
    )
    assert lab_next_step(checklist(3, "passed", extra="not started")) == (
        "Next, for extra credit: lab 3's Going further in 03_budget_projection.ipynb."
    )
    assert lab_next_step(done(3)) == lab_next_step(done(2)) == ""


def test_the_first_lab_not_done_comes_before_any_extra_credit():
    labs = [done(1), checklist(2, "passed"), checklist(3, "passed", extra="failed"), checklist(4, "not started")]
    assert next_step(labs) == lab_next_step(labs[3])
    labs[3] = done(4)
    assert next_step(labs) == lab_next_step(labs[2]) != ""
    assert next_step([done(1), done(2), done(3)]) == (
        "Nothing left: every visible check passes, extra credit included; hidden tests run at grading."
    )


def test_failing_names_the_failed_cases_own_first_never_those_not_started():
    own = [case.name for case in visible_cases(3) if not case.extra_credit]
    extra = [case.name for case in visible_cases(3) if case.extra_credit]
    assert failing(checklist(3, "failed", extra="failed")) == (*own[1:], *extra)
    assert failing(checklist(3, "not started", extra="not started")) == ()


def test_the_next_step_speaks_the_workspace_language(monkeypatch):
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "zh")
    assert lab_next_step(checklist(3, "blocked")) == "下一步：实验 2，实验 3 会调用它。"
    monkeypatch.setenv("WORKBOOK_LANGUAGE", "vi")
    assert next_step([done(1)]).startswith("Không còn gì: ")


def test_the_status_cell_points_to_the_overview(monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(light, "display", lambda item: shown.append(item.data))
    light.show_status(3)
    assert "Where every lab stands: `workbook check` in a terminal (START.md)." in html.unescape(shown[0])
