"""Small factories for test entries and the example's budget options (labs 1 to 5)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from compaction_lab.budget import BudgetOptions
from compaction_lab.provided.scenarios import compaction_object, example_options


def options(max_tokens: float, reserved_output: float = 4, safety_margin: float = 2, **overrides: Any) -> BudgetOptions:
    """The example's budget (``scenarios.example_options``) with any field replaced by ``overrides``."""
    return replace(example_options(max_tokens, reserved_output, safety_margin), **overrides)


def message(entry_id: str, parent: str | None, role: str, **fields: Any) -> dict[str, Any]:
    """A message entry; ``fields`` go into ``message`` next to ``role``."""
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": 1, "message": {"role": role, **fields}}


def user(entry_id: str, parent: str | None, text: str = "Please go on.") -> dict[str, Any]:
    return message(entry_id, parent, "user", content=text)


def assistant(entry_id: str, parent: str, *call_ids: str, text: str = "Done.") -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    blocks += [
        {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": f"{call}.py"}} for call in call_ids
    ]
    return message(entry_id, parent, "assistant", content=blocks)


def result(entry_id: str, parent: str, call_id: str, text: str = "ok") -> dict[str, Any]:
    return message(
        entry_id,
        parent,
        "toolResult",
        toolCallId=call_id,
        toolName="read",
        content=[{"type": "text", "text": text}],
        isError=False,
    )


def compaction(
    entry_id: str, parent: str, first_kept: str, goal: str = "Keep going.", summary: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A compaction entry as it appears on disk; by default with a minimal valid summary."""
    summary = summary or {
        "goal": goal,
        "constraints": [],
        "completed": [],
        "decisions": [],
        "changedFiles": [],
        "unresolved": [],
        "next": [],
    }
    return compaction_object(entry_id, parent, first_kept, summary=summary)


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in items]


def naming(*parts: str | tuple[str, ...]) -> str:
    """A ``pytest.raises(match=...)`` pattern: the message names every part, in any order and any
    wording (a tuple part: one of its strings). A student's own messages are free to differ."""

    def alternatives(part: str | tuple[str, ...]) -> str:
        return "|".join(re.escape(text) for text in ((part,) if isinstance(part, str) else part))

    return "(?s)" + "".join(f"(?=.*(?:{alternatives(part)}))" for part in parts)
