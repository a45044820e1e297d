"""The judge: each lab of a submission graded on its own code, in a sandboxed runner, decided here.

For every lab, the judge assembles a package in a private sandbox folder: the student's module for that
lab, stubs of the labs it calls (``Lab.uses``; ``workbook.grading.stubs``) and the starters of the others, plus the
course's provided modules: no reference module of any lab. The runner (``compaction_lab._grader.runner``)
calls each case there and writes back plain data. The stubs' lab functions are answered by the oracle
(``compaction_lab._grader.oracle``), a process in a sandbox of its own started beside each runner, whose
package holds the reference modules of the used labs and a stub of the graded lab, answered by the runner;
they talk over two pipes (``compaction_lab._grader.relay``), and the oracle's time counts in the case's.
Visible cases and their twins (``workbook.grading.casebook``) run in one sandbox, hidden cases and theirs in a fresh
one, so nothing a hidden case shows the student's code can reach what a student sees case by case.

The runner is the student's process: what it reports is evidence, never a verdict. The judge decides each
case here, with ``verdict`` against the reference solutions' own outcome, computed in this process. A case
passes when it and its twin pass; a grade cell earns its points when all its cases pass.

Limits: importing the lab module may take ``IMPORT_SECONDS`` (a module that prints a lot at import is slow,
not wrong); a case that runs longer than ``case_seconds()`` is stopped and fails as timed out; a runner that
crashes or calls ``os._exit`` fails the case it was running; the runner is then started again for the
remaining cases, so one bad case costs that case. A lab's runners get ``LAB_SECONDS`` in all (the visible
cases half of it), after which the cases left fail as timed out; what the
code prints is drained and capped (``OUTPUT_BYTES`` kept in memory, and only from the visible cases' sandbox:
the other one holds the hidden inputs), never scored nor saved; reports over ``REPORT_BYTES`` fail the lab.
A report line that is not exactly of ``wire.observe``'s shape fails its case; a twin's failure is told in a
fixed sentence. The runner reads nothing from stdin: a case whose code asks for input fails at once
(``runner.InputAtGrading``) and the lab's status says so.

A lab's status is the judge's own words only (``status_of``): ``graded``, or its fixed sentences (``TROUBLES``)
of what went wrong, with numbers the judge measured, never text the runner wrote. What the hidden cases'
sandbox did is told without its exit status or signal (the student's code there could choose them).
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import dataclasses
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbook.grading import sandbox
from workbook.grading.casebook import CaseBook, TwinNames, reference_observation, twin
from workbook.grading.reference import import_reference
from workbook.grading.stubs import stub
from workbook.manifest import LABS, lab_record
from workbook.paths import SOLUTIONS, STARTERS

IMPORT_SECONDS = 20.0
LAB_SECONDS = 45.0
OUTPUT_BYTES = 64 * 1024
REPORT_BYTES = 16 * 1024 * 1024
RUNTIME = Path(__file__).with_name("runtime")
"""The grader's runtime (runner, oracle, relay), placed into each sandbox's package as ``GRADER``."""
GRADER = "_grader"
"""The runtime's name inside the package the judge grades: not a name of the course's or a student's files."""
RUNNER = f"compaction_lab.{GRADER}.runner"
ORACLE = f"compaction_lab.{GRADER}.oracle"
LAB_FILES = frozenset(f"{item.module}.py" for item in LABS)


