"""Generate the starter lab modules (``starters/``) from the reference package (``solutions/``), and assemble a
whole starter package from them.

One source of truth: a solution marks each lab's code between ``# BEGIN LAB N`` and
``# END LAB N``. Inside a function, the region becomes its ``# Step`` comments followed by
``raise LabNotImplementedError(N, "<function>")``; at module level (a lab's helper function)
the region is left out. Everything outside the regions is copied unchanged, so starters and
solutions cannot drift: ``python -m workbook.authoring.starters --check`` fails when they differ.

``starters/compaction_lab`` holds only what differs from the solutions: the package's top-level modules (the
five lab modules and ``__init__.py``). The course's ``provided/`` is the solutions' own, so a starter package
(``starter_package``: what ``workbook build`` puts in ``source/``, ``workbook practice`` in a workspace) is those
modules beside a copy of the solutions' ``provided/``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from workbook.paths import SOLUTIONS, STARTERS

BEGIN = re.compile(r"^(?P<indent>\s*)# BEGIN LAB (?P<lab>[1-5])\s*$")
END = re.compile(r"^\s*# END LAB (?P<lab>[1-5])\s*$")
DEF = re.compile(r"^(?P<indent>\s*)def (?P<name>\w+)\(")
STEP = re.compile(r"^\s*# Step \d+:")
ERRORS_IMPORT = re.compile(r"^from \.provided\.errors import (?P<names>.+)$")


class MarkerError(ValueError):
    """A lab region is unbalanced or outside any function it can name."""


def starter_source(source: str, name: str) -> str:
    """Return the starter text of one solution module; ``name`` is used in errors."""
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    region: int | None = None
    raised = False
    for number, line in enumerate(lines, start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if region is None and begin:
            region = int(begin["lab"])
            indent = begin["indent"]
            function = _enclosing_function(lines[: number - 1], indent) if indent else None
        elif region is not None and end:
            if int(end["lab"]) != region:
                raise MarkerError(f"{name}:{number}: END LAB {end['lab']} closes BEGIN LAB {region}")
            if function is not None:
                out.append(f'{indent}raise LabNotImplementedError({region}, "{function}")\n')
                raised = True
            region = None
        elif region is None:
            if END.match(line):
                raise MarkerError(f"{name}:{number}: END LAB without BEGIN")
            out.append(line)
        elif function is not None and STEP.match(line):
            out.append(line)
    if region is not None:
        raise MarkerError(f"{name}: BEGIN LAB {region} is never closed")
    text = "".join(out).rstrip("\n") + "\n"  # a module-level region at the end leaves no blank lines
    return _import_lab_error(text) if raised else text


def replace_region(source: str, lab: int, body: str, name: str, occurrence: int = 0) -> str:
    """Return ``source`` with the lines inside a ``# BEGIN LAB lab`` / ``# END LAB lab`` region replaced by ``body``:
    region number ``occurrence`` of that lab, counted from 0 (a module may have several, e.g. a helper's).

    ``body`` is written without indentation; each of its lines gets the region's indent. The
    markers stay. Raises ``MarkerError`` naming ``name`` if the module has no such region.
    """
    lines = source.splitlines(keepends=True)
    skip = occurrence
    for start, line in enumerate(lines):
        begin = BEGIN.match(line)
        if begin and int(begin["lab"]) == lab and skip:
            skip -= 1
        elif begin and int(begin["lab"]) == lab:
            stop = next(
                (
                    index
                    for index in range(start + 1, len(lines))
                    if (end := END.match(lines[index])) and int(end["lab"]) == lab
                ),
                None,
            )
            if stop is None:
                raise MarkerError(f"{name}: BEGIN LAB {lab} is never closed")
            indented = [f"{begin['indent']}{text}\n" if text else "\n" for text in body.splitlines()]
            return "".join(lines[: start + 1] + indented + lines[stop:])
    raise MarkerError(f"{name}: no BEGIN LAB {lab} region" + (f" number {occurrence + 1}" if occurrence else ""))


def _enclosing_function(before: list[str], indent: str) -> str:
    for line in reversed(before):
        match = DEF.match(line)
        if match and len(match["indent"]) < len(indent):
            return match["name"]
    raise MarkerError(f"an indented lab region must sit inside a function: {before[-1].strip()!r}")


def _import_lab_error(text: str) -> str:
    """Add ``LabNotImplementedError`` to the module's ``from .provided.errors import`` line."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        match = ERRORS_IMPORT.match(line)
        if match:
            names = sorted({*(n.strip() for n in match["names"].split(",")), "LabNotImplementedError"})
            lines[index] = f"from .provided.errors import {', '.join(names)}\n"
            return "".join(lines)
    raise MarkerError("a module with a lab region must import from .provided.errors")


def generate(solutions: Path = SOLUTIONS) -> dict[str, str]:
    """Return ``{file name: starter text}`` for every top-level module of the solution package."""
    return {
        path.name: starter_source(path.read_text(encoding="utf-8"), path.name)
        for path in sorted(solutions.glob("*.py"))
    }


def out_of_sync(solutions: Path = SOLUTIONS, starters: Path = STARTERS) -> list[str]:
    """Return the names of starter files that are missing, extra or differ from generation."""
    expected = generate(solutions)
    present = {path.name for path in starters.iterdir()} if starters.exists() else set()
    return sorted(
        {
            name
            for name, text in expected.items()
            if not (starters / name).exists() or (starters / name).read_text(encoding="utf-8") != text
        }
        | (present - expected.keys() - {"__pycache__"})
    )


def write(solutions: Path = SOLUTIONS, starters: Path = STARTERS) -> list[str]:
    """Write the generated starter modules, removing stale files; return the files written."""
    starters.mkdir(parents=True, exist_ok=True)
    expected = generate(solutions)
    for stale in {path.name for path in starters.glob("*.py")} - expected.keys():
        (starters / stale).unlink()
    for name, text in expected.items():
        (starters / name).write_text(text, encoding="utf-8")
    return sorted(expected)


def main(argv: list[str] | None = None) -> int:
    """``python -m workbook.authoring.starters [--check]``: write starters/, or exit 1 if it is out of date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if starters/ differs from generation")
    args = parser.parse_args(argv)
    if args.check:
        stale = out_of_sync()
        if stale:
            print(f"starters/ is out of date: {', '.join(stale)}; run python -m workbook.authoring.starters")
            return 1
        print("starters/ matches solutions/")
        return 0
    print(f"wrote {len(write())} modules to {STARTERS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
