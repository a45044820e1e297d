"""Lab 4's visible cases: ``create_compaction_entry`` on the running example (``04_compaction_creation.ipynb``),
and the going-further part's (extra credit): ``should_compact``, ``group_tool_rounds``,
``select_compaction_boundary`` and ``compact``."""

from __future__ import annotations

from typing import Any

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.provided.scenarios import compacted_long_session, fixed_summary, long_session, tool_round_path

CREATE = "compaction.create_compaction_entry"
TRIGGER, SHOULD = "compaction.compaction_trigger", "compaction.should_compact"
ROUNDS, BOUNDARY, RUN = (
    "compaction.group_tool_rounds",
    "provided.checking.drivers.compaction_boundary",
    "provided.checking.drivers.run_compact",
)


def compact_1(first_kept_entry_id: str = "u2", **changes: Any) -> dict[str, Any]:
    """compact-1's keyword arguments (timestamp 100, the example summary, first kept u2, tokens before 29),
    some of them changed."""
    return {
        "id": "compact-1",
        "timestamp": 100,
        "summary": example_summary(),
        "first_kept_entry_id": first_kept_entry_id,
        "tokens_before": 29,
        **changes,
    }


CREATE_CASES: tuple[Case, ...] = (
    Case(
        "compact_1_after_a3",
        "lab4_parent_and_fields",
        "create_compaction_entry(example_entries(), id='compact-1', timestamp=100, summary=example_summary(), "
        "first_kept_entry_id='u2', tokens_before=29)",
        CREATE,
        (example_entries(),),
        compact_1(),
        hint="The parent is the path's last entry; every other field is taken as given.",
    ),
    Case(
        "a_store_accepts_it",
        "lab4_parent_and_fields",
        "append_compaction(example_entries(), <compact-1's arguments>): the ids of the store's path to compact-1",
        "provided.checking.drivers.append_compaction",
        (example_entries(),),
        compact_1(),
        hint="The entry must be one a store appends: the same fields and types as a parsed compaction entry.",
    ),
    Case(
        "shares_nothing",
        "lab4_copies_and_no_change",
        "create_compaction_entry(example_entries(), summary=example_summary(), <compact-1's other arguments>)",
        CREATE,
        (example_entries(),),
        compact_1(),
        copies=True,
        hint="Copy the summary given (lists included) into the new entry, and leave the path as it was.",
    ),
    *(
        Case(
            f"keeps_from_{first_kept}",
            "lab4_first_kept_starts_interaction",
            f"create_compaction_entry(example_entries(), first_kept_entry_id={first_kept!r}, ...)",
            CREATE,
            (example_entries(),),
            compact_1(first_kept),
            parts=("firstKeptEntryId",),
            hint="A user message that starts an interaction, other than the first, is a valid first kept entry.",
        )
        for first_kept in ("u2", "u3")
    ),
    *(
        Case(
            f"refuses_{first_kept}",
            "lab4_first_kept_starts_interaction",
            f"create_compaction_entry(example_entries(), first_kept_entry_id={first_kept!r}, ...)",
            CREATE,
            (example_entries(),),
            compact_1(first_kept),
            raises="CompactionError",
            naming=(first_kept,),
            hint="Keep from a user message opening an interaction, not the first; else CompactionError naming it.",
        )
        for first_kept in ("u1", "a2", "calls", "r-test", "r-read", "a3")
    ),
)


def boundary(
    target_tokens: float, summary_max_tokens: float, retain_recent_messages: int, **more: Any
) -> dict[str, Any]:
    """The keyword arguments of ``select_compaction_boundary`` but the estimator (the example's)."""
    return {
        "target_tokens": target_tokens,
        "summary_max_tokens": summary_max_tokens,
        "retain_recent_messages": retain_recent_messages,
        **more,
    }


RUN_WINDOW = (64, "sys", 8, 2)
"""``compact``'s running budget: a window of 64 tokens, the system prompt "sys" (3), 8 reserved, margin 2:
it triggers at floor((64 - 8) * 0.8) = 44 tokens of input."""


def run(leaf_id: str = "a7", **changes: Any) -> dict[str, Any]:
    """``run_compact``'s keyword arguments for a compaction named compact-2 at 200 ms after ``leaf_id``: summary
    budget 12, retain 2, default ratio, a plain summarizer replying the example summary; some changed."""
    return {
        "leaf_id": leaf_id,
        "id": "compact-2",
        "timestamp": 200,
        "summary_max_tokens": 12,
        "retain_recent_messages": 2,
        "reply": example_summary(),
        **changes,
    }


COMPACT_CALL = (
    "compact(<{path} in a JSONL store>, {leaf!r}, <window 64, reserved 8, summary 12, retain 2>, {summarizer})"
)