def case_seconds() -> float:
    """Seconds one case's call may run: the labs' ``CALL_SECONDS``, set once in the reference package's
    ``provided/checking`` (the notebooks' checks and ``workbook check`` stop a call after as long)."""
    import_reference()
    from compaction_lab.provided.checking.limits import CALL_SECONDS

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
    """One lab of one submission: every case's result, each grade cell's points and extra-credit points, a
    status note (``graded``, or the judge's sentences of what went wrong: ``could not import budget.py
    (SyntaxError)``, ``status_of``) and, in memory only, what the visible cases' code printed (``output``)."""

    lab: int
    cases: tuple[CaseResult, ...]
    scores: dict[str, float]
    status: str
    output: str = ""
    extra: dict[str, float] = dataclasses.field(default_factory=dict)
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain data for the results file (``seed``: the generated variants' seed, to grade again alike)."""
        return {
            "lab": self.lab,
            "status": self.status,
            "scores": self.scores,
            "extra": self.extra,
            "seed": self.seed,
            "cases": [dataclasses.asdict(case) for case in self.cases],
        }


def assemble(package: Path, lab: int, dest: Path) -> Path:
    """Write the runner package for grading ``lab`` to ``dest/compaction_lab``: the course's provided modules,
    stubs of the labs ``lab`` uses, the starters of the others, the student's module of ``lab`` from
    ``package`` (left as the starter's when the student has none or it is not a regular file) and the
    modules the student added (``own_helpers``). Return the package folder."""
    target = _course_package(dest, lab, reference=False)
    chosen = lab_record(lab)
    mine = package / f"{chosen.module}.py"
    source = mine if mine.is_file() and not mine.is_symlink() else STARTERS / f"{chosen.module}.py"
    shutil.copyfile(source, target / f"{chosen.module}.py")
    for helper in own_helpers(package):
        shutil.copyfile(helper, target / helper.name)
    return target


def assemble_oracle(lab: int, dest: Path) -> Path:
    """Write the oracle's package for grading ``lab`` to ``dest/compaction_lab``: the reference package with
    a stub of ``lab`` (answered by the runner) and the starters of the labs ``lab`` does not use."""
    target = _course_package(dest, lab, reference=True)
    module = lab_record(lab).module
    (target / f"{module}.py").write_text(stub(module).text, encoding="utf-8")
    return target


def _course_package(dest: Path, lab: int, reference: bool) -> Path:
    """``dest/compaction_lab`` with the course's provided modules and, for the labs ``lab`` uses, their
    reference modules (``reference``) or stubs; the starters of the other labs (``lab``'s included)."""
    target = dest / "compaction_lab"
    shutil.copytree(
        SOLUTIONS,
        target,
        ignore=lambda folder, names: [
            name
            for name in names
            if name == "__pycache__"
            or name.endswith(".pyc")
            or (not reference and Path(folder) == SOLUTIONS and name in LAB_FILES)
        ],
    )
    shutil.copytree(RUNTIME, target / GRADER, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    uses = lab_record(lab).uses
    for other in LABS:
        if other.number not in uses:
            shutil.copyfile(STARTERS / f"{other.module}.py", target / f"{other.module}.py")
        elif not reference:
            (target / f"{other.module}.py").write_text(stub(other.module).text, encoding="utf-8")
    return target


def own_helpers(package: Path) -> list[Path]:
    """The modules the student added at the top of their package (``compaction_lab/my_helpers.py``): regular
    files named as Python modules that the course's package does not have. Every lab's runner gets them."""
    if not package.is_dir():
        return []
    return sorted(
        path
        for path in package.glob("*.py")
        if path.stem.isidentifier()
        and path.is_file()
        and not path.is_symlink()
        and not (SOLUTIONS / path.name).exists()
        and path.stem != GRADER
    )


@dataclasses.dataclass
class Run:
    """What the runners of one sandbox reported: each case's observation by key (``{"crashed": why}`` /
    ``{"timed out": why}``, the judge's words, where the runner gave none or a malformed one), the first
    ``OUTPUT_BYTES`` of what the code printed (empty for the hidden cases' sandbox), and the judge's
    ``troubles``: one fixed sentence (``TROUBLES``) per thing that went wrong, in order, each once; whether the
    lab module could not be imported (``import_failed``)."""

    observations: dict[str, dict[str, Any]]
    output: str = ""
    troubles: dict[str, str] = dataclasses.field(default_factory=dict)
    import_failed: bool = False

    def note(self, trouble: str, **filling: str) -> None:
        """Keep the sentence ``TROUBLES[trouble]`` filled with ``filling`` (the judge's words), the first of its
        kind."""
        self.troubles.setdefault(trouble, TROUBLES[trouble].format(**filling))


def run_cases(
    package: Path,
    lab: int,
    cases: list[Any],
    isolation: sandbox.Isolation,
    slot: int = 0,
    deadline: float | None = None,
    secret: bool = False,
) -> Run:
    """Run ``cases`` of ``lab`` on the student's ``package`` in fresh sandboxes; return the ``Run``.

    The runner sees the cases in a random order under opaque keys (``case-0``, ...), so it cannot tell a
    twin from a case by its name or place. With ``secret`` (the hidden cases' sandbox), nothing the student's
    code wrote comes back: no printed output, no import failure's message, no exit status or signal.
    """
    deadline = deadline or time.monotonic() + LAB_SECONDS
    order = list(cases)
    secrets.SystemRandom().shuffle(order)
    aliases = {f"case-{index}": case for index, case in enumerate(order)}
    run = Run({})
    observations = run.observations
    printed = bytearray()
    module = lab_record(lab).module
    remaining = list(aliases)
    while remaining:
        # the oracle starts first, to be ready when the runner is; it stops first, before the folder goes
        with sandbox.private_dir(isolation, slot) as work, oracle(isolation, slot, lab) as (oracle_argv, oracle_fds):
            assemble(package, lab, work)
            (work / "cases.json").write_text(
                json.dumps(
                    [
                        {
                            "key": alias,
                            "function": aliases[alias].function,
                            "args": list(aliases[alias].args),
                            "kwargs": dict(aliases[alias].kwargs),
                        }
                        for alias in remaining
                    ]
                ),
                encoding="utf-8",
            )
            lines, ending = _run_runner(isolation, slot, work, lab, deadline, printed, oracle_argv, oracle_fds)
        why = ending.secret if secret else ending.shown
        ready = any("ready" in line for line in lines)
        failed_import = next((line["import_error"] for line in lines if "import_error" in line), None)
        if failed_import is not None and not well_formed({"raised": failed_import, "inputs_after": []}):
            failed_import = {"classes": ["an error"], "message": ""}
        reported = {
            line["key"]: line["observation"] if well_formed(line["observation"]) else {"crashed": UNREADABLE}
            for line in lines
            if line.get("key") in remaining and "observation" in line
        }  # a key's last report counts
        for observation in reported.values():
            if "crashed" in observation:
                run.note("unreadable")
            elif asked_for_input(observation):
                run.note("input")
        observations.update(reported)
        started = [line["start"] for line in lines if line.get("start") in remaining]
        if failed_import is not None or not ready:
            if failed_import is not None:
                kind = "an error" if secret else error_kind(failed_import["classes"])
                reason = f"could not import {module}.py ({kind}"
                if not secret:
                    reason += f": {failed_import['message'][:300]}"
                reason += f"){import_hint(failed_import['message'])}"
                asked = "InputAtGrading" in failed_import["classes"]
                if asked:
                    run.note("input at import", module=module)
                else:
                    hint = "" if secret else import_hint(failed_import["message"])
                    run.note("import", module=module, error=kind, hint=hint)
            else:
                reason = f"the runner stopped while importing {module}.py ({why})"
                run.note("crashed at import", module=module, why=why)
            for alias in remaining:
                observations.setdefault(alias, {"crashed": reason})
            run.import_failed = True
            break
        current = next((alias for alias in reversed(started) if alias not in observations), None)
        if current is not None:
            status = "timed out" if ending.timed_out else "crashed"
            observations[current] = {status: why}
            run.note(status, why=why)
        remaining = [alias for alias in remaining if alias not in observations]
        if time.monotonic() >= deadline:
            for alias in remaining:
                observations[alias] = {"timed out": f"the lab's {LAB_SECONDS:.0f} s were used up"}
            if remaining:
                run.note("timed out", why=f"the lab's {LAB_SECONDS:.0f} s were used up")
            break
    run.output = "" if secret else printed.decode("utf-8", "replace")
    run.observations = {aliases[alias].key: observation for alias, observation in observations.items()}
    return run


UNREADABLE = "its report of the case could not be read"
TROUBLES = {
    "timed out": "a case timed out ({why})",
    "crashed": "a case crashed ({why})",
    "unreadable": f"a case failed: {UNREADABLE}",
    "input": "your code asked for input (nothing can be typed while your work is graded)",
    "input at import": "your code asked for input while {module}.py was imported (nothing can be typed while your "
    "work is graded)",
    "import": "could not import {module}.py ({error}){hint}",
    "crashed at import": "crashed at import of {module}.py ({why})",
}
"""The judge's sentences of a lab's status, one per kind of trouble; what fills them is the judge's own: a module
name of the manifest, an error class named by Python (``error_kind``), a limit or an exit the judge measured. None
holds "; " (``grading_notes`` joins the statuses of several labs with it)."""


def error_kind(classes: list[str]) -> str:
    """The first of ``classes`` (an error's class and bases, as the runner reported them) that Python itself
    defines (``ImportError``), so a class name the student made up never reaches a status; ``an error`` else."""
    return next((name for name in classes if name in PYTHON_ERRORS), "an error")


PYTHON_ERRORS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)
"""The names of Python's own error classes: the only class names a status may repeat."""


def asked_for_input(observation: dict[str, Any]) -> bool:
    """True when ``observation`` is of a call that read stdin: the runner's ``InputAtGrading`` was raised."""
    return "InputAtGrading" in observation.get("raised", {}).get("classes", [])


def status_of(troubles: list[str]) -> str:
    """A lab's status from the judge's ``troubles`` (``Run.troubles`` of both sandboxes): ``graded`` when there
    are none, else the sentences joined by `` and then `` (never "; ", which separates labs in the CSV)."""
    return " and then ".join(troubles) if troubles else "graded"


def import_hint(message: str) -> str:
    """What to add to an import failure that names another lab's module: each lab is graded with the
    course's copies of the other labs, so a name the student added to another lab's module is not there."""
    others = [lab.module for lab in LABS if f"compaction_lab.{lab.module}" in message]
    if not others:
        return ""
    return (
        f" (each lab is graded with the course's own {', '.join(f'{name}.py' for name in others)}: "
        "keep a helper you share between labs in a file of your own in compaction_lab/)"
    )


@contextlib.contextmanager
def oracle(isolation: sandbox.Isolation, slot: int, lab: int) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """Start the oracle for grading ``lab`` in a sandbox of its own (nothing when ``lab`` uses no other lab);
    yield the runner's arguments for it and the two pipe ends the runner gets (the caller closes them once
    the runner has them); stop it on exit."""
    chosen = lab_record(lab)
    if not chosen.uses:
        yield [], ()
        return
    with sandbox.private_dir(isolation, slot) as folder:
        assemble_oracle(lab, folder)
        served = [function for number in chosen.uses for function in stub(lab_record(number).module).forwarded]
        calls_in, calls_out = os.pipe()
        answers_in, answers_out = os.pipe()
        argv = [sys.executable, "-s", "-E", "-m", ORACLE, str(calls_in), str(answers_out), *served]
        process = subprocess.Popen(
            sandbox.wrap(isolation, argv, workdir=folder, slot=slot),
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(calls_in, answers_out),
            start_new_session=True,
        )
        os.close(calls_in)
        os.close(answers_out)
        try:
            yield [str(answers_in), str(calls_out), *stub(chosen.module).forwarded], (answers_in, calls_out)
        finally:
            sandbox.kill_group(process)


def _run_runner(
    isolation: sandbox.Isolation,
    slot: int,
    work: Path,
    lab: int,
    deadline: float,
    printed: bytearray,
    oracle_argv: list[str],
    oracle_fds: tuple[int, ...],
) -> tuple[list[dict], Ending]:
    """Start the runner in the sandbox, with the oracle's arguments and pipe ends (``oracle``; closed here once
    the runner has them); collect its report lines (a pipe) until it exits, a case exceeds ``case_seconds()``,
    ``deadline`` passes or the reports exceed ``REPORT_BYTES``; return the parsed lines and how it ended.
    What it prints is appended to ``printed`` up to ``OUTPUT_BYTES``, the rest drained."""
    read_end, write_end = os.pipe()
    argv = [
        sys.executable,
        "-s",
        "-E",
        "-m",
        RUNNER,
        str(work / "cases.json"),
        lab_record(lab).module,
        str(write_end),
        *oracle_argv,
    ]
    try:
        process = subprocess.Popen(
            sandbox.wrap(isolation, argv, workdir=work, slot=slot),
            cwd=work,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(write_end, *oracle_fds),
            start_new_session=True,
        )
    finally:
        for end in (write_end, *oracle_fds):
            os.close(end)
    output = process.stdout
    assert output is not None  # stdout=PIPE above
    selector = selectors.DefaultSelector()
    selector.register(read_end, selectors.EVENT_READ, "report")
    selector.register(output, selectors.EVENT_READ, "output")
    report, why, timed_out, last = bytearray(), "", False, time.monotonic()
    open_streams = 2
    while open_streams:
        now = time.monotonic()
        allowed = case_seconds() if b'"ready"' in report else IMPORT_SECONDS
        if now - last > allowed or now > deadline:
            why = f"no report for {allowed:.0f} s" if now - last > allowed else "the lab's time was used up"
            timed_out = True
            break
        for key, _ in selector.select(timeout=0.2):
            chunk = os.read(key.fd if key.data == "report" else output.fileno(), 65536)
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
    output.close()
    if why:
        return _lines(bytes(report)), Ending(why, why, timed_out)
    shown = f"the runner exited with status {process.returncode}"
    if process.returncode and process.returncode < 0:
        shown = f"the runner was killed by signal {signal.Signals(-process.returncode).name}"
    return _lines(bytes(report)), Ending(shown, "the runner stopped", False)


@dataclasses.dataclass(frozen=True)
class Ending:
    """How a runner ended, in the judge's words: ``shown`` names its exit status or signal, ``secret`` does not
    (what a status may say of the hidden cases' sandbox, whose code could choose them); ``timed_out`` when the
    judge stopped it for time."""

    shown: str
    secret: str
    timed_out: bool


def _lines(report: bytes) -> list[dict[str, Any]]:
    lines = []
    for raw in report.split(b"\n"):
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):
            continue  # a torn last line, or anything that is not a report (nested too deep to read, say)
        if isinstance(line, dict):
            lines.append(line)
    return lines


