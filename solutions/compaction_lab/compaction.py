"""Lab 4, compaction creation: make a new compaction entry for the caller to append.

A compaction replaces nothing. It is a new entry at the end of the active path that says:
"from here on, show this summary instead of everything before ``firstKeptEntryId``". Its
parent is the path's last entry, and it may only keep from the first message of an
interaction, so a kept suffix never starts between a tool call and its result. It must
compact something: keeping from the first message the context is built from would only add
a summary. ``create_compaction_entry`` writes no store: the caller appends the returned entry.

Going further (extra credit): the compaction an agent runs. ``should_compact`` says when (the
estimated input reaches ``compaction_trigger``, a share of the window); ``group_tool_rounds`` and
``select_compaction_boundary`` say where (whole tool rounds, so a call is never cut from its result);
``compact`` does it on a store: it asks an injected summarizer, verifies the summary, and appends one
sealed compaction entry, or raises ``CompactionError`` with a stable ``code`` and leaves the store as it
was. Tokens are the caller's estimator's, as in lab 3.
"""

from __future__ import annotations

import copy
import inspect
import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .budget import BudgetOptions, build_context, check_options, check_tokens, measure
from .grouping import group_interactions, role, tool_calls
from .provided.errors import BudgetError, CompactionError
from .provided.stores import CHECKSUM_KEY, entry_checksum, path_to
from .provided.summarizers import CancellationToken, SummaryRequest, await_cancellable
from .records import Entry, parse_session_entry
from .resumption import resume_point, summary_message

DEFAULT_RATIO = 0.8
"""The share of the window (less the reserved output) at which ``should_compact`` triggers."""
KEPT_FACTS: tuple[str, ...] = ("constraints", "changedFiles")
"""The list fields of a previous summary whose every item a new summary must keep (and its goal)."""


def _new_entry_id() -> str:
    return f"compaction-{uuid.uuid4().hex[:12]}"


def _now_ms() -> float:
    return time.time() * 1000


@dataclass(frozen=True)
class CompactionOptions:
    """How ``compact`` decides and cuts. ``budget`` is lab 3's: ``max_tokens`` is the window,
    ``reserved_output`` is kept for the answer, the system prompt is a fixed cost and
    ``estimate_tokens`` prices everything. Compaction triggers at ``compaction_trigger(max_tokens,
    reserved_output, ratio)`` tokens of input; the summary may use ``summary_max_tokens``; the last
    ``retain_recent_messages`` messages are always kept. ``new_id()`` and ``clock()`` (milliseconds)
    give the new entry's id and timestamp."""

    budget: BudgetOptions
    summary_max_tokens: float
    retain_recent_messages: int
    ratio: float = DEFAULT_RATIO
    new_id: Callable[[], str] = field(default=_new_entry_id)
    clock: Callable[[], float] = field(default=_now_ms)


@dataclass(frozen=True)
class CompactionResult:
    """What ``compact`` did: ``status`` ``compacted`` (``entry`` is the entry appended, as the store
    holds it) or ``unchanged`` (below the trigger; ``entry`` is None), and the estimated input of the
    context before and after, in tokens (system prompt and messages)."""

    status: str
    entry: Entry | None
    tokens_before: float
    tokens_after: float


def create_compaction_entry(
    active_path: list[Entry],
    *,
    id: str,  # the wire format's own name for the new entry's id
    timestamp: float,
    summary: dict[str, Any],
    first_kept_entry_id: str,
    tokens_before: float,
) -> Entry:
    """Lab 4: return a new, parsed compaction entry whose parent is the path's last entry.

    ``first_kept_entry_id`` must be the first message of an interaction among the messages
    the current context is built from (after a compaction: from its first kept entry on), and
    not of the first such interaction: a compaction must compact something. Raises
    ``CompactionError`` naming the id for an empty path, an ``id`` already on the path or a
    first kept entry that does not start such a later interaction; ``SessionEntryError`` for
    a malformed summary or ``tokens_before``. Shares nothing with its inputs; touches no store.
    """
    # BEGIN LAB 4
    # Step 1: the parent comes from the path, never from the caller.
    if not active_path:
        raise CompactionError(f"compaction {id!r}: the active path is empty; there is nothing to compact")
    if any(entry["id"] == id for entry in active_path):
        raise CompactionError(f"compaction {id!r}: id already on the active path")
    # Step 2: keep from the start of an interaction of the current context, but not its first one.
    interactions = group_interactions(resume_point(active_path).entries)
    starts = [interaction[0]["id"] for interaction in interactions]
    if starts[:1] == [first_kept_entry_id]:
        raise CompactionError(
            f"compaction {id!r}: first kept entry {first_kept_entry_id!r} is where the current context "
            f"already starts, so nothing would be compacted (choose one of {starts[1:]})"
        )
    if first_kept_entry_id not in starts:
        raise CompactionError(
            f"compaction {id!r}: first kept entry {first_kept_entry_id!r} does not start an interaction "
            f"of the current context (choose one of {starts[1:]})"
        )
    # Step 3: the parser checks every field and copies it.
    return parse_session_entry(
        {
            "type": "compaction",
            "id": id,
            "parentId": active_path[-1]["id"],
            "timestamp": timestamp,
            "summary": summary,
            "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": tokens_before,
        }
    )
    # END LAB 4


