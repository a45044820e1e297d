"""``workbook autograde``'s work: every submission graded as a task on Dask, recorded by this process alone.

Each student is one grading task (``workbook.pipeline.student_grading.grade``): plain data in (the submission
and the course's grading bundle, ``workbook.pipeline.bundle``), plain data out. The tasks run on a local
cluster of ``jobs`` worker processes or on a running Dask cluster (``workbook.pipeline.engine``); as each
result comes back, this process records it (``workbook.pipeline.recording``): the only writer of the course and
its gradebook. A task that crashes or runs past the submission timeout costs only its student (its status and
log say why: ``logs/autograde/STUDENT.log``). A student whose very submission is already recorded is skipped,
unless ``force``: a run that was killed half-way, run again, grades the rest.

Before a student is graded, ``workbook.course.intake`` checks the submission: a refused one (symlinks, special
files, oversized files, names that are not UTF-8) is not graded and its status names the problem. Each
submission's time is its trusted one (``workbook.course.received``); a malformed ``timestamp.txt``, or one that
claims an earlier time, is noted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from workbook.course.accidents import failure_reason
from workbook.course.intake import check_submission
from workbook.course.layout import ASSIGNMENT, DEFAULT_CELL_TIMEOUT, Course, require_released
from workbook.errors import CourseError
from workbook.grading.isolation import course_isolation
from workbook.grading.results import status_notes
from workbook.grading.sandbox import Isolation
from workbook.pipeline.bundle import grading_bundle, read_submission
from workbook.pipeline.engine import DEFAULT_SUBMISSION_TIMEOUT, TaskEnd, default_jobs, grading_client, run_tasks
from workbook.pipeline.grade_result import GradeResult
from workbook.pipeline.grades import grade_table, notebook_names, read_grades
from workbook.pipeline.notes import print_closing_notes
from workbook.pipeline.recording import is_recorded, record
from workbook.pipeline.student_grading import grade, log_path


@dataclass(frozen=True)
class Outcome:
    """How grading one student ended: ``status`` is ``graded`` (the judge scored every lab), ``failed``,
    ``timed out``, ``refused`` (by intake, not graded) or ``recorded`` (this very submission was graded by an
    earlier run, kept); ``executed`` says whether nbgrader executed every notebook; ``log`` is the log file;
    ``why`` what happened to a task that did not finish, or what intake refused."""

    student: str
    status: str
    seconds: float
    log: Path
    executed: bool = True
    why: str = ""

    @property
    def graded(self) -> bool:
        """True when autograde finished for this student (in this run or, ``recorded``, an earlier one)."""
        return self.status in {"graded", "recorded"}

    def reason(self) -> str:
        """Why grading did not finish (e.g. ``DeadKernelError: Kernel died``, the last exception line of the
        log, or ``not graded: ...`` for a refused submission), with the log's path; empty when graded."""
        if self.graded:
            return ""
        if self.status == "refused":
            return f"not graded: {self.why}"
        text = self.log.read_text(errors="replace") if self.log.exists() and not self.why else ""
        found = self.why or failure_reason(text)
        return f"{found} (see {self.log})" if found else f"see {self.log}"


def select_students(course: Course, students: list[str] | None) -> list[str]:
    """The students to grade: ``students`` (each must have a submission) or everyone under ``submitted/``.

    Raises ``CourseError`` for a folder that is not a course, naming a student without a submission, or when
    there is none at all.
    """
    course.require()
    submitted = course.students()
    if students:
        missing = [student for student in students if student not in submitted]
        if missing:
            raise CourseError(f"no submission under {course.root / 'submitted'} for: {', '.join(missing)}")
        return list(dict.fromkeys(students))
    if not submitted:
        raise CourseError(f"no submissions under {course.root / 'submitted'}")
    return submitted


def cell_timeout(course: Course) -> int:
    """The course config's ``Execute.timeout`` (seconds per cell), ``DEFAULT_CELL_TIMEOUT`` if unset."""
    return int(course.config().Execute.get("timeout", DEFAULT_CELL_TIMEOUT))


