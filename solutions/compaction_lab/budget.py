"""Lab 3, budget projection: rebuild the model context to fit a token budget.

The history never changes; the context is rebuilt to fit. The window (``max_tokens``) pays
first for the system prompt, the reserved output and a safety margin; what is left is for
messages. Whole interactions are kept from the newest backwards while they fit, so a tool
call is never sent without its result. If even the newest interaction does not fit, it is
kept whole anyway (the total then exceeds the window, and the reason says so).
All amounts are tokens, as priced by the caller's ``estimate_tokens``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .grouping import group_interactions
from .provided.errors import BudgetError
from .records import Entry
from .resumption import resume_point

Estimator = Callable[[Any], float]
"""Prices a system prompt (``str``) or a message (``dict``) in tokens; called with copies."""

REASONS: tuple[str, ...] = ("complete", "trimmed", "single_group_overflow")
"""``complete``: no interaction was left out; ``trimmed``: at least one older interaction was
left out; ``single_group_overflow``: the newest interaction alone exceeds the budget."""


@dataclass(frozen=True)
class BudgetOptions:
    """The window and its fixed costs, in tokens, and the estimator that prices the rest."""

    max_tokens: float
    system_prompt: str
    reserved_output: float
    safety_margin: float
    estimate_tokens: Estimator


@dataclass(frozen=True)
class TokenLedger:
    """How a context spends its window, in tokens.

    ``available_for_messages = max(0, max_tokens - system - reserved_output - safety_margin)``;
    ``total = system + messages + reserved_output + safety_margin`` (above ``max_tokens`` only
    with reason ``single_group_overflow``).
    """

    max_tokens: float
    system: float
    messages: float
    reserved_output: float
    safety_margin: float
    available_for_messages: float
    total: float


@dataclass(frozen=True)
class Context:
    """What the model sees: ``messages`` (deep copies, path order, a compaction's summary first),
    the ids of the real entries kept, the reason, the ledger, and the compaction used (or None)."""

    system_prompt: str
    messages: list[dict[str, Any]]
    kept_entry_ids: list[str]
    reason: str
    tokens: TokenLedger
    compaction_id: str | None = None


def check_options(options: BudgetOptions) -> None:
    """Raise ``BudgetError`` naming the option unless the four numbers are finite and >= 0
    (a bool is not a number), the system prompt is a string and the estimator is callable."""
    for name in ("max_tokens", "reserved_output", "safety_margin"):
        check_tokens(getattr(options, name), name)
    if not isinstance(options.system_prompt, str):
        raise BudgetError(f"system_prompt: expected a string, got {options.system_prompt!r}")
    if not callable(options.estimate_tokens):
        raise BudgetError("estimate_tokens: expected a callable")


def check_tokens(value: Any, what: str) -> float:
    """Return ``value`` if it is a finite number >= 0 and not a bool; ``BudgetError`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise BudgetError(f"{what}: expected a finite number of tokens >= 0, got {value!r}")
    return value


def measure(options: BudgetOptions, item: Any, what: str) -> float:
    """Price ``item`` with the estimator, which gets a deep copy (it cannot change the path),
    and check the result with ``check_tokens``; ``what`` names the item in errors."""
    return check_tokens(options.estimate_tokens(copy.deepcopy(item)), f"estimate for {what}")


def build_context(active_path: list[Entry], options: BudgetOptions) -> Context:
    """Lab 3: build the context of ``active_path`` (entries, root first) within ``options``.

    Metadata entries are skipped. With a compaction on the path, ``resume_point`` (lab 5)
    supplies its summary message, whose cost is paid from the message budget before any
    interaction. Interactions (``group_interactions``, lab 2) are added whole, newest first,
    while they fit, stopping at the first that does not. Reasons: see ``REASONS``. Raises
    ``BudgetError`` for bad options or estimates, and the errors of labs 2 and 5.
    """
    check_options(options)
    start = resume_point(active_path)
    # BEGIN LAB 3
    # Step 1: the fixed costs come off the window first.
    system = measure(options, options.system_prompt, "the system prompt")
    available = max(0, options.max_tokens - system - options.reserved_output - options.safety_margin)
    # Step 2: a compaction's summary is paid before any interaction.
    prefix = [] if start.summary_message is None else [start.summary_message]
    used = sum(measure(options, message, f"the summary of {start.compaction_id}") for message in prefix)
    # Step 3: whole interactions, newest first, while they fit.
    groups = group_interactions(start.entries)
    kept: list[list[Entry]] = []
    overflow = False
    for group in reversed(groups):
        cost = sum(measure(options, entry["message"], f"entry {entry['id']!r}") for entry in group)
        if used + cost > available:
            overflow = not kept  # the newest interaction is kept whole even when it does not fit
            if overflow:
                kept.append(group)
                used += cost
            break
        kept.append(group)
        used += cost
    kept.reverse()
    # Step 4: the reason, the messages and the ledger.
    if overflow:
        reason = "single_group_overflow"
    else:
        reason = "trimmed" if len(kept) < len(groups) else "complete"
    entries = [entry for group in kept for entry in group]
    return Context(
        system_prompt=options.system_prompt,
        messages=prefix + [entry["message"] for entry in entries],
        kept_entry_ids=[entry["id"] for entry in entries],
        reason=reason,
        tokens=TokenLedger(
            max_tokens=options.max_tokens, system=system, messages=used,
            reserved_output=options.reserved_output, safety_margin=options.safety_margin,
            available_for_messages=available,
            total=system + used + options.reserved_output + options.safety_margin,
        ),
        compaction_id=start.compaction_id,
    )
    # END LAB 3
