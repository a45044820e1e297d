"""Lab 3, budget projection: fixed costs first, then whole interactions from the newest backwards. Going
further: the unit estimator, the summary at the end of the system prompt and the prompt-cache replay."""

from __future__ import annotations

import copy
import math
import re
from dataclasses import asdict, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import active_path

from compaction_lab import budget
from compaction_lab.budget import (
    SUMMARY_PLACES,
    CachePolicy,
    Replay,
    build_context,
    estimate_units,
    is_user_message,
    path_from,
    recommended_options,
    replay,
)
from compaction_lab.provided.errors import BudgetError, InteractionError
from compaction_lab.provided.estimators import chars3
from compaction_lab.provided.example import estimate_example_tokens, example_entries, example_summary
from compaction_lab.provided.pi_import import load_pi_session
from compaction_lab.provided.repair import repair_dangling_tool_calls
from compaction_lab.provided.scenarios import chat_path, compacted_path, resumed_path, twice_compacted_path
from compaction_lab.resumption import ResumePoint, message_entries, summary_message
from factories import message, naming, options

pytestmark = pytest.mark.lab3

LAST_GROUP = ["u3", "calls", "r-test", "r-read", "a3"]


@pytest.mark.focused
def test_lab3_fixed_costs_come_off_the_window_first():
    context = build_context(example_entries(), options(31))
    assert context.kept_entry_ids == ["u2", "a2"] + LAST_GROUP
    assert context.reason == "trimmed"
    assert asdict(context.tokens) == {
        "max_tokens": 31,
        "system": 3,
        "messages": 22,
        "reserved_output": 4,
        "safety_margin": 2,
        "available_for_messages": 22,
        "total": 31,
    }
    assert context.system_prompt == "sys"
    assert context.messages == [entry["message"] for entry in example_entries()[2:]]


@pytest.mark.focused
def test_lab3_newest_group_is_kept_whole_when_it_overflows():
    context = build_context(example_entries(), options(19))
    assert context.kept_entry_ids == LAST_GROUP
    assert context.reason == "single_group_overflow"
    assert context.tokens.available_for_messages == 10
    assert context.tokens.messages == 15
    assert context.tokens.total == 24


@pytest.mark.focused
def test_lab3_trim_boundary_moves_by_whole_groups():
    expected = {
        29: LAST_GROUP,
        30: LAST_GROUP,
        31: ["u2", "a2"] + LAST_GROUP,
        37: ["u2", "a2"] + LAST_GROUP,
        38: [entry["id"] for entry in example_entries()],
    }
    for max_tokens, kept in expected.items():
        context = build_context(example_entries(), options(max_tokens))
        assert context.kept_entry_ids == kept, max_tokens
        assert context.tokens.messages == sum(
            estimate_example_tokens(e["message"]) for e in example_entries() if e["id"] in kept
        )
    assert build_context(example_entries(), options(38)).reason == "complete"


def test_lab3_zero_budget_left_still_keeps_the_newest_group():
    context = build_context(example_entries(), options(5))
    assert context.tokens.available_for_messages == 0
    assert context.kept_entry_ids == LAST_GROUP
    assert (context.reason, context.tokens.total) == ("single_group_overflow", 3 + 15 + 4 + 2)


def test_lab3_metadata_is_skipped():
    entries = example_entries()
    meta = {"type": "thinking_level_change", "id": "t1", "parentId": "a2", "timestamp": 4, "thinkingLevel": "high"}
    entries.insert(4, meta)
    entries[5]["parentId"] = "t1"
    assert build_context(entries, options(31)).kept_entry_ids == ["u2", "a2"] + LAST_GROUP


@pytest.mark.parametrize("field", ["max_tokens", "reserved_output", "safety_margin"])
@pytest.mark.parametrize("value", [True, math.nan, math.inf, -1, "31"])
def test_lab3_bad_numbers_are_rejected(field, value):
    with pytest.raises(BudgetError, match=field):
        build_context(example_entries(), replace(options(31), **{field: value}))