SHAPES = (
    frozenset({"returned", "shared", "inputs_after"}),
    frozenset({"raised", "inputs_after"}),
    frozenset({"unserializable", "inputs_after"}),
)
"""The keys of each kind of report ``wire.observe`` makes: exactly one of these sets."""


def well_formed(observation: Any) -> bool:
    """True when ``observation`` has exactly the shape ``wire.observe`` reports (see there): its keys one of
    ``SHAPES``, a raised error with a non-empty list of class names and a message, an unserializable note as
    text, a list of shared paths. Anything else (an extra key such as ``crashed``, which only the judge may
    write) is the student's process writing its own, and fails the case."""
    if not isinstance(observation, dict) or frozenset(observation) not in SHAPES:
        return False
    if "raised" in observation:
        raised = observation["raised"]
        return (
            isinstance(raised, dict)
            and set(raised) == {"classes", "message"}
            and isinstance(raised["message"], str)
            and isinstance(raised["classes"], list)
            and bool(raised["classes"])
            and all(isinstance(name, str) for name in raised["classes"])
        )
    if "returned" in observation:
        shared = observation["shared"]
        return isinstance(shared, list) and all(isinstance(path, str) for path in shared)
    return isinstance(observation["unserializable"], str)


def draw_seed() -> int:
    """A fresh seed for a grading run's generated variants (``CaseBook.generated``): the judge's, never the
    runner's."""
    return secrets.randbits(48)


