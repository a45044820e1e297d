"""``workbook report``: what the class got wrong, from the judge's results and the gradebook.

For each lab: the distribution of its autograded points (a histogram) and the mean. For each case: its pass
rate and its discrimination, the point-biserial correlation between passing it and the student's total
autograded points (how strongly passing goes with doing well overall; undefined when everyone or nobody
passes). A case nearly everyone fails (pass rate <= ``EXTREME``) or passes (>= 1 - ``EXTREME``) is flagged,
as is one that discriminates weakly (< ``WEAK``). Also: the hidden cases failed most, with their hints; the
students marked for review by the cross-check; the late submissions; the pairs of students whose code or
answers match (``workbook.similarity``), each linked to a side-by-side page under ``similarity/``.

Written to ``COURSE/report/``: ``index.html`` (tables, and the plots as PNG images made with matplotlib) and
``cases.csv`` (student x case, 1 passed / 0 not, for spreadsheet users).
"""

from __future__ import annotations

import csv
import html
import math
from dataclasses import dataclass
from pathlib import Path

from workbook.course.layout import ASSIGNMENT, Course, require_released
from workbook.grading.results import read_results
from workbook.manifest import LABS
from workbook.page_policy import policy_meta

EXTREME = 0.05
WEAK = 0.2
MOST_FAILED = 5


@dataclass(frozen=True)
class CaseStats:
    """One case over the class: ``pass_rate`` (0 to 1), ``discrimination`` (point-biserial r, None when
    undefined), whether hidden, its hint, and the flags it raises."""

    key: str
    hidden: bool
    hint: str
    pass_rate: float
    discrimination: float | None

    @property
    def flags(self) -> list[str]:
        """``nearly everyone fails``, ``nearly everyone passes``, ``weak discrimination``."""
        found = []
        if self.pass_rate <= EXTREME:
            found.append("nearly everyone fails")
        if self.pass_rate >= 1 - EXTREME:
            found.append("nearly everyone passes")
        if self.discrimination is not None and self.discrimination < WEAK:
            found.append("weak discrimination")
        return found


def point_biserial(passed: list[int], totals: list[float]) -> float | None:
    """r_pb = (M1 - M0) / s * sqrt(p * q): M1, M0 the mean totals of those who passed and failed, s the
    population standard deviation of the totals, p the pass rate; None when p is 0 or 1 or s is 0."""
    n = len(totals)
    ones = [total for flag, total in zip(passed, totals, strict=True) if flag]
    zeros = [total for flag, total in zip(passed, totals, strict=True) if not flag]
    mean = sum(totals) / n
    spread = math.sqrt(sum((total - mean) ** 2 for total in totals) / n)
    if not ones or not zeros or spread == 0:
        return None
    p = len(ones) / n
    return (sum(ones) / len(ones) - sum(zeros) / len(zeros)) / spread * math.sqrt(p * (1 - p))


@dataclass(frozen=True)
class Cohort:
    """The class as judged: ``matrix[student][case key]`` is 1 or 0, ``lab_points[student][lab]`` the judge's
    points, and per case its hidden flag and hint; ``review`` and ``late`` list students."""

    students: list[str]
    matrix: dict[str, dict[str, int]]
    lab_points: dict[str, dict[int, float]]
    cases: dict[str, tuple[bool, str]]
    review: dict[str, list[str]]
    late: list[str]

    def totals(self) -> list[float]:
        """Each student's total autograded points, in ``students`` order."""
        return [sum(self.lab_points[student].values()) for student in self.students]

    def case_stats(self) -> list[CaseStats]:
        """Every case's pass rate and discrimination, in case order."""
        totals = self.totals()
        stats = []
        for key, (hidden, hint) in self.cases.items():
            passed = [self.matrix[student].get(key, 0) for student in self.students]
            stats.append(CaseStats(key, hidden, hint, sum(passed) / len(passed), point_biserial(passed, totals)))
        return stats


def cohort(course: Course) -> Cohort:
    """Read the judge's results of every graded student and the gradebook's late flags."""
    students: list[str] = []
    matrix: dict[str, dict[str, int]] = {}
    lab_points: dict[str, dict[int, float]] = {}
    cases: dict[str, tuple[bool, str]] = {}
    review: dict[str, list[str]] = {}
    for path in sorted((course.root / "grading" / "results").glob("*.json")):
        results = read_results(course, path.stem)
        if results is None:  # removed since the listing
            continue
        students.append(path.stem)
        matrix[path.stem] = {
            case["key"]: int(case["status"] == "passed") for lab in results["labs"] for case in lab["cases"]
        }
        lab_points[path.stem] = {lab["lab"]: sum(lab["scores"].values()) for lab in results["labs"]}
        for lab in results["labs"]:
            for case in lab["cases"]:
                cases.setdefault(case["key"], (case["hidden"], case["hint"]))
        if results["review"]:
            review[path.stem] = results["review"]
    with course.gradebook() as gradebook:
        late = sorted(
            submission.student.id
            for submission in gradebook.find_assignment(ASSIGNMENT).submissions
            if submission.total_seconds_late > 0
        )
    return Cohort(students, matrix, lab_points, cases, review, late)


