"""``workbook validate``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from workbook.manifest import LABS


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook validate``."""
    parser = subparsers.add_parser(
        "validate",
        help="the validity gate: known-wrong labs must lose points, correct ones must not",
        description="Grade the bank of known mistakes and independent correct implementations "
        "(labs/*/mistakes.py), the starters and the reference with the judge on every lab that has cases, print "
        "the kill matrix (points lost per lab) and fail (exit 1) when a mistake keeps full marks on its lab or "
        "costs points on another, a correct implementation loses a point, the starters score or the reference "
        "does not get full marks.",
    )
    parser.add_argument(
        "--course",
        type=Path,
        metavar="DIR",
        help="grade with this built course's own cases (grading/cases/, as edited), "
        "e.g. after editing them, instead of the project's",
    )
    parser.add_argument(
        "--lab",
        type=int,
        action="append",
        choices=[lab.number for lab in LABS],
        help="only the bank entries of this lab (repeatable); every lab with cases is still graded",
    )
    parser.add_argument(
        "--require-cases",
        action="store_true",
        help="fail when a lab has no cases (automatic once the project's tables cover every lab)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the seed of the generated variants every package is judged on (default 0)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook validate`` with the parsed ``args``; return the exit code (1 when the gate fails)."""
    from workbook.authoring.validate import (
        course_tables,
        idle_variants,
        load_tables,
        matrix,
        project_covers_every_lab,
        run_gate,
        summary,
    )

    where = f"the course {args.course}" if args.course else "the project"
    try:
        tables = course_tables(args.course) if args.course else load_tables()
    except Exception as error:  # noqa: BLE001 (an edited case file may fail in any way; say how, then fail)
        console.print(
            f"[red bold]validity gate FAILED[/]: the case tables of {escape(where)} do not load: "
            f"{type(error).__name__}: {escape(str(error))}",
            highlight=False,
        )
        return 1
    strict = args.require_cases or project_covers_every_lab()
    report = run_gate(tables, args.lab, strict, seed=args.seed)
    console.print(matrix(report, tables))
    console.print(f"cases: {where}; labs with cases: {', '.join(map(str, report.labs)) or 'none'}", highlight=False)
    variants = ", ".join(map(str, sorted(tables.book.variants))) or "none"
    console.print(f"generated variants (seed {args.seed}): labs {variants}", highlight=False)
    idle = idle_variants(report, tables)
    if idle:
        console.print(f"cells whose generated variants fail no bank mistake: {', '.join(idle)}", highlight=False)
    console.print(summary(report), highlight=False)
    return 0 if report.passed else 1
