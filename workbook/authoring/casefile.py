"""``python -m workbook.authoring.casefile [--check]``: the reference package's compiled visible cases.

The visible cases of every lab (``labs/<module>/visible.py``) reach the student's package as data, with the
reference solutions' outcome of each: ``solutions/compaction_lab/provided/checking/visible.json``, which the
starter package shares. Run this after editing a visible case or a lab's reference module; ``--check`` (the test
suite runs it) fails when the file is stale. A course's own copy is compiled by ``workbook build`` and
``workbook release`` from the course's cases.
"""

from __future__ import annotations

import argparse
import sys

from workbook.grading.casebook import VISIBLE_JSON, visible_file_text
from workbook.paths import SOLUTIONS


def main(argv: list[str] | None = None) -> int:
    """Write the reference package's ``visible.json``, or with ``--check`` exit 1 when it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if visible.json differs from the cases")
    args = parser.parse_args(argv)
    target = SOLUTIONS / VISIBLE_JSON
    text = visible_file_text()
    if args.check:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{target} is stale; run python -m workbook.authoring.casefile")
            return 1
        print(f"{target} matches the cases and the reference solutions")
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
