"""The nbgrader course directory: its layout, its ``nbgrader_config.py``, and ``workbook build``.

One assignment, ``compaction_labs``, whose ``source/`` holds the five lab notebooks and the
*starter* package folder ``compaction_lab/``. Notebooks import ``compaction_lab`` from their own
folder (the kernel's working directory), so a student edits the package and nbgrader grades it.

The config written here carries the settings a module-based course needs:

- ``Autograde.exclude_overwriting`` lists the five lab modules, so autograde keeps the student's
  ``records.py`` ... ``resumption.py`` (otherwise nbgrader silently replaces them with the starter
  copies from ``source/``), while the instructor's copies of every other file (``provided/example.py``,
  ``errors.py``, ...) still overwrite whatever a student changed there.
- ``Execute.timeout``: the labs' time limit per cell (``DEFAULT_CELL_TIMEOUT`` seconds).
- ``Autograde.sanitize_preprocessors`` and ``OverwriteCells.add_missing_cells``: honest accidents
  (``workbook.accidents``).
- ``GenerateFeedback.preprocessors`` adds ``workbook.feedback.JudgeResults``.
- ``ExportApp.plugin_class`` is ``workbook.export.LabCsvExportPlugin`` (also for ``nbgrader export``).
- ``Autograde.autograde_preprocessors`` is nbgrader's list with ``Execute`` replaced by
  ``workbook.sandbox_kernel.SandboxExecute`` (``AUTOGRADE_PREPROCESSORS``): student notebooks run in
  sandboxed kernels (over Unix sockets, so parallel graders never race for a port);
  ``SandboxKernelManager.isolation`` (``auto``) says whether a sandbox is required.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from rich.console import Console
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from .errors import CourseError
from .labs import LABS
from .paths import HIDDEN_CASES, NOTEBOOKS, STARTERS, script

ASSIGNMENT = "compaction_labs"
PACKAGE = "compaction_lab"
CONFIG_FILE = "nbgrader_config.py"
DEFAULT_COURSE = Path("course")
DEFAULT_COURSE_ID = "compaction-workbook"
DEFAULT_CELL_TIMEOUT = 20
"""The labs' time limit, seconds per notebook cell: every lab cell runs in well under a second on the
reference solutions; the margin is for a slow machine and a student's slow but finishing code. The one
place it is set: ``build`` writes it into the course config (autograde), ``practice`` into the workspace's
config and the hub passes it to every server (Validate), ``check`` gives it to each test, and the
notebooks' opening cells state it (a test checks they agree)."""

LAB_MODULES: tuple[str, ...] = tuple(f"{PACKAGE}/{lab.module}.py" for lab in LABS)
"""The student's files, relative to the assignment folder: kept (not overwritten) by autograde."""

CONFIG_TEMPLATE = '''\
"""nbgrader configuration of the compaction workbook course, written by `workbook build`.

Run nbgrader (or `workbook ...`) from this directory. See the project's README for each setting.
"""

c = get_config()  # noqa: F821 (nbgrader's config loader provides get_config)

{db_line}
# The student's five lab modules are graded as submitted; every other file of the assignment
# (provided/example.py, provided/errors.py, ...) is restored from source/ before grading.
c.Autograde.exclude_overwriting = {{
    {assignment!r}: [
{lab_modules}
    ],
}}

# The labs' time limit (seconds per cell), the one the notebooks state and Validate, `workbook check` and
# `workbook practice` use too; a cell that runs longer is interrupted.
c.Execute.timeout = {timeout}

# Honest accidents (workbook/accidents.py): a copied grade cell counts once (nbgrader's DeduplicateIds, then
# DropClearedMetadata), a deleted one is restored from the release (add_missing_cells), an edited locked
# cell is graded as released (nbgrader's OverwriteCells, as RestoreMissingCells).
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "workbook.accidents.DropClearedMetadata",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "workbook.accidents.RestoreMissingCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.OverwriteCells.add_missing_cells = True

# Feedback: every test cell shows the judge's results (hidden cases by name and hint only).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "workbook.feedback.JudgeResults",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

# `nbgrader export` and `workbook export`: CSV via the csv module, one column per lab notebook.
c.ExportApp.plugin_class = "workbook.export.LabCsvExportPlugin"

# Student notebooks run in kernels inside a sandbox (bubblewrap: a private copy of the package, no
# network, no course, gradebook or solutions in sight, limits; their sockets, not TCP ports, in that private
# folder, so parallel graders never race for a port): nbgrader's list with Execute replaced.
c.Autograde.autograde_preprocessors = [
{autograde_preprocessors}
]
# required: refuse to grade where this machine cannot sandbox; auto: sandbox when it can, else run
# student code as the grader; off: never. `workbook autograde --isolation` overrides it per run.
c.SandboxKernelManager.isolation = "auto"
'''

