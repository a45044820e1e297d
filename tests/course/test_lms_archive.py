"""``workbook intake ARCHIVE.zip``: Canvas's and Moodle's bulk downloads, built here from the demo's samples, laid out
as ``submitted/STUDENT/compaction_labs/`` through intake's rules; a symlink, a path escaping the folder, a duplicate
and an unknown student are each named, and nothing is written outside ``submitted/``."""

from __future__ import annotations

import csv
import io
import stat
import zipfile
from pathlib import Path

import pytest

from workbook.authoring.samples import complete, partial
from workbook.cli.main import main
from workbook.course.layout import Course
from workbook.manifest import LABS
from workbook.pipeline.build import build
from workbook.pipeline.release import release

EARLY, ON_TIME, LATE = (2026, 3, 1, 9, 0, 0), (2026, 3, 1, 11, 30, 0), (2026, 3, 1, 13, 15, 0)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    root = tmp_path_factory.mktemp("intake")
    course = build(root / "course")
    release(course)
    return course


@pytest.fixture
def course(released, tmp_path):
    """A fresh course per test: the released one's config and release, an empty ``submitted/``."""
    import shutil

    root = Path(shutil.copytree(released.root, tmp_path / "course"))
    return Course(root)


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")


def add(archive: zipfile.ZipFile, name: str, data: bytes, when=ON_TIME, mode: int = stat.S_IFREG | 0o644) -> None:
    info = zipfile.ZipInfo(name, date_time=when)
    info.external_attr = mode << 16
    archive.writestr(info, data)


def assignment_files(course: Course, package: Path) -> dict[str, bytes]:
    """The released notebooks and the five lab modules of ``package``, by their place in the assignment folder."""
    files = {path.name: path.read_bytes() for path in sorted(course.release.glob("*.ipynb"))}
    files.update({f"compaction_lab/{lab.module}.py": (package / f"{lab.module}.py").read_bytes() for lab in LABS})
    return files


