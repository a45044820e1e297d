"""Lab 4, compaction creation: make a new compaction entry for the caller to append.

A compaction replaces nothing. It is a new entry at the end of the active path that says:
"from here on, show this summary instead of everything before ``firstKeptEntryId``". Its
parent is the path's last entry, and it may only keep from the first message of an
interaction, so a kept suffix never starts between a tool call and its result. It must
compact something: keeping from the first message the context is built from would only add
a summary. This module writes no store: the caller appends the returned entry.
"""

from __future__ import annotations

from typing import Any

from .grouping import group_interactions
from .provided.errors import CompactionError
from .records import Entry, parse_session_entry
from .resumption import resume_point


def create_compaction_entry(
    active_path: list[Entry],
    *,
    id: str,  # the wire format's own name for the new entry's id
    timestamp: float,
    summary: dict[str, Any],
    first_kept_entry_id: str,
    tokens_before: float,
) -> Entry:
    """Lab 4: return a new, parsed compaction entry whose parent is the path's last entry.

    ``first_kept_entry_id`` must be the first message of an interaction among the messages
    the current context is built from (after a compaction: from its first kept entry on), and
    not of the first such interaction: a compaction must compact something. Raises
    ``CompactionError`` naming the id for an empty path, an ``id`` already on the path or a
    first kept entry that does not start such a later interaction; ``SessionEntryError`` for
    a malformed summary or ``tokens_before``. Shares nothing with its inputs; touches no store.
    """
    # BEGIN LAB 4
    # Step 1: the parent comes from the path, never from the caller.
    if not active_path:
        raise CompactionError(f"compaction {id!r}: the active path is empty; there is nothing to compact")
    if any(entry["id"] == id for entry in active_path):
        raise CompactionError(f"compaction {id!r}: id already on the active path")
    # Step 2: keep from the start of an interaction of the current context, but not its first one.
    interactions = group_interactions(resume_point(active_path).entries)
    starts = [interaction[0]["id"] for interaction in interactions]
    if starts[:1] == [first_kept_entry_id]:
        raise CompactionError(
            f"compaction {id!r}: first kept entry {first_kept_entry_id!r} is where the current context "
            f"already starts, so nothing would be compacted (choose one of {starts[1:]})"
        )
    if first_kept_entry_id not in starts:
        raise CompactionError(
            f"compaction {id!r}: first kept entry {first_kept_entry_id!r} does not start an interaction "
            f"of the current context (choose one of {starts[1:]})"
        )
    # Step 3: the parser checks every field and copies it.
    return parse_session_entry({
        "type": "compaction", "id": id, "parentId": active_path[-1]["id"], "timestamp": timestamp,
        "summary": summary, "firstKeptEntryId": first_kept_entry_id, "tokensBefore": tokens_before,
    })
    # END LAB 4
