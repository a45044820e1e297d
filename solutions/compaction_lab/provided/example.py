"""The running example: nine message entries on one path, and the toy estimator that prices them.

A user asks an agent to check session recovery. In the third interaction the assistant calls
two tools at once, ``read-1`` then ``test-1``; the test finished first, so its result
``r-test`` is on the path before ``r-read``. Every function returns fresh copies.

The example estimator is a teaching device, not a tokenizer: a message or prompt costs 2
tokens of framing plus 1 token per started 8 words of its text (tool names and argument
values count as text). The system prompt ``"sys"`` costs 3 and the nine messages cost
3, 4, 3, 4, 3, 3, 3, 3, 3: 29 tokens in all.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from ..records import Entry

SYSTEM_PROMPT = "sys"
"""The example's system prompt; it costs 3 tokens."""

EXAMPLE_TOKENS: dict[str, int] = {
    "u1": 3,
    "a1": 4,
    "u2": 3,
    "a2": 4,
    "u3": 3,
    "calls": 3,
    "r-test": 3,
    "r-read": 3,
    "a3": 3,
}
"""What ``estimate_example_tokens`` returns for each example message, by entry id."""

FRAMING_TOKENS = 2
WORDS_PER_TOKEN = 8


def _text(content: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": content}]


def _message(entry_id: str, parent: str | None, timestamp: int, message: dict[str, Any]) -> Entry:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": timestamp, "message": message}


_ENTRIES: list[Entry] = [
    _message("u1", None, 1, {"role": "user", "content": "Please check that session recovery still works."}),
    _message(
        "a1",
        "u1",
        2,
        {
            "role": "assistant",
            "content": _text("I will reopen the JSONL session file and compare every recovered entry."),
            "stopReason": "stop",
        },
    ),
    _message("u2", "a1", 3, {"role": "user", "content": "Also confirm where a JSONL entry is committed."}),
    _message(
        "a2",
        "u2",
        4,
        {
            "role": "assistant",
            "content": _text("An entry is committed only once its trailing newline has been written and flushed."),
            "stopReason": "stop",
        },
    ),
    _message("u3", "a2", 5, {"role": "user", "content": "Now run the focused tests for the store."}),
    _message(
        "calls",
        "u3",
        6,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking now."},
                {"type": "toolCall", "id": "read-1", "name": "read", "arguments": {"path": "stores.py"}},
                {
                    "type": "toolCall",
                    "id": "test-1",
                    "name": "bash",
                    "arguments": {"command": "pytest tests/test_stores.py"},
                },
            ],
            "stopReason": "toolUse",
        },
    ),
    _message(
        "r-test",
        "calls",
        7,
        {
            "role": "toolResult",
            "toolCallId": "test-1",
            "toolName": "bash",
            "content": _text("3 passed in 0.04s"),
            "isError": False,
        },
    ),
    _message(
        "r-read",
        "r-test",
        8,
        {
            "role": "toolResult",
            "toolCallId": "read-1",
            "toolName": "read",
            "content": _text("class JsonlSessionStore: appends one JSON line per entry."),
            "isError": False,
        },
    ),
    _message(
        "a3",
        "r-read",
        9,
        {
            "role": "assistant",
            "content": _text("Recovery works; all three focused store tests pass."),
            "stopReason": "stop",
        },
    ),
]


def example_entries() -> list[Entry]:
    """Return the nine example entries (the active path, root first) as fresh copies."""
    return copy.deepcopy(_ENTRIES)


def example_summary() -> dict[str, Any]:
    """Return the seven-field summary of the first three interactions used by compact-1."""
    return {
        "goal": "Check that session recovery works and run the focused store tests.",
        "constraints": ["Never rewrite or drop a committed session entry."],
        "completed": ["Reopened the JSONL session and compared the recovered entries."],
        "decisions": ["An entry counts as committed once its newline is written and flushed."],
        "changedFiles": [],
        "unresolved": [],
        "next": ["Run the focused store tests."],
    }


def priced_texts(item: str | dict[str, Any]) -> list[str]:
    """Return the texts the example estimator prices: a prompt itself, or a message's content
    (its string, or its text, thinking, tool name and tool-call argument values)."""
    if isinstance(item, str):
        return [item]
    content = item.get("content", [])
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for block in content:
        if block.get("type") == "text":
            texts.append(block["text"])
        elif block.get("type") == "thinking":
            texts.append(block["thinking"])
        elif block.get("type") == "toolCall":
            texts.append(block["name"])
            texts.extend(_argument_values(block.get("arguments", {})))
    return texts


def _argument_values(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for item in value.values() for text in _argument_values(item)]
    if isinstance(value, list):
        return [text for item in value for text in _argument_values(item)]
    return [str(value)]


def estimate_example_tokens(item: str | dict[str, Any]) -> int:
    """Price a system prompt (``str``) or a message (``dict``) in example tokens.

    2 framing tokens plus ``ceil(words / 8)``, where words are counted in the message's text,
    thinking, tool names and tool-call argument values (ids, roles, flags are not priced).
    Never changes its argument. Lab 3 and lab 5 use it through ``BudgetOptions``.
    """
    words = sum(len(text.split()) for text in priced_texts(item))
    return FRAMING_TOKENS + math.ceil(words / WORDS_PER_TOKEN)
