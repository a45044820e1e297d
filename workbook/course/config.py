"""A course's ``nbgrader_config.py``: the text ``workbook build`` writes, and why each setting.

The config written here carries the settings a module-based course needs:

- ``Autograde.exclude_overwriting`` lists the five lab modules, so autograde keeps the student's
  ``records.py`` ... ``resumption.py`` (otherwise nbgrader silently replaces them with the starter
  copies from ``source/``), while the instructor's copies of every other file (``provided/example.py``,
  ``errors.py``, ...) still overwrite whatever a student changed there.
- ``Execute.timeout``: the labs' time limit per cell (``DEFAULT_CELL_TIMEOUT`` seconds).
- ``Autograde.sanitize_preprocessors`` and ``OverwriteCells.add_missing_cells``: honest accidents
  (``workbook.course.accidents``).
- ``GenerateFeedback.preprocessors`` adds ``workbook.pipeline.feedback.JudgeResults`` and, last,
  ``workbook.pipeline.inert.InertNotebook``.
- ``ExportApp.plugin_class`` is ``workbook.pipeline.export.LabCsvExportPlugin`` (also for ``nbgrader export``).
- ``Autograde.autograde_preprocessors`` is nbgrader's list with ``Execute`` replaced by
  ``workbook.grading.kernel.SandboxExecute`` (``AUTOGRADE_PREPROCESSORS``): student notebooks run in
  sandboxed kernels (over Unix sockets, so parallel graders never race for a port);
  ``SandboxKernelManager.isolation`` (``auto``) says whether a sandbox is required. Its outputs are capped as
  they arrive (``workbook.grading.output_caps``), and the last preprocessor, after the judge, is
  ``workbook.pipeline.inert.InertNotebook``: the autograded notebook the formgrader renders is already inert.
"""

from __future__ import annotations

from workbook.course.layout import ASSIGNMENT, DEFAULT_CELL_TIMEOUT, LAB_MODULES, LANGUAGES, SOURCE_LANGUAGE
from workbook.errors import CourseError

CONFIG_TEMPLATE = '''\
"""nbgrader configuration of the compaction workbook course, written by `workbook build`.

Run nbgrader (or `workbook ...`) from this directory. The project's docs (instructors/configuration.md) explain each setting.
"""

# Edition: {language_line}

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

# Honest accidents (workbook/course/accidents.py): a copied grade cell counts once (nbgrader's DeduplicateIds, then
# DropClearedMetadata), a deleted one is restored from the release (add_missing_cells), an edited locked
# cell is graded as released (nbgrader's OverwriteCells, as RestoreMissingCells).
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "workbook.course.accidents.DropClearedMetadata",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "workbook.course.accidents.RestoreMissingCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.OverwriteCells.add_missing_cells = True

# Feedback: every test cell shows the judge's results (hidden cases by name and hint only); nothing a student
# wrote or displayed runs on the page (InertNotebook, last).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "workbook.pipeline.feedback.JudgeResults",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "workbook.pipeline.inert.InertNotebook",
]

# `nbgrader export` and `workbook export`: CSV via the csv module, one column per lab notebook.
c.ExportApp.plugin_class = "workbook.pipeline.export.LabCsvExportPlugin"

# Student notebooks run in kernels inside a sandbox (bubblewrap: a private copy of the package, no
# network, no course, gradebook or solutions in sight, limits; their sockets, not TCP ports, in that private
# folder, so parallel graders never race for a port), their outputs capped as they arrive: nbgrader's list with
# Execute replaced, the judge after it, and last InertNotebook, so the autograded notebook the formgrader shows
# holds nothing that runs in the instructor's browser.
c.Autograde.autograde_preprocessors = [
{autograde_preprocessors}
]
# required: refuse to grade where this machine cannot sandbox; auto: sandbox when it can, else run
# student code as the grader; off: never. `workbook autograde --isolation` overrides it per run.
c.SandboxKernelManager.isolation = "auto"
'''

INERT = "workbook.pipeline.inert.InertNotebook"
"""The preprocessor that makes a student's notebook inert (``workbook.pipeline.inert``), by its import name."""
SANDBOXED_EXECUTE = "workbook.grading.kernel.SandboxExecute"
"""nbgrader's ``Execute`` with sandboxed kernels (``workbook.grading.kernel``), by its import name."""
AUTOGRADE_PREPROCESSORS = (
    SANDBOXED_EXECUTE,
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
    "workbook.grading.scoring.JudgeNotebook",
    INERT,
)
"""nbgrader 0.9's ``Autograde.autograde_preprocessors`` with ``Execute`` replaced by the sandboxed one, then the
judge, then ``InertNotebook`` (a test checks it against nbgrader's default)."""


def config_text(
    db_url: str | None = None,
    course_id: str | None = None,
    timeout: int = DEFAULT_CELL_TIMEOUT,
    language: str = SOURCE_LANGUAGE,
) -> str:
    """The ``nbgrader_config.py`` text; ``db_url`` None keeps nbgrader's default (``gradebook.db`` in the course),
    ``course_id`` None keeps nbgrader's (the empty id, or whatever a Jupyter-wide nbgrader config sets);
    ``language`` is the notebooks' edition (``workbook.course.editions``), recorded in a comment (nbgrader has
    no setting for it; each released notebook records it in its metadata). Raises ``CourseError`` for a language
    that is not one of ``LANGUAGES``."""
    if language not in LANGUAGES:
        raise CourseError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    db_line = (
        f"c.CourseDirectory.db_url = {db_url!r}\n"
        if db_url
        else "# The gradebook is nbgrader's default: SQLite, gradebook.db in this directory.\n"
    )
    if course_id:
        db_line += f"c.CourseDirectory.course_id = {course_id!r}\n"
    lab_modules = "\n".join(f"        {module!r}," for module in LAB_MODULES)
    preprocessors = "\n".join(f"    {name!r}," for name in AUTOGRADE_PREPROCESSORS)
    return CONFIG_TEMPLATE.format(
        db_line=db_line,
        assignment=ASSIGNMENT,
        lab_modules=lab_modules,
        timeout=timeout,
        autograde_preprocessors=preprocessors,
        language_line=f"{language} ({LANGUAGES[language]}), built by `workbook build --language {language}`.",
    )


