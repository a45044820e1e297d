"""What is compared, per lab: each student's own code and written answer, and the boilerplate that never counts.

A student's code of lab N is the text of every ``# BEGIN LAB N`` region of their lab module (the whole module when
they deleted the markers), followed by each module of their own (a module of ``compaction_lab/`` that is
neither a lab module, nor ``__init__.py``, nor under ``provided/``) that the lab module imports. Their written
answer of lab N is the text of the notebook's answer cells (markdown cells nbgrader marks ``solution``). The files
are read from ``submitted/`` (the student's bytes), else from ``autograded/``.

The boilerplate of a lab's code is the starter lab module and every provided module; of its answers, the released
notebook's answer cells. A match inside the boilerplate never counts.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from workbook.course.layout import ASSIGNMENT, PACKAGE, Course
from workbook.manifest import LABS, lab_record
from workbook.paths import SOLUTIONS, STARTERS

CODE = "code"
ANSWER = "answer"
KINDS = (CODE, ANSWER)
"""What a document is: a lab's code (compared as Python tokens) or its written answer (compared as text)."""

BEGIN = re.compile(r"^(?P<indent>\s*)# BEGIN LAB (?P<lab>\d+)\s*$")
END = re.compile(r"^\s*# END LAB (?P<lab>\d+)\s*$")
_LAB_MODULES = frozenset(lab.module for lab in LABS)


@dataclass(frozen=True)
class ClassDocuments:
    """The documents of one lab and kind: ``texts[student]`` is the student's text (students without one are
    absent), ``boilerplate`` the course's texts that never count, and ``unreadable[student]`` why a student's
    file could not be read (that student is left out, the others are compared)."""

    lab: int
    kind: str
    texts: dict[str, str]
    boilerplate: tuple[str, ...]
    unreadable: dict[str, str] = field(default_factory=dict)


def lab_regions(source: str, lab: int) -> str:
    """The lines of every ``# BEGIN LAB lab`` ... ``# END LAB lab`` region of ``source`` (markers excluded),
    dedented region by region and joined; the whole ``source`` when it has no region of ``lab``."""
    regions: list[list[str]] = []
    inside = False
    for line in source.splitlines(keepends=True):
        begin, end = BEGIN.match(line), END.match(line)
        if begin and int(begin["lab"]) == lab:
            regions.append([])
            inside = True
        elif end and int(end["lab"]) == lab:
            inside = False
        elif inside:
            regions[-1].append(line)
    if not regions:
        return source
    return "".join(_dedent(lines) for lines in regions)


def _dedent(lines: list[str]) -> str:
    # a region inside a function is indented: dedented, it lexes as a module of its own
    return textwrap.dedent("".join(lines)) + "\n"


def own_modules(package: Path, module_source: str) -> list[str]:
    """The names of the student's own modules in ``package`` that ``module_source`` imports (``from .NAME
    import``, ``from . import NAME``, and the same two by the package's absolute name), sorted; a module that does
    not parse imports none."""
    try:
        tree = ast.parse(module_source)
    except SyntaxError:
        return []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 and not base:
                names.update(alias.name for alias in node.names)
            elif node.level == 1 or (node.level == 0 and base.startswith(f"{PACKAGE}.")):
                names.add(base.removeprefix(f"{PACKAGE}.").split(".")[0])
            elif node.level == 0 and base == PACKAGE:
                names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith(f"{PACKAGE}."))
    own = {name for name in names if name not in _LAB_MODULES | {"provided", "__init__"}}
    return sorted(name for name in own if (package / f"{name}.py").is_file())


def read_own(path: Path) -> str:
    """The text of the student's file ``path``; ``OSError`` for a symbolic link (intake refuses them, and one
    placed by hand could show an instructor's file on a page) and when it cannot be read, ``UnicodeDecodeError``
    when it is not UTF-8."""
    if path.is_symlink():
        raise OSError(f"{path.name} is a symbolic link")
    return path.read_text(encoding="utf-8")


def student_code(package: Path, lab: int) -> str | None:
    """Student's code of ``lab`` from their ``package`` folder (see the module's docstring), or None when the lab
    module is absent. ``OSError``/``UnicodeDecodeError`` when a file cannot be read (``read_own``)."""
    module = package / f"{lab_record(lab).module}.py"
    if not (module.is_file() or module.is_symlink()):
        return None
    source = read_own(module)
    parts = [lab_regions(source, lab)]
    parts += [read_own(package / f"{name}.py") for name in own_modules(package, source)]
    return "\n".join(parts)


def answer_text(notebook: Path) -> str | None:
    """The text of ``notebook``'s answer cells (markdown, nbgrader ``solution``), joined by blank lines; None
    when the notebook is absent. ``ValueError`` (JSON) or ``OSError`` when it cannot be read (``read_own``)."""
    if not (notebook.is_file() or notebook.is_symlink()):
        return None
    cells = json.loads(read_own(notebook)).get("cells", [])
    texts = []
    for cell in cells:
        metadata = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "markdown" and metadata.get("solution"):
            source = cell.get("source", "")
            texts.append(source if isinstance(source, str) else "".join(source))
    return "\n\n".join(texts)


def student_folder(course: Course, student: str) -> Path:
    """Where ``student``'s files are read: ``submitted/``, else ``autograded/``."""
    submitted = course.submitted(student)
    return submitted if submitted.is_dir() else course.autograded(student)


def class_students(course: Course) -> list[str]:
    """Every student with a submitted or an autograded folder, sorted."""
    found = {
        path.parent.name
        for root in ("submitted", "autograded")
        for path in (course.root / root).glob(f"*/{ASSIGNMENT}")
        if path.is_dir()
    }
    return sorted(found)


def code_boilerplate(lab: int) -> tuple[str, str]:
    """The starter lab module of ``lab``, and every provided module joined."""
    provided = [path.read_text(encoding="utf-8") for path in sorted((SOLUTIONS / "provided").rglob("*.py"))]
    return (STARTERS / f"{lab_record(lab).module}.py").read_text(encoding="utf-8"), "\n".join(provided)


def collect(course: Course, lab: int, kind: str) -> ClassDocuments:
    """Every student's document of ``lab`` and ``kind`` in ``course``, with its boilerplate. A student whose file
    cannot be read is listed in ``unreadable`` with the reason; ``ValueError`` for an unknown ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    notebook = lab_record(lab).notebook
    texts: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for student in class_students(course):
        folder = student_folder(course, student)
        try:
            text = student_code(folder / PACKAGE, lab) if kind == CODE else answer_text(folder / notebook)
        except (OSError, ValueError) as error:  # UnicodeDecodeError and JSON errors are ValueErrors
            unreadable[student] = f"{type(error).__name__}: {error}"
            continue
        if text is not None:
            texts[student] = text
    boilerplate: tuple[str, ...]
    if kind == CODE:
        boilerplate = code_boilerplate(lab)
    else:
        released = course.release / notebook
        boilerplate = ((answer_text(released) or "") if released.is_file() else "",)
    return ClassDocuments(lab, kind, texts, boilerplate, unreadable)
