"""The verdict's error rule: an error names what is at fault, and a message naming everything in its input (an
error spray) does not count."""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case, visible_cases
from compaction_lab.provided.checking.verdict import bystanders, named_bystanders, names, verdict


def raised(case: Case, message: str) -> dict:
    """An observation of ``case`` raising its expected class with ``message``, inputs unchanged."""
    return {"raised": {"classes": [case.raises, "Exception"], "message": message}, "inputs_after": case.sent()}


def unknown_call_case() -> Case:
    (case,) = [case for case in visible_cases(2) if case.name == "r_extra_answers_unknown_1"]
    return case


def test_bystanders_are_the_ids_and_deep_paths_not_named():
    case = unknown_call_case()
    found = bystanders(case)
    assert {"u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "read-1", "test-1"} <= found
    assert {"message.role", "message.content.type"} <= found
    assert not {"unknown-1", "r-extra", "message", "role"} & found


def test_the_entry_at_fault_passes_and_a_spray_of_every_id_fails():
    case = unknown_call_case()
    honest = "entry 'r-extra': result for call id 'unknown-1', which no tool call of its interaction declares"
    assert verdict(case, raised(case, honest), {}).passed
    spray = " ".join(sorted(bystanders(case) | {"unknown-1", "r-extra"}))
    failed = verdict(case, raised(case, spray), {})
    assert failed.status == "failed" and "InteractionError naming 'unknown-1' or 'r-extra'" in failed.message


def test_two_bystanders_are_allowed_and_words_match_whole():
    case = unknown_call_case()
    near = "entry 'r-extra' (after 'a3', in the interaction of 'u3'): call id 'unknown-1' is declared nowhere"
    assert named_bystanders(case, near) == ["a3", "u3"]
    assert verdict(case, raised(case, near), {}).passed
    assert named_bystanders(case, "r-extra: unknown-1 u10 a33 xmessage.role message.roles") == []


def test_a_word_the_error_must_name_is_named_whole_so_words_glued_together_name_nothing():
    case = unknown_call_case()
    glued = "_".join(sorted(bystanders(case) | {"unknown-1", "r-extra"}))
    assert named_bystanders(case, glued) == []
    failed = verdict(case, raised(case, glued), {})
    assert failed.status == "failed" and "naming 'unknown-1' or 'r-extra'" in failed.message
    assert verdict(case, raised(case, "r-extra.toolCallId='unknown-1': no such call"), {}).passed
    assert not verdict(case, raised(case, "r-extra2 and xunknown-1"), {}).passed
    assert names("summary.goal: expected a string", "summary.") and not names("legacy_summary.goal", "summary.")


def test_keyword_arguments_and_their_keys_are_bystanders_so_naming_them_all_is_a_spray():
    case = Case(
        "bad_ratio",
        "lab4_extra_should_compact",
        "should_compact(estimated_input=20, window=31, reserved_output=4, ratio=0)",
        "compaction.should_compact",
        kwargs={"estimated_input": 20, "window": 31, "reserved_output": 4, "ratio": 0, "spec": {"name": "x"}},
        raises="BudgetError",
        naming=("ratio",),
    )
    assert bystanders(case) == {"estimated_input", "window", "reserved_output", "spec", "spec.name"}
    assert verdict(case, raised(case, "ratio: expected a number above 0, got 0 (the window is 31)"), {}).passed
    assert not verdict(case, raised(case, "estimated_input window reserved_output ratio"), {}).passed
