"""``workbook inspect``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from workbook.sessions.inspection import DEFAULT_ESTIMATOR, DEFAULT_WINDOW, ESTIMATOR_HELP, inspect_session, render


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``inspect`` on an ``argparse`` subparsers object; the handler is ``args.run``."""
    parser = subparsers.add_parser(
        "inspect",
        help="show what the labs' rules make of a real session file",
        description="Read a Pi coding-agent session (format 1 to 3) or a workbook JSONL session and show what "
        "the labs' rules make of it: entries by type and role, interactions, dangling tool calls (repaired for "
        "the analysis only, never in the file), estimated tokens, what a budget projection keeps for --window "
        "tokens, and where Pi's own compactions cut compared with the workbook's rules. Token counts come from "
        "the chosen estimator, not a tokenizer.",
    )
    parser.add_argument("file", type=Path, help="a Pi session .jsonl or a workbook JSONL session")
    parser.add_argument(
        "--window",
        type=int,
        default=DEFAULT_WINDOW,
        help=f"context window in tokens for the budget projection (default {DEFAULT_WINDOW})",
    )
    parser.add_argument(
        "--estimator",
        choices=tuple(ESTIMATOR_HELP),
        default=DEFAULT_ESTIMATOR,
        help="how messages are priced: " + "; ".join(f"{name} = {what}" for name, what in ESTIMATOR_HELP.items()),
    )
    parser.add_argument("--reserved-output", type=int, default=0, help="tokens reserved for output (default 0)")
    parser.add_argument("--safety-margin", type=int, default=0, help="tokens kept free (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace, console: Console) -> int:
    """Inspect ``args.file``; print tables, or the JSON object alone, on ``console``. Returns 0, or
    1 with a one-line message on stderr when the file cannot be read, imported or grouped (the
    message names the file and line, or the entry or call id)."""
    try:
        report = inspect_session(
            args.file,
            window=args.window,
            estimator=args.estimator,
            reserved_output=args.reserved_output,
            safety_margin=args.safety_margin,
        )
    except (OSError, ValueError) as error:
        print(f"workbook inspect: {error}", file=sys.stderr)
        return 1
    if args.json:
        console.file.write(json.dumps(report, indent=2) + "\n")
    else:
        render(report, console)
    return 0
