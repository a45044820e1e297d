"""Repairing dangling tool calls, and the labs' pipeline on the repaired real sessions."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import pytest

from compaction_lab.budget import BudgetOptions, build_context
from compaction_lab.compaction import create_compaction_entry
from compaction_lab.grouping import group_interactions
from compaction_lab.provided.errors import CompactionError, InteractionError
from compaction_lab.provided.estimators import chars4
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.provided.pi_import import load_pi_session
from compaction_lab.provided.repair import (
    InterruptedCall,
    dangling_tool_calls,
    interrupted_tool_calls,
    repair_dangling_tool_calls,
)
from compaction_lab.records import parse_session_entry
from compaction_lab.resumption import message_entries
from factories import assistant, compaction, result, user


def chain(entries: list[dict]) -> list[dict]:
    for index, entry in enumerate(entries):
        entry["parentId"] = entries[index - 1]["id"] if index else None
        entry["timestamp"] = index + 1
    return entries


def broken_path() -> list[dict]:
    """Two interactions; c1 has no result, c2 has; c4 (second interaction) has none either."""
    return chain(
        [
            user("u1", None),
            assistant("a1", "", "c1", "c2"),
            result("r2", "", "c2"),
            assistant("a2", "", text="Half done."),
            {"type": "thinking_level_change", "id": "t1", "parentId": "", "timestamp": 0, "thinkingLevel": "high"},
            user("u2", None),
            assistant("a3", "", "c3", "c4"),
            result("r3", "", "c3"),
        ]
    )


def assert_every_call_has_its_result(messages: list[dict]) -> None:
    """No context holds a call without its result or a result without its call (each exactly once)."""
    calls = Counter(
        block["id"]
        for m in messages
        if m["role"] == "assistant"
        for block in m["content"]
        if block["type"] == "toolCall"
    )
    results = Counter(m["toolCallId"] for m in messages if m["role"] == "toolResult")
    assert calls == results
    assert set(calls.values()) <= {1}


def test_repair_adds_one_error_result_per_dangling_call_right_after_its_batch():
    path = broken_path()
    original = copy.deepcopy(path)
    repaired = repair_dangling_tool_calls(path)
    assert path == original
    assert [(a.entry_id, a.call_id, a.call_entry_id, a.after_entry_id, a.interaction) for a in repaired.added] == [
        ("synthetic-result-c1", "c1", "a1", "r2", 1),
        ("synthetic-result-c4", "c4", "a3", "r3", 2),
    ]
    assert [e["id"] for e in repaired.path] == [
        "u1",
        "a1",
        "r2",
        "synthetic-result-c1",
        "a2",
        "t1",
        "u2",
        "a3",
        "r3",
        "synthetic-result-c4",
    ]
    added = repaired.path[3]
    assert added == {
        "type": "message",
        "id": "synthetic-result-c1",
        "parentId": "r2",
        "timestamp": 3,
        "message": {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "read",
            "content": [
                {
                    "type": "text",
                    "text": "No result was recorded for tool call 'c1' (read); the session ended the call without one.",
                }
            ],
            "isError": True,
        },
    }
    assert parse_session_entry(added) == added
    real = [e for e in repaired.path if not e["id"].startswith("synthetic-")]
    assert real == original  # real entries unchanged, parent links included
    assert dangling_tool_calls(path) == repaired.added


def test_reject_or_repair_is_the_callers_choice():
    path = broken_path()
    with pytest.raises(InteractionError, match="'c1'"):
        group_interactions(message_entries(path))
    groups = group_interactions(message_entries(repair_dangling_tool_calls(path).path))
    assert [[e["id"] for e in g] for g in groups] == [
        ["u1", "a1", "r2", "synthetic-result-c1", "a2"],
        ["u2", "a3", "r3", "synthetic-result-c4"],
    ]


def test_repair_shares_nothing_with_its_input():
    path = broken_path()
    repaired = repair_dangling_tool_calls(path)
    repaired.path[1]["message"]["content"][1]["arguments"]["path"] = "changed.py"
    assert path[1]["message"]["content"][1]["arguments"]["path"] == "c1.py"


def test_a_path_without_dangling_calls_comes_back_equal():
    path = example_entries()
    repaired = repair_dangling_tool_calls(path)
    assert repaired.added == [] and repaired.path == path and repaired.path is not path


def test_calls_before_the_first_user_message_count_as_interaction_zero():
    path = chain([assistant("a0", "", "c0"), user("u1", None)])
    [added] = repair_dangling_tool_calls(path).added
    assert (added.interaction, added.after_entry_id) == (0, "a0")


def test_a_taken_synthetic_id_gets_a_numeric_suffix():
    path = chain([user("synthetic-result-c1", None), assistant("a1", "", "c1")])
    [added] = repair_dangling_tool_calls(path).added
    assert added.entry_id == "synthetic-result-c1-2"


def issue_path(*between: dict) -> list[dict]:
    """u1; a1 calls k1, k2, k3; the result for k1, ``between`` (metadata, a compaction...), the result for k3; a2."""
    return chain(
        [
            user("u1", None),
            assistant("a1", "", "k1", "k2", "k3"),
            result("r-k1", "", "k1"),
            *between,
            result("r-k3", "", "k3"),
            assistant("a2", "", text="done"),
        ]
    )


def metadata(entry_id: str) -> dict:
    return {"type": "thinking_level_change", "id": entry_id, "parentId": "", "timestamp": 0, "thinkingLevel": "high"}


def assert_every_result_sits_with_its_call(repaired_path: list[dict]) -> None:
    group_interactions(message_entries(repaired_path))
    assert interrupted_tool_calls(repaired_path) == []


def test_a_synthetic_result_goes_right_after_the_last_real_result_of_its_batch():
    repaired = repair_dangling_tool_calls(issue_path())
    assert [e["id"] for e in repaired.path] == ["u1", "a1", "r-k1", "r-k3", "synthetic-result-k2", "a2"]
    assert repaired.path[4]["parentId"] == "r-k3" and repaired.added[0].after_entry_id == "r-k3"
    assert_every_result_sits_with_its_call(repaired.path)


def test_a_batch_without_any_real_result_gets_its_synthetic_results_right_after_the_call():
    path = chain(
        [
            user("u1", None),
            assistant("a1", "", "k1", "k2"),
            metadata("m1"),
            assistant("a2", "", text="no"),
            user("u2", None),
        ]
    )
    repaired = repair_dangling_tool_calls(path)
    assert [e["id"] for e in repaired.path] == [
        "u1",
        "a1",
        "synthetic-result-k1",
        "synthetic-result-k2",
        "m1",
        "a2",
        "u2",
    ]
    assert_every_result_sits_with_its_call(repaired.path)


@pytest.mark.parametrize("between", [metadata("m1"), compaction("c1", "", "u1")], ids=["metadata", "compaction"])
def test_a_metadata_or_compaction_entry_in_the_batch_changes_nothing(between):
    repaired = repair_dangling_tool_calls(issue_path(between))
    assert [e["id"] for e in repaired.path] == ["u1", "a1", "r-k1", between["id"], "r-k3", "synthetic-result-k2", "a2"]
    assert_every_result_sits_with_its_call(repaired.path)


def test_interrupted_tool_calls_names_the_message_between_a_call_and_its_result():
    path = chain(
        [
            user("u1", None),
            assistant("a1", "", "k1"),
            assistant("a2", "", text="thinking aloud"),
            metadata("m1"),
            result("r-k1", "", "k1"),
            assistant("a3", "", text="done"),
        ]
    )
    assert interrupted_tool_calls(path) == [
        InterruptedCall(call_id="k1", call_entry_id="a1", result_entry_id="r-k1", between_entry_id="a2")
    ]
    early = chain(
        [user("u1", None), result("r-k1", "", "k1"), assistant("a0", "", text="wait"), assistant("a1", "", "k1")]
    )
    assert [item.between_entry_id for item in interrupted_tool_calls(early)] == ["a0"]
    assert interrupted_tool_calls(example_entries()) == []


def test_orphan_results_are_not_repaired_and_still_rejected():
    path = chain([user("u1", None), result("r9", "", "c9")])
    repaired = repair_dangling_tool_calls(path)
    assert repaired.added == []
    with pytest.raises(InteractionError, match="'r9'"):
        group_interactions(message_entries(repaired.path))


# --- the shared real sessions ------------------------------------------------------------------------

WINDOWS = (8_000, 32_000, 200_000)


def real_path(shared_dir: Path, name: str) -> list[dict]:
    return load_pi_session(shared_dir / "fixtures" / "pi-sessions" / name).active_path()


def test_large_session_repair_adds_exactly_the_eighteen_dangling_results(shared_dir):
    path = real_path(shared_dir, "large-session.jsonl")
    with pytest.raises(InteractionError, match="toolu_016i8caCv6EqBx4nQUJmnEvU"):
        group_interactions(message_entries(path))
    repaired = repair_dangling_tool_calls(path)
    assert len(repaired.added) == 18
    assert Counter(a.call_entry_id for a in repaired.added) == {"line-33": 16, "line-234": 1, "line-843": 1}
    assert len(repaired.path) == len(path) + 18
    calls = {
        block["id"]
        for e in message_entries(path)
        if e["message"]["role"] == "assistant"
        for block in e["message"]["content"]
        if block["type"] == "toolCall"
    }
    answered = {e["message"]["toolCallId"] for e in message_entries(path) if e["message"]["role"] == "toolResult"}
    assert {a.call_id for a in repaired.added} == calls - answered
    assert len(group_interactions(message_entries(repaired.path))) == 88
    assert interrupted_tool_calls(repaired.path) == []


EXPECTED_CONTEXTS = {
    # window: (reason, kept messages, first kept entry, message tokens) with chars4 and no fixed costs
    "large-session.jsonl": {
        8_000: ("trimmed", 52, "line-968", 7640),
        32_000: ("trimmed", 288, "line-733", 30245),
        200_000: ("complete", 932, "line-2", 124699),
    },
    "before-compaction.jsonl": {
        8_000: ("trimmed", 46, "line-955", 6226),
        32_000: ("trimmed", 154, "line-847", 22647),
        200_000: ("trimmed", 588, "line-408", 187990),
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED_CONTEXTS))
def test_after_repair_the_labs_run_on_real_sessions_and_keep_calls_with_results(shared_dir, name):
    repaired = repair_dangling_tool_calls(real_path(shared_dir, name))
    for window in WINDOWS:
        options = BudgetOptions(
            max_tokens=window, system_prompt="", reserved_output=0, safety_margin=0, estimate_tokens=chars4
        )
        context = build_context(repaired.path, options)
        got = (context.reason, len(context.kept_entry_ids), context.kept_entry_ids[0], context.tokens.messages)
        assert got == EXPECTED_CONTEXTS[name][window]
        assert_every_call_has_its_result(context.messages)
        # Compact at the budget boundary (the first kept entry), append, resume. When everything fits, the
        # boundary is the path's first message: a compaction there would compact nothing and is refused.
        arguments = {
            "id": f"compact-{window}",
            "timestamp": repaired.path[-1]["timestamp"] + 1,
            "summary": example_summary(),
            "first_kept_entry_id": context.kept_entry_ids[0],
            "tokens_before": context.tokens.total,
        }
        if context.reason == "complete":
            with pytest.raises(CompactionError, match=context.kept_entry_ids[0]):
                create_compaction_entry(repaired.path, **arguments)
            continue
        compaction = create_compaction_entry(repaired.path, **arguments)
        assert compaction["parentId"] == repaired.path[-1]["id"]
        resumed = build_context([*repaired.path, compaction], options)
        assert resumed.compaction_id == f"compact-{window}"
        assert resumed.messages[0]["content"].startswith("The conversation before this point was compacted")
        assert set(resumed.kept_entry_ids) <= set(context.kept_entry_ids)
        assert_every_call_has_its_result(resumed.messages[1:])
