"""Issue 24: every lab checkable on its own. A correct lab with every other lab still the starter passes all its
visible checks in ``workbook check``, the course's answers standing in for the labs it uses (``checking.answers``),
and a lab with a mistake of the validity bank fails the same checks on the starters as on the solutions. The
grader never reads the course's answers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.labs import lab
from workbook.authoring.bank import Correct, bank, module_text
from workbook.cli.main import main
from workbook.paths import SOLUTIONS

OWN_LINES = {
    3: "lab 3: 5/5 visible checks pass; hidden tests run at grading; extra credit: 11/11 checks pass (labs 2, 5 are "
    "not done yet: lab 3 is checked with the course's answers for their calls on these inputs)",
    4: "lab 4: 11/11 visible checks pass; hidden tests run at grading; extra credit: 19/19 checks pass (labs 1, 2, "
    "3, 5 are not done yet: lab 4 is checked with the course's answers for their calls on these inputs)",
    5: "lab 5: 7/7 visible checks pass; hidden tests run at grading (labs 2, 3 are not done yet: lab 5 is checked "
    "with the course's answers for their calls on these inputs)",
}
"""What ``workbook check N`` says of the reference lab N among starters."""

OUTCOMES = """\
import json, sys
from compaction_lab.provided.messages import MESSAGES
from compaction_lab.provided.notebook.checklist import run_checklist
checklist = run_checklist(int(sys.argv[1]))
unrecorded = MESSAGES["unrecorded_call"]["en"].split("{function}()")[1].split(";")[0]
print(json.dumps({
    case.key: "unrecorded" if unrecorded in verdict.message else "passed" if verdict.passed else "failed"
    for case, verdict in zip(checklist.cases, checklist.verdicts)
}))
"""
"""A runner printing how each visible check of lab ``argv[1]`` ends, run in a workspace: ``passed``, ``failed``, or
``unrecorded`` (stopped at a lab not done yet, called on an input the course's code never passes it)."""


def workspace(folder: Path, package: Path, module: str, text: str) -> Path:
    """``folder`` holding a copy of ``package`` as ``compaction_lab/`` with ``module``'s file holding ``text``."""
    shutil.copytree(package, folder / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "compaction_lab" / f"{module}.py").write_text(text, encoding="utf-8")
    return folder


def outcomes(folder: Path, number: int) -> dict[str, str]:
    """How each visible check of lab ``number`` ends in ``folder``'s package (``OUTCOMES``)."""
    done = subprocess.run(
        [sys.executable, "-c", OUTCOMES, str(number)], cwd=folder, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize("number", sorted(OWN_LINES))
def test_a_correct_lab_among_starters_passes_all_its_visible_checks(number, tmp_path, capsys):
    module = lab(number).module
    folder = workspace(tmp_path, STARTER_PACKAGE, module, (SOLUTIONS / f"{module}.py").read_text(encoding="utf-8"))
    assert main(["check", str(number), "--workspace", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines() == [OWN_LINES[number]]
    assert set(outcomes(folder, number).values()) == {"passed"}
    assert len(visible_cases(number)) > 0


def bank_params() -> list:
    """The bank's entries of labs 3, 4 and 5; the first mistake of each lab runs quickly, the others are slow."""
    params, seen = [], set()
    for entry in bank((3, 4, 5)):
        quick = entry.lab not in seen
        seen.add(entry.lab)
        params.append(pytest.param(entry, id=f"lab{entry.lab}-{entry.name}", marks=() if quick else pytest.mark.slow))
    return params


@pytest.mark.parametrize("entry", bank_params())
def test_a_bank_entry_fails_the_same_checks_among_starters_as_among_solutions(entry, tmp_path):
    """Every check ends as among the solutions, but one whose lab calls a lab not done yet on an input the course's
    code never passes it (the mistake changed that input): it names the lab to finish, and never passes."""
    module = lab(entry.lab).module
    text = module_text(entry)
    with_solutions = outcomes(workspace(tmp_path / "solutions", SOLUTIONS, module, text), entry.lab)
    with_starters = outcomes(workspace(tmp_path / "starters", STARTER_PACKAGE, module, text), entry.lab)
    assert with_starters.keys() == with_solutions.keys()
    assert {key: ending for key, ending in with_starters.items() if ending != "unrecorded"} == {
        key: with_solutions[key] for key, ending in with_starters.items() if ending != "unrecorded"
    }
    if isinstance(entry, Correct):
        assert set(with_starters.values()) == {"passed"}
