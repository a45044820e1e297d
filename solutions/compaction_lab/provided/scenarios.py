"""Paths beyond the nine example entries, for the notebooks' demos, explorers and tests.

Everything here is built as plain wire objects (no parser, no lab function), so a test of
lab 5 can put compactions on a path before labs 1 and 4 are written. Every function returns
fresh objects. Timestamps continue the example's (1 to 9): compact-1 is written at 100.
"""

from __future__ import annotations

from typing import Any

from .. import budget
from ..records import Entry
from .example import SYSTEM_PROMPT, estimate_example_tokens, example_entries, example_summary


def example_options(
    max_tokens: float = 31, reserved_output: float = 4, safety_margin: float = 2
) -> budget.BudgetOptions:
    """The example's budget: system prompt "sys" (3 tokens), the example estimator, and these numbers."""
    return budget.BudgetOptions(
        max_tokens=max_tokens,
        system_prompt=SYSTEM_PROMPT,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_example_tokens,
    )


def message_entry(entry_id: str, parent_id: str, timestamp: int, role: str, text: str) -> Entry:
    """A user or assistant message entry with one text (assistant: one text block)."""
    if role == "user":
        message: dict[str, Any] = {"role": "user", "content": text}
    else:
        message = {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"}
    return {"type": "message", "id": entry_id, "parentId": parent_id, "timestamp": timestamp, "message": message}


def compaction_object(
    entry_id: str,
    parent_id: str,
    first_kept_entry_id: str,
    *,
    summary: dict[str, Any] | None = None,
    timestamp: int = 100,
    tokens_before: float = 29,
) -> Entry:
    """A compaction entry as it is stored (the example summary unless ``summary`` is given)."""
    return {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "summary": example_summary() if summary is None else summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }


def later_summary(goal: str) -> dict[str, Any]:
    """A seven-field summary for a later compaction, told apart by its ``goal``."""
    return {
        **example_summary(),
        "goal": goal,
        "completed": ["Ran the focused store tests; all passed."],
        "next": ["Write down what the tests cover."],
    }


def compacted_path() -> list[Entry]:
    """The example, then compact-1 (parent a3, first kept u2, tokens before 29)."""
    entries = example_entries()
    return entries + [compaction_object("compact-1", "a3", "u2")]


def resumed_path() -> list[Entry]:
    """``compacted_path()`` and one more interaction after it: u4, a4."""
    return compacted_path() + [
        message_entry("u4", "compact-1", 101, "user", "Write down what the focused tests covered."),
        message_entry("a4", "u4", 102, "assistant", "They covered append, reopen and the torn tail."),
    ]


def twice_compacted_path() -> list[Entry]:
    """``resumed_path()``, then compact-2 (parent a4, first kept u3), then u5, a5."""
    return resumed_path() + [
        compaction_object(
            "compact-2", "a4", "u3", summary=later_summary("Second summary."), timestamp=103, tokens_before=20
        ),
        message_entry("u5", "compact-2", 104, "user", "Is anything left to do?"),
        message_entry("a5", "u5", 105, "assistant", "Nothing is left."),
    ]


def tool_call_entry(
    entry_id: str, parent_id: str, timestamp: int, text: str, calls: list[tuple[str, str, dict[str, Any]]]
) -> Entry:
    """An assistant message entry with a text block and one ``toolCall`` block per ``(call id, tool, arguments)``."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    blocks += [
        {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments} for call_id, name, arguments in calls
    ]
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "message": {"role": "assistant", "content": blocks, "stopReason": "toolUse"},
    }


def tool_result_entry(entry_id: str, parent_id: str, timestamp: int, call_id: str, tool: str, text: str) -> Entry:
    """A tool result entry answering ``call_id`` with one text block."""
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "message": {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool,
            "content": [{"type": "text", "text": text}],
            "isError": False,
        },
    }


def tool_round_path() -> list[Entry]:
    """The boundary's worked case: ``old`` (user), ``calls`` (two tool calls), their results ``r-read`` and
    ``r-test``, then ``recent`` (user). Every message costs 3 example tokens."""
    return [
        message_entry("old", None, 1, "user", "Please check the store."),
        tool_call_entry(
            "calls",
            "old",
            2,
            "Checking now.",
            [("read-1", "read", {"path": "stores.py"}), ("test-1", "bash", {"command": "pytest"})],
        ),
        tool_result_entry("r-read", "calls", 3, "read-1", "read", "class JsonlSessionStore: ..."),
        tool_result_entry("r-test", "r-read", 4, "test-1", "bash", "3 passed"),
        message_entry("recent", "r-test", 5, "user", "Now fix the torn tail."),
    ]


def _fix_and_changelog(parent_id: str, timestamp: int) -> list[Entry]:
    """Two more interactions after ``parent_id``: u4 asks for a fix (an edit round, a test round, a
    closing answer), u5 for a changelog entry."""
    t = timestamp
    return [
        message_entry("u4", parent_id, t, "user", "Now fix the torn tail bug in the JSONL store."),
        tool_call_entry("a4", "u4", t + 1, "Editing the store.", [("edit-1", "edit", {"path": "stores.py"})]),
        tool_result_entry("r-edit", "a4", t + 2, "edit-1", "edit", "Edited stores.py: the torn tail is cut off."),
        tool_call_entry(
            "a5",
            "r-edit",
            t + 3,
            "Running the tests.",
            [("test-2", "bash", {"command": "pytest tests/test_stores.py"})],
        ),
        tool_result_entry("r-test-2", "a5", t + 4, "test-2", "bash", "4 passed in 0.05s"),
        message_entry("a6", "r-test-2", t + 5, "assistant", "Fixed: the torn tail is cut off and four tests pass."),
        message_entry("u5", "a6", t + 6, "user", "Thanks. Write the changelog entry."),
        message_entry("a7", "u5", t + 7, "assistant", "Changelog: a torn tail is now cut off at reopen."),
    ]


def long_session() -> list[Entry]:
    """The example, then u4 (fix the torn tail: a4 edits, a5 tests, a6 answers) and u5, a7 (the changelog):
    17 messages, 56 example tokens. ``compact``'s running example."""
    return example_entries() + _fix_and_changelog("a3", 10)


def fixed_summary() -> dict[str, Any]:
    """A summary of ``long_session`` up to a6 that keeps the example summary's goal and constraint and
    records the changed file (11 example tokens as a summary message, like the example summary)."""
    return {
        **example_summary(),
        "completed": ["Ran the focused store tests.", "Fixed the torn tail."],
        "changedFiles": ["stores.py"],
        "next": ["Write the changelog entry."],
    }


def compacted_long_session(summary: dict[str, Any] | None = None) -> list[Entry]:
    """The example, compact-1 (first kept u2; the example summary unless ``summary`` is given), then the
    messages of ``long_session`` after a3, continuing from compact-1."""
    return (
        example_entries()
        + [compaction_object("compact-1", "a3", "u2", summary=summary)]
        + _fix_and_changelog("compact-1", 101)
    )


def chat_path(turns: int) -> list[Entry]:
    """``turns`` interactions of one user and one assistant message each (``q1``, ``a1``, ``q2``, ``a2``, ...,
    timestamps 1, 2, ...), every message 3 example tokens: a session that grows turn by turn (lab 3's replay)."""
    entries: list[Entry] = []
    for turn in range(1, turns + 1):
        for entry_id, role, text in (
            (f"q{turn}", "user", f"Step {turn}: run the next focused store check."),
            (f"a{turn}", "assistant", f"Step {turn} passes; every store entry is intact."),
        ):
            parent = entries[-1]["id"] if entries else None
            entries.append(message_entry(entry_id, parent, len(entries) + 1, role, text))
    return entries


def custom_entry(entry_id: str, data: Any, parent_id: str = "a3", timestamp: int = 10) -> Entry:
    """A ``custom`` metadata entry (``customType`` "probe") holding ``data``: lab 1's guarded input."""
    return {
        "type": "custom",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "customType": "probe",
        "data": data,
    }


def nested_lists(levels: int) -> list[Any]:
    """``levels`` lists, each the only item of the one around it (``[[[]]]`` for 3), built without recursion,
    so 10^6 levels take no stack."""
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value
