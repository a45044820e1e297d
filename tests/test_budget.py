"""Lab 3, budget projection: fixed costs first, then whole interactions from the newest backwards."""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import active_path

from compaction_lab import budget
from compaction_lab.budget import build_context
from compaction_lab.provided.errors import BudgetError
from compaction_lab.provided.example import estimate_example_tokens, example_entries
from compaction_lab.provided.scenarios import compacted_path
from compaction_lab.resumption import ResumePoint, message_entries, summary_message
from factories import naming, options

pytestmark = pytest.mark.lab3

LAST_GROUP = ["u3", "calls", "r-test", "r-read", "a3"]


@pytest.mark.focused
def test_lab3_fixed_costs_come_off_the_window_first():
    context = build_context(example_entries(), options(31))
    assert context.kept_entry_ids == ["u2", "a2"] + LAST_GROUP
    assert context.reason == "trimmed"
    assert asdict(context.tokens) == {
        "max_tokens": 31, "system": 3, "messages": 22, "reserved_output": 4, "safety_margin": 2,
        "available_for_messages": 22, "total": 31,
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
    expected = {29: LAST_GROUP, 30: LAST_GROUP, 31: ["u2", "a2"] + LAST_GROUP, 37: ["u2", "a2"] + LAST_GROUP,
                38: [entry["id"] for entry in example_entries()]}
    for max_tokens, kept in expected.items():
        context = build_context(example_entries(), options(max_tokens))
        assert context.kept_entry_ids == kept, max_tokens
        assert context.tokens.messages == sum(
            estimate_example_tokens(e["message"]) for e in example_entries() if e["id"] in kept)
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
    assert [e["id"] for e in path[len(path) - len(context.kept_entry_ids):]] == context.kept_entry_ids
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
