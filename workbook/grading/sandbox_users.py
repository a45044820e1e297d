"""Sandbox users: the uids a grading run's sandboxes run as (as root), each held by one run at a time.

As root, a sandbox runs as an unprivileged uid of its own, one per concurrent grader (``slot``), so that one
student's processes never count against the limits of the student graded beside them. Two grading runs on
one machine (two courses, two instructors) must therefore never use the same uid. The machine's range is
``WORKBOOK_SANDBOX_FIRST_UID`` (default 61000) and the ``WORKBOOK_SANDBOX_UIDS`` uids after it (default 64);
these uids must belong to no account.

A process's slots are numbered from 0 (the ``slot`` of ``workbook.grading.sandbox``); slot N is the N-th uid this
process holds, taken on first use (``SandboxUsers.uid``) and held until the process exits. A uid is taken by
holding an exclusive lock (``flock``) on ``LOCK_DIR/UID.lock``: the kernel releases it when the process ends,
however it ends, so a crashed run never keeps its uids. A run that needs more uids than are free says so on
its standard error and waits (``WORKBOOK_SANDBOX_WAIT`` seconds, default 600) for another run to end, then
gives up (``SandboxBusy``).

Each grading process (a worker of ``workbook autograde``'s cluster) takes its own uid on first use, so two
workers on one machine never share one.
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from workbook.errors import CourseError

FIRST_UID_VARIABLE = "WORKBOOK_SANDBOX_FIRST_UID"
COUNT_VARIABLE = "WORKBOOK_SANDBOX_UIDS"
WAIT_VARIABLE = "WORKBOOK_SANDBOX_WAIT"
LOCKS_VARIABLE = "WORKBOOK_SANDBOX_LOCKS"
LOCK_DIR = Path("/run/workbook-sandbox-users")
"""Where the uids' lock files are (only root may enter it); ``WORKBOOK_SANDBOX_LOCKS`` moves it."""


class SandboxBusy(CourseError):
    """Every sandbox uid of this machine's range is held by another grading run, and none came free in time."""


class SandboxUsers:
    """The uids ``first_uid`` to ``first_uid + count - 1`` of this machine, locked in ``lock_dir``, and those
    this process holds. Thread-safe."""

    def __init__(self, first_uid: int, count: int, lock_dir: Path, wait: float = 600.0) -> None:
        if count < 1:
            raise ValueError(f"{COUNT_VARIABLE} must be at least 1, got {count}")
        self.first_uid, self.count, self.lock_dir, self.wait = first_uid, count, lock_dir, wait
        self.held: list[int] = []
        self._locks: dict[int, int] = {}
        self._guard = threading.Lock()

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> SandboxUsers:
        """The range, lock folder and waiting time that ``environ`` (default ``os.environ``) gives."""
        if environ is None:
            environ = os.environ
        return cls(
            int(environ.get(FIRST_UID_VARIABLE, "61000")),
            int(environ.get(COUNT_VARIABLE, "64")),
            Path(environ.get(LOCKS_VARIABLE, str(LOCK_DIR))),
            float(environ.get(WAIT_VARIABLE, "600")),
        )

    def range_text(self) -> str:
        """``uids 61000-61063``."""
        return f"uids {self.first_uid}-{self.first_uid + self.count - 1}"

    def uid(self, slot: int) -> int:
        """The uid of this process's ``slot`` (0, 1, ...), taking free uids of the range up to it if this process
        holds fewer. Raises ``SandboxBusy`` when they do not come free within ``wait`` seconds."""
        if slot < 0:
            raise ValueError(f"a sandbox slot is 0 or more, got {slot}")
        with self._guard:
            if slot >= len(self.held):
                self._take(slot + 1 - len(self.held))
            return self.held[slot]

    def release(self) -> None:
        """Give back the uids this process locked."""
        with self._guard:
            for uid, descriptor in self._locks.items():
                self.held.remove(uid)
                os.close(descriptor)
            self._locks.clear()

    def _take(self, wanted: int) -> None:
        """Lock ``wanted`` more uids of the range, all at once (never a part while waiting for the rest)."""
        folder = self._folder()
        deadline, said = time.monotonic() + self.wait, False
        while True:
            taken = self._try(folder, wanted)
            if len(taken) == wanted:
                for uid, descriptor in taken.items():
                    self._locks[uid] = descriptor
                    self.held.append(uid)
                return
            for descriptor in taken.values():
                os.close(descriptor)
            if time.monotonic() >= deadline:
                raise SandboxBusy(
                    f"no {wanted} sandbox user(s) free in {self.range_text()} after {self.wait:g} s: other grading "
                    f"runs on this machine hold them; wait for them to end, or give this run a range of its own "
                    f"({FIRST_UID_VARIABLE}, {COUNT_VARIABLE})"
                )
            if not said:
                print(
                    f"workbook: waiting for {wanted} sandbox user(s): {self.range_text()} are in use by other grading "
                    f"runs on this machine (up to {self.wait:g} s)",
                    file=sys.stderr,
                    flush=True,
                )
                said = True
            time.sleep(0.5)

    def _try(self, folder: Path, wanted: int) -> dict[int, int]:
        taken: dict[int, int] = {}
        for uid in range(self.first_uid, self.first_uid + self.count):
            if len(taken) == wanted:
                break
            if uid in self.held:
                continue
            descriptor = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                continue
            taken[uid] = descriptor
        return taken

    def _folder(self) -> Path:
        """The lock folder, made (mode 0700) if missing; raises CourseError if another user owns it or may write
        in it."""
        self.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = self.lock_dir.stat()
        if info.st_uid != os.geteuid() or info.st_mode & 0o022:
            raise CourseError(
                f"{self.lock_dir} (the sandbox users' locks) must belong to this user and be writable by no one else"
            )
        return self.lock_dir


USERS = SandboxUsers.from_environment()
"""This process's sandbox users (its range and the uids it holds)."""
