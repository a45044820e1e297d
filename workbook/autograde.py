"""``workbook autograde``: nbgrader's autograde and the judge, students in parallel, notebooks one by one.

Every student is graded by one of ``jobs`` long-lived worker processes (``workbook.workers``: nbgrader is
imported once per worker, not once per student), one student at a time each, each worker in its own sandbox
slot (uid). A worker that dies or hangs costs only the student it was grading (its status and log say why:
``logs/autograde/STUDENT.log``) and is replaced. ``jobs`` defaults to the number of cores this process may
use.

Before a student is sent to a worker, ``workbook.intake`` checks the submission: a refused one (symlinks,
special files, oversized files) is not graded and its status names the problem; a malformed
``timestamp.txt`` is graded as on time (nbgrader's rule for a submission without one) with a note.

Grading one student (``grade_one``): nbgrader autogrades each notebook on its own
(``CourseDirectory.notebook_id``), in sandboxed kernels (``workbook.sandbox_kernel``, over Unix sockets, so
parallel workers never race for a TCP port); the course config's last autograde preprocessor, the judge
(``workbook.scoring.JudgeNotebook``), then scores that notebook's lab outside the student's process and
writes its points into the gradebook. A kernel that crashes, hangs or calls ``os._exit`` costs only the
notebook where it happened, and only its feedback: that notebook is autograded again without ``Execute``
(``without_execution``), so the judge still scores its lab, its written answer still reaches the
formgrader and its page still shows the judge's results, without outputs. The judge then scores any lab
whose notebook nbgrader could not grade at all (missing, unreadable), and late penalties are recomputed
(``workbook.late``). What intake and nbgrader repaired or could not do (a malformed timestamp, a copied,
deleted or edited cell, a renamed, missing or extra notebook, a notebook not executed:
``workbook.accidents``) is kept as notes in the student's results and shown in the status.

The gradebook stays consistent because each worker writes only its own student's rows, and
nbgrader commits in short transactions. For SQLite, concurrent writers must wait for each other
instead of failing with "database is locked": every SQLite connection the worker opens gets
``PRAGMA busy_timeout`` (``SQLITE_BUSY_TIMEOUT`` seconds). PostgreSQL needs nothing.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from sqlalchemy import event
from sqlalchemy.engine import Engine
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from .accidents import failure_reason, grade_ids, log_notes, plan_notebooks, stage_renamed
from .course import (
    ASSIGNMENT,
    DEFAULT_CELL_TIMEOUT,
    SANDBOXED_EXECUTE,
    Course,
    CourseError,
    add_course_option,
    require_released,
)
from .grades import grade_table, notebook_names, print_manual_grading_note, read_grades
from .intake import LenientTimestamps, check_submission, read_timestamp
from .late import print_late_notes, refresh_late_penalties
from .sandbox import MODES, Isolation, SandboxUnavailable, detect
from .scoring import finish_results, print_review_notes, results_path, status_notes
from .third_party_warnings import ignore_nbgrader_add_submission_warning
from .workers import Finished, WorkerPool

DEFAULT_SUBMISSION_TIMEOUT = 900
"""Seconds one student's whole grading may take before its worker is killed."""
SQLITE_BUSY_TIMEOUT = 120
"""Seconds an SQLite writer waits for another process's transaction before giving up."""
STAGED = "grading/staged"
"""Where a submission with a renamed notebook is copied, renamed back, for nbgrader while it grades it (relative
to the course; removed afterwards)."""


@dataclass(frozen=True)
class Outcome:
    """How grading one student ended: ``status`` is ``graded`` (the judge scored every lab), ``failed``,
    ``timed out`` or ``refused`` (by intake, not graded); ``executed`` says whether nbgrader executed every
    notebook; ``log`` is the log file; ``why`` what happened to a worker that did not finish, or what intake
    refused."""

    student: str
    status: str
    seconds: float
    log: Path
    executed: bool = True
    why: str = ""

    @property
    def graded(self) -> bool:
        """True when autograde finished for this student."""
        return self.status == "graded"

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


def log_path(course: Course, student: str) -> Path:
    """Where the autograde log of ``student`` is written: ``COURSE/logs/autograde/STUDENT.log``."""
    return course.root / "logs" / "autograde" / f"{student}.log"


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


def default_jobs() -> int:
    """The number of cores this process may run on (at least 1)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cell_timeout(course: Course) -> int:
    """The course config's ``Execute.timeout`` (seconds per cell), ``DEFAULT_CELL_TIMEOUT`` if unset."""
    return int(course.config().Execute.get("timeout", DEFAULT_CELL_TIMEOUT))


