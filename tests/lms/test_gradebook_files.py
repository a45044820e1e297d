"""``workbook export --format canvas|moodle --roster FILE``: the files Canvas's and Moodle's gradebook imports read,
checked column by column, with names holding commas, quotes and letters outside ASCII, and a student the roster
lacks named."""

from __future__ import annotations

import csv

import pytest
from graded_lms_course import graded_course

from workbook.cli.main import main

CANVAS_ROSTER = [
    ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1: record parsing (4711)", "Quiz 1 (4712)"],
    ["    Points Possible", "", "", "", "", "10", "5"],
    ["Lovelace, Ada", "101", "ada", "ada.lovelace", "Section A", "", "4"],
    ['Ørsted, Bøb "the late"', "102", "bob", "bob.orsted", "Section B", "", "5"],
    ["Dee, Teacher", "103", "dee", "dee", "Section A", "", ""],
]
"""Canvas's gradebook export (with the byte order mark Canvas writes): lab 1 exists in Canvas as assignment 4711."""
MOODLE_ROSTER = [
    ["First name", "Surname", "ID number", "Institution", "Department", "Email address"],
    ["Ada", "Lovelace, Countess", "ada", "", "", "ada@example.org"],
    ["Bøb", "Ørsted-Ñúñez", "bob", "", "", "bob@example.org"],
]
"""Moodle's grade export, in a version that says Surname."""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return graded_course(tmp_path_factory.mktemp("files"))


def write_csv(path, rows, encoding="utf-8"):
    with path.open("w", newline="", encoding=encoding) as handle:
        csv.writer(handle).writerows(rows)
    return path


def export(course, capsys, *options):
    code = main(["export", "--course", str(course.root), *options])
    return code, " ".join(capsys.readouterr().out.split())


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")


def test_the_canvas_file_has_canvass_columns_its_points_possible_row_and_each_labs_scores(course, tmp_path, capsys):
    roster = write_csv(tmp_path / "canvas.csv", CANVAS_ROSTER, encoding="utf-8-sig")
    dest = tmp_path / "to-canvas.csv"
    code, out = export(course, capsys, "--format", "canvas", "--roster", str(roster), "--to", str(dest))
    assert code == 1, "cy is not in the roster"
    assert f"wrote {dest} (2 students)" in out
    assert "not in the roster, not written: cy (no roster row with SIS User ID 'cy')" in out
    rows = list(csv.reader(dest.open(newline="", encoding="utf-8")))
    assert rows[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Lab 1: record parsing (4711)",  # Canvas's own column: the scores go to assignment 4711
        "Lab 2: interaction grouping",  # a new assignment on import
    ]
    assert rows[1] == ["    Points Possible", "", "", "", "", "10", "8"]
    assert rows[2] == ["Lovelace, Ada", "101", "ada", "ada.lovelace", "Section A", "8", "6"]
    assert rows[3] == ['Ørsted, Bøb "the late"', "102", "bob", "bob.orsted", "Section B", "4", "2"]  # late: halved
    assert len(rows) == 4, "dee has no submission, cy no roster row"
    assert dest.read_bytes().startswith(b"Student,"), "UTF-8 without a byte order mark"
    assert "1 hand-graded answer (2 points) not graded yet (students: ada); the file counts them as 0" in out


def test_the_moodle_file_has_an_identifier_column_and_one_column_per_lab(course, tmp_path, capsys):
    roster = write_csv(tmp_path / "moodle.csv", MOODLE_ROSTER)
    code, out = export(course, capsys, "--format", "moodle", "--roster", str(roster))
    dest = course.root / "grades-moodle.csv"
    assert code == 1 and "not in the roster, not written: cy (no roster row with ID number 'cy')" in out
    rows = list(csv.reader(dest.open(newline="", encoding="utf-8")))
    labs = ["Lab 1: record parsing", "Lab 2: interaction grouping"]
    assert rows == [
        ["First name", "Last name", "ID number", "Email address", *labs],
        ["Ada", "Lovelace, Countess", "ada", "ada@example.org", "8", "6"],
        ["Bøb", "Ørsted-Ñúñez", "bob", "bob@example.org", "4", "2"],
    ]


def test_a_roster_without_the_id_column_or_no_roster_is_named_and_nothing_is_written(course, tmp_path, capsys):
    roster = write_csv(tmp_path / "other.csv", [["Name", "Login"], ["Ada", "ada"]])
    dest = tmp_path / "never.csv"
    code, out = export(course, capsys, "--format", "canvas", "--roster", str(roster), "--to", str(dest))
    assert code == 1 and f"--roster {roster}: no column 'SIS User ID' (its columns: Name, Login)" in out
    code, out = export(course, capsys, "--format", "moodle", "--to", str(dest))
    assert code == 1 and "--format moodle needs --roster FILE" in out
    assert not dest.exists()
    code, out = export(course, capsys, "--format", "canvas", "--roster", str(roster), "--roster-id", "Login")
    assert code == 1 and "not in the roster, not written: bob (no roster row with Login 'bob')" in out
