"""A lab's visible checks, run on the code this process has loaded: one checklist and its one-line summary.

The visible checks are the lab's visible cases (``checking/visible.json``): the same ones the notebook's test cells
run (``check``) and the grader runs. A lab's checklist holds the checks of its own points; the extra-credit
cases of its "Going further" part (``Case.extra_credit``) are left to their own notebook cells. The
notebook's status light (``status.show_status``) shows a lab's checklist; ``workbook check`` runs
``main`` in a fresh interpreter on your package and prints each lab's ``summary``:

- ``lab 3: 5/5 visible checks pass; hidden tests run at grading``
- ``lab 4: 11/11 visible checks pass; hidden tests run at grading; extra credit: not started``
- ``lab 4: not started (create_compaction_entry raises LabNotImplementedError)``
- ``lab 3: blocked by lab 2 (Lab 2 (interaction grouping): group_interactions() is not done yet, and the
  course's code never makes this call on these inputs, ...); the grader runs lab 3 with a reference lab 2, so its
  points do not wait for yours``
- ``lab 3: 3/5 visible checks pass; window_30_keeps_one: called ..., got ..., expected ...``
- ``lab 3: 5/5 visible checks pass; hidden tests run at grading (lab 2 is not done yet: lab 3 is checked with
  the course's answers for lab 2's calls on these inputs)``
- ``lab 3: compaction_lab/budget.py does not compile: line 12: invalid syntax``

Extra-credit checks (``Case.extra_credit``) are listed and counted apart; only the lab's own checks
decide where it stands: a lab is done without its extra credit.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass

from ..checking.alone import run_on_its_own
from ..checking.case import Case, is_extra_credit, visible_cases
from ..checking.verdict import Verdict
from ..labs import LABS, Lab, lab
from ..messages import not_implemented_in, say
from .next_step import failing, next_step
from .saved import load_problem


@dataclass(frozen=True)
class Checklist:
    """Lab ``lab``'s visible ``cases`` and their ``verdicts`` (in order), or the ``problem`` that kept them
    from running (its module or its cases could not be loaded), in one sentence; ``answered``: the labs it uses
    that are not done yet, for which the course's answers stood in (``checking.answers``)."""

    lab: Lab
    cases: tuple[Case, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    problem: str = ""
    answered: tuple[int, ...] = ()

    @property
    def own(self) -> tuple[tuple[Case, Verdict], ...]:
        """The lab's own checks with their verdicts: every visible check but the extra-credit ones."""
        return tuple(
            (case, item)
            for case, item in zip(self.cases, self.verdicts, strict=True)
            if not is_extra_credit(case.grade_id)
        )

    @property
    def extra_credit(self) -> tuple[Verdict, ...]:
        """The verdicts of the extra-credit checks."""
        return tuple(
            item for case, item in zip(self.cases, self.verdicts, strict=True) if is_extra_credit(case.grade_id)
        )

    @property
    def passed(self) -> bool:
        """True when every visible check of the lab's own passed (extra credit apart)."""
        return not self.problem and bool(self.own) and all(item.passed for _, item in self.own)

    @property
    def waiting_for(self) -> int | None:
        """The lab every own check stopped at with ``LabNotImplementedError`` (this lab or one it calls), else None."""
        if not self.own or any(item.status != "not started" for _, item in self.own):
            return None
        found = not_implemented_in(self.own[0][1].message)
        return found[0] if found else self.lab.number

    def counts(self) -> str:
        """``"5/5 visible checks pass"``, and ``"; extra credit: 3/19 checks pass"`` when the lab has extra credit
        (``"; extra credit: not started"`` while every extra-credit function still raises
        ``LabNotImplementedError``)."""
        extra = self.extra_credit
        visible = say("visible_pass", passed=sum(item.passed for _, item in self.own), total=len(self.own))
        if not extra:
            return visible
        if all(item.status == "not started" for item in extra):
            return f"{visible}; {say('extra_not_started')}"
        return f"{visible}; {say('extra_pass', passed=sum(item.passed for item in extra), total=len(extra))}"

    @property
    def state(self) -> str:
        """``broken`` (a problem), ``not started``, ``blocked`` (by another lab not started), ``failed`` or
        ``passed``."""
        if self.problem:
            return "broken"
        if self.waiting_for is not None:
            return "not started" if self.waiting_for == self.lab.number else "blocked"
        return "passed" if self.passed else "failed"

    def graded_alone(self) -> str:
        """What a blocked lab's student should know: the grader does not wait for the other lab."""
        return say("graded_alone", lab=self.lab.number, other=self.waiting_for)

    def checked_on(self, own: bool = True) -> str:
        """What the checks ran on, in one sentence: the course's answers for the labs not done yet
        (``answered_one`` / ``answered_many``), then with ``own`` the student's own labs used; empty for a lab
        that uses none."""
        own_labs = [number for number in self.lab.uses if number not in self.answered]
        parts = [
            say(f"{kind}_{'one' if len(labs) == 1 else 'many'}", lab=self.lab.number, labs=", ".join(map(str, labs)))
            for kind, labs in (("answered", self.answered), ("own", own_labs if own else []))
            if labs
        ]
        return "; ".join(parts)

    def summary(self) -> str:
        """One line saying where the lab stands (see the module's docstring), ending with the labs the course
        answered for, if any (``checked_on``)."""
        answered = self.checked_on(own=False) if self.state in ("passed", "failed") else ""
        return self._standing() + (f" ({answered})" if answered else "")

    def _standing(self) -> str:
        head = f"lab {self.lab.number}: "
        state = self.state
        if state == "broken":
            return head + self.problem.splitlines()[0]
        if state == "not started":
            return head + say("not_started", function=self.lab.function)
        if state == "blocked":
            blocked = say("blocked_by", lab=self.waiting_for)
            return head + f"{blocked} ({self.own[0][1].message}); {self.graded_alone()}"
        own, extra = self.counts().partition("; ")[::2]
        if state == "passed":
            return head + f"{own}; {say('hidden_at_grading')}" + (f"; {extra}" if extra else "")
        case, failed = next((case, item) for case, item in self.own if not item.passed)
        return head + f"{own}; {case.name}: {failed.message}"


def run_checklist(number: int) -> Checklist:
    """Import lab ``number``'s module, run its visible cases here and return the checklist (never raises
    for the lab's code: an import that fails is the checklist's ``problem``)."""
    info = lab(number)
    try:
        importlib.import_module(f"compaction_lab.{info.module}")
    except Exception as error:  # your file's own error, reported as the problem
        return Checklist(info, problem=load_problem(error))
    try:
        cases = tuple(visible_cases(number))
    except Exception as error:  # a package whose provided cases are missing or changed
        return Checklist(info, problem=f"its visible checks could not be loaded: {type(error).__name__}: {error}")
    verdicts, answered = run_on_its_own(number, cases)
    return Checklist(info, cases, tuple(verdicts), answered=answered)


def main(argv: list[str]) -> int:
    """``workbook check``'s runner: ``argv`` is ``[REPORT, LAB...]`` (no LAB: every lab). Append JSON lines
    to the file REPORT: first ``{"plan": [LAB...]}``, then one ``{"lab", "summary", "passed", "failing"}`` per
    lab as soon as its checks are done (so a run stopped midway still reports the labs it finished;
    ``failing`` names its failed cases, ``next_step.failing``), and last ``{"next": sentence}``, the next
    thing to do across the labs checked (``next_step.next_step``)."""
    report, *chosen = argv
    plan = chosen or [str(item.number) for item in LABS]
    checklists = []
    with open(report, "a", encoding="utf-8") as out:
        out.write(json.dumps({"plan": plan}) + "\n")
        out.flush()
        for text in plan:
            if text not in {str(item.number) for item in LABS}:
                line = {"summary": say("no_such_lab", text=text, count=len(LABS)), "passed": False, "failing": []}
            else:
                checklists.append(run_checklist(int(text)))
                line = {
                    "summary": checklists[-1].summary(),
                    "passed": checklists[-1].passed,
                    "failing": list(failing(checklists[-1])),
                }
            out.write(json.dumps({"lab": text, **line}) + "\n")
            out.flush()
        out.write(json.dumps({"next": next_step(checklists) if checklists else ""}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