def course_isolation(course: Course, mode: str | None = None) -> Isolation:
    """``sandbox.detect`` of ``mode``, or of the course config's ``SandboxKernelManager.isolation`` (``auto``
    if unset). A course config older than the sandbox (nbgrader's own ``Execute``) gives none. Raises
    ``SandboxUnavailable`` when that is ``required`` and this machine or the course config cannot sandbox."""
    config = course.config()
    mode = mode or config.SandboxKernelManager.get("isolation", "auto")
    if SANDBOXED_EXECUTE not in map(str, config.Autograde.get("autograde_preprocessors", [])) and mode != "off":
        why = f"{course.config_file} predates the sandbox; `workbook build --force` rewrites it, keeping submissions"
        if mode == "required":
            raise SandboxUnavailable(f"cannot sandbox student code: {why}")
        return Isolation(reason=why)
    return detect(mode)


def autograde(course: Course, students: list[str] | None = None, jobs: int | None = None,
              timeout: int | None = None, submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
              on_start: Callable[[str], None] = lambda student: None,
              on_done: Callable[[Outcome], None] = lambda outcome: None,
              isolation: Isolation | None = None) -> list[Outcome]:
    """Grade ``students`` (default: all submitted) with ``jobs`` workers (default ``default_jobs()``); return
    the outcomes in student order.

    ``timeout`` is the per-cell limit in seconds (default: the course config's), ``submission_timeout`` the
    limit for one student. ``on_start``/``on_done`` are called in this process as students start and finish.
    ``isolation`` (default ``course_isolation(course)``) is what every worker's kernels and runners get:
    sandboxed (the workers then require it) or not. Submissions that intake refuses are not graded.
    Raises ``CourseError`` for a folder that is not a course, an unknown student, no submissions, or an
    unreleased assignment, and ``SandboxUnavailable`` when the course requires a sandbox that this machine
    cannot give.
    """
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise CourseError(f"--jobs must be at least 1, got {jobs}")
    chosen = select_students(course, students)
    require_released(course)
    isolation = isolation or course_isolation(course)
    timeout = timeout or cell_timeout(course)
    done: dict[str, Outcome] = {}
    accepted = []
    for student in chosen:
        intake = check_submission(course.submitted(student))
        if intake.accepted:
            accepted.append(student)
            continue
        on_start(student)
        done[student] = _refuse(course, student, "; ".join(intake.refused))
        on_done(done[student])

    def outcome(finished: Finished) -> Outcome:
        return Outcome(finished.student, finished.status, finished.seconds, log_path(course, finished.student),
                       executed=bool(finished.report.get("all_executed", True)), why=finished.why)

    if accepted:
        settings = {"timeout": timeout, "isolation": "required" if isolation.enforced else "off"}
        with WorkerPool(course, min(jobs, len(accepted))) as pool:
            finished = pool.grade(accepted, settings, submission_timeout, on_start,
                                  on_done=lambda finished: on_done(outcome(finished)))
        done.update({student: outcome(finished[student]) for student in accepted})
    return [done[student] for student in chosen]


def _refuse(course: Course, student: str, problems: str) -> Outcome:
    """The outcome of a submission intake refused; the log says why."""
    log = log_path(course, student)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"[workbook] submission refused, not graded: {problems}\n", encoding="utf-8")
    return Outcome(student, "refused", 0.0, log, why=problems)


def sqlite_busy_timeout(seconds: float) -> None:
    """Make every SQLite connection opened from now on in this process wait ``seconds`` for a lock."""

    @event.listens_for(Engine, "connect")
    def _set_busy_timeout(dbapi_connection, connection_record) -> None:
        if type(dbapi_connection).__module__.startswith("sqlite3"):
            dbapi_connection.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


def prepare_worker() -> None:
    """Once per worker process: SQLite busy timeout, nbgrader's known warning silenced."""
    ignore_nbgrader_add_submission_warning()  # nbgrader's own SQLAlchemy 2 noise in every log, see that module
    sqlite_busy_timeout(SQLITE_BUSY_TIMEOUT)


def grading_config(course: Course, timeout: int, isolation: str | None, slot: int) -> Config:
    """The course config for one worker's autograde: the cell ``timeout``, the kernels' and runners' sandbox
    (``isolation``, default the course config's, and ``slot``)."""
    config = course.config()
    config.Execute.timeout = timeout
    # A notebook's outputs are all in once its last cell ran: its kernel is stopped at once instead of shut down
    # gracefully (nbclient's default), which saves about a quarter of the in-kernel pass's CPU time.
    config.Execute.shutdown_kernel = "immediate"
    if isolation:
        config.SandboxKernelManager.isolation = isolation
    config.SandboxKernelManager.slot = slot
    return config


