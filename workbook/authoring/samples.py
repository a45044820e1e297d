"""The bundled sample packages the demo grades, each built from ``solutions/`` and ``starters/`` at run time.

- ``complete``: the reference solutions;
- ``blank``: the starters, untouched;
- ``partial``: the starters with labs 1 and 2 done (``records.py`` and ``grouping.py`` from the solutions);
- ``buggy``: the solutions, but lab 3 keeps the last three messages (``messages[-3:]``) instead of
  whole interactions, the chapter's deliberate failure (the validity bank's ``BUGGY_MISTAKE``).

Every sample but ``blank`` also answers the written question of each lab it did (``ANSWERED_LABS``),
so its hand-graded answers wait for a grader, as real ones do. An answer left as released is graded
0 by autograde and needs no grader.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from workbook.authoring.bank import bank, module_text
from workbook.course.packages import starter_package
from workbook.course.submit import copy_package
from workbook.manifest import LABS
from workbook.paths import SOLUTIONS

BUGGY_MISTAKE = "last_three_messages"
"""The mistake of the validity bank (``workbook.authoring.bank``) that the buggy sample makes in lab 3."""


def complete(dest: Path) -> Path:
    """The reference solutions."""
    return copy_package(SOLUTIONS, dest)


def blank(dest: Path) -> Path:
    """The starters, as released."""
    return starter_package(dest)


def partial(dest: Path) -> Path:
    """The starters with labs 1 and 2 done."""
    starter_package(dest)
    for module in ("records.py", "grouping.py"):
        shutil.copyfile(SOLUTIONS / module, dest / module)
    return dest


def buggy(dest: Path) -> Path:
    """The solutions with lab 3 selecting ``messages[-3:]`` (``BankError`` if that patch no longer applies)."""
    copy_package(SOLUTIONS, dest)
    mistake = next(entry for entry in bank((3,)) if entry.name == BUGGY_MISTAKE)
    (dest / "budget.py").write_text(module_text(mistake), encoding="utf-8")
    return dest


SAMPLES = {"complete": complete, "blank": blank, "partial": partial, "buggy": buggy}
"""Sample name -> function writing that package to a new folder."""

ALL_LABS = tuple(lab.number for lab in LABS)
ANSWERED_LABS = {"complete": ALL_LABS, "blank": (), "partial": (1, 2), "buggy": ALL_LABS}
"""Sample name -> the labs whose written (hand-graded) answer the sample fills in."""
