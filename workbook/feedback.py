"""``workbook feedback``: nbgrader's HTML feedback, with hidden tests kept hidden.

nbgrader renders the autograded notebook, where grade cells carry their full source again,
hidden tests included, and a failing hidden assert shows its code in the traceback.
``HideHiddenTests`` (in ``GenerateFeedback.preprocessors``, see ``workbook.course``) fixes that
for every cell holding a hidden-test region:

- the region is removed from the shown source (nbgrader's ``ClearHiddenTests``);
- in an error's traceback, a frame of this cell's code becomes ``Cell GRADE_ID, line N: hidden
  test (code not shown)``, or the one visible line when the error is in the visible part;
  frames in files (the student's own module) stay as they are;
- when a hidden line called into the error and the error was not raised by the student's own
  lab module (a failed assert, or a failure reported by a test helper such as ``checks.expect``),
  its message is replaced by ``hidden test failed in GRADE_ID``: such a message describes the
  hidden test (what it called, what it expected). The student's own exceptions keep theirs;
- other outputs of the cell (prints, warnings) are dropped, with a note.

So the student sees that a hidden test failed, which cell (its ``grade_id``) and the score,
and never the test's code. ``check_feedback`` verifies the generated HTML anyway.

The feedback folder holds the notebooks' HTML pages and nothing else of the graded folder:
nbgrader's ``GenerateFeedback`` copies every other file of ``autograded/STUDENT/ASSIGNMENT`` there
(the package with the restored instructor modules, anything a submission planted); ``PagesOnly``
copies only the two bookkeeping files nbgrader's ``release_feedback`` reads.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.converters import GenerateFeedback
from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.utils import capture_log, temp_attrs
from rich.console import Console
from traitlets.config import Config

from .course import ASSIGNMENT, LAB_MODULES, Course, CourseError, add_course_option
from .grades import course_grades, print_manual_grading_note
from .release import HIDDEN, leaks, notebook_secrets

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CELL_FRAME = re.compile(r"Cell In\[(?P<count>\d+)\], line (?P<line>\d+)")
FILE_FRAME = re.compile(r"^\s*File ")
STUDENT_MODULE = re.compile(r"^\s*File .*(?:" + "|".join(re.escape(module) for module in LAB_MODULES) + r"):\d+")
DROPPED_NOTE = "(Output of a cell with hidden tests is not shown in feedback.)\n"


class FeedbackLeakError(CourseError):
    """Generated feedback holds hidden-test code; the message lists the file and the line."""


def hidden_line_numbers(source: str, begin: str, end: str) -> set[int]:
    """1-based numbers of the lines of ``source`` from a ``begin`` delimiter line to its ``end`` line, inclusive."""
    numbers, inside = set(), False
    for number, line in enumerate(source.splitlines(), start=1):
        if begin in line:
            inside = True
        if inside:
            numbers.add(number)
        if end in line:
            inside = False
    return numbers


class HideHiddenTests(ClearHiddenTests):
    """Feedback preprocessor: remove hidden tests from sources and from error tracebacks (see the module)."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict, cell_index: int) -> tuple[NotebookNode, dict]:
        """Redact the outputs of a cell with hidden tests, then clear the hidden tests from its source."""
        if cell.cell_type == "code" and self.begin_test_delimeter in cell.source:
            cell.outputs = self._redacted_outputs(cell)
        return super().preprocess_cell(cell, resources, cell_index)

    def _redacted_outputs(self, cell: NotebookNode) -> list[NotebookNode]:
        hidden = hidden_line_numbers(cell.source, self.begin_test_delimeter, self.end_test_delimeter)
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "this cell")
        errors = [self._redact_error(output, cell, hidden, grade_id)
                  for output in cell.outputs if output.output_type == "error"]
        if len(errors) < len(cell.outputs):
            errors.insert(0, NotebookNode(output_type="stream", name="stdout", text=DROPPED_NOTE))
        return errors

    def _redact_error(self, output: NotebookNode, cell: NotebookNode, hidden: set[int], grade_id: str) -> NotebookNode:
        lines = cell.source.splitlines()
        traceback, called_from_hidden, innermost_is_student = [], False, False
        for entry in output.traceback:
            plain = ANSI.sub("", entry)
            frame = CELL_FRAME.search(plain)
            if frame and int(frame["count"]) == cell.execution_count:
                number = int(frame["line"])
                called_from_hidden = number in hidden or number > len(lines)
                innermost_is_student = False
                traceback.append(f"Cell {grade_id}, line {number}: hidden test (code not shown)" if called_from_hidden
                                 else f"Cell {grade_id}, line {number}:\n----> {number} {lines[number - 1]}")
                continue
            if frame or FILE_FRAME.match(plain):
                innermost_is_student = bool(STUDENT_MODULE.search(plain))
            traceback.append(entry)
        evalue = output.evalue
        if called_from_hidden and not innermost_is_student:
            evalue = f"hidden test failed in {grade_id}"
            traceback[-1] = f"{output.ename}: {evalue}"
        return NotebookNode(output_type="error", ename=output.ename, evalue=evalue, traceback=traceback)


