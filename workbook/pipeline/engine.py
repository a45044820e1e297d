"""Where grading tasks run: Dask's ``distributed``, on a local cluster or on a running one.

``workbook autograde --jobs N`` starts a local cluster of N worker processes (one thread each, so one student
at a time per process; nbgrader imported once per process); ``--scheduler tcp://HOST:8786``, or the
``DASK_SCHEDULER_ADDRESS`` convention, sends the tasks to a running cluster instead, whose worker machines need
the project and bubblewrap installed and nothing of the course (``docs/instructors/at-scale.md``). Either way
``run_tasks`` submits one task per student and hands each result to the caller, in this process, as it comes.

What the engine does for us: a worker that dies takes no student with it (the scheduler gives its tasks to
another worker); a task whose worker died ``ALLOWED_FAILURES`` times is given up (``KilledWorker``), and only
that student fails. What it does not, and ``run_tasks`` adds: a student still being graded after the
submission timeout is cancelled and its worker restarted (by its nanny), which ends its kernels and runners
(their sandboxes die with their parent). A task counts as started when the scheduler shows it processing on
a worker, so a cluster's scheduler must send each worker one task at a time per thread
(``distributed.scheduler.worker-saturation: 1.0``, which the local cluster sets).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import dask
from distributed import Client, Future, KilledWorker, LocalCluster, wait
from distributed.client import FuturesCancelledError

from workbook.errors import CourseError

DEFAULT_SUBMISSION_TIMEOUT = 900
"""Seconds one student's whole grading may take before its worker is restarted."""
ALLOWED_FAILURES = 2
"""Times a task's worker may die under it before the student is given up, on a local cluster (Dask tries it
again elsewhere until then; a running cluster's scheduler has its own setting)."""
SCHEDULER_VARIABLE = "DASK_SCHEDULER_ADDRESS"
"""Dask's own convention: the scheduler to use when ``--scheduler`` is not given."""
CONNECT_SECONDS = 30
"""How long to try to reach a running cluster's scheduler."""
POLL_SECONDS = 0.5
"""How often the scheduler is asked which tasks are running."""
SETTINGS = {"distributed.scheduler.worker-saturation": 1.0, "distributed.scheduler.allowed-failures": ALLOWED_FAILURES}
"""The settings of a local cluster's scheduler (see the module)."""


def default_jobs() -> int:
    """The number of cores this process may run on (at least 1)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class TaskEnd:
    """How one student's task ended: ``status`` ``done`` (``value`` is the task's return), ``failed`` or
    ``timed out`` (``why`` says what happened); ``seconds`` from its start on a worker (or its submission)."""

    student: str
    status: str
    seconds: float
    value: Any = None
    why: str = ""


@contextlib.contextmanager
def grading_client(jobs: int, scheduler: str | None = None) -> Iterator[Client]:
    """A Dask client on the cluster at ``scheduler`` (default ``$DASK_SCHEDULER_ADDRESS``), or, when neither is
    given, on a local cluster of ``jobs`` single-threaded worker processes, which ends with the block. Raises
    ``CourseError`` for ``jobs`` below 1 or a scheduler that cannot be reached."""
    address = scheduler or os.environ.get(SCHEDULER_VARIABLE)
    if address:
        try:
            client = Client(address, timeout=CONNECT_SECONDS)
        except OSError as error:
            raise CourseError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        with client:
            yield client
        return
    if jobs < 1:
        raise CourseError(f"--jobs must be at least 1, got {jobs}")
    with dask.config.set(SETTINGS):
        cluster = LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        with cluster, Client(cluster) as client:
            yield client


def _shared(value: Any) -> Any:
    """The task that holds what every task of a run shares (the grading bundle)."""
    return value


def run_tasks(
    client: Client,
    function: Callable[[Any, Any], Any],
    items: dict[str, Any],
    shared: Any,
    timeout: float,
    on_start: Callable[[str], None] = lambda student: None,
    on_end: Callable[[TaskEnd], None] = lambda end: None,
) -> dict[str, TaskEnd]:
    """Run ``function(item, shared)`` for every ``student: item`` of ``items`` on ``client``'s cluster (``shared``
    is sent to the workers once); call ``on_start``/``on_end`` in this process as students start and end;
    return how each ended. A task that raises, or whose workers keep dying, fails alone; one running longer
    than ``timeout`` seconds is cancelled and its worker restarted."""
    run = uuid.uuid4().hex[:8]
    # A task, not scattered data: the scheduler keeps it, so a worker that dies holding it loses nothing.
    bundle = client.submit(_shared, shared, key=f"shared-{run}", pure=False)
    futures: dict[str, Future] = {
        student: client.submit(function, item, bundle, key=f"grade-{run}-{student}", pure=False)
        for student, item in items.items()
    }
    by_key = {future.key: student for student, future in futures.items()}
    submitted, started, ends = time.monotonic(), dict[str, float](), dict[str, TaskEnd]()

    def end(student: str, status: str, value: Any = None, why: str = "") -> None:
        if student not in started:
            started[student] = submitted
            on_start(student)
        ends[student] = TaskEnd(student, status, time.monotonic() - started[student], value, why)
        on_end(ends[student])

    pending = set(futures.values())
    while pending:
        try:
            wait(pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
        except (TimeoutError, FuturesCancelledError):  # none finished meanwhile, or some were cancelled
            pass
        finished = {future for future in pending if future.status != "pending"}
        pending -= finished
        for future in finished:
            student = by_key[future.key]
            if future.status == "finished":
                end(student, "done", future.result())
            elif future.status == "error":
                error = future.exception()
                why = (
                    "its grading process died each time it was tried (Dask's KilledWorker)"
                    if isinstance(error, KilledWorker)
                    else f"{type(error).__name__}: {error}"
                )
                end(student, "failed", why=why)
            else:
                end(student, "failed", why=f"its task was {future.status} by the cluster")
        now = time.monotonic()
        for worker, keys in client.processing().items():
            for key in keys:
                running = by_key.get(key)
                if running is None or running in ends:
                    continue
                student = running
                if student not in started:
                    started[student] = now
                    on_start(student)
                elif now - started[student] > timeout:
                    future = futures[student]
                    pending.discard(future)
                    future.cancel()
                    client.restart_workers([worker], raise_for_error=False)
                    end(student, "timed out", why=f"still running after {timeout:g} s")
    return ends
