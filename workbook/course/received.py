"""When a submission was received: the trusted time lateness is decided by, never only text a student wrote.

nbgrader takes a submission's time from text its student's account writes: ``nbgrader submit`` (run by the
student) names the exchange's inbound folder ``STUDENT+ASSIGNMENT+TIME+RANDOM`` and writes ``timestamp.txt``
into it; ``nbgrader collect`` picks the newest folder by that name and copies it, ``timestamp.txt`` included,
to ``submitted/``, and ``nbgrader autograde`` reads ``submitted/.../timestamp.txt``
(``CourseDirectory.get_existing_timestamp``) into the gradebook's submission time, which the late penalty is
computed from. A student who writes either can choose their lateness.

Here the grader keeps a *receipt* per student, ``COURSE/grading/received/STUDENT.json`` (``{"time": ..., "source":
...}``), written by what received the submission:

- ``workbook collect`` and the formgrader's Collect (``collect.OwnerCheckedCollect``): the newest change time
  (``st_ctime``, links not followed) of the inbound folder and everything in it, a time no account but root can
  set back: when the submission took its final form in the exchange;
- ``workbook intake`` of an LMS download: the LMS's time of the submission;
- ``workbook.course.submit.submit`` (samples, tests, the demo): the time it is given.

Without a receipt (a folder placed by hand), the time is when its files reached ``submitted/``: their newest
change time. ``submission_time`` says which, and the receipt decides; ``timestamp.txt`` is only compared with it
(``intake.read_timestamp``): malformed, or earlier than the receipt by more than ``SKEW`` seconds, it is noted.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from workbook.course.layout import Course

RECEIVED = "grading/received"
"""Where the receipts are kept, relative to the course."""
SKEW = 120.0
"""Seconds a correct ``timestamp.txt`` may precede its receipt (it is written just before the copy that the
receipt dates, or on a clock a little off)."""
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


@dataclass(frozen=True)
class Received:
    """A submission's trusted time (naive UTC, as nbgrader keeps times) and where it comes from (``the exchange
    (its files' change time)``, ``the LMS``, ...)."""

    time: datetime
    source: str

    def text(self) -> str:
        """``2026-12-15 16:59:02 UTC (the exchange (its files' change time))``."""
        return f"{self.time:{TIME_FORMAT}} UTC ({self.source})"


def receipt_path(course: Course, student: str) -> Path:
    """``COURSE/grading/received/STUDENT.json``: ``student``'s receipt."""
    return course.root / RECEIVED / f"{student}.json"


def record_receipt(course: Course, student: str, when: datetime, source: str) -> Received:
    """Write ``student``'s receipt: received at ``when`` (aware, or naive UTC) from ``source``; return it."""
    naive = when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when
    path = receipt_path(course, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"time": naive.isoformat(), "source": source}), encoding="utf-8")
    return Received(naive, source)


def read_receipt(course: Course, student: str) -> Received | None:
    """``student``'s receipt, or None when there is none or it cannot be read (a broken one is no receipt)."""
    try:
        data = json.loads(receipt_path(course, student).read_text(encoding="utf-8"))
        return Received(datetime.fromisoformat(data["time"]).replace(tzinfo=None), str(data["source"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def arrival_time(folder: Path) -> datetime:
    """The newest change time (``st_ctime``, naive UTC) of ``folder`` and everything below it, links not
    followed: when its last file was written, moved or changed here. Raises ``OSError`` when ``folder`` cannot be
    read."""
    newest = os.lstat(folder).st_ctime
    for current, dirs, files in os.walk(folder):  # never descends into a symlinked folder
        for name in dirs + files:
            newest = max(newest, os.lstat(os.path.join(current, name)).st_ctime)
    return datetime.fromtimestamp(newest, UTC).replace(tzinfo=None)


def submission_time(course: Course, student: str) -> Received | None:
    """The time ``student``'s submission counts as received (see the module): its receipt, else when its files
    reached ``submitted/``; None when there is no submission folder."""
    receipt = read_receipt(course, student)
    if receipt is not None:
        return receipt
    folder = course.submitted(student)
    if not folder.is_dir():
        return None
    return Received(arrival_time(folder), "no receipt: when its files reached submitted/")
