"""``workbook validate``: the validity gate. Do the case tables grade right?

Every package of the bank (``workbook.authoring.bank``: the reference package with one lab's module changed by a
known mistake, or rewritten by an independent correct implementation), the starters and the reference are
graded by the judge (``workbook.grading.judge``) on every lab that has cases, with the project's case tables or,
with ``--course DIR``, the course's own (``COURSE/grading/cases/<module>/visible.py`` and ``hidden.py``, as edited,
released or not; points: the course's source notebooks). The gate fails when:

- a mistake keeps full marks on its own lab (the cases do not catch it);
- a mistake costs points on another lab (a lab is not graded on its own code only);
- a correct implementation loses any point (a case asks for more than the notebook says);
- the starters score anything but 0, or the reference anything but full marks;
- a bank entry no longer applies to the reference, or the case tables do not load.

A lab without cases is reported as "no cases yet" and its bank entries are not judged. That is a gate
failure only with ``--require-cases``, or automatically once the project's own case tables cover every lab
(from then on, a course whose tables leave a lab out is refused).

The judge grades lab N of a package from the runner package it assembles (the reference, starters for the
labs N does not use, and the package's module of lab N). Gradings whose assembled runner packages are
byte-identical (e.g. every mistake of lab 1 graded on lab 3) are one judge run, shared; the report says
how many runs were made. Runs go two at a time (``JOBS``), each in its own sandbox slot.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import queue
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from rich import box
from rich.markup import escape
from rich.table import Table

from workbook.authoring.bank import BankError, bank, write_package
from workbook.course.layout import Course
from workbook.grading import sandbox
from workbook.grading.casebook import CaseBook, grade_points, load_cases, load_variants
from workbook.grading.judge import LabVerdict, assemble, judge_lab
from workbook.grading.reference import import_reference
from workbook.manifest import LABS
from workbook.paths import LAB_CASES, NOTEBOOKS, SOLUTIONS, STARTERS

JOBS = 2
"""Judge runs at a time: CI has two cores."""
PENDING = "no cases yet"


@dataclasses.dataclass(frozen=True)
class Tables:
    """The case tables the gate grades with: the checked case book and the labs that have cases."""

    book: CaseBook
    labs: tuple[int, ...]

    def full(self, lab: int) -> float:
        """The autograded points of ``lab``, extra credit included."""
        return sum(
            points
            for grade_id, points in [*self.book.points.items(), *self.book.extra.items()]
            if _lab_of(grade_id) == lab
        )


@dataclasses.dataclass(frozen=True)
class Subject:
    """A package the gate grades: ``kind`` is ``reference``, ``starters``, ``mistake`` or ``correct``; ``lab``
    the lab whose module a bank entry changes (None for the reference and the starters)."""

    name: str
    kind: str
    lab: int | None
    description: str
    package: Path


@dataclasses.dataclass(frozen=True)
class Row:
    """One subject as graded: its verdict on every lab with cases, points lost per lab, what the gate found
    wrong with it (``problems``, empty when it behaved) and a short ``outcome`` for the matrix."""

    subject: Subject
    verdicts: dict[int, LabVerdict]
    lost: dict[int, float]
    problems: tuple[str, ...]
    outcome: str


@dataclasses.dataclass(frozen=True)
class GateReport:
    """The gate's result: a row per subject, the labs graded, every failure (a sentence naming the bank
    entry, lab or table at fault) and how many judge runs the gradings needed."""

    rows: tuple[Row, ...]
    labs: tuple[int, ...]
    failures: tuple[str, ...]
    runs: int
    gradings: int

    @property
    def passed(self) -> bool:
        """True when nothing failed."""
        return not self.failures

    def row(self, name: str) -> Row:
        """The row of subject ``name``; ``KeyError`` naming it otherwise."""
        for row in self.rows:
            if row.subject.name == name:
                return row
        raise KeyError(f"no subject named {name!r}")


def _lab_of(grade_id: str) -> int:
    return int(grade_id.removeprefix("lab").split("_")[0])


def load_tables(cases_folder: Path = LAB_CASES, notebooks: Path = NOTEBOOKS) -> Tables:
    """The cases of ``cases_folder`` (``<module>/visible.py`` and ``hidden.py``) with the points of ``notebooks``'
    grade cells, checked for the labs that have cases (``CaseError`` names a duplicate, an unknown cell or a cell
    without cases there)."""
    cases = load_cases(cases_folder, "visible") + load_cases(cases_folder, "hidden")
    labs = tuple(sorted({case.lab for case in cases}))
    points, extra = grade_points(notebooks)
    points, extra = ({key: value for key, value in table.items() if _lab_of(key) in labs} for table in (points, extra))
    variants = {lab: generator for lab, generator in load_variants(cases_folder).items() if lab in labs}
    book = CaseBook(cases, points, extra, variants)
    book.check()
    return Tables(book, labs)


def course_tables(root: Path) -> Tables:
    """The case tables of the course at ``root`` (see the module docstring); ``CourseError`` when it is not a
    built course."""
    course = Course(root)
    course.require()
    return load_tables(course.cases, course.source)


def project_covers_every_lab() -> bool:
    """True when the project's own case tables have cases for every lab."""
    cases = load_cases(LAB_CASES, "visible") + load_cases(LAB_CASES, "hidden")
    return {case.lab for case in cases} == {lab.number for lab in LABS}