@pytest.mark.parametrize("bad", [-1, math.nan, False, None])
def test_lab3_bad_estimates_are_rejected(bad):
    def estimator(item):
        return bad if isinstance(item, dict) and item["role"] == "toolResult" else 3

    with pytest.raises(BudgetError, match=naming(("r-read", "r-test"))):
        build_context(example_entries(), options(31, estimate_tokens=estimator))


def test_lab3_an_estimator_that_mutates_its_argument_changes_nothing():
    entries = example_entries()

    def vandal(item):
        if isinstance(item, dict):
            item["content"] = "vandalised"
        return estimate_example_tokens(item) if isinstance(item, str) else 3

    context = build_context(entries, options(100, estimate_tokens=vandal))
    assert entries == example_entries()
    assert context.messages == [entry["message"] for entry in example_entries()]


def test_lab3_outputs_do_not_alias_the_path():
    entries = example_entries()
    snapshot = copy.deepcopy(entries)
    context = build_context(entries, options(100))
    context.messages[5]["content"][1]["arguments"]["path"] = "elsewhere.py"
    assert entries == snapshot
    assert build_context(entries, options(100)).messages[5]["content"][1]["arguments"] == {"path": "stores.py"}


@settings(max_examples=60, deadline=None)
@given(active_path(), st.integers(0, 120), st.integers(0, 10), st.integers(0, 10))
def test_lab3_property_tokens_add_up_and_whole_interactions_are_kept(path, max_tokens, reserved, margin):
    snapshot = copy.deepcopy(path)
    context = build_context(path, options(max_tokens, reserved, margin))
    tokens = context.tokens
    assert tokens.messages == sum(estimate_example_tokens(message) for message in context.messages)
    assert tokens.total == tokens.system + tokens.messages + reserved + margin
    assert tokens.available_for_messages == max(0, max_tokens - 3 - reserved - margin)
    starts = [index for index, entry in enumerate(path) if entry["message"]["role"] == "user"]
    assert [e["id"] for e in path[len(path) - len(context.kept_entry_ids) :]] == context.kept_entry_ids
    assert len(path) - len(context.kept_entry_ids) in starts
    if context.reason != "single_group_overflow":
        assert tokens.total <= max_tokens
    assert path == snapshot


def test_lab3_a_compactions_summary_is_paid_before_any_interaction(monkeypatch):
    # Lab 3 on its own: where compact-1 resumes (lab 5's answer) is given, built from provided helpers.
    path = compacted_path()
    summary = summary_message(path[-1]["summary"])
    start = ResumePoint("compact-1", summary, message_entries(path[2:-1]))
    monkeypatch.setattr(budget, "resume_point", lambda entries: start)
    context = build_context(path, options(36))
    assert (context.compaction_id, context.reason, context.tokens.messages) == ("compact-1", "trimmed", 26)
    assert context.kept_entry_ids == LAST_GROUP


# Going further (extra credit): estimate_units, the summary at the end of the system prompt, replay.


def test_lab3_estimate_units_reproduces_the_worked_numbers():
    requirement, user_a = {"id": "r", "content": "AB"}, {"id": "u", "role": "user", "content": "a"}
    assert (estimate_units(requirement), estimate_units(user_a)) == (3 + 1 + 2, 4 + 1 + 1)
    assert estimate_units([requirement, user_a]) == 12
    assert estimate_units([requirement, {**user_a, "content": "😀"}]) == 12


@pytest.mark.parametrize(
    ("item", "units"),
    [
        ("sys", 3 + 3),
        ({"role": "user", "content": [{"type": "text", "text": "a"}]}, 4 + 1 + 1),
        (
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"}]},
            4 + (1 + 3) + (1 + 2),
        ),
        ({"role": "user", "content": [{"type": "image", "data": "x" * 10_000, "mimeType": "image/png"}]}, 4 + 4800),
        (
            {"role": "toolResult", "toolCallId": "k1", "toolName": "bash", "content": "ok", "isError": True},
            4 + (1 + 2 + 4) + 2,
        ),
        (
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": "c1",
                        "name": "f",
                        "arguments": {"b": [1, True, None, 2.5, "xy"], "a": {"😀": "z"}},
                    }
                ],
            },
            4 + (1 + 2 + 1) + (1 + (1 + (1 + 1 + 1)) + (1 + (1 + 4 + 2))),
        ),
        (
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "stopReason": "stop",
                "usage": {"input": 9},
                "api": "openai-responses",
                "model": "m",
            },
            4 + 1 + 2,
        ),
    ],
)
def test_lab3_estimate_units_weighs_every_part(item, units):
    before = copy.deepcopy(item)
    assert estimate_units(item) == units
    assert item == before


