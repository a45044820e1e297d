"""The one rule that decides whether a case passed, from plain data: ``verdict``.

``verdict(case, observed, expected)`` compares what a lab function did (``wire.observe``'s report, made in the
notebook, in ``workbook check`` or in the grader's sandboxed runner) with what the reference solution did; the
grader's judge and the notebook's checks decide by this same function. ``same`` and ``first_difference`` compare
wire values; ``show`` writes one short and readable, and ``shown_pair`` two compared values, each cut to a readable
length around where they first differ (``cut``).
"""

from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass
from typing import Any

from .. import errors
from .case import Case
from .cut import cut


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
        failure = (
            f"called {case.call}, which changed its inputs{_where(observed.get('inputs_after'), sent)}; "
            "expected the inputs unchanged"
        )
    return Verdict(case.key, "failed", failure) if failure else Verdict(case.key, "passed")


def _error_failure(case: Case, observed: dict[str, Any]) -> str | None:
    raised = observed.get("raised")
    expected = case.expectation()
    if raised is None:
        got = "a value that is not data" if "unserializable" in observed else cut(show(observed.get("returned")))
        return f"called {case.call}, got {got} and no error, expected {expected}"
    name, message = _class_name(raised), raised["message"]
    if case.raises not in raised["classes"] or _also_another_course_error(case.raises, raised["classes"]):
        return f"called {case.call}, got {name}({SHORT.repr(message)}), expected {expected}"
    missing = [
        item
        for item in case.naming
        if not any(names(message, word) for word in ((item,) if isinstance(item, str) else item))
    ]
    if missing or len(named_bystanders(case, message)) > max(SPRAY_LIMIT, len(bystanders(case)) / 2):
        return f"called {case.call}, got {name}({SHORT.repr(message)}), expected {expected}"
    return None


SPRAY_LIMIT = 2
"""How many of the input's ids and paths that are not at fault an error message may name (more, and more than
half of them, and it names everything rather than what is wrong: an error spray)."""
ID_KEYS = frozenset({"id", "parentId", "firstKeptEntryId", "toolCallId"})
ID_ARGUMENTS = frozenset({"id", "first_kept_entry_id", "leaf_id"})
"""Keys (in entries) and keyword arguments whose string values are ids."""


def bystanders(case: Case) -> frozenset[str]:
    """The words of ``case``'s input that are not at fault: every id (values of ``ID_KEYS``, keyword arguments of
    ``ID_ARGUMENTS``), every keyword argument's name (``ratio``, ``window``) and every dotted key path two or more
    keys deep (``summary.goal``, ``message.role``, a keyword argument's own keys too; list items skipped, wire tags
    left out), less the words ``naming`` lists and the paths they lie on."""
    words: set[str] = set()
    _collect(list(case.args), "", words)
    words.update(
        value for key, value in case.kwargs.items() if key in ID_ARGUMENTS and isinstance(value, str) and value
    )
    words.update(key for key in case.kwargs if not key.startswith("$"))
    for key, value in case.kwargs.items():
        _collect(value, key, words)
    named = [word for item in case.naming for word in ((item,) if isinstance(item, str) else item)]
    return frozenset(
        word
        for word in words
        if not any(word == at or word.startswith(f"{at}.") or at.startswith(f"{word}.") for at in named)
    )


def _collect(value: Any, path: str, words: set[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _collect(item, path, words)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key.startswith("$"):
                continue  # a wire tag (an estimator, options), not the input's own key
            if key in ID_KEYS and isinstance(item, str) and item:
                words.add(item)
            deeper = f"{path}.{key}" if path else key
            if path:
                words.add(deeper)
            _collect(item, deeper, words)


def names(message: str, word: str) -> bool:
    """True when ``message`` names ``word`` as a whole word: not glued to letters, digits, ``_`` or ``-`` on either
    side (``u1`` is named by ``'u1':`` and by ``u1.parentId``, not by ``u10`` or ``u1_u2``), so a message that
    glues every word of its input together names none of them. A word ending in ``.`` is a path's beginning
    (``summary.`` is named by ``summary.goal``)."""
    end = "" if word.endswith(".") else r"(?![\w\-])"
    return re.search(rf"(?<![\w\-]){re.escape(word)}{end}", message) is not None


def named_bystanders(case: Case, message: str) -> list[str]:
    """The ``bystanders`` of ``case`` that ``message`` names, each as a whole word (``u1`` is not named by
    ``u10``, nor ``goal`` by ``summary.goal``)."""
    return sorted(
        word for word in bystanders(case) if re.search(rf"(?<![\w.\-]){re.escape(word)}(?![\w\-]|\.\w)", message)
    )


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


COURSE_ERRORS = frozenset(
    name
    for name, value in vars(errors).items()
    if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == errors.__name__
)
"""The names of the error classes ``provided.errors`` defines."""


def _value_failure(case: Case, observed: dict[str, Any], expected: dict[str, Any]) -> str | None:
    want = expected.get("returned")
    if "raised" in observed:
        raised = observed["raised"]
        return (
            f"called {case.call}, got {_class_name(raised)}({SHORT.repr(raised['message'])}), "
            f"expected {cut(show(want))}"
        )
    if "unserializable" in observed:
        return (
            f"called {case.call}, got a value that is not plain data ({observed['unserializable']}), "
            f"expected {cut(show(want))}"
        )
    got = observed.get("returned")
    for part in case.parts or ("",):
        got_part, want_part = extract(got, part), extract(want, part)
        found = first_difference(got_part, want_part)
        if found:
            where, got_value, want_value = found
            path = f".{part}" if part else ""
            if where and not where.endswith(" length"):
                path, got_part, want_part = f"{path}{where}", got_value, want_value
            got_shown, want_shown = shown_pair(got_part, want_part)
            got_text = f"{path} = {got_shown}" if path else got_shown
            return f"called {case.call}, got {got_text}, expected {want_shown}"
    if case.copies and observed.get("shared"):
        return (
            f"called {case.call}, got a result whose {observed['shared'][0]} is an object of its inputs, "
            "expected deep copies"
        )
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
    got_shown, want_shown = shown_pair(a, b)
    return f" (first difference at {path}: got {got_shown}, expected {want_shown})"


def show(value: Any) -> str:
    """A short, readable form of a wire value: dataclasses as ``Name(field=...)``, tags as Python values."""
    return SHORT.repr(_readable(value))


def shown_pair(got: Any, want: Any) -> tuple[str, str]:
    """``show`` of two compared wire values, each cut to at most ``cut.VALUE_CHARS`` characters around the first
    character where the two differ, marked there (``cut.cut``)."""
    got_text, want_text = show(got), show(want)
    return cut(got_text, want_text), cut(want_text, got_text)


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
