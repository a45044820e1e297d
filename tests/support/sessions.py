"""Hypothesis strategies: random valid active paths of whole interactions (labs 2 to 5).

Each interaction is a user message, then assistant turns that may call several tools at once,
their results in any order (a result never before the assistant message that declares it
here, which the lab allows but does not require), and a closing assistant message. In a
``tool_heavy_path`` (lab 4's tool rounds), calls stay open across later turns instead.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from factories import assistant, result, user


@st.composite
def interaction(draw: st.DrawFn, number: int) -> list[dict[str, Any]]:
    """One interaction as parentless entries; ids are unique across interactions by ``number``."""
    entries = [user(f"u{number}", None, draw(st.text("ab ", max_size=40)))]
    for turn in range(draw(st.integers(0, 3))):
        calls = [f"c{number}-{turn}-{k}" for k in range(draw(st.integers(1, 3)))]
        entries.append(assistant(f"a{number}-{turn}", "", *calls))
        order = draw(st.permutations(calls))
        entries += [result(f"r{number}-{call}", "", call, draw(st.text("xy ", max_size=60))) for call in order]
    entries.append(assistant(f"a{number}-end", "", text=draw(st.text("cd ", max_size=80))))
    return entries


@st.composite
def active_path(draw: st.DrawFn, max_interactions: int = 6) -> list[dict[str, Any]]:
    """A linear active path: interactions chained by ``parentId``, timestamps increasing."""
    count = draw(st.integers(1, max_interactions))
    return _chained([entry for number in range(count) for entry in draw(interaction(number))])


@st.composite
def tool_heavy_interaction(draw: st.DrawFn, number: int) -> list[dict[str, Any]]:
    """One interaction whose calls stay open across later assistant turns: each step is a turn calling
    one or two tools, the result of any open call, or a plain answer; every call is answered before
    the interaction ends, so results interleave and nest across turns."""
    entries = [user(f"u{number}", None, draw(st.text("ab ", max_size=40)))]
    open_calls: list[str] = []
    for step in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(("call", "result", "answer")))
        if kind == "call":
            calls = [f"c{number}-{step}-{k}" for k in range(draw(st.integers(1, 2)))]
            entries.append(assistant(f"a{number}-{step}", "", *calls, text=draw(st.text("ef ", max_size=30))))
            open_calls += calls
        elif kind == "result" and open_calls:
            call = open_calls.pop(draw(st.integers(0, len(open_calls) - 1)))
            entries.append(result(f"r{number}-{call}", "", call, draw(st.text("xy ", max_size=60))))
        else:
            entries.append(assistant(f"a{number}-{step}", "", text=draw(st.text("cd ", max_size=80))))
    entries += [result(f"r{number}-{call}", "", call) for call in draw(st.permutations(open_calls))]
    return entries


@st.composite
def tool_heavy_path(draw: st.DrawFn, max_interactions: int = 4) -> list[dict[str, Any]]:
    """A linear active path of ``tool_heavy_interaction``s, chained by ``parentId``."""
    count = draw(st.integers(1, max_interactions))
    return _chained([entry for number in range(count) for entry in draw(tool_heavy_interaction(number))])


def _chained(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` linked into one path by ``parentId``, timestamps increasing."""
    for index, entry in enumerate(entries):
        entry["parentId"] = entries[index - 1]["id"] if index else None
        entry["timestamp"] = index
    return entries
