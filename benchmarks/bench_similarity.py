"""``workbook similarity`` at class scale: 500 students x 5 labs (code and written answers), wall time on this
machine, against copydetect's own ``CopyDetector`` comparing all pairs, extrapolated from a smaller class.

Each student hands in, per lab, one of the validity bank's versions of the lab module (the reference with one
mistake, or a correct version written apart) written over with statements of their own, or (one lab in twenty)
a renamed copy of an earlier student's, and a written answer of 80 of the course's words: most pairs share some
fingerprints, as a real class's do. ``CopyDetector`` (one file per student, the starter and provided code as
boilerplate, the same noise and guarantee thresholds) is timed on ``--sample`` and twice as many students of one
lab; its time is fitted as a n + b n^2 through the two sizes and extrapolated to the class. The
script prints both, their ratio and the load average before and after (figures on a busy machine are high).
A benchmark, not a test: it asserts nothing.

    python benchmarks/bench_similarity.py [--students 500] [--sample 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path

from copydetect import CopyDetector

from workbook.authoring.bank import bank, module_text
from workbook.course.layout import ASSIGNMENT, PACKAGE, Course
from workbook.manifest import LABS
from workbook.paths import SOLUTIONS, STARTERS
from workbook.similarity.findings import find_similar
from workbook.similarity.settings import MIN_MATCH, WINDOW

WORDS = (
    "the session is append only and never changes while context rebuilt from it to fit token budget a "
    "compaction summary keeps first kept entry interaction tool call result whole newest backwards fixed costs"
).split()


STATEMENTS = ["n = n + 1", "log(x)", "assert ok", "items = []", "total += cost", "if done: break"]


def student_module(text: str, rng: random.Random) -> str:
    """``text`` as a student of their own might have written it: a statement of a few common shapes slipped in
    before two lines in five, so most windows differ from every other student's (the lexer does not mind that
    it may not run)."""
    lines = []
    for line in text.splitlines():
        if rng.random() < 0.4 and line.strip():
            lines.append(line[: len(line) - len(line.lstrip())] + rng.choice(STATEMENTS))
        lines.append(line)
    return "\n".join(lines) + "\n"


def renamed(text: str, rng: random.Random) -> str:
    """A copy of ``text`` with a few names changed and a comment added."""
    for name in rng.sample(["entry", "group", "options", "path", "message", "result"], 3):
        text = text.replace(f"{name} ", f"{name}_{rng.randrange(100)} ")
    return f"# my work, {rng.randrange(10**6)}\n" + text


def notebook(answer: str) -> str:
    """A notebook holding one answer cell, as nbgrader marks it."""
    cell = {"cell_type": "markdown", "metadata": {"nbgrader": {"solution": True}}, "source": answer}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def write_class(root: Path, students: int, seed: int = 1, copied: float = 0.05) -> Course:
    """A course folder with ``students`` submissions (lab modules and notebooks only): each lab module a version
    of the bank written over (``student_module``), except that a ``copied`` share of students copy each lab from
    an earlier student (``renamed``)."""
    rng = random.Random(seed)
    versions = {lab.number: [module_text(entry) for entry in bank((lab.number,))] for lab in LABS}
    (root / "nbgrader_config.py").parent.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text("")
    for index in range(students):
        folder = root / "submitted" / f"s{index:04d}" / ASSIGNMENT
        (folder / PACKAGE).mkdir(parents=True)
        for lab in LABS:
            if index and rng.random() < copied:
                source = root / "submitted" / f"s{rng.randrange(index):04d}" / ASSIGNMENT / PACKAGE
                text = renamed((source / f"{lab.module}.py").read_text(), rng)
            else:
                text = student_module(rng.choice(versions[lab.number]), rng)
            (folder / PACKAGE / f"{lab.module}.py").write_text(text)
            answer = " ".join(rng.choice(WORDS) for _ in range(80))  # the course's words, in a student's order
            (folder / lab.notebook).write_text(notebook(answer))
    return Course(root)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the lexing workers), seconds."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def copydetect_seconds(course: Course, students: int, boilerplate: Path) -> float:
    """Wall time of ``CopyDetector.run`` on lab 3's modules of the first ``students`` students."""
    with tempfile.TemporaryDirectory() as scratch:
        test = Path(scratch) / "test"
        for index in range(students):
            (test / f"s{index:04d}").mkdir(parents=True)
            shutil.copy(course.submitted(f"s{index:04d}") / PACKAGE / "budget.py", test / f"s{index:04d}")
        detector = CopyDetector(
            test_dirs=[str(test)],
            boilerplate_dirs=[str(boilerplate)],
            extensions=["py"],
            noise_t=MIN_MATCH,
            guarantee_t=MIN_MATCH + WINDOW - 1,
            silent=True,
            autoopen=False,
        )
        start = time.perf_counter()
        detector.run()
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--sample", type=int, default=40)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as scratch:
        course = write_class(Path(scratch) / "course", args.students)
        start, cpu = time.perf_counter(), cpu_seconds()
        findings = find_similar(course)
        ours, ours_cpu = time.perf_counter() - start, cpu_seconds() - cpu
        pairs = sum(len(comparison.scores) for comparison in findings.comparisons)
        print(
            f"workbook similarity: {args.students} students x {len(LABS)} labs, code and answers: {ours:.1f} s, "
            f"{ours_cpu:.1f} s of CPU in all processes ({pairs} pairs scored, {len(findings.flagged())} flagged)"
        )
        boilerplate = Path(scratch) / "boilerplate"
        shutil.copytree(SOLUTIONS / "provided", boilerplate / "provided")
        shutil.copy(STARTERS / "budget.py", boilerplate)
        small, large = args.sample, 2 * args.sample
        t_small = copydetect_seconds(course, small, boilerplate)
        t_large = copydetect_seconds(course, large, boilerplate)
        # t(n) = a n + b n^2 through both points (b at least 0: noise on a loaded machine can tilt the line)
        b = max(0.0, (t_large / large - t_small / small) / (large - small))
        a = t_large / large - b * large
        one_lab = a * args.students + b * args.students**2
        theirs = one_lab * len(LABS)
        print(f"CopyDetector (one process), lab 3 only: {small} students {t_small:.1f} s, {large}: {t_large:.1f} s")
        print(
            f"CopyDetector extrapolated to {args.students} students x {len(LABS)} labs (code only): {theirs:.0f} s; "
            f"ratio {theirs / ours:.1f}x wall, {theirs / ours_cpu:.1f}x CPU"
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
