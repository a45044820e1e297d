"""The labs' test cases as data, and the one rule that decides whether a case passed.

A ``Case`` names a notebook grade cell (``grade_id``), the function called (``module.function`` inside
``compaction_lab``), its inputs as wire values (``provided/wire.py``) and what must happen: either a
return value equal to the reference solution's, or an error of a named class whose message names given
ids or field paths. Every case also requires that the inputs are not changed by the call; a case with
``copies`` requires that the result shares no list or dict with the inputs.

The visible cases of each lab are in this package, one module per lab module (``cases/budget.py`` for
``budget.py``), so the notebook, ``workbook check`` and the grader run the same definitions. Their expected
observations, computed from the reference solutions, are in ``expected.json`` (``python -m workbook.cases``
writes it). Hidden cases are never in this package: they live with the grader only.

``verdict`` compares an observation with the expected one; ``check`` runs a grade cell's visible cases in
the notebook.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import reprlib
import signal
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import errors
from ..errors import LabNotImplementedError
from ..labs import LABS
from ..saved import sync

EXPECTED_FILE = Path(__file__).with_name("expected.json")


@dataclass(frozen=True)
class Case:
    """One call of a lab function and what must come of it.

    ``name`` is unique within its ``grade_id`` (the notebook cell whose points it belongs to); ``call`` is
    how the call is shown to a student; ``function`` is ``module.function`` inside ``compaction_lab``;
    ``args``/``kwargs`` are wire values. ``parts`` limits the comparison of a returned value to some of its
    parts, each a dotted path (``"tokens.available_for_messages"``, ``"messages.0"``, ``"-1"``): a cell checks
    what its docstring says, not everything at once. ``raises`` is an error class name the call must raise (a subclass
    counts) and ``naming`` what its message must name: each item a word, or a tuple of words of which one
    is enough (``("call_0", "a2")``: the call id or the entry id). ``hint`` is the one line a student sees
    when a hidden case fails; ``hidden`` marks a case that lives with the grader only.
    """

    name: str
    grade_id: str
    call: str
    function: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    parts: tuple[str, ...] = ()
    raises: str | None = None
    naming: tuple[str | tuple[str, ...], ...] = ()
    copies: bool = False
    hint: str = ""
    hidden: bool = False

    @property
    def key(self) -> str:
        """``grade_id/name``: unique among all cases."""
        return f"{self.grade_id}/{self.name}"

    @property
    def lab(self) -> int:
        """The lab number, from the ``labN_`` prefix of the grade id."""
        return int(self.grade_id.removeprefix("lab").split("_")[0])

    @property
    def extra_credit(self) -> bool:
        """Whether the case belongs to a "Going further" cell (grade id ``labN_extra_...``): extra credit,
        outside the lab's points."""
        return is_extra_credit(self.grade_id)

    def sent(self) -> list[Any]:
        """The inputs as sent, ``[args, kwargs]`` (wire values), to compare with ``inputs_after``."""
        return [list(self.args), dict(self.kwargs)]

    def expectation(self) -> str:
        """What the case expects of an error, in words: ``"InteractionError naming 'u1' and 'call_0' or 'a2'"``."""
        words = [" or ".join(map(repr, (item,) if isinstance(item, str) else item)) for item in self.naming]
        return f"{self.raises}" + (f" naming {' and '.join(words)}" if words else "")


@dataclass(frozen=True)
class Verdict:
    """Whether one case passed: ``status`` is ``passed``, ``failed``, ``not started``, ``crashed`` or
    ``timed out``; ``message`` is one sentence (called, got, expected), empty when passed."""

    key: str
    status: str
    message: str = ""

    @property
    def passed(self) -> bool:
        """True when the case passed."""
        return self.status == "passed"


EXTRA_CREDIT_GRADE_ID = re.compile(r"lab\d+_extra_")
"""The start of an extra-credit grade cell's id (``lab4_extra_boundary``): its notebook cell has nbgrader points 0
and ``workbook.extra_credit`` metadata (``tests/test_notebooks.py`` checks they agree)."""