SANDBOXED_EXECUTE = "workbook.sandbox_kernel.SandboxExecute"
"""nbgrader's ``Execute`` with sandboxed kernels (``workbook.sandbox_kernel``), by its import name."""
AUTOGRADE_PREPROCESSORS = (
    SANDBOXED_EXECUTE,
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
    "workbook.scoring.JudgeNotebook",
)
"""nbgrader 0.9's ``Autograde.autograde_preprocessors`` with ``Execute`` replaced by the sandboxed one and the
judge last (a test checks it against nbgrader's default)."""


# nbgrader runs `alembic` (a console script of this environment) when it creates a gradebook;
# put this interpreter's scripts first on PATH so that works without an activated venv.
_SCRIPTS = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _SCRIPTS:
    os.environ["PATH"] = os.pathsep.join([_SCRIPTS, os.environ.get("PATH", os.defpath)])


@dataclass(frozen=True)
class Course:
    """An nbgrader course directory laid out by ``build`` (``root`` is made absolute)."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).expanduser().resolve())

    @property
    def config_file(self) -> Path:
        """The course's ``nbgrader_config.py``."""
        return self.root / CONFIG_FILE

    @property
    def source(self) -> Path:
        """``source/compaction_labs``: the instructor's notebooks and the starter package."""
        return self.root / "source" / ASSIGNMENT

    @property
    def hidden_cases(self) -> Path:
        """``grading/hidden_cases``: the course's copy of the hidden cases (never released), which the judge
        and ``workbook validate --course`` read, and an instructor may edit."""
        return self.root / "grading" / "hidden_cases"

    @property
    def release(self) -> Path:
        """``release/compaction_labs``: what students get."""
        return self.root / "release" / ASSIGNMENT

    def submitted(self, student: str) -> Path:
        """``submitted/STUDENT/compaction_labs``."""
        return self.root / "submitted" / student / ASSIGNMENT

    def autograded(self, student: str) -> Path:
        """``autograded/STUDENT/compaction_labs`` of this course."""
        return self.root / "autograded" / student / ASSIGNMENT

    def feedback(self, student: str) -> Path:
        """``feedback/STUDENT/compaction_labs`` of this course."""
        return self.root / "feedback" / student / ASSIGNMENT

    def require(self) -> None:
        """Raise ``CourseError`` naming the directory unless ``build`` has laid it out."""
        if not self.config_file.is_file():
            raise CourseError(f"{self.root} is not a workbook course (no {CONFIG_FILE}); run `workbook build` first")

    def config(self) -> Config:
        """The course's ``nbgrader_config.py`` with ``CourseDirectory.root`` set to this course."""
        self.require()
        config = PyFileConfigLoader(CONFIG_FILE, path=str(self.root)).load_config()
        config.CourseDirectory.root = str(self.root)
        return config

    def api(self, config: Config | None = None) -> NbGraderAPI:
        """nbgrader's high-level API on this course."""
        return NbGraderAPI(config=config or self.config())

    def coursedir(self) -> CourseDirectory:
        """nbgrader's view of this course (paths, ``db_url``, ``course_id``)."""
        return CourseDirectory(config=self.config())

    def gradebook(self) -> Gradebook:
        """A new ``Gradebook`` on the course's database (use it as a context manager)."""
        coursedir = self.coursedir()
        return Gradebook(coursedir.db_url, coursedir.course_id)

    def students(self) -> list[str]:
        """The ids of students with a submission under ``submitted/``, sorted."""
        return sorted(path.parent.name for path in (self.root / "submitted").glob(f"*/{ASSIGNMENT}") if path.is_dir())


def configured_course(config: Config) -> Course:
    """The course a Jupyter/nbgrader ``config`` is about: its ``CourseDirectory.root``, or (unset, as when
    nbgrader's own commands or the formgrader run from the course directory) the working directory."""
    root = config.CourseDirectory.get("root")
    return Course(Path(root if isinstance(root, str) and root else os.getcwd()))


def require_released(course: Course) -> None:
    """Raise ``CourseError`` unless the gradebook knows the assignment (``workbook release`` adds it)."""
    with course.gradebook() as gradebook:
        if ASSIGNMENT not in {assignment.name for assignment in gradebook.assignments}:
            raise CourseError(f"the gradebook has no assignment {ASSIGNMENT!r}; run `workbook release` first")


