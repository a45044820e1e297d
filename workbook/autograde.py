"""``workbook autograde``: nbgrader's autograde, one student per process, several at a time.

nbgrader grades one submission at a time. Here every student is graded by its own worker process
(``python -m workbook.autograde COURSE STUDENT``), at most ``jobs`` at once. The worker runs
``NbGraderAPI.autograde`` (the notebooks, executed for the feedback page and the cross-check), then the
judge (``workbook.scoring``), which scores every lab outside the student's process and writes those
points into the gradebook. That isolates failures: a submission whose code hangs is interrupted cell by
cell (``Execute.timeout``), and a worker still running after ``submission_timeout`` seconds is
killed with its kernels; a kernel that crashes or calls ``os._exit`` fails only its own
submission, whose status then says so. The others are graded as usual.

Kernels of a course built by ``workbook build`` talk over ipc sockets in their private folders (see
``workbook.sandbox_kernel``). With nbgrader's own ``Execute`` (an older course config), kernels started
at the same moment by parallel workers can race for the same free TCP port (jupyter_client picks
ports per process); such a kernel dies before it runs any cell, and the worker grades that student
again (``KERNEL_START_ATTEMPTS`` times in all). Failures once the student's code runs are never retried.

The gradebook stays consistent because each worker writes only its own student's rows, and
nbgrader commits in short transactions. For SQLite, concurrent writers must wait for each other
instead of failing with "database is locked": every SQLite connection the worker opens gets
``PRAGMA busy_timeout`` (``SQLITE_BUSY_TIMEOUT`` seconds). PostgreSQL needs nothing.
Each worker's nbgrader log is ``logs/autograde/STUDENT.log`` in the course.

Sandbox: the students' kernels run in ``workbook.sandbox`` (the course config's
``SandboxKernelManager``); ``--isolation`` (default: the course config's, ``auto``) is resolved once
here and printed before grading; in mode ``required`` nothing is graded where this machine cannot
sandbox. Each concurrent worker gets its own sandbox slot (uid). Before a worker starts,
``workbook.intake`` checks the submission: a refused one (symlinks, special files, oversized files) is
not graded and its status names the problem; a malformed ``timestamp.txt`` is graded as on time with
a note.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from sqlalchemy import event
from sqlalchemy.engine import Engine

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
from .intake import LenientTimestamps, check_submission
from .labs import LABS
from .sandbox import MODES, Isolation, SandboxUnavailable, detect, kill_group
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
    """How grading one student ended: ``status`` is ``graded`` (the judge scored every lab), ``failed``,
    ``timed out`` or ``refused`` (by intake, not graded); ``log`` is the log file; ``note`` is intake's reason
    or remark (e.g. a malformed timestamp); ``executed`` says whether nbgrader executed the notebooks."""

    student: str
    status: str
    seconds: float
    log: Path
    note: str = ""
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
        if self.status == "refused":
            return f"not graded: {self.note}"
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


def autograde(course: Course, students: list[str] | None = None, jobs: int = 1,
              timeout: int = DEFAULT_CELL_TIMEOUT, submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
              on_start: Callable[[str], None] = lambda student: None,
              on_done: Callable[[Outcome], None] = lambda outcome: None,
              isolation: Isolation | None = None) -> list[Outcome]:
    """Grade ``students`` (default: all submitted) with ``jobs`` worker processes; return outcomes in student order.

    ``timeout`` is the per-cell limit in seconds, ``submission_timeout`` the limit for one student.
    ``on_start``/``on_done`` are called in this process as workers start and finish (for progress).
    ``isolation`` (default ``course_isolation(course)``) is what every worker's kernels get: sandboxed
    (the workers then require it) or not. Submissions that intake refuses are not graded.
    Raises ``CourseError`` for an unknown student, no submissions, or an unreleased assignment, and
    ``SandboxUnavailable`` when the course requires a sandbox that this machine cannot give.
    """
    if jobs < 1:
        raise CourseError(f"--jobs must be at least 1, got {jobs}")
    chosen = select_students(course, students)
    require_released(course)
    isolation = isolation or course_isolation(course)
    mode = "required" if isolation.enforced else "off"
    waiting, running, done, slots = list(chosen), {}, {}, list(range(jobs))
    while waiting or running:
        while waiting and len(running) < jobs:
            student = waiting.pop(0)
            on_start(student)
            intake = check_submission(course.submitted(student))
            if not intake.accepted:
                done[student] = _refuse(course, student, "; ".join(intake.refused))
                on_done(done[student])
                continue
            slot = slots.pop(0)
            running[student] = (*_start_worker(course, student, timeout, mode, slot), slot, "; ".join(intake.notes))
        for student, (process, started, slot, note) in list(running.items()):
            elapsed = time.monotonic() - started
            if process.poll() is None and elapsed <= submission_timeout:
                continue
            if process.poll() is None:
                kill_group(process)
                status = "timed out"
            else:
                status = "graded" if process.returncode in (0, NOTEBOOKS_NOT_EXECUTED) else "failed"
            del running[student]
            slots.append(slot)
            done[student] = Outcome(student, status, elapsed, log_path(course, student), note,
                                    executed=process.returncode == 0)
            on_done(done[student])
        time.sleep(0.1)
    return [done[student] for student in chosen]


def _start_worker(course: Course, student: str, timeout: int, isolation: str,
                  slot: int) -> tuple[subprocess.Popen, float]:
    log = log_path(course, student)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "workbook.autograde", str(course.root), student, "--timeout", str(timeout),
             "--isolation", isolation, "--slot", str(slot)],
            stdin=subprocess.DEVNULL, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
        )
    return process, time.monotonic()


def _refuse(course: Course, student: str, problems: str) -> Outcome:
    """The outcome of a submission intake refused; the log says why."""
    log = log_path(course, student)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"[workbook] submission refused, not graded: {problems}\n", encoding="utf-8")
    return Outcome(student, "refused", 0.0, log, problems)


def sqlite_busy_timeout(seconds: float) -> None:
    """Make every SQLite connection opened from now on in this process wait ``seconds`` for a lock."""

    @event.listens_for(Engine, "connect")
    def _set_busy_timeout(dbapi_connection, connection_record) -> None:
        if type(dbapi_connection).__module__.startswith("sqlite3"):
            dbapi_connection.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


def grade_one(course: Course, student: str, timeout: int, isolation: str | None = None, slot: int = 0) -> bool:
    """Worker body: autograde ``student`` with nbgrader in this process (the notebooks, for feedback and the
    cross-check), kernels in sandbox ``slot`` under ``isolation`` (default: the course config's); then let
    the judge score every lab, its runners in the same sandbox slot (``workbook.scoring``); print nbgrader's
    log and the judge's summary; return whether nbgrader executed the notebooks."""
    sqlite_busy_timeout(SQLITE_BUSY_TIMEOUT)
    results_path(course, student).unlink(missing_ok=True)
    config = course.config()
    config.Execute.timeout = timeout
    if isolation:
        config.SandboxKernelManager.isolation = isolation
    config.SandboxKernelManager.slot = slot
    api = NbGraderAPI(coursedir=LenientTimestamps(config=config), config=config)
    executed = False
    for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
        result = api.autograde(ASSIGNMENT, student, force=True, create=True)
        text = f"{result.get('log', '')}\n{result.get('error', '')}"
        print(f"[workbook] attempt {attempt}", text, sep="\n", flush=True)
        executed = bool(result["success"])
        if executed or not KERNEL_START_FAILURE.search(text):
            break
    judged = {lab["lab"] for lab in (read_results(course, student) or {"labs": []})["labs"]}
    missing = tuple(lab.number for lab in LABS if lab.number not in judged)  # notebooks nbgrader did not get to
    results = score_submission(course, student, course_isolation(course, isolation), slot, missing) if missing \
        else read_results(course, student)
    for lab in results["labs"]:
        points = sum(lab["scores"].values())
        print(f"[workbook] judge: lab {lab['lab']}: {points:g} points, {lab['status']}", flush=True)
    return executed


def worker_main(argv: list[str] | None = None) -> int:
    """Worker entry point: ``python -m workbook.autograde COURSE STUDENT [--timeout S] [--isolation M] [--slot N]``;
    exit 0 when graded, ``NOTEBOOKS_NOT_EXECUTED`` when judged without executed notebooks, another status on
    failure."""
    ignore_nbgrader_add_submission_warning()  # nbgrader's own SQLAlchemy 2 noise in every log, see that module
    parser = argparse.ArgumentParser(prog="python -m workbook.autograde",
                                     description="Autograde one student's submission with nbgrader (the worker "
                                     "process of `workbook autograde`); exit status 0 when graded.")
    parser.add_argument("course", type=Path)
    parser.add_argument("student")
    parser.add_argument("--timeout", type=int, default=DEFAULT_CELL_TIMEOUT)
    parser.add_argument("--isolation", choices=MODES)
    parser.add_argument("--slot", type=int, default=0)
    args = parser.parse_args(argv)
    executed = grade_one(Course(args.course), args.student, args.timeout, args.isolation, args.slot)
    return 0 if executed else NOTEBOOKS_NOT_EXECUTED


def grade_with_progress(course: Course, students: list[str] | None, jobs: int, timeout: int,
                        console: Console, submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
                        isolation: str | None = None) -> list[Outcome]:
    """``autograde`` with a rich progress bar (one step per student), then the summary table; return the outcomes.

    Prints the isolation in force (``course_isolation`` of ``isolation``) first; raises ``SandboxUnavailable``
    before grading anything when it is ``required`` and this machine cannot sandbox."""
    chosen = select_students(course, students)
    sandbox = course_isolation(course, isolation)
    console.print(sandbox.describe(slots=min(jobs, len(chosen))), highlight=False)
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
    """The status cell (rich markup; the student-controlled parts escaped): ``graded`` with intake's note,
    the labs whose grading hit a limit or a crash, notebooks nbgrader could not execute and the number of
    cells marked for review; or the status in red and the reason."""
    if not outcome.graded:
        return f"[red]{outcome.status}[/]: {escape(outcome.reason())}"
    notes = [outcome.note] if outcome.note else []
    results = read_results(course, outcome.student) or {"labs": []}
    notes += [f"lab {lab['lab']}: {lab['status']}" for lab in results["labs"] if lab["status"] != "graded"]
    if not outcome.executed:
        notes.append(f"notebooks not executed, feedback incomplete: {outcome.reason(force=True)}")
    review = review_cells(course, outcome.student)
    if review:
        notes.append(f"review {len(review)} cell{'s' if len(review) != 1 else ''}")
    return escape("; ".join(["graded", *notes]))


def print_summary(course: Course, outcomes: list[Outcome], console: Console) -> None:
    """The per-student, per-lab table of the graded students, with each one's status, then the notes on
    hand-graded answers still to grade and on cells marked for review."""
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
    parser.add_argument("--isolation", choices=MODES,
                        help="student code in a bubblewrap sandbox: required (refuse to grade without one), auto "
                        "(sandbox where possible, else run it as this user), off (default: the course config's "
                        "SandboxKernelManager.isolation, auto as `workbook build` writes it)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook autograde`` with the parsed ``args``; return the exit code."""
    outcomes = grade_with_progress(Course(args.course), args.students, args.jobs, args.timeout, console,
                                   args.submission_timeout, args.isolation)
    return 0 if all(outcome.graded for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(worker_main())
