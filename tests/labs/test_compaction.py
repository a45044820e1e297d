"""Lab 4, compaction creation: parent from the active path, keep only from an interaction's start, and
compact something; going further, compacting a store: when, where (whole tool rounds), summarizing,
verifying, cancelling, and a file left as it was after any failure."""

from __future__ import annotations

import copy
import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sessions import active_path, tool_heavy_path

from compaction_lab.compaction import (
    CompactionOptions,
    CompactionResult,
    compaction_trigger,
    create_compaction_entry,
    group_tool_rounds,
    select_compaction_boundary,
    should_compact,
)
from compaction_lab.compaction import compact as compact_session
from compaction_lab.provided.errors import BudgetError, CompactionError, SessionEntryError, SessionStoreError
from compaction_lab.provided.example import estimate_example_tokens, example_entries, example_summary
from compaction_lab.provided.scenarios import (
    compacted_long_session,
    compacted_path,
    fixed_summary,
    long_session,
    tool_round_path,
)
from compaction_lab.provided.stores import (
    CHECKSUM_KEY,
    InMemorySessionStore,
    JsonlSessionStore,
    entry_checksum,
    path_to,
)
from compaction_lab.provided.summarizers import AsyncScriptedSummarizer, CancellationToken, ScriptedSummarizer
from compaction_lab.records import parse_session_entry
from compaction_lab.resumption import summary_message
from factories import assistant, ids, naming, options, result, user

pytestmark = pytest.mark.lab4


def compact(path, entry_id="compact-1", first_kept="u2", **overrides):
    fields = {
        "id": entry_id,
        "timestamp": 100,
        "summary": example_summary(),
        "first_kept_entry_id": first_kept,
        "tokens_before": 29,
    }
    return create_compaction_entry(path, **(fields | overrides))


@pytest.mark.focused
def test_lab4_parent_comes_from_the_path_and_nothing_is_shared():
    store = InMemorySessionStore()
    for entry in example_entries():
        store.append(entry)
    path = path_to(store.entries(), "a3")
    snapshot = copy.deepcopy(path)
    summary = example_summary()
    entry = compact(path, summary=summary)
    assert entry == {
        "type": "compaction",
        "id": "compact-1",
        "parentId": "a3",
        "timestamp": 100,
        "summary": example_summary(),
        "firstKeptEntryId": "u2",
        "tokensBefore": 29,
    }
    assert parse_session_entry(entry) == entry
    summary["completed"].append("mutated after creation")
    summary["goal"] = "changed"
    assert entry["summary"] == example_summary()
    assert path == snapshot and len(store) == 9


@pytest.mark.focused
def test_lab4_invalid_inputs_are_rejected_naming_the_id():
    path = example_entries()
    for inside in ("u1", "a2", "calls", "r-test", "r-read", "a3", "missing"):
        with pytest.raises(CompactionError, match=naming(inside)):
            compact(path, first_kept=inside)
    with pytest.raises(CompactionError, match=naming("compact-1")):
        compact([])
    with pytest.raises(CompactionError, match=naming("a3")):
        compact(path, entry_id="a3")
    with pytest.raises(SessionEntryError, match=naming("tokensBefore")):
        compact(path, tokens_before=True)
    assert path == example_entries()


def test_lab4_every_interaction_start_but_the_first_is_a_valid_first_kept_entry():
    for first in ("u2", "u3"):
        assert compact(example_entries(), first_kept=first)["firstKeptEntryId"] == first


def test_lab4_a_compaction_must_compact_something():
    path = example_entries()[:4]  # u1 a1 u2 a2, no compaction yet
    with pytest.raises(CompactionError, match=naming("u1")):
        compact(path, first_kept="u1")
    path.append(compact(path))  # keeps from u2
    snapshot = copy.deepcopy(path)
    with pytest.raises(CompactionError, match=naming("u2")):
        compact(path, entry_id="compact-2", first_kept="u2")
    assert path == snapshot


def test_lab4_after_a_compaction_only_its_kept_suffix_counts():
    path = example_entries()
    path.append(compact(path))
    for before in ("u1", "a1"):
        with pytest.raises(CompactionError, match=naming(before)):
            compact(path, entry_id="compact-2", first_kept=before)
    second = compact(path, entry_id="compact-2", first_kept="u3")
    assert (second["parentId"], second["firstKeptEntryId"]) == ("compact-1", "u3")


def test_lab4_legacy_summary_is_rejected():
    summary = example_summary()
    summary["files"] = summary.pop("changedFiles")
    with pytest.raises(SessionEntryError, match=naming(("summary.changedFiles", "summary.files"))):
        compact(example_entries(), summary=summary)


# Going further (extra credit): when, where, and compacting a store for real.


