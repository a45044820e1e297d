"""``workbook check --watch``: run the checks, then again after every save of a Python file of your package.

watchfiles waits for the saves (it groups the writes of one save, and an editor's temporary files, into one
change); each run is ``check.run_checks`` in a fresh interpreter, as ``workbook check`` without ``--watch``.
It ends on Ctrl-C.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from workbook.student.check import PACKAGE, CheckReport, run_checks


def is_source(_change: object, path: str) -> bool:
    """watchfiles' filter: a change counts when it is to a ``.py`` file."""
    return path.endswith(".py")


def watch_checks(
    show: Callable[[CheckReport, list[str]], None],
    workspace: Path = Path("."),
    lab: int | None = None,
    language: str | None = None,
) -> None:
    """Run the checks of ``lab`` (None: every lab) on ``workspace``, and again after every save of a ``.py``
    file under ``workspace/compaction_lab``, until Ctrl-C; hand each report to ``show`` with the names of the
    files saved (relative to the workspace; [] for the first run). Raises ``CourseError`` as ``run_checks``
    does (a workspace without the package stops it before it waits)."""
    from watchfiles import watch

    workspace = workspace.expanduser().resolve()
    show(run_checks(workspace, lab, language=language), [])
    for changes in watch(workspace / PACKAGE, watch_filter=is_source, raise_interrupt=False):
        saved = sorted({Path(path).relative_to(workspace).as_posix() for _, path in changes})
        show(run_checks(workspace, lab, language=language), saved)
