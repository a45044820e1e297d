"""The validity bank: wrong and independently written correct versions of each lab's module.

Every test suite must prove its power: a known-wrong implementation must lose points, another correct
one must not (``workbook validate`` grades them all with the judge). Each lab folder of the course author
(``labs/budget/mistakes.py`` for lab 3, beside its cases) has ``MISTAKES`` and ``CORRECT``:

- a ``Mistake`` is one plausible misconception, written as exact text replacements on the reference
  module of its lab (``solutions/compaction_lab/<module>.py``). Each replacement must match exactly once
  and lie inside a ``# BEGIN LAB N`` region (what a student writes), so a change to the reference that
  breaks a patch fails loudly instead of quietly testing something else;
- a ``Correct`` is a correct implementation written apart from the reference (other structure, other
  error wording that still names what the notebook says to name): one body per lab region of the module,
  in order (lab 2's ``grouping.py`` has two), written without indentation as for
  ``workbook.authoring.starters.replace_region``.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
import types
from pathlib import Path

from workbook.authoring.starters import BEGIN, END, replace_region
from workbook.manifest import LABS, lab_record
from workbook.module_files import load_module
from workbook.paths import LAB_CASES, SOLUTIONS


class BankError(ValueError):
    """A bank entry no longer fits the reference (a patch that does not match exactly once or lies outside
    the lab's regions, a wrong number of region bodies) or two entries share a name; the message names it."""


@dataclasses.dataclass(frozen=True)
class Mistake:
    """A misconception of lab ``lab``: ``patches`` are ``(old, new)`` exact text replacements applied in
    order to the reference module; ``description`` is one line saying what the student got wrong."""

    name: str
    description: str
    patches: tuple[tuple[str, str], ...]
    lab: int = 0

    kind = "mistake"

    def apply(self, source: str) -> str:
        """The reference module text ``source`` with the patches applied; ``BankError`` naming the mistake
        when a patch's old text is not found exactly once or reaches outside the lab's regions."""
        for number, (old, new) in enumerate(self.patches, start=1):
            count = source.count(old)
            if count != 1:
                raise BankError(
                    f"mistake {self.name!r} (lab {self.lab}): patch {number} matches {count} times in "
                    f"the reference {module_of(self.lab)}.py, expected exactly once"
                )
            start = source.index(old)
            if not any(low <= start and start + len(old) <= high for low, high in region_spans(source, self.lab)):
                raise BankError(
                    f"mistake {self.name!r} (lab {self.lab}): patch {number} reaches outside the "
                    f"lab {self.lab} regions of {module_of(self.lab)}.py"
                )
            source = source.replace(old, new)
        return source


@dataclasses.dataclass(frozen=True)
class Correct:
    """A correct implementation of lab ``lab`` written apart from the reference: one body per lab region
    of the module, in order (``regions``); ``description`` says how it differs."""

    name: str
    description: str
    regions: tuple[str, ...]
    lab: int = 0

    kind = "correct"

    def apply(self, source: str) -> str:
        """The reference module text ``source`` with each lab region replaced by its body; ``BankError``
        naming the implementation when the module has another number of regions."""
        found = len(region_spans(source, self.lab))
        if found != len(self.regions):
            raise BankError(
                f"correct implementation {self.name!r} (lab {self.lab}) has {len(self.regions)} region "
                f"bodies, the reference {module_of(self.lab)}.py has {found} lab {self.lab} regions"
            )
        for occurrence, body in enumerate(self.regions):
            source = replace_region(source, self.lab, body, f"{module_of(self.lab)}.py", occurrence)
        return source


Variant = Mistake | Correct


def module_of(lab: int) -> str:
    """The module name of lab ``lab`` (``budget`` for 3)."""
    return lab_record(lab).module


def region_spans(source: str, lab: int) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of the text between each ``# BEGIN LAB lab`` line and its
    ``# END LAB lab`` line (markers excluded)."""
    spans, offset, start = [], 0, None
    for line in source.splitlines(keepends=True):
        begin, end = BEGIN.match(line), END.match(line)
        if begin and int(begin["lab"]) == lab:
            start = offset + len(line)
        elif end and int(end["lab"]) == lab and start is not None:
            spans.append((start, offset))
            start = None
        offset += len(line)
    return spans


def bank(labs: tuple[int, ...] | None = None) -> tuple[Variant, ...]:
    """Every mistake, then every correct implementation, of every lab (or of ``labs``), in lab order, each
    with its ``lab`` set; ``BankError`` naming a name used twice."""
    mistakes: list[Variant] = []
    correct: list[Variant] = []
    for item in LABS:
        if labs is not None and item.number not in labs:
            continue
        module = _mistakes_module(item.module)
        mistakes += [dataclasses.replace(entry, lab=item.number) for entry in module.MISTAKES]
        correct += [dataclasses.replace(entry, lab=item.number) for entry in module.CORRECT]
    names = [entry.name for entry in mistakes + correct]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise BankError(f"bank entries named twice: {', '.join(twice)}")
    return tuple(mistakes + correct)


def _mistakes_module(module: str) -> types.ModuleType:
    """``LAB_CASES/<module>/mistakes.py``, loaded once per process."""
    name = f"_workbook_bank_{module}"
    if name not in sys.modules:
        load_module(name, LAB_CASES / module / "mistakes.py")
    return sys.modules[name]


def module_text(variant: Variant) -> str:
    """The text of ``variant``'s lab module: the reference module with the variant applied."""
    return variant.apply((SOLUTIONS / f"{module_of(variant.lab)}.py").read_text(encoding="utf-8"))


def write_package(variant: Variant, dest: Path) -> Path:
    """Write the reference package with ``variant``'s lab module to ``dest/compaction_lab`` (``dest`` is
    created); return the package folder."""
    text = module_text(variant)
    package = dest / "compaction_lab"
    shutil.copytree(SOLUTIONS, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (package / f"{module_of(variant.lab)}.py").write_text(text, encoding="utf-8")
    return package
