"""Lab 3's generated variants: every grade cell of ``03_budget_projection.ipynb`` on paths drawn per grading run.

``variants(rng)`` draws, from the judge's seeded ``random.Random``, at least five cases per cell: paths of other
sizes with tool rounds and metadata, other system prompts, reserves and margins, windows placed exactly at a
boundary (the newest k interactions fit with 0 tokens to spare, or miss by one), windows below the newest
interaction and above everything, compacted paths, estimators that misbehave elsewhere and near-misses that must
be accepted, other texts to price and other replays. The judge decides each by the reference's outcome, computed
in its own process; none of it reaches a student's package.
"""

from __future__ import annotations

import random

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options, policy
from compaction_lab.provided.example import estimate_example_tokens
from workbook.grading.drawn import Drawn, cost, draw_compacted, draw_path, text

BUILD, UNITS, REPLAY = "budget.build_context", "budget.estimate_units", "budget.replay"
EACH = 5
"""Variants drawn per grade cell."""
HINT = "Inputs drawn afresh for each grading run, of the kind this cell is about."


def _case(grade_id: str, index: int, function: str, args: tuple, kwargs: dict | None = None, **extra) -> Case:
    return Case(
        f"generated_{index}", grade_id, f"{function.split('.')[-1]}(inputs drawn for this grading run)", function, args,
        kwargs or {}, hint=HINT, hidden=True, **extra,
    )  # fmt: skip


def _fixed(rng: random.Random) -> tuple[str, int, int]:
    """A drawn system prompt, reserved output and safety margin."""
    return text(rng, 1, 40), rng.randint(0, 12), rng.randint(0, 8)


def _costs(drawn: Drawn) -> list[int]:
    return [cost(group) for group in drawn.interactions]


def fixed_costs(rng: random.Random, index: int) -> Case:
    """The window's fixed costs, with any path and window."""
    prompt, reserved, margin = _fixed(rng)
    return _case(
        "lab3_fixed_costs",
        index,
        BUILD,
        (draw_path(rng).entries, options(rng.randint(0, 160), prompt, reserved, margin)),
        parts=(
            "tokens.max_tokens",
            "tokens.system",
            "tokens.reserved_output",
            "tokens.safety_margin",
            "tokens.available_for_messages",
        ),
    )


def trim_boundary(rng: random.Random, index: int) -> Case:
    """A window where the newest k interactions fit with nothing to spare, or miss by one token (k >= 2)."""
    drawn = draw_path(rng, (3, 6))
    prompt, reserved, margin = _fixed(rng)
    costs = _costs(drawn)
    kept = rng.randint(2, len(costs) - 1)
    window = estimate_example_tokens(prompt) + reserved + margin + sum(costs[-kept:]) - rng.choice((0, 1))
    return _case("lab3_trim_boundary", index, BUILD, (drawn.entries, options(window, prompt, reserved, margin)))


def newest_overflow(rng: random.Random, index: int) -> Case:
    """A window below what the newest interaction costs: it is still kept, whole."""
    drawn = draw_path(rng, (1, 5))
    prompt, reserved, margin = _fixed(rng)
    newest = _costs(drawn)[-1]
    window = estimate_example_tokens(prompt) + reserved + margin + newest - rng.randint(1, newest)
    return _case(
        "lab3_newest_group_overflow",
        index,
        BUILD,
        (drawn.entries, options(window, prompt, reserved, margin)),
        parts=("kept_entry_ids", "reason", "tokens"),
    )


def complete_and_zero(rng: random.Random, index: int) -> Case:
    """Everything fits, nothing is left for messages, or a compacted path at any window."""
    prompt, reserved, margin = _fixed(rng)
    fixed = estimate_example_tokens(prompt) + reserved + margin
    kind = index % 3
    if kind == 2:
        drawn = draw_compacted(rng, rng.randint(1, 2))
        window = rng.randint(0, fixed + sum(_costs(drawn)) + 40)
        parts: tuple[str, ...] = ("messages", "kept_entry_ids", "reason", "tokens", "compaction_id")
    else:
        drawn = draw_path(rng)
        window = fixed + sum(_costs(drawn)) + rng.randint(0, 6) if kind == 0 else rng.randint(0, fixed)
        parts = ("kept_entry_ids", "reason", "tokens")
    return _case(
        "lab3_complete_and_zero_budget", index, BUILD, (drawn.entries, options(window, prompt, reserved, margin)),
        parts=parts,
    )  # fmt: skip


def estimator_misbehaves(rng: random.Random, index: int) -> Case:
    """A bad estimate for the prompt or the messages (refused), one that is fine (accepted), or an estimator
    that writes into what it prices."""
    drawn = draw_path(rng)
    kind = index % 3
    window = rng.randint(40, 200)
    if kind == 0:
        bad = rng.choice((-rng.randint(1, 50), {"$float": "nan"}, {"$float": "inf"}, {"$float": "-inf"}, True, False))
        name = rng.choice(("constant", "messages_at"))
        return _case(
            "lab3_estimator_misbehaves", index, BUILD,
            (drawn.entries, options(window, estimator={"name": name, "value": bad})), raises="BudgetError",
        )  # fmt: skip
    if kind == 1:
        fine = rng.choice((0, rng.randint(1, 9), rng.randint(1, 40) / 4))
        return _case(
            "lab3_estimator_misbehaves", index, BUILD,
            (drawn.entries, options(window, estimator={"name": "messages_at", "value": fine})),
            parts=("kept_entry_ids", "reason", "tokens"),
        )  # fmt: skip
    return _case(
        "lab3_estimator_misbehaves", index, BUILD,
        (drawn.entries, options(window + 400, estimator={"name": "changes_its_argument"})),
        parts=("messages", "kept_entry_ids"),
    )  # fmt: skip


