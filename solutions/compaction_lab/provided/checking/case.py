"""A case: one call of a lab function and what must come of it, as data; and the visible cases of every lab.

A ``Case`` names a notebook grade cell (``grade_id``), the function called (``module.function`` inside
``compaction_lab``), its inputs as wire values (``checking/wire.py``) and what must happen: either a return
value equal to the reference solution's, or an error of a named class whose message names given ids or field
paths (``checking/verdict.py`` decides). Every case also requires that the inputs are not changed by the call; a
case with ``copies`` requires that the result shares no list or dict with the inputs.

The visible cases of every lab, and the reference solutions' outcome of each, are ``visible.json`` beside this
module: the same cases the notebook's test cells, ``workbook check`` and the grader run. The course writes them
from its cases (the course author's ``labs/<module>/visible.py``); hidden cases never reach this package.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..labs import LABS

VISIBLE_FILE = Path(__file__).with_name("visible.json")
"""The visible cases as data: ``{"cases": [case, ...], "expected": {key: observation}}``."""


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

    def to_json(self) -> dict[str, Any]:
        """The case as plain JSON data (``from_json`` reads it back equal)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Case:
        """The case ``to_json`` wrote: lists back to tuples where a ``Case`` holds tuples."""
        naming = tuple(item if isinstance(item, str) else tuple(item) for item in data.get("naming", ()))
        return cls(
            **{**data, "args": tuple(data.get("args", ())), "parts": tuple(data.get("parts", ())), "naming": naming}
        )


EXTRA_CREDIT_GRADE_ID = re.compile(r"lab\d+_extra_")
"""The start of an extra-credit grade cell's id (``lab4_extra_boundary``): its notebook cell has nbgrader points 0
and ``workbook.extra_credit`` metadata (``tests/authoring/test_notebooks.py`` checks they agree)."""


def is_extra_credit(grade_id: str) -> bool:
    """True for an extra-credit grade cell's id (``EXTRA_CREDIT_GRADE_ID``)."""
    return bool(EXTRA_CREDIT_GRADE_ID.match(grade_id))


@functools.cache
def _visible() -> dict[str, Any]:
    return json.loads(VISIBLE_FILE.read_text(encoding="utf-8"))


def visible_cases(lab: int | None = None) -> tuple[Case, ...]:
    """The visible cases of every lab (or of ``lab``), in lab order, from ``visible.json``."""
    cases = tuple(Case.from_json(item) for item in _visible()["cases"])
    order = {item.number: index for index, item in enumerate(LABS)}
    chosen = [case for case in cases if lab is None or case.lab == lab]
    return tuple(sorted(chosen, key=lambda case: order.get(case.lab, len(order))))


def expected_observations() -> dict[str, dict[str, Any]]:
    """The reference's observation of every visible case, by ``Case.key`` (``visible.json``)."""
    return _visible()["expected"]
