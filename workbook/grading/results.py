"""The judge's results of each student's latest grading, kept as plain data in ``COURSE/grading/results/``.

``STUDENT.json`` holds ``labs`` (the judge's verdict per lab: every case's status, sentence and hint; each
cell's points), ``kernel`` (nbgrader's in-kernel score per grade cell, a cross-check), ``review`` (cells the two
scored differently), ``executed`` (the notebooks nbgrader ran) and ``notes`` (what intake and nbgrader repaired
or could not do). ``workbook.grading.scoring`` writes them; the tables, feedback, export and report read them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbook.course.intake import escaped
from workbook.course.layout import Course


def results_path(course: Course, student: str) -> Path:
    """``COURSE/grading/results/STUDENT.json``: the judge's results of ``student``'s latest grading."""
    return course.root / "grading" / "results" / f"{student}.json"


def save_results(course: Course, student: str, results: dict[str, Any]) -> dict[str, Any]:
    """Write ``results`` as ``student``'s results file; return them."""
    path = results_path(course, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


def read_results(course: Course, student: str) -> dict[str, Any] | None:
    """The saved results of ``student`` (None when not graded yet)."""
    path = results_path(course, student)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def review_cells(course: Course, student: str) -> list[str]:
    """The cells ``student``'s latest grading marked for review, e.g. ``lab3_trim_boundary (in-kernel 1, judge 0)``."""
    results = read_results(course, student)
    return results["review"] if results else []


def status_notes(course: Course, student: str) -> list[str]:
    """What a grade's reader must know about ``student``'s latest grading, one sentence each: labs whose
    judging hit a limit or a crash, what intake and nbgrader noted (a malformed timestamp, a copied, deleted or
    edited cell, a renamed or missing notebook, a notebook not executed: ``workbook.course.accidents``) and how many
    cells are marked for review; empty when nothing happened or the student is not graded yet."""
    results = read_results(course, student)
    if not results:
        return []
    notes = [f"lab {lab['lab']}: {lab['status']}" for lab in results["labs"] if lab["status"] != "graded"]
    review = len(results["review"])
    # A file name that is not UTF-8 would stop every table, CSV and page that shows the note: escaped.
    return [
        escaped(note)
        for note in notes
        + list(results.get("notes", []))
        + ([f"review {review} cell{'s' if review != 1 else ''}"] if review else [])
    ]