def zipped_folder(files: dict[str, bytes], extra: dict[str, bytes] | None = None, when=ON_TIME) -> bytes:
    """A zip of the assignment folder ``compaction_labs/`` holding ``files`` (and ``extra``)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as inner:
        for name, data in {**files, **(extra or {})}.items():
            add(inner, f"compaction_labs/{name}", data, when)
    return buffer.getvalue()


def write_roster(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8-sig") as handle:
        csv.writer(handle).writerows(rows)
    return path


def intake(course, capsys, archive, *options):
    code = main(["intake", "--course", str(course.root), str(archive), *options])
    return code, " ".join(capsys.readouterr().out.split())


def tree(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


CANVAS_ROSTER = [
    ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"],
    ["    Points Possible", "", "", "", ""],
    ["Lovelace, Ada", "101", "ada", "ada.l", "A"],
    ["Ørsted, Bøb", "102", "bob", "bob.o", "A"],
    ["Cy, Linked", "103", "cy", "cy", "A"],
    ["Dee, Escaping", "104", "dee", "dee", "A"],
]


def canvas_archive(course: Course, tmp_path: Path) -> Path:
    """ada: loose files (a resubmitted records.py named records-1.py by Canvas); bob: a zip of the folder, late,
    with checkpoints, caches and an editor file, and an earlier zip; cy: a symlink; dee: a path escaping the folder;
    user 999: no roster row."""
    ada = assignment_files(course, complete(tmp_path / "complete"))
    bob = assignment_files(course, partial(tmp_path / "partial"))
    path = tmp_path / "canvas.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for number, (name, data) in enumerate(sorted(ada.items())):
            original = Path(name).name.replace("records.py", "records-1.py")
            add(archive, f"lovelaceada_101_{9000 + number}_{original}", data)
        junk = {
            ".ipynb_checkpoints/01_record_parsing-checkpoint.ipynb": b"{}",
            "compaction_lab/__pycache__/records.cpython-311.pyc": b"\0",
            "compaction_lab/records.py~": b"old",
        }
        add(archive, "orstedbob_LATE_102_9100_compaction_labs.zip", zipped_folder(bob, junk, LATE), LATE)
        add(archive, "orstedbob_102_9050_compaction_labs.zip", zipped_folder(ada, when=EARLY), EARLY)
        add(archive, "cylinked_103_9200_records.py", b"/srv/solutions/records.py", mode=stat.S_IFLNK | 0o777)
        add(archive, "cylinked_103_9201_01_record_parsing.ipynb", ada["01_record_parsing.ipynb"])
        add(archive, "deeescaping_104_9300_x/../../../../escaped.py", b"print('out')")
        add(archive, "stranger_999_9400_records.py", ada["compaction_lab/records.py"])
    return path


def test_a_canvas_download_is_laid_out_by_the_roster_and_every_refusal_named(course, tmp_path, capsys):
    archive = canvas_archive(course, tmp_path)
    roster = write_roster(tmp_path / "roster.csv", CANVAS_ROSTER)
    code, out = intake(course, capsys, archive, "--roster", str(roster))
    assert code == 1
    assert "a Canvas bulk download" in out
    ada = complete(tmp_path / "ada-expected")
    assert tree(course.submitted("ada")) == {
        **assignment_files(course, ada),
        "timestamp.txt": b"2026-03-01 11:30:00.000000 UTC",
    }, "records-1.py is records.py; the time is the LMS's"
    bob = tree(course.submitted("bob"))
    assert bob["timestamp.txt"] == b"2026-03-01 13:15:00.000000 UTC"
    assert bob["compaction_lab/records.py"] == (tmp_path / "partial" / "records.py").read_bytes()
    assert not [name for name in bob if "checkpoint" in name or "pycache" in name or name.endswith("~")]
    assert (
        "latest kept: bob: orstedbob_102_9050_compaction_labs.zip (2026-03-01 09:00:00 UTC) is older than "
        "orstedbob_LATE_102_9100_compaction_labs.zip (2026-03-01 13:15:00 UTC); kept the latest"
    ) in out
    assert (
        "dropped: bob: orstedbob_LATE_102_9100_compaction_labs.zip:compaction_labs/.ipynb_checkpoints/"
        "01_record_parsing-checkpoint.ipynb dropped"
    ) in out
    assert "compaction_labs/compaction_lab/records.py~ dropped" in out
    assert "refused: cy: cylinked_103_9200_records.py is a symlink (to /srv/solutions/records.py)" in out
    assert "refused: dee: deeescaping_104_9300_x/../../../../escaped.py escapes the folder" in out
    assert "unknown student: stranger's files (LMS id 999): not in the roster; not written, never guessed" in out
    assert sorted(path.name for path in (course.root / "submitted").iterdir()) == ["ada", "bob"]
    assert not list(tmp_path.rglob("escaped.py"))


def test_nothing_in_submitted_is_replaced_without_force(course, tmp_path, capsys):
    archive = canvas_archive(course, tmp_path)
    roster = write_roster(tmp_path / "roster.csv", CANVAS_ROSTER)
    intake(course, capsys, archive, "--roster", str(roster))
    (course.submitted("ada") / "timestamp.txt").write_text("2026-03-01 10:00:00.000000 UTC")
    code, out = intake(course, capsys, archive, "--roster", str(roster))
    assert f"kept: ada: {course.submitted('ada')} already holds a submission; kept (--force replaces it)" in out
    assert (course.submitted("ada") / "timestamp.txt").read_text() == "2026-03-01 10:00:00.000000 UTC"
    code, out = intake(course, capsys, archive, "--roster", str(roster), "--force")
    assert (course.submitted("ada") / "timestamp.txt").read_text() == "2026-03-01 11:30:00.000000 UTC"
    assert f"written: ada: {course.submitted('ada')}" in out


def test_a_moodle_download_has_a_folder_per_participant_matched_by_name(course, tmp_path, capsys):
    files = assignment_files(course, complete(tmp_path / "complete"))
    path = tmp_path / "moodle.zip"
    with zipfile.ZipFile(path, "w") as archive:
        add(archive, "Ada Lovelace_5001_assignsubmission_file_/compaction_labs.zip", zipped_folder(files), ON_TIME)
        for name, data in files.items():
            add(archive, f"Bøb Ørsted_5002_assignsubmission_file_/{Path(name).name}", data, LATE)
        add(archive, "Bøb Ørsted_5002_assignsubmission_file_/.DS_Store", b"\0", LATE)
        add(archive, "Sam Same_5003_assignsubmission_file_/records.py", files["compaction_lab/records.py"])
    roster = write_roster(
        tmp_path / "moodle-roster.csv",
        [
            ["First name", "Surname", "ID number", "Email address"],
            ["Ada", "Lovelace", "ada", "ada@example.org"],
            ["Bøb", "Ørsted", "bob", "bob@example.org"],
            ["Sam", "Same", "sam1", "sam1@example.org"],
            ["Sam", "Same", "sam2", "sam2@example.org"],
        ],
    )
    code, out = intake(course, capsys, path, "--roster", str(roster))
    assert "a Moodle bulk download" in out
    expected = {**files, "timestamp.txt": b"2026-03-01 11:30:00.000000 UTC"}
    assert tree(course.submitted("ada")) == expected
    assert tree(course.submitted("bob")) == {**files, "timestamp.txt": b"2026-03-01 13:15:00.000000 UTC"}
    assert "dropped: bob: Bøb Ørsted_5002_assignsubmission_file_/.DS_Store dropped" in out
    assert "unknown student: Sam Same_5003_assignsubmission_file_ (LMS id 5003): not in the roster" in out, "two Sams"
    assert code == 1


def test_without_a_roster_the_lms_id_is_the_student_id_and_a_non_lms_zip_is_named(course, tmp_path, capsys):
    path = tmp_path / "one.zip"
    with zipfile.ZipFile(path, "w") as archive:
        add(archive, "lovelaceada_101_9000_records.py", b"x = 1\n")
        add(archive, "../outside.py", b"x = 1\n")
    code, out = intake(course, capsys, path)
    assert tree(course.submitted("101"))["compaction_lab/records.py"] == b"x = 1\n"
    assert "ignored: ../outside.py: not a Canvas submission's name; not read" in out and code == 1
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        add(archive, "notes.txt", b"hello")
    code, out = intake(course, capsys, other)
    assert code == 1 and "the archive is in no layout this reads (Canvas, Moodle): its entries begin notes.txt" in out


@pytest.mark.slow
def test_submissions_from_a_canvas_download_grade_as_the_same_samples_placed_by_submit(course, tmp_path, capsys):
    from datetime import UTC, datetime

    from rich.console import Console

    from workbook.course.submit import submit
    from workbook.pipeline.autograde import grade_with_progress
    from workbook.pipeline.grades import course_grades

    samples = {"ada": complete(tmp_path / "complete"), "bob": partial(tmp_path / "partial")}
    path = tmp_path / "canvas.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for user, (student, package) in enumerate(samples.items(), start=101):
            files = assignment_files(course, package)
            add(archive, f"{student}_{user}_{user}0_compaction_labs.zip", zipped_folder(files), ON_TIME)
            submit(course, f"{student}_by_hand", package, datetime(*ON_TIME, tzinfo=UTC))
    roster = write_roster(tmp_path / "roster.csv", CANVAS_ROSTER[:4])
    assert intake(course, capsys, path, "--roster", str(roster))[0] == 0
    grade_with_progress(course, None, jobs=2, timeout=20, console=Console(file=io.StringIO()))
    grades = {grade.student: grade for grade in course_grades(course)}
    for student in samples:
        scores = [(lab.notebook, lab.auto_score, lab.max_score) for lab in grades[student].labs]
        assert scores == [(lab.notebook, lab.auto_score, lab.max_score) for lab in grades[f"{student}_by_hand"].labs]
    assert grades["ada"].auto_score == grades["ada"].auto_max > grades["bob"].auto_score > 0
