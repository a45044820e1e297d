"""Issue 24: every lab checkable on its own. A correct lab with every other lab still the starter passes all its
visible checks in ``workbook check`` and in its notebook's status and test cells, the course's answers standing in
for the labs it uses (``checking.answers``), and a lab with a mistake of the validity bank fails the same checks
on the starters as on the solutions."""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from notebook_runs import execute
from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.labs import lab
from compaction_lab.provided.notebook.views import GREEN, RED
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


@pytest.mark.slow
@pytest.mark.parametrize("number", sorted(OWN_LINES))
def test_a_correct_lab_among_starters_is_green_in_its_notebook(number, tmp_path):
    """The notebook run top to bottom (nbclient) on the starters with the reference lab ``number``: its status box
    is green and says which labs the course answered for, every test cell with visible checks passes, and its
    explorer draws at the settings it opens with."""
    info = lab(number)
    package = workspace(
        tmp_path / "package", STARTER_PACKAGE, info.module, (SOLUTIONS / f"{info.module}.py").read_text("utf-8")
    )
    notebook = execute(info, package / "compaction_lab", tmp_path)
    status = next(cell for cell in notebook.cells if cell.get("id") == f"lab{number}-status")
    [shown] = [output["data"]["text/html"] for output in status.outputs]
    assert shown.count(GREEN) >= 1 and RED not in shown, shown
    assert OWN_LINES[number].rpartition(" (")[2].rstrip(")") in html.unescape(shown)
    visible = {case.grade_id for case in visible_cases(number)}
    graded = [
        cell for cell in notebook.cells if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") in visible
    ]
    assert len(graded) >= 3
    for cell in graded:
        printed = "".join(output.get("text", "") for output in cell.outputs)
        assert [output.output_type for output in cell.outputs if output.output_type == "error"] == [], cell.id
        assert "✓" in printed and "✗" not in printed and "not done yet" in printed, (cell.id, printed)
    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    drawn = json.dumps([model["state"].get("outputs", []) for model in state.values()])
    assert drawn.count("<table") >= 1 and "not implemented" not in drawn and "not done yet" not in drawn, drawn


def test_without_the_courses_answers_a_lab_is_checked_as_it_is(tmp_path, capsys):
    """A package whose ``answers.json`` is missing checks every lab on the student's code alone, as before."""
    folder = workspace(tmp_path, STARTER_PACKAGE, "budget", (SOLUTIONS / "budget.py").read_text(encoding="utf-8"))
    (folder / "compaction_lab" / "provided" / "checking" / "answers.json").unlink()
    assert main(["check", "3", "--workspace", str(folder)]) == 1
    assert capsys.readouterr().out.startswith("lab 3: blocked by lab 2 (Lab 2 (interaction grouping): ")
