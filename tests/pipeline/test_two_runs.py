"""Two grading runs on one machine (issue 21, item 7): two ``workbook autograde`` runs on two courses at the same
time, both sandboxed, grade both right, each with sandbox uids of its own (each grading process takes its own:
the uid each student's sandboxes ran as is in its results)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from workbook.authoring.samples import blank, complete
from workbook.course.submit import submit
from workbook.grading.results import read_results
from workbook.paths import script
from workbook.pipeline.build import build
from workbook.pipeline.grades import read_grades
from workbook.pipeline.release import release


def users_of(course, students: list[str]) -> set[int]:
    """The uids the sandboxes of ``students`` ran as (``Isolation.describe`` in their results: ``user 61000``)."""
    uids = set()
    for student in students:
        found = re.search(r"user (\d+), no network", read_results(course, student)["isolation"])
        assert found, read_results(course, student)["isolation"]
        uids.add(int(found[1]))
    return uids


@pytest.mark.slow
def test_two_autograde_runs_at_once_grade_both_courses_right_with_their_own_uids(isolation, tmp_path):
    if not isolation.as_root:
        pytest.skip("not root: every run's sandboxes are the grader's own uid in user namespaces of their own")
    courses = []
    for name in ("course-a", "course-b"):
        course = build(tmp_path / name)
        release(course)
        submit(course, "complete", complete(tmp_path / f"{name}-complete"))
        submit(course, "blank", blank(tmp_path / f"{name}-blank"))
        courses.append(course)
    environment = {**os.environ, "COLUMNS": "1000"}  # the summary's first line unwrapped
    runs = [
        subprocess.Popen(
            [script("workbook"), "autograde", "--course", str(course.root), "--jobs", "2", "--isolation", "required"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment,
        )
        for course in courses
    ]
    printed = [run.communicate(timeout=1200)[0] for run in runs]
    for run, text in zip(runs, printed, strict=True):
        assert run.returncode == 0, text
    first_lines = [next(line for line in text.splitlines() if line.startswith("sandbox: ")) for text in printed]
    assert all("one user per grading process" in line for line in first_lines), first_lines
    uids = [users_of(course, ["complete", "blank"]) for course in courses]
    assert all(1 <= len(run_uids) <= 2 for run_uids in uids), uids
    assert not uids[0] & uids[1], f"the runs shared sandbox users: {uids}"
    for course in courses:
        with course.gradebook() as gradebook:
            grades = {grade.student: grade for grade in read_grades(gradebook, ["complete", "blank"])}
        assert [lab.auto_score for lab in grades["complete"].labs] == [lab.auto_max for lab in grades["complete"].labs]
        assert all(lab.auto_max > 0 for lab in grades["complete"].labs)
        assert [lab.auto_score for lab in grades["blank"].labs] == [0] * len(grades["blank"].labs)
        assert Path(course.root, "logs", "autograde", "complete.log").is_file()
