"""Lab 2's generated variants: every grade cell of ``02_interaction_grouping.ipynb`` on paths drawn per grading run.

``variants(rng)`` draws, from the judge's seeded ``random.Random``, at least five cases per cell: paths of other
sizes whose tool results come shuffled (some before their call), and for each refusal the same fault placed
elsewhere (a result for a call nobody declared, a call id declared twice, a second result, a call left without
one, a leading assistant message, a metadata entry) beside near-misses that must be accepted (a result whose
entry id looks unknown, call ids sharing a prefix). The judge decides each by the reference's outcome, computed
in its own process; none of it reaches a student's package.
"""

from __future__ import annotations

import copy
import random

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.scenarios import compaction_object, message_entry
from workbook.grading.drawn import Drawn, Ids, draw_path, model_change, summary, text

GROUP = "grouping.group_interactions"
EACH = 5
"""Variants drawn per grade cell."""
HINT = "Inputs drawn afresh for each grading run, of the kind this cell is about."


def _case(grade_id: str, index: int, path: list, **extra) -> Case:
    return Case(
        f"generated_{index}", grade_id, "group_interactions(a path drawn for this grading run)", GROUP, (path,),
        hint=HINT, hidden=True, **extra,
    )  # fmt: skip


def _refused(grade_id: str, index: int, path: list, naming: tuple) -> Case:
    return _case(grade_id, index, path, raises="InteractionError", naming=naming)


def _tools(rng: random.Random, low: int = 1, high: int = 5) -> Drawn:
    """A drawn path without metadata (lab 2 groups message entries only) where some interaction has tool calls."""
    while True:
        drawn = draw_path(rng, (low, high), tools=0.7, metadata=0.0)
        if any(drawn.calls):
            return drawn


def _with_calls(rng: random.Random, drawn: Drawn) -> int:
    return rng.choice([place for place, calls in enumerate(drawn.calls) if calls])


def example_groups(rng: random.Random, index: int) -> Case:
    """A whole drawn path, grouped."""
    return _case("lab2_example_groups", index, draw_path(rng, (1, 6), tools=0.6, metadata=0.0).entries)


def results_in_any_order(rng: random.Random, index: int) -> Case:
    """Results shuffled, one moved before its call (right after its interaction's user message)."""
    drawn = _tools(rng)
    place = _with_calls(rng, drawn)
    _, result_id, _ = rng.choice(drawn.calls[place])
    result = next(entry for entry in drawn.entries if entry["id"] == result_id)
    drawn.entries.remove(result)
    drawn.entries.insert(drawn.entries.index(drawn.interactions[place][0]) + 1, result)
    return _case("lab2_results_in_any_order", index, drawn.entries)


def unknown_call(rng: random.Random, index: int) -> Case:
    """A result answering a call id nobody declared (its own, or one more entry), or a near-miss: a result whose
    entry id is the unknown-looking one."""
    drawn = _tools(rng)
    ids = Ids(rng)
    place = _with_calls(rng, drawn)
    call_id, result_id, caller_id = rng.choice(drawn.calls[place])
    result = next(entry for entry in drawn.entries if entry["id"] == result_id)
    unknown = ids("unknown-")
    kind = index % 3
    if kind == 0:
        result["message"]["toolCallId"] = unknown
        return _refused("lab2_unknown_call_rejected", index, drawn.entries, ((unknown, result_id, call_id, caller_id),))
    if kind == 1:
        extra = {**copy.deepcopy(result), "id": ids("r-extra-")}
        extra["message"]["toolCallId"] = unknown
        last = drawn.interactions[place][-1]
        drawn.entries.insert(drawn.entries.index(last), extra)
        return _refused("lab2_unknown_call_rejected", index, drawn.entries, ((unknown, extra["id"]),))
    result["id"] = unknown
    return _case("lab2_unknown_call_rejected", index, drawn.entries)