def compaction_trigger(window: float, reserved_output: float, ratio: float = DEFAULT_RATIO) -> int:
    """Going further: the input, in tokens, at which to compact: ``floor((window - reserved_output) * ratio)``.

    Raises ``BudgetError`` naming the argument unless ``window`` and ``reserved_output`` are finite
    numbers >= 0 (never bools), ``reserved_output`` is at most ``window``, and ``ratio`` is a number
    above 0 and at most 1.
    """
    # BEGIN LAB 4
    # Step 1: check every number; lab 3's check_tokens checks an amount of tokens.
    check_tokens(window, "window")
    check_tokens(reserved_output, "reserved_output")
    if reserved_output > window:
        raise BudgetError(f"reserved_output: {reserved_output!r} tokens is more than the window {window!r}")
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise BudgetError(f"ratio: expected a number above 0 and at most 1, got {ratio!r}")
    # Step 2: the share of what the window leaves for input.
    return math.floor((window - reserved_output) * ratio)
    # END LAB 4


def should_compact(estimated_input: float, window: float, reserved_output: float, ratio: float = DEFAULT_RATIO) -> bool:
    """Going further: True when ``estimated_input`` (tokens) reaches ``compaction_trigger(window,
    reserved_output, ratio)``. ``BudgetError`` naming the argument for a bad number (``estimated_input``
    is checked as an amount of tokens, the others as ``compaction_trigger`` checks them)."""
    # BEGIN LAB 4
    # Step 1: the input is an amount of tokens too.
    check_tokens(estimated_input, "estimated_input")
    # Step 2: reaching the trigger is enough.
    return estimated_input >= compaction_trigger(window, reserved_output, ratio)
    # END LAB 4


def group_tool_rounds(entries: list[Entry]) -> list[list[Entry]]:
    """Going further: split message entries (path order) into tool rounds, the smallest groups a cut
    may never split.

    An assistant message with tool calls spans to the last of its calls' results (or from the first,
    if a result came first); spans that overlap merge into one round; every other message is a round of
    its own. Rounds never cross a user message: they are read inside lab 2's interactions, whose errors
    (``InteractionError`` naming the entry or call id) come through. Returns deep copies, in path order.
    """
    # BEGIN LAB 4
    # Step 1: lab 2 checks the pairs and splits at user messages: a round never crosses an interaction.
    # Step 2: in each interaction, a round runs as far as its messages' calls and results reach.
    return [group for interaction in group_interactions(entries) for group in _rounds_of(interaction)]
    # END LAB 4


def select_compaction_boundary(
    active_path: list[Entry],
    *,
    target_tokens: float,
    summary_max_tokens: float,
    retain_recent_messages: int,
    estimate_tokens: Callable[[Any], float],
    fixed_tokens: float = 0,
) -> str | None:
    """Going further: where to cut the current context of ``active_path``: the id of the first entry kept.

    The messages are those of ``resume_point(active_path).entries`` (lab 5), in ``group_tool_rounds``.
    Walking whole rounds from the oldest, return the first round's first entry such that ``fixed_tokens``
    (e.g. the system prompt) + ``summary_max_tokens`` (the whole summary budget, reserved) + the messages
    from there on fit ``target_tokens``, and at least the last ``retain_recent_messages`` messages are
    kept. Never the first round (a cut must compact something); ``None`` when no cut fits. Messages are
    priced with ``estimate_tokens`` on copies. ``BudgetError`` naming the argument for a bad number or
    estimate (``retain_recent_messages`` must be an int >= 0); lab 2's errors come through.
    """
    # BEGIN LAB 4
    # Step 1: check the numbers.
    for value, name in (
        (target_tokens, "target_tokens"),
        (summary_max_tokens, "summary_max_tokens"),
        (fixed_tokens, "fixed_tokens"),
    ):
        check_tokens(value, name)
    if type(retain_recent_messages) is not int or retain_recent_messages < 0:
        raise BudgetError(f"retain_recent_messages: expected an int >= 0, got {retain_recent_messages!r}")
    # Step 2: the current context's messages in tool rounds, each round priced.
    messages = resume_point(active_path).entries
    rounds = group_tool_rounds(messages)
    costs = [
        sum(
            check_tokens(estimate_tokens(copy.deepcopy(entry["message"])), f"estimate for entry {entry['id']!r}")
            for entry in group
        )
        for group in rounds
    ]
    # Step 3: from the oldest round, the first whole-round cut that fits and keeps the recent messages.
    limit = len(messages) - retain_recent_messages
    start, kept = 0, sum(costs)
    for group, cost in zip(rounds, costs, strict=True):
        if start > limit:
            return None
        if start > 0 and fixed_tokens + summary_max_tokens + kept <= target_tokens:
            return group[0]["id"]
        start, kept = start + len(group), kept - cost
    return None
    # END LAB 4


