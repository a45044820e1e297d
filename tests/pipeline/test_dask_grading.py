"""Grading on a running Dask cluster (issue 23): a scheduler and two workers, each its own process on loopback
(``dask scheduler``, ``dask worker``), grade the four samples and a submission whose kernel crashes, one
worker killed (SIGKILL) while it grades; the gradebook equals the one ``--jobs 2`` writes for the same
submissions, every student recorded once. Then ``workbook autograde`` itself killed half-way and run again:
no student half-recorded, the rest graded."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from accident_submissions import DUE, set_due_date_and_zero_penalty, solutions_with

from workbook.authoring.samples import SAMPLES
from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.submit import submit
from workbook.grading.results import read_results
from workbook.pipeline.autograde import Outcome, autograde, status_text
from workbook.pipeline.build import build
from workbook.pipeline.release import release

pytestmark = pytest.mark.slow

CRASH = "import os\nimport signal\nos.kill(os.getpid(), signal.SIGSEGV)"
DASK = Path(sys.executable).with_name("dask")


def course_of(root: Path, students: list[str]) -> Course:
    """A released course with ``students``' submissions: the samples by name, ``crashes`` (lab 4's kernel dies)."""
    course = build(root / "course")
    release(course)
    set_due_date_and_zero_penalty(course)
    for student in students:
        package = solutions_with(root / student, 4, CRASH) if student == "crashes" else SAMPLES[student](root / student)
        submit(course, student, package, DUE - timedelta(hours=1))
    return course


def gradebook_rows(course: Course) -> dict[str, dict]:
    """Every student's rows as the instructor sees them: each cell's automatic and hand scores, extra credit and
    review flag, each notebook's late penalty, and the status."""
    rows: dict[str, dict] = {}
    with course.gradebook() as gradebook:
        for submission in gradebook.find_assignment(ASSIGNMENT).submissions:
            rows[submission.student.id] = {
                (notebook.name, grade.name): (
                    grade.auto_score,
                    grade.manual_score,
                    grade.extra_credit,
                    grade.needs_manual_grade,
                    notebook.late_submission_penalty,
                )
                for notebook in submission.notebooks
                for grade in notebook.grades
            }
    for student in rows:
        # The judge's own sentence for a lab that crashed may add "then a case timed out" on a loaded machine:
        # the lab's points are compared above, its sentence is not.
        status = status_text(course, Outcome(student, "graded", 0.0, Path())).split("; ")
        rows[student]["status"] = [part for part in status if not re.match(r"lab \d: ", part)]
        rows[student]["review"] = read_results(course, student)["review"]
    return rows


def differences(mine: dict[str, dict], theirs: dict[str, dict]) -> dict[str, dict]:
    """Per student, every row whose value differs between two ``gradebook_rows``: ``{key: (mine, theirs)}``."""
    found = {}
    for student in sorted({*mine, *theirs}):
        ours, other = mine.get(student, {}), theirs.get(student, {})
        rows = {key: (ours.get(key), other.get(key)) for key in {*ours, *other} if ours.get(key) != other.get(key)}
        if rows:
            found[student] = rows
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s child processes."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``tcp://127.0.0.1:PORT``: a scheduler and two single-threaded workers, each started as its own process
    (the scheduler sends one task per worker thread, as the deployment page says); the worker processes'
    ``dask worker`` pids as ``cluster.workers``."""
    logs = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    environment = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0"}
    started = []

    def start(name: str, *command: str) -> subprocess.Popen:
        with (logs / f"{name}.log").open("w") as log:
            process = subprocess.Popen(
                [str(DASK), *command], stdout=log, stderr=subprocess.STDOUT, env=environment, start_new_session=True
            )
        started.append(process)
        return process

    start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard")
    workers = [
        start(name, "worker", address, "--nthreads", "1", "--nworkers", "1", "--name", name, "--no-dashboard")
        for name in ("w1", "w2")
    ]
    from distributed import Client

    with Client(address, timeout=120) as client:
        client.wait_for_workers(2, timeout=180)
    yield address, workers
    for process in started:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


STUDENTS = ["complete", "blank", "partial", "buggy", "crashes"]


@pytest.fixture(scope="module")
def local(tmp_path_factory) -> dict[str, dict]:
    course = course_of(tmp_path_factory.mktemp("local"), STUDENTS)
    outcomes = autograde(course, jobs=2, timeout=20)
    assert {outcome.student: outcome.status for outcome in outcomes} == dict.fromkeys(STUDENTS, "graded")
    return gradebook_rows(course)


def test_a_running_cluster_with_a_worker_killed_writes_the_gradebook_jobs_2_writes(cluster, local, tmp_path):
    address, workers = cluster
    course = course_of(tmp_path, STUDENTS)
    ended: list[str] = []
    killing = threading.Event()

    def kill_a_worker(student: str) -> None:
        """Two seconds into the first grading, SIGKILL w1's worker process (its nanny starts another)."""
        if not killing.is_set():
            killing.set()
            threading.Timer(2.0, lambda: [os.kill(pid, signal.SIGKILL) for pid in children(workers[0].pid)]).start()

    outcomes = autograde(
        course,
        timeout=20,
        scheduler=address,
        on_start=kill_a_worker,
        on_done=lambda outcome: ended.append(outcome.student),
    )
    assert {outcome.student: outcome.status for outcome in outcomes} == dict.fromkeys(STUDENTS, "graded")
    assert sorted(ended) == sorted(STUDENTS), "every student recorded once"
    assert differences(gradebook_rows(course), local) == {}


def test_autograde_killed_half_way_then_run_again_records_every_student_once(cluster, local, tmp_path):
    address, _ = cluster
    students = ["complete", "buggy", "blank"]
    course = course_of(tmp_path, students)
    command = [sys.executable, "-m", "workbook", "autograde", "--course", str(course.root), "--scheduler", address]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 600
    while not any(read_results(course, student) for student in students) and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    first = [student for student in students if (read_results(course, student) or {}).get("fingerprint")]
    assert 1 <= len(first) < len(students), "killed after the first student was recorded, before the last"
    outcomes = autograde(course, timeout=20, scheduler=address)
    assert {outcome.student: outcome.status for outcome in outcomes} == {
        student: "recorded" if student in first else "graded" for student in students
    }
    assert differences(gradebook_rows(course), {student: local[student] for student in students}) == {}