def plot_labs(data: Cohort, path: Path) -> Path:
    """A PNG of one histogram per lab (points on x, students on y), with each lab's mean."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(LABS), figsize=(3 * len(LABS), 2.8), sharey=True)
    for axis, lab in zip(axes, LABS, strict=True):
        points = [data.lab_points[student].get(lab.number, 0) for student in data.students]
        axis.hist(points, bins=range(0, 10), color="#4c72b0", edgecolor="white", align="left")
        axis.set_title(f"lab {lab.number}: mean {sum(points) / len(points):.1f}")
        axis.set_xlabel("points")
    axes[0].set_ylabel("students")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def write_report(course: Course) -> Path:
    """Write ``COURSE/report/index.html``, its plot and ``cases.csv``; return the page's path.

    Raises ``CourseError`` (via ``require_released``) for a course without the assignment, and ``ValueError``
    when no student has been graded yet.
    """
    require_released(course)
    data = cohort(course)
    if not data.students:
        raise ValueError(f"no graded student in {course.root}; run `workbook autograde` first")
    folder = course.root / "report"
    folder.mkdir(exist_ok=True)
    plot_labs(data, folder / "labs.png")
    stats = data.case_stats()
    with (folder / "cases.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *data.cases])
        for student in data.students:
            writer.writerow([student, *(data.matrix[student].get(key, 0) for key in data.cases)])
    from workbook.similarity.findings import find_similar
    from workbook.similarity.pages import write_section

    similarity = write_section(find_similar(course), folder)
    page = folder / "index.html"
    page.write_text(render(data, stats, similarity), encoding="utf-8")
    return page


def render(data: Cohort, stats: list[CaseStats], similarity: str = "") -> str:
    """The report page's HTML (every value escaped; the project's Content-Security-Policy first in its head);
    ``similarity`` is the similarity section's (``workbook.similarity.pages``)."""

    def table(headers: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{html.escape(item)}</th>" for item in headers)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
        return f"<table><tr>{head}</tr>{body}</table>"

    failed = sorted((item for item in stats if item.hidden and item.pass_rate < 1), key=lambda item: item.pass_rate)
    case_rows = [
        [
            item.key,
            "hidden" if item.hidden else "visible",
            f"{item.pass_rate:.0%}",
            "-" if item.discrimination is None else f"{item.discrimination:.2f}",
            ", ".join(item.flags),
        ]
        for item in stats
    ]
    parts = [
        f"<h1>Cohort report: {ASSIGNMENT}</h1><p>{len(data.students)} students graded by the judge.</p>",
        '<h2>Points per lab</h2><img src="labs.png" alt="histogram of autograded points per lab">',
        "<h2>Hidden cases failed most</h2>"
        + table(
            ["case", "pass rate", "hint"],
            [[item.key, f"{item.pass_rate:.0%}", item.hint] for item in failed[:MOST_FAILED]],
        ),
        "<h2>Students marked for review</h2>"
        + table(
            ["student", "cells (in-kernel vs judge)"],
            [[student, "; ".join(cells)] for student, cells in data.review.items()],
        ),
        "<h2>Late submissions</h2><p>" + (html.escape(", ".join(data.late)) or "none") + "</p>",
        "<h2>Every case</h2><p>Discrimination: the point-biserial correlation of passing the case with the total "
        f"autograded points. Flagged: pass rate at most {EXTREME:.0%} or at least {1 - EXTREME:.0%}, "
        f"discrimination under {WEAK}.</p>"
        + table(["case", "kind", "pass rate", "discrimination", "flags"], case_rows),
        '<p>Student x case: <a href="cases.csv">cases.csv</a></p>',
        similarity,
    ]
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}img{max-width:100%}"
    )
    return (
        f"<!doctype html><html><head>{policy_meta()}<meta charset='utf-8'><title>Cohort report</title>"
        f"<style>{style}</style>"
        f"</head><body>{''.join(parts)}</body></html>\n"
    )
