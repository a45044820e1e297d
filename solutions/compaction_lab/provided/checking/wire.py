"""Plain data in and out of a lab function: how a case's inputs reach it and how what it did is reported.

A case (``provided/checking``) names a function and its inputs as *wire* values: JSON types, plus a few
tagged objects for what JSON cannot say (``{"$float": "nan"}``, ``{"$tuple": [...]}``, budget options
with a named estimator, the dataclasses of ``input_dataclasses()`` by their fields). ``observe`` decodes
the inputs, calls the function and reports, again as wire values, what came back or what was raised,
the inputs after the call (were they changed?) and which returned lists or dicts are the very objects
passed in (shared).

The conversion is strict: only ``None``, ``bool``, ``int``, ``float``, ``str``, ``list``, ``tuple``,
``dict`` with string keys and dataclass instances (by their fields) are data, checked by exact type,
never ``isinstance``. Anything else (an object with a rigged ``__eq__``, a ``dict`` subclass) is
reported as unserializable and earns nothing. The same code runs in the notebook (your checks), in
``workbook check`` and in the grader's sandboxed runner; the verdict is then decided from this data.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable
from typing import Any

from ... import budget as budget_lab  # the module, looked up when used: see input_dataclasses
from ..example import estimate_example_tokens

MAX_DEPTH = 64
"""Nesting deeper than this is not data a lab returns: reported as unserializable."""
MAX_NODES = 200_000
"""More values than this in one result is not data a lab returns: reported as unserializable."""
MAX_MESSAGE = 2_000
"""Characters of an exception message that are kept."""


def input_dataclasses() -> dict[str, type]:
    """Dataclasses a case may pass as an input, written as ``to_wire`` writes them: ``{"$dataclass": name,
    "fields": {...}}``. Looked up when used, not bound at import: once autoreload reloads ``budget.py`` on a
    save, a class bound here would be the old one, which the student's new code no longer accepts."""
    return {"CachePolicy": budget_lab.CachePolicy}


_type, _len, _id, _str, _isnan = type, len, id, str, math.isnan  # bound before any student code runs


class WireError(ValueError):
    """A value cannot be converted to wire data; the message names the path and the type."""


def to_wire(value: Any, root: str = "result", function: Callable[[Any], Any] | None = None) -> Any:
    """Convert ``value`` to wire data (JSON types and tags); ``WireError`` naming the path (from ``root``)
    otherwise. With ``function``, a callable that is not data (an estimator no case named) is written as
    ``function(it)`` returns it (``provided/relay.py``: a function called back where it lives)."""
    budget = [MAX_NODES]
    return _encode(value, root, 0, budget, function)


def _encode(value: Any, path: str, depth: int, budget: list[int], function: Callable[[Any], Any] | None) -> Any:
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise WireError(f"{path}: too large or too deeply nested")
    kind = _type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        if _isnan(value):
            return {"$float": "nan"}
        if value in (math.inf, -math.inf):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if kind is list:
        return [_encode(item, f"{path}[{index}]", depth + 1, budget, function) for index, item in enumerate(value)]
    if kind is tuple:
        return {
            "$tuple": [
                _encode(item, f"{path}[{index}]", depth + 1, budget, function) for index, item in enumerate(value)
            ]
        }
    if kind is dict:
        if any(_type(key) is not str for key in value):
            raise WireError(f"{path}: a dict key that is not a string")
        items = {key: _encode(item, f"{path}[{key!r}]", depth + 1, budget, function) for key, item in value.items()}
        return {"$dict": items} if any(key.startswith("$") for key in items) else items
    if kind is budget_lab.BudgetOptions:
        fields = {field.name: object.__getattribute__(value, field.name) for field in dataclasses.fields(kind)}
        estimate = fields.pop("estimate_tokens")
        spec = getattr(estimate, "wire_spec", None)
        if spec is None and function is None:
            raise WireError(f"{path}.estimate_tokens: an estimator that no case named")
        if spec is None:  # a function called back where it lives (``provided/relay.py``)
            return {"$options": {**_encode(fields, path, depth + 1, budget, function), "estimator": function(estimate)}}
        return {"$options": _encode({**fields, "estimator": spec}, path, depth + 1, budget, function)}
    if dataclasses.is_dataclass(kind):
        fields = {
            field.name: _encode(
                object.__getattribute__(value, field.name), f"{path}.{field.name}", depth + 1, budget, function
            )
            for field in dataclasses.fields(kind)
        }
        return {"$dataclass": kind.__name__, "fields": fields}
    if function is not None and callable(value):
        return function(value)
    raise WireError(
        f"{path}: a {kind.__name__} is not data (expected dict, list, str, number, bool, None or a dataclass)"
    )


def from_wire(value: Any, classes: dict[str, type] | None = None, function: Callable[[Any], Any] | None = None) -> Any:
    """Build fresh Python objects from wire data (the inverse of ``to_wire`` for inputs). ``classes``: the
    dataclasses a ``$dataclass`` may name (``input_dataclasses()`` by default), each built from the fields it
    takes (others are dropped); with ``function``, a ``{"$callback": number}`` becomes ``function(number)``
    (``provided/relay.py``)."""
    if isinstance(value, list):
        return [from_wire(item, classes, function) for item in value]
    if not isinstance(value, dict):
        return value
    if "$float" in value:
        return float(value["$float"])
    if "$tuple" in value:
        return tuple(from_wire(item, classes, function) for item in value["$tuple"])
    if "$dict" in value:
        return {key: from_wire(item, classes, function) for key, item in value["$dict"].items()}
    if "$options" in value:
        fields = from_wire(value["$options"], classes, function)
        estimate = fields.pop("estimator")
        return budget_lab.BudgetOptions(
            estimate_tokens=estimate if callable(estimate) else estimator(estimate), **fields
        )
    if "$dataclass" in value:
        # Only the fields the class here takes: a student's class may carry more (the reference reads its own).
        kind = (classes or input_dataclasses())[value["$dataclass"]]
        fields = from_wire(value["fields"], classes, function)
        taken = {field.name for field in dataclasses.fields(kind) if field.init}
        return kind(**{name: item for name, item in fields.items() if name in taken})
    if "$callback" in value and function is not None:
        return function(value["$callback"])
    return {key: from_wire(item, classes, function) for key, item in value.items()}


