"""Long-lived grading processes for ``workbook autograde``: nbgrader imported once, one student at a time each.

A worker is ``python -m workbook.pipeline.workers COURSE --slot N --report-fd FD``. It imports nbgrader and the judge
once, then grades the students it reads from its standard input (one JSON line each: ``{"student": ...}`` and
the settings of the run, e.g. ``"timeout"``, passed on as keyword arguments) one after the other with
``workbook.pipeline.autograde.grade_one``. While it grades a student,
what it and the kernels and runners it starts print goes to that student's log
(``logs/autograde/STUDENT.log``; between students, to ``logs/workers/worker-N.log``); when done it writes
the student's report, one JSON line, to the pipe ``FD``.

``WorkerPool`` keeps ``jobs`` workers, each in its own sandbox slot (worker N uses the N-th sandbox uid the run
holds, handed down in its environment: ``workbook.grading.sandbox_users``), and sends every waiting student to an
idle one. A worker that dies while grading costs that student (``failed``); one still grading a student after
the submission timeout is killed with its process group (``timed out``); either way a new worker takes its
slot and the others go on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbook.grading.sandbox import kill_group
from workbook.lean_imports import skip_iri_grammar

if TYPE_CHECKING:  # the worker's entry point imports it, after skip_iri_grammar (nbgrader comes with it)
    from workbook.course.layout import Course


DEFAULT_SUBMISSION_TIMEOUT = 900
"""Seconds one student's whole grading may take before its worker is killed."""


