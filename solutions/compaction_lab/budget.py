"""Lab 3, budget projection: rebuild the model context to fit a token budget.

The history never changes; the context is rebuilt to fit. The window (``max_tokens``) pays
first for the system prompt, the reserved output and a safety margin; what is left is for
messages. Whole interactions are kept from the newest backwards while they fit, so a tool
call is never sent without its result. If even the newest interaction does not fit, it is
kept whole anyway (the total then exceeds the window, and the reason says so).
All amounts are tokens, as priced by the caller's ``estimate_tokens``.

Going further (extra credit): where a compaction's summary goes (``place_summary``, the
``summary_at`` option of ``build_context``) and the budget the chapter 12 text recommends
(``recommended_options``); a deterministic unit estimator (``estimate_units``); and how often a
provider's prompt cache is hit as a session grows (``replay``).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .grouping import group_interactions
from .provided.errors import BudgetError
from .provided.estimators import IMAGE_CHARS, chars3
from .records import Entry
from .resumption import ResumePoint, resume_point

Estimator = Callable[[Any], float]
"""Prices a system prompt (``str``) or a message (``dict``) in tokens; called with copies."""

REASONS: tuple[str, ...] = ("complete", "trimmed", "single_group_overflow")
"""``complete``: no interaction was left out; ``trimmed``: at least one older interaction was
left out; ``single_group_overflow``: the newest interaction alone exceeds the budget."""

SUMMARY_PLACES: tuple[str, ...] = ("first_message", "system_prompt")
"""Where ``build_context`` puts a compaction's summary (``place_summary``): ``first_message``, lab 5's
synthetic user message before the kept interactions, paid from the message budget; or
``system_prompt``, at the end of the system prompt after a blank line, paid with it."""


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


def build_context(active_path: list[Entry], options: BudgetOptions, *, summary_at: str = "first_message") -> Context:
    """Lab 3: build the context of ``active_path`` (entries, root first) within ``options``.

    Metadata entries are skipped. With a compaction on the path, ``resume_point`` (lab 5)
    supplies its summary message, whose cost is paid from the message budget before any
    interaction. Interactions (``group_interactions``, lab 2) are added whole, newest first,
    while they fit, stopping at the first that does not. Reasons: see ``REASONS``. Raises
    ``BudgetError`` for bad options or estimates, and the errors of labs 2 and 5.
    ``summary_at`` (Going further) says where the summary goes: ``place_summary``.
    """
    check_options(options)
    options, start = place_summary(options, resume_point(active_path), summary_at)
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
            max_tokens=options.max_tokens,
            system=system,
            messages=used,
            reserved_output=options.reserved_output,
            safety_margin=options.safety_margin,
            available_for_messages=available,
            total=system + used + options.reserved_output + options.safety_margin,
        ),
        compaction_id=start.compaction_id,
    )
    # END LAB 3


def place_summary(options: BudgetOptions, start: ResumePoint, summary_at: str) -> tuple[BudgetOptions, ResumePoint]:
    """Going further: put the summary of ``start`` (``resume_point``'s result) where ``summary_at`` says.

    ``first_message`` returns ``options`` and ``start`` as they are. ``system_prompt`` returns new options
    whose system prompt is the caller's, a blank line (``"\\n\\n"``) and the summary message's text (the
    text alone when the caller's prompt is empty), and a new start without ``summary_message`` (same
    ``compaction_id`` and entries): ``build_context`` then prices the summary with the system prompt (the
    ledger's ``system``, a fixed cost), its messages begin with the first kept entry and its
    ``system_prompt`` shows the summary. Without a compaction nothing moves. Raises ``BudgetError`` naming
    ``summary_at`` when it is not one of ``SUMMARY_PLACES``.
    """
    if summary_at not in SUMMARY_PLACES:
        raise BudgetError(f"summary_at: expected one of {', '.join(SUMMARY_PLACES)}, got {summary_at!r}")
    if summary_at == "first_message":
        return options, start
    # BEGIN LAB 3
    # Step 1: without a summary nothing moves.
    if start.summary_message is None:
        return options, start
    # Step 2: the summary's text goes at the end of the system prompt, after a blank line.
    text = start.summary_message["content"]
    prompt = f"{options.system_prompt}\n\n{text}" if options.system_prompt else text
    # Step 3: the start keeps its compaction id and entries, without the summary message.
    return dataclasses.replace(options, system_prompt=prompt), dataclasses.replace(start, summary_message=None)
    # END LAB 3


OUTPUT_PERCENT = 10
"""The share of the window the chapter 12 text leaves for the model's answer; input gets the other 90 %."""


def recommended_options(max_tokens: float, system_prompt: str = "") -> BudgetOptions:
    """The budget the chapter 12 text recommends for a window of ``max_tokens`` tokens.

    Input gets 90 % of the window and the rest is left for output (``reserved_output`` =
    ``max_tokens * 10 / 100``); tokens are estimated with ``chars3`` (``ceil(chars / 3)``, deliberately
    high), which is why there is no separate safety margin (0). Build with ``summary_at="system_prompt"``:
    the chapter puts the summary of dropped history at the end of the system prompt. Raises
    ``BudgetError`` naming ``max_tokens`` unless it is a finite number >= 0.
    """
    check_tokens(max_tokens, "max_tokens")
    return BudgetOptions(
        max_tokens=max_tokens,
        system_prompt=system_prompt,
        reserved_output=max_tokens * OUTPUT_PERCENT / 100,
        safety_margin=0,
        estimate_tokens=chars3,
    )


UNIT_WEIGHTS: dict[str, int] = {
    "requirement": 3,
    "message": 4,
    "block": 1,
    "link": 1,
    "json_container": 1,
    "json_scalar": 1,
    "image": IMAGE_CHARS,
}
"""The structural weights of ``estimate_units``, in units; everything else costs its code points."""
ROLES: tuple[str, ...] = ("user", "assistant", "toolResult")


def estimate_units(item: Any) -> int:
    """Going further: price ``item`` in *units*, the same on every machine and for every provider.

    A teaching estimator, not a tokenizer: a unit is one Unicode code point of text (``"😀"`` is 1, not
    the 2 UTF-16 units or 4 UTF-8 bytes), plus fixed structural weights (``UNIT_WEIGHTS``):

    - a *requirement* (an instruction the context always carries): a string such as the system prompt,
      or an object without a ``role`` holding ``content`` (a string) and optionally ``id``: 3 + the code
      points of ``id`` and ``content`` (``{"id": "r", "content": "AB"}`` costs 3 + 1 + 2 = 6);
    - a *message* (an object with ``role`` ``user``, ``assistant`` or ``toolResult``): 4 for its role and
      framing, whatever the role, + the code points of its ``id`` if it has one, + its content
      (``{"id": "u", "role": "user", "content": "a"}`` costs 4 + 1 + 1 = 6); a tool result adds its link
      to the call: 1 + the code points of ``toolCallId`` and ``toolName``;
    - content: a string costs its code points; a list of blocks the sum of its blocks: a ``text`` or
      ``thinking`` block 1 + the code points of its text, an ``image`` block 4,800 whatever its data
      (Pi's figure for an image), a ``toolCall`` block 1 + the code points of its ``id`` and ``name`` +
      its ``arguments`` as a JSON value;
    - a JSON value: an object or array 1 + its members (an object's keys cost their code points, and are
      visited in sorted order), a string its code points, a number, ``true``, ``false`` or ``null`` 1
      (its written form differs between writers: ``1.0`` or ``1``, so it cannot count);
    - a list of items (requirements and messages): the sum of its items (the two examples together
      cost 12).

    Nothing else is priced (``isError``, ``stopReason``, usage and other provider fields). Never changes
    ``item``. Raises ``BudgetError`` naming the path of the first part it cannot price (in key order):
    another type, an unknown role or block type, a missing or non-string text, id, name or link,
    arguments that are not an object, and JSON values that are not JSON (NaN, infinity, a tuple, a
    non-string key).
    """
    # BEGIN LAB 3
    # Step 1: an item is a requirement (a string, or an object without a role) or a message of a known role.
    # Step 2: a message's content is its string, or its blocks each with its weight; arguments are JSON values.
    # Step 3: a list of items costs the sum of its items.
    if type(item) is list:
        return sum(_item_units(part, f"[{index}]") for index, part in enumerate(item))
    return _item_units(item, "item")
    # END LAB 3


@dataclass(frozen=True)
class CachePolicy:
    """How an agent keeps its context as a session grows (``replay``).

    ``headroom`` (0 <= headroom < 1): when the next turn does not fit, the share of the message budget the
    rebuilt context leaves free, so that the next turns fit again by appending (0: rebuild to the full
    budget, lab 3 as is). ``summary_at``: where a compaction's summary goes (``SUMMARY_PLACES``).
    """

    headroom: float = 0.0
    summary_at: str = "first_message"


@dataclass(frozen=True)
class Replay:
    """What a provider's prompt cache saw over a replayed session.

    ``requests``: one per user message on the path. ``hits``: requests after the first whose prefix is
    the previous request exactly (its system prompt and messages, unchanged and in order), so the
    provider reuses its work and processes only what was added. ``reprocessed_tokens``: over the other
    requests (misses), their system and message tokens, which the provider processes again from the start.
    """

    requests: int
    hits: int
    reprocessed_tokens: float

    @property
    def hit_rate(self) -> float:
        """``hits`` over the requests that had a previous one (0.0 with fewer than two requests)."""
        return self.hits / (self.requests - 1) if self.requests > 1 else 0.0


def check_policy(policy: CachePolicy) -> None:
    """Raise ``BudgetError`` naming the field unless ``policy`` is a ``CachePolicy`` whose ``headroom`` is a
    finite number with 0 <= headroom < 1 (a bool is not a number) and whose ``summary_at`` is one of
    ``SUMMARY_PLACES``."""
    if type(policy) is not CachePolicy:
        raise BudgetError(f"policy: expected a CachePolicy, got {type(policy).__name__}")
    headroom = policy.headroom
    if isinstance(headroom, bool) or not isinstance(headroom, (int, float)) or not 0 <= headroom < 1:
        raise BudgetError(f"headroom: expected a number with 0 <= headroom < 1, got {headroom!r}")
    if policy.summary_at not in SUMMARY_PLACES:
        raise BudgetError(f"summary_at: expected one of {', '.join(SUMMARY_PLACES)}, got {policy.summary_at!r}")


def path_from(active_path: list[Entry], first_id: str) -> list[Entry]:
    """The part of ``active_path`` that a context starting at entry ``first_id`` needs (``replay``'s rebuilds).

    The entries from ``first_id`` on, without compaction entries, then, when the path holds a
    compaction, the latest one again with its first kept entry moved to ``first_id`` (its summary still
    comes first). ``build_context`` on the result starts at ``first_id`` at the earliest, which must be a
    user message at or after the latest compaction's first kept entry. The entries are the path's own
    (not copies). Raises ``BudgetError`` naming ``first_id`` when it is not on the path.
    """
    index = next((i for i, entry in enumerate(active_path) if entry["id"] == first_id), None)
    if index is None:
        raise BudgetError(f"entry {first_id!r} is not on the path")
    part = [entry for entry in active_path[index:] if entry["type"] != "compaction"]
    latest = next((entry for entry in reversed(active_path) if entry["type"] == "compaction"), None)
    return part if latest is None else [*part, {**latest, "firstKeptEntryId": first_id}]


def is_user_message(entry: Entry) -> bool:
    """Whether ``entry`` is a message entry whose role is ``user`` (where an interaction starts)."""
    return entry["type"] == "message" and entry["message"]["role"] == "user"


def replay(active_path: list[Entry], options: BudgetOptions, policy: CachePolicy) -> Replay:
    """Going further: replay ``active_path`` turn by turn, as an agent sends it, and count prompt-cache hits.

    One request per user message: the context of the path up to and including it. An agent does not
    rebuild from the history each turn: it appends the turn's new messages (those since the previous
    request) to the request it sent last, as long as the message tokens still fit the budget
    (``available_for_messages``); their pairs are checked as lab 2 checks them. Otherwise, and whenever a
    new compaction is on the path, it rebuilds with ``build_context`` (``summary_at=policy.summary_at``).
    When that rebuild leaves an interaction out and ``policy.headroom`` > 0, it rebuilds again with
    ``headroom`` times the message budget added to the safety margin: a lower target, so the next turns fit
    by appending. A request is a cache hit when the previous request is its prefix (an appended request
    always is); a miss re-processes its system and message tokens (``Replay``). With headroom 0 the
    contexts are those of ``build_context`` on each turn's whole path.

    A rebuild never reaches back past the first entry of the previous request (what did not fit then
    does not fit now), so it may be built from ``path_from(path, that entry)`` instead of the whole path,
    unless a new compaction came: the same context from far fewer entries (a real session's replay then
    takes seconds, not a minute). Never changes ``active_path``. Raises ``BudgetError`` for bad options,
    policy or estimates, and the errors of ``build_context``.
    """
    check_options(options)
    check_policy(policy)
    # BEGIN LAB 3
    # Step 1: one request per user message, on the path up to it; nothing sent yet.
    # Step 2: append a turn's new messages to the previous request while they fit (not after a new compaction).
    # Step 3: otherwise rebuild (from where the previous request started); with headroom, to a lower target.
    # Step 4: a hit when the previous request is the new one's prefix; a miss re-processes all its tokens.
    turns = [end for end, entry in enumerate(active_path) if is_user_message(entry)]
    sent: list[Any] | None = None
    first = None
    used = available = reprocessed = 0.0
    hits = 0
    for previous, end in zip([-1, *turns], turns, strict=False):
        added = active_path[previous + 1 : end + 1]
        compacted = any(entry["type"] == "compaction" for entry in added)
        if sent is not None and not compacted:
            new = [entry for entry in added if entry["type"] == "message"]
            group_interactions([active_path[previous], *new])
            cost = sum(measure(options, entry["message"], f"entry {entry['id']!r}") for entry in new)
            if used + cost <= available:
                sent, used, hits = [*sent, *(entry["message"] for entry in new)], used + cost, hits + 1
                continue
        path = active_path[: end + 1] if first is None or compacted else path_from(active_path[: end + 1], first)
        context = build_context(path, options, summary_at=policy.summary_at)
        available = context.tokens.available_for_messages
        if context.reason != "complete" and policy.headroom:
            lower = dataclasses.replace(options, safety_margin=options.safety_margin + policy.headroom * available)
            context = build_context(path, lower, summary_at=policy.summary_at)
        request = [context.system_prompt, *context.messages]
        if sent is not None and request[: len(sent)] == sent:
            hits += 1
        elif sent is not None:
            reprocessed += context.tokens.system + context.tokens.messages
        sent, used, first = request, context.tokens.messages, context.kept_entry_ids[0]
    return Replay(requests=len(turns), hits=hits, reprocessed_tokens=reprocessed)
    # END LAB 3


# BEGIN LAB 3
def _item_units(item: Any, path: str) -> int:
    """One requirement (a string, or an object without a role) or message, in units."""
    if type(item) is str:
        return UNIT_WEIGHTS["requirement"] + len(item)
    if type(item) is not dict:
        raise BudgetError(f"{path}: expected a string or an object, got {type(item).__name__}")
    units = _text(item, "id", path) if "id" in item else 0
    if "role" not in item:
        return UNIT_WEIGHTS["requirement"] + units + _text(item, "content", path)
    if item["role"] not in ROLES:
        raise BudgetError(f"{path}.role: expected one of {', '.join(ROLES)}, got {item['role']!r}")
    units += UNIT_WEIGHTS["message"] + _content_units(item.get("content"), f"{path}.content")
    if item["role"] == "toolResult":
        units += UNIT_WEIGHTS["link"] + _text(item, "toolCallId", path) + _text(item, "toolName", path)
    return units


def _content_units(content: Any, path: str) -> int:
    """A message's content: a string's code points, or the sum of its blocks."""
    if type(content) is str:
        return len(content)
    if type(content) is not list:
        raise BudgetError(f"{path}: expected a string or a list of blocks, got {type(content).__name__}")
    units = 0
    for index, block in enumerate(content):
        here = f"{path}[{index}]"
        kind = block.get("type") if type(block) is dict else None
        if kind == "image":
            units += UNIT_WEIGHTS["image"]
        elif kind in ("text", "thinking"):
            units += UNIT_WEIGHTS["block"] + _text(block, kind, here)
        elif kind == "toolCall":
            if type(block.get("arguments")) is not dict:
                raise BudgetError(f"{here}.arguments: expected an object")
            units += (
                UNIT_WEIGHTS["block"]
                + _text(block, "id", here)
                + _text(block, "name", here)
                + _json_units(block["arguments"], f"{here}.arguments")
            )
        else:
            raise BudgetError(f"{here}.type: expected text, thinking, image or toolCall, got {kind!r}")
    return units


def _json_units(value: Any, path: str) -> int:
    """A JSON value: containers 1 + their members (keys in sorted order), strings their code points,
    other scalars 1."""
    kind = type(value)
    if kind is str:
        return len(value)
    if kind is float and not math.isfinite(value):
        raise BudgetError(f"{path}: {value!r} is not a JSON number")
    if value is None or kind in (bool, int, float):
        return UNIT_WEIGHTS["json_scalar"]
    if kind is list:
        return UNIT_WEIGHTS["json_container"] + sum(
            _json_units(item, f"{path}[{index}]") for index, item in enumerate(value)
        )
    if kind is dict:
        if any(type(key) is not str for key in value):
            raise BudgetError(f"{path}: an object key that is not a string")
        return UNIT_WEIGHTS["json_container"] + sum(
            len(key) + _json_units(value[key], f"{path}.{key}") for key in sorted(value)
        )
    raise BudgetError(f"{path}: a {kind.__name__} is not a JSON value")


def _text(obj: dict[str, Any], key: str, path: str) -> int:
    """The code points of ``obj[key]``, which must be a string."""
    value = obj.get(key)
    if type(value) is not str:
        raise BudgetError(f"{path}.{key}: expected a string, got {value!r}")
    return len(value)


# END LAB 3