def judge_lab(
    package: Path,
    lab: int,
    book: CaseBook,
    isolation: sandbox.Isolation,
    slot: int = 0,
    names: TwinNames | None = None,
    seed: int | None = None,
) -> LabVerdict:
    """Grade ``lab`` of the student package folder ``package`` (their ``compaction_lab``) with ``book``'s cases.

    The visible cases and their twins run in one sandbox (half of ``LAB_SECONDS``), the hidden cases and
    their twins in another; the status is ``status_of`` both runs' troubles, one sentence per kind (the
    visible run's first: it may name an exit status), the hidden run's left out when both failed to import the
    module (the same failure twice).

    The generated variants of ``seed`` (``CaseBook.generated``; a fresh ``draw_seed()`` when None, recorded in
    the verdict) run in the hidden cases' sandbox, without twins (their ids are drawn already), and are decided
    by the reference's outcome computed here; a cell earns its points only when they pass too."""
    import_reference()
    from compaction_lab.provided.checking.verdict import verdict

    names = names or TwinNames()
    seed = draw_seed() if seed is None else seed
    generated = book.generated(lab, seed)
    cases = book.of_lab(lab)
    twins = {case.key: dataclasses.replace(twin(case, names), name=f"{case.name}~twin") for case in cases}
    visible = [case for case in cases if not case.hidden]
    hidden = [case for case in cases if case.hidden]
    start = time.monotonic()
    shown = Run({})
    if visible:
        shown = run_cases(package, lab, _with_twins(visible, twins), isolation, slot, start + LAB_SECONDS / 2)
    unseen = run_cases(
        package, lab, _with_twins(hidden, twins) + list(generated), isolation, slot, start + LAB_SECONDS, secret=True
    )
    observed = {**shown.observations, **unseen.observations}
    troubles = dict(shown.troubles)
    if not (shown.import_failed and unseen.import_failed):
        for kind, trouble in unseen.troubles.items():  # one sentence per kind: the visible run's says more
            troubles.setdefault(kind, trouble)
    results = []
    for case in cases:
        plain = decide(verdict, case, observed[case.key], shown_reference(case), troubles)
        double = twins[case.key]
        second = decide(verdict, double, observed[double.key], reference_of(double), troubles)
        status, message = plain.status, plain.message
        if plain.passed and not second.passed:
            # A fixed sentence, never the twin's own message: the student's code wrote that.
            status = second.status if second.status in ("crashed", "timed out") else "failed"
            message = (
                f"called {case.call}: passed as shown, but {TWIN_FAILED[status]} with its ids renamed "
                "(a correct function does not depend on the ids it is given)"
            )
        seen = not case.hidden
        results.append(
            CaseResult(
                case.key,
                case.grade_id,
                case.hidden,
                status,
                case.call if seen else "",
                message if seen and status != "passed" else "",
                case.hint,
            )
        )
    for case in generated:
        # the reference's outcome of a drawn input, computed here, once: no other submission has the same one
        made = decide(verdict, case, observed[case.key], reference_of(case), troubles)
        results.append(CaseResult(case.key, case.grade_id, True, made.status, "", "", case.hint))
    passed = {
        grade_id: _all_passed([result for result in results if result.grade_id == grade_id])
        for grade_id in book.points
        if grade_id.startswith(f"lab{lab}_")
    }
    scores = {grade_id: book.points[grade_id] if ok else 0.0 for grade_id, ok in passed.items()}
    extra = {grade_id: book.extra[grade_id] if ok else 0.0 for grade_id, ok in passed.items() if grade_id in book.extra}
    return LabVerdict(
        lab, tuple(results), scores, status_of(list(troubles.values())), shown.output[:OUTPUT_BYTES], extra, seed
    )


