"""Autograde wall time per submission: serial ``nbgrader autograde`` against ``workbook autograde --jobs 2``,
and the judge's trusted pass alone against the whole.

Both run one after the other in this run, on the same course and the same N sample submissions (the demo's
samples, cycled: complete, blank, partial, buggy, ...). ``nbgrader autograde`` in the course is what an
instructor would otherwise run: one process, one student after the other (the course config ends with the
judge, and its kernels run in the sandbox, so it includes both). ``workbook autograde`` runs the same,
notebook by notebook, in ``--jobs`` long-lived workers. The
script prints seconds per submission for each, the ratio of their wall times (the goal is at most 0.55 with
2 jobs on 2 cores), what a class of ``--class-size`` students would take, and the load average before and
after: on a shared machine the two runs may not see the same load, so it also prints the CPU time each
took (their processes, kernels and runners), which the load does not change much. Then it times the judge
alone on each submission (all five labs, runners in the sandbox where there is one, no kernel), with the
generated variants of one seed and without them, and prints the ratio (the goal is at most 1.5). A benchmark,
not a test: it asserts nothing.

    python benchmarks/bench_autograde.py [N] [--jobs 2] [--class-size 40]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

from workbook.authoring.samples import SAMPLES
from workbook.course.layout import ASSIGNMENT, PACKAGE, Course
from workbook.course.submit import submit
from workbook.grading.casebook import CaseBook
from workbook.grading.judge import judge_submission
from workbook.grading.sandbox import Isolation, detect
from workbook.grading.scoring import course_case_book
from workbook.manifest import LABS
from workbook.pipeline.build import build
from workbook.pipeline.release import release


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and the descendants they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds ``command`` took (its processes, kernels and runners included); raise
    ``CalledProcessError`` (with its output) if it failed."""
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, children_cpu() - cpu


def load() -> str:
    """The 1, 5 and 15 minute load averages and the number of cores."""
    return f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())} on {os.cpu_count()} cores"


def judge_time(course: Course, book: CaseBook, isolation: Isolation) -> float:
    """Wall seconds the judge takes on every submission of ``course`` (all five labs) with ``book`` and the
    generated variants of seed 0 (if ``book`` has any)."""
    start = time.perf_counter()
    for student in course.students():
        judge_submission(course.submitted(student) / PACKAGE, book, isolation, seed=0)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=int, nargs="?", default=8, help="N sample submissions (default 8)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--class-size", type=int, default=40, help="students of the class to project (default 40)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as scratch:
        course = build(Path(scratch) / "course")
        release(course)
        notebooks = len(list(course.release.glob("*.ipynb")))
        for index, name in enumerate(islice(cycle(SAMPLES), args.submissions)):
            submit(course, f"{name}{index}", SAMPLES[name](Path(scratch) / f"package{index}"))
        scripts = Path(sys.executable).parent
        before = load()
        serial, serial_cpu = timed([str(scripts / "nbgrader"), "autograde", ASSIGNMENT, "--force"], course.root)
        between = load()
        parallel, parallel_cpu = timed(
            [str(scripts / "workbook"), "autograde", "--course", str(course.root), "--jobs", str(args.jobs)],
            course.root,
        )
        after = load()
        isolation, book = detect("auto"), course_case_book(course)
        judged = judge_time(course, book, isolation)
        plain = judge_time(course, dataclasses.replace(book, variants={}), isolation)
        generated = sum(len(book.generated(lab.number, 0)) for lab in LABS)
    n, size = args.submissions, args.class_size
    print(f"{n} submissions x {notebooks} notebooks, {args.jobs} jobs")
    print(
        f"nbgrader autograde (serial):        {serial / n:6.2f} s per submission ({serial:.1f} s), "
        f"CPU {serial_cpu / n:.2f} s per submission"
    )
    print(
        f"workbook autograde --jobs {args.jobs}:        {parallel / n:6.2f} s per submission ({parallel:.1f} s), "
        f"CPU {parallel_cpu / n:.2f} s per submission (the judge included)"
    )
    print(
        f"ratio workbook / nbgrader:          {parallel / serial:6.2f}  (goal: at most 0.55; CPU ratio "
        f"{parallel_cpu / serial_cpu:.2f})"
    )
    print(
        f"a class of {size}: nbgrader {serial / n * size / 60:.1f} min, workbook --jobs {args.jobs} "
        f"{parallel / n * size / 60:.1f} min ({parallel / n:.2f} s per submission)"
    )
    print(
        f"the judge alone ({isolation.describe()}): {judged / n:.2f} s per submission, "
        f"{judged / serial:.0%} of the serial nbgrader pass"
    )
    print(
        f"the judge without generated variants: {plain / n:.2f} s per submission; with the {generated} of one seed: "
        f"{judged / n:.2f} s, ratio {judged / plain:.2f} (goal: at most 1.5)"
    )
    print(f"before: {before}; between: {between}; after: {after}")


if __name__ == "__main__":
    main()
