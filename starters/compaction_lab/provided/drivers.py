"""Lab functions called the way their callers use them, for the cases (``provided/cases``).

A case calls one function on wire inputs and compares what comes back. Some behaviours only show when
a caller does more than one call: appends what a lab returned to a store, or changes a result and
builds again. Each driver here does exactly that and returns plain data (ids, contexts), so the case
compares it with the reference solutions' like any other result. The lab functions are looked up when
a driver runs, so it always calls the module as it is now.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import budget, compaction
from ..records import Entry
from .stores import InMemorySessionStore, path_to

CHANGED = "changed by the caller"
"""What ``rebuild_context_after_changes`` writes into the first context's messages."""


def append_compaction(entries: list[Entry], **arguments: Any) -> list[str]:
    """Lab 4 as its caller uses it: ``create_compaction_entry(entries, **arguments)``, then ``entries`` and
    the new entry appended in order to a new ``InMemorySessionStore``. Returns the ids of the store's path
    from the root to the new entry (``path_to``, ``arguments["id"]``). Raises what the lab or the store
    raises (``SessionEntryError`` for a malformed entry, ``SessionStoreError`` for an unknown parent)."""
    entry = compaction.create_compaction_entry(entries, **arguments)
    store = InMemorySessionStore()
    for item in [*entries, entry]:
        store.append(item)
    return [item["id"] for item in path_to(store.entries(), arguments["id"])]


def rebuild_context_after_changes(active_path: list[Entry], options: budget.BudgetOptions) -> dict[str, Any]:
    """``build_context(active_path, options)`` twice; between the two builds the caller writes into every
    message of the first context (each string content and text block, and every tool call's arguments).
    Returns ``{"first": the first context as built, "second": the second context}``: equal, and equal to
    a single build, when nothing the caller holds is shared with the path or with what the next build uses."""
    first = budget.build_context(active_path, options)
    as_built = copy.deepcopy(first)
    for message in first.messages:
        _write_into(message)
    return {"first": as_built, "second": budget.build_context(active_path, options)}


def _write_into(message: dict[str, Any]) -> None:
    """Change a message in place, as a careless caller would."""
    if isinstance(message.get("content"), str):
        message["content"] = CHANGED
        return
    for block in message.get("content", []):
        if block.get("type") == "text":
            block["text"] = CHANGED
        elif block.get("type") == "toolCall":
            block["arguments"][CHANGED] = True
