"""``workbook feedback``: nbgrader's HTML feedback, with every test cell showing the judge's results.

nbgrader renders each autograded notebook. What the student's kernel printed in a test cell came from the
student's process, so ``JudgeResults`` (in ``GenerateFeedback.preprocessors``, see ``workbook.course.layout``)
replaces the outputs of every autograded cell with the judge's results for that cell, one line per case:

- a visible case: ``✓ name: the call`` or ``✗ name: called ..., got ..., expected ...`` (the judge's sentence,
  its values already cut around their first difference by ``compaction_lab.provided.checking.cut``, the same
  function as the student's checks; a sentence recorded longer than ``LINE_CHARS`` is cut by it too);
- the cell's hidden cases together, never one by one (the student's code saw their inputs, so which of them
  passed could tell those inputs): ``✓ hidden tests: all 3 passed``, or ``✗ hidden tests: not all 3 passed``
  and the instructor's hints of every hidden case of the cell, what they check. Nothing of a hidden case's
  inputs, code or of what the student's code did with them is shown.

Below them stays what the student's own code printed while the notebook ran that cell's visible cases
(warnings, log lines, stderr: ``check`` collects it under its ``PRINTED`` line), shown and never scored.

The scores on the page are the gradebook's, which the judge wrote, less the late penalty, which is first
recomputed from the current scores (``workbook.course.late``; nbgrader's page states it), with extra credit apart
(nbgrader counts it in a cell's and the notebook's score): a cell scored above its points shows its points
and, in its results, the extra credit; the notebook's score leaves it out, and a first cell states it,
"Score: 10/10 +6" (never 16/10). Feedback is generated student by student: a page that fails to render or
shows a hidden case's call is removed, that student is named, and the others get theirs. (A hidden case's
call that is public anyway, e.g. a visible case shows the same call, is not a secret:
``release.hidden_case_secrets``.) A notebook nbgrader could not execute has a page without outputs, or none
when nbgrader could not grade it at all (the status says which).

Every page opens with a link to the student's overview across the five labs (``workbook.pipeline.feedback_overview``,
``feedback/STUDENT/index.html``, written beside the pages' folder and checked with them). A page's ✓/✗ lines wrap
at its width rather than scroll sideways (``PAGE_STYLE``), so "expected ..." is always in view.

Nothing on a page runs: the notebook is made inert first (``workbook.pipeline.inert.InertNotebook``, the last
feedback preprocessor: every markdown cell and output sanitized), and each page carries a Content-Security-Policy
that lets no script run (``workbook.page_policy``).

The feedback folder holds the notebooks' HTML pages and nothing else of the graded folder: nbgrader's
``GenerateFeedback`` copies every other file of ``autograded/STUDENT/ASSIGNMENT`` there (the package with
the restored instructor modules, anything a submission planted); ``PagesOnly`` copies only the two
bookkeeping files nbgrader's ``release_feedback`` reads.
"""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.converters import GenerateFeedback
from nbgrader.utils import capture_log, temp_attrs
from traitlets import Bool
from traitlets.config import Config

from workbook.course.editions import language_of, translated_hint
from workbook.course.late import refresh_late_penalties
from workbook.course.layout import ASSIGNMENT, Course, CourseError, configured_course
from workbook.grading.reference import import_reference
from workbook.grading.results import read_results
from workbook.page_policy import with_policy
from workbook.pipeline.feedback_overview import LINK, overview_page, overview_path
from workbook.pipeline.feedback_words import feedback_word
from workbook.pipeline.grades import points_text, read_grades, with_extra_credit
from workbook.pipeline.release import hidden_case_secrets


def case_lines(cases: list[dict], language: str = "en") -> str:
    """The text shown in a test cell for the judge's ``cases`` of that cell (see the module): a line per
    visible case, then one summary of the hidden cases (its fixed words in ``language``)."""
    import_reference()  # the cut is the student's package's: the reference's, in the grader
    from compaction_lab.provided.checking.cut import LINE_CHARS, cut

    lines = []
    for case in cases:
        if case["hidden"]:
            continue
        name = case["key"].split("/", 1)[1]
        if case["status"] == "passed":
            lines.append(f"✓ {name}: {case['call']}")
        else:
            lines.append(f"✗ {name}: {cut(case['message'], limit=LINE_CHARS)}")
    return "\n".join(lines + hidden_summary([case for case in cases if case["hidden"]], language)) + "\n"


