"""Lab 2's visible cases: ``group_interactions`` on the running example, its results reordered and a
result for a call no call declares (``02_interaction_grouping.ipynb``)."""

from __future__ import annotations

import copy

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.example import example_entries

GROUP = "grouping.group_interactions"


def results_in_calls_order() -> list:
    """The example with r-read before r-test: the results in the order of the calls."""
    u1, a1, u2, a2, u3, calls, r_test, r_read, a3 = example_entries()
    return [u1, a1, u2, a2, u3, calls, r_read, r_test, a3]


def result_before_its_call() -> list:
    """The third interaction alone, with r-test before the call it answers: [u3, r-test, calls, r-read, a3]."""
    u3, calls, r_test, r_read, a3 = example_entries()[4:]
    return [u3, r_test, calls, r_read, a3]


def r_test_answering_unknown_1() -> list:
    """The example with r-test answering unknown-1 instead of test-1 (test-1 is then left without a result)."""
    path = example_entries()
    path[6]["message"]["toolCallId"] = "unknown-1"
    return path


def with_r_extra() -> list:
    """The example and one more result at the end, r-extra, answering unknown-1."""
    extra = copy.deepcopy(example_entries()[6])
    extra["id"] = "r-extra"
    extra["message"]["toolCallId"] = "unknown-1"
    return example_entries() + [extra]


CASES: tuple[Case, ...] = (
    Case(
        "example_three_interactions",
        "lab2_example_groups",
        "group_interactions(example_entries())",
        GROUP,
        (example_entries(),),
        hint="An interaction starts at a user message and runs up to the next one: three user messages, three groups.",
    ),
    Case(
        "results_in_calls_order",
        "lab2_results_in_any_order",
        "group_interactions([u1, a1, u2, a2, u3, calls, r-read, r-test, a3])[-1]",
        GROUP,
        (results_in_calls_order(),),
        parts=("-1",),
        hint="A tool result pairs with its call by toolCallId, whatever order the results come in.",
    ),
    Case(
        "result_before_its_call",
        "lab2_results_in_any_order",
        "group_interactions([u3, r-test, calls, r-read, a3])[-1]",
        GROUP,
        (result_before_its_call(),),
        parts=("-1",),
        hint="A result may come before its call in the interaction: pair them when the interaction closes.",
    ),
    Case(
        "r_test_answers_unknown_1",
        "lab2_unknown_call_rejected",
        "group_interactions(example with r-test answering unknown-1)",
        GROUP,
        (r_test_answering_unknown_1(),),
        raises="InteractionError",
        naming=(("unknown-1", "r-test", "test-1", "calls"),),
        hint="A result whose toolCallId no call of its interaction declares raises InteractionError naming it.",
    ),
    Case(
        "r_extra_answers_unknown_1",
        "lab2_unknown_call_rejected",
        "group_interactions(example + r-extra answering unknown-1)",
        GROUP,
        (with_r_extra(),),
        raises="InteractionError",
        naming=(("unknown-1", "r-extra"),),
        hint="An extra result for an unknown call is refused even when every call has its result.",
    ),
)