def compaction_options(summary_max_tokens=12, retain_recent_messages=2, ratio=0.8, max_tokens=64, **budget):
    return CompactionOptions(
        options(max_tokens, **({"reserved_output": 8} | budget)),
        summary_max_tokens,
        retain_recent_messages,
        ratio,
        new_id=lambda: "compact-2",
        clock=lambda: 200,
    )


def jsonl_store(folder, entries):
    """A JSONL store over a file of ``entries``, written as lines (no fsync per entry)."""
    file = Path(folder) / "session.jsonl"
    file.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    return JsonlSessionStore(file)


def estimated_input(path):
    """The example tokens of the system prompt "sys", the latest summary's message and the messages after it:
    what ``compact`` compares with the trigger (computed here without any lab function)."""
    latest = max((index for index, entry in enumerate(path) if entry["type"] == "compaction"), default=None)
    if latest is None:
        return 3 + sum(estimate_example_tokens(entry["message"]) for entry in path)
    ids_before = [entry["id"] for entry in path[:latest]]
    kept = path[ids_before.index(path[latest]["firstKeptEntryId"]) :]
    return (
        3
        + estimate_example_tokens(summary_message(path[latest]["summary"]))
        + sum(estimate_example_tokens(entry["message"]) for entry in kept if entry["type"] == "message")
    )


def by_position(path):
    """``{call id: (the index of its call, the index of its result)}`` on ``path``, read from the data."""
    calls, results = {}, {}
    for index, entry in enumerate(path):
        message = entry["message"]
        if message["role"] == "toolResult":
            results[message["toolCallId"]] = index
        for block in message["content"] if message["role"] == "assistant" else []:
            if block["type"] == "toolCall":
                calls[block["id"]] = index
    return {call: (calls[call], results[call]) for call in calls}


def cut_is_clean(path, index):
    """True when keeping ``path[index:]`` separates no call from its result."""
    return all(not (min(pair) < index <= max(pair)) for pair in by_position(path).values())


def test_lab4_trigger_is_a_floored_share_of_the_window_less_the_reserved_output():
    assert [
        compaction_trigger(31, 4),
        compaction_trigger(64, 8),
        compaction_trigger(64, 8, 1),
        compaction_trigger(10, 3, 0.5),
    ] == [21, 44, 56, 3]
    assert [should_compact(tokens, 31, 4) for tokens in (20, 21, 32)] == [False, True, True]


@pytest.mark.parametrize(
    "arguments, named",
    [
        ((0, 31, 4, 0), "ratio"),
        ((0, 31, 4, 1.5), "ratio"),
        ((0, 31, 4, True), "ratio"),
        ((0, 31, 40), "reserved_output"),
        ((-1, 31, 4), "estimated_input"),
        ((0, math.inf, 4), "window"),
    ],
)
def test_lab4_bad_trigger_numbers_are_named(arguments, named):
    with pytest.raises(BudgetError, match=naming(named)):
        should_compact(*arguments)


def test_lab4_tool_rounds_are_finer_than_interactions():
    path = long_session()
    rounds = group_tool_rounds(path)
    assert [ids(group) for group in rounds] == [
        ["u1"],
        ["a1"],
        ["u2"],
        ["a2"],
        ["u3"],
        ["calls", "r-test", "r-read"],
        ["a3"],
        ["u4"],
        ["a4", "r-edit"],
        ["a5", "r-test-2"],
        ["a6"],
        ["u5"],
        ["a7"],
    ]
    assert path == long_session() and rounds[5][0] is not path[5]


def test_lab4_overlapping_and_nested_spans_make_one_round():
    interleaved = [
        user("u1", None),
        assistant("a1", "u1", "c1"),
        assistant("a2", "a1", "c2"),
        result("r1", "a2", "c1"),
        result("r2", "r1", "c2"),
        assistant("a3", "r2"),
    ]
    nested = interleaved[:3] + [result("r2", "a2", "c2"), result("r1", "r2", "c1"), interleaved[5]]
    for path in (interleaved, nested):
        assert [ids(group) for group in group_tool_rounds(path)] == [["u1"], ids(path[1:5]), ["a3"]]


def test_lab4_the_worked_boundary_case_never_cuts_at_a_result():
    path = tool_round_path()
    naive = next(index for index in range(1, 5) if 3 + 3 * (5 - index) <= 12)
    cut = select_compaction_boundary(
        path, target_tokens=12, summary_max_tokens=3, retain_recent_messages=1, estimate_tokens=estimate_example_tokens
    )
    assert (naive, cut) == (2, "recent")


