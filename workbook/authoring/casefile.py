"""``python -m workbook.authoring.casefile [--check]``: the reference package's compiled visible cases.

The visible cases of every lab (``labs/<module>/visible.py``) reach the student's package as data, with the
reference solutions' outcome of each: ``solutions/compaction_lab/provided/checking/visible.json``, which the
starter package shares; beside it ``answers.json``, the course's answers for a lab not done yet, recorded from
the reference on those cases (``workbook.grading.course_answers``). Run this after editing a visible case or a
lab's reference module; ``--check`` (the test suite runs it) fails when either file is stale. A course's own
copies are compiled by ``workbook build`` and ``workbook release`` from the course's cases.
"""

from __future__ import annotations

import argparse
import sys

from workbook.grading.casebook import VISIBLE_JSON, visible_file_text
from workbook.grading.course_answers import ANSWERS_JSON, answers_text
from workbook.paths import SOLUTIONS


def main(argv: list[str] | None = None) -> int:
    """Write the reference package's ``visible.json`` and ``answers.json``, or with ``--check`` exit 1 when
    either is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if visible.json or answers.json is stale")
    args = parser.parse_args(argv)
    files = {SOLUTIONS / VISIBLE_JSON: visible_file_text(), SOLUTIONS / ANSWERS_JSON: answers_text()}
    if args.check:
        stale = [target for target, text in files.items() if not target.exists() or target.read_text("utf-8") != text]
        for target in stale:
            print(f"{target} is stale; run python -m workbook.authoring.casefile")
        for target in files.keys() - set(stale):
            print(f"{target} matches the cases and the reference solutions")
        return 1 if stale else 0
    for target, text in files.items():
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
