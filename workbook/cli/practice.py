"""``workbook practice``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from workbook.paths import script


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook practice``."""
    parser = subparsers.add_parser(
        "practice",
        help="work on the labs without a hub: a workspace, then JupyterLab",
        description="Make a folder to work on the labs without a hub (the first "
        "time: the five notebooks as students get them, with no solutions and no hidden "
        "tests, and a fresh starter package compaction_lab/), then start JupyterLab on "
        "it without the instructor's nbgrader tools. An existing workspace is opened as "
        "it is; another non-empty folder is never touched. Check your labs with "
        "`workbook check N --workspace DIR`.",
    )
    parser.add_argument("workspace", type=Path, metavar="DIR", help="a new (or empty) folder, or your workspace")
    parser.add_argument("--no-lab", action="store_true", help="only make the workspace; print how to start")
    parser.add_argument(
        "--language",
        default="en",
        choices=("en", "zh", "vi"),
        help="a new workspace's edition: en (English, the default), zh (Simplified Chinese) or vi (Vietnamese)",
    )
    parser.add_argument(
        "lab_options",
        nargs="*",
        metavar="-- JUPYTERLAB_OPTION",
        help="after --: options for JupyterLab, e.g. -- --no-browser --port 8890",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """``workbook practice``: make the workspace if it is new, then start JupyterLab or say how to."""
    from workbook.student.practice import is_workspace, practice, start_lab

    workspace = args.workspace.expanduser().resolve()
    if not is_workspace(workspace):
        files = practice(workspace, language=args.language)
        console.print(f"wrote {len(files)} files to {workspace}")
    start = f"{script('workbook')} practice {workspace}"
    check = f"{script('workbook')} check 1 --workspace {workspace}"
    if args.no_lab:
        console.print(
            f"next: {start}   (JupyterLab on your labs)\nthen, after editing a lab: {check}",
            highlight=False,
            soft_wrap=True,
        )
        return 0
    console.print(
        f"starting JupyterLab on {workspace} (Ctrl-C stops it; `{start}` starts it again)\n"
        f"check a lab from a terminal: {check}",
        highlight=False,
        soft_wrap=True,
    )
    start_lab(workspace, args.lab_options)
