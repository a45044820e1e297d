"""Run as a script in a fresh interpreter with the reference package first on ``sys.path``: ``bank_lines.py
ITEMS``, ITEMS a JSON file of ``[lab, module, text]``, one per mistake of the validity bank. Each lab module is
replaced in place by its mistake's text, its lab's visible checks run, then the module is restored; what
``workbook check`` (the summary), the status light (``checklist_lines``) and a feedback page (the cases) would
show is written to stdout as JSON, one entry per item."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from compaction_lab.provided.notebook.checklist import run_checklist
from compaction_lab.provided.notebook.status import checklist_lines


def lines_of(lab: int, module: str, text: str) -> dict:
    """The lines of lab ``lab``'s checklist with its module ``module`` running ``text``."""
    loaded = importlib.import_module(f"compaction_lab.{module}")
    original = Path(loaded.__file__).read_text(encoding="utf-8")
    exec(compile(text, loaded.__file__, "exec"), loaded.__dict__)
    try:
        checklist = run_checklist(lab)
    finally:
        exec(compile(original, loaded.__file__, "exec"), loaded.__dict__)
    cases = [
        {"key": case.key, "grade_id": case.grade_id, "hidden": False, "status": verdict.status, "call": case.call}
        | {"message": verdict.message, "hint": ""}
        for case, verdict in zip(checklist.cases, checklist.verdicts, strict=True)
    ]
    return {"check": checklist.summary(), "status": checklist_lines(checklist), "cases": cases}


if __name__ == "__main__":
    items = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    json.dump([lines_of(*item) for item in items], sys.stdout)