class PagesOnly(GenerateFeedback):
    """nbgrader's ``GenerateFeedback`` that writes the notebooks' HTML pages and copies, of the graded
    folder's other files, only ``BOOKKEEPING`` (``release_feedback`` reads them), never the rest."""

    BOOKKEEPING = ("timestamp.txt", "submission_secret.txt")

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        """Copy the bookkeeping files that are regular files (not links) to the feedback folder."""
        source = Path(self._format_source(assignment_id, student_id))
        dest = Path(self._format_dest(assignment_id, student_id))
        for name in self.BOOKKEEPING:
            if (source / name).is_file() and not (source / name).is_symlink():
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / name, dest / name)


def generate_pages(course: Course) -> dict:
    """nbgrader's ``NbGraderAPI.generate_feedback`` for every student (forced), with ``PagesOnly``; its result dict."""
    api = course.api()
    with temp_attrs(api.coursedir, assignment_id=ASSIGNMENT):
        converter = PagesOnly(coursedir=api.coursedir, parent=api)
        converter.update_config(Config({"HTMLExporter": {"template_name": "feedback"}}))
        converter.force = True
        return capture_log(converter)


def html_text(path: Path) -> str:
    """The text a reader sees in an HTML file: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8", errors="replace")))


def check_feedback(course: Course, students: list[str]) -> None:
    """Raise ``FeedbackLeakError`` if a feedback HTML file of ``students`` shows a line of a hidden test."""
    secrets = notebook_secrets(sorted(course.source.glob("*.ipynb")), (HIDDEN,))
    pages = [page for student in students for page in sorted(course.feedback(student).glob("*.html"))]
    problems = leaks(secrets, pages, read=html_text)
    if problems:
        raise FeedbackLeakError("feedback shows hidden tests:\n  " + "\n  ".join(problems))


def feedback(course: Course) -> dict[str, list[Path]]:
    """Generate feedback for every autograded student, check it, and return ``{student: [html files]}``.

    Raises ``CourseError`` with nbgrader's log if generation fails, ``FeedbackLeakError`` if the check fails.
    """
    students = sorted(path.parent.name for path in (course.root / "autograded").glob(f"*/{ASSIGNMENT}"))
    if not students:
        raise CourseError(f"nothing autograded under {course.root / 'autograded'}; run `workbook autograde` first")
    result = generate_pages(course)
    if not result["success"]:
        raise CourseError(f"nbgrader generate_feedback failed:\n{result.get('log', '')}{result.get('error', '')}")
    check_feedback(course, students)
    return {student: sorted(course.feedback(student).glob("*.html")) for student in students}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook feedback``."""
    parser = subparsers.add_parser("feedback", help="HTML feedback per student, hidden tests kept hidden",
                                   description="Generate nbgrader's HTML feedback for every autograded student "
                                   "(feedback/STUDENT/compaction_labs/*.html) and check that no page shows "
                                   "hidden-test code: a failed hidden test shows only its grade_id. Run it after "
                                   "the hand-graded answers are graded, or again once they are.")
    add_course_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook feedback`` with the parsed ``args``; return the exit code."""
    course = Course(args.course)
    pages = feedback(course)
    for student, files in pages.items():
        console.print(f"{student}: {len(files)} pages in {course.feedback(student)}")
    console.print("checked: no hidden-test code in any page")
    print_manual_grading_note(console, course_grades(course), "these pages show them as 0")
    return 0
