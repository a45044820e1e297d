"""A student's feedback overview: one page across the five labs, ``feedback/STUDENT/index.html``.

nbgrader writes one feedback page per notebook (``feedback/STUDENT/compaction_labs/*.html``); the overview sits
one folder up, so nbgrader's ``release_feedback``, which releases every page of that folder, leaves it alone. It
says, lab by lab: the autograded points, the written answers (graded, or still to grade: ``?/N``), the extra
credit, and a link to the lab's page; then their sums and the score, the same as ``workbook grades``' row for the
student (the written answers' ``grades.manual_text``, the total after the late penalty with its extra credit
apart, ``grades.with_extra_credit``); then the cases that failed, cell by
cell, as the lab's page shows them (``feedback.case_lines``: a visible case's sentence, the hidden ones only
together with their hints), and a lab not started as one line. Every lab's page links back to it
(``feedback.JudgeResults``). Its fixed words are in the course's edition (``feedback_words``).

The page is written by this module, not rendered from a student's notebook: every text in it (the student's id,
the judge's sentences, the hints) is escaped, and it carries the same Content-Security-Policy as the lab pages
(``workbook.page_policy``).
"""

from __future__ import annotations

import html
from collections.abc import Collection
from pathlib import Path

from workbook.course.layout import ASSIGNMENT, Course
from workbook.manifest import LABS
from workbook.pipeline.feedback_words import feedback_word
from workbook.pipeline.grades import LabScore, StudentGrades, manual_text, points_text, with_extra_credit

OVERVIEW = "index.html"
"""The overview's file name, in ``feedback/STUDENT/``."""
LINK = f"../{OVERVIEW}"
"""The overview, as a lab page (in ``feedback/STUDENT/compaction_labs/``) links to it."""
STYLE = (
    "body{font-family:sans-serif;margin:1.5em;max-width:70em}"
    "table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:4px 10px;text-align:right}"
    "th:first-child,td:first-child{text-align:left}tfoot td{font-weight:bold}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:6px 10px}"
)


def overview_path(course: Course, student: str) -> Path:
    """``feedback/STUDENT/index.html`` of ``course``."""
    return course.root / "feedback" / student / OVERVIEW


def failed_lines(cases: list[dict], language: str = "en") -> list[str]:
    """What failed among one lab's ``cases`` (the judge's, as ``results`` records them): first, when any case met
    a function not started, one line, the first such message; then, cell by cell, each other failed visible
    case's line and, for a cell with a hidden case that failed, its hidden tests' summary with the hints
    (``feedback.case_lines``)."""
    from workbook.pipeline.feedback import case_lines  # here: the feedback module imports this one

    not_started = [case["message"] for case in cases if case["status"] == "not started"]
    lines = not_started[:1]
    by_cell: dict[str, list[dict]] = {}
    for case in cases:
        by_cell.setdefault(case["grade_id"], []).append(case)
    for cell, of_cell in by_cell.items():
        hidden = [case for case in of_cell if case["hidden"]]
        failed = [case for case in of_cell if not case["hidden"] and case["status"] not in ("passed", "not started")]
        if any(case["status"] not in ("passed", "not started") for case in hidden):
            failed += hidden
        if failed:
            lines += [f"{cell}:", *case_lines(failed, language).splitlines()]
    return lines


def _written(lab: LabScore) -> str:
    """A lab's written answers: graded points, or the points still to grade as ``?/N``; "-" without any."""
    if not lab.manual_max:
        return "-"
    if not lab.pending:
        return f"{points_text(lab.manual_score)}/{points_text(lab.manual_max)}"
    return f"?/{points_text(lab.pending_points)}"


def _row(*cells: str) -> str:
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def _extra(points: float) -> str:
    return f"+{points_text(points)}" if points else ""


def _lab_rows(grades: StudentGrades, pages: Collection[str]) -> list[str]:
    """A row per lab of the manifest: its title (a link to its page when its notebook's name is in ``pages``),
    autograded points, written answers, extra credit; dashes for a lab not submitted."""
    by_notebook = {lab.notebook: lab for lab in grades.labs}
    rows = []
    for lab in LABS:
        name = lab.notebook.removesuffix(".ipynb")
        title = html.escape(f"{lab.number}. {lab.title}")
        score = by_notebook.get(name)
        if score is None:
            rows.append(_row(title, "-", "-", ""))
            continue
        link = f'<a href="{ASSIGNMENT}/{html.escape(name)}.html">{title}</a>' if name in pages else title
        auto = f"{points_text(score.auto_score)}/{points_text(score.auto_max)}"
        rows.append(_row(link, auto, _written(score), _extra(score.extra_credit)))
    return rows


def _failures(results: dict, language: str) -> str:
    """A heading and the ``failed_lines`` of each lab with a failure, or one sentence when nothing failed."""
    titles = {lab.number: lab.title for lab in LABS}
    failures = []
    for lab in results.get("labs", []):
        lines = failed_lines(lab["cases"], language)
        if lines:
            title = html.escape(f"{lab['lab']}. {titles[lab['lab']]}")
            failures.append(f"<h3>{title}</h3><pre>{html.escape(chr(10).join(lines))}</pre>")
    return "".join(failures) or f"<p>{html.escape(feedback_word('overview_nothing_failed', language))}</p>"


def overview_page(grades: StudentGrades, results: dict, language: str = "en", pages: Collection[str] = ()) -> str:
    """The overview of one student (see the module) as an HTML document (without its policy): ``grades`` from
    the gradebook, ``results`` the judge's (``workbook.grading.results``), fixed words in ``language``, a link to
    each lab page named in ``pages`` (the notebooks' names without ``.ipynb``; nbgrader writes no page for a
    notebook it could not grade)."""

    def word(word_id: str, **values: object) -> str:
        return html.escape(feedback_word(word_id, language, **values))

    columns = ("overview_lab", "overview_auto", "overview_written", "overview_extra")
    head = "".join(f"<th>{word(name)}</th>" for name in columns)
    auto = f"{points_text(grades.auto_score)}/{points_text(grades.auto_max)}"
    foot = _row(word("overview_total"), auto, html.escape(manual_text(grades)), _extra(grades.extra_credit))
    total = with_extra_credit(grades.total, grades.max_score, grades.extra_after_penalty)
    late = f" ({word('overview_late', penalty=points_text(grades.penalty))})" if grades.penalty else ""
    waiting = word("overview_pending", count=grades.pending, points=points_text(grades.pending_points))
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(grades.student)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{word('overview_title', student=grades.student)}</h1>"
        f"<table><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(_lab_rows(grades, pages))}</tbody><tfoot>{foot}</tfoot></table>"
        f"<p id='score'>{word('overview_score', score=total)}{late}</p>{f'<p>{waiting}</p>' if grades.pending else ''}"
        f"<h2>{word('overview_failed')}</h2>{_failures(results, language)}</body></html>\n"
    )