def _with_twins(cases: list[Any], twins: dict[str, Any]) -> list[Any]:
    """``cases`` and, after them, the twin of each (``twins`` by case key)."""
    return cases + [twins[case.key] for case in cases]


TWIN_FAILED = {"failed": "gave another answer", "crashed": "crashed", "timed out": "ran out of time"}
"""What a twin did, in the sentence of a case that passed as shown and failed with its ids renamed."""


_SHOWN_REFERENCES: dict[str, dict[str, Any]] = {}
"""The reference's observation of each case as written (not a twin), by the case's JSON: the same for every
student, so a worker computes it once (about 0.7 s of CPU per submission)."""


def reference_of(case: Any) -> dict[str, Any]:
    """``reference_observation(case)``, or ``{}`` for a case that expects an error (``verdict`` reads only the
    error the student's code raised)."""
    return {} if case.raises else reference_observation(case)


def shown_reference(case: Any) -> dict[str, Any]:
    """``reference_of(case)`` for a case as written, computed once per process (a copy each time)."""
    key = json.dumps([case.function, case.args, case.kwargs, case.raises], sort_keys=True, default=repr)
    if key not in _SHOWN_REFERENCES:
        _SHOWN_REFERENCES[key] = reference_of(case)
    return copy.deepcopy(_SHOWN_REFERENCES[key])


