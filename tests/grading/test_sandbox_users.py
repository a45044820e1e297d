"""Sandbox users per run (issue 21, item 7): two processes never hold one uid; a process that finds none free
says so, waits, and gives up. Locks only: no sandbox runs."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from workbook.errors import CourseError
from workbook.grading.sandbox_users import SandboxBusy, SandboxUsers

FIRST = 70000
HOLDER = """
import sys
from pathlib import Path
from workbook.grading.sandbox_users import SandboxUsers
users = SandboxUsers({first}, {count}, Path({locks!r}))
print(",".join(str(users.uid(slot)) for slot in range({take})), flush=True)
sys.stdin.read()  # hold them until told to end
"""


def holder(tmp_path, count: int, take: int) -> tuple[subprocess.Popen, list[int]]:
    """Another process that holds ``take`` uids of the range until its input is closed; and its uids."""
    code = HOLDER.format(first=FIRST, count=count, locks=str(tmp_path / "locks"), take=take)
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return process, [int(uid) for uid in process.stdout.readline().strip().split(",")]


def end(process: subprocess.Popen) -> None:
    process.stdin.close()
    process.wait(timeout=30)
    process.stdout.close()


def test_two_processes_never_hold_the_same_uid(tmp_path):
    other, theirs = holder(tmp_path, count=4, take=2)
    try:
        users = SandboxUsers(FIRST, 4, tmp_path / "locks")
        mine = [users.uid(0), users.uid(1)]
        assert users.uid(0) == mine[0], "a slot keeps its uid"
        assert sorted(theirs + mine) == [FIRST, FIRST + 1, FIRST + 2, FIRST + 3]
    finally:
        end(other)


def test_a_process_that_finds_no_uid_free_says_so_waits_and_refuses(tmp_path, capfd):
    other, _ = holder(tmp_path, count=2, take=2)
    try:
        users = SandboxUsers(FIRST, 2, tmp_path / "locks", wait=1.0)
        with pytest.raises(SandboxBusy, match=r"no 1 sandbox user\(s\) free in uids 70000-70001 after 1 s"):
            users.uid(0)
    finally:
        end(other)
    assert "waiting for 1 sandbox user(s): uids 70000-70001 are in use by other grading runs" in capfd.readouterr().err
    assert users.held == []


def test_a_uid_that_comes_free_while_waiting_is_taken(tmp_path):
    other, theirs = holder(tmp_path, count=1, take=1)
    users = SandboxUsers(FIRST, 1, tmp_path / "locks", wait=60.0)
    got: list[int] = []
    waiting = threading.Thread(target=lambda: got.append(users.uid(0)))
    waiting.start()
    end(other)
    waiting.join(timeout=60)
    assert got == theirs == [FIRST]


def test_a_lock_folder_others_may_write_in_is_refused(tmp_path):
    locks = tmp_path / "locks"
    locks.mkdir()
    os.chmod(locks, 0o777)
    with pytest.raises(CourseError, match="writable by no one else"):
        SandboxUsers(FIRST, 2, locks).uid(0)
