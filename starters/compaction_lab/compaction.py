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
from .provided.errors import CompactionError, LabNotImplementedError
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
    # Step 1: the parent comes from the path, never from the caller.
    # Step 2: keep from the start of an interaction of the current context, but not its first one.
    # Step 3: the parser checks every field and copies it.
    raise LabNotImplementedError(4, "create_compaction_entry")
