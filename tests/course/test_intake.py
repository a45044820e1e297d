"""``workbook.course.intake``: a submission holding symlinks, special files, hard links, oversized files or names
that are not UTF-8 is refused with a status naming them (escaped); ``timestamp.txt`` never decides the time, and a
malformed or earlier one is noted."""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from workbook.authoring.samples import blank
from workbook.course.intake import (
    Intake,
    TrustedTimestamps,
    check_submission,
    escaped,
    read_timestamp,
    timestamp_note,
)
from workbook.course.layout import Course
from workbook.course.received import Received, record_receipt
from workbook.paths import SOLUTIONS


def submission(tmp_path, timestamp: str = "2026-12-15 16:59:02.123456 UTC"):
    folder = tmp_path / "submitted" / "ada" / "compaction_labs"
    folder.mkdir(parents=True)
    blank(folder / "compaction_lab")
    (folder / "01_record_parsing.ipynb").write_text("{}")
    (folder / "timestamp.txt").write_text(timestamp)
    return folder


def test_an_ordinary_submission_is_accepted_with_its_time(tmp_path):
    folder = submission(tmp_path)
    assert check_submission(folder) == Intake()
    assert read_timestamp(folder) == (datetime(2026, 12, 15, 16, 59, 2, 123456), False)


def test_symlinks_fifos_and_hard_links_are_refused_by_name(tmp_path):
    folder = submission(tmp_path)
    package = folder / "compaction_lab"
    (package / "records.py").unlink()
    (package / "records.py").symlink_to(SOLUTIONS / "records.py")
    (folder / "solutions").symlink_to(SOLUTIONS, target_is_directory=True)
    os.mkfifo(folder / "pipe")
    os.link(package / "budget.py", tmp_path / "elsewhere.py")
    intake = check_submission(folder)
    assert not intake.accepted
    assert sorted(intake.refused) == sorted(
        [
            f"compaction_lab/records.py is a symlink (to {SOLUTIONS / 'records.py'})",
            f"solutions is a symlink (to {SOLUTIONS})",
            "pipe is a fifo",
            "compaction_lab/budget.py has 1 other hard link(s)",
        ]
    )


def test_a_submission_folder_that_is_a_symlink_is_refused(tmp_path):
    real = submission(tmp_path)
    link = tmp_path / "submitted" / "bob" / "compaction_labs"
    link.parent.mkdir()
    link.symlink_to(real, target_is_directory=True)
    assert check_submission(link).refused == (f"{link} is a symlink (to {real})",)


def test_oversized_files_and_submissions_are_refused(tmp_path):
    folder = submission(tmp_path)
    largest = max(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    (folder / "huge.bin").write_bytes(bytes(largest + 1))
    assert check_submission(folder, max_file_bytes=largest, max_total_bytes=10**9).refused == (
        f"huge.bin is {largest + 1} bytes (at most {largest} per file)",
    )
    total = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    assert check_submission(folder, max_file_bytes=10**9, max_total_bytes=total - 1).refused == (
        f"the files add up to {total} bytes (at most {total - 1} in all)",
    )


RECEIVED = Received(datetime(2026, 12, 15, 17, 30), "the exchange's change time")


def test_a_malformed_timestamp_is_noted_and_the_time_received_decides(tmp_path):
    folder = submission(tmp_path, "yesterday; honest")
    assert check_submission(folder) == Intake()
    assert read_timestamp(folder) == (None, True)
    note = timestamp_note(folder, RECEIVED)
    assert note == (
        "timestamp.txt is not a time: the time received decides, 2026-12-15 17:30:00 UTC (the exchange's change time)"
    )
    assert "honest" not in note and "; " not in note, "the student's text is never quoted"
    record_receipt(Course(tmp_path), "ada", RECEIVED.time, RECEIVED.source)
    assert TrustedTimestamps(root=str(tmp_path)).get_existing_timestamp(str(folder)) == RECEIVED.time
    (folder / "timestamp.txt").write_text("")
    assert read_timestamp(folder) == (None, False), "empty: no time, as nbgrader reads it"
    assert timestamp_note(folder, RECEIVED) is None
    (folder / "timestamp.txt").unlink()
    assert read_timestamp(folder) == (None, False)


def test_a_timestamp_earlier_than_the_time_received_is_noted_and_never_decides(tmp_path):
    folder = submission(tmp_path, "2026-12-15 16:59:02.123456 UTC")
    assert timestamp_note(folder, RECEIVED) == (
        "timestamp.txt says 2026-12-15 16:59:02 UTC, before the submission was received: the time received "
        "decides, 2026-12-15 17:30:00 UTC (the exchange's change time)"
    )
    close = Received(datetime(2026, 12, 15, 16, 59, 2, 123456) + timedelta(seconds=60), "the exchange's change time")
    assert timestamp_note(folder, close) is None, "written just before the copy the receipt dates"
    assert timestamp_note(folder, None) is None


NOT_UTF8 = os.fsdecode(b"03_budget_projection-\xff\xfe.ipynb")


def test_names_that_are_not_utf8_are_refused_with_their_bytes_escaped(tmp_path):
    folder = submission(tmp_path)
    (folder / NOT_UTF8).write_text("{}")
    (folder / "compaction_lab" / os.fsdecode(b"link-\xff")).symlink_to(os.fsdecode(b"/tmp/target-\xfe"))
    intake = check_submission(folder)
    assert sorted(intake.refused) == [
        "03_budget_projection-\\xff\\xfe.ipynb has a name that is not UTF-8",
        "compaction_lab/link-\\xff has a name that is not UTF-8",
        "compaction_lab/link-\\xff is a symlink (to /tmp/target-\\xfe)",
    ]
    assert all(line.encode("utf-8") for line in intake.refused), "every message can be written as UTF-8"
    assert escaped("héllo ✓") == "héllo ✓"


def test_a_student_folder_whose_name_is_not_utf8_is_refused(tmp_path):
    folder = tmp_path / "submitted" / os.fsdecode(b"ada-\xff") / "compaction_labs"
    folder.mkdir(parents=True)
    assert check_submission(folder).refused == ("the student folder ada-\\xff has a name that is not UTF-8",)
