"""``workbook export``: nbgrader's grade fields plus one column per lab, written by the csv module."""

from __future__ import annotations

import csv

from nbgrader.api import Gradebook

from workbook.export import LabCsvExportPlugin

NOTEBOOKS = ["01_record_parsing", "02_interaction_grouping"]


def make_gradebook(path):
    gradebook = Gradebook(f"sqlite:///{path}")
    gradebook.add_assignment("compaction_labs")
    for notebook in NOTEBOOKS:
        gradebook.add_notebook(notebook, "compaction_labs")
        gradebook.add_grade_cell(f"{notebook}_test", notebook, "compaction_labs", max_score=4, cell_type="code")
    gradebook.add_student("ada", first_name="Ada", last_name='Lovelace, Countess "of" Lovelace',
                          email="ada@example.org")
    gradebook.add_student("bob", first_name="Bob", last_name="Absent")
    gradebook.add_submission("compaction_labs", "ada")
    for notebook, score in zip(NOTEBOOKS, (4, 1.5), strict=True):
        gradebook.find_grade(f"{notebook}_test", notebook, "compaction_labs", "ada").auto_score = score
    gradebook.db.commit()
    return gradebook


def test_a_name_with_a_comma_stays_one_field_and_each_lab_has_a_column(tmp_path):
    dest = tmp_path / "grades.csv"
    with make_gradebook(tmp_path / "gradebook.db") as gradebook:
        LabCsvExportPlugin(to=str(dest)).export(gradebook)
    rows = list(csv.DictReader(dest.open(newline="")))
    assert list(rows[0]) == ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
                             "raw_score", "late_submission_penalty", "score", "max_score", *NOTEBOOKS]
    ada, bob = sorted(rows, key=lambda row: row["student_id"])
    assert ada["last_name"] == 'Lovelace, Countess "of" Lovelace'
    assert (ada["first_name"], ada["email"]) == ("Ada", "ada@example.org")
    assert (ada["01_record_parsing"], ada["02_interaction_grouping"]) == ("4.0", "1.5")
    assert (ada["raw_score"], ada["score"], ada["max_score"]) == ("5.5", "5.5", "8.0")
    assert (bob["timestamp"], bob["score"], bob["01_record_parsing"]) == ("", "0.0", "0.0")
    assert len(dest.read_text().splitlines()) == 3


def test_export_honours_the_student_filter(tmp_path):
    dest = tmp_path / "grades.csv"
    with make_gradebook(tmp_path / "gradebook.db") as gradebook:
        LabCsvExportPlugin(to=str(dest), student=["bob"]).export(gradebook)
    assert [row["student_id"] for row in csv.DictReader(dest.open(newline=""))] == ["bob"]
