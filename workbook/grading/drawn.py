"""Session paths drawn at random for the generated variants: the building blocks of ``labs/<module>/variants.py``.

A drawn path is a valid session's active path, root first: interactions of other sizes (a user message, rounds of
tool calls whose results come in a shuffled order, a closing assistant answer), metadata entries between them,
and compactions whose first kept entry starts an interaction; every id, text and timestamp drawn from the
``random.Random`` the judge seeded. Each interaction is kept apart (``Drawn.interactions``) so a generator can
place a fault in one of them, or price them with the example's estimator. Nothing here decides a case: the
reference's outcome does, in the judge's process.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

from workbook.grading.reference import import_reference

WORDS = (
    "append reopen flush store entry session tail torn newline parse group budget window token summary "
    "compaction interaction result call read test edit file disk commit check path context keep trim"
).split()
TOOLS = ("read", "bash", "edit", "grep", "write")


@dataclasses.dataclass
class Drawn:
    """A drawn path: ``entries`` root first; ``interactions`` the message entries of each interaction (lists
    of the same objects); ``calls`` per interaction the ``(call id, result entry id, call entry id)`` of
    every tool call in it."""

    entries: list[dict[str, Any]]
    interactions: list[list[dict[str, Any]]]
    calls: list[list[tuple[str, str, str]]]

    def copy(self) -> Drawn:
        """A deep copy whose lists still share objects among themselves, never with this one."""
        return copy.deepcopy(self)


class Ids:
    """Fresh ids for one drawn input: short words with a drawn suffix, never the same twice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.used = rng, set[str]()

    def __call__(self, prefix: str) -> str:
        while True:
            name = f"{prefix}{self.rng.randrange(16**5):x}"
            if name not in self.used:
                self.used.add(name)
                return name


def text(rng: random.Random, low: int = 1, high: int = 20) -> str:
    """A sentence of ``low`` to ``high`` drawn words."""
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def draw_path(
    rng: random.Random,
    interactions: tuple[int, int] = (1, 5),
    tools: float = 0.5,
    metadata: float = 0.3,
    ids: Ids | None = None,
) -> Drawn:
    """Draw a path of ``interactions`` (low, high) interactions; each has tool rounds with probability ``tools``
    (one or two rounds of one to three calls, results shuffled), and a ``model_change`` entry follows it with
    probability ``metadata``."""
    import_reference()
    from compaction_lab.provided.scenarios import message_entry, tool_call_entry, tool_result_entry

    ids = ids or Ids(rng)
    entries: list[dict[str, Any]] = []
    groups: list[list[dict[str, Any]]] = []
    calls: list[list[tuple[str, str, str]]] = []

    def add(entry: dict[str, Any], group: list[dict[str, Any]] | None) -> None:
        entries.append(entry)
        if group is not None:
            group.append(entry)

    def parent() -> str | None:
        return entries[-1]["id"] if entries else None

    for _ in range(rng.randint(*interactions)):
        group: list[dict[str, Any]] = []
        made: list[tuple[str, str, str]] = []
        add(message_entry(ids("u"), parent(), len(entries) + 1, "user", text(rng)), group)
        for _ in range(rng.randint(1, 2) if rng.random() < tools else 0):
            declared = [
                (ids("call-"), rng.choice(TOOLS), {"path": rng.choice(WORDS)}) for _ in range(rng.randint(1, 3))
            ]
            caller = tool_call_entry(ids("a"), parent(), len(entries) + 1, text(rng), declared)
            add(caller, group)
            results = [(call_id, name, ids("r")) for call_id, name, _ in declared]
            rng.shuffle(results)
            for call_id, name, result_id in results:
                add(tool_result_entry(result_id, parent(), len(entries) + 1, call_id, name, text(rng)), group)
                made.append((call_id, result_id, caller["id"]))
        add(message_entry(ids("a"), parent(), len(entries) + 1, "assistant", text(rng)), group)
        groups.append(group)
        calls.append(made)
        if rng.random() < metadata:
            add(model_change(ids("m"), parent(), len(entries) + 1, rng), None)
    return Drawn(entries, groups, calls)


def model_change(entry_id: str, parent_id: str | None, timestamp: int, rng: random.Random) -> dict[str, Any]:
    """A ``model_change`` metadata entry."""
    return {
        "type": "model_change",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "provider": "anthropic",
        "modelId": f"model-{rng.choice('abcdef')}",
    }


def summary(rng: random.Random) -> dict[str, Any]:
    """A drawn seven-field summary."""
    return {
        "goal": text(rng, 3, 12),
        "constraints": [text(rng) for _ in range(rng.randint(0, 2))],
        "completed": [text(rng) for _ in range(rng.randint(0, 3))],
        "decisions": [text(rng) for _ in range(rng.randint(0, 2))],
        "changedFiles": [f"{rng.choice(WORDS)}.py" for _ in range(rng.randint(0, 3))],
        "unresolved": [text(rng) for _ in range(rng.randint(0, 2))],
        "next": [text(rng) for _ in range(rng.randint(0, 2))],
    }


def draw_compacted(rng: random.Random, compactions: int = 1) -> Drawn:
    """A drawn path with ``compactions`` compactions, each appended after an interaction and keeping from the
    user message of a drawn interaction before it (since the previous compaction's first kept one), then more
    interactions; ``interactions`` lists them all."""
    import_reference()
    from compaction_lab.provided.scenarios import compaction_object

    ids = Ids(rng)
    drawn = draw_path(rng, (2, 4), ids=ids)
    floor = 0
    for _ in range(compactions):
        keep = rng.randint(floor, len(drawn.interactions) - 1)
        first_kept = drawn.interactions[keep][0]["id"]
        entry = compaction_object(
            ids("compact-"),
            drawn.entries[-1]["id"],
            first_kept,
            summary=summary(rng),
            timestamp=len(drawn.entries) + 1,
            tokens_before=rng.randint(10, 90),
        )
        drawn.entries.append(entry)
        more = draw_path(rng, (0, 3), ids=ids)
        if more.entries:
            more.entries[0]["parentId"] = entry["id"]
        drawn.entries += more.entries
        drawn.interactions += more.interactions
        drawn.calls += more.calls
        floor = keep
    return drawn


def cost(message_entries: list[dict[str, Any]]) -> int:
    """What ``message_entries`` cost with the example's estimator (each message priced alone)."""
    import_reference()
    from compaction_lab.provided.example import estimate_example_tokens

    return sum(estimate_example_tokens(entry["message"]) for entry in message_entries)
