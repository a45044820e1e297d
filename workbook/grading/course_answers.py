"""The course's answers recorded from the reference: the text of a package's ``provided/checking/answers.json``.

Every lab function of every lab is wrapped (``answers.replaced``) while the reference runs each visible case of a
lab that uses others, and each explorer's drawing at the settings it opens with. A call of a function of a lab
the running lab uses is recorded under its key (``answers.call_key``) with what it returned or raised, and with
the calls it made directly into other labs' functions (what a stand-in calls back when such a lab is the
student's). Nothing else is recorded: ``compaction_lab.provided.checking.answers`` says why this reveals nothing
beyond the visible expected values. ``python -m workbook.authoring.casefile`` writes the file beside
``visible.json``; ``--check`` fails when it is stale.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workbook.grading.casebook import load_cases
from workbook.grading.reference import import_reference
from workbook.grading.stubs import stub
from workbook.paths import LAB_CASES

from ..manifest import LABS

ANSWERS_JSON = Path("provided") / "checking" / "answers.json"
"""Where a package holds the course's answers, relative to the package folder."""


class _Recorder:
    """The calls seen while a lab of ``uses`` runs: ``calls`` by key, and the stack of calls under way."""

    def __init__(self) -> None:
        self.calls: dict[str, dict[str, Any]] = {}
        self.uses: frozenset[int] = frozenset()
        self.stack: list[_Call] = []

    def wrap(self, function: str, original: Callable[..., Any]) -> Callable[..., Any]:
        from compaction_lab.provided.checking import answers, wire

        @functools.wraps(original)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            try:
                key = answers.call_key(function, args, kwargs)
                sent = json.loads(key)[1]
            except wire.WireError:  # an input that is not data is never answered: nothing to record
                key = sent = None
            call = _Call(function, key, sent)
            self.stack.append(call)
            try:
                result = original(*args, **kwargs)
            except Exception as error:
                self._note(call, {"raised": wire.raised(error)}, None)
                raise
            try:
                answer = {"returned": wire.to_wire(result)}
            except wire.WireError:  # a result that is not data (options holding a function): not recorded
                call.key = None
                answer = {}
            self._note(call, answer, result)
            return result

        return recorded

    def _note(self, call: _Call, answer: dict[str, Any], result: Any) -> None:
        from compaction_lab.provided.checking import sharing
        from compaction_lab.provided.checking.answers import lab_of

        self.stack.pop()
        if call.key is None:
            return
        if lab_of(call.function) in self.uses:
            self.calls[call.key] = {
                "answer": answer,
                "inside": call.inside,
                "shared": sharing.shared(result, call.results) if "returned" in answer else [],
            }
        if self.stack and lab_of(self.stack[-1].function) != lab_of(call.function):
            self.stack[-1].inside.append([call.function, call.sent[0], call.sent[1], answer])
            self.stack[-1].results.append(result)


@dataclasses.dataclass
class _Call:
    """A call under way: its function, key and inputs as sent, and the calls it made into other labs (``inside``,
    as recorded, with what each returned, ``results``)."""

    function: str
    key: str | None
    sent: Any
    inside: list[Any] = dataclasses.field(default_factory=list)
    results: list[Any] = dataclasses.field(default_factory=list)


def functions_by_lab() -> dict[str, list[str]]:
    """Each lab's lab functions (``workbook.grading.stubs``: those its starter leaves to the student)."""
    return {str(lab.number): list(stub(lab.module).forwarded) for lab in LABS}


@contextmanager
def _recording(recorder: _Recorder) -> Iterator[None]:
    from compaction_lab.provided.checking.answers import replaced

    wrapped = {}
    for functions in functions_by_lab().values():
        for function in functions:
            module, _, name = function.rpartition(".")
            wrapped[function] = recorder.wrap(
                function, getattr(importlib.import_module(f"compaction_lab.{module}"), name)
            )
    with replaced(wrapped):
        yield


def _explorer_drawings() -> dict[int, list[Callable[[], Any]]]:
    """Each explorer's drawing at the settings it opens with, by lab (every path of a chooser)."""
    from compaction_lab.provided.notebook import explorers

    return {
        3: [functools.partial(explorers.budget_view, **explorers.BUDGET_OPENS_AT)],
        4: [functools.partial(explorers.compaction_view, **explorers.COMPACTION_OPENS_AT)],
        5: [
            functools.partial(explorers.resumption_view, path, explorers.RESUMPTION_OPENS_AT)
            for path in explorers.resumption_cases().values()
        ],
    }


def answers_text(cases: Path = LAB_CASES) -> str:
    """The text of a package's ``answers.json``: the reference's answers recorded on the visible cases of
    ``cases`` and on the explorers (see the module's docstring)."""
    import_reference()
    from compaction_lab.provided.checking import wire

    visible = load_cases(cases, "visible")
    drawings = _explorer_drawings()
    recorder = _Recorder()
    with _recording(recorder):
        for lab in LABS:
            recorder.uses = frozenset(lab.uses)
            for case in visible:
                if case.lab == lab.number and lab.uses:
                    wire.observe(case.function, list(case.args), dict(case.kwargs))
            for drawing in drawings.get(lab.number, []):
                drawing()
    # the calls sorted by key; each answer as the reference returned it (a lab may depend on the order of keys)
    data = {"functions": functions_by_lab(), "calls": dict(sorted(recorder.calls.items()))}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_answers_file(package: Path, cases: Path = LAB_CASES) -> Path:
    """Write ``answers_text(cases)`` into the package folder ``package``; return the file."""
    target = Path(package) / ANSWERS_JSON
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(answers_text(cases), encoding="utf-8")
    return target
