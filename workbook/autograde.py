"""``workbook autograde``: nbgrader's autograde, one student per process, several at a time.

nbgrader grades one submission at a time. Here every student is graded by its own worker process
(``python -m workbook.autograde COURSE STUDENT``, which calls ``NbGraderAPI.autograde``), at most
``jobs`` at once. That isolates failures: a submission whose code hangs is interrupted cell by
cell (``Execute.timeout``), and a worker still running after ``submission_timeout`` seconds is
killed with its kernels; a kernel that crashes or calls ``os._exit`` fails only its own
submission, whose status then says so. The others are graded as usual.

Kernels started at the same moment by parallel workers can race for the same free TCP port
(jupyter_client picks ports per process); such a kernel dies before it runs any cell, and the
worker grades that student again (``KERNEL_START_ATTEMPTS`` times in all). Failures once the
student's code runs are never retried.

The gradebook stays consistent because each worker writes only its own student's rows, and
nbgrader commits in short transactions. For SQLite, concurrent writers must wait for each other
instead of failing with "database is locked": every SQLite connection the worker opens gets
``PRAGMA busy_timeout`` (``SQLITE_BUSY_TIMEOUT`` seconds). PostgreSQL needs nothing.
Each worker's nbgrader log is ``logs/autograde/STUDENT.log`` in the course.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from sqlalchemy import event
from sqlalchemy.engine import Engine

from . import sandbox
from .course import ASSIGNMENT, DEFAULT_CELL_TIMEOUT, Course, CourseError, add_course_option, require_released
from .grades import grade_table, notebook_names, print_manual_grading_note, read_grades
from .scoring import print_review_notes, read_results, results_path, review_cells, score_submission
from .third_party_warnings import ignore_nbgrader_add_submission_warning

EXCEPTION_LINE = re.compile(r"^\s*(?:[\w.]+\.)?(\w+(?:Error|Exception|Interrupt): .{0,160})", re.MULTILINE)
DEFAULT_SUBMISSION_TIMEOUT = 900
"""Seconds one student's whole grading may take before its worker is killed."""
SQLITE_BUSY_TIMEOUT = 120
"""Seconds an SQLite writer waits for another process's transaction before giving up."""
KERNEL_START_ATTEMPTS = 3
KERNEL_START_FAILURE = re.compile(r"Address already in use|Kernel died before replying to kernel_info")
"""nbgrader log text of a kernel that failed to start (before any student code ran)."""


NOTEBOOKS_NOT_EXECUTED = 3
"""Worker exit status: the judge scored every lab, but nbgrader could not execute the notebooks."""


@dataclass(frozen=True)
class Outcome:
    """How grading one student ended: ``status`` is ``graded`` (the judge scored every lab), ``failed`` or
    ``timed out``; ``executed`` says whether nbgrader executed the notebooks; ``log`` is the log file."""

    student: str
    status: str
    seconds: float
    log: Path
    executed: bool = True

    @property
    def graded(self) -> bool:
        """True when autograde finished for this student."""
        return self.status == "graded"

    def reason(self, force: bool = False) -> str:
        """The last exception line of the log other than nbgrader's summary one (e.g. ``DeadKernelError:
        Kernel died``), and the log's path; empty when graded (unless ``force``)."""
        if self.graded and not force:
            return ""
        if self.status == "timed out":
            return f"still running after the submission timeout; see {self.log}"
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        exceptions = [line for line in EXCEPTION_LINE.findall(text) if not line.startswith("NbGraderException")]
        return f"{exceptions[-1]} (see {self.log})" if exceptions else f"see {self.log}"


def log_path(course: Course, student: str) -> Path:
    """Where the autograde log of ``student`` is written: ``COURSE/logs/autograde/STUDENT.log``."""
    return course.root / "logs" / "autograde" / f"{student}.log"


def select_students(course: Course, students: list[str] | None) -> list[str]:
    """The students to grade: ``students`` (each must have a submission) or everyone under ``submitted/``.

    Raises ``CourseError`` naming a student without a submission, or when there is none at all.
    """
    submitted = course.students()
    if students:
        missing = [student for student in students if student not in submitted]
        if missing:
            raise CourseError(f"no submission under {course.root / 'submitted'} for: {', '.join(missing)}")
        return list(dict.fromkeys(students))
    if not submitted:
        raise CourseError(f"no submissions under {course.root / 'submitted'}")
    return submitted


