"""Lab 5, repeated resumption: where a context starts when the path holds compactions.

A compaction never changes old entries; it is appended, and only the latest one on the
active path counts. A resumed context is the latest summary as one synthetic user message,
then the raw messages from that compaction's first kept entry on (metadata and every
compaction entry skipped). ``build_context`` (lab 3) budgets what this module returns.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .provided.errors import CompactionError
from .records import SUMMARY_FIELDS, Entry

SUMMARY_HEADINGS: dict[str, str] = {
    "goal": "Goal",
    "constraints": "Constraints",
    "completed": "Completed",
    "decisions": "Decisions",
    "changedFiles": "Changed files",
    "unresolved": "Unresolved",
    "next": "Next",
}
"""How each summary field is headed in the synthetic message, in ``SUMMARY_FIELDS`` order."""


@dataclass(frozen=True)
class ResumePoint:
    """Where a context starts: ``compaction_id`` and ``summary_message`` are ``None`` without a
    compaction; ``entries`` are the raw message entries (deep copies) to group and budget."""

    compaction_id: str | None
    summary_message: dict[str, Any] | None
    entries: list[Entry]


def summary_message(summary: dict[str, Any]) -> dict[str, Any]:
    """Render a seven-field summary as one synthetic user message ``{"role", "content"}``.

    Fields appear in ``SUMMARY_FIELDS`` order, one heading each; the goal on its heading's
    line, every list item as ``- item`` below its heading, and ``(none)`` for an empty list.
    """
    lines = [
        "The conversation before this point was compacted into this summary.",
        f"{SUMMARY_HEADINGS['goal']}: {summary['goal']}",
    ]
    for field in SUMMARY_FIELDS[1:]:
        items = summary[field]
        lines.append(f"{SUMMARY_HEADINGS[field]}:" + ("" if items else " (none)"))
        lines.extend(f"- {item}" for item in items)
    return {"role": "user", "content": "\n".join(lines)}


def message_entries(entries: list[Entry]) -> list[Entry]:
    """Return deep copies of the message entries only (metadata and compactions skipped)."""
    return [copy.deepcopy(entry) for entry in entries if entry["type"] == "message"]


def resume_point(active_path: list[Entry]) -> ResumePoint:
    """Return where the context of ``active_path`` starts.

    Without a compaction: every message entry of the path. With compactions: lab 5. Only the
    latest compaction counts; its ``firstKeptEntryId`` must name a user message before it on
    the path (a message that starts an interaction), else ``CompactionError`` naming the
    compaction id and the first kept id. The summary becomes ``summary_message(summary)``.
    """
    if not any(entry["type"] == "compaction" for entry in active_path):
        return ResumePoint(None, None, message_entries(active_path))
    # BEGIN LAB 5
    # Step 1: find the latest compaction; earlier ones are history, not context.
    index = max(i for i, entry in enumerate(active_path) if entry["type"] == "compaction")
    compaction = active_path[index]
    first_kept = compaction["firstKeptEntryId"]
    # Step 2: its first kept entry must be a user message before it on the path.
    before = [entry["id"] for entry in active_path[:index]]
    if first_kept not in before:
        raise CompactionError(
            f"compaction {compaction['id']!r}: first kept entry {first_kept!r} is not before it on the active path"
        )
    kept = active_path[before.index(first_kept) :]
    if kept[0]["type"] != "message" or kept[0]["message"]["role"] != "user":
        raise CompactionError(
            f"compaction {compaction['id']!r}: first kept entry {first_kept!r} does not start an interaction"
        )
    # Step 3: the summary first, then the raw messages from the first kept entry on.
    return ResumePoint(compaction["id"], summary_message(compaction["summary"]), message_entries(kept))
    # END LAB 5
