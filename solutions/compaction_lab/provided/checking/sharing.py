"""Which lists and dicts of one value are objects of others, by path, and putting such objects back in place.

A recorded answer (``answers.py``) is plain data, but a reference function may hand back an object it got from a
call into your code (``build_context`` returns the very summary message your ``resume_point`` made). Recording
notes each such object by its path; replaying puts your object back at that path, so a change to one shows in the
other as it would with the reference. A path is a list of steps: a dict key or dataclass field (a string) or a
list or tuple index (an int).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

Path = list[str | int]


def containers(value: Any, path: Path | None = None) -> Iterator[tuple[Path, Any]]:
    """Every list and dict inside ``value`` (itself included) with its path, outermost first, through dicts,
    lists, tuples and dataclass fields."""
    path = path or []
    kind = type(value)
    if kind is dict or kind is list:
        yield path, value
    if kind is dict:
        for key, item in value.items():
            yield from containers(item, [*path, key])
    elif kind is list or kind is tuple:
        for index, item in enumerate(value):
            yield from containers(item, [*path, index])
    elif dataclasses.is_dataclass(kind):
        for field in dataclasses.fields(kind):
            yield from containers(object.__getattribute__(value, field.name), [*path, field.name])


def shared(result: Any, others: list[Any]) -> list[list[Any]]:
    """``[path in result, index of the other value, path in it]`` for each outermost list or dict of ``result``
    that is an object of ``others[index]``."""
    where = {id(item): [index, path] for index, other in enumerate(others) for path, item in containers(other)}
    found: list[list[Any]] = []
    for path, item in containers(result):
        if id(item) in where and not any(path[: len(done[0])] == done[0] for done in found):
            found.append([path, *where[id(item)]])
    return found


def at(value: Any, path: Path) -> Any:
    """The object at ``path`` inside ``value``."""
    for step in path:
        value = object.__getattribute__(value, step) if dataclasses.is_dataclass(type(value)) else value[step]
    return value


def put(value: Any, path: Path, item: Any) -> None:
    """Put ``item`` at ``path`` (not empty) inside ``value``: a dict's key, a list's index or a dataclass's field
    (frozen or not); ``TypeError`` for a place inside a tuple."""
    parent, step = at(value, path[:-1]), path[-1]
    if dataclasses.is_dataclass(type(parent)):
        object.__setattr__(parent, str(step), item)
    elif type(parent) is tuple:
        raise TypeError(f"cannot put an object inside a tuple at {path!r}")
    else:
        parent[step] = item