def autograde(course: Course, students: list[str] | None = None, jobs: int = 1,
              timeout: int = DEFAULT_CELL_TIMEOUT, submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
              on_start: Callable[[str], None] = lambda student: None,
              on_done: Callable[[Outcome], None] = lambda outcome: None) -> list[Outcome]:
    """Grade ``students`` (default: all submitted) with ``jobs`` worker processes; return outcomes in student order.

    ``timeout`` is the per-cell limit in seconds, ``submission_timeout`` the limit for one student.
    ``on_start``/``on_done`` are called in this process as workers start and finish (for progress).
    Raises ``CourseError`` for an unknown student, no submissions, or an unreleased assignment.
    """
    if jobs < 1:
        raise CourseError(f"--jobs must be at least 1, got {jobs}")
    chosen = select_students(course, students)
    require_released(course)
    waiting, running, done = list(chosen), {}, {}
    slots = {}  # student -> sandbox slot (each concurrent worker's runners get their own sandbox user)
    while waiting or running:
        while waiting and len(running) < jobs:
            student = waiting.pop(0)
            slots[student] = min(set(range(jobs)) - {slots[other] for other in running})
            running[student] = _start_worker(course, student, timeout, slots[student])
            on_start(student)
        for student, (process, started) in list(running.items()):
            elapsed = time.monotonic() - started
            if process.poll() is None and elapsed <= submission_timeout:
                continue
            if process.poll() is None:
                _kill(process)
                status = "timed out"
            else:
                status = "graded" if process.returncode in (0, NOTEBOOKS_NOT_EXECUTED) else "failed"
            del running[student]
            done[student] = Outcome(student, status, elapsed, log_path(course, student),
                                    executed=process.returncode == 0)
            on_done(done[student])
        time.sleep(0.1)
    return [done[student] for student in chosen]


def _start_worker(course: Course, student: str, timeout: int, slot: int) -> tuple[subprocess.Popen, float]:
    log = log_path(course, student)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "workbook.autograde", str(course.root), student, "--timeout", str(timeout),
             "--slot", str(slot)],
            stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
        )
    return process, time.monotonic()


def _kill(process: subprocess.Popen) -> None:
    """Kill the worker's process group; its kernels (own sessions) exit when they see their parent gone."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def sqlite_busy_timeout(seconds: float) -> None:
    """Make every SQLite connection opened from now on in this process wait ``seconds`` for a lock."""

    @event.listens_for(Engine, "connect")
    def _set_busy_timeout(dbapi_connection, connection_record) -> None:
        if type(dbapi_connection).__module__.startswith("sqlite3"):
            dbapi_connection.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


def grade_one(course: Course, student: str, timeout: int, slot: int = 0) -> bool:
    """Worker body: autograde ``student`` with nbgrader in this process (the notebooks, for feedback and the
    cross-check), then let the judge score every lab (``workbook.scoring``); print nbgrader's log and the
    judge's summary; return whether nbgrader executed the notebooks."""
    sqlite_busy_timeout(SQLITE_BUSY_TIMEOUT)
    results_path(course, student).unlink(missing_ok=True)
    config = course.config()
    config.Execute.timeout = timeout
    api = course.api(config)
    executed = False
    for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
        result = api.autograde(ASSIGNMENT, student, force=True, create=True)
        text = f"{result.get('log', '')}\n{result.get('error', '')}"
        print(f"[workbook] attempt {attempt}", text, sep="\n", flush=True)
        executed = bool(result["success"])
        if executed or not KERNEL_START_FAILURE.search(text):
            break
    results = score_submission(course, student, sandbox.detect("auto"), slot)
    for lab in results["labs"]:
        points = sum(lab["scores"].values())
        print(f"[workbook] judge: lab {lab['lab']}: {points:g} points, {lab['status']}", flush=True)
    return executed


