"""Drivers: lab functions played through a short scenario the way their callers use them, for the cases.

A case (``provided/cases``) is one call whose result is plain data. Some behaviours only show when a
caller does more than one call: a store appends, hands out copies, closes and opens again; a compaction
entry is appended to a store; a caller changes a context and builds again. Each driver here runs such a
scenario on fresh copies of its arguments (the case's inputs stay unchanged) and returns what it saw as
plain data, or lets the error through. The stores parse every entry with ``parse_session_entry``, so a
compaction entry reaches your ``parse_compaction_entry``; the lab functions are looked up when a driver
runs, so it always calls the module as it is now.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

from .. import budget, compaction
from ..records import Entry
from .stores import InMemorySessionStore, JsonlSessionStore, path_to

CHANGED = "changed by the caller"
"""What ``scribble`` writes into a caller's objects."""


def scribble(value: Any) -> None:
    """Change ``value`` in place as a careless caller might: every string held in a dict becomes
    ``CHANGED`` and every list, at any depth, gets ``CHANGED`` appended."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                value[key] = CHANGED
            else:
                scribble(item)
    elif isinstance(value, list):
        for item in value:
            scribble(item)
        value.append(CHANGED)


def in_memory_store(entries: list[Entry]) -> dict[str, Any]:
    """Append copies of ``entries``, in order, to a new ``InMemorySessionStore`` and report what it
    then hands out about the last entry appended.

    Returns ``{"ids": [the store's entry ids, in append order], "last": store.get(last id),
    "last_after_changes": store.get(last id) again after the caller scribbled (``scribble``) on both
    the object it appended and another copy that ``get`` handed out, "path_to_last": [the ids of
    path_to(store.entries(), last id)]}``. ``SessionEntryError`` (a malformed entry) and
    ``SessionStoreError`` (an id appended twice, an unknown parent) come through from ``append``.
    """
    appended = copy.deepcopy(entries)
    store = InMemorySessionStore()
    for entry in appended:
        store.append(entry)
    last_id = appended[-1]["id"]
    last = store.get(last_id)
    scribble(store.get(last_id))
    scribble(appended[-1])
    return {"ids": entry_ids(store.entries()), "last": last, "last_after_changes": store.get(last_id),
            "path_to_last": entry_ids(path_to(store.entries(), last_id))}


def jsonl_reopen(entries: list[Entry]) -> dict[str, Any]:
    """Append copies of ``entries``, in order, to a new ``JsonlSessionStore`` in a temporary folder,
    then open the same file again as a second store and report what the reopened store holds.

    Returns ``{"entries": reopened.entries(), "read_only": reopened.read_only, "lines": the number of
    lines in the file}``; the folder is removed before returning. Errors of ``append`` or of reopening
    (``SessionEntryError``, ``SessionStoreError``) come through.
    """
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "session.jsonl"
        store = JsonlSessionStore(file)
        for entry in copy.deepcopy(entries):
            store.append(entry)
        reopened = JsonlSessionStore(file)
        return {"entries": reopened.entries(), "read_only": reopened.read_only,
                "lines": len(file.read_text(encoding="utf-8").splitlines())}


def append_compaction(entries: list[Entry], **arguments: Any) -> list[str]:
    """Lab 4 as its caller uses it: ``create_compaction_entry(entries, **arguments)``, then ``entries`` and
    the new entry appended in order to a new ``InMemorySessionStore``. Returns the ids of the store's path
    from the root to the new entry (``path_to``, ``arguments["id"]``). Raises what the lab or the store
    raises (``SessionEntryError`` for a malformed entry, ``SessionStoreError`` for an unknown parent)."""
    entry = compaction.create_compaction_entry(entries, **arguments)
    store = InMemorySessionStore()
    for item in [*entries, entry]:
        store.append(item)
    return entry_ids(path_to(store.entries(), arguments["id"]))


def rebuild_context_after_changes(active_path: list[Entry], options: budget.BudgetOptions) -> dict[str, Any]:
    """``build_context(active_path, options)`` twice; between the two builds the caller scribbles on every
    message of the first context (``scribble``). Returns ``{"first": the first context as built, "second":
    the second context}``: equal, and equal to a single build, when nothing the caller holds is shared with
    the path or with what the next build uses."""
    first = budget.build_context(active_path, options)
    as_built = copy.deepcopy(first)
    scribble(first.messages)
    return {"first": as_built, "second": budget.build_context(active_path, options)}


def entry_ids(entries: list[Entry]) -> list[str]:
    """The ids of ``entries``, in order."""
    return [entry["id"] for entry in entries]
