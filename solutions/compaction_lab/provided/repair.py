"""Repair dangling tool calls explicitly: a new path, and a report of exactly what was added.

Real sessions hold tool calls that never got a result: an assistant message that errored or was
aborted after asking for tools, or a compaction taken in the middle of a tool call.
``group_interactions`` (lab 2) rightly rejects such a path. A caller chooses:

- reject: group the path as it is and let ``InteractionError`` name the call; or
- repair: ``repair_dangling_tool_calls(path)`` returns a new path in which every dangling call
  gets one synthetic error ``toolResult``, placed at the end of its interaction (right after the
  interaction's last message), and a report listing every added entry.

The session is never changed: the input is not mutated, the real entries of the new path are
deep copies equal to the originals (parent links untouched), and the synthetic entries exist
only in the returned path. A synthetic result's ``parentId`` and timestamp are those of its
interaction's last real message, so it is a side leaf a store would also accept. Only dangling calls
are repaired; a result without a call, a call id declared twice or a second result are left for
``group_interactions`` to reject. This module needs no lab: it uses the grouping module's
provided ``role`` and ``tool_calls`` only, so it works in the starter package too.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ..grouping import role, tool_calls
from ..records import Entry, parse_session_entry

SYNTHETIC_PREFIX = "synthetic-result-"
"""Synthetic result ids are this prefix and the call id (a numeric suffix if that id is taken)."""

SYNTHETIC_TEXT = "No result was recorded for tool call {call_id!r} ({tool}); the session ended the call without one."


@dataclass(frozen=True)
class AddedResult:
    """One synthetic error result: its ``entry_id``, the ``call_id`` and ``tool_name`` it answers,
    the ``call_entry_id`` of the assistant message that made the call, the ``after_entry_id`` it
    was placed after, and ``interaction`` (1-based, counting interactions from the first user
    message; 0 for messages before it)."""

    entry_id: str
    call_id: str
    tool_name: str
    call_entry_id: str
    after_entry_id: str
    interaction: int


@dataclass(frozen=True)
class Repair:
    """The repaired ``path`` (new entries, root first) and the ``added`` synthetic results, in path order."""

    path: list[Entry]
    added: list[AddedResult]


def dangling_tool_calls(path: list[Entry]) -> list[AddedResult]:
    """Return what ``repair_dangling_tool_calls`` would add for ``path``, without building it.

    A call is dangling when no ``toolResult`` of its interaction names its id. Metadata and
    compaction entries are passed over (they neither open nor close an interaction).
    """
    return _plan(path, {entry["id"] for entry in path})[1]


def repair_dangling_tool_calls(path: list[Entry]) -> Repair:
    """Return a new path where every dangling tool call has a synthetic error result.

    ``path`` is an active path (entries, root first); it is not changed and nothing in the
    result aliases it. Each synthetic entry is ``{"type": "message", "id": "synthetic-result-
    <call id>", "parentId": <last real message of the interaction>, "timestamp": <that entry's>, "message": {"role":
    "toolResult", "toolCallId", "toolName", "content": [one text block], "isError": true}}`` and
    goes through ``parse_session_entry``. A path without dangling calls comes back as an equal copy
    with ``added == []``.
    """
    insert_after, added = _plan(path, {entry["id"] for entry in path})
    repaired: list[Entry] = []
    for entry in path:
        repaired.append(copy.deepcopy(entry))
        for item in insert_after.get(entry["id"], []):
            repaired.append(_synthetic_result(item, entry))
    return Repair(path=repaired, added=added)


def _plan(path: list[Entry], taken: set[str]) -> tuple[dict[str, list[AddedResult]], list[AddedResult]]:
    """Find the dangling calls interaction by interaction; map each last message id to its additions."""
    interactions: list[list[Entry]] = [[]]  # number 0: any messages before the first user message
    for entry in path:
        if entry["type"] == "message":
            if role(entry) == "user":
                interactions.append([])
            interactions[-1].append(entry)
    insert_after: dict[str, list[AddedResult]] = {}
    added: list[AddedResult] = []
    for number, interaction in enumerate(interactions):
        for item in _dangling(interaction, number, taken):
            insert_after.setdefault(item.after_entry_id, []).append(item)
            added.append(item)
    return insert_after, added


def _dangling(interaction: list[Entry], number: int, taken: set[str]) -> list[AddedResult]:
    answered = {entry["message"]["toolCallId"] for entry in interaction if role(entry) == "toolResult"}
    found = []
    for entry in interaction:
        for call in tool_calls(entry):
            if call["id"] in answered:
                continue
            answered.add(call["id"])
            entry_id = _free_id(f"{SYNTHETIC_PREFIX}{call['id']}", taken)
            found.append(AddedResult(entry_id=entry_id, call_id=call["id"], tool_name=call["name"],
                                     call_entry_id=entry["id"], after_entry_id=interaction[-1]["id"],
                                     interaction=number))
    return found


def _free_id(wanted: str, taken: set[str]) -> str:
    candidate, suffix = wanted, 1
    while candidate in taken:
        suffix += 1
        candidate = f"{wanted}-{suffix}"
    taken.add(candidate)
    return candidate


def _synthetic_result(item: AddedResult, after: Entry) -> Entry:
    text = SYNTHETIC_TEXT.format(call_id=item.call_id, tool=item.tool_name)
    return parse_session_entry({
        "type": "message", "id": item.entry_id, "parentId": after["id"], "timestamp": after["timestamp"],
        "message": {"role": "toolResult", "toolCallId": item.call_id, "toolName": item.tool_name,
                    "content": [{"type": "text", "text": text}], "isError": True},
    })
