"""Small factories for test entries and the example's budget options (labs 1 to 5)."""

from __future__ import annotations

import re
from typing import Any

from compaction_lab.budget import BudgetOptions
from compaction_lab.example import SYSTEM_PROMPT, estimate_example_tokens


def options(max_tokens: float, reserved_output: float = 4, safety_margin: float = 2, **overrides: Any) -> BudgetOptions:
    """The example's budget: system prompt "sys" (3 tokens), 4 reserved for output, a margin of 2."""
    fields = {"max_tokens": max_tokens, "system_prompt": SYSTEM_PROMPT, "reserved_output": reserved_output,
              "safety_margin": safety_margin, "estimate_tokens": estimate_example_tokens}
    return BudgetOptions(**(fields | overrides))


def message(entry_id: str, parent: str | None, role: str, **fields: Any) -> dict[str, Any]:
    """A message entry; ``fields`` go into ``message`` next to ``role``."""
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": 1,
            "message": {"role": role, **fields}}


def user(entry_id: str, parent: str | None, text: str = "Please go on.") -> dict[str, Any]:
    return message(entry_id, parent, "user", content=text)


def assistant(entry_id: str, parent: str, *call_ids: str, text: str = "Done.") -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    blocks += [{"type": "toolCall", "id": call, "name": "read", "arguments": {"path": f"{call}.py"}}
               for call in call_ids]
    return message(entry_id, parent, "assistant", content=blocks)


def result(entry_id: str, parent: str, call_id: str, text: str = "ok") -> dict[str, Any]:
    return message(entry_id, parent, "toolResult", toolCallId=call_id, toolName="read",
                   content=[{"type": "text", "text": text}], isError=False)


def compaction(entry_id: str, parent: str, first_kept: str, goal: str = "Keep going.",
               summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """A compaction entry as it appears on disk; by default with a minimal valid summary."""
    summary = summary or {"goal": goal, "constraints": [], "completed": [], "decisions": [],
                          "changedFiles": [], "unresolved": [], "next": []}
    return {"type": "compaction", "id": entry_id, "parentId": parent, "timestamp": 100,
            "summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": 29}


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in items]


def naming(*parts: str | tuple[str, ...]) -> str:
    """A ``pytest.raises(match=...)`` pattern: the message names every part, in any order and any
    wording (a tuple part: one of its strings). A student's own messages are free to differ."""
    def alternatives(part: str | tuple[str, ...]) -> str:
        return "|".join(re.escape(text) for text in ((part,) if isinstance(part, str) else part))

    return "(?s)" + "".join(f"(?=.*(?:{alternatives(part)}))" for part in parts)