def test_lab4_boundary_reserves_the_whole_summary_budget_and_keeps_the_recent_messages():
    def cut(target, summary, retain, **more):
        return select_compaction_boundary(
            example_entries(),
            target_tokens=target,
            summary_max_tokens=summary,
            retain_recent_messages=retain,
            estimate_tokens=estimate_example_tokens,
            **more,
        )

    assert [
        cut(21, 3, 1),
        cut(21, 9, 1),
        cut(24, 3, 1, fixed_tokens=3),
        cut(15, 3, 2),
        cut(14, 3, 2),
        cut(100, 3, 9),
        cut(100, 3, 8),
    ] == ["u3", "calls", "u3", "calls", None, None, "a1"]
    assert (
        select_compaction_boundary(
            compacted_path(),
            target_tokens=100,
            summary_max_tokens=3,
            retain_recent_messages=0,
            estimate_tokens=estimate_example_tokens,
        )
        == "a2"
    )


def test_lab4_compact_appends_one_sealed_entry_kept_from_a_user_message(tmp_path):
    store = jsonl_store(tmp_path, long_session())
    summarizer = ScriptedSummarizer(example_summary())
    result_ = compact_session(store, "a7", compaction_options(), summarizer)
    expected = {
        "type": "compaction",
        "id": "compact-2",
        "parentId": "a7",
        "timestamp": 200,
        "summary": example_summary(),
        "firstKeptEntryId": "u4",
        "tokensBefore": 59,
    }
    assert result_ == CompactionResult("compacted", expected, 59, 41)
    assert ids(summarizer.requests[0].messages) == ids(long_session()[:9])
    assert (summarizer.requests[0].previous_summary, summarizer.requests[0].summary_max_tokens) == (None, 12)
    line = json.loads(store.path.read_text(encoding="utf-8").splitlines()[-1])
    assert line == {**expected, CHECKSUM_KEY: entry_checksum(expected)}
    reopened = JsonlSessionStore(store.path)
    assert len(reopened) == 18 and reopened.get("compact-2") == expected


def test_lab4_compact_keeps_the_previous_summary_and_runs_async_summarizers(tmp_path):
    assert should_compact(estimated_input(compacted_long_session()), 64, 8)
    store = jsonl_store(tmp_path, compacted_long_session())
    summarizer = AsyncScriptedSummarizer(fixed_summary())
    result_ = compact_session(store, "a7", compaction_options(), summarizer)
    assert (result_.status, result_.tokens_before, result_.tokens_after) == ("compacted", 63, 41)
    assert summarizer.requests[0].previous_summary == example_summary()
    assert ids(summarizer.requests[0].messages) == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]


def test_lab4_compact_below_the_trigger_never_calls_the_summarizer():
    store = InMemorySessionStore()
    for entry in long_session():
        store.append(entry)
    summarizer = ScriptedSummarizer(example_summary())
    assert compact_session(store, "a3", compaction_options(), summarizer) == CompactionResult("unchanged", None, 32, 32)
    assert summarizer.requests == [] and len(store) == 17


FAILURES = {
    "boundary_unavailable": (long_session(), {"retain_recent_messages": 9}, example_summary()),
    "summarizer_failed": (long_session(), {"summary_max_tokens": 10}, example_summary()),
    "summary_lost_facts": (compacted_long_session(fixed_summary()), {}, example_summary()),
    "over_budget": (long_session(), {"ratio": 1, "safety_margin": 20}, example_summary()),
    "cancelled": (long_session(), {}, example_summary()),
}


@pytest.mark.parametrize("code", FAILURES)
def test_lab4_every_failure_has_its_code_and_leaves_the_file_as_it_was(code, tmp_path):
    path, settings, reply = FAILURES[code]
    assert should_compact(estimated_input(path), 64, 8, settings.get("ratio", 0.8))  # never "unchanged"
    store = jsonl_store(tmp_path, path)
    before = store.path.read_bytes()
    token = CancellationToken()
    summarizer = ScriptedSummarizer(reply, on_request=lambda request: token.cancel() if code == "cancelled" else None)
    with pytest.raises(CompactionError, match=naming(code, "a7")) as raised:
        compact_session(store, "a7", compaction_options(**settings), summarizer, cancel=token)
    assert raised.value.code == code and store.path.read_bytes() == before and len(store) == len(path)


def test_lab4_a_cancellation_while_an_async_summarizer_is_awaited_stops_it():
    token = CancellationToken()
    summarizer = AsyncScriptedSummarizer(example_summary(), on_request=lambda request: token.cancel())
    store = InMemorySessionStore()
    for entry in long_session():
        store.append(entry)
    with pytest.raises(CompactionError, match="cancelled") as raised:
        compact_session(store, "a7", compaction_options(), summarizer, cancel=token)
    assert (raised.value.code, len(summarizer.requests), summarizer.finished, len(store)) == ("cancelled", 1, 0, 17)