def compact(
    store: Any,
    leaf_id: str,
    options: CompactionOptions,
    summarizer: Callable[[SummaryRequest], Any],
    *,
    cancel: CancellationToken | None = None,
) -> CompactionResult:
    """Going further: compact the session of ``store`` (either store) at ``leaf_id`` if it needs it.

    1. When: the estimated input of the current context (system prompt, the latest summary's message,
       every message from its first kept entry on) below ``compaction_trigger`` -> ``unchanged``; the
       summarizer is never called.
    2. Where: ``select_compaction_boundary`` with the trigger as target and the system prompt as fixed
       cost, then the first user message from there that still keeps the recent messages (labs 3 and 5
       resume only from a user message).
    3. Summarize: one call of ``summarizer(SummaryRequest)``, a plain function or one returning an
       awaitable (awaited with ``await_cancellable``).
    4. Verify: the reply is a seven-field summary that ``create_compaction_entry`` accepts, its
       ``summary_message`` fits ``summary_max_tokens``, it keeps the previous summary's goal (within its
       own) and every constraint and changed file, and ``build_context`` of the path and the new entry
       keeps every message (``complete``).
    5. Append once, sealed with ``entry_checksum``; return ``compacted`` with the tokens before and after.

    ``cancel`` is looked at before summarizing, while an ``async`` summarizer is awaited, after it returns
    and just before appending. Failures raise ``CompactionError`` with ``code`` ``boundary_unavailable``,
    ``summarizer_failed`` (it raised, replied with no valid summary, or one over its budget),
    ``summary_lost_facts``, ``cancelled`` or ``over_budget``; bad options raise ``BudgetError``, an unknown
    leaf ``SessionStoreError``. On every failure the store (and its file) is unchanged.
    """
    # BEGIN LAB 4
    # Step 1: when: the estimated input of the current context against the trigger.
    cancel = CancellationToken() if cancel is None else cancel
    budget = options.budget
    check_options(budget)
    path = path_to(store.entries(), leaf_id)
    start = resume_point(path)
    system = measure(budget, budget.system_prompt, "the system prompt")
    shown = [start.summary_message] if start.summary_message else []
    before = (
        system
        + sum(measure(budget, message, "the latest summary") for message in shown)
        + sum(measure(budget, entry["message"], f"entry {entry['id']!r}") for entry in start.entries)
    )
    if not should_compact(before, budget.max_tokens, budget.reserved_output, options.ratio):
        return CompactionResult("unchanged", None, before, before)
    # Step 2: where: whole tool rounds, then the first user message from there.
    boundary = select_compaction_boundary(
        path,
        target_tokens=compaction_trigger(budget.max_tokens, budget.reserved_output, options.ratio),
        summary_max_tokens=options.summary_max_tokens,
        retain_recent_messages=options.retain_recent_messages,
        estimate_tokens=budget.estimate_tokens,
        fixed_tokens=system,
    )
    first_kept = _user_message_from(start.entries, boundary, options.retain_recent_messages)
    if first_kept is None:
        where = (
            "no whole-round cut fits the trigger"
            if boundary is None
            else f"no user message from the boundary {boundary!r} on"
        )
        raise _failure(
            "boundary_unavailable", leaf_id, f"{where} keeps the last {options.retain_recent_messages} messages"
        )
    # Step 3: summarize: a frozen request of copies; look at the token before and after.
    _stop_if_cancelled(cancel, leaf_id, "before summarizing")
    previous = next((entry["summary"] for entry in reversed(path) if entry["type"] == "compaction"), None)
    compacted = start.entries[: [entry["id"] for entry in start.entries].index(first_kept)]
    request = SummaryRequest(tuple(compacted), copy.deepcopy(previous), first_kept, options.summary_max_tokens)
    reply = _summarize(summarizer, request, cancel, leaf_id)
    _stop_if_cancelled(cancel, leaf_id, "after the summarizer returned")
    # Step 4: verify: a valid summary, within its budget, keeping the facts; the new context fits.
    entry = _entry_from_reply(path, options, reply, first_kept, before, leaf_id)
    cost = measure(budget, summary_message(entry["summary"]), "the new summary")
    if cost > options.summary_max_tokens:
        raise _failure(
            "summarizer_failed",
            leaf_id,
            f"the summary costs {cost} tokens, more than its budget of {options.summary_max_tokens}",
        )
    _check_kept_facts(previous, entry["summary"], leaf_id)
    context = build_context(path + [entry], budget)
    if context.reason != "complete":
        raise _failure(
            "over_budget",
            leaf_id,
            f"the compacted context ({context.reason}) still does not fit the window of {budget.max_tokens} tokens",
        )
    # Step 5: seal, look at the token one last time, append once.
    sealed = {**entry, CHECKSUM_KEY: entry_checksum(entry)}
    _stop_if_cancelled(cancel, leaf_id, "before appending")
    appended = store.append(sealed)
    return CompactionResult("compacted", appended, before, context.tokens.system + context.tokens.messages)
    # END LAB 4


