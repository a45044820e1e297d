"""The course's answers: each lab checkable on its own, before the labs it uses are done.

Lab 3's ``build_context`` calls lab 2's ``group_interactions``; lab 5's cases build a context with lab 3. While
a lab that the lab under check uses does not pass its own visible checks (a starter raising
``LabNotImplementedError``, or a lab with a failing check), its functions answer from ``answers.json`` beside
this module: what the reference solutions returned, or raised, on exactly the calls that the visible cases and
the explorers (at the settings they open with) make. Any other call raises ``UnrecordedCallError`` naming the lab
to finish. A recorded answer that needs a call back into a lab that is yours (``build_context`` calling your
``resume_point``) makes that call, and holds only if your code answers as the reference's did
(``CourseAnswerMismatch`` otherwise). Once a used lab passes its visible checks, your own code answers, as
before (``alone`` decides which labs the course answers for). The grader never reads this file: it grades
each lab with the reference code of the labs it uses.

What the file holds reveals nothing the visible cases do not: every call in it is one the reference makes while
it computes a visible case's expected value (``visible.json`` holds that value) or an explorer's drawing of the
course's example, keyed by its exact inputs, which are those of the visible cases and the explorers. The
answers are the steps of those computations, never an answer on a hidden case's input or a twin's (whose ids
are drawn afresh at each grading).

The file is written from the reference by the course's tools, never by hand, with the lab functions of each
lab (``{"functions": {"2": ["grouping.group_interactions"], ...}, "calls": {key: {"answer": ..., "inside":
[...], "shared": [...]}}}``; ``sharing`` says what ``shared`` holds). Stand-ins are put in place for the
length of a check only and look every function up when called, so a lab module reloaded in a running kernel
is always the one that runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import errors
from ..labs import LABS
from ..messages import say
from . import sharing
from .verdict import same

ANSWERS_FILE = Path(__file__).with_name("answers.json")
PACKAGE = __name__.split(".")[0]


def wire() -> ModuleType:
    """``checking.wire``, imported when first used: it imports the lab modules, which ``workbook check`` must be
    able to report on when one of them does not compile."""
    return importlib.import_module(f"{__package__}.wire")


NO_ANSWERS: dict[str, Any] = {"functions": {}, "calls": {}}
"""What a package without a readable ``answers.json`` answers with: nothing, so every lab is checked as it is."""


@functools.cache
def _answers() -> dict[str, Any]:
    try:
        return json.loads(ANSWERS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return NO_ANSWERS


def _named(value: Any) -> dict[str, str]:
    """How a function among a call's inputs is keyed: by its module and name (it is not data)."""
    return {"$function": f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"}


def call_key(function: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The key of a call of lab function ``function`` (``grouping.group_interactions``) on ``args`` and
    ``kwargs``: its name and inputs as wire data in one JSON text. ``WireError`` for inputs that are not data."""
    return json.dumps([function, wire().to_wire([list(args), dict(kwargs)], "inputs", _named)], sort_keys=True)


def available() -> bool:
    """Whether the package holds the course's answers (a readable ``answers.json``)."""
    return bool(_answers()["functions"])


def lab_functions(number: int) -> tuple[str, ...]:
    """The lab functions of lab ``number`` (``budget.build_context``, ...): those its starter leaves to you."""
    return tuple(_answers()["functions"].get(str(number), ()))


def lab_of(function: str) -> int:
    """The lab whose module defines ``function`` (``budget.build_context`` -> 3)."""
    module = function.partition(".")[0]
    return next(item.number for item in LABS if item.module == module)


def _package_modules() -> list[Any]:
    return [module for name, module in list(sys.modules.items()) if name.split(".")[0] == PACKAGE and module]


@contextlib.contextmanager
def replaced(functions: dict[str, Callable[..., Any]]) -> Iterator[None]:
    """While inside, every name in the package's loaded modules bound to lab function ``name`` (``"budget.
    build_context"``) is bound to ``functions[name]`` instead; each is put back on the way out.

    A binding is found by what it is when the check starts, a function of that module and name, not by identity:
    a module reloaded in a running kernel holds new function objects, while the modules that imported the name
    before the reload still hold the earlier object (autoreload gives it the new code)."""
    undo = []
    for module in _package_modules():
        for attribute, value in list(vars(module).items()):
            name = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}".removeprefix(
                f"{PACKAGE}."
            )
            if callable(value) and name in functions:
                setattr(module, attribute, functions[name])
                undo.append((module, attribute, value))
    try:
        yield
    finally:
        for module, attribute, original in reversed(undo):
            setattr(module, attribute, original)