def default_jobs() -> int:
    """The number of cores this process may run on (at least 1)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class Finished:
    """One student's grading as the pool saw it: ``status`` ``graded`` (the worker reported, see ``report``),
    ``failed`` (the worker died or reported an error) or ``timed out``; ``why`` says what happened to a
    worker that did not report."""

    student: str
    status: str
    seconds: float
    report: dict[str, Any] = field(default_factory=dict)
    why: str = ""


def worker_log(course: Course, slot: int) -> Path:
    """``COURSE/logs/workers/worker-N.log``: what worker ``N`` prints between students."""
    return course.root / "logs" / "workers" / f"worker-{slot}.log"


class _Worker:
    """One worker process, the pipe it reports on, and the student it is grading (None when idle)."""

    def __init__(self, course: Course, slot: int, environment: dict[str, str]) -> None:
        self.slot, self.started, self.pending = slot, 0.0, b""
        self.student: str | None = None
        read_end, write_end = os.pipe()
        log = worker_log(course, slot)
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as handle:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "workbook.pipeline.workers",
                    str(course.root),
                    "--slot",
                    str(slot),
                    "--report-fd",
                    str(write_end),
                ],
                stdin=subprocess.PIPE,
                stdout=handle,
                stderr=subprocess.STDOUT,
                pass_fds=(write_end,),
                start_new_session=True,
                text=True,
                env={**os.environ, **environment},
            )
        os.close(write_end)
        self.reports = read_end
        assert self.process.stdin is not None  # stdin=PIPE above
        self.orders = self.process.stdin

    def send(self, student: str, settings: dict[str, Any]) -> None:
        """Start grading ``student`` with ``settings`` (keyword arguments of ``grade_one``)."""
        self.student, self.started = student, time.monotonic()
        self.orders.write(json.dumps({**settings, "student": student}) + "\n")
        self.orders.flush()

    def read(self) -> list[dict[str, Any]] | None:
        """The complete report lines waiting on the pipe; None once the worker has closed it (exited)."""
        chunk = os.read(self.reports, 65536)
        if not chunk:
            return None
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    def stop(self, kill: bool = False) -> str:
        """End the worker (its process group when ``kill``, else by closing its input); return how it ended."""
        if kill:
            kill_group(self.process)
        with contextlib.suppress(OSError):
            self.orders.close()
        try:
            self.process.wait(timeout=None if kill else 30)
        except subprocess.TimeoutExpired:
            return self.stop(kill=True)
        os.close(self.reports)
        code = self.process.returncode
        return f"killed by signal {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"


class WorkerPool:
    """``jobs`` workers on ``course`` (use as a context manager: the workers end with it), started with
    ``environment`` added to this process's (e.g. the sandbox uids the run holds for them)."""

    def __init__(self, course: Course, jobs: int, environment: dict[str, str] | None = None) -> None:
        self.course, self.selector, self.environment = course, selectors.DefaultSelector(), dict(environment or {})
        self.workers = [self._start(slot) for slot in range(jobs)]

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for worker in self.workers:
            self.selector.unregister(worker.reports)
            worker.stop(kill=worker.student is not None)
        self.selector.close()

    def _start(self, slot: int) -> _Worker:
        worker = _Worker(self.course, slot, self.environment)
        self.selector.register(worker.reports, selectors.EVENT_READ, worker)
        return worker

    def _replace(self, worker: _Worker, kill: bool) -> str:
        self.selector.unregister(worker.reports)
        why = worker.stop(kill=kill)
        self.workers[self.workers.index(worker)] = self._start(worker.slot)
        return why

    def grade(
        self,
        students: list[str],
        settings: dict[str, Any],
        submission_timeout: float,
        on_start: Callable[[str], None] = lambda student: None,
        on_done: Callable[[Finished], None] = lambda finished: None,
    ) -> dict[str, Finished]:
        """Grade ``students`` (each once, by the first idle worker); return what happened to each.

        ``settings`` (plain data) go to every worker's ``grade_one`` as keyword arguments, e.g. ``{"timeout": 20}``
        (seconds per cell); ``submission_timeout`` is the limit for one student's grading.
        """
        waiting, done = list(students), dict[str, Finished]()

        def finish(worker: _Worker, status: str, report: dict[str, Any], why: str = "") -> None:
            student, worker.student = worker.student, None
            assert student is not None  # only a busy worker finishes
            done[student] = Finished(student, status, time.monotonic() - worker.started, report, why)
            on_done(done[student])

        while waiting or any(worker.student for worker in self.workers):
            for worker in [worker for worker in self.workers if worker.student is None]:
                if waiting:
                    student = waiting.pop(0)
                    worker.send(student, settings)
                    on_start(student)
            for key, _ in self.selector.select(timeout=0.2):
                worker = key.data
                lines = worker.read()
                if lines is None:
                    why = self._replace(worker, kill=False)
                    if worker.student:
                        finish(worker, "failed", {}, f"its grading process died ({why})")
                    continue
                for report in lines:
                    finish(worker, "graded" if report.get("graded") else "failed", report)
            for worker in list(self.workers):
                if worker.student and time.monotonic() - worker.started > submission_timeout:
                    self._replace(worker, kill=True)
                    finish(worker, "timed out", {}, f"still running after {submission_timeout:g} s")
        return done


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


def main(argv: list[str] | None = None) -> int:
    """Worker entry point (see the module): grade each student read from standard input, report each."""
    parser = argparse.ArgumentParser(
        prog="python -m workbook.pipeline.workers",
        description="A grading process of `workbook autograde`: grades the students "
        "it reads (JSON lines) on standard input, one at a time.",
    )
    parser.add_argument("course", type=Path)
    parser.add_argument("--slot", type=int, default=0, help="the sandbox slot of this worker (0 to jobs - 1)")
    parser.add_argument("--report-fd", type=int, required=True, help="the pipe to write each report line to")
    args = parser.parse_args(argv)
    skip_iri_grammar()
    from workbook.course.layout import Course
    from workbook.pipeline.student_grading import grade_one, log_path, prepare_worker

    course = Course(args.course)
    prepare_worker()
    for line in sys.stdin:
        job = json.loads(line)
        student = job.pop("student")
        with output_to(log_path(course, student)):
            try:
                report = grade_one(course, student, slot=args.slot, **job)
            except Exception:  # noqa: BLE001 (any failure costs this student only; the traceback is in its log)
                traceback.print_exc()
                report = {"graded": False}
        os.write(args.report_fd, (json.dumps({"student": student, **report}) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