def test_lab4_a_cancellation_while_the_summary_is_checked_is_seen_before_appending(tmp_path):
    token, new_summary = CancellationToken(), summary_message(example_summary())

    def estimate(item):
        if item == new_summary:
            token.cancel()
        return estimate_example_tokens(item)

    store = jsonl_store(tmp_path, long_session())
    before = store.path.read_bytes()
    with pytest.raises(CompactionError, match=naming("cancelled", "a7")):
        compact_session(
            store,
            "a7",
            compaction_options(estimate_tokens=estimate),
            ScriptedSummarizer(example_summary()),
            cancel=token,
        )
    assert store.path.read_bytes() == before


def test_lab4_sealed_entries_are_checked_on_append_and_on_reopen(tmp_path):
    store = jsonl_store(tmp_path, [])
    entry = user("u1", None, "Seal me.")
    with pytest.raises(SessionStoreError, match=naming("u1", "checksum")):
        store.append({**entry, CHECKSUM_KEY: "0" * 64})
    assert store.path.read_bytes() == b"" and len(store) == 0
    assert store.append({**entry, CHECKSUM_KEY: entry_checksum(entry)}) == entry
    sealed = store.path.read_text(encoding="utf-8")
    assert json.loads(sealed)[CHECKSUM_KEY] == entry_checksum(entry) == entry_checksum(copy.deepcopy(entry))
    assert JsonlSessionStore(store.path).entries() == [entry]
    store.path.write_text(sealed.replace("Seal me.", "Sealed?"), encoding="utf-8")
    with pytest.raises(SessionStoreError, match=naming("line 1", "u1")):
        JsonlSessionStore(store.path)


@settings(max_examples=80, deadline=None)
@given(tool_heavy_path())
def test_lab4_property_tool_rounds_cover_the_path_and_cannot_be_split(path):
    rounds = group_tool_rounds(path)
    assert [entry for group in rounds for entry in group] == path
    starts = [sum(len(group) for group in rounds[:number]) for number in range(len(rounds))]
    assert [index for index in range(len(path)) if cut_is_clean(path, index)] == starts


@settings(max_examples=120, deadline=None)
@given(tool_heavy_path(), st.integers(0, 80), st.integers(0, 20), st.integers(0, 8))
def test_lab4_property_the_boundary_is_the_first_clean_cut_that_fits(path, target, summary, retain):
    cut = select_compaction_boundary(
        path,
        target_tokens=target,
        summary_max_tokens=summary,
        retain_recent_messages=retain,
        estimate_tokens=estimate_example_tokens,
    )
    costs = [estimate_example_tokens(entry["message"]) for entry in path]
    fitting = [
        index
        for index in range(1, min(len(path), len(path) - retain + 1))
        if cut_is_clean(path, index) and summary + sum(costs[index:]) <= target
    ]
    assert cut == (path[fitting[0]]["id"] if fitting else None)
    if cut is not None:
        kept = path[fitting[0] :]
        pairs = by_position(path)
        assert all((call >= fitting[0]) == (answer >= fitting[0]) for call, answer in pairs.values())
        assert len(kept) >= retain


FAILURE_MODES = (
    "reply",
    "raise",
    "not a summary",
    "cancel while summarizing",
    "cancel while awaited",
    "cancelled before",
)


@settings(max_examples=80, deadline=None)
@given(
    st.one_of(active_path(8), tool_heavy_path(8)),
    st.sampled_from((0.5, 0.8, 1)),
    st.integers(11, 20),
    st.integers(0, 3),
    st.sampled_from(FAILURE_MODES),
    st.data(),
)
def test_lab4_property_a_failed_compaction_never_changes_the_file(path, ratio, summary, retain, mode, data):
    estimated = estimate_example_tokens("sys") + sum(estimate_example_tokens(entry["message"]) for entry in path)
    trigger = data.draw(st.integers(estimated // 3, estimated + 5), label="trigger")
    window = 8 + math.ceil(trigger / ratio)
    token = CancellationToken()
    if mode == "cancelled before":
        token.cancel()
    cancel_on_request = (lambda request: token.cancel()) if mode.startswith("cancel while") else None
    kind = AsyncScriptedSummarizer if mode == "cancel while awaited" else ScriptedSummarizer
    summarizer = kind(
        {"raise": None, "not a summary": "done"}.get(mode, example_summary()),
        error="down" if mode == "raise" else None,
        on_request=cancel_on_request,
    )
    with tempfile.TemporaryDirectory() as folder:
        store = jsonl_store(folder, path)
        before = store.path.read_bytes()
        try:
            outcome = compact_session(
                store, path[-1]["id"], compaction_options(summary, retain, ratio, window), summarizer, cancel=token
            ).status
        except CompactionError as error:
            outcome = error.code
        after = store.path.read_bytes()
    event(outcome)
    assert outcome in (
        "compacted",
        "unchanged",
        "boundary_unavailable",
        "summarizer_failed",
        "cancelled",
        "over_budget",
    )
    if outcome == "compacted":
        assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
        assert mode == "reply"
    else:
        assert after == before
