"""Repair dangling tool calls explicitly: a new path, and a report of exactly what was added.

Real sessions hold tool calls that never got a result: an assistant message that errored or was
aborted after asking for tools, or a compaction taken in the middle of a tool call.
``group_interactions`` (lab 2) rightly rejects such a path. A caller chooses:

- reject: group the path as it is and let ``InteractionError`` name the call; or
- repair: ``repair_dangling_tool_calls(path)`` returns a new path in which every dangling call
  gets one synthetic error ``toolResult``, and a report listing every added entry.

Where a synthetic result goes: with its call's batch, because a provider needs every result of an
assistant message before the next assistant or user message. It is placed directly after the last
real result of the same assistant message's calls (in its interaction), or directly after the
assistant message itself when none of its calls has a real result (or each came before it);
metadata and compaction entries in between change nothing. Several synthetic results of one
message keep the order of its calls. ``interrupted_tool_calls(path)`` checks the rule on any path.

The session is never changed: the input is not mutated, the real entries of the new path are
deep copies equal to the originals (parent links untouched), and the synthetic entries exist
only in the returned path. A synthetic result's ``parentId`` and timestamp are those of the entry
it is placed after, so it is a side leaf a store would also accept. Only dangling calls
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

SPEAKERS = ("user", "assistant")
"""The roles that may not stand between a tool call and its result."""


@dataclass(frozen=True)
class AddedResult:
    """One synthetic error result: its ``entry_id``, the ``call_id`` and ``tool_name`` it answers,
    the ``call_entry_id`` of the assistant message that made the call, the ``after_entry_id`` it
    was placed after (the last real result of that message's calls, or the message itself), and
    ``interaction`` (1-based, counting interactions from the first user message; 0 for messages
    before it)."""

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


@dataclass(frozen=True)
class InterruptedCall:
    """A tool call cut off from one of its results: the ``call_id``, the ``call_entry_id`` of the
    assistant message that made it, the ``result_entry_id`` and the first user or assistant message
    standing between them (``between_entry_id``)."""

    call_id: str
    call_entry_id: str
    result_entry_id: str
    between_entry_id: str


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
    <call id>", "parentId": <the entry it follows>, "timestamp": <that entry's>, "message": {"role":
    "toolResult", "toolCallId", "toolName", "content": [one text block], "isError": true}}``, goes
    through ``parse_session_entry`` and is placed with its call's batch (see the module docstring).
    A path without dangling calls comes back as an equal copy with ``added == []``.
    """
    insert_after, added = _plan(path, {entry["id"] for entry in path})
    repaired: list[Entry] = []
    for entry in path:
        repaired.append(copy.deepcopy(entry))
        for item in insert_after.get(entry["id"], []):
            repaired.append(_synthetic_result(item, entry))
    return Repair(path=repaired, added=added)


def interrupted_tool_calls(path: list[Entry]) -> list[InterruptedCall]:
    """Return every (call, result) pair of an interaction with a user or assistant message between them.

    ``path`` is an active path (metadata and compaction entries are passed over). A call and its
    result are paired by id inside their interaction, as ``group_interactions`` pairs them; the
    pair is interrupted when a user or assistant message stands between the two, in either order.
    An empty list means every result sits with its call's batch, as a provider needs. Linear in the
    number of entries; the path is not changed.
    """
    found: list[InterruptedCall] = []
    for interaction in _interactions(path):
        last_speaker: list[int] = []  # index of the latest user/assistant message at or before each position
        calls: dict[str, tuple[int, str]] = {}
        for index, entry in enumerate(interaction):
            previous = last_speaker[-1] if last_speaker else -1
            last_speaker.append(index if role(entry) in SPEAKERS else previous)
            for call in tool_calls(entry):
                calls.setdefault(call["id"], (index, entry["id"]))
        for index, entry in enumerate(interaction):
            if role(entry) != "toolResult" or entry["message"]["toolCallId"] not in calls:
                continue
            call_index, call_entry_id = calls[entry["message"]["toolCallId"]]
            low, high = sorted((index, call_index))
            between = last_speaker[high - 1]
            if between > low:
                found.append(
                    InterruptedCall(
                        call_id=entry["message"]["toolCallId"],
                        call_entry_id=call_entry_id,
                        result_entry_id=entry["id"],
                        between_entry_id=interaction[between]["id"],
                    )
                )
    return found


def _interactions(path: list[Entry]) -> list[list[Entry]]:
    """The message entries of ``path`` split at user messages; number 0 holds any before the first one."""
    interactions: list[list[Entry]] = [[]]
    for entry in path:
        if entry["type"] == "message":
            if role(entry) == "user":
                interactions.append([])
            interactions[-1].append(entry)
    return interactions


def _plan(path: list[Entry], taken: set[str]) -> tuple[dict[str, list[AddedResult]], list[AddedResult]]:
    """Find the dangling calls interaction by interaction; map each entry id to what goes right after it."""
    insert_after: dict[str, list[AddedResult]] = {}
    added: list[AddedResult] = []
    for number, interaction in enumerate(_interactions(path)):
        for item in _dangling(interaction, number, taken):
            insert_after.setdefault(item.after_entry_id, []).append(item)
            added.append(item)
    return insert_after, added


def _dangling(interaction: list[Entry], number: int, taken: set[str]) -> list[AddedResult]:
    """The interaction's dangling calls, each placed after its batch's last real result (or its call)."""
    position = {entry["id"]: index for index, entry in enumerate(interaction)}
    result_at = {
        entry["message"]["toolCallId"]: position[entry["id"]] for entry in interaction if role(entry) == "toolResult"
    }
    answered = set(result_at)
    found = []
    for entry in interaction:
        calls = tool_calls(entry)
        last = max([position[entry["id"]], *(result_at[call["id"]] for call in calls if call["id"] in result_at)])
        for call in calls:
            if call["id"] in answered:
                continue
            answered.add(call["id"])
            entry_id = _free_id(f"{SYNTHETIC_PREFIX}{call['id']}", taken)
            found.append(
                AddedResult(
                    entry_id=entry_id,
                    call_id=call["id"],
                    tool_name=call["name"],
                    call_entry_id=entry["id"],
                    after_entry_id=interaction[last]["id"],
                    interaction=number,
                )
            )
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
    return parse_session_entry(
        {
            "type": "message",
            "id": item.entry_id,
            "parentId": after["id"],
            "timestamp": after["timestamp"],
            "message": {
                "role": "toolResult",
                "toolCallId": item.call_id,
                "toolName": item.tool_name,
                "content": [{"type": "text", "text": text}],
                "isError": True,
            },
        }
    )