def autograde_notebooks(course: Course, student: str, config: Config) -> tuple[list[str], list[str]]:
    """nbgrader's autograde of ``student`` with ``config``, one notebook at a time (each judged by
    ``JudgeNotebook``), each from the file ``plan_notebooks`` picks (a renamed copy through a staged copy of the
    submission); print each one's nbgrader log and return the notebooks nbgrader executed and the notes on
    what it repaired or could not do."""
    source = {path.stem: grade_ids(path) for path in course.source.glob("*.ipynb")}
    plan = plan_notebooks(course.submitted(student), source)
    shutil.rmtree(course.autograded(student), ignore_errors=True)
    config = copy.deepcopy(config)
    if plan.renamed:
        stage_renamed(course.submitted(student), plan, course.root / STAGED / student / ASSIGNMENT)
        config.CourseDirectory.submitted_directory = STAGED
    executed, notes = [], list(plan.notes)
    for name in plan.files:
        config.CourseDirectory.notebook_id = name
        result = api(config).autograde(ASSIGNMENT, student, force=True, create=True)
        text = f"{result.get('log', '')}\n{result.get('error', '')}"
        print(f"[workbook] {name}.ipynb", text, sep="\n", flush=True)
        notes += [f"{name}: {note}" for note in log_notes(text)]
        if result["success"]:
            executed.append(name)
            continue
        result = api(without_execution(config)).autograde(ASSIGNMENT, student, force=True, create=True)
        print(f"[workbook] {name}.ipynb again, not executed", result.get("log", ""), result.get("error", ""),
              sep="\n", flush=True)
        then = ("graded without running it: its tests by the judge, its written answer by hand; its feedback "
                "page shows no outputs") if result["success"] else "nbgrader could not grade it: no feedback page"
        notes.append(f"{name}.ipynb could not be executed ({failure_reason(text) or 'see the log'}): {then}")
    shutil.rmtree(course.root / STAGED / student, ignore_errors=True)
    return executed, notes


def api(config: Config) -> NbGraderAPI:
    """nbgrader's API on ``config`` whose course directory reads ``timestamp.txt`` leniently (``workbook.intake``)."""
    return NbGraderAPI(coursedir=LenientTimestamps(config=config), config=config)


def without_execution(config: Config) -> Config:
    """A copy of ``config`` whose autograde runs every preprocessor of nbgrader's but ``Execute`` (or the
    sandboxed one): the notebook is sanitized and saved, its answers graded, its code not run; the judge
    (told so by ``JudgeNotebook.executed``) scores its tests."""
    config = copy.deepcopy(config)
    steps = config.Autograde.get("autograde_preprocessors",
                                 Autograde.class_traits()["autograde_preprocessors"].default())
    config.Autograde.autograde_preprocessors = [
        step for step in steps if not issubclass(import_item(step) if isinstance(step, str) else step, Execute)]
    config.JudgeNotebook.executed = False
    return config


def grade_one(course: Course, student: str, timeout: int, isolation: str | None = None, slot: int = 0) -> dict:
    """Worker body: ``autograde_notebooks`` with kernels and runners in sandbox ``slot`` under ``isolation``
    (default: the course config's); then the judge scores the labs nbgrader could not reach, the notes are
    saved with the results and the late penalty is recomputed; print the judge's summary; return the report
    (``graded``, ``all_executed``)."""
    results_path(course, student).unlink(missing_ok=True)
    config = grading_config(course, timeout, isolation, slot)
    executed, notes = autograde_notebooks(course, student, config)
    _, timestamp_note = read_timestamp(course.submitted(student))
    notes = [*([timestamp_note] if timestamp_note else []), *notes]
    results = finish_results(course, student, course_isolation(course, isolation), slot, executed, notes)
    refresh_late_penalties(course, [student])
    for lab in results["labs"]:
        points = sum(lab["scores"].values())
        print(f"[workbook] judge: lab {lab['lab']}: {points:g} points, {lab['status']}", flush=True)
    for note in notes:
        print(f"[workbook] note: {note}", flush=True)
    return {"graded": True, "all_executed": len(executed) == len(list(course.source.glob("*.ipynb")))}


