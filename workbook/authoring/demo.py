"""``workbook demo``: the whole instructor pipeline on the four bundled sample submissions.

In a temporary course (or ``--keep DIR``), each step announced and its progress shown as it runs:
build, release, submit the samples of
``workbook.authoring.samples`` (complete, blank, partial, buggy) as four students, autograde them with
two jobs, generate feedback, export the CSV, write the cohort report, and print the grade table. Expected: complete gets
every autograded point (40 of 50) and lab 4's extra credit, shown apart ("40/50 +14"), and its five written
answers (10 points) await a grader; blank
gets 0 (its answers are left as released, which autograde grades 0); partial and buggy are in between.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from workbook.authoring.samples import ANSWERED_LABS, SAMPLES
from workbook.course.submit import submit
from workbook.errors import CourseError
from workbook.pipeline.autograde import grade_with_progress
from workbook.pipeline.build import build
from workbook.pipeline.export import export
from workbook.pipeline.feedback import feedback
from workbook.pipeline.grades import StudentGrades, read_grades
from workbook.pipeline.release import release
from workbook.pipeline.report import write_report

DEMO_JOBS = 2


SECTION_WIDTH = 100
"""Columns a section's header line takes at most: a wide terminal's console is wider."""


def section(console: Console, title: str) -> None:
    """A section's header line: the console's width, but no wider than ``SECTION_WIDTH``."""
    console.print(Rule(title), width=min(console.width, SECTION_WIDTH))


def demo(course_dir: Path, console: Console, timeout: int = 20) -> list[StudentGrades]:
    """Run the pipeline in ``course_dir`` (new or empty) on the samples; return the grades in ``SAMPLES`` order.

    Raises ``CourseError`` if ``course_dir`` is not empty or a step fails (the message names the step).
    """
    if course_dir.exists() and any(course_dir.iterdir()):
        raise CourseError(f"{course_dir} is not empty; the demo needs a new folder")
    section(console, "build")
    with console.status("building the course: config, source/ and the gradebook (nbgrader creates its tables)"):
        course = build(course_dir)
    # paths relative to the course: a temporary course is gone once the demo ends
    console.print("built the course: nbgrader_config.py, source/, gradebook.db")
    section(console, "release")
    with console.status("releasing: nbgrader's generate_assignment, then the check for hidden tests and solutions"):
        files = release(course)
    console.print(
        f"{len(files)} files released to {course.release.relative_to(course.root)}/, "
        "checked for hidden tests and solutions"
    )
    section(console, "submissions")
    with tempfile.TemporaryDirectory(prefix="workbook-samples-") as samples:
        for student, make in SAMPLES.items():
            answered = ANSWERED_LABS[student]
            folder = submit(course, student, make(Path(samples) / student), answered_labs=answered)
            answers = f"written answers of labs {', '.join(map(str, answered))}" if answered else "no written answers"
            sample = (make.__doc__ or student).strip().rstrip(".")
            console.print(f"{student}: {sample}; {answers} -> {folder.relative_to(course.root)}")
    section(console, f"autograde (--jobs {DEMO_JOBS})")
    outcomes = grade_with_progress(course, list(SAMPLES), DEMO_JOBS, timeout, console)
    failed = [outcome.student for outcome in outcomes if not outcome.graded]
    if failed:
        raise CourseError(f"autograde failed for {', '.join(failed)}; see {course.root / 'logs' / 'autograde'}")
    section(console, "feedback and export")
    with console.status("feedback: nbgrader's generate_feedback, student by student"):
        report = feedback(course)
    if report.withheld:
        raise CourseError(f"feedback withheld for {', '.join(report.withheld)}")
    console.print(
        f"feedback: {sum(map(len, report.pages.values()))} HTML pages under feedback/, "
        "each test cell showing the judge's results"
    )
    console.print(f"grades: {export(course).relative_to(course.root)}")
    console.print(f"cohort report: {write_report(course).relative_to(course.root)}")
    with course.gradebook() as gradebook:
        return read_grades(gradebook, list(SAMPLES))
