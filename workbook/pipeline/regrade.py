"""``workbook regrade``'s work: the recorded students judged again on the course's current cases, no kernel.

After an instructor edits a hidden case (``COURSE/grading/cases/<module>/hidden.py``), the grades that case
decides can be brought up to date without running any notebook: each recorded student's submitted lab modules
are judged again (``rejudge``, a grading task like autograde's: plain data in and out, on the same engine,
student code in the same sandbox) with the generated variants of the seed each lab was graded with, so only
what the edit changed can change. This process then writes each student's judged cells
(``scoring.write_scores``: ``auto_score`` and the judge's extra credit; hand grades are kept), the results the
feedback shows (the cases' verdicts, the review marks against the in-kernel scores autograde recorded) and
the late penalties. ``workbook feedback`` then makes pages that show the new results.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from workbook.course.late import refresh_late_penalties
from workbook.course.layout import PACKAGE, Course, require_released
from workbook.errors import CourseError
from workbook.grading.casebook import CaseBook
from workbook.grading.isolation import course_isolation
from workbook.grading.judge import LabVerdict, judge_submission
from workbook.grading.results import read_results, save_results
from workbook.grading.sandbox import Isolation
from workbook.grading.scoring import course_case_book, reviews, write_scores
from workbook.manifest import LABS
from workbook.pipeline.autograde import Outcome, print_summary
from workbook.pipeline.bundle import GradingBundle, Submission, files_below, grading_bundle
from workbook.pipeline.engine import DEFAULT_SUBMISSION_TIMEOUT, TaskEnd, default_jobs, grading_client, run_tasks
from workbook.pipeline.student_grading import log_path


@dataclass(frozen=True)
class Rejudged:
    """How regrading one student ended: ``status`` ``graded`` or ``failed`` (``why`` says why); ``changed`` the
    grade cells whose points changed; ``seconds`` the task's wall time."""

    student: str
    status: str
    seconds: float
    changed: tuple[str, ...] = ()
    why: str = ""


def rejudge(submission: Submission, bundle: GradingBundle) -> list[LabVerdict]:
    """Judge every lab of ``submission``'s package with ``bundle``'s cases, in a scratch course; each lab's
    generated variants are those of the seed ``submission.seeds`` gives it (``regrade`` sends the recorded
    ones), a fresh one where none is given."""
    seeds = dict(submission.seeds)
    with tempfile.TemporaryDirectory(prefix="workbook-regrade-") as folder:
        course = bundle.materialize(Path(folder))
        submission.materialize(course)
        book = course_case_book(course)
        isolation = course_isolation(course, bundle.isolation)
        package = course.submitted(submission.student) / PACKAGE
        return [
            verdict
            for lab in LABS
            for verdict in judge_submission(package, book, isolation, labs=(lab.number,), seed=seeds.get(lab.number))
        ]


def recorded_students(course: Course, students: list[str] | None) -> list[str]:
    """The students to regrade: ``students`` (each must have been autograded) or everyone autograded.
    Raises ``CourseError`` naming a student autograde has not recorded, or when there is none."""
    graded = [student for student in course.students() if read_results(course, student)]
    if students:
        missing = [student for student in students if student not in graded]
        if missing:
            raise CourseError(f"not autograded yet, nothing to regrade: {', '.join(missing)}")
        return list(dict.fromkeys(students))
    if not graded:
        raise CourseError(f"no autograded submissions in {course.root}: run `workbook autograde` first")
    return graded


def regrade(
    course: Course,
    students: list[str] | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    isolation: Isolation | None = None,
    timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    on_done: Callable[[Rejudged], None] = lambda rejudged: None,
) -> list[Rejudged]:
    """Judge ``students`` (default: every autograded one) again and record the new scores and results (see the
    module), on a local cluster of ``jobs`` workers or the cluster at ``scheduler``; return how each ended, in
    student order. Raises ``CourseError`` for a folder that is not a course, an unreleased assignment or a
    student not autograded yet, and ``SandboxUnavailable`` when the course requires a sandbox this machine
    cannot give."""
    course.require()
    require_released(course)
    chosen = recorded_students(course, students)
    isolation = isolation or course_isolation(course)
    waiting = {student: _package_of(course, student) for student in chosen}
    bundle = grading_bundle(course, 0, "required" if isolation.enforced else "off")
    book = course_case_book(course)
    done: dict[str, Rejudged] = {}

    def finished(end: TaskEnd) -> None:
        if end.status != "done":
            done[end.student] = Rejudged(end.student, "failed", end.seconds, why=end.why)
        else:
            try:
                changed = _record(course, end.student, end.value, book)
                done[end.student] = Rejudged(end.student, "graded", end.seconds, changed)
            except Exception as error:  # noqa: BLE001 (one student's failure leaves the others graded)
                why = f"its new scores could not be recorded ({type(error).__name__}: {error})"
                done[end.student] = Rejudged(end.student, "failed", end.seconds, why=why)
        on_done(done[end.student])

    with grading_client(min(jobs or default_jobs(), len(waiting)), scheduler) as client:
        run_tasks(client, rejudge, waiting, bundle, timeout, on_end=finished)
    return [done[student] for student in chosen]


def _package_of(course: Course, student: str) -> Submission:
    """``student``'s submitted package alone (no notebook is read), with the seed each lab was graded with."""
    files = files_below(course.submitted(student) / PACKAGE, PACKAGE)
    results = read_results(course, student) or {}
    seeds = tuple((lab["lab"], lab["seed"]) for lab in results.get("labs", []) if lab.get("seed") is not None)
    return Submission(student, files, None, results.get("fingerprint", ""), seeds)


def _record(course: Course, student: str, verdicts: list[LabVerdict], book: CaseBook) -> tuple[str, ...]:
    """Write ``verdicts`` of ``student`` into the gradebook and the results file; return the cells whose points
    changed."""
    earlier = read_results(course, student) or {}
    before = {grade_id: points for lab in earlier.get("labs", []) for grade_id, points in lab["scores"].items()}
    with course.gradebook() as gradebook:
        write_scores(gradebook, student, verdicts)
    kernel = earlier.get("kernel", {})
    results = {
        **earlier,
        "labs": [verdict.to_json() for verdict in verdicts],
        "review": [review.text() for review in reviews(verdicts, kernel, book)],
    }
    save_results(course, student, results)
    refresh_late_penalties(course, [student])
    after = {grade_id: points for verdict in verdicts for grade_id, points in verdict.scores.items()}
    return tuple(sorted(grade_id for grade_id in after if before.get(grade_id) != after[grade_id]))


def regrade_with_table(
    course: Course,
    students: list[str] | None,
    jobs: int | None,
    scheduler: str | None,
    isolation: str | None,
    console: Console,
) -> list[str]:
    """``regrade``, then one line per student naming the cells whose points changed, then autograde's grade
    table; return the students whose regrade failed."""
    sandbox = course_isolation(course, isolation)
    console.print(sandbox.describe(slots=0), highlight=False)
    ended = regrade(course, students, jobs, scheduler, sandbox)
    for item in ended:
        if item.status != "graded":
            console.print(f"{escape(item.student)}: [red]regrade failed[/]: {escape(item.why)}")
        else:
            cells = ", ".join(item.changed) if item.changed else "no cell changed"
            console.print(f"{escape(item.student)}: {cells}", highlight=False)
    outcomes = [
        Outcome(item.student, item.status, item.seconds, log_path(course, item.student), why=item.why) for item in ended
    ]
    print_summary(course, outcomes, console, "regrade")
    return [item.student for item in ended if item.status != "graded"]