# BEGIN LAB 4
def _rounds_of(interaction: list[Entry]) -> list[list[Entry]]:
    """The tool rounds of one interaction: each call id spans from its first to its last message (the call
    and its result, in either order); a round closes where no span of its messages reaches further."""
    where: dict[str, list[int]] = {}
    for index, entry in enumerate(interaction):
        for call in tool_calls(entry):
            where.setdefault(call["id"], []).append(index)
        if role(entry) == "toolResult":
            where.setdefault(entry["message"]["toolCallId"], []).append(index)
    reach = list(range(len(interaction)))
    for indexes in where.values():
        reach[min(indexes)] = max(reach[min(indexes)], max(indexes))
    rounds: list[list[Entry]] = []
    end = -1
    for index, entry in enumerate(interaction):
        if index > end:
            rounds.append([])
        rounds[-1].append(entry)
        end = max(end, reach[index])
    return rounds


def _failure(code: str, leaf_id: str, why: str) -> CompactionError:
    """The error ``compact`` raises: its code first, then what went wrong at ``leaf_id``."""
    return CompactionError(f"{code}: compaction after {leaf_id!r}: {why}", code=code)


def _stop_if_cancelled(cancel: CancellationToken, leaf_id: str, when: str) -> None:
    """``cancelled`` if the token is, saying ``when`` it was seen."""
    if cancel.cancelled:
        raise _failure("cancelled", leaf_id, f"cancelled {when}")


def _user_message_from(messages: list[Entry], boundary: str | None, retain: int) -> str | None:
    """The id of the first user message at or after ``boundary`` that keeps the last ``retain`` messages."""
    if boundary is None:
        return None
    ids = [entry["id"] for entry in messages]
    candidates = messages[ids.index(boundary) : len(messages) - retain + 1]
    return next((entry["id"] for entry in candidates if role(entry) == "user"), None)


def _summarize(
    summarizer: Callable[[SummaryRequest], Any], request: SummaryRequest, cancel: CancellationToken, leaf_id: str
) -> Any:
    """Call the summarizer once; await what it returns if it is awaitable, watching ``cancel``. Whatever it
    raises is ``summarizer_failed``, except a cancellation, which stays ``cancelled``."""
    try:
        reply = summarizer(request)
        return await_cancellable(reply, cancel) if inspect.isawaitable(reply) else reply
    except Exception as error:
        if isinstance(error, CompactionError) and error.code == "cancelled":
            raise _failure("cancelled", leaf_id, "while the summarizer was awaited") from error
        raise _failure(
            "summarizer_failed", leaf_id, f"the summarizer raised {type(error).__name__}: {error}"
        ) from error


def _entry_from_reply(
    path: list[Entry], options: CompactionOptions, reply: Any, first_kept: str, tokens_before: float, leaf_id: str
) -> Entry:
    """The new entry, made by ``create_compaction_entry``; a reply it refuses is ``summarizer_failed``."""
    try:
        return create_compaction_entry(
            path,
            id=options.new_id(),
            timestamp=options.clock(),
            summary=reply,
            first_kept_entry_id=first_kept,
            tokens_before=tokens_before,
        )
    except ValueError as error:
        if isinstance(error, CompactionError):
            raise
        raise _failure("summarizer_failed", leaf_id, f"the reply is not a summary: {error}") from error


def _check_kept_facts(previous: dict[str, Any] | None, summary: dict[str, Any], leaf_id: str) -> None:
    """``summary_lost_facts`` unless ``summary`` keeps ``previous``'s goal and every item of ``KEPT_FACTS``."""
    if previous is None:
        return
    if previous["goal"] not in summary["goal"]:
        raise _failure("summary_lost_facts", leaf_id, f"the previous goal {previous['goal']!r} is missing")
    for name in KEPT_FACTS:
        for item in previous[name]:
            if item not in summary[name]:
                raise _failure(
                    "summary_lost_facts", leaf_id, f"{name} item {item!r} of the previous summary is missing"
                )


# END LAB 4
