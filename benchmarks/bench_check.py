"""The student's tools, wall time: ``workbook --help``, ``workbook check 3`` and ``workbook check`` (all labs)
against the old way, measured in the same run.

The old ``check`` was pytest on the labs' focused tests (``-m "focused and lab3"`` on ``tests/test_budget.py``,
``-m focused`` on the five test files) with ``--lab-package``; the old ``--help`` imported every command's
module, nbgrader included (``python -c "import workbook.course.layout, ..."`` stands in for it). Each command runs
``--repeat`` times on a workspace holding the solutions package; the script prints the median against the
issue's budget (2-core machine, idle) and the load average before and after (figures on a busy machine are
high). A benchmark, not a test: it asserts nothing.

    python benchmarks/bench_check.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbook.paths import REPO, SOLUTIONS

OLD_HELP_IMPORTS = ("workbook.pipeline.autograde", "workbook.pipeline.feedback", "workbook.pipeline.export")
"""What the old ``--help`` imported with every command's module: the work, nbgrader with it."""
LAB_TEST_FILES = ["test_records.py", "test_grouping.py", "test_budget.py", "test_compaction.py", "test_resumption.py"]


def median_seconds(command: list[str], repeat: int) -> float:
    """The median wall time of ``command`` over ``repeat`` runs (run from the repository; exit status ignored)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=REPO, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (default 5); the median is shown")
    args = parser.parse_args()
    workbook = [sys.executable, "-m", "workbook.cli.main"]
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    with tempfile.TemporaryDirectory(prefix="bench-check-") as scratch:
        workspace = Path(scratch)
        shutil.copytree(SOLUTIONS, workspace / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
        package = ["--lab-package", str(workspace / "compaction_lab")]
        rows = [
            (
                "workbook --help",
                0.5,
                [*workbook, "--help"],
                [sys.executable, "-c", f"import {', '.join(OLD_HELP_IMPORTS)}"],
            ),
            (
                "workbook check 3",
                1.0,
                [*workbook, "check", "3", "--workspace", str(workspace)],
                [*pytest, "-m", "focused and lab3", *package, str(REPO / "tests" / "labs" / "test_budget.py")],
            ),
            (
                "workbook check (5 labs)",
                1.5,
                [*workbook, "check", "--workspace", str(workspace)],
                [*pytest, "-m", "focused", *package, *(str(REPO / "tests" / "labs" / name) for name in LAB_TEST_FILES)],
            ),
        ]
        print(f"median of {args.repeat} runs, wall seconds; {load()} before")
        print(f"{'command':26} {'budget':>7} {'now':>7} {'old way':>8} {'old/now':>8}")
        for name, budget, now, old in rows:
            new_time, old_time = median_seconds(now, args.repeat), median_seconds(old, args.repeat)
            verdict = "within budget" if new_time <= budget else "OVER BUDGET"
            print(f"{name:26} {budget:7.2f} {new_time:7.2f} {old_time:8.2f} {old_time / new_time:8.1f}  {verdict}")
        print(f"{load()} after, {os.cpu_count()} cores")


def load() -> str:
    """The load average over 1, 5 and 15 minutes, as ``uptime`` prints it."""
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
