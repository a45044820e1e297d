"""``workbook check [LAB]``: the notebooks' visible checks on your package, one line per lab.

The checks are the visible cases of your package (``compaction_lab/provided/checking/visible.json``): the same ones the
notebook's test cells and the grader run, defined once. They run on the workspace's own
``compaction_lab`` in a fresh interpreter with the workspace folder first on ``sys.path``
(``python -m compaction_lab.provided.notebook.checklist``), never in this process; what your code prints there
is not shown. That runner writes one line per lab (``checklist.Checklist.summary``), e.g.

    lab 3: 5/5 visible checks pass; hidden tests run at grading
    lab 4: not started (create_compaction_entry raises LabNotImplementedError)

and this command prints them (without a lab, then the next thing to do across the labs, e.g. ``Next: lab 4:
write create_compaction_entry() in compaction_lab/compaction.py; ...``, ``next_step.next_step``), and exits 1
unless every chosen lab passes. It needs nothing but the workspace and a plain install (no pytest, no
nbgrader).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workbook.errors import CourseError

PACKAGE = "compaction_lab"
RUNNER = f"{PACKAGE}.provided.notebook.checklist"
LANGUAGE_VARIABLE = "WORKBOOK_LANGUAGE"
"""The environment variable the runner's messages read first (``compaction_lab.provided.messages.ENVIRONMENT``)."""
SECONDS = 60.0
"""How long the checks of all chosen labs may take before they are stopped (an endless loop, say)."""


def require_package(workspace: Path) -> Path:
    """``workspace`` resolved; raises ``CourseError`` unless it holds a ``compaction_lab/`` package."""
    workspace = workspace.expanduser().resolve()
    if not (workspace / PACKAGE / "__init__.py").is_file():
        raise CourseError(f"no {PACKAGE}/ package in {workspace}; make one with `workbook practice DIR`")
    return workspace


def check_command(report: Path, lab: int | None = None) -> list[str]:
    """The command line that runs the checks of ``lab`` (None: every lab), reporting to file ``report``."""
    return [sys.executable, "-m", RUNNER, str(report), *([str(lab)] if lab is not None else [])]


@dataclass(frozen=True)
class CheckReport:
    """What one run of the checks found: ``lines``, one ``{"lab", "summary", "passed", "failing"}`` per lab
    in order (``failing``: the names of its failed visible cases, its own first), and ``next_step``, one
    sentence saying what to do next across those labs (empty when the run stopped early)."""

    lines: list[dict]
    next_step: str = ""


def run_checks(
    workspace: Path = Path("."), lab: int | None = None, seconds: float = SECONDS, language: str | None = None
) -> CheckReport:
    """Run the visible checks of ``lab`` (None: every lab) on ``workspace/compaction_lab`` in a fresh
    interpreter; return its ``CheckReport``. The sentences are in the workspace's language (its release's,
    ``compaction_lab.provided.messages``) unless ``language`` (en, zh or vi) overrides it; only their fixed
    words change, never what passes.

    If the runner stops early (it ran longer than ``seconds``, or your code ended the process), the lab it
    stopped at says why and the labs after it say they were not checked. Raises ``CourseError`` if the
    workspace has no package or the runner could not start (quoting its last error line).
    """
    workspace = require_package(workspace)
    with tempfile.TemporaryDirectory(prefix="workbook-check-") as scratch:
        report = Path(scratch) / "report.jsonl"
        report.touch()
        try:
            done = subprocess.run(
                check_command(report, lab),
                cwd=workspace,
                capture_output=True,
                text=True,
                timeout=seconds,
                check=False,
                stdin=subprocess.DEVNULL,
                env={**os.environ, LANGUAGE_VARIABLE: language} if language else None,
            )
            why = (done.stderr.strip().splitlines() or [f"the checks ended with exit status {done.returncode}"])[-1]
        except subprocess.TimeoutExpired:
            why = f"did not finish within {seconds:g} s (an endless loop in your code?)"
        plan, *records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()] or [None]
    if plan is None:
        raise CourseError(f"could not run the checks in {workspace}: {why}")
    lines = [record for record in records if "lab" in record]
    missing = plan["plan"][len(lines) :]
    stopped = [
        {
            "lab": number,
            "passed": False,
            "summary": f"lab {number}: "
            + (why if index == 0 else f"not checked (the checks stopped at lab {missing[0]})"),
            "failing": [],
        }
        for index, number in enumerate(missing)
    ]
    return CheckReport(lines + stopped, "" if stopped else records[-1].get("next", ""))


def check_lines(
    workspace: Path = Path("."), lab: int | None = None, seconds: float = SECONDS, language: str | None = None
) -> list[dict]:
    """The ``lines`` of ``run_checks`` (same arguments, same errors): one record per lab."""
    return run_checks(workspace, lab, seconds, language).lines
