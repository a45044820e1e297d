"""Grading one student: nbgrader's autograde, notebook by notebook, each lab then scored by the judge.

``grade(submission, bundle)`` is a grading task: a function of plain data (``workbook.pipeline.bundle``) that
writes the bundle and the submission out as a scratch course with a throw-away gradebook of its own, runs
``grade_one`` there and returns what came of it (``workbook.pipeline.grade_result``); it never sees the course,
its gradebook or another student. ``grade_one`` grades a student of a course: nbgrader autogrades each notebook
on its own (``CourseDirectory.notebook_id``), in sandboxed kernels (``workbook.grading.kernel``, over Unix sockets, so
parallel workers never race for a TCP port); the course config's last autograde preprocessor, the judge
(``workbook.grading.scoring.JudgeNotebook``), then scores that notebook's lab outside the student's process and
writes its points into the gradebook. A kernel that crashes, hangs or calls ``os._exit`` costs only the
notebook where it happened, and only its feedback: that notebook is autograded again without ``Execute``
(``without_execution``), so the judge still scores its lab, its written answer still reaches the
formgrader and its page still shows the judge's results, without outputs. The judge then scores any lab
whose notebook nbgrader could not grade at all (missing, unreadable), and late penalties are recomputed
(``workbook.course.late``). What intake and nbgrader repaired or could not do (a malformed timestamp, a copied,
deleted or edited cell, a renamed, missing or extra notebook, a notebook not executed:
``workbook.course.accidents``) is kept as notes in the student's results and shown in the status.

A student's own sandbox processes (kernels, runners) run as the grading process's sandbox uid
(``workbook.grading.sandbox_users``: the first uid it holds, taken on first use).
"""

from __future__ import annotations

import contextlib
import copy
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from workbook.course.accidents import failure_reason, grade_ids, log_notes, plan_notebooks, stage_renamed
from workbook.course.intake import TrustedTimestamps, timestamp_note
from workbook.course.late import refresh_late_penalties
from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.received import submission_time
from workbook.grading.isolation import course_isolation
from workbook.grading.results import results_path
from workbook.grading.scoring import finish_results
from workbook.pipeline.bundle import GradingBundle, Submission
from workbook.pipeline.grade_result import GradeResult, failed_result, read_result
from workbook.third_party_warnings import ignore_nbgrader_add_submission_warning

STAGED = "grading/staged"
"""Where a submission with a renamed notebook is copied, renamed back, for nbgrader while it grades it (relative
to the course; removed afterwards)."""


def log_path(course: Course, student: str) -> Path:
    """Where the autograde log of ``student`` is written: ``COURSE/logs/autograde/STUDENT.log``."""
    return course.root / "logs" / "autograde" / f"{student}.log"


def grade(submission: Submission, bundle: GradingBundle) -> GradeResult:
    """Grade ``submission`` with ``bundle`` in a scratch course of its own (a temporary folder, removed after) and
    return the result: ``graded`` with the scratch gradebook's rows of the student, the judge's results and the
    autograded files, or ``failed`` (an error of the grading itself; its traceback is in the result's log).
    Never raises for what a submission does; the process's standard output and error go to the log meanwhile."""
    ignore_nbgrader_add_submission_warning()  # nbgrader's own SQLAlchemy 2 noise in every log, see that module
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="workbook-grading-") as folder:
        course = bundle.materialize(Path(folder))
        submission.materialize(course)
        log = log_path(course, submission.student)
        report = None
        with output_to(log):
            try:
                report = grade_one(course, submission.student, bundle.timeout, bundle.isolation)
            except Exception:  # noqa: BLE001 (any failure costs this student only; the traceback is in its log)
                traceback.print_exc()
        text = log.read_text(encoding="utf-8", errors="replace")
        seconds = time.monotonic() - started
        if report is None:
            return failed_result(submission, text, seconds)
        return read_result(course, submission, text, seconds, bool(report["all_executed"]))


@contextlib.contextmanager
def output_to(path: Path) -> Iterator[None]:
    """Send this process's standard output and error (file descriptors 1 and 2, so also what the processes
    it starts print) to ``path`` (truncated), and back afterwards."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(target, 1)
    os.dup2(target, 2)
    os.close(target)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


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
        print(
            f"[workbook] {name}.ipynb again, not executed",
            result.get("log", ""),
            result.get("error", ""),
            sep="\n",
            flush=True,
        )
        then = (
            (
                "graded without running it: its tests by the judge, its written answer by hand; its feedback "
                "page shows no outputs"
            )
            if result["success"]
            else "nbgrader could not grade it: no feedback page"
        )
        notes.append(f"{name}.ipynb could not be executed ({failure_reason(text) or 'see the log'}): {then}")
    shutil.rmtree(course.root / STAGED / student, ignore_errors=True)
    return executed, notes


def api(config: Config) -> NbGraderAPI:
    """nbgrader's API on ``config`` taking each submission's time from its receipt, never from ``timestamp.txt``
    (``workbook.course.intake``)."""
    return NbGraderAPI(coursedir=TrustedTimestamps(config=config), config=config)


def without_execution(config: Config) -> Config:
    """A copy of ``config`` whose autograde runs every preprocessor of nbgrader's but ``Execute`` (or the
    sandboxed one): the notebook is sanitized and saved, its answers graded, its code not run; the judge
    (told so by ``JudgeNotebook.executed``) scores its tests."""
    config = copy.deepcopy(config)
    steps = config.Autograde.get(
        "autograde_preprocessors", Autograde.class_traits()["autograde_preprocessors"].default()
    )
    config.Autograde.autograde_preprocessors = [
        step for step in steps if not issubclass(import_item(step) if isinstance(step, str) else step, Execute)
    ]
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
    note = timestamp_note(course.submitted(student), submission_time(course, student))
    notes = [*([note] if note else []), *notes]
    results = finish_results(course, student, course_isolation(course, isolation), slot, executed, notes)
    refresh_late_penalties(course, [student])
    for lab in results["labs"]:
        points = sum(lab["scores"].values())
        seed = f", generated variants of seed {lab['seed']}" if lab.get("seed") is not None else ""
        print(f"[workbook] judge: lab {lab['lab']}: {points:g} points, {lab['status']}{seed}", flush=True)
    for note in notes:
        print(f"[workbook] note: {note}", flush=True)
    return {"graded": True, "all_executed": len(executed) == len(list(course.source.glob("*.ipynb")))}
