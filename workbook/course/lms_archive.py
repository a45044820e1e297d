"""``workbook intake ARCHIVE.zip``: an LMS's bulk download of submissions laid out as ``submitted/STUDENT/compaction_labs/``.

Two layouts are read (``LAYOUTS``); adding one is a parser from an archive entry's top-level name to the LMS's own
student id (``_canvas_owner``, ``_moodle_owner``) and a line in ``_owner``:

- **Canvas** ("Download submissions"): flat files named ``NAME_USERID_FILEID_ORIGINAL`` (``NAME_LATE_USERID_...`` when
  late); Canvas adds ``-1``, ``-2`` to a resubmitted file's ``ORIGINAL``, which is read without it. The roster
  (Canvas's gradebook export) maps ``USERID`` (its ``ID`` column) to the student id.
- **Moodle** ("Download all submissions"): one folder per participant, ``FULL NAME_PARTICIPANTID_assignsubmission_
  file_``. The roster (Moodle's grade export) maps the full name (``First name`` and ``Last name``/``Surname``) to
  the student id; two rows with the same name are ambiguous and name nobody.

Without a roster the student id is the LMS's own (Canvas's user id, Moodle's participant id). With one, the student
id is its ``--roster-id`` column (``workbook.course.roster.KEY``); a submission whose owner the roster lacks is named
and not written, never guessed.

A submission is a student's loose files (notebooks at the top, the five lab modules into ``compaction_lab/``, any
other file at the top) or a zip of the assignment folder (its one top folder, if any, stripped). Its time, written to
``timestamp.txt`` in nbgrader's format and kept as its receipt (``workbook.course.received``), is the LMS's: the
archive entries' time (the latest of them), read as UTC.
A student with several submissions keeps the latest, and the report says so.

Intake's rules hold for every entry, the zip's own included, before anything is written: a symlink, a special file,
a path escaping the folder (absolute, or with ``..``) or a file over ``intake.MAX_FILE_BYTES`` (over
``intake.MAX_TOTAL_BYTES`` in all) refuses the submission by name; ``.ipynb_checkpoints/``, ``__pycache__/`` and
editor files (``EDITOR_FILES``) are dropped and noted. The folder is laid out beside ``submitted/STUDENT`` and checked
with ``intake.check_submission`` before it takes that place; a submission already in ``submitted/`` is kept, and
named, unless ``force``. Nothing is written outside ``submitted/`` but the receipts.
"""

from __future__ import annotations

import fnmatch
import io
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from workbook.course.intake import MAX_FILE_BYTES, MAX_TOTAL_BYTES, TIMESTAMP, check_submission
from workbook.course.layout import ASSIGNMENT, PACKAGE, Course
from workbook.course.received import record_receipt
from workbook.course.roster import KEY, read_roster_rows
from workbook.course.submit import TIMESTAMP_FORMAT
from workbook.errors import CourseError
from workbook.manifest import LABS

LAYOUTS = ("canvas", "moodle")
DROPPED_FOLDERS = (".ipynb_checkpoints", "__pycache__")
EDITOR_FILES = ("*~", ".*.swp", ".*.swo", ".#*", "#*#", ".DS_Store", "Thumbs.db", "*.pyc")
LAB_FILES = frozenset(f"{lab.module}.py" for lab in LABS)
CANVAS_NAME = re.compile(r"(?P<name>[^_/]+)(?P<late>_LATE)?_(?P<user>\d+)_(?P<file>\d+)_(?P<original>[^/]+)")
MOODLE_FOLDER = re.compile(r"(?P<name>.+)_(?P<participant>\d+)_assignsubmission_[a-z]+_")


@dataclass
class Submission:
    """One submission read from the archive: the LMS's ``owner`` id, where it came from (``origin``), its files
    (path in the assignment folder -> bytes), its time (UTC), what refuses it and what was dropped."""

    owner: str
    origin: str
    files: dict[str, bytes] = field(default_factory=dict)
    when: datetime | None = None
    refused: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    total: int = 0