def copies_and_metadata(rng: random.Random, index: int) -> Case:
    """Metadata between interactions is skipped; the messages are copies."""
    drawn = draw_path(rng, (1, 5), metadata=0.8)
    if index % 2:
        return _case(
            "lab3_copies_and_metadata", index, BUILD, (drawn.entries, options(sum(_costs(drawn)) + 20)),
            parts=("messages",), copies=True,
        )  # fmt: skip
    window = rng.randint(5, sum(_costs(drawn)) + 12)
    return _case(
        "lab3_copies_and_metadata", index, BUILD, (drawn.entries, options(window)),
        parts=("kept_entry_ids", "tokens.messages"),
    )  # fmt: skip


def units(rng: random.Random, index: int, grade_id: str) -> Case:
    """``estimate_units`` of a drawn message, a list of them, a requirement or a system prompt; or a list with a
    tool call where one message has an unknown role or block type, or a result without its link (refused naming it)."""
    drawn = draw_path(rng, (1, 3), tools=1.0, metadata=0.0)
    messages = [entry["message"] for entry in drawn.entries]
    if index == EACH - 1:
        return unpriced(rng, grade_id, index, messages)
    kind = index % 4
    if kind == 0:
        item = rng.choice(messages)
    elif kind == 1:
        item = rng.sample(messages, rng.randint(1, len(messages)))
    elif kind == 2:
        item = {"id": text(rng, 1, 1).rstrip("."), "content": text(rng) + rng.choice(("", "😀", "é", "中文"))}
    else:
        item = text(rng, 0, 30)
    return _case(grade_id, index, UNITS, (item,))


def unpriced(rng: random.Random, grade_id: str, index: int, messages: list) -> Case:
    """``messages`` (one with a tool call among them) with one fault placed in a drawn message: an unknown
    role, an unknown block type, or a tool result without its ``toolCallId``."""
    results = [message for message in messages if message["role"] == "toolResult"]
    fault = rng.choice(("role", "type", "toolCallId"))
    if fault == "toolCallId":
        del rng.choice(results)["toolCallId"]
    elif fault == "type":
        rng.choice([message for message in messages if message["role"] == "assistant"])["content"][0]["type"] = "audio"
    else:
        rng.choice(messages)["role"] = rng.choice(("system", "developer", "tool"))
    return _case(grade_id, index, UNITS, (messages,), raises="BudgetError", naming=(fault,))


def summary_in_system_prompt(rng: random.Random, index: int, grade_id: str) -> Case:
    """The summary at the end of the system prompt, on a drawn compacted path (or none) at any window."""
    drawn = draw_compacted(rng, rng.randint(1, 3)) if index % 4 else draw_path(rng)
    prompt, reserved, margin = _fixed(rng)
    fixed = estimate_example_tokens(prompt) + reserved + margin
    window = rng.randint(0, fixed + sum(_costs(drawn)) + 60)
    edges = grade_id == "lab3_extra_summary_placement_edges"
    return _case(
        grade_id, index, BUILD, (drawn.entries, options(window, prompt, reserved, margin)),
        {"summary_at": "system_prompt"}, parts=("kept_entry_ids", "reason", "tokens") if edges else (),
        copies=not edges,
    )  # fmt: skip


def cache_replay(rng: random.Random, index: int, grade_id: str) -> Case:
    """``replay`` of a drawn path (compacted for the edges), any window, headroom and summary place."""
    edges = grade_id == "lab3_extra_cache_replay_edges"
    drawn = draw_compacted(rng, rng.randint(1, 2)) if edges and index % 2 else draw_path(rng, (2, 8))
    window = rng.randint(10, 20 + sum(_costs(drawn)))
    place = rng.choice(("first_message", "system_prompt")) if edges else "first_message"
    return _case(
        grade_id, index, REPLAY, (drawn.entries, options(window), policy(rng.choice((0.0, 0.25, 0.5, 0.75)), place))
    )


CELLS = {
    "lab3_fixed_costs": fixed_costs,
    "lab3_trim_boundary": trim_boundary,
    "lab3_newest_group_overflow": newest_overflow,
    "lab3_complete_and_zero_budget": complete_and_zero,
    "lab3_estimator_misbehaves": estimator_misbehaves,
    "lab3_copies_and_metadata": copies_and_metadata,
}
EXTRA = {
    "lab3_extra_units_estimator": units,
    "lab3_extra_units_weights": units,
    "lab3_extra_summary_in_system_prompt": summary_in_system_prompt,
    "lab3_extra_summary_placement_edges": summary_in_system_prompt,
    "lab3_extra_cache_replay": cache_replay,
    "lab3_extra_cache_replay_edges": cache_replay,
}


def variants(rng: random.Random) -> tuple[Case, ...]:
    """``EACH`` generated cases per grade cell of lab 3 (extra credit included), drawn from ``rng``."""
    made = [draw(rng, index) for draw in CELLS.values() for index in range(EACH)]
    made += [draw(rng, index, grade_id) for grade_id, draw in EXTRA.items() for index in range(EACH)]
    return tuple(made)
