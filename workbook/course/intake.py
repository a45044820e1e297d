"""Submission intake: what a submission folder must be before nbgrader touches it, and its timestamp rule.

nbgrader copies a submission with ``shutil``, which follows symlinks: a lab module submitted as a
symlink to the solutions would be graded as the solutions. ``check_submission`` therefore refuses,
naming them, a submission that holds

- a symlink (to a file or a folder, wherever it points), or is one;
- anything but regular files and folders (fifos, sockets, devices);
- a file with other hard links (the same file as one elsewhere on the grader's disk);
- a file over ``MAX_FILE_BYTES``, or more than ``MAX_TOTAL_BYTES`` in all.

A refused student gets that status and is not graded (earlier grades, if any, stay in the gradebook).

``timestamp.txt`` rule: its text is read as nbgrader reads it (``nbgrader.utils.parse_utc``: date,
time, time-zone name). Missing or empty, the submission has no time and is never late (nbgrader's
rule). Malformed (nbgrader itself would fail the whole grading), the submission is graded as on
time, like one without a timestamp, and its status carries a note quoting the text.
``LenientTimestamps`` is nbgrader's ``CourseDirectory`` with that rule.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import parse_utc

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
        return Intake(refused=(f"{link} is a symlink (to {os.readlink(link)})",))
    refused, total = [], 0
    for current, dirs, files in os.walk(folder):  # never descends into a symlinked folder
        for name in sorted(dirs + files):
            path = Path(current) / name
            relative = path.relative_to(folder)
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                refused.append(f"{relative} is a symlink (to {os.readlink(path)})")
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
    _, note = read_timestamp(folder)
    return Intake(refused=tuple(refused), notes=(note,) if note else ())


def read_timestamp(folder: Path) -> tuple[datetime | None, str | None]:
    """The submission time in ``folder/timestamp.txt`` as nbgrader reads it (naive UTC), and a note:
    ``(None, None)`` without a timestamp, ``(None, "timestamp.txt ...: graded as on time")`` when it
    cannot be read as one."""
    path = Path(folder) / TIMESTAMP
    if not path.is_file() or path.is_symlink():
        return None, None
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    if not text:
        return None, None
    try:
        return parse_utc(text), None
    except (ValueError, OverflowError):
        shown = text if len(text) <= 60 else text[:57] + "..."
        return None, f"{TIMESTAMP} is not a time ({shown!r}): graded as on time"


class LenientTimestamps(CourseDirectory):
    """nbgrader's ``CourseDirectory`` where a malformed ``timestamp.txt`` counts as none (see the module)
    instead of failing the grading."""

    def get_existing_timestamp(self, dest_path: str) -> datetime | None:
        """``read_timestamp``'s time of ``dest_path``; logs the note when the file is malformed."""
        timestamp, note = read_timestamp(Path(dest_path))
        if note:
            self.log.warning("%s: %s", dest_path, note)
        return timestamp
