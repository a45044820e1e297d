"""The nbgrader course directory: its layout and where each part of a course is.

One assignment, ``compaction_labs``, whose ``source/`` holds the five lab notebooks and the *starter* package
folder ``compaction_lab/``. Notebooks import ``compaction_lab`` from their own folder (the kernel's working
directory), so a student edits the package and nbgrader grades it. ``grading/`` holds what never leaves the
instructor: the course's cases (``grading/cases/<module>/visible.py`` and ``hidden.py``) and the judge's results.
``workbook.course.config`` writes a course's ``nbgrader_config.py`` and lays a new one out (``build``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from workbook.errors import CourseError
from workbook.manifest import LABS

if TYPE_CHECKING:  # nbgrader takes seconds to import: only a method that needs it does
    from nbgrader.api import Gradebook
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

ASSIGNMENT = "compaction_labs"
PACKAGE = "compaction_lab"
CONFIG_FILE = "nbgrader_config.py"
DEFAULT_COURSE = Path("course")
DEFAULT_COURSE_ID = "compaction-workbook"
QUARANTINE = "quarantine"
"""The exchange folder (beside ``inbound``) where ``workbook collect`` moves a forged submission."""
ACCEPT_FLAG = "--accept-claimed-names"
"""``workbook collect``'s option to collect under the names typed (no owner check)."""
DEFAULT_CELL_TIMEOUT = 20
"""The labs' time limit, seconds per notebook cell: every lab cell runs in well under a second on the
reference solutions; the margin is for a slow machine and a student's slow but finishing code. The one
place it is set: ``build`` writes it into the course config (autograde), ``practice`` into the workspace's
config and the hub passes it to every server (Validate), ``check`` gives it to each test, and the
notebooks' opening cells state it (a test checks they agree)."""

LANGUAGES = {"en": "English", "zh": "Simplified Chinese", "vi": "Vietnamese"}
"""The editions a course may be built in, by language code (``workbook.course.editions``): English is the
source, the others translations of it."""
SOURCE_LANGUAGE = "en"

LAB_MODULES: tuple[str, ...] = tuple(f"{PACKAGE}/{lab.module}.py" for lab in LABS)
"""The student's files, relative to the assignment folder: kept (not overwritten) by autograde."""

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
    def cases(self) -> Path:
        """``grading/cases``: the course's cases, one folder per lab module (``visible.py``, ``hidden.py``; never
        released), which ``workbook release`` compiles into the package and the judge grades with, and an
        instructor may edit."""
        return self.root / "grading" / "cases"

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
        from nbgrader.apps import NbGraderAPI

        return NbGraderAPI(config=config or self.config())

    def coursedir(self) -> CourseDirectory:
        """nbgrader's view of this course (paths, ``db_url``, ``course_id``)."""
        from nbgrader.coursedir import CourseDirectory

        return CourseDirectory(config=self.config())

    def gradebook(self) -> Gradebook:
        """A new ``Gradebook`` on the course's database (use it as a context manager)."""
        from nbgrader.api import Gradebook

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
