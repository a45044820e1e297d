"""The course's answers (``provided/checking/answers.json``): recorded from the reference by the casefile tool, only
on the calls the visible cases and the explorers make, and never read by the grader."""

from __future__ import annotations

import json
import shutil

from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.answers import ANSWERS_FILE, lab_of
from compaction_lab.provided.labs import LABS
from workbook.grading import sandbox
from workbook.grading.course_answers import answers_text, functions_by_lab
from workbook.grading.judge import judge_lab
from workbook.paths import SOLUTIONS


def test_the_shipped_answers_are_a_fresh_recording_of_the_reference():
    assert ANSWERS_FILE.read_text(encoding="utf-8") == answers_text()


def test_only_calls_of_the_labs_another_lab_uses_are_recorded_each_with_an_answer():
    data = json.loads(ANSWERS_FILE.read_text(encoding="utf-8"))
    used = {number for item in LABS for number in item.uses}
    assert data["functions"] == functions_by_lab()
    assert {lab_of(json.loads(key)[0]) for key in data["calls"]} == used
    for key, call in data["calls"].items():
        function = json.loads(key)[0]
        assert function in data["functions"][str(lab_of(function))]
        assert call["answer"].keys() in ({"returned"}, {"raised"}), key
        assert all(lab_of(inner[0]) != lab_of(function) for inner in call["inside"]), key


def test_the_grader_never_reads_the_courses_answers(tmp_path):
    """Lab 3 among starters is graded the same with the course's answers as without them (the file garbled): the
    grader runs the reference labs 2 and 5, never the recorded answers."""
    from workbook.authoring.validate import load_tables

    book = load_tables().book
    scores = []
    for name, answers in (("kept", None), ("garbled", "not the course's answers")):
        package = tmp_path / name / "compaction_lab"
        shutil.copytree(STARTER_PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copyfile(SOLUTIONS / "budget.py", package / "budget.py")
        if answers is not None:
            (package / "provided" / "checking" / "answers.json").write_text(answers, encoding="utf-8")
        graded = judge_lab(package, 3, book, sandbox.detect("off"))
        assert all(result.passed for result in graded.cases), [r.key for r in graded.cases if not r.passed]
        scores.append(graded.scores)
    assert scores[0] == scores[1]
