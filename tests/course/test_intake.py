"""``workbook.course.intake``: a submission holding symlinks, special files, hard links or oversized files is
refused with a status naming them; a malformed ``timestamp.txt`` is graded as on time, with a note."""

from __future__ import annotations

import os
from datetime import datetime

from workbook.course.intake import Intake, LenientTimestamps, check_submission, read_timestamp
from workbook.paths import SOLUTIONS
from workbook.authoring.samples import blank


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
    assert read_timestamp(folder) == (datetime(2026, 12, 15, 16, 59, 2, 123456), None)


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


def test_a_malformed_timestamp_is_graded_as_on_time_with_a_note(tmp_path):
    folder = submission(tmp_path, "yesterday, honest")
    note = "timestamp.txt is not a time ('yesterday, honest'): graded as on time"
    assert check_submission(folder) == Intake(notes=(note,))
    assert read_timestamp(folder) == (None, note)
    assert LenientTimestamps().get_existing_timestamp(str(folder)) is None
    (folder / "timestamp.txt").write_text("")
    assert read_timestamp(folder) == (None, None), "empty: no time, as nbgrader reads it"
    (folder / "timestamp.txt").unlink()
    assert read_timestamp(folder) == (None, None)