def decide(
    verdict: Any, case: Any, observed: dict[str, Any], reference: dict[str, Any], troubles: dict[str, str] | None = None
) -> Any:
    """``verdict(case, observed, reference)``, or a crashed verdict when the report, well formed as it is,
    holds values the verdict cannot read (the student's process wrote them), which adds that trouble to
    ``troubles`` (by kind)."""
    try:
        return verdict(case, observed, reference)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
        if troubles is not None:
            troubles.setdefault("unreadable", TROUBLES["unreadable"])
        return verdict(case, {"crashed": UNREADABLE}, {})


def _all_passed(results: list[CaseResult]) -> bool:
    """A grade cell earns its points when it has cases and every one passed (no cases: no points)."""
    return bool(results) and all(result.passed for result in results)


def judge_submission(
    package: Path,
    book: CaseBook,
    isolation: sandbox.Isolation,
    slot: int = 0,
    labs: tuple[int, ...] | None = None,
    seed: int | None = None,
) -> list[LabVerdict]:
    """Grade every lab (or ``labs``) of the student package folder ``package``; one twin renaming and one seed of
    generated variants (``seed``, a fresh ``draw_seed()`` when None) for all: the same seed, the same variants."""
    names = TwinNames()
    seed = draw_seed() if seed is None else seed
    return [
        judge_lab(package, lab.number, book, isolation, slot, names, seed)
        for lab in LABS
        if labs is None or lab.number in labs
    ]