def hidden_summary(hidden: list[dict], language: str = "en") -> list[str]:
    """The lines of a cell's ``hidden`` cases: whether all passed and, when not, every one's hint (each hint
    once, in order), never which case failed; the fixed words and the hints in ``language`` (``feedback_words``,
    ``editions.translated_hint``)."""
    if not hidden:
        return []
    several, count = len(hidden) > 1, len(hidden)
    if all(case["status"] == "passed" for case in hidden):
        return [feedback_word("hidden_all" if several else "hidden_one_passed", language, count=count)]
    head = feedback_word("hidden_not_all" if several else "hidden_one_failed", language, count=count)
    hints = list(dict.fromkeys(translated_hint(case["hint"], language) for case in hidden if case["hint"]))
    if not hints:
        return [head]
    check = feedback_word("they_check" if several else "it_checks", language, head=head)
    return [check, *(f"  - {hint}" for hint in hints)]


class JudgeResults(Preprocessor):
    """Feedback preprocessor: each autograded cell's outputs become the judge's results for it, and extra
    credit is set apart from the scores ``GetGrades`` put on the page (see the module)."""

    enabled = Bool(True, help="nbconvert runs a preprocessor only when enabled").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        """Replace the outputs of every autograded cell of ``nb`` by ``case_lines`` of its cases."""
        course = configured_course(self.config)
        import_reference()
        from compaction_lab.provided.notebook.cells import PRINTED

        language = language_of(nb)  # the edition's, for the page's fixed words
        results = read_results(course, resources["nbgrader"]["student"]) or {"labs": []}
        by_cell: dict[str, list[dict]] = {}
        for lab in results["labs"]:
            for case in lab["cases"]:
                by_cell.setdefault(case["grade_id"], []).append(case)
        for cell in nb.cells:
            flags = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and flags.get("grade") and not flags.get("solution"):
                cases = by_cell.get(flags.get("grade_id"), [])
                text = case_lines(cases, language) if cases else feedback_word("not_judged", language) + "\n"
                printed = "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")
                if PRINTED in printed:
                    text += "\n" + PRINTED + printed.split(PRINTED, 1)[1]
                cell.outputs = [new_output("stream", name="stdout", text=text)]
        extra = sum(set_extra_credit_apart(cell, language) for cell in nb.cells)
        if extra and "score" in resources["nbgrader"]:
            resources["nbgrader"]["score"] -= extra
            score = with_extra_credit(resources["nbgrader"]["score"], resources["nbgrader"]["max_score"], extra)
            nb.cells.insert(
                0,
                new_markdown_cell(feedback_word("score_extra", language, score=score, extra=points_text(extra))),
            )
        nb.cells.insert(0, new_markdown_cell(feedback_word("overview_link", language, link=LINK)))
        return nb, resources


def set_extra_credit_apart(cell: NotebookNode, language: str = "en") -> float:
    """The extra credit of a grade ``cell`` scored above its points (0 for any other cell): its shown score
    becomes its points, and a test cell's results say the extra credit first (in ``language``)."""
    flags = cell.metadata.get("nbgrader", {})
    extra = float(flags.get("score") or 0) - float(flags.get("points") or 0) if flags.get("grade") else 0.0
    if extra <= 0:
        return 0.0
    flags["score"] = flags["points"]
    if cell.cell_type == "code" and cell.outputs:
        line = feedback_word("extra_line", language, extra=points_text(extra))
        cell.outputs[0].text = f"{line}\n{cell.outputs[0].text}"
    return extra


class PagesOnly(GenerateFeedback):
    """nbgrader's ``GenerateFeedback`` that writes the notebooks' HTML pages, each with the project's
    Content-Security-Policy, and copies, of the graded folder's other files, only ``BOOKKEEPING``
    (``release_feedback`` reads them), never the rest."""

    BOOKKEEPING = ("timestamp.txt", "submission_secret.txt")

    def write_single_notebook(self, output: str, resources: dict) -> None:
        """Write the page with the project's Content-Security-Policy first in its head (``page_policy``) and
        ``PAGE_STYLE`` last."""
        super().write_single_notebook(with_policy(with_page_style(output)), resources)

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        """Copy the bookkeeping files that are regular files (not links) to the feedback folder."""
        source = Path(self._format_source(assignment_id, student_id))
        dest = Path(self._format_dest(assignment_id, student_id))
        for name in self.BOOKKEEPING:
            if (source / name).is_file() and not (source / name).is_symlink():
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / name, dest / name)


