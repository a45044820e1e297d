"""Lab 2, interaction grouping: a user message opens an interaction; calls pair with results by id."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from sessions import active_path

from compaction_lab.grouping import group_interactions, tool_calls
from compaction_lab.provided.errors import InteractionError
from compaction_lab.provided.example import example_entries
from factories import assistant, ids, naming, result, user

pytestmark = pytest.mark.lab2

EXAMPLE_GROUPS = [["u1", "a1"], ["u2", "a2"], ["u3", "calls", "r-test", "r-read", "a3"]]


def grouped_ids(entries):
    return [ids(group) for group in group_interactions(entries)]


def move(entries, entry_id, before_id):
    """Return ``entries`` with ``entry_id`` moved just before ``before_id`` (path order only)."""
    moving = next(entry for entry in entries if entry["id"] == entry_id)
    rest = [entry for entry in entries if entry["id"] != entry_id]
    index = ids(rest).index(before_id)
    return rest[:index] + [moving] + rest[index:]


@pytest.mark.focused
def test_lab2_example_groups_into_three_interactions_of_copies():
    entries = example_entries()
    groups = group_interactions(entries)
    assert [ids(group) for group in groups] == EXAMPLE_GROUPS
    assert groups[2][1] == entries[5] and groups[2][1] is not entries[5]
    groups[2][1]["message"]["content"][1]["arguments"]["path"] = "changed.py"
    assert entries == example_entries()


@pytest.mark.focused
def test_lab2_results_in_any_order_still_form_the_interaction():
    entries = example_entries()
    assert grouped_ids(entries)[2] == ["u3", "calls", "r-test", "r-read", "a3"]
    swapped = move(entries, "r-read", "r-test")
    assert grouped_ids(swapped)[2] == ["u3", "calls", "r-read", "r-test", "a3"]
    early = move(entries, "r-test", "calls")
    assert grouped_ids(early)[2] == ["u3", "r-test", "calls", "r-read", "a3"]


@pytest.mark.focused
def test_lab2_broken_tool_facts_are_rejected_naming_the_id():
    entries = example_entries()
    entries[6]["message"]["toolCallId"] = "unknown-1"
    with pytest.raises(InteractionError, match=naming(("unknown-1", "r-test", "test-1", "calls"))):
        group_interactions(entries)
    missing = [entry for entry in example_entries() if entry["id"] != "r-read"]
    with pytest.raises(InteractionError, match=naming(("read-1", "calls"))):
        group_interactions(missing)
    repeated = [
        user("u1", None),
        assistant("a1", "u1", "call_0"),
        result("r1", "a1", "call_0"),
        user("u2", "r1"),
        assistant("a2", "u2", "call_0"),
        result("r2", "a2", "call_0"),
    ]
    with pytest.raises(InteractionError, match=naming("call_0", "a1", "a2")):
        group_interactions(repeated)


@pytest.mark.parametrize(
    ("entries", "named"),
    [
        ([user("u1", None), assistant("a1", "u1", "c1", "c1"), result("r1", "a1", "c1")], ("c1", "a1")),
        (
            [user("u1", None), assistant("a1", "u1", "c1"), result("r1", "a1", "c1"), result("r2", "r1", "c1")],
            (("r2", "c1"),),
        ),
        ([assistant("a1", "x"), user("u1", "a1")], ("a1",)),
        (
            [user("u1", None), assistant("a1", "u1", "c1"), user("u2", "a1"), result("r1", "u2", "c1")],
            (("c1", "a1", "r1"),),
        ),
        (
            [
                user("u1", None),
                assistant("a1", "u1", "c1"),
                result("r1", "a1", "c1"),
                user("u2", "r1"),
                assistant("a2", "u2", "c2"),
                result("r2", "a2", "c2"),
                user("u3", "r2"),
                assistant("a3", "u3", "c1"),
                result("r3", "a3", "c1"),
            ],
            ("c1", "a1", "a3"),
        ),
    ],
    ids=[
        "call id declared twice in one message",
        "second result",
        "leading assistant",
        "result in a later interaction",
        "call id repeated two interactions later",
    ],
)
def test_lab2_violations_name_the_entry_or_call(entries, named):
    """``named``: what the message must name (a tuple inside it: one of those ids is enough)."""
    before = copy.deepcopy(entries)
    with pytest.raises(InteractionError, match=naming(*named)):
        group_interactions(entries)
    assert entries == before


def test_lab2_non_message_entries_are_rejected():
    meta = {"type": "model_change", "id": "m1", "parentId": "a1", "timestamp": 3, "provider": "p", "modelId": "m"}
    with pytest.raises(InteractionError, match=naming("m1")):
        group_interactions(example_entries()[:2] + [meta])


def test_lab2_empty_path_has_no_interactions():
    assert group_interactions([]) == []


@settings(max_examples=60, deadline=None)
@given(active_path())
def test_lab2_property_no_interaction_separates_a_call_from_its_result(path):
    snapshot = copy.deepcopy(path)
    groups = group_interactions(path)
    assert [entry for group in groups for entry in group] == path
    for group in groups:
        assert group[0]["message"]["role"] == "user"
        calls = {call["id"] for entry in group for call in tool_calls(entry)}
        results = [e["message"]["toolCallId"] for e in group if e["message"]["role"] == "toolResult"]
        assert sorted(results) == sorted(calls)
    assert path == snapshot
