"""Hypothesis strategies: random valid active paths of whole interactions (labs 2, 3 and 5).

Each interaction is a user message, then assistant turns that may call several tools at once,
their results in any order (a result never before the assistant message that declares it
here, which the lab allows but does not require), and a closing assistant message.
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
    entries = [entry for number in range(count) for entry in draw(interaction(number))]
    for index, entry in enumerate(entries):
        entry["parentId"] = entries[index - 1]["id"] if index else None
        entry["timestamp"] = index
    return entries