@dataclass
class IntakeReport:
    """What ``intake_archive`` did, one sentence per entry: submissions ``written`` (student and folder), ``refused``
    (named, with why), owners ``unknown`` to the roster, ``superseded`` earlier submissions, ``kept`` existing
    folders (no ``force``), ``dropped`` files, archive entries ``ignored`` (in no known layout)."""

    layout: str = ""
    written: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when every submission of the archive was written."""
        return not (self.refused or self.unknown or self.kept or self.ignored)


def _entry_time(info: zipfile.ZipInfo) -> datetime:
    return datetime(*info.date_time, tzinfo=UTC)


def _mode(info: zipfile.ZipInfo) -> int:
    return (info.external_attr >> 16) & 0xFFFF


def _escapes(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return name.startswith(("/", "\\")) or bool(re.match(r"[A-Za-z]:", name)) or ".." in parts


def _dropped(path: PurePosixPath) -> bool:
    return any(part in DROPPED_FOLDERS for part in path.parts[:-1]) or any(
        fnmatch.fnmatch(path.name, pattern) for pattern in EDITOR_FILES
    )


def _loose_destination(original: str) -> str:
    stem, dot, suffix = original.rpartition(".")
    unsuffixed = re.sub(r"-\d+$", "", stem) + dot + suffix if dot else original
    notebooks = {lab.notebook for lab in LABS}
    for name in (original, unsuffixed):
        if name in LAB_FILES:
            return f"{PACKAGE}/{name}"
        if name in notebooks:
            return name
    return original


def _canvas_owner(top: str) -> tuple[str, str] | None:
    match = CANVAS_NAME.fullmatch(top)
    return (match["user"], match["original"]) if match else None


def _moodle_owner(top: str) -> tuple[str, str] | None:
    match = MOODLE_FOLDER.fullmatch(top)
    return (match["participant"], match["name"]) if match else None


def _owner(layout: str, top: str) -> tuple[str, str] | None:
    return _canvas_owner(top) if layout == "canvas" else _moodle_owner(top)


def detect_layout(names: list[str]) -> str:
    """``moodle`` when an entry's top folder is a Moodle participant folder, else ``canvas`` when a top-level file
    has Canvas's name shape; raises ``CourseError`` naming a few entries otherwise."""
    tops = [name.replace("\\", "/").split("/")[0] for name in names]
    if any(MOODLE_FOLDER.fullmatch(top) for top, name in zip(tops, names, strict=True) if "/" in name):
        return "moodle"
    if any(CANVAS_NAME.fullmatch(top) for top in tops):
        return "canvas"
    shown = ", ".join(names[:3])
    raise CourseError(f"the archive is in no layout this reads (Canvas, Moodle): its entries begin {shown}")


def _take(submission: Submission, info: zipfile.ZipInfo, where: str, destination: str, data_of) -> None:
    """Check one archive entry against intake's rules and add it to ``submission`` (``data_of()`` reads it)."""
    mode = _mode(info)
    if stat.S_ISLNK(mode):
        submission.refused.append(f"{where} is a symlink (to {data_of().decode('utf-8', 'replace')})")
        return
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        submission.refused.append(f"{where} is not a regular file")
        return
    if _escapes(info.filename) or _escapes(destination):
        submission.refused.append(f"{where} escapes the folder (../ or an absolute path)")
        return
    if info.is_dir():
        return
    path = PurePosixPath(destination)
    if _dropped(path):
        submission.dropped.append(where)
        return
    if info.file_size > MAX_FILE_BYTES:
        submission.refused.append(f"{where} is {info.file_size} bytes (at most {MAX_FILE_BYTES} per file)")
        return
    submission.total += info.file_size
    if submission.total > MAX_TOTAL_BYTES:
        submission.refused.append(f"the files add up to over {MAX_TOTAL_BYTES} bytes")
        return
    submission.files[str(path)] = data_of()
    when = _entry_time(info)
    submission.when = max(submission.when, when) if submission.when else when


def _take_zip(submission: Submission, data: bytes, where: str) -> None:
    """Add a zip of the assignment folder to ``submission``: its entries, its one top folder (if any) stripped."""
    try:
        inner = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        submission.refused.append(f"{where} is not a zip file")
        return
    with inner:
        infos = inner.infolist()
        names = [info.filename.replace("\\", "/") for info in infos]
        tops = {name.split("/")[0] for name in names}
        strip = len(tops) == 1 and all("/" in name or info.is_dir() for name, info in zip(names, infos, strict=True))
        for info, name in zip(infos, names, strict=True):
            inside = name.split("/", 1)[1] if strip and "/" in name else ("" if strip else name)
            if not inside:
                continue
            _take(submission, info, f"{where}:{name}", inside, lambda info=info: inner.read(info))


def read_archive(archive: Path) -> tuple[str, list[Submission], list[str]]:
    """The archive's layout, its submissions (one per owner and submitted zip, or per owner's loose files) and the
    entries in no layout. Raises ``CourseError`` naming the file when it is not a zip, or its layout unknown."""
    try:
        outer = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as error:
        raise CourseError(f"{archive}: not a zip file ({error})") from error
    with outer:
        infos = outer.infolist()
        layout = detect_layout([info.filename for info in infos])
        loose: dict[str, Submission] = {}
        submissions: list[Submission] = []
        ignored = []
        for info in infos:
            name = info.filename.replace("\\", "/")
            top, _, rest = name.partition("/")
            owned = _owner(layout, top)
            if owned is None:
                if not info.is_dir():
                    ignored.append(f"{info.filename}: not a {layout.capitalize()} submission's name; not read")
                continue
            owner, part = owned
            relative = (f"{part}/{rest}" if rest else part) if layout == "canvas" else rest
            if not relative:
                continue
            if relative.lower().endswith(".zip") and "/" not in relative.strip("/"):
                zipped = Submission(owner, info.filename)
                if _escapes(info.filename):
                    zipped.refused.append(f"{info.filename} escapes the folder (../ or an absolute path)")
                elif info.file_size > MAX_TOTAL_BYTES:
                    zipped.refused.append(f"{info.filename} is {info.file_size} bytes (at most {MAX_TOTAL_BYTES})")
                else:
                    _take_zip(zipped, outer.read(info), info.filename)
                    zipped.when = _entry_time(info)
                submissions.append(zipped)
                continue
            canvas = CANVAS_NAME.fullmatch(top)
            origin = f"{canvas['name']}'s files" if canvas and layout == "canvas" else top
            submission = loose.setdefault(owner + "\0" + origin, Submission(owner, origin))
            destination = relative if "/" in relative else _loose_destination(relative)
            _take(submission, info, info.filename, destination, lambda info=info: outer.read(info))
    return layout, submissions + list(loose.values()), ignored


