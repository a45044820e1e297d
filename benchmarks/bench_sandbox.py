"""What the grading sandbox costs: the same work with ``--isolation required`` and with ``off``.

Three figures, each measured both ways in this run and printed as seconds and a ratio:

- a process start (``python -c pass``) through ``workbook.grading.sandbox.wrap``, against the bare command;
- a kernel's start, one cell and shutdown with ``SandboxKernelManager`` (isolation required against off:
  the same manager, ipc sockets, private folder, only the sandbox differs);
- ``workbook autograde --jobs 2`` of N complete submissions per submission.

A benchmark, not a test: it asserts nothing. Needs a machine where ``detect("required")`` works.

    python benchmarks/bench_sandbox.py [N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbook.authoring.samples import complete
from workbook.course.submit import submit
from workbook.grading.kernel import SandboxKernelManager
from workbook.grading.sandbox import detect, private_dir, wrap
from workbook.pipeline.build import build
from workbook.pipeline.release import release


def process_seconds(mode: str, repeat: int) -> float:
    """Mean seconds of ``python -c pass`` under ``detect(mode)``."""
    isolation = detect(mode)
    with private_dir(isolation) as work:
        argv = wrap(isolation, [sys.executable, "-c", "pass"], workdir=work)
        start = time.perf_counter()
        for _ in range(repeat):
            subprocess.run(argv, cwd=work, check=True)
        return (time.perf_counter() - start) / repeat


def kernel_seconds(mode: str, repeat: int, folder: Path) -> float:
    """Mean seconds of a kernel's start, one cell (``1 + 1``) and shutdown, with ``folder`` as its cwd."""

    async def once() -> None:
        manager = SandboxKernelManager(kernel_name="python3")
        manager.isolation = mode
        await manager.start_kernel(cwd=str(folder))
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            await client.execute_interactive("1 + 1", timeout=60, output_hook=lambda message: None)
        finally:
            client.stop_channels()
            await manager.shutdown_kernel()

    start = time.perf_counter()
    for _ in range(repeat):
        asyncio.run(once())
    return (time.perf_counter() - start) / repeat


def autograde_seconds(mode: str, submissions: int, scratch: Path) -> float:
    """Seconds per submission of ``workbook autograde --jobs 2 --isolation MODE`` on ``submissions`` complete ones."""
    course = build(scratch / f"course-{mode}")
    release(course)
    for index in range(submissions):
        submit(course, f"complete{index}", complete(scratch / f"package-{mode}-{index}"))
    command = [
        str(Path(sys.executable).parent / "workbook"),
        "autograde",
        "--course",
        str(course.root),
        "--jobs",
        "2",
        "--isolation",
        mode,
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, text=True)
    return (time.perf_counter() - start) / submissions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=int, nargs="?", default=4, help="N complete submissions (default 4)")
    parser.add_argument("--repeat", type=int, default=10, help="process and kernel starts per figure (default 10)")
    args = parser.parse_args()
    print(detect("required").describe())
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as scratch:
        folder = complete(Path(scratch) / "graded" / "compaction_lab").parent
        rows = [
            (
                "process start (python -c pass)",
                process_seconds("required", args.repeat),
                process_seconds("off", args.repeat),
            ),
            (
                "kernel start + 1 cell + shutdown",
                kernel_seconds("required", args.repeat, folder),
                kernel_seconds("off", args.repeat, folder),
            ),
            (
                f"autograde --jobs 2, per submission (N={args.submissions})",
                autograde_seconds("required", args.submissions, Path(scratch)),
                autograde_seconds("off", args.submissions, Path(scratch)),
            ),
        ]
    print(f"{'':44} {'sandboxed':>10} {'unsandboxed':>12} {'ratio':>7}")
    for label, sandboxed, bare in rows:
        print(f"{label:44} {sandboxed:9.3f}s {bare:11.3f}s {sandboxed / bare:7.2f}")


if __name__ == "__main__":
    main()