EXTRA_CASES: tuple[Case, ...] = (
    Case(
        "trigger_example",
        "lab4_extra_should_compact",
        "compaction_trigger(31, 4)",
        TRIGGER,
        (31, 4),
        hint="The trigger is floor((window - reserved_output) * ratio), ratio 0.8 by default.",
    ),
    Case(
        "trigger_half",
        "lab4_extra_should_compact",
        "compaction_trigger(64, 8, 0.5)",
        TRIGGER,
        (64, 8, 0.5),
        hint="The same rule with the ratio given: floor((64 - 8) * 0.5).",
    ),
    *(
        Case(
            f"input_{tokens}",
            "lab4_extra_should_compact",
            f"should_compact({tokens}, 31, 4)",
            SHOULD,
            (tokens, 31, 4),
            hint="should_compact is True from compaction_trigger(window, reserved_output) on, False below it.",
        )
        for tokens in (20, 21, 32)
    ),
    Case(
        "ratio_zero",
        "lab4_extra_should_compact",
        "should_compact(20, 31, 4, 0)",
        SHOULD,
        (20, 31, 4, 0),
        raises="BudgetError",
        naming=("ratio",),
        hint="A ratio must be above 0 and at most 1: BudgetError naming ratio.",
    ),
    Case(
        "example_rounds",
        "lab4_extra_tool_rounds",
        "group_tool_rounds(example_entries())",
        ROUNDS,
        (example_entries(),),
        copies=True,
        hint="An assistant message with tool calls spans to its last result; every other message is a round alone.",
    ),
    Case(
        "worked_case_rounds",
        "lab4_extra_tool_rounds",
        "group_tool_rounds(tool_round_path())",
        ROUNDS,
        (tool_round_path(),),
        hint="Spans that overlap merge into one round; rounds never cross a user message.",
    ),
    Case(
        "worked_case",
        "lab4_extra_boundary",
        "select_compaction_boundary(tool_round_path(), target_tokens=12, "
        "summary_max_tokens=3, retain_recent_messages=1, estimate_tokens=estimate_example_tokens)",
        BOUNDARY,
        (tool_round_path(),),
        boundary(12, 3, 1),
        hint="Walk whole rounds from the oldest; the first round's first entry after which everything fits wins.",
    ),
    Case(
        "example_target_21",
        "lab4_extra_boundary",
        "select_compaction_boundary(example_entries(), "
        "target_tokens=21, summary_max_tokens=3, retain_recent_messages=1, ...)",
        BOUNDARY,
        (example_entries(),),
        boundary(21, 3, 1),
        hint="The summary budget is reserved in full, and the first round is never a cut.",
    ),
    Case(
        "reserves_the_summary",
        "lab4_extra_boundary",
        "select_compaction_boundary(example_entries(), "
        "target_tokens=21, summary_max_tokens=9, retain_recent_messages=1, ...)",
        BOUNDARY,
        (example_entries(),),
        boundary(21, 9, 1),
        hint="A larger summary budget leaves less for messages: the cut moves later.",
    ),
    Case(
        "fixed_tokens",
        "lab4_extra_boundary",
        "select_compaction_boundary(example_entries(), "
        "target_tokens=24, summary_max_tokens=3, retain_recent_messages=1, fixed_tokens=3, ...)",
        BOUNDARY,
        (example_entries(),),
        boundary(24, 3, 1, fixed_tokens=3),
        hint="fixed_tokens (the system prompt) counts against the target with the summary budget.",
    ),
    Case(
        "retains_everything",
        "lab4_extra_boundary",
        "select_compaction_boundary(example_entries(), "
        "target_tokens=100, summary_max_tokens=3, retain_recent_messages=9, ...)",
        BOUNDARY,
        (example_entries(),),
        boundary(100, 3, 9),
        hint="When the recent messages to retain leave nothing to compact, there is no cut: None.",
    ),
    Case(
        "first_compaction",
        "lab4_extra_compact",
        COMPACT_CALL.format(path="long_session()", leaf="a7", summarizer="ScriptedSummarizer(example_summary())"),
        RUN,
        (long_session(), options(*RUN_WINDOW)),
        run(),
        hint="Above the trigger: cut at a user message, summarize once, verify, then append one sealed entry.",
    ),
    Case(
        "below_the_trigger",
        "lab4_extra_compact",
        COMPACT_CALL.format(path="long_session()", leaf="a3", summarizer="ScriptedSummarizer(example_summary())"),
        RUN,
        (long_session(), options(*RUN_WINDOW)),
        run("a3"),
        hint="Below the trigger, compact changes nothing and never calls the summarizer.",
    ),
    Case(
        "after_compact_1",
        "lab4_extra_compact",
        COMPACT_CALL.format(
            path="compacted_long_session()", leaf="a7", summarizer="ScriptedSummarizer(fixed_summary())"
        ),
        RUN,
        (compacted_long_session(), options(*RUN_WINDOW)),
        run(reply=fixed_summary()),
        parts=("outcome", "requests", "new_lines"),
        hint="The current context starts at the latest summary's first kept entry; the new summary keeps its goal.",
    ),
    Case(
        "summarizer_raises",
        "lab4_extra_compact_fails_cleanly",
        COMPACT_CALL.format(path="long_session()", leaf="a7", summarizer="a summarizer raising RuntimeError"),
        RUN,
        (long_session(), options(*RUN_WINDOW)),
        run(error="the model is unavailable"),
        parts=("outcome", "file_unchanged", "new_lines"),
        hint="A summarizer that raises leaves the file unchanged and returns outcome summarizer_failed.",
    ),
    Case(
        "cancelled_before",
        "lab4_extra_compact_fails_cleanly",
        COMPACT_CALL.format(path="long_session()", leaf="a7", summarizer="..., cancel=<a cancelled token>"),
        RUN,
        (long_session(), options(*RUN_WINDOW)),
        run(cancel="before"),
        parts=("outcome", "file_unchanged", "requests"),
        hint="Look at cancel before summarizing: cancelled, no request sent, the file unchanged.",
    ),
    Case(
        "boundary_unavailable",
        "lab4_extra_compact_fails_cleanly",
        COMPACT_CALL.format(path="long_session()", leaf="a7", summarizer="...").replace("retain 2", "retain 9"),
        RUN,
        (long_session(), options(*RUN_WINDOW)),
        run(retain_recent_messages=9),
        parts=("outcome", "file_unchanged", "requests"),
        hint="When no cut keeps the recent messages, the outcome is boundary_unavailable, and nothing is asked.",
    ),
)
"""The going-further cases: extra credit, outside the lab's 10 points."""

CASES: tuple[Case, ...] = CREATE_CASES + EXTRA_CASES
