"""Groups of students sharing one implementation: three or more joined by flagged pairs, shown as one."""

from __future__ import annotations

from collections.abc import Iterable

SMALLEST = 3
"""A group has at least this many students; two are a pair."""


def clusters(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The connected components of the graph whose edges are ``pairs`` (student names) with at least
    ``SMALLEST`` students, each sorted, largest first (then by name)."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]  # path halving keeps the trees flat
            name = parent[name]
        return name

    for first, second in pairs:
        parent[root(first)] = root(second)
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(root(name), []).append(name)
    found = [tuple(sorted(group)) for group in groups.values() if len(group) >= SMALLEST]
    return sorted(found, key=lambda group: (-len(group), group))