def is_extra_credit(grade_id: str) -> bool:
    """True for an extra-credit grade cell's id (``EXTRA_CREDIT_GRADE_ID``)."""
    return bool(EXTRA_CREDIT_GRADE_ID.match(grade_id))


SHORT = reprlib.Repr()
SHORT.maxlevel, SHORT.maxlist, SHORT.maxdict, SHORT.maxstring, SHORT.maxother = 3, 8, 8, 80, 80


def verdict(case: Case, observed: dict[str, Any], expected: dict[str, Any], sent: list[Any] | None = None) -> Verdict:
    """Decide ``case`` from the ``observed`` report of ``wire.observe`` and the reference's ``expected`` one.

    ``sent`` is ``[args, kwargs]`` as sent (default ``case.sent()``). An observation may also be
    ``{"crashed": why}`` or ``{"timed out": why}`` (made by the grader when the runner died or hung).
    """
    sent = case.sent() if sent is None else sent
    for status in ("crashed", "timed out"):
        if status in observed:
            return Verdict(case.key, status, f"called {case.call}: {observed[status]}")
    raised = observed.get("raised")
    if raised and "LabNotImplementedError" in raised["classes"]:
        return Verdict(case.key, "not started", raised["message"])
    failure = _error_failure(case, observed) if case.raises else _value_failure(case, observed, expected)
    if failure is None and not same(observed.get("inputs_after"), sent):
        failure = f"called {case.call}, which changed its inputs{_where(observed.get('inputs_after'), sent)}; " \
                  "expected the inputs unchanged"
    return Verdict(case.key, "failed", failure) if failure else Verdict(case.key, "passed")


def _error_failure(case: Case, observed: dict[str, Any]) -> str | None:
    raised = observed.get("raised")
    expected = case.expectation()
    if raised is None:
        got = "a value that is not data" if "unserializable" in observed else show(observed.get("returned"))
        return f"called {case.call}, got {got} and no error, expected {expected}"
    name, message = _class_name(raised), raised["message"]
    if case.raises not in raised["classes"] or _also_another_course_error(case.raises, raised["classes"]):
        return f"called {case.call}, got {name}({SHORT.repr(message)}), expected {expected}"
    missing = [item for item in case.naming
               if not any(word in message for word in ((item,) if isinstance(item, str) else item))]
    if missing:
        return f"called {case.call}, got {name}({SHORT.repr(message)}), expected {expected}"
    return None


def _class_name(raised: dict[str, Any]) -> str:
    """The raised error's class name as a message shows it: at most 80 characters."""
    name = raised["classes"][0]
    return name if len(name) <= 80 else name[:80] + "..."


def _also_another_course_error(expected: str, classes: list[str]) -> bool:
    """True when the raised error is also one of the course's other error classes (``provided.errors``),
    e.g. one class deriving from all of them so that every error case would pass: each error case expects
    one kind of error, and an error of every kind is none of them."""
    kind = getattr(errors, expected, None)
    allowed = {cls.__name__ for cls in kind.__mro__} if isinstance(kind, type) else {expected}
    return any(name in COURSE_ERRORS and name not in allowed for name in classes)


COURSE_ERRORS = frozenset(name for name, value in vars(errors).items()
                          if isinstance(value, type) and issubclass(value, Exception)
                          and value.__module__ == errors.__name__)
"""The names of the error classes ``provided.errors`` defines."""


def _value_failure(case: Case, observed: dict[str, Any], expected: dict[str, Any]) -> str | None:
    want = expected.get("returned")
    if "raised" in observed:
        raised = observed["raised"]
        return f"called {case.call}, got {_class_name(raised)}({SHORT.repr(raised['message'])}), " \
               f"expected {show(want)}"
    if "unserializable" in observed:
        return f"called {case.call}, got a value that is not plain data ({observed['unserializable']}), " \
               f"expected {show(want)}"
    got = observed.get("returned")
    for part in case.parts or ("",):
        got_part, want_part = extract(got, part), extract(want, part)
        found = first_difference(got_part, want_part)
        if found:
            where, got_value, want_value = found
            path = f".{part}" if part else ""
            if where and not where.endswith(" length"):
                path, got_part, want_part = f"{path}{where}", got_value, want_value
            got_text = f"{path} = {show(got_part)}" if path else show(got_part)
            return f"called {case.call}, got {got_text}, expected {show(want_part)}"
    if case.copies and observed.get("shared"):
        return f"called {case.call}, got a result whose {observed['shared'][0]} is an object of its inputs, " \
               "expected deep copies"
    return None


