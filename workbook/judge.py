"""The judge: each lab of a submission graded on its own code, in a sandboxed runner, decided here.

For every lab, the judge assembles a package in a private sandbox folder: the student's module for that
lab, the reference modules of the labs it calls (``Lab.uses``) and the starters of the others, plus the
course's provided modules. The runner (``compaction_lab.provided.runner``) calls each case there and writes
back plain data. Visible cases run in one sandbox, hidden cases and every case's twin (``workbook.cases``)
in a fresh one, so nothing a hidden case shows the student's code can reach a visible case's report.

The runner is the student's process: what it reports is evidence, never a verdict. The judge decides each
case here, with ``verdict`` against the reference solutions' own outcome, computed in this process. A case
passes when it and its twin pass; a grade cell earns its points when all its cases pass.

Limits: importing the lab module may take ``IMPORT_SECONDS`` (a module that prints a lot at import is slow,
not wrong); a case that runs longer than ``case_seconds()`` is stopped and fails as timed out; a runner that
crashes or calls ``os._exit`` fails the case it was running; the runner is then started again for the
remaining cases, so one bad case costs that case. A lab's runners get ``LAB_SECONDS`` in all (the visible
cases half of it), after which the cases left fail as timed out; what the
code prints is drained and capped (``OUTPUT_BYTES`` kept), never scored; reports over ``REPORT_BYTES``
fail the lab.
"""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from . import sandbox
from .cases import CaseBook, reference_observation, twin, twin_suffix
from .labs import LABS
from .paths import SOLUTIONS, STARTERS
from .reference import import_reference

IMPORT_SECONDS = 20.0
LAB_SECONDS = 45.0
OUTPUT_BYTES = 64 * 1024
REPORT_BYTES = 16 * 1024 * 1024
RUNNER = "compaction_lab.provided.runner"


def case_seconds() -> float:
    """Seconds one case's call may run: the labs' ``CALL_SECONDS``, set once in the reference package's
    ``provided/cases`` (the notebooks' checks and ``workbook check`` stop a call after as long)."""
    import_reference()
    from compaction_lab.provided.cases import CALL_SECONDS

    return CALL_SECONDS


@dataclasses.dataclass(frozen=True)
class CaseResult:
    """One case as judged: its key, grade cell, whether hidden, status (``passed``, ``failed``, ``not
    started``, ``crashed``, ``timed out``), the call and the sentence a student may see (both empty for a
    hidden case, whose inputs are never shown) and the hint."""

    key: str
    grade_id: str
    hidden: bool
    status: str
    call: str
    message: str
    hint: str

    @property
    def passed(self) -> bool:
        """True when the case and its twin passed."""
        return self.status == "passed"