PAGE_STYLE = (
    "<style>div.output_subarea{overflow-x:visible}"
    "div.output_subarea pre{white-space:pre-wrap;overflow-wrap:anywhere}</style>"
)
"""The feedback pages' own style, after nbgrader's: an output's text wraps at the page's width (nbgrader's template
puts it in a box that scrolls sideways, where the end of a long ✗ line was out of sight)."""


def with_page_style(page: str) -> str:
    """``page`` (an HTML document) with ``PAGE_STYLE`` last in its ``<head>``; raises ``ValueError`` without one."""
    if "</head>" not in page:
        raise ValueError("an HTML page without </head>: the feedback page's style has nowhere to go")
    return page.replace("</head>", PAGE_STYLE + "</head>", 1)


def generate_pages(course: Course, student: str) -> dict:
    """nbgrader's feedback generation for ``student`` (forced), with ``PagesOnly``; nbgrader's result dict."""
    api = course.api()
    with temp_attrs(api.coursedir, assignment_id=ASSIGNMENT, student_id=student):
        converter = PagesOnly(coursedir=api.coursedir, parent=api)
        converter.update_config(Config({"HTMLExporter": {"template_name": "feedback"}}))
        converter.force = True
        return capture_log(converter)


def html_text(path: Path) -> str:
    """The text a reader sees in an HTML file: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8", errors="replace")))


def shown_secrets(pages: list[Path], secrets: list[str]) -> list[str]:
    """``file: shows 'call'`` for every page of ``pages`` that shows one of ``secrets``."""
    problems = []
    for page in pages:
        text = html_text(page)
        problems += [f"{page}: shows {secret!r}" for secret in secrets if secret in text]
    return problems


@dataclass
class FeedbackReport:
    """What ``feedback`` made: ``pages`` per student (the notebooks' pages), each student's ``overviews``, and the
    students whose feedback was ``withheld`` (why)."""

    pages: dict[str, list[Path]] = field(default_factory=dict)
    overviews: dict[str, Path] = field(default_factory=dict)
    withheld: dict[str, str] = field(default_factory=dict)


def feedback(course: Course) -> FeedbackReport:
    """Generate and check the feedback of every autograded student, one at a time (see the module).

    Raises ``CourseError`` when nothing is autograded yet.
    """
    students = sorted(path.parent.name for path in (course.root / "autograded").glob(f"*/{ASSIGNMENT}"))
    if not students:
        raise CourseError(f"nothing autograded under {course.root / 'autograded'}; run `workbook autograde` first")
    secrets = sorted({call for calls in hidden_case_secrets(course).values() for call in calls})
    refresh_late_penalties(course)
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, students)}
    language = language_of(nbformat.read(sorted(course.source.glob("*.ipynb"))[0], as_version=4))
    report = FeedbackReport()
    for student in students:
        result = generate_pages(course, student)
        pages = sorted(course.feedback(student).glob("*.html"))
        overview = overview_path(course, student)
        overview.parent.mkdir(parents=True, exist_ok=True)
        results = read_results(course, student) or {"labs": []}
        page = overview_page(grades[student], results, language, {path.stem for path in pages})
        overview.write_text(with_policy(page), encoding="utf-8")
        problems = [] if result["success"] else [_last_line(result)]
        problems += shown_secrets([*pages, overview], secrets)
        if problems:
            shutil.rmtree(course.feedback(student), ignore_errors=True)
            overview.unlink()
            report.withheld[student] = problems[0]
        else:
            report.pages[student], report.overviews[student] = pages, overview
    return report


def _last_line(result: dict) -> str:
    text = f"{result.get('log', '')}\n{result.get('error', '')}".strip().splitlines()
    return f"nbgrader generate_feedback failed: {text[-1] if text else 'no log'}"
