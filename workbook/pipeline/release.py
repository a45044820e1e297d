"""``workbook release``: nbgrader's ``generate_assignment``, then a check that nothing secret got out.

The check reads what must stay with the instructor: every line of the source notebooks between ``BEGIN
SOLUTION``/``END SOLUTION`` (the written answers' model answers) and ``BEGIN HIDDEN TESTS``/``END HIDDEN
TESTS`` (should an instructor add nbgrader hidden tests), and how every hidden case calls its function
(``COURSE/grading/cases/<module>/hidden.py``). It fails if any of it appears in a released file, or if the released
package is not the starter package (a solution module must never reach ``release/``).
"""

from __future__ import annotations

import filecmp
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import nbformat

from workbook.course.layout import ASSIGNMENT, PACKAGE, Course, CourseError
from workbook.course.packages import modules, starter_package
from workbook.grading.casebook import write_visible_file
from workbook.grading.course_answers import write_answers_file
from workbook.grading.scoring import course_case_book
from workbook.paths import STARTERS

HIDDEN = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
SOLUTION = ("BEGIN SOLUTION", "END SOLUTION")
TRIVIAL = {"", "pass", "raise NotImplementedError()", "YOUR ANSWER HERE", "# YOUR CODE HERE"}


HANDING_OUT = (
    "not handed out yet (the formgrader shows the assignment as draft): on the course hub, formgrader "
    "→ Manage Assignments → Release (nbgrader's release_assignment, which copies it to the exchange; "
    f"or `nbgrader release_assignment {ASSIGNMENT}` in the course directory); students then fetch "
    "it in their Assignments tab. Without a hub, students run `workbook practice DIR`."
)
"""What ``workbook release`` prints after the check: what handing the release out takes."""


class ReleaseLeakError(CourseError):
    """The release holds hidden-test or solution text, or a package other than the starter; the message lists where."""


def split_secret(source: str, regions: tuple[tuple[str, str], ...] = (HIDDEN, SOLUTION)) -> tuple[list[str], list[str]]:
    """Split a cell's lines into (public, secret): secret ones lie strictly inside one of ``regions``
    (begin, end delimiters); delimiter lines belong to neither. Lines are stripped."""
    public: list[str] = []
    secret: list[str] = []
    inside = False
    for line in source.splitlines():
        if any(begin in line for begin, _ in regions):
            inside = True
        elif any(end in line for _, end in regions):
            inside = False
        else:
            (secret if inside else public).append(line.strip())
    return public, secret


def notebook_secrets(
    notebooks: Iterable[Path], regions: tuple[tuple[str, str], ...] = (HIDDEN, SOLUTION)
) -> dict[str, list[str]]:
    """``{"NB.ipynb grade_id": [secret lines]}`` for every cell of ``notebooks`` with a secret region
    (by default hidden tests and solutions).

    Lines that are trivial (``pass``, ``YOUR ANSWER HERE``, fewer than 8 characters) or that also
    appear in a public part of any notebook are not secrets: the student sees them anyway.
    """
    cells, public = {}, []
    for path in notebooks:
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            shown, hidden = split_secret(cell.source, regions)
            public += shown
            if hidden:
                cells[f"{path.name} {cell.metadata.get('nbgrader', {}).get('grade_id', f'cell {index}')}"] = hidden
    public_text = "\n".join(public)
    secrets = {
        where: [line for line in lines if len(line) >= 8 and line not in TRIVIAL and line not in public_text]
        for where, lines in cells.items()
    }
    return {where: lines for where, lines in secrets.items() if lines}


def readable_text(path: Path) -> str:
    """The text a reader of ``path`` sees: for a notebook or a JSON file every string in its JSON (cell sources,
    outputs, metadata) unescaped, one per line, so a line with quotes or backslashes matches; other files as
    they are."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return "\n".join(_strings(json.loads(text))) if path.suffix in (".ipynb", ".json") else text


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def leaks(
    secrets: dict[str, list[str]], files: Iterable[Path], read: Callable[[Path], str] = readable_text
) -> list[str]:
    """Return ``"FILE: CELL: LINE"`` for every secret line found in one of ``files`` as ``read`` shows it."""
    found = []
    for path in files:
        text = read(path)
        found += [f"{path}: {cell}: {line}" for cell, lines in secrets.items() for line in lines if line in text]
    return found


def hidden_case_secrets(course: Course) -> dict[str, list[str]]:
    """``{"hidden case KEY": [its call]}`` for every hidden case whose call is not public anyway (in the source
    package or notebooks, e.g. a hidden case checking another part of a call a visible case shows)."""
    package = course.source / PACKAGE
    files = [*course.source.glob("*.ipynb"), *package.rglob("*.py"), *package.rglob("*.json")]
    public = "\n".join(readable_text(path) for path in files)
    return {
        f"hidden case {case.key}": [case.call]
        for case in course_case_book(course).cases
        if case.hidden and case.call not in public
    }


def check_release(course: Course, starters: Path = STARTERS) -> None:
    """Raise ``ReleaseLeakError`` if a released file holds a secret line of the source notebooks or a hidden
    case's call, any released file holds a region marker, or the released package is not byte-for-byte a starter
    package (``starter_package``) holding the course's visible cases (``grading/cases``)."""
    secrets = notebook_secrets(sorted(course.source.glob("*.ipynb")))
    secrets.update(hidden_case_secrets(course))
    released = [
        path for path in sorted(course.release.rglob("*")) if path.is_file() and "__pycache__" not in path.parts
    ]
    problems = leaks(secrets, released)
    problems += [
        f"{path}: contains {marker!r}"
        for path in released
        for marker in (*HIDDEN, *SOLUTION, "# BEGIN LAB")
        if marker in path.read_text(errors="replace")
    ]
    package = course.release / PACKAGE
    with tempfile.TemporaryDirectory(prefix="workbook-release-") as scratch:
        expected_package = starter_package(Path(scratch) / PACKAGE, starters=starters)
        write_visible_file(expected_package, course.cases)
        write_answers_file(expected_package, course.cases)
        expected = modules(expected_package)
        if modules(package) != expected:
            problems.append(f"{package}: its files differ from a starter package's")
        else:
            _, mismatch, errors = filecmp.cmpfiles(expected_package, package, expected, shallow=False)
            problems += [f"{package / name}: differs from the starter package" for name in mismatch + errors]
    if problems:
        raise ReleaseLeakError("the release is not safe to hand out:\n  " + "\n  ".join(problems))


def release(course: Course) -> list[Path]:
    """Compile the course's visible cases (``grading/cases``) into its source package, generate
    ``release/compaction_labs`` with nbgrader (gradebook entries included), check it, return its files.

    Raises ``CourseError`` with nbgrader's log when generation fails, ``ReleaseLeakError`` when the check fails.
    """
    write_visible_file(course.source / PACKAGE, course.cases)  # the course's cases as they are now
    write_answers_file(course.source / PACKAGE, course.cases)
    result = course.api().generate_assignment(ASSIGNMENT, force=True, create=True)
    if not result["success"]:
        raise CourseError(f"nbgrader generate_assignment failed:\n{result.get('log', '')}{result.get('error', '')}")
    check_release(course)
    return [path for path in sorted(course.release.rglob("*")) if path.is_file()]
