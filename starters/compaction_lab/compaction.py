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
from .provided.errors import BudgetError, CompactionError, LabNotImplementedError
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
    # Step 1: the parent comes from the path, never from the caller.
    # Step 2: keep from the start of an interaction of the current context, but not its first one.
    # Step 3: the parser checks every field and copies it.
    raise LabNotImplementedError(4, "create_compaction_entry")


def compaction_trigger(window: float, reserved_output: float, ratio: float = DEFAULT_RATIO) -> int:
    """Going further: the input, in tokens, at which to compact: ``floor((window - reserved_output) * ratio)``.

    Raises ``BudgetError`` naming the argument unless ``window`` and ``reserved_output`` are finite
    numbers >= 0 (never bools), ``reserved_output`` is at most ``window``, and ``ratio`` is a number
    above 0 and at most 1.
    """
    # Step 1: check every number; lab 3's check_tokens checks an amount of tokens.
    # Step 2: the share of what the window leaves for input.
    raise LabNotImplementedError(4, "compaction_trigger")


def should_compact(estimated_input: float, window: float, reserved_output: float, ratio: float = DEFAULT_RATIO) -> bool:
    """Going further: True when ``estimated_input`` (tokens) reaches ``compaction_trigger(window,
    reserved_output, ratio)``. ``BudgetError`` naming the argument for a bad number (``estimated_input``
    is checked as an amount of tokens, the others as ``compaction_trigger`` checks them)."""
    # Step 1: the input is an amount of tokens too.
    # Step 2: reaching the trigger is enough.
    raise LabNotImplementedError(4, "should_compact")


def group_tool_rounds(entries: list[Entry]) -> list[list[Entry]]:
    """Going further: split message entries (path order) into tool rounds, the smallest groups a cut
    may never split.

    An assistant message with tool calls spans to the last of its calls' results (or from the first,
    if a result came first); spans that overlap merge into one round; every other message is a round of
    its own. Rounds never cross a user message: they are read inside lab 2's interactions, whose errors
    (``InteractionError`` naming the entry or call id) come through. Returns deep copies, in path order.
    """
    # Step 1: lab 2 checks the pairs and splits at user messages: a round never crosses an interaction.
    # Step 2: in each interaction, a round runs as far as its messages' calls and results reach.
    raise LabNotImplementedError(4, "group_tool_rounds")


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
    # Step 1: check the numbers.
    # Step 2: the current context's messages in tool rounds, each round priced.
    # Step 3: from the oldest round, the first whole-round cut that fits and keeps the recent messages.
    raise LabNotImplementedError(4, "select_compaction_boundary")


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
    # Step 1: when: the estimated input of the current context against the trigger.
    # Step 2: where: whole tool rounds, then the first user message from there.
    # Step 3: summarize: a frozen request of copies; look at the token before and after.
    # Step 4: verify: a valid summary, within its budget, keeping the facts; the new context fits.
    # Step 5: seal, look at the token one last time, append once.
    raise LabNotImplementedError(4, "compact")