def options(
    max_tokens: Any = 31,
    system_prompt: Any = "sys",
    reserved_output: Any = 4,
    safety_margin: Any = 2,
    estimator: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Budget options as a wire value (the example's by default): ``BudgetOptions`` with a named estimator."""
    fields = {
        "max_tokens": max_tokens,
        "system_prompt": system_prompt,
        "reserved_output": reserved_output,
        "safety_margin": safety_margin,
        "estimator": estimator or {"name": "example"},
    }
    return {"$options": to_wire(fields)}


def policy(headroom: Any = 0.0, summary_at: Any = "first_message") -> dict[str, Any]:
    """A ``CachePolicy`` (lab 3's ``replay``) as a wire value."""
    return {"$dataclass": "CachePolicy", "fields": {"headroom": to_wire(headroom), "summary_at": summary_at}}


def estimator(spec: dict[str, Any]) -> Callable[[Any], Any]:
    """The estimator a case names: ``example`` (the example's), ``constant`` (always ``value``),
    ``messages_at`` (the prompt at the example's price, every message at ``value``), ``changes_its_argument``
    (the example's price, then it writes into the message it was given). The function carries its ``spec``
    as ``wire_spec``, so options report as they were sent. ``ValueError`` for another name."""
    name, value = spec["name"], spec.get("value")

    def estimate(item: Any) -> Any:
        if name == "constant":
            return value
        if name == "messages_at" and not isinstance(item, str):
            return value
        tokens = estimate_example_tokens(item)
        if name == "changes_its_argument" and isinstance(item, dict):
            item["content"] = "changed by the estimator"
        return tokens

    if name not in ("example", "constant", "messages_at", "changes_its_argument"):
        raise ValueError(f"unknown estimator {name!r}")
    estimate.wire_spec = spec
    return estimate


def resolve(function: str) -> Callable[..., Any]:
    """The callable named ``module.function`` (or ``provided.module.function``) inside ``compaction_lab``."""
    module, _, name = function.rpartition(".")
    return getattr(importlib.import_module(f"compaction_lab.{module}"), name)


def observe(function: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Call the function named ``function`` (``resolve``) on fresh objects decoded from wire ``args`` and
    ``kwargs``, and report, as wire data:

    ``{"returned": value}`` or ``{"raised": {"classes": [the error's class and base class names],
    "message": str}}`` or ``{"unserializable": why}``, plus ``"inputs_after"`` (``[args, kwargs]`` after
    the call, to compare with what was sent) and ``"shared"`` (paths of returned lists and dicts that are
    objects of the inputs). A function that cannot be imported is reported as raised. ``KeyboardInterrupt``
    is not caught.
    """
    call_args, call_kwargs = from_wire(args), from_wire(kwargs)
    inputs = [call_args, call_kwargs]
    report: dict[str, Any] = {}
    try:
        result = resolve(function)(*call_args, **call_kwargs)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 (the student's error is what is reported)
        report["raised"] = raised(error)
    else:
        try:
            report["returned"] = to_wire(result)
            report["shared"] = shared_paths(result, inputs)
        except WireError as error:
            report["unserializable"] = _str(error)
    try:
        report["inputs_after"] = to_wire(inputs)
    except WireError as error:
        report["inputs_after"] = {"$unserializable": _str(error)}
    return report


def raised(error: BaseException) -> dict[str, Any]:
    """What ``observe`` reports of ``error``: ``{"classes": [its class and base class names], "message": str}``."""
    return {"classes": [cls.__name__ for cls in _type(error).__mro__], "message": _message(error)}


def _message(error: BaseException) -> str:
    try:
        text = _str(error)
    except BaseException:  # noqa: BLE001 (a broken __str__ is reported, not raised)
        text = "<the error's message could not be read>"
    return text if _type(text) is str and _len(text) <= MAX_MESSAGE else _str(text)[:MAX_MESSAGE]


def shared_paths(result: Any, inputs: Any) -> list[str]:
    """Paths inside ``result`` of lists and dicts that are also objects inside ``inputs`` (identity)."""
    inside = {_id(item) for item in _containers(inputs, "inputs")[0]}
    found, paths = _containers(result, "result")
    return [path for item, path in zip(found, paths, strict=True) if _id(item) in inside]


def _containers(value: Any, root: str) -> tuple[list[Any], list[str]]:
    found: list[Any] = []
    paths: list[str] = []
    stack = [(value, root)]
    while stack:
        item, path = stack.pop()
        kind = _type(item)
        if kind is dict:
            found.append(item)
            paths.append(path)
            stack.extend((child, f"{path}[{key!r}]") for key, child in item.items())
        elif kind is list or kind is tuple:
            if kind is list:
                found.append(item)
                paths.append(path)
            stack.extend((child, f"{path}[{index}]") for index, child in enumerate(item))
        elif dataclasses.is_dataclass(kind):
            stack.extend(
                (object.__getattribute__(item, field.name), f"{path}.{field.name}")
                for field in dataclasses.fields(kind)
            )
    return found, paths