def _roster_ids(layout: str, roster: Path | None, roster_id: str | None) -> dict[str, str | None] | None:
    """LMS owner id -> student id (None when ambiguous); None without a roster (the owner id is the student id)."""
    if roster is None:
        return None
    key = roster_id or KEY[layout]
    if layout == "canvas":
        rows = read_roster_rows(roster, ("ID", key))
        return {row["ID"].strip(): row[key].strip() or None for row in rows if row["ID"].strip()}
    rows = read_roster_rows(roster, ("First name", key))
    ids: dict[str, str | None] = {}
    for row in rows:
        full = " ".join(f"{row.get('First name', '')} {row.get('Last name', row.get('Surname', ''))}".split())
        ids[full] = None if full in ids else (row[key].strip() or None)
    return ids


def _student(layout: str, submission: Submission, ids: dict[str, str | None] | None) -> str | None:
    if ids is None:
        return submission.owner
    if layout == "canvas":
        return ids.get(submission.owner)
    moodle = _moodle_owner(submission.origin.split("/")[0])
    return ids.get(" ".join(moodle[1].split())) if moodle else None


def _place(course: Course, student: str, submission: Submission, force: bool) -> str | None:
    """Lay ``submission`` out as ``submitted/student/compaction_labs``; None when written, else why not."""
    final = course.submitted(student)
    if final.exists() and not force:
        return f"{student}: {final} already holds a submission; kept (--force replaces it)"
    staging = course.root / "submitted" / f".intake-{student}"
    if staging.exists():
        shutil.rmtree(staging)
    folder = staging / ASSIGNMENT
    try:
        folder.mkdir(parents=True)
        for relative, data in sorted(submission.files.items()):
            dest = (folder / relative).resolve()
            if not dest.is_relative_to(folder.resolve()):
                return f"{student}: {relative} escapes the folder"
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        when = submission.when or datetime.now(UTC)
        (folder / TIMESTAMP).write_text(when.strftime(TIMESTAMP_FORMAT), encoding="utf-8")
        checked = check_submission(folder)
        if not checked.accepted:
            return f"{student}: " + "; ".join(checked.refused)
        if final.exists():
            shutil.rmtree(final)
        final.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(final)
        record_receipt(course, student, when, "the LMS")
        return None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def intake_archive(
    course: Course, archive: Path, roster: Path | None = None, roster_id: str | None = None, force: bool = False
) -> IntakeReport:
    """Lay every submission of the LMS bulk download ``archive`` out under ``course``'s ``submitted/`` (see the
    module); return the ``IntakeReport``. A refused, unknown or kept submission costs only its student.

    Raises ``CourseError`` (nothing written) when the course is not built, the archive is not a zip in a known
    layout, or the roster cannot be read."""
    course.require()
    layout, submissions, ignored = read_archive(archive)
    ids = _roster_ids(layout, roster, roster_id)
    report = IntakeReport(layout=layout, ignored=ignored)
    by_student: dict[str, list[Submission]] = {}
    for submission in submissions:
        student = _student(layout, submission, ids)
        if student is None:
            report.unknown.append(
                f"{submission.origin} (LMS id {submission.owner}): not in the roster; not written, never guessed"
            )
            continue
        by_student.setdefault(student, []).append(submission)
    for student, found in sorted(by_student.items()):
        found.sort(key=lambda item: item.when or datetime.min.replace(tzinfo=UTC))
        latest = found[-1]
        for older in found[:-1]:
            report.superseded.append(
                f"{student}: {older.origin} ({older.when:%Y-%m-%d %H:%M:%S} UTC) is older than {latest.origin} "
                f"({latest.when:%Y-%m-%d %H:%M:%S} UTC); kept the latest"
            )
        report.dropped.extend(f"{student}: {path} dropped" for path in latest.dropped)
        if latest.refused:
            report.refused.append(f"{student}: " + "; ".join(latest.refused))
            continue
        if not latest.files:
            report.refused.append(f"{student}: {latest.origin} holds no file")
            continue
        why = _place(course, student, latest, force)
        if why is None:
            report.written.append(f"{student}: {course.submitted(student)} ({len(latest.files)} files)")
        elif "already holds" in why:
            report.kept.append(why)
        else:
            report.refused.append(why)
    return report
