"""``workbook export``: nbgrader's grade fields plus one column per lab, written by the csv module."""

from __future__ import annotations

import csv
import warnings

import pytest
from nbgrader.api import Gradebook
from sqlalchemy.exc import SAWarning

from workbook.cli.main import main
from workbook.pipeline.build import build
from workbook.pipeline.export import LabCsvExportPlugin
from workbook.third_party_warnings import ignore_nbgrader_add_submission_warning

NOTEBOOKS = ["01_record_parsing", "02_interaction_grouping"]


def make_gradebook(path):
    gradebook = Gradebook(f"sqlite:///{path}")
    gradebook.add_assignment("compaction_labs")
    for notebook in NOTEBOOKS:
        gradebook.add_notebook(notebook, "compaction_labs")
        gradebook.add_grade_cell(f"{notebook}_test", notebook, "compaction_labs", max_score=4, cell_type="code")
    gradebook.add_grade_cell("lab2_extra", NOTEBOOKS[1], "compaction_labs", max_score=0, cell_type="code")
    gradebook.add_student(
        "ada", first_name="Ada", last_name='Lovelace, Countess "of" Lovelace', email="ada@example.org"
    )
    gradebook.add_student("bob", first_name="Bob", last_name="Absent")
    gradebook.add_submission("compaction_labs", "ada")
    for notebook, score in zip(NOTEBOOKS, (4, 1.5), strict=True):
        gradebook.find_grade(f"{notebook}_test", notebook, "compaction_labs", "ada").auto_score = score
    extra = gradebook.find_grade("lab2_extra", NOTEBOOKS[1], "compaction_labs", "ada")
    extra.auto_score, extra.extra_credit = 0.0, 2.0  # as the judge writes an extra-credit cell's points
    gradebook.db.commit()
    return gradebook


def test_a_name_with_a_comma_stays_one_field_and_each_lab_has_a_column(tmp_path):
    dest = tmp_path / "grades.csv"
    with make_gradebook(tmp_path / "gradebook.db") as gradebook:
        LabCsvExportPlugin(to=str(dest)).export(gradebook)
    rows = list(csv.DictReader(dest.open(newline="")))
    assert list(rows[0]) == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
        "last_name",
        "first_name",
        "email",
        "raw_score",
        "late_submission_penalty",
        "score",
        "max_score",
        "extra_credit",
        *NOTEBOOKS,
        *[f"{notebook} extra credit" for notebook in NOTEBOOKS],
        "ungraded_answers",
        "grading_notes",
    ]
    assert [row["student_id"] for row in rows] == ["ada", "bob"]  # by id; nbgrader lists bob (Absent) first
    ada, bob = rows
    assert ada["last_name"] == 'Lovelace, Countess "of" Lovelace'
    assert (ada["first_name"], ada["email"]) == ("Ada", "ada@example.org")
    assert (ada["01_record_parsing"], ada["02_interaction_grouping"]) == ("4.0", "1.5")
    assert (ada["raw_score"], ada["score"], ada["max_score"]) == ("5.5", "5.5", "8.0")  # extra credit apart
    assert (
        ada["extra_credit"],
        ada["01_record_parsing extra credit"],
        ada["02_interaction_grouping extra credit"],
    ) == ("2.0", "0.0", "2.0")
    assert (bob["timestamp"], bob["score"], bob["01_record_parsing"]) == ("", "0.0", "0.0")
    assert (ada["ungraded_answers"], ada["grading_notes"]) == ("0", "")
    assert len(dest.read_text().splitlines()) == 3


def test_export_honours_the_student_filter(tmp_path):
    dest = tmp_path / "grades.csv"
    with make_gradebook(tmp_path / "gradebook.db") as gradebook:
        LabCsvExportPlugin(to=str(dest), student=["bob"]).export(gradebook)
    assert [row["student_id"] for row in csv.DictReader(dest.open(newline=""))] == ["bob"]


def test_export_notes_hand_graded_answers_not_graded_yet(tmp_path, capsys):
    course = build(tmp_path / "course")
    with course.gradebook() as gradebook:
        gradebook.add_assignment("compaction_labs")
        gradebook.add_notebook("01_record_parsing", "compaction_labs")
        gradebook.add_grade_cell(
            "lab1_written", "01_record_parsing", "compaction_labs", max_score=2, cell_type="markdown"
        )
        gradebook.add_solution_cell("lab1_written", "01_record_parsing", "compaction_labs")
        gradebook.add_student("ada")
        gradebook.add_submission("compaction_labs", "ada")  # the answer's grade needs_manual_grade by default
    assert main(["export", "--course", str(course.root)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert f"wrote {course.root / 'grades.csv'}" in printed
    assert (
        "note: 1 hand-graded answer (2 points) not graded yet (students: ada); the CSV counts them as 0 "
        "(column ungraded_answers). Grade them in nbgrader's formgrader"
    ) in printed
    rows = list(csv.DictReader((course.root / "grades.csv").open(newline="")))
    assert [(row["student_id"], row["ungraded_answers"]) for row in rows] == [("ada", "1")]
    with course.gradebook() as gradebook:
        grade = gradebook.find_grade("lab1_written", "01_record_parsing", "compaction_labs", "ada")
        grade.manual_score, grade.needs_manual_grade = 2.0, False
        gradebook.db.commit()
    assert main(["export", "--course", str(course.root)]) == 0
    assert "note:" not in capsys.readouterr().out


def test_only_nbgraders_add_submission_warning_is_silenced(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_gradebook(tmp_path / "noisy.db").close()
        assert {type(warning.message) for warning in caught} == {SAWarning}, "nbgrader 0.9.6 warns in add_submission"
        caught.clear()
        ignore_nbgrader_add_submission_warning()
        make_gradebook(tmp_path / "quiet.db").close()
        assert caught == []
        with pytest.warns(SAWarning, match="something else"):
            warnings.warn_explicit("something else", SAWarning, "api.py", 1, module="nbgrader.api")
