"""Drivers: lab functions played through a short scenario the way their callers use them, for the cases.

A case (``provided/checking``) is one call whose result is plain data. Some behaviours only show when a
caller does more than one call: a store appends, hands out copies, closes and opens again; a compaction
entry is appended to a store; a caller changes a context and builds again; an agent compacts a session
file with a summarizer and a cancellation token. Some inputs are functions, which a case cannot send: it
names them (an estimator, a scripted summarizer) and the driver makes them. Each driver here runs such a
scenario on fresh copies of its arguments (the case's inputs stay unchanged) and returns what it saw as
plain data, or lets the error through. The stores parse every entry with ``parse_session_entry``, so a
compaction entry reaches your ``parse_compaction_entry``; the lab functions are looked up when a driver
runs, so it always calls the module as it is now.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

from ... import budget, compaction, records, resumption
from ...records import Entry
from ...resumption import summary_message
from ..errors import CompactionError
from ..stores import InMemorySessionStore, JsonlSessionStore, path_to
from ..summarizers import AsyncScriptedSummarizer, CancellationToken, ScriptedSummarizer
from .wire import estimator

CHANGED = "changed by the caller"
"""What ``scribble`` writes into a caller's objects."""


def scribble(value: Any) -> None:
    """Change ``value`` in place as a careless caller might: every string held in a dict becomes
    ``CHANGED`` and every list, at any depth, gets ``CHANGED`` appended."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                value[key] = CHANGED
            else:
                scribble(item)
    elif isinstance(value, list):
        for item in value:
            scribble(item)
        value.append(CHANGED)


def in_memory_store(entries: list[Entry]) -> dict[str, Any]:
    """Append copies of ``entries``, in order, to a new ``InMemorySessionStore`` and report what it
    then hands out about the last entry appended.

    Returns ``{"ids": [the store's entry ids, in append order], "last": store.get(last id),
    "last_after_changes": store.get(last id) again after the caller scribbled (``scribble``) on both
    the object it appended and another copy that ``get`` handed out, "path_to_last": [the ids of
    path_to(store.entries(), last id)]}``. ``SessionEntryError`` (a malformed entry) and
    ``SessionStoreError`` (an id appended twice, an unknown parent) come through from ``append``.
    """
    appended = copy.deepcopy(entries)
    store = InMemorySessionStore()
    for entry in appended:
        store.append(entry)
    last_id = appended[-1]["id"]
    last = store.get(last_id)
    scribble(store.get(last_id))
    scribble(appended[-1])
    return {
        "ids": entry_ids(store.entries()),
        "last": last,
        "last_after_changes": store.get(last_id),
        "path_to_last": entry_ids(path_to(store.entries(), last_id)),
    }


def jsonl_reopen(entries: list[Entry]) -> dict[str, Any]:
    """Append copies of ``entries``, in order, to a new ``JsonlSessionStore`` in a temporary folder,
    then open the same file again as a second store and report what the reopened store holds.

    Returns ``{"entries": reopened.entries(), "read_only": reopened.read_only, "lines": the number of
    lines in the file}``; the folder is removed before returning. Errors of ``append`` or of reopening
    (``SessionEntryError``, ``SessionStoreError``) come through.
    """
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "session.jsonl"
        store = JsonlSessionStore(file)
        for entry in copy.deepcopy(entries):
            store.append(entry)
        reopened = JsonlSessionStore(file)
        return {
            "entries": reopened.entries(),
            "read_only": reopened.read_only,
            "lines": len(file.read_text(encoding="utf-8").splitlines()),
        }


class CallerMapping(dict):
    """A caller's own mapping type: a ``dict`` subclass, which is not plain JSON data."""


def parse_guarded_with_caller_mapping(entry: Entry, key: str) -> Entry:
    """Lab 1's guarded parser fed what a caller's own objects look like: a copy of ``entry`` whose ``key``
    (an object) is a ``CallerMapping`` with the same items, parsed with ``parse_session_entry(...,
    guarded=True)``. Returns the parsed entry; ``SessionEntryError`` from the parser comes through."""
    fed = copy.deepcopy(entry)
    fed[key] = CallerMapping(fed[key])
    return records.parse_session_entry(fed, guarded=True)


def append_compaction(entries: list[Entry], **arguments: Any) -> list[str]:
    """Lab 4 as its caller uses it: ``create_compaction_entry(entries, **arguments)``, then ``entries`` and
    the new entry appended in order to a new ``InMemorySessionStore``. Returns the ids of the store's path
    from the root to the new entry (``path_to``, ``arguments["id"]``). Raises what the lab or the store
    raises (``SessionEntryError`` for a malformed entry, ``SessionStoreError`` for an unknown parent)."""
    entry = compaction.create_compaction_entry(entries, **arguments)
    store = InMemorySessionStore()
    for item in [*entries, entry]:
        store.append(item)
    return entry_ids(path_to(store.entries(), arguments["id"]))


def rebuild_context_after_changes(active_path: list[Entry], options: budget.BudgetOptions) -> dict[str, Any]:
    """``build_context(active_path, options)`` twice; between the two builds the caller scribbles on every
    message of the first context (``scribble``). Returns ``{"first": the first context as built, "second":
    the second context}``: equal, and equal to a single build, when nothing the caller holds is shared with
    the path or with what the next build uses."""
    first = budget.build_context(active_path, options)
    as_built = copy.deepcopy(first)
    scribble(first.messages)
    return {"first": as_built, "second": budget.build_context(active_path, options)}


def resume_again_after_changes(active_path: list[Entry]) -> dict[str, Any]:
    """``resume_point(active_path)`` twice; between the two calls the caller scribbles (``scribble``) on the
    first result's summary message and entries. Returns ``{"first": ..., "second": ...}``, each the resume
    point's ``compaction_id``, ``summary_message`` and ``entries`` as a dict (the first as returned, before the
    changes): equal when nothing the caller holds is kept for the next call (a summary message cached per
    compaction and handed out again is not)."""
    first = resumption.resume_point(active_path)
    as_returned = _resume_fields(copy.deepcopy(first))
    scribble(first.summary_message)
    scribble(first.entries)
    return {"first": as_returned, "second": _resume_fields(resumption.resume_point(active_path))}


def _resume_fields(point: Any) -> dict[str, Any]:
    """The three fields a resume point must have, whatever else its class holds."""
    return {name: getattr(point, name) for name in ("compaction_id", "summary_message", "entries")}


def compaction_boundary(
    active_path: list[Entry], *, estimator_spec: dict[str, Any] | None = None, **keywords: Any
) -> str | None:
    """``select_compaction_boundary(active_path, estimate_tokens=..., **keywords)`` with the estimator that
    ``estimator_spec`` names (``wire.estimator``; the example's by default)."""
    return compaction.select_compaction_boundary(
        active_path, estimate_tokens=estimator(estimator_spec or {"name": "example"}), **keywords
    )


CANCEL_MOMENTS = ("before", "while_summarizing", "while_verifying")
"""When ``run_compact``'s token is cancelled: before ``compact`` is called; by the summarizer as it starts
(an ``async`` one then keeps being awaited); or while ``compact`` prices the new summary's message."""


def run_compact(
    entries: list[Entry],
    options: budget.BudgetOptions,
    *,
    leaf_id: str,
    id: str,
    timestamp: float,
    summary_max_tokens: float,
    retain_recent_messages: int,
    ratio: float = compaction.DEFAULT_RATIO,
    reply: Any = None,
    error: str | None = None,
    summarizer: str = "plain",
    cancel: str | None = None,
    scribbles: bool = False,
) -> dict[str, Any]:
    """Lab 4's going further as an agent runs it: a session file of ``entries`` (one JSON line each) in a
    temporary folder, opened as a ``JsonlSessionStore``, then ``compact(store, leaf_id,
    CompactionOptions(options, summary_max_tokens, retain_recent_messages, ratio, new_id=lambda: id,
    clock=lambda: timestamp), summarizer, cancel=token)``.

    The summarizer is a ``ScriptedSummarizer`` (``summarizer="plain"``) or an ``AsyncScriptedSummarizer``
    (``"async"``) replying ``reply`` or raising ``error``; with ``scribbles`` it scribbles (``scribble``) on
    its request's messages and previous summary before replying. ``cancel`` is one of ``CANCEL_MOMENTS``.

    Returns ``{"outcome": the result's status, or the code of the CompactionError raised, "file_unchanged":
    whether the file's bytes are as before, "new_lines": the JSON objects of the lines added, "result": the
    CompactionResult (None after an error), "requests": the SummaryRequests the summarizer got, "finished":
    how many of its calls replied}``. Other errors come through; the folder is removed before returning.
    """
    token = CancellationToken()
    scripted = {"plain": ScriptedSummarizer, "async": AsyncScriptedSummarizer}[summarizer](
        reply, error=error, on_request=lambda request: _while_summarizing(request, token, cancel, scribbles)
    )
    if cancel == "while_verifying":
        base, new_summary = options.estimate_tokens, summary_message(reply)

        def estimate(item: Any) -> Any:
            if item == new_summary:
                token.cancel()
            return base(item)

        options = dataclasses.replace(options, estimate_tokens=estimate)
    settings = compaction.CompactionOptions(
        options, summary_max_tokens, retain_recent_messages, ratio, new_id=lambda: id, clock=lambda: timestamp
    )
    if cancel == "before":
        token.cancel()
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "session.jsonl"
        file.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
        store = JsonlSessionStore(file)
        before = file.read_bytes()
        result = None
        try:
            result = compaction.compact(store, leaf_id, settings, scripted, cancel=token)
            outcome = result.status
        except CompactionError as failure:
            outcome = failure.code
        after = file.read_bytes()
    return {
        "outcome": outcome,
        "file_unchanged": after == before,
        "result": result,
        "new_lines": [json.loads(line) for line in after[len(before) :].splitlines()],
        "requests": scripted.requests,
        "finished": scripted.finished,
    }


def _while_summarizing(request: Any, token: CancellationToken, cancel: str | None, scribbles: bool) -> None:
    if scribbles:
        scribble(list(request.messages))
        scribble(request.previous_summary)
    if cancel == "while_summarizing":
        token.cancel()


def entry_ids(entries: list[Entry]) -> list[str]:
    """The ids of ``entries``, in order."""
    return [entry["id"] for entry in entries]
