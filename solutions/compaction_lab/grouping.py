"""Lab 2, interaction grouping: split an active path's messages into whole interactions.

An interaction starts with a user message and runs until the next one. Inside it, every tool
call is matched to exactly one tool result by id (``toolCall.id`` = ``toolResult.toolCallId``),
never by position, tool name or what the final assistant says, because results may arrive
in any order. A tool-call id is unique on the whole path, not only in its interaction: a
provider refuses a request that repeats one. The budget (lab 3) keeps or drops whole
interactions, so a call is never separated from its result.
"""

from __future__ import annotations

import copy
from typing import Any

from .provided.errors import InteractionError
from .records import Entry

Interaction = list[Entry]
"""One interaction: message entries in path order, the first a user message."""


def tool_calls(entry: Entry) -> list[dict[str, Any]]:
    """Return the ``toolCall`` blocks of an assistant message entry (``[]`` for other messages)."""
    message = entry["message"]
    if message["role"] != "assistant":
        return []
    return [block for block in message["content"] if block["type"] == "toolCall"]


def role(entry: Entry) -> str:
    """Return the message role of a message entry; ``InteractionError`` naming it otherwise."""
    if entry.get("type") != "message":
        raise InteractionError(
            f"entry {entry.get('id')!r}: a {entry.get('type')!r} entry is not a message; "
            "group only the message entries of a path"
        )
    return entry["message"]["role"]


def group_interactions(entries: list[Entry]) -> list[Interaction]:
    """Lab 2: group the message entries of an active path into interactions.

    ``entries`` are message entries in path order. Returns a list of interactions (lists of
    deep-copied entries), in path order. A user message closes the open interaction and opens
    a new one; the end of the path closes the last. Raises ``InteractionError`` naming the
    entry id or call id when: an entry is not a message; the first message is not a user
    message; a result names a call id no call of its interaction declares; a call gets a
    second result; a call has no result when its interaction closes; a call id is declared
    twice on the path, in one interaction or in two (then the message names the call id and
    both entries that declare it). A result may come before its call inside the interaction.
    """
    # BEGIN LAB 2
    # Step 1: split at user messages; anything before the first one is an error.
    groups: list[Interaction] = []
    for entry in entries:
        if role(entry) == "user":
            groups.append([])
        elif not groups:
            raise InteractionError(f"entry {entry['id']!r}: the first message must be a user message")
        groups[-1].append(copy.deepcopy(entry))
    # Step 2: in each interaction, pair calls and results by id alone; no call id twice on the path.
    declared: dict[str, str] = {}
    for group in groups:
        _check_pairs(group, declared)
    return groups
    # END LAB 2


# BEGIN LAB 2
def _check_pairs(group: Interaction, declared: dict[str, str]) -> None:
    """Every call declared once on the path, every result naming a call of ``group``, every call with one
    result. ``declared`` maps the call ids of the interactions before ``group`` to the entry that declares
    each; the calls of ``group`` are added to it."""
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for entry in group:
        for call in tool_calls(entry):
            if call["id"] in declared:
                raise InteractionError(
                    f"call id {call['id']!r}: declared twice, in entries {declared[call['id']]!r} and {entry['id']!r}"
                )
            declared[call["id"]] = calls[call["id"]] = entry["id"]
        if role(entry) == "toolResult":
            call_id = entry["message"]["toolCallId"]
            if call_id in results:
                raise InteractionError(
                    f"call id {call_id!r}: second result {entry['id']!r} (the first was {results[call_id]!r})"
                )
            results[call_id] = entry["id"]
    for call_id, result_id in results.items():
        if call_id not in calls:
            raise InteractionError(
                f"entry {result_id!r}: result for call id {call_id!r}, which no tool call in its interaction declares"
            )
    for call_id, call_entry in calls.items():
        if call_id not in results:
            raise InteractionError(
                f"call id {call_id!r} (entry {call_entry!r}): no tool result before the interaction closes"
            )


# END LAB 2
