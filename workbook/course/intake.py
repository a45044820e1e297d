"""Submission intake: what a submission folder must be before nbgrader touches it, and its timestamp rule.

nbgrader copies a submission with ``shutil``, which follows symlinks: a lab module submitted as a
symlink to the solutions would be graded as the solutions. ``check_submission`` therefore refuses,
naming them, a submission that holds

- a symlink (to a file or a folder, wherever it points), or is one;
- anything but regular files and folders (fifos, sockets, devices);
- a file with other hard links (the same file as one elsewhere on the grader's disk);
- a file over ``MAX_FILE_BYTES``, or more than ``MAX_TOTAL_BYTES`` in all;
- a name that is not UTF-8 (a file made by a script or on another system: nbgrader, the CSV and the pages
  could not write it).

Every problem names its path relative to the submission, its bytes that are not UTF-8 escaped (``escaped``:
``03_budget_projection-\\xff\\xfe.ipynb``), so the message itself can be written anywhere.

A refused student gets that status and is not graded (earlier grades, if any, stay in the gradebook).

``timestamp.txt`` is the student's text: it never decides lateness. The submission time is the trusted one of
``workbook.course.received`` (the exchange's or the LMS's time, kept by the grader); ``timestamp.txt`` is read as
nbgrader reads it (``nbgrader.utils.parse_utc``: date, time, time-zone name) only to compare: a malformed one
(nbgrader itself would fail the whole grading) or one earlier than the trusted time by more than
``received.SKEW`` is noted in the status (``timestamp_note``), without quoting it. ``TrustedTimestamps`` is
nbgrader's ``CourseDirectory`` with that rule.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import parse_utc

from workbook.course.layout import Course
from workbook.course.received import SKEW, TIME_FORMAT, Received, submission_time

MAX_FILE_BYTES = 5 << 20
MAX_TOTAL_BYTES = 50 << 20
TIMESTAMP = "timestamp.txt"


@dataclass(frozen=True)
class Intake:
    """What intake found in one submission: ``refused`` problems (each names a path relative to the
    submission; any of them means the submission is not graded) and ``notes`` for its status."""

    refused: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        """True when the submission may be graded."""
        return not self.refused


def _kind(mode: int) -> str:
    kinds = {
        stat.S_IFIFO: "a fifo",
        stat.S_IFSOCK: "a socket",
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
    }
    return kinds.get(stat.S_IFMT(mode), "not a regular file")


def check_submission(
    folder: Path, max_file_bytes: int = MAX_FILE_BYTES, max_total_bytes: int = MAX_TOTAL_BYTES
) -> Intake:
    """Check the submission ``folder`` (``submitted/STUDENT/ASSIGNMENT``) without following any link;
    return its ``Intake`` (see the module for the rules). Reads only; never changes the folder."""
    folder = Path(folder)
    if folder.is_symlink() or folder.parent.is_symlink():
        link = folder if folder.is_symlink() else folder.parent
        return Intake(refused=(f"{escaped(str(link))} is a symlink (to {escaped(os.readlink(link))})",))
    if not is_utf8(folder.parent.name):
        return Intake(refused=(f"the student folder {escaped(folder.parent.name)} has a name that is not UTF-8",))
    refused, total = [], 0
    for current, dirs, files in os.walk(folder):  # never descends into a symlinked folder
        for name in sorted(dirs + files):
            path = Path(current) / name
            relative = escaped(str(path.relative_to(folder)))
            info = path.lstat()
            if not is_utf8(name):
                refused.append(f"{relative} has a name that is not UTF-8")
            if stat.S_ISLNK(info.st_mode):
                refused.append(f"{relative} is a symlink (to {escaped(os.readlink(path))})")
            elif stat.S_ISDIR(info.st_mode):
                continue
            elif not stat.S_ISREG(info.st_mode):
                refused.append(f"{relative} is {_kind(info.st_mode)}")
            elif info.st_nlink > 1:
                refused.append(f"{relative} has {info.st_nlink - 1} other hard link(s)")
            elif info.st_size > max_file_bytes:
                refused.append(f"{relative} is {info.st_size} bytes (at most {max_file_bytes} per file)")
            else:
                total += info.st_size
    if total > max_total_bytes:
        refused.append(f"the files add up to {total} bytes (at most {max_total_bytes} in all)")
    return Intake(refused=tuple(refused))


def is_utf8(name: str) -> bool:
    """True when the file name ``name`` (as ``os`` gives it: bytes that are not UTF-8 as surrogates) is UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped(text: str) -> str:
    """``text`` with the bytes of a file name that are not UTF-8 written as ``\\xff`` escapes: text that any
    file, page or terminal can hold (``03_budget_projection-\\xff\\xfe.ipynb``); UTF-8 text unchanged."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name gives (from JSON, say): escaped as such
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def read_timestamp(folder: Path) -> tuple[datetime | None, bool]:
    """The time ``folder/timestamp.txt`` states, as nbgrader reads it (naive UTC), and whether it is malformed:
    ``(None, False)`` without one (or an empty one), ``(None, True)`` when its text is not a time."""
    path = Path(folder) / TIMESTAMP
    if not path.is_file() or path.is_symlink():
        return None, False
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    if not text:
        return None, False
    try:
        return parse_utc(text), False
    except (ValueError, OverflowError):
        return None, True


def timestamp_note(folder: Path, received: Received | None) -> str | None:
    """The note on ``folder``'s ``timestamp.txt`` beside the trusted time ``received`` (see the module), or None
    when it agrees, is absent, or there is no trusted time. Never quotes the file, never holds "; "."""
    claimed, malformed = read_timestamp(folder)
    if received is None:
        return None
    if malformed:
        return f"{TIMESTAMP} is not a time: the time received decides, {received.text()}"
    if claimed is not None and (received.time - claimed).total_seconds() > SKEW:
        return (
            f"{TIMESTAMP} says {claimed:{TIME_FORMAT}} UTC, before the submission was received: the time received "
            f"decides, {received.text()}"
        )
    return None


class TrustedTimestamps(CourseDirectory):
    """nbgrader's ``CourseDirectory`` whose submission time is the trusted one (``received.submission_time``),
    never the text of ``timestamp.txt`` (see the module), which therefore cannot fail the grading either."""

    def get_existing_timestamp(self, dest_path: str) -> datetime | None:
        """The trusted time of the student whose folder ``dest_path`` is (``.../STUDENT/ASSIGNMENT``)."""
        received = submission_time(Course(Path(self.root)), Path(dest_path).parent.name)
        return received.time if received else None