def test_lab3_estimate_units_does_not_depend_on_key_order():
    arguments = {f"k{n}": [n, {"x": "y" * n}] for n in range(20)}
    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "f", "arguments": arguments}]}
    shuffled = copy.deepcopy(call)
    shuffled["content"][0]["arguments"] = dict(reversed(arguments.items()))
    assert estimate_units(call) == estimate_units(shuffled)


@pytest.mark.parametrize(
    ("item", "path"),
    [
        (42, "item"),
        ([["nested"]], "[0]"),
        ({"role": "system", "content": "x"}, "role"),
        ({"role": "user", "content": [{"type": "audio"}]}, "content[0].type"),
        ({"role": "user", "content": None}, "content"),
        (
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "c", "name": "f", "arguments": {"x": math.nan}}],
            },
            "content[0].arguments.x",
        ),
        (
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "c", "name": "f", "arguments": {"b": (1,), "a": math.inf}}],
            },
            "content[0].arguments.a",
        ),
        (
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "f", "arguments": [1]}]},
            "content[0].arguments",
        ),
        ({"role": "toolResult", "toolName": "bash", "content": "ok"}, "toolCallId"),
        ({"content": 3}, "content"),
    ],
)
def test_lab3_estimate_units_refuses_what_it_cannot_price_by_path(item, path):
    with pytest.raises(BudgetError, match=re.escape(path)):
        estimate_units(item)


def test_lab3_summary_at_the_end_of_the_system_prompt():
    assert build_context(example_entries(), options(31), summary_at="system_prompt") == build_context(
        example_entries(), options(31)
    )  # without a compaction nothing moves
    first = build_context(compacted_path(), options(43))
    moved = build_context(compacted_path(), options(43), summary_at="system_prompt")
    summary = summary_message(example_summary())
    assert moved.system_prompt == "sys\n\n" + summary["content"]
    assert moved.messages == first.messages[1:] and moved.kept_entry_ids == first.kept_entry_ids
    assert moved.compaction_id == "compact-1"
    assert (moved.tokens.system, moved.tokens.messages, moved.tokens.total) == (11, 22, 39)
    assert (first.tokens.system, first.tokens.messages, first.tokens.total) == (3, 33, 42)
    empty = build_context(compacted_path(), options(43, system_prompt=""), summary_at="system_prompt")
    assert empty.system_prompt == summary["content"]
    with pytest.raises(BudgetError, match="summary_at"):
        build_context(compacted_path(), options(43), summary_at="last_message")


def test_lab3_recommended_options_give_input_ninety_percent_at_chars3():
    recommended = recommended_options(32_000, "You are Pi.")
    assert (recommended.max_tokens, recommended.reserved_output, recommended.safety_margin) == (32_000, 3_200, 0)
    assert recommended.system_prompt == "You are Pi." and recommended.estimate_tokens is chars3
    assert chars3("x" * 10) == 4 and chars3({"role": "user", "content": "x" * 9}) == 3
    with pytest.raises(BudgetError, match="max_tokens"):
        recommended_options(-1)


def every_turn(path: list, options, summary_at: str = "first_message") -> Replay:
    """``replay`` with headroom 0 as its definition says: lab 3 on each turn's whole path."""
    turns = [end for end, entry in enumerate(path) if is_user_message(entry)]
    sent, hits, reprocessed = None, 0, 0
    for end in turns:
        context = build_context(path[: end + 1], options, summary_at=summary_at)
        request = [context.system_prompt, *context.messages]
        if sent is not None and request[: len(sent)] == sent:
            hits += 1
        elif sent is not None:
            reprocessed += context.tokens.system + context.tokens.messages
        sent = request
    return Replay(len(turns), hits, reprocessed)


