"""The grading engine on a local Dask cluster (issue 23): every task's value comes back once, a task that kills
its worker every time fails alone and is named, one that hangs past the timeout is cancelled and its worker
restarted, and the others are done. Toy tasks, no course: seconds."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import cloudpickle
import pytest

from workbook.errors import CourseError
from workbook.pipeline.engine import grading_client, run_tasks

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module


def task(item: str, shared: dict) -> str:
    """A grading task's stand-in: ``die`` kills its worker, ``hang`` never ends, anything else is answered."""
    if item == "die":
        os._exit(9)
    if item.startswith("once:"):  # kill the worker the first time only
        marker = Path(item.removeprefix("once:"))
        if not marker.exists():
            marker.touch()
            os._exit(9)
        return f"{shared['prefix']}again"
    if item == "hang":
        while True:
            time.sleep(0.1)
    return f"{shared['prefix']}{item}"


def test_each_task_ends_once_and_one_that_kills_its_worker_or_hangs_fails_alone():
    items = {"ann": "a", "bob": "die", "cat": "hang", "dan": "d", "eve": "e"}
    started, ended = [], []
    with grading_client(2) as client:
        ends = run_tasks(client, task, items, {"prefix": "graded "}, 8, started.append, ended.append)
        alive = client.submit(task, "after", {"prefix": "still "}, pure=False).result(timeout=60)
    assert sorted(started) == sorted(items) and sorted(end.student for end in ended) == sorted(items)
    assert {student: (end.status, end.value) for student, end in ends.items() if end.status == "done"} == {
        "ann": ("done", "graded a"),
        "dan": ("done", "graded d"),
        "eve": ("done", "graded e"),
    }
    assert (ends["bob"].status, ends["bob"].why) == (
        "failed",
        "its grading process died each time it was tried (Dask's KilledWorker)",
    )
    assert (ends["cat"].status, ends["cat"].why) == ("timed out", "still running after 8 s")
    assert alive == "still after", "the restarted worker grades on"


def test_a_lone_worker_that_dies_is_replaced_and_its_task_runs_again_with_what_the_run_shares(tmp_path):
    with grading_client(1) as client:
        ends = run_tasks(client, task, {"ann": f"once:{tmp_path / 'died'}"}, {"prefix": "graded "}, 120)
    assert (ends["ann"].status, ends["ann"].value) == ("done", "graded again")


def test_jobs_below_one_and_an_unreachable_scheduler_are_named(monkeypatch):
    monkeypatch.setattr("workbook.pipeline.engine.CONNECT_SECONDS", 2)
    with pytest.raises(CourseError, match="--jobs must be at least 1, got 0"), grading_client(0):
        pass
    with pytest.raises(CourseError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        with grading_client(1, "tcp://127.0.0.1:9"):
            pass
