"""Lab 5, repeated resumption: the latest summary, then the kept suffix, budgeted as in lab 3."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import active_path

from compaction_lab.budget import build_context
from compaction_lab.provided.errors import CompactionError
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.resumption import summary_message
from factories import assistant, compaction, naming, options, user

pytestmark = pytest.mark.lab5

SUMMARY_TOKENS = 11  # the example estimator's price of the rendered compact-1 summary
KEPT = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]


def compacted(path, entry_id="compact-1", first_kept="u2", goal=None):
    """``path`` plus a compaction entry written directly (lab 4 is not needed to test lab 5)."""
    summary = example_summary() | ({"goal": goal} if goal else {})
    return path + [compaction(entry_id, path[-1]["id"], first_kept, summary=summary)]


@pytest.mark.focused
def test_lab5_resume_shows_the_summary_then_the_kept_suffix():
    path = compacted(example_entries())
    context = build_context(path, options(100))
    assert context.compaction_id == "compact-1"
    assert context.messages[0] == summary_message(example_summary())
    assert context.messages[0]["content"].splitlines()[1] == f"Goal: {example_summary()['goal']}"
    assert context.messages[1:] == [entry["message"] for entry in example_entries()[2:]]
    assert context.kept_entry_ids == KEPT
    assert (context.reason, context.tokens.messages, context.tokens.total) == ("complete", SUMMARY_TOKENS + 22, 42)
    tight = build_context(path, options(37))
    assert (tight.kept_entry_ids, tight.reason, tight.tokens.messages) == (KEPT[2:], "trimmed", SUMMARY_TOKENS + 15)
    overflow = build_context(path, options(31))
    assert (overflow.kept_entry_ids, overflow.reason, overflow.tokens.messages) == (
        KEPT[2:],
        "single_group_overflow",
        SUMMARY_TOKENS + 15,
    )


@pytest.mark.focused
def test_lab5_building_twice_is_equal_and_isolated():
    path = compacted(example_entries())
    snapshot = copy.deepcopy(path)
    first = build_context(path, options(100))
    assert build_context(path, options(100)) == first
    first.messages[0]["content"] = "tampered summary"
    first.messages[4]["content"][1]["arguments"]["path"] = "tampered.py"
    assert build_context(path, options(100)) == build_context(snapshot, options(100))
    assert path == snapshot


@pytest.mark.focused
def test_lab5_second_compaction_starts_from_its_own_first_kept_entry():
    path = compacted(compacted(example_entries()), "compact-2", "u3", goal="Run the focused store tests.")
    assert path[-1]["parentId"] == "compact-1"
    context = build_context(path, options(100))
    assert context.compaction_id == "compact-2"
    assert context.kept_entry_ids == KEPT[2:]
    summaries = [m for m in context.messages if m["role"] == "user" and "compacted" in str(m["content"])]
    assert summaries == [context.messages[0]]
    assert "Goal: Run the focused store tests." in context.messages[0]["content"]


def test_lab5_three_compactions_give_exactly_one_summary():
    path = example_entries()
    for number, first in enumerate(("u2", "u3", "u3"), start=1):
        path = compacted(path, f"compact-{number}", first, goal=f"Goal number {number}.")
    context = build_context(path, options(100))
    assert context.compaction_id == "compact-3"
    assert [m["content"].count("Goal:") for m in context.messages if isinstance(m["content"], str)] == [1, 0]
    assert "Goal number 3." in context.messages[0]["content"]


def test_lab5_messages_after_the_compaction_are_kept():
    path = compacted(example_entries())
    path += [user("u4", "compact-1", "Thanks."), assistant("a4", "u4")]
    assert build_context(path, options(100)).kept_entry_ids == KEPT + ["u4", "a4"]


def test_lab5_a_changed_resume_point_never_reaches_the_next_one():
    from compaction_lab.resumption import resume_point

    path = compacted(example_entries())
    first = resume_point(path)
    first.summary_message["content"] = "changed by the caller"
    first.entries[0]["message"]["content"] = "changed by the caller"
    again = resume_point(path)
    assert again.summary_message == summary_message(example_summary())
    assert again.entries[0] == example_entries()[2]


@pytest.mark.parametrize("first_kept", ["a2", "later"])
def test_lab5_bad_first_kept_entry_is_named(first_kept):
    path = example_entries() + [compaction("compact-x", "a3", first_kept)]
    with pytest.raises(CompactionError, match=naming("compact-x", first_kept)):
        build_context(path, options(100))


@settings(max_examples=40, deadline=None)
@given(active_path(), st.data())
def test_lab5_property_resumed_context_has_one_summary_and_a_kept_suffix(path, data):
    starts = [entry["id"] for entry in path if entry["message"]["role"] == "user"]
    first_kept = data.draw(st.sampled_from(starts))
    path = compacted(path, "compact-p", first_kept)
    snapshot = copy.deepcopy(path)
    context = build_context(path, options(data.draw(st.integers(0, 150))))
    assert context.compaction_id == "compact-p"
    assert context.messages[0] == summary_message(example_summary())
    kept_from = [entry["id"] for entry in path[:-1]].index(first_kept)
    assert set(context.kept_entry_ids) <= {entry["id"] for entry in path[kept_from:-1]}
    assert context.kept_entry_ids == [entry["id"] for entry in path[-1 - len(context.kept_entry_ids) : -1]]
    assert path == snapshot