@pytest.mark.parametrize(
    "path",
    [example_entries(), chat_path(10), resumed_path(), twice_compacted_path()],
    ids=["example", "chat", "resumed", "twice_compacted"],
)
@pytest.mark.parametrize("summary_at", SUMMARY_PLACES)
def test_lab3_replay_without_headroom_is_lab3_on_every_turn(path, summary_at):
    for max_tokens in range(0, 60, 3):
        policy = CachePolicy(summary_at=summary_at)
        assert replay(path, options(max_tokens), policy) == every_turn(path, options(max_tokens), summary_at)


@settings(max_examples=40, deadline=None)
@given(active_path(max_interactions=8), st.integers(10, 80))
def test_lab3_property_replay_without_headroom_is_lab3_on_every_turn(path, max_tokens):
    snapshot = copy.deepcopy(path)
    assert replay(path, options(max_tokens), CachePolicy()) == every_turn(path, options(max_tokens))
    assert path == snapshot


def test_lab3_headroom_keeps_the_prefix_for_several_turns():
    every, half = (replay(chat_path(10), options(20), CachePolicy(headroom)) for headroom in (0, 0.5))
    assert (every.requests, every.hits, every.reprocessed_tokens) == (10, 1, 8 * (3 + 9))
    assert (half.hits, half.reprocessed_tokens) == (5, 4 * (3 + 3))
    assert (every.hit_rate, half.hit_rate) == (1 / 9, 5 / 9)
    assert replay([], options(20), CachePolicy()) == Replay(0, 0, 0) and Replay(1, 0, 0).hit_rate == 0


def test_lab3_headroom_is_a_share_of_the_message_budget():
    # options(23) leaves 14 tokens for messages, every message costs 3. A quarter of those 14 (3.5, not a quarter of
    # the window's 23) lowers the target to 10.5: each rebuild keeps q(n-1), a(n-1), q(n) (9 tokens), and the next
    # turn's 6 no longer fit by appending, so every rebuild after the first append misses.
    assert replay(chat_path(10), options(23), CachePolicy(0.25)) == Replay(10, 1, 8 * (3 + 9))


@pytest.mark.parametrize(
    "policy",
    [
        CachePolicy(headroom=1),
        CachePolicy(headroom=-0.1),
        CachePolicy(headroom=True),
        CachePolicy(headroom=math.nan),
        CachePolicy(summary_at="end"),
        "headroom",
    ],
)
def test_lab3_replay_refuses_a_bad_policy(policy):
    with pytest.raises(BudgetError, match="headroom|summary_at|policy"):
        replay(chat_path(3), options(20), policy)


def test_lab3_replay_checks_the_turns_it_appends():
    path = [entry for entry in example_entries() if entry["id"] != "r-read"]
    path.append(message("u4", "a3", "user", content="And now?"))
    with pytest.raises(InteractionError, match=naming("read-1")):
        replay(path, options(100), CachePolicy())


def test_lab3_path_from_starts_a_context_exactly_there():
    part = path_from(chat_path(3), "q2")
    assert [entry["id"] for entry in part] == ["q2", "a2", "q3", "a3"]
    assert build_context(part, options(100)).kept_entry_ids == ["q2", "a2", "q3", "a3"]
    path = twice_compacted_path()
    part = path_from(path, "u5")
    assert [entry["id"] for entry in part] == ["u5", "a5", "compact-2"] and part[-1]["firstKeptEntryId"] == "u5"
    assert path == twice_compacted_path()
    context = build_context(part, options(100))
    assert (context.kept_entry_ids, context.compaction_id) == (["u5", "a5"], "compact-2")
    with pytest.raises(BudgetError, match="'nowhere'"):
        path_from(path, "nowhere")


def test_lab3_replay_on_the_real_sessions(shared_dir):
    session = load_pi_session(shared_dir / "fixtures" / "pi-sessions" / "large-session.jsonl")
    path = repair_dangling_tool_calls(session.active_path()).path
    every, half = (replay(path, recommended_options(32_000), CachePolicy(headroom)) for headroom in (0, 0.5))
    assert (every.requests, every.hits, every.reprocessed_tokens) == (88, 58, 778_322)
    assert (half.requests, half.hits, half.reprocessed_tokens) == (88, 81, 61_893)