def autograde(
    course: Course,
    students: list[str] | None = None,
    jobs: int | None = None,
    timeout: int | None = None,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    on_start: Callable[[str], None] = lambda student: None,
    on_done: Callable[[Outcome], None] = lambda outcome: None,
    isolation: Isolation | None = None,
    scheduler: str | None = None,
    force: bool = False,
) -> list[Outcome]:
    """Grade ``students`` (default: all submitted) on a local cluster of ``jobs`` workers (default
    ``default_jobs()``) or on the Dask cluster at ``scheduler``; record each result; return the outcomes in
    student order.

    ``timeout`` is the per-cell limit in seconds (default: the course config's), ``submission_timeout`` the
    limit for one student. ``on_start``/``on_done`` are called in this process as students start and finish.
    ``isolation`` (default ``course_isolation(course)``) is what every task's kernels and runners get:
    sandboxed (the tasks then require it) or not. Submissions that intake refuses are not graded; those already
    recorded are kept unless ``force``. Raises ``CourseError`` for a folder that is not a course, an unknown
    student, no submissions, an unreleased assignment or an unreachable scheduler, and ``SandboxUnavailable``
    when the course requires a sandbox that this machine cannot give.
    """
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise CourseError(f"--jobs must be at least 1, got {jobs}")
    chosen = select_students(course, students)
    require_released(course)
    isolation = isolation or course_isolation(course)
    timeout = timeout or cell_timeout(course)
    done: dict[str, Outcome] = {}
    waiting = {}
    for student in chosen:
        intake = check_submission(course.submitted(student))
        if not intake.accepted:
            on_start(student)
            done[student] = _refuse(course, student, "; ".join(intake.refused))
            on_done(done[student])
            continue
        submission = read_submission(course, student)
        if not force and is_recorded(course, submission):
            on_start(student)
            done[student] = Outcome(student, "recorded", 0.0, log_path(course, student))
            on_done(done[student])
            continue
        waiting[student] = submission

    def finished(end: TaskEnd) -> None:
        result: GradeResult | None = end.value
        status = "graded" if result is not None and result.status == "graded" else "failed"
        why = end.why
        if result is not None:
            try:
                record(course, result)
            except Exception as error:  # noqa: BLE001 (a student whose result cannot be recorded fails alone)
                why = f"its result could not be recorded ({type(error).__name__}: {error})"
                status, result = "failed", None
        if end.status == "timed out":
            status = "timed out"
        log = log_path(course, end.student)
        if result is None:
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(f"[workbook] not graded: {why}\n", encoding="utf-8")
        executed = result.all_executed if result is not None else True
        done[end.student] = Outcome(end.student, status, end.seconds, log, executed=executed, why=why)
        on_done(done[end.student])

    if waiting:
        bundle = grading_bundle(course, timeout, "required" if isolation.enforced else "off")
        with grading_client(min(jobs, len(waiting)), scheduler) as client:
            run_tasks(client, grade, waiting, bundle, submission_timeout, on_start, finished)
    return [done[student] for student in chosen]


def _refuse(course: Course, student: str, problems: str) -> Outcome:
    """The outcome of a submission intake refused; the log says why."""
    log = log_path(course, student)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"[workbook] submission refused, not graded: {problems}\n", encoding="utf-8")
    return Outcome(student, "refused", 0.0, log, why=problems)


def grade_with_progress(
    course: Course,
    students: list[str] | None,
    jobs: int | None,
    timeout: int | None,
    console: Console,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    isolation: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
) -> list[Outcome]:
    """``autograde`` with a rich progress bar (one step per student), then the summary table; return the outcomes.

    Prints the isolation in force (``course_isolation`` of ``isolation``) first; raises ``SandboxUnavailable``
    before grading anything when it is ``required`` and this machine cannot sandbox."""
    chosen = select_students(course, students)
    sandbox = course_isolation(course, isolation)
    console.print(sandbox.describe(slots=0), highlight=False)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task("autograding", total=len(chosen))
        active: list[str] = []

        def started(student: str) -> None:
            active.append(student)
            progress.update(task, description=f"autograding {', '.join(active)}")

        def finished(outcome: Outcome) -> None:
            active.remove(outcome.student)
            progress.update(task, advance=1, description=f"autograding {', '.join(active)}" if active else "done")

        outcomes = autograde(
            course,
            chosen,
            jobs=jobs,
            timeout=timeout,
            submission_timeout=submission_timeout,
            on_start=started,
            on_done=finished,
            isolation=sandbox,
            scheduler=scheduler,
            force=force,
        )
    print_summary(course, outcomes, console)
    return outcomes


def status_text(course: Course, outcome: Outcome) -> str:
    """The status column of ``outcome`` (rich markup; the student-controlled parts escaped): ``graded`` (or
    ``graded earlier``, a submission an earlier run recorded) and the
    student's notes (``scoring.status_notes``: labs whose judging hit a limit, a malformed timestamp,
    accidents, notebooks not executed, cells marked for review); or the status in red and why."""
    if not outcome.graded:
        return f"[red]{outcome.status}[/]: {escape(outcome.reason())}"
    first = "graded" if outcome.status == "graded" else "graded earlier"
    return escape("; ".join([first, *status_notes(course, outcome.student)]))


def print_summary(course: Course, outcomes: list[Outcome], console: Console, command: str = "autograde") -> None:
    """The per-student, per-lab table of the graded students, with each one's status, titled with ``command``;
    then the notes on hand-graded answers still to grade, late penalties and cells marked for review."""
    status = {outcome.student: status_text(course, outcome) for outcome in outcomes}
    with course.gradebook() as gradebook:
        grades = read_grades(gradebook, [outcome.student for outcome in outcomes])
        notebooks = notebook_names(gradebook)
    console.print(grade_table(grades, notebooks, status, title=f"{command}: {ASSIGNMENT}"))
    print_closing_notes(console, course, grades)