def broken_tool_facts(rng: random.Random, index: int) -> Case:
    """A call id declared again in a later interaction, a second result, a call left without its result, or a
    near-miss: call ids where one is the other's prefix."""
    drawn = _tools(rng, 2, 5)
    place = _with_calls(rng, drawn)
    call_id, result_id, caller_id = rng.choice(drawn.calls[place])
    by_id = {entry["id"]: entry for entry in drawn.entries}
    kind = index % 4
    if kind == 0:
        later = [other for other in range(place + 1, len(drawn.calls)) if drawn.calls[other]]
        if later:
            other_call, other_result, other_caller = rng.choice(drawn.calls[rng.choice(later)])
            for block in by_id[other_caller]["message"]["content"]:
                if block.get("id") == other_call:
                    block["id"] = call_id
            by_id[other_result]["message"]["toolCallId"] = call_id
            return _refused("lab2_broken_tool_facts", index, drawn.entries, (call_id, caller_id, other_caller))
        kind = 1
    if kind == 1:
        second = {**copy.deepcopy(by_id[result_id]), "id": Ids(rng)("r-again-")}
        drawn.entries.insert(drawn.entries.index(by_id[result_id]) + 1, second)
        return _refused("lab2_broken_tool_facts", index, drawn.entries, ((call_id, second["id"]),))
    if kind == 2:
        drawn.entries.remove(by_id[result_id])
        return _refused("lab2_broken_tool_facts", index, drawn.entries, ((call_id, caller_id),))
    # a near-miss: the call and its result renamed so the id is another call's id with a suffix
    others = [other for calls in drawn.calls for other, _, _ in calls if other != call_id]
    if others:
        longer = f"{rng.choice(others)}{rng.randint(0, 9)}"
        for block in by_id[caller_id]["message"]["content"]:
            if block.get("id") == call_id:
                block["id"] = longer
        by_id[result_id]["message"]["toolCallId"] = longer
    return _case("lab2_broken_tool_facts", index, drawn.entries)


def leading_and_non_messages(rng: random.Random, index: int) -> Case:
    """An assistant message first, a metadata or compaction entry somewhere, or a near-miss: a path to accept."""
    drawn = draw_path(rng, (1, 4), tools=0.5, metadata=0.0)
    ids = Ids(rng)
    kind = index % 3
    if kind == 0:
        first = message_entry(ids("a-first-"), None, 0, "assistant", text(rng))
        drawn.entries[0]["parentId"] = first["id"]
        return _refused("lab2_leading_assistant_and_non_messages", index, [first, *drawn.entries], (first["id"],))
    if kind == 1:
        at = rng.randint(1, len(drawn.entries))
        parent = drawn.entries[at - 1]["id"]
        if rng.random() < 0.5:
            odd = model_change(ids("m"), parent, at, rng)
        else:
            odd = compaction_object(ids("compact-"), parent, drawn.entries[0]["id"], summary=summary(rng))
        drawn.entries.insert(at, odd)
        return _refused("lab2_leading_assistant_and_non_messages", index, drawn.entries, (odd["id"],))
    return _case("lab2_leading_assistant_and_non_messages", index, drawn.entries if index % 2 else [])


def deep_copies(rng: random.Random, index: int) -> Case:
    """The interactions share nothing with the path."""
    return _case("lab2_deep_copies", index, draw_path(rng, (1, 5), tools=0.7, metadata=0.0).entries, copies=True)


CELLS = {
    "lab2_example_groups": example_groups,
    "lab2_results_in_any_order": results_in_any_order,
    "lab2_unknown_call_rejected": unknown_call,
    "lab2_broken_tool_facts": broken_tool_facts,
    "lab2_leading_assistant_and_non_messages": leading_and_non_messages,
    "lab2_deep_copies": deep_copies,
}


def variants(rng: random.Random) -> tuple[Case, ...]:
    """``EACH`` generated cases per grade cell of lab 2, drawn from ``rng``."""
    return tuple(draw(rng, index) for draw in CELLS.values() for index in range(EACH))