MISSING = "<missing>"


def extract(value: Any, part: str) -> Any:
    """The part of a wire value at a dotted path (dataclass fields, dict keys, list indexes; ``""`` is the
    whole value); ``MISSING`` where the path does not lead anywhere."""
    for step in part.split(".") if part else ():
        if isinstance(value, dict) and "$dataclass" in value:
            value = value["fields"].get(step, MISSING)
        elif isinstance(value, dict):
            value = value.get(step, MISSING)
        elif isinstance(value, list) and step.lstrip("-").isdigit() and -len(value) <= int(step) < len(value):
            value = value[int(step)]
        else:
            return MISSING
    return value


def same(got: Any, want: Any) -> bool:
    """Equality of wire values that tells ``True`` from ``1``: numbers compare by value, bools only with bools."""
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want) and got == want
    if isinstance(got, (int, float)) and isinstance(want, (int, float)):
        return got == want
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(same(a, b) for a, b in zip(got, want, strict=True))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(same(got[key], want[key]) for key in want)
    return type(got) is type(want) and got == want


def first_difference(got: Any, want: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The path of the first difference between two wire values (``.field`` of a dataclass, ``[key]``,
    ``[index]``, `` length``) and the two values there; None when they are the same."""
    if same(got, want):
        return None
    if isinstance(got, dict) and isinstance(want, dict):
        if got.get("$dataclass") is not None and got.get("$dataclass") == want.get("$dataclass"):
            found = _first_in_mapping(got["fields"], want["fields"], lambda key: f"{path}.{key}")
        elif "$dataclass" not in got and "$dataclass" not in want:
            found = _first_in_mapping(got, want, lambda key: f"{path}[{key!r}]")
        else:
            found = None
        if found:
            return found
    if isinstance(got, list) and isinstance(want, list):
        for index, (a, b) in enumerate(zip(got, want, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return f"{path} length", len(got), len(want)
    return path, got, want


def _first_in_mapping(got: dict[str, Any], want: dict[str, Any], where: Any) -> tuple[str, Any, Any] | None:
    for key in [*want, *(key for key in got if key not in want)]:
        if key not in got or key not in want:
            return where(key), got.get(key, MISSING), want.get(key, MISSING)
        found = first_difference(got[key], want[key], where(key))
        if found:
            return found
    return None


def _where(got: Any, want: Any) -> str:
    found = first_difference(got, want)
    if not found or not found[0]:
        return ""
    path, a, b = found
    return f" (first difference at {path}: got {show(a)}, expected {show(b)})"


def show(value: Any) -> str:
    """A short, readable form of a wire value: dataclasses as ``Name(field=...)``, tags as Python values."""
    return SHORT.repr(_readable(value))


class _Shown:
    def __init__(self, name: str, fields: dict[str, Any]) -> None:
        self.name, self.fields = name, fields

    def __repr__(self) -> str:
        return f"{self.name}(" + ", ".join(f"{key}={SHORT.repr(value)}" for key, value in self.fields.items()) + ")"


def _readable(value: Any) -> Any:
    if isinstance(value, list):
        return [_readable(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$dataclass" in value:
        return _Shown(value["$dataclass"], {key: _readable(item) for key, item in value["fields"].items()})
    if "$float" in value:
        return float(value["$float"])
    if "$tuple" in value:
        return tuple(_readable(item) for item in value["$tuple"])
    if "$dict" in value:
        return {key: _readable(item) for key, item in value["$dict"].items()}
    return {key: _readable(item) for key, item in value.items()}


def visible_cases(lab: int | None = None) -> tuple[Case, ...]:
    """The visible cases of every lab (or of ``lab``), in lab order, from ``cases/<lab module>.py``."""
    chosen = [item for item in LABS if lab is None or item.number == lab]
    return tuple(case for item in chosen
                 for case in importlib.import_module(f"{__name__}.{item.module}").CASES)


def expected_observations() -> dict[str, dict[str, Any]]:
    """The reference's observation of every visible case, by ``Case.key`` (``expected.json``)."""
    return json.loads(EXPECTED_FILE.read_text(encoding="utf-8"))


CALL_SECONDS = 5.0
"""The labs' time limit per call: a call of your function in a check that runs longer is stopped and the check
fails, the same in the notebook's test cells (so also when you Validate), in ``workbook check`` and when your
work is graded (the grader's judge reads it from here)."""


class CallTimedOut(BaseException):
    """Raised inside a call of your function that ran longer than ``CALL_SECONDS`` (a ``BaseException``, so an
    ``except Exception`` in your code cannot swallow it)."""


def observe_within_limit(case: Case) -> dict[str, Any]:
    """``wire.observe`` of ``case``, stopped after ``CALL_SECONDS`` (a timer signal; in the main thread only,
    where a notebook's cells and ``workbook check`` run): the observation then reports ``CallTimedOut``."""
    from ..wire import observe

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return observe(case.function, list(case.args), dict(case.kwargs))

    def stop(signum: int, frame: Any) -> None:
        raise CallTimedOut(f"the call ran longer than the labs' limit of {CALL_SECONDS:g} seconds and was stopped")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        return observe(case.function, list(case.args), dict(case.kwargs))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_visible(cases: tuple[Case, ...]) -> list[Verdict]:
    """Run ``cases`` in this process on the package imported here, each call within ``CALL_SECONDS``, and decide
    each against ``expected.json``."""
    expected = expected_observations()
    return [verdict(case, observe_within_limit(case), expected[case.key]) for case in cases]


PRINTED = "What your code printed while these checks ran (shown, never scored):"
"""The line before what the student's code printed (warnings, log lines, stderr) in a test cell's output."""


def check(grade_id: str) -> None:
    """A notebook test cell: run the visible cases of ``grade_id``, print one line per case, and raise
    ``AssertionError`` with the first failure's sentence (``LabNotImplementedError`` while the lab is not
    started). A cell without visible cases says its points are graded by hidden tests. The lab's saved files
    (``saved.sync``) must compile first: otherwise the checks would run code that is no longer in them.

    What your code prints while the cases run, on stdout or stderr (a warning, a log line, a debug print), is
    collected and printed after the case lines, below ``PRINTED``, on stdout: it is shown, and never decides
    anything (nbgrader would score a cell that writes to stderr as failed)."""
    cases = tuple(case for case in visible_cases(int(grade_id.removeprefix("lab").split("_")[0]))
                  if case.grade_id == grade_id)
    if not cases:
        print(f"{grade_id}: graded by hidden tests when your work is graded; the docstring above says what they check.")
        return
    lab = next(item for item in LABS if item.number == cases[0].lab)
    problems = sync(list(lab.modules)).problems
    if problems:
        raise AssertionError(f"{problems[0]}\nFix it and save the file: until then this kernel runs the code it "
                             "loaded before, and no check can pass.")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), warnings.catch_warnings():
        warnings.simplefilter("always")  # a warning shown by an earlier cell is shown here again
        verdicts = run_visible(cases)
    for case, result in zip(cases, verdicts, strict=True):
        print(f"{'✓' if result.passed else '✗'} {case.name}: {case.call}" + ("" if result.passed else
                                                                             f"\n    {result.message}"))
    if printed.getvalue():
        print(f"{PRINTED}\n{printed.getvalue().rstrip()}")
    started = [result for result in verdicts if result.status != "not started"]
    if not started:
        raise LabNotImplementedError(*(LabNotImplementedError.named_in(verdicts[0].message)
                                       or (lab.number, lab.function)))
    failed = [result for result in verdicts if not result.passed]
    if failed:
        raise AssertionError(f"{len(failed)} of {len(verdicts)} checks of {grade_id} failed; "
                             f"the first: {failed[0].message}")