@dataclasses.dataclass(frozen=True)
class LabVerdict:
    """One lab of one submission: every case's result, each grade cell's points and extra-credit points, and
    a status note (``graded``, or what went wrong: ``could not import budget.py: SyntaxError: ...``)."""

    lab: int
    cases: tuple[CaseResult, ...]
    scores: dict[str, float]
    status: str
    output: str = ""
    extra: dict[str, float] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for the results file."""
        return {"lab": self.lab, "status": self.status, "scores": self.scores, "extra": self.extra,
                "output": self.output, "cases": [dataclasses.asdict(case) for case in self.cases]}


def assemble(package: Path, lab: int, dest: Path) -> Path:
    """Write the runner package for grading ``lab`` to ``dest/compaction_lab``: the reference package, the
    starters of labs ``lab`` does not use, and the student's module of ``lab`` from ``package`` (left as
    the starter's when the student has none or it is not a regular file). Return the package folder."""
    target = dest / "compaction_lab"
    shutil.copytree(SOLUTIONS, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    chosen = next(item for item in LABS if item.number == lab)
    for other in LABS:
        if other.number != lab and other.number not in chosen.uses:
            shutil.copyfile(STARTERS / f"{other.module}.py", target / f"{other.module}.py")
    mine = package / f"{chosen.module}.py"
    source = mine if mine.is_file() and not mine.is_symlink() else STARTERS / f"{chosen.module}.py"
    shutil.copyfile(source, target / f"{chosen.module}.py")
    return target


def run_cases(package: Path, lab: int, cases: list[Any], isolation: sandbox.Isolation, slot: int = 0,
              deadline: float | None = None) -> tuple[dict[str, dict[str, Any]], str]:
    """Run ``cases`` of ``lab`` on the student's ``package`` in fresh sandboxes; return the runner's
    observation of each case by key (``{"crashed": why}`` / ``{"timed out": why}`` where it gave none) and
    the first ``OUTPUT_BYTES`` of what the code printed."""
    deadline = deadline or time.monotonic() + LAB_SECONDS
    observations: dict[str, dict[str, Any]] = {}
    printed = bytearray()
    remaining = list(cases)
    while remaining:
        with sandbox.private_dir(isolation, slot) as work:
            assemble(package, lab, work)
            (work / "cases.json").write_text(json.dumps([
                {"key": case.key, "function": case.function, "args": list(case.args), "kwargs": dict(case.kwargs)}
                for case in remaining]), encoding="utf-8")
            module = next(item.module for item in LABS if item.number == lab)
            lines, why = _run_runner(isolation, slot, work, module, deadline, printed)
        ready = any("ready" in line for line in lines)
        failed_import = next((line["import_error"] for line in lines if "import_error" in line), None)
        for line in lines:
            if "observation" in line and isinstance(line["observation"], dict):
                observations[line["key"]] = line["observation"]
        started = [line["start"] for line in lines if "start" in line]
        done = {case.key for case in remaining if case.key in observations}
        if failed_import is not None or not ready:
            reason = (f"could not import {module}.py: {failed_import['classes'][0]}: {failed_import['message'][:300]}"
                      if failed_import else f"the runner stopped while importing {module}.py ({why})")
            for case in remaining:
                observations.setdefault(case.key, {"crashed": reason})
            break
        current = next((key for key in reversed(started) if key not in done), None)
        if current is not None:
            status = "timed out" if why.startswith("timed out") else "crashed"
            observations[current] = {status: why}
        remaining = [case for case in remaining if case.key not in observations]
        if time.monotonic() >= deadline:
            for case in remaining:
                observations[case.key] = {"timed out": f"the lab's {LAB_SECONDS:.0f} s were used up"}
            break
    return observations, printed.decode("utf-8", "replace")


def _run_runner(isolation: sandbox.Isolation, slot: int, work: Path, module: str, deadline: float,
                printed: bytearray) -> tuple[list[dict], str]:
    """Start the runner in the sandbox; collect its report lines (a pipe) until it exits, a case exceeds
    ``case_seconds()``, ``deadline`` passes or the reports exceed ``REPORT_BYTES``; return the parsed lines and
    how it ended. What it prints is appended to ``printed`` up to ``OUTPUT_BYTES``, the rest drained."""
    read_end, write_end = os.pipe()
    argv = [sys.executable, "-s", "-E", "-m", RUNNER, str(work / "cases.json"), module, str(write_end)]
    process = subprocess.Popen(sandbox.wrap(isolation, argv, workdir=work, slot=slot), cwd=work,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               pass_fds=(write_end,), start_new_session=True)
    os.close(write_end)
    selector = selectors.DefaultSelector()
    selector.register(read_end, selectors.EVENT_READ, "report")
    selector.register(process.stdout, selectors.EVENT_READ, "output")
    report, why, last = bytearray(), "", time.monotonic()
    open_streams = 2
    while open_streams:
        now = time.monotonic()
        allowed = case_seconds() if b'"ready"' in report else IMPORT_SECONDS
        if now - last > allowed or now > deadline:
            why = f"timed out: no report for {allowed:.0f} s" if now - last > allowed else \
                "timed out: the lab's time was used up"
            break
        for key, _ in selector.select(timeout=0.2):
            chunk = os.read(key.fd if key.data == "report" else process.stdout.fileno(), 65536)
            if not chunk:
                selector.unregister(key.fileobj)
                open_streams -= 1
            elif key.data == "report":
                report += chunk
                last = time.monotonic()
            elif len(printed) < OUTPUT_BYTES:
                printed += chunk[: OUTPUT_BYTES - len(printed)]
        if len(report) > REPORT_BYTES:
            why = "its reports were too large"
            break
    sandbox.kill_group(process)
    selector.close()
    os.close(read_end)
    process.stdout.close()
    if not why:
        why = f"the runner exited with status {process.returncode}"
        if process.returncode and process.returncode < 0:
            why = f"the runner was killed by signal {signal.Signals(-process.returncode).name}"
    return _lines(bytes(report)), why


def _lines(report: bytes) -> list[dict[str, Any]]:
    lines = []
    for raw in report.split(b"\n"):
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a torn last line, or anything that is not a report
        if isinstance(line, dict):
            lines.append(line)
    return lines


def judge_lab(package: Path, lab: int, book: CaseBook, isolation: sandbox.Isolation, slot: int = 0,
              suffix: str | None = None) -> LabVerdict:
    """Grade ``lab`` of the student package folder ``package`` (their ``compaction_lab``) with ``book``'s cases."""
    import_reference()
    from compaction_lab.provided.cases import verdict

    suffix = suffix or twin_suffix()
    cases = book.of_lab(lab)
    twins = {case.key: dataclasses.replace(twin(case, suffix), name=f"{case.name}~twin") for case in cases}
    visible = [case for case in cases if not case.hidden]
    secret = [case for case in cases if case.hidden] + list(twins.values())
    start = time.monotonic()
    observed, output = run_cases(package, lab, visible, isolation, slot, start + LAB_SECONDS / 2) if visible \
        else ({}, "")
    more, more_output = run_cases(package, lab, secret, isolation, slot, start + LAB_SECONDS)
    observed.update(more)
    results = []
    for case in cases:
        plain = verdict(case, observed[case.key], reference_observation(case))
        double = twins[case.key]
        second = verdict(double, observed[double.key], reference_observation(double))
        status, message = plain.status, plain.message
        if plain.passed and not second.passed:
            status = "failed"
            message = f"passed as shown, but not with its ids renamed: {second.message}"
        shown = not case.hidden
        results.append(CaseResult(case.key, case.grade_id, case.hidden, status, case.call if shown else "",
                                  message if shown and status != "passed" else "", case.hint))
    passed = {grade_id: _all_passed([result for result in results if result.grade_id == grade_id])
              for grade_id in book.points if grade_id.startswith(f"lab{lab}_")}
    scores = {grade_id: book.points[grade_id] if ok else 0.0 for grade_id, ok in passed.items()}
    extra = {grade_id: book.extra[grade_id] if ok else 0.0 for grade_id, ok in passed.items() if grade_id in book.extra}
    crashed = [result for result in results if result.status in ("crashed", "timed out")]
    status = "graded" if not crashed else f"{len(crashed)} case(s) {crashed[0].status}: " \
        f"{crashed[0].message.split(': ', 1)[-1][:200]}"
    return LabVerdict(lab, tuple(results), scores, status, (output + more_output)[:OUTPUT_BYTES], extra)


def _all_passed(results: list[CaseResult]) -> bool:
    """A grade cell earns its points when it has cases and every one passed (no cases: no points)."""
    return bool(results) and all(result.passed for result in results)


def judge_submission(package: Path, book: CaseBook, isolation: sandbox.Isolation, slot: int = 0,
                     labs: tuple[int, ...] | None = None) -> list[LabVerdict]:
    """Grade every lab (or ``labs``) of the student package folder ``package``; one twin suffix for all."""
    suffix = twin_suffix()
    return [judge_lab(package, lab.number, book, isolation, slot, suffix) for lab in LABS
            if labs is None or lab.number in labs]