def _dataclasses() -> dict[str, type]:
    """The lab modules' dataclasses by name, as loaded now: what a recorded answer is built of."""
    found = {}
    for item in LABS:
        module = sys.modules.get(f"{PACKAGE}.{item.module}")
        for name, value in vars(module).items() if module else ():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                found[name] = value
    return found


def _raise_recorded(raised: dict[str, Any]) -> None:
    kind = getattr(errors, raised["classes"][0], None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        raise kind(raised["message"])
    raise RuntimeError(raised["message"])


def stand_in(function: str, answered: frozenset[int]) -> Callable[..., Any]:
    """Lab function ``function`` answering from the course's answers, the labs ``answered`` (its own included)
    answering so too (see the module's docstring)."""

    def answer(*args: Any, **kwargs: Any) -> Any:
        try:
            recorded = _answers()["calls"].get(call_key(function, args, kwargs))
        except wire().WireError:
            recorded = None
        if recorded is None:
            raise errors.UnrecordedCallError(lab_of(function), function.rpartition(".")[2])
        given = wire().to_wire([list(args), dict(kwargs)], "inputs", _named)
        yours = {
            index: _call_back(function, inner, (inner_args, inner_kwargs), inner_answer, (args, kwargs), given)
            for index, (inner, inner_args, inner_kwargs, inner_answer) in enumerate(recorded["inside"])
            if lab_of(inner) not in answered
        }
        if "raised" in recorded["answer"]:
            _raise_recorded(recorded["answer"]["raised"])
        result = wire().from_wire(recorded["answer"]["returned"], _dataclasses())
        for path, index, inner_path in recorded["shared"]:
            if index in yours and path:
                sharing.put(result, path, sharing.at(yours[index], inner_path))
        return result

    return answer


def _call_back(
    function: str, inner: str, sent: tuple[Any, Any], recorded: dict[str, Any], objects: tuple[Any, Any], given: Any
) -> Any:
    """Make a recorded call into a lab that is yours and return what it returned, on the caller's very objects
    where the inputs are those it got (so a change your code makes to them shows); its errors come through.
    ``CourseAnswerMismatch`` when it answers other than the reference did."""
    mine = [*objects[0], *objects[1].values()]
    theirs = [*given[0], *given[1].values()]

    def fed(value: Any) -> Any:
        found = [item for item, as_sent in zip(mine, theirs, strict=True) if same(as_sent, value)]
        return found[0] if found else wire().from_wire(value, _dataclasses())

    module, _, name = inner.rpartition(".")
    result = getattr(importlib.import_module(f"{PACKAGE}.{module}"), name)(
        *[fed(item) for item in sent[0]], **{key: fed(item) for key, item in sent[1].items()}
    )
    try:
        answered_alike = "returned" in recorded and same(wire().to_wire(result), recorded["returned"])
    except wire().WireError:
        answered_alike = False
    if not answered_alike:
        raise errors.CourseAnswerMismatch(
            say("answer_mismatch", lab=lab_of(function), function=function.rpartition(".")[2], inner=name)
        )
    return result


@contextlib.contextmanager
def answering(labs: Iterable[int]) -> Iterator[None]:
    """While inside, the lab functions of ``labs`` answer from the course's answers (``stand_in``)."""
    answered = frozenset(labs)
    with replaced(
        {function: stand_in(function, answered) for number in answered for function in lab_functions(number)}
    ):
        yield
