"""``workbook hint LAB [CASE]``: the instructor's one-line hint for a visible check, in the workspace's language.

The hints are the visible cases' own (``Case.hint``, written beside each case in ``labs/<module>/visible.py``),
read from the workspace's compiled cases (``compaction_lab/provided/checking/visible.json``), the same data the
checks run; an edition shows them translated (``notebooks/editions/<language>/hints.yaml``). Without CASE the
lab's checks run first (``check.run_checks``) and the hint is that of its first failing case, the lab's own
checks before its extra credit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from workbook.course.editions import LANGUAGES, translated_hint
from workbook.errors import CourseError
from workbook.student.check import LANGUAGE_VARIABLE, PACKAGE, require_package, run_checks

CASES_FILE = Path(PACKAGE, "provided", "checking", "visible.json")
"""Where a workspace's visible cases are, under the workspace folder."""
LANGUAGE_FILE = Path(PACKAGE, "provided", "language.txt")
"""The workspace's language code, written at release (absent in English)."""


@dataclass(frozen=True)
class Hint:
    """What ``workbook hint`` prints: the lab's ``summary`` line when its checks ran (else ""), whether they all
    ``passed``, and the ``case`` hinted at with its ``hint`` (both "" when no case failed)."""

    summary: str = ""
    passed: bool = False
    case: str = ""
    hint: str = ""


def lab_hints(workspace: Path, lab: int) -> dict[str, str]:
    """Lab ``lab``'s visible case names and their hints (in English), in order, from the workspace's compiled
    cases; raises ``CourseError`` when they cannot be read."""
    path = workspace / CASES_FILE
    try:
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    except (OSError, ValueError, KeyError) as error:
        raise CourseError(f"cannot read the visible cases in {path}: {error}") from None
    return {case["name"]: case.get("hint", "") for case in cases if case["grade_id"].startswith(f"lab{lab}_")}


def workspace_language(workspace: Path, language: str | None = None) -> str:
    """The language to show hints in: ``language`` if given, else ``WORKBOOK_LANGUAGE``, else the workspace's
    (its ``language.txt``), else English; the same order as the package's own ``messages.language``."""
    for chosen in (language, os.environ.get(LANGUAGE_VARIABLE, "").strip()):
        if chosen in LANGUAGES:
            return chosen
    try:
        written = (workspace / LANGUAGE_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return "en"
    return written if written in LANGUAGES else "en"


def find_hint(workspace: Path, lab: int, case: str | None = None, language: str | None = None) -> Hint:
    """The hint of ``case`` (a visible case name of lab ``lab``), or, without it, of the lab's first failing
    visible case (its checks run first; no case when none fails), translated into ``workspace_language``.
    Raises ``CourseError`` for a workspace without a
    package, a lab without visible cases, or an unknown case (listing the lab's)."""
    workspace = require_package(workspace)
    hints = lab_hints(workspace, lab)
    if not hints:
        raise CourseError(f"lab {lab} has no visible checks in {workspace / CASES_FILE}")
    found = Hint()
    if case is None:
        (line,) = run_checks(workspace, lab, language=language).lines
        found = Hint(line["summary"], line["passed"])
        if not line["failing"]:
            return found
        case = line["failing"][0]
    if case not in hints:
        raise CourseError(f"lab {lab} has no visible check {case!r}; its checks: {', '.join(hints)}")
    hint = translated_hint(hints[case], workspace_language(workspace, language))
    return Hint(found.summary, found.passed, case, hint)
