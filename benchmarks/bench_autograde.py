"""Autograde wall time per submission: serial ``nbgrader autograde`` against ``workbook autograde --jobs 2``,
and the judge's trusted pass alone against the whole.

Both run in the same process tree, on the same course and the same N sample submissions (the
demo's samples, cycled: complete, blank, partial, buggy, ...), one after the other; the script
prints seconds per submission for each and their ratio. (The course's nbgrader config ends with the
judge, so both include it.) Then it times the judge alone on each submission (all five labs, runners in
the sandbox where there is one, no kernel) and prints its share of the per-submission time. A
benchmark, not a test: it asserts nothing.

    python benchmarks/bench_autograde.py [N] [--jobs 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

from workbook.course import ASSIGNMENT, PACKAGE, build
from workbook.judge import judge_submission
from workbook.release import release
from workbook.sandbox import detect
from workbook.scoring import course_case_book
from workbook.submissions import SAMPLES, submit


def timed(command: list[str], cwd: Path) -> float:
    """Seconds ``command`` took; raise ``CalledProcessError`` (with its output) if it failed."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=int, nargs="?", default=4, help="N sample submissions (default 4)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as scratch:
        course = build(Path(scratch) / "course")
        release(course)
        notebooks = len(list(course.release.glob("*.ipynb")))
        for index, name in enumerate(islice(cycle(SAMPLES), args.submissions)):
            submit(course, f"{name}{index}", SAMPLES[name](Path(scratch) / f"package{index}"))
        scripts = Path(sys.executable).parent
        serial = timed([str(scripts / "nbgrader"), "autograde", ASSIGNMENT, "--force"], course.root)
        parallel = timed([str(scripts / "workbook"), "autograde", "--course", str(course.root),
                          "--jobs", str(args.jobs)], course.root)
        isolation, book = detect("auto"), course_case_book(course)
        start = time.perf_counter()
        for student in course.students():
            judge_submission(course.submitted(student) / PACKAGE, book, isolation)
        judged = time.perf_counter() - start
    n = args.submissions
    print(f"{n} submissions x {notebooks} notebooks, {args.jobs} jobs")
    print(f"nbgrader autograde (serial):        {serial / n:6.2f} s per submission ({serial:.1f} s)")
    print(f"workbook autograde --jobs {args.jobs}:        {parallel / n:6.2f} s per submission ({parallel:.1f} s)")
    print(f"ratio serial / parallel:            {serial / parallel:6.2f}")
    print(f"the judge alone ({isolation.describe()}): {judged / n:6.2f} s per submission, "
          f"{judged / serial:.0%} of the serial nbgrader pass")


if __name__ == "__main__":
    main()