def subjects(folder: Path, labs: Iterable[int] | None = None) -> tuple[list[Subject], list[str]]:
    """The reference, the starters and every bank entry (of ``labs``, default all) written as packages under
    ``folder``; and the bank errors (an entry that no longer applies is left out and named there)."""
    found = [
        Subject("reference", "reference", None, "the reference solutions", SOLUTIONS),
        Subject("starters", "starters", None, "the starter package as released", STARTERS),
    ]
    errors: list[str] = []
    try:
        entries = bank(tuple(labs) if labs is not None else None)
    except BankError as error:
        return found, [str(error)]
    for entry in entries:
        try:
            package = write_package(entry, folder / entry.name)
        except BankError as error:
            errors.append(str(error))
            continue
        found.append(Subject(entry.name, entry.kind, entry.lab, entry.description, package))
    return found, errors


def runner_digest(package: Path, lab: int, scratch: Path) -> str:
    """A digest of what the judge grades ``lab`` of ``package`` from: the lab and the runner package it assembles."""
    folder = Path(tempfile.mkdtemp(dir=scratch))
    try:
        target = assemble(package, lab, folder)
        digest = hashlib.sha256(f"lab {lab}\0".encode())
        for path in sorted(item for item in target.rglob("*") if item.is_file()):
            digest.update(path.relative_to(target).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def grade(
    found: list[Subject], tables: Tables, isolation: sandbox.Isolation, jobs: int = JOBS, seed: int = 0
) -> tuple[dict[tuple[str, int], LabVerdict], int]:
    """The judge's verdict on every subject for every lab with cases, by ``(name, lab)``, and the number of
    judge runs made (identical runner packages are graded once); ``jobs`` runs at a time, one slot each; every
    subject judged on the generated variants of ``seed``."""
    import_reference()  # once, before the threads
    with tempfile.TemporaryDirectory(prefix="workbook-validate-") as scratch:
        keys = {
            (subject.name, lab): runner_digest(subject.package, lab, Path(scratch))
            for subject in found
            for lab in tables.labs
        }
    first: dict[str, tuple[Path, int]] = {}
    packages = {subject.name: subject.package for subject in found}
    for (name, lab), digest in keys.items():
        first.setdefault(digest, (packages[name], lab))
    slots: queue.Queue[int] = queue.Queue()
    for slot in range(jobs):
        slots.put(slot)

    def run(package: Path, lab: int) -> LabVerdict:
        slot = slots.get()
        try:
            return judge_lab(package, lab, tables.book, isolation, slot, seed=seed)
        finally:
            slots.put(slot)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {digest: pool.submit(run, package, lab) for digest, (package, lab) in first.items()}
        verdicts = {digest: future.result() for digest, future in futures.items()}
    return {key: verdicts[digest] for key, digest in keys.items()}, len(first)


def _lost_cells(verdict: LabVerdict, tables: Tables) -> list[str]:
    extra = tables.book.extra
    return [
        grade_id
        for grade_id, score in verdict.scores.items()
        if score < tables.book.points[grade_id] or verdict.extra.get(grade_id, 0) < extra.get(grade_id, 0)
    ]


def _first_failure(verdict: LabVerdict) -> str:
    failed = next((case for case in verdict.cases if not case.passed), None)
    return "" if failed is None else f" ({failed.key}: {(failed.message or failed.hint)[:200]})"


def assess(subject: Subject, verdicts: dict[int, LabVerdict], tables: Tables, strict: bool) -> Row:
    """Apply the gate's rules to one subject's verdicts."""
    lost = {
        lab: round(tables.full(lab) - sum(verdict.scores.values()) - sum(verdict.extra.values()), 6)
        for lab, verdict in verdicts.items()
    }
    problems: list[str] = []
    name, own = subject.name, subject.lab
    what = {
        "mistake": f"mistake {name!r} (lab {own})",
        "correct": f"correct implementation {name!r} (lab {own})",
        "reference": "the reference",
        "starters": "the starters",
    }[subject.kind]
    for lab, points in lost.items():
        if subject.kind == "starters":
            if tables.full(lab) - points:
                problems.append(f"{what} score {tables.full(lab) - points:g} points on lab {lab}, expected 0")
        elif subject.kind == "mistake" and lab == own:
            if not points:
                problems.append(f"{what} keeps full marks on lab {lab}: no case catches that {subject.description}")
        elif subject.kind == "mistake":
            if points:
                problems.append(f"{what} costs {points:g} points on lab {lab}{_first_failure(verdicts[lab])}")
        elif points:
            problems.append(f"{what} loses {points:g} points on lab {lab}{_first_failure(verdicts[lab])}")
    pending = own is not None and own not in verdicts
    if pending and strict:
        problems.append(f"{what} cannot be judged: lab {own} has no cases")
    if pending:
        outcome = PENDING if subject.kind == "mistake" else f"correct; {PENDING}"
    elif subject.kind == "mistake" and own is not None and lost[own]:
        outcome = "killed: " + ", ".join(cell.split("_", 1)[1] for cell in _lost_cells(verdicts[own], tables))
    elif subject.kind == "mistake":
        outcome = "SURVIVED"
    elif subject.kind == "starters":
        outcome = "0 everywhere" if not problems else "SCORES POINTS"
    else:
        outcome = "full marks" if not any(lost.values()) else "LOSES POINTS"
        outcome = f"correct; {outcome}" if subject.kind == "correct" else outcome
    leaks = [lab for lab, points in lost.items() if points and lab != own and subject.kind == "mistake"]
    if leaks:
        outcome += "; ALSO COSTS lab " + ", ".join(map(str, leaks))
    return Row(subject, verdicts, lost, tuple(problems), outcome)


def run_gate(
    tables: Tables,
    labs: Iterable[int] | None = None,
    strict: bool = False,
    jobs: int = JOBS,
    isolation: sandbox.Isolation | None = None,
    seed: int = 0,
) -> GateReport:
    """Grade the reference, the starters and the bank (of ``labs``, default all) with ``tables`` and the generated
    variants of ``seed``; apply the gate's rules (``strict``: a lab without cases is a failure). Nothing is left
    on disk."""
    isolation = isolation or sandbox.detect("auto")
    with tempfile.TemporaryDirectory(prefix="workbook-bank-") as folder:
        found, errors = subjects(Path(folder), labs)
        verdicts, runs = grade(found, tables, isolation, jobs, seed)
    rows = tuple(
        assess(subject, {lab: verdicts[subject.name, lab] for lab in tables.labs}, tables, strict) for subject in found
    )
    failures = errors + [problem for row in rows for problem in row.problems]
    uncased = [lab.number for lab in LABS if lab.number not in tables.labs]
    if strict and uncased:
        failures.append(f"labs without cases: {', '.join(map(str, uncased))}")
    return GateReport(rows, tables.labs, tuple(failures), runs, len(verdicts))


def idle_variants(report: GateReport, tables: Tables) -> list[str]:
    """The grade cells whose generated variants fail no bank mistake of their lab (``CaseBook.generated``): they
    add nothing yet that the bank proves. Only the labs whose mistakes were judged. Listed by ``workbook
    validate``, not a failure."""
    judged = {row.subject.lab for row in report.rows if row.subject.kind == "mistake"}
    cells = {
        result.grade_id
        for row in report.rows
        for lab, verdict in row.verdicts.items()
        if lab in judged
        for result in verdict.cases
        if GENERATED in result.key
    }
    killing = {
        result.grade_id
        for row in report.rows
        if row.subject.kind == "mistake"
        for lab, verdict in row.verdicts.items()
        if lab == row.subject.lab
        for result in verdict.cases
        if GENERATED in result.key and not result.passed
    }
    return sorted(cells - killing)


GENERATED = "/generated_"
"""What the key of a generated variant holds (``lab3_trim_boundary/generated_0``)."""


def matrix(report: GateReport, tables: Tables) -> Table:
    """The kill matrix: the starters and the reference, then each lab's mistakes and correct implementations
    under a heading, with the points each lost per lab (``·`` none, ``-`` no cases yet) and its outcome; red
    where the gate's rules are broken."""
    table = Table(title="kill matrix: points lost per lab", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("bank entry", no_wrap=True)
    for lab in LABS:
        table.add_column(
            f"{lab.number}/{tables.full(lab.number):g}" if lab.number in report.labs else str(lab.number),
            justify="right",
            no_wrap=True,
        )
    table.add_column("outcome")
    by_lab = sorted(report.rows, key=lambda row: (row.subject.lab or 0, row.subject.kind != "mistake"))
    heading = None
    for row in by_lab:
        subject = row.subject
        if subject.lab and subject.lab != heading:
            heading = subject.lab
            table.add_section()
            table.add_row(f"[bold]lab {heading}: {LABS[heading - 1].title}[/]")
        cells = []
        for lab in LABS:
            points = row.lost.get(lab.number)
            if points is None:
                cells.append("[dim]-[/]")
                continue
            own = subject.kind == "mistake" and lab.number == subject.lab
            good = {"starters": points == tables.full(lab.number)}.get(subject.kind, points > 0 if own else not points)
            text = f"-{points:g}" if points else ("0" if own else "·")
            cells.append(text if good else f"[red bold]{text}[/]")
        style = "red bold" if row.problems else ("dim" if row.outcome.endswith(PENDING) else "")
        table.add_row(subject.name, *cells, f"[{style}]{row.outcome}[/]" if style else row.outcome)
    return table


def summary(report: GateReport) -> str:
    """The gate's verdict in one paragraph (rich markup)."""
    mistakes = [row for row in report.rows if row.subject.kind == "mistake"]
    correct = [row for row in report.rows if row.subject.kind == "correct"]
    judged = [row for row in mistakes if row.subject.lab in report.labs]
    pending = [lab.number for lab in LABS if lab.number not in report.labs]
    waiting = ""
    if pending:
        idle = [row for row in mistakes + correct if row.subject.lab in pending]
        counts = (
            f" ({sum(row.subject.kind == 'mistake' for row in idle)} mistakes, "
            f"{sum(row.subject.kind == 'correct' for row in idle)} correct implementations)"
            if idle
            else ""
        )
        waiting = f" Not judged, no cases yet: lab {', '.join(map(str, pending))}{counts}."
    runs = f" {report.gradings} gradings, {report.runs} judge runs."
    if report.passed:
        return (
            f"[green bold]validity gate passed[/]: the {len(judged)} judged mistakes lose points on their own "
            f"lab and nowhere else; {sum(row.subject.lab in report.labs for row in correct)} correct "
            f"implementations and the reference keep full marks; the starters score 0.{waiting}{runs}"
        )
    lines = "\n".join(f"  - {escape(failure)}" for failure in report.failures)
    return f"[red bold]validity gate FAILED[/] ({len(report.failures)} problems):\n{lines}\n{waiting.strip()}{runs}"