def worker_main(argv: list[str] | None = None) -> int:
    """Worker entry point: ``python -m workbook.autograde COURSE STUDENT [--timeout S] [--slot N]``; exit 0
    when graded, ``NOTEBOOKS_NOT_EXECUTED`` when judged without executed notebooks, another status on failure."""
    ignore_nbgrader_add_submission_warning()  # nbgrader's own SQLAlchemy 2 noise in every log, see that module
    parser = argparse.ArgumentParser(prog="python -m workbook.autograde",
                                     description="Autograde one student's submission with nbgrader (the worker "
                                     "process of `workbook autograde`); exit status 0 when graded.")
    parser.add_argument("course", type=Path)
    parser.add_argument("student")
    parser.add_argument("--timeout", type=int, default=DEFAULT_CELL_TIMEOUT)
    parser.add_argument("--slot", type=int, default=0, help="the sandbox slot of this worker (0 to jobs - 1)")
    args = parser.parse_args(argv)
    return 0 if grade_one(Course(args.course), args.student, args.timeout, args.slot) else NOTEBOOKS_NOT_EXECUTED


def grade_with_progress(course: Course, students: list[str] | None, jobs: int, timeout: int,
                        console: Console, submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT) -> list[Outcome]:
    """``autograde`` with a rich progress bar (one step per student), then the summary table; return the outcomes."""
    chosen = select_students(course, students)
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
                             on_start=started, on_done=finished)
    print_summary(course, outcomes, console)
    return outcomes


def status_text(course: Course, outcome: Outcome) -> str:
    """The status column of ``outcome``: ``graded``, the labs whose grading hit a limit or a crash, notebooks
    nbgrader could not execute, the cells marked for review; or why it failed."""
    if not outcome.graded:
        return f"[red]{outcome.status}[/]: {outcome.reason()}"
    notes = [f"lab {lab['lab']}: {lab['status']}" for lab in (read_results(course, outcome.student) or {"labs": []})[
        "labs"] if lab["status"] != "graded"]
    if not outcome.executed:
        notes.append(f"notebooks not executed, feedback incomplete: {outcome.reason(force=True)}")
    review = review_cells(course, outcome.student)
    if review:
        notes.append(f"review {len(review)} cell{'s' if len(review) != 1 else ''}")
    return "; ".join(["graded", *notes])


def print_summary(course: Course, outcomes: list[Outcome], console: Console) -> None:
    """The per-student, per-lab table of the graded students, with each one's status."""
    status = {outcome.student: status_text(course, outcome) for outcome in outcomes}
    with course.gradebook() as gradebook:
        grades = read_grades(gradebook, [outcome.student for outcome in outcomes])
        notebooks = notebook_names(gradebook)
    console.print(grade_table(grades, notebooks, status, title=f"autograde: {ASSIGNMENT}"))
    print_manual_grading_note(console, grades)
    print_review_notes(console, course, [outcome.student for outcome in outcomes])


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook autograde``."""
    parser = subparsers.add_parser("autograde", help="grade the submissions, in parallel, with a summary table",
                                   description="Autograde submitted/STUDENT/compaction_labs/ with nbgrader, each "
                                   "student in its own process, then print each student's autograded points per "
                                   "lab, the hand-graded points (pending until graded in nbgrader's formgrader) "
                                   "and the total. A submission that hangs or crashes fails alone; its log is "
                                   "logs/autograde/STUDENT.log.")
    parser.add_argument("students", nargs="*", metavar="STUDENT", help="students to grade (default: all submitted)")
    add_course_option(parser)
    parser.add_argument("--jobs", type=int, default=1, help="students graded at the same time (default 1)")
    parser.add_argument("--timeout", type=int, default=DEFAULT_CELL_TIMEOUT,
                        help=f"seconds per cell before it is interrupted (default {DEFAULT_CELL_TIMEOUT})")
    parser.add_argument("--submission-timeout", type=float, default=DEFAULT_SUBMISSION_TIMEOUT,
                        help=f"seconds per student before its grading is killed (default {DEFAULT_SUBMISSION_TIMEOUT})")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook autograde`` with the parsed ``args``; return the exit code."""
    outcomes = grade_with_progress(Course(args.course), args.students, args.jobs, args.timeout, console,
                                   args.submission_timeout)
    return 0 if all(outcome.graded for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(worker_main())
