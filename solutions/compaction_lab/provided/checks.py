"""Assertions for the notebooks' autograder tests: a failure says what was called, what came
back and what was expected, in one sentence.

``LabNotImplementedError`` always passes through untouched, so a test of an unwritten lab stops
with the lab's own message. Any other unexpected exception becomes an ``AssertionError`` that
names the call and chains the original (its traceback stays visible).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from typing import Any

from .errors import LabNotImplementedError

SHORT = reprlib.Repr()
"""Shortens the values a failure message shows; the first difference is always shown in full."""
SHORT.maxlevel, SHORT.maxlist, SHORT.maxdict, SHORT.maxstring, SHORT.maxother = 3, 8, 8, 80, 80


def expect(actual: Any, expected: Any, call: str) -> None:
    """Raise ``AssertionError`` ("called <call>, got <actual>, expected <expected>") unless equal.

    Long values are shortened; the message then adds where they first differ, e.g.
    ``first difference at [0]['content']: got 'x', expected 'y'``.
    """
    if actual == expected:
        return
    message = f"called {call}, got {SHORT.repr(actual)}, expected {SHORT.repr(expected)}"
    where = _first_difference(actual, expected)
    if where is not None and where[0]:
        path, got, wanted = where
        message += f" (first difference at {path}: got {got!r}, expected {wanted!r})"
    raise AssertionError(message)


def _first_difference(actual: Any, expected: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The index/key path of the first difference between two values and the two values there."""
    if actual == expected:
        return None
    if isinstance(actual, dict) and isinstance(expected, dict):
        for key in [*expected, *(key for key in actual if key not in expected)]:
            if key not in actual or key not in expected:
                return f"{path}[{key!r}]", actual.get(key, "<missing>"), expected.get(key, "<missing>")
            found = _first_difference(actual[key], expected[key], f"{path}[{key!r}]")
            if found:
                return found
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)) and type(actual) is type(expected):
        for index, (got, wanted) in enumerate(zip(actual, expected, strict=False)):
            found = _first_difference(got, wanted, f"{path}[{index}]")
            if found:
                return found
        return f"{path} length", len(actual), len(expected)
    return path, actual, expected


def expect_error(error: type[Exception], call: str, function: Callable[..., Any], *args: Any,
                 naming: tuple[str, ...] = (), **kwargs: Any) -> None:
    """Call ``function(*args, **kwargs)``, which must raise ``error``.

    The error's message must contain every word of ``naming`` (an entry id, a call id, a field
    path). No error, another error or a message missing a word raise ``AssertionError``.
    """
    expected = f"{error.__name__}" + (f" naming {', '.join(map(repr, naming))}" if naming else "")
    try:
        result = function(*args, **kwargs)
    except LabNotImplementedError:
        raise
    except error as raised:
        missing = [word for word in naming if word not in str(raised)]
        if missing:
            raise AssertionError(
                f"called {call}, got {error.__name__}({str(raised)!r}) without {missing}, expected {expected}"
            ) from raised
        return
    except Exception as raised:
        raise AssertionError(
            f"called {call}, got {type(raised).__name__}({str(raised)!r}), expected {expected}"
        ) from raised
    raise AssertionError(f"called {call}, got {SHORT.repr(result)} and no error, expected {expected}")


def expect_shares_nothing(result: Any, source: Any, call: str) -> None:
    """Raise ``AssertionError`` if a dict or list inside ``result`` is also inside ``source``
    (the result must be a deep copy: changing it must never reach the caller's data)."""
    inside_source = {id(item) for item in _containers(source)}
    shared = [item for item in _containers(result) if id(item) in inside_source]
    if shared:
        raise AssertionError(
            f"called {call}, got a result that shares {SHORT.repr(shared[0])} with its input, expected deep copies"
        )


def entry_ids(entries: list[dict[str, Any]]) -> list[str]:
    """The ids of ``entries``, in order."""
    return [entry["id"] for entry in entries]


def group_ids(groups: list[list[dict[str, Any]]]) -> list[list[str]]:
    """The entry ids of each group, in order."""
    return [entry_ids(group) for group in groups]


def _containers(value: Any) -> list[Any]:
    """Every dict and list reachable from ``value`` (including ``value`` itself)."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(vars(item).values())
    return found