def grade_with_progress(course: Course, students: list[str] | None, jobs: int | None, timeout: int | None,
                        console: Console, submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
                        isolation: str | None = None) -> list[Outcome]:
    """``autograde`` with a rich progress bar (one step per student), then the summary table; return the outcomes.

    Prints the isolation in force (``course_isolation`` of ``isolation``) first; raises ``SandboxUnavailable``
    before grading anything when it is ``required`` and this machine cannot sandbox."""
    chosen = select_students(course, students)
    sandbox = course_isolation(course, isolation)
    console.print(sandbox.describe(slots=min(jobs or default_jobs(), len(chosen))), highlight=False)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        task = progress.add_task("autograding", total=len(chosen))
        active: list[str] = []

        def started(student: str) -> None:
            active.append(student)
            progress.update(task, description=f"autograding {', '.join(active)}")

        def finished(outcome: Outcome) -> None:
            active.remove(outcome.student)
            progress.update(task, advance=1, description=f"autograding {', '.join(active)}" if active else "done")

        outcomes = autograde(course, chosen, jobs=jobs, timeout=timeout, submission_timeout=submission_timeout,
                             on_start=started, on_done=finished, isolation=sandbox)
    print_summary(course, outcomes, console)
    return outcomes


def status_text(course: Course, outcome: Outcome) -> str:
    """The status column of ``outcome`` (rich markup; the student-controlled parts escaped): ``graded`` and the
    student's notes (``scoring.status_notes``: labs whose judging hit a limit, a malformed timestamp,
    accidents, notebooks not executed, cells marked for review); or the status in red and why."""
    if not outcome.graded:
        return f"[red]{outcome.status}[/]: {escape(outcome.reason())}"
    return escape("; ".join(["graded", *status_notes(course, outcome.student)]))


def print_summary(course: Course, outcomes: list[Outcome], console: Console) -> None:
    """The per-student, per-lab table of the graded students, with each one's status; then the notes on
    hand-graded answers still to grade, late penalties and cells marked for review."""
    status = {outcome.student: status_text(course, outcome) for outcome in outcomes}
    with course.gradebook() as gradebook:
        grades = read_grades(gradebook, [outcome.student for outcome in outcomes])
        notebooks = notebook_names(gradebook)
    console.print(grade_table(grades, notebooks, status, title=f"autograde: {ASSIGNMENT}"))
    print_manual_grading_note(console, grades)
    print_late_notes(console, course, grades)
    print_review_notes(console, course, [outcome.student for outcome in outcomes])


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook autograde``."""
    parser = subparsers.add_parser("autograde", help="grade the submissions, in parallel, with a summary table",
                                   description="Autograde submitted/STUDENT/compaction_labs/ with nbgrader, each "
                                   "notebook on its own, and score every lab with the judge; then print each "
                                   "student's autograded points per lab, the hand-graded points (pending until "
                                   "graded in nbgrader's formgrader), the total and a status naming whatever "
                                   "went wrong (a notebook that crashed, a copied, deleted or edited cell, a "
                                   "renamed or missing notebook, a malformed timestamp). A submission that hangs "
                                   "or crashes its grading fails alone; its log is logs/autograde/STUDENT.log.")
    parser.add_argument("students", nargs="*", metavar="STUDENT", help="students to grade (default: all submitted)")
    add_course_option(parser)
    parser.add_argument("--jobs", type=int, default=None,
                        help=f"students graded at the same time (default: the number of cores, {default_jobs()})")
    parser.add_argument("--timeout", type=int, default=None,
                        help="seconds per cell before it is interrupted (default: the course's Execute.timeout, "
                        f"{DEFAULT_CELL_TIMEOUT} as built, the limit the notebooks state and Validate uses)")
    parser.add_argument("--submission-timeout", type=float, default=DEFAULT_SUBMISSION_TIMEOUT,
                        help=f"seconds per student before its grading is killed (default {DEFAULT_SUBMISSION_TIMEOUT})")
    parser.add_argument("--isolation", choices=MODES,
                        help="where student code runs. Default: the course config's "
                        "SandboxKernelManager.isolation, which `workbook build` sets to auto. required: in a "
                        "bubblewrap sandbox, or not graded at all; auto: in the sandbox where this machine has one, "
                        "else as this user; off: as this user, never sandboxed")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook autograde`` with the parsed ``args``; return the exit code."""
    outcomes = grade_with_progress(Course(args.course), args.students, args.jobs, args.timeout, console,
                                   args.submission_timeout, args.isolation)
    return 0 if all(outcome.graded for outcome in outcomes) else 1