def config_text(db_url: str | None = None, course_id: str | None = None, timeout: int = DEFAULT_CELL_TIMEOUT) -> str:
    """The ``nbgrader_config.py`` text; ``db_url`` None keeps nbgrader's default (``gradebook.db`` in the course),
    ``course_id`` None keeps nbgrader's (the empty id, or whatever a Jupyter-wide nbgrader config sets)."""
    db_line = (f"c.CourseDirectory.db_url = {db_url!r}\n" if db_url
               else "# The gradebook is nbgrader's default: SQLite, gradebook.db in this directory.\n")
    if course_id:
        db_line += f"c.CourseDirectory.course_id = {course_id!r}\n"
    lab_modules = "\n".join(f"        {module!r}," for module in LAB_MODULES)
    preprocessors = "\n".join(f"    {name!r}," for name in AUTOGRADE_PREPROCESSORS)
    return CONFIG_TEMPLATE.format(db_line=db_line, assignment=ASSIGNMENT, lab_modules=lab_modules, timeout=timeout,
                                  autograde_preprocessors=preprocessors)


def build(root: Path = DEFAULT_COURSE, db_url: str | None = None, force: bool = False,
          notebooks: Path = NOTEBOOKS, starters: Path = STARTERS, course_id: str | None = None,
          hidden_cases: Path = HIDDEN_CASES) -> Course:
    """Lay out the course at ``root``: config, ``source/compaction_labs`` (notebooks + starter package), the
    hidden cases (``grading/hidden_cases``, outside ``source/``, so never released) and the gradebook.

    A gradebook other than SQLite gets a course id (``course_id``, default ``DEFAULT_COURSE_ID``):
    nbgrader's default, the empty id, has no row in its ``course`` table, which only SQLite (without
    foreign-key checks) tolerates; PostgreSQL rejects the assignment.

    ``force`` rewrites the config, ``source/`` and ``grading/hidden_cases`` of an existing course
    (submissions, grades and the gradebook are kept). Raises ``CourseError`` if the course exists without
    ``force`` or if ``notebooks`` holds no ``.ipynb`` file.
    """
    course = Course(root)
    if course.config_file.exists() and not force:
        raise CourseError(f"{course.root} is already a course; pass --force to rewrite its config and source/")
    found = sorted(notebooks.glob("*.ipynb"))
    if not found:
        raise CourseError(f"no notebooks in {notebooks}")
    course.root.mkdir(parents=True, exist_ok=True)
    if db_url and not db_url.startswith("sqlite") and not course_id:
        course_id = DEFAULT_COURSE_ID
    course.config_file.write_text(config_text(db_url, course_id), encoding="utf-8")
    if course.source.exists():
        shutil.rmtree(course.source)
    course.source.mkdir(parents=True)
    for notebook in found:
        shutil.copyfile(notebook, course.source / notebook.name)
    shutil.copytree(starters, course.source / PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if course.hidden_cases.exists():
        shutil.rmtree(course.hidden_cases)
    shutil.copytree(hidden_cases, course.hidden_cases, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    with course.gradebook():
        pass  # creates the database and its tables
    return course


def add_course_option(parser: argparse.ArgumentParser) -> None:
    """The ``--course DIR`` option every course command takes."""
    parser.add_argument("--course", type=Path, default=DEFAULT_COURSE,
                        help=f"the nbgrader course directory (default: ./{DEFAULT_COURSE})")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook build``."""
    parser = subparsers.add_parser("build", help="lay out the nbgrader course: config, source/, gradebook",
                                   description="Lay out the nbgrader course directory: nbgrader_config.py, "
                                   "source/compaction_labs/ (the five lab notebooks and the starter package "
                                   "compaction_lab/) and the gradebook (SQLite gradebook.db unless --db-url). "
                                   "Next step: workbook release.")
    add_course_option(parser)
    parser.add_argument("--db-url", help="gradebook URL, e.g. postgresql://user@host/db (default: SQLite gradebook.db)")
    parser.add_argument("--course-id", help="nbgrader's course id (default: nbgrader's; "
                        f"{DEFAULT_COURSE_ID!r} with a --db-url other than SQLite)")
    parser.add_argument("--force", action="store_true",
                        help="rewrite the config, source/ and grading/hidden_cases/ of an existing course")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook build`` with the parsed ``args``; return the exit code."""
    course = build(args.course, db_url=args.db_url, force=args.force, course_id=args.course_id)
    notebooks = len(list(course.source.glob("*.ipynb")))
    console.print(f"built {course.root}: {CONFIG_FILE}, source/{ASSIGNMENT}/ ({notebooks} notebooks + {PACKAGE}/), "
                  f"gradebook {course.coursedir().db_url}")
    where = "" if args.course == DEFAULT_COURSE else f" --course {course.root}"
    console.print(f"next: {script('workbook')} release{where}", highlight=False, soft_wrap=True)
    return 0
