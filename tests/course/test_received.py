"""``workbook.course.received``: a submission's trusted time is its receipt (the exchange's, the LMS's, or the time
a sample was placed), else when its files reached ``submitted/``; a student's text never sets it, and the
gradebook's submission times are made to agree before late penalties are computed."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from workbook.course.layout import Course
from workbook.course.received import (
    Received,
    arrival_time,
    read_receipt,
    receipt_path,
    record_receipt,
    submission_time,
)


def test_a_receipt_is_kept_and_read_back_in_naive_utc(tmp_path):
    course = Course(tmp_path)
    when = datetime(2026, 12, 15, 18, 0, tzinfo=UTC) + timedelta(microseconds=5)
    assert record_receipt(course, "ada", when, "the LMS") == Received(datetime(2026, 12, 15, 18, 0, 0, 5), "the LMS")
    assert read_receipt(course, "ada") == Received(datetime(2026, 12, 15, 18, 0, 0, 5), "the LMS")
    assert submission_time(course, "ada") == read_receipt(course, "ada")
    assert Received(datetime(2026, 12, 15, 18, 0), "the LMS").text() == "2026-12-15 18:00:00 UTC (the LMS)"


def test_a_broken_receipt_is_no_receipt(tmp_path):
    course = Course(tmp_path)
    receipt_path(course, "ada").parent.mkdir(parents=True)
    receipt_path(course, "ada").write_text("{not json")
    assert read_receipt(course, "ada") is None


def test_without_a_receipt_the_time_is_when_the_files_reached_submitted(tmp_path):
    course = Course(tmp_path)
    assert submission_time(course, "ada") is None, "no submission at all"
    folder = course.submitted("ada")
    (folder / "compaction_lab").mkdir(parents=True)
    (folder / "compaction_lab" / "records.py").write_text("# mine\n")
    (folder / "timestamp.txt").write_text("2020-01-01 00:00:00 UTC")
    os.utime(folder / "compaction_lab" / "records.py", (0, 0))  # a modification time anyone can set
    newest = max(os.lstat(path).st_ctime for path in [folder, *folder.rglob("*")])
    found = submission_time(course, "ada")
    assert found == Received(datetime.fromtimestamp(newest, UTC).replace(tzinfo=None), found.source)
    assert found.source == "no receipt: when its files reached submitted/"
    assert arrival_time(folder) == found.time and found.time.year >= 2026
