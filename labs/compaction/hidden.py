"""Lab 4's hidden cases: ``create_compaction_entry`` refusing bad inputs, after a compaction, and with a
compaction or a metadata entry last on the path; and the going-further part's (extra credit): the trigger's
edges and bad numbers, tool rounds that interleave or nest, boundaries after a compaction and under the
recent messages, and ``compact``'s failures, cancellations and clean store."""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.provided.scenarios import (
    compacted_long_session,
    compacted_path,
    fixed_summary,
    long_session,
    message_entry,
    resumed_path,
    tool_call_entry,
    tool_result_entry,
)

from .visible import (
    BOUNDARY,
    CREATE,
    ROUNDS,
    RUN,
    RUN_WINDOW,
    SHOULD,
    TRIGGER,
    boundary,
    compact_1,
    run,
)

MODEL_CHANGE = {
    "type": "model_change",
    "id": "m1",
    "parentId": "a3",
    "timestamp": 10,
    "provider": "anthropic",
    "modelId": "model-b",
}


def legacy_summary() -> dict:
    """The example summary with the legacy key ``files`` instead of ``changedFiles``."""
    summary = example_summary()
    summary["files"] = summary.pop("changedFiles")
    return summary


def _case(name: str, grade_id: str, call: str, args: tuple, kwargs: dict, hint: str, **extra) -> Case:
    return Case(name, grade_id, call, CREATE, args, kwargs, hint=hint, hidden=True, **extra)


AFTER_COMPACT_1 = "create_compaction_entry(example + compact-1 (first kept u2) + u4, a4, id='compact-2', "
REFUSED_AFTER_COMPACT_1 = {
    "u1": "An entry the latest compaction already summarised can no longer be kept from.",
    "a1": "An entry the latest compaction already summarised can no longer be kept from.",
    "u2": "Keeping from where the latest compaction's context already starts compacts nothing: refuse it.",
    "compact-1": "A compaction entry is not a message: it never starts an interaction.",
    "a4": "A message inside an interaction of the current context is refused, naming it.",
}

CREATE_CASES: tuple[Case, ...] = (
    _case(
        "empty_path",
        "lab4_invalid_inputs",
        "create_compaction_entry([], id='compact-1', ...)",
        ([],),
        compact_1(),
        "A path with no entries has nothing to compact: CompactionError.",
        raises="CompactionError",
    ),
    *(
        _case(
            f"id_{taken}_taken",
            "lab4_invalid_inputs",
            f"create_compaction_entry(example, id={taken!r}, ...)",
            (example_entries(),),
            compact_1(id=taken),
            "An id that any entry of the path already has is refused, naming it.",
            raises="CompactionError",
            naming=(taken,),
        )
        for taken in ("a3", "u1")
    ),
    _case(
        "unknown_first_kept",
        "lab4_invalid_inputs",
        "create_compaction_entry(example, first_kept_entry_id='u9')",
        (example_entries(),),
        compact_1("u9"),
        "A first kept entry that is not on the path is refused, naming it.",
        raises="CompactionError",
        naming=("u9",),
    ),
    _case(
        "tokens_before_bool",
        "lab4_invalid_inputs",
        "create_compaction_entry(example, tokens_before=True)",
        (example_entries(),),
        compact_1(tokens_before=True),
        "tokens_before is checked as lab 1's parser checks tokensBefore, and the error names that field.",
        raises="SessionEntryError",
        naming=("tokensBefore",),
    ),
    _case(
        "legacy_summary",
        "lab4_invalid_inputs",
        "create_compaction_entry(example, a summary with 'files')",
        (example_entries(),),
        compact_1(summary=legacy_summary()),
        "The summary is checked as lab 1's parser checks it, and the error names the summary field.",
        raises="SessionEntryError",
        naming=("summary.",),
    ),
    _case(
        "tokens_before_as_given",
        "lab4_invalid_inputs",
        "create_compaction_entry(example, tokens_before=1234)",
        (example_entries(),),
        compact_1(tokens_before=1234),
        "tokensBefore is recorded as given, never recomputed.",
        parts=("tokensBefore",),
    ),
    *(
        _case(
            f"after_compact_1_keeps_from_{first_kept}",
            "lab4_after_a_compaction",
            f"{AFTER_COMPACT_1}first_kept_entry_id={first_kept!r})",
            (resumed_path(),),
            compact_1(first_kept, id="compact-2"),
            "After a compaction, a later interaction of its kept messages (or one after it) may be kept from.",
            parts=("parentId", "firstKeptEntryId"),
        )
        for first_kept in ("u3", "u4")
    ),
    *(
        _case(
            f"after_compact_1_refuses_{first_kept}",
            "lab4_after_a_compaction",
            f"{AFTER_COMPACT_1}first_kept_entry_id={first_kept!r})",
            (resumed_path(),),
            compact_1(first_kept, id="compact-2"),
            hint,
            raises="CompactionError",
            naming=(first_kept,),
        )
        for first_kept, hint in REFUSED_AFTER_COMPACT_1.items()
    ),
    _case(
        "after_a_compaction",
        "lab4_parent_is_last_entry",
        "create_compaction_entry(example + compact-1, id='compact-2', first_kept_entry_id='u3', timestamp=100.5)",
        (compacted_path(),),
        compact_1("u3", id="compact-2", timestamp=100.5),
        "When a compaction is last on the path, it is the new entry's parent.",
        parts=("parentId", "timestamp"),
    ),
    _case(
        "after_a_metadata_entry",
        "lab4_parent_is_last_entry",
        "create_compaction_entry(example + a model_change entry, ...)",
        (example_entries() + [MODEL_CHANGE],),
        compact_1(),
        "When a metadata entry is last on the path, it is the new entry's parent.",
        parts=("parentId",),
    ),
)


def calls_path(order: str) -> list:
    """u1, then ``a1`` calling c1 and ``a2`` calling c2, their results in ``order`` (``"12"``: c1's first; ``"21"``:
    c2's first, so c2's span nests in c1's), then ``a3`` and ``u2``."""
    results = {
        "1": tool_result_entry("r1", "", 0, "c1", "read", "one"),
        "2": tool_result_entry("r2", "", 0, "c2", "read", "two"),
    }
    entries = [
        message_entry("u1", None, 1, "user", "Read both files."),
        tool_call_entry("a1", "u1", 2, "First.", [("c1", "read", {"path": "one.py"})]),
        tool_call_entry("a2", "a1", 3, "Second.", [("c2", "read", {"path": "two.py"})]),
        results[order[0]],
        results[order[1]],
        message_entry("a3", "", 6, "assistant", "Both read."),
        message_entry("u2", "a3", 7, "user", "Thanks."),
    ]
    for index in (3, 4, 5):
        entries[index]["parentId"], entries[index]["timestamp"] = entries[index - 1]["id"], index + 1
    return entries


def result_first_path() -> list:
    """u1, a result r1 before the call a1 that declares c1 (lab 2 allows it inside an interaction), then a2."""
    return [
        message_entry("u1", None, 1, "user", "Go on."),
        tool_result_entry("r1", "u1", 2, "c1", "read", "early"),
        tool_call_entry("a1", "r1", 3, "Reading.", [("c1", "read", {"path": "one.py"})]),
        message_entry("a2", "a1", 4, "assistant", "Done."),
    ]


def unknown_result_path() -> list:
    """``calls_path("12")`` with r2 answering a call id no call declares."""
    entries = calls_path("12")
    entries[4]["message"]["toolCallId"] = "c9"
    return entries


def _extra(name: str, grade_id: str, call: str, function: str, args: tuple, kwargs: dict, hint: str, **extra) -> Case:
    return Case(name, grade_id, call, function, args, kwargs, hint=hint, hidden=True, **extra)


def _trigger(name: str, args: tuple, hint: str, function: str = TRIGGER, **extra) -> Case:
    call = f"{function.split('.')[-1]}{args!r}"
    return _extra(name, "lab4_extra_should_compact", call, function, args, {}, hint, **extra)


BAD_NUMBERS = {
    "ratio_above_one": ((64, 8, 1.5), "ratio"),
    "ratio_bool": ((64, 8, True), "ratio"),
    "ratio_nan": ((64, 8, {"$float": "nan"}), "ratio"),
    "reserved_over_window": ((64, 80), "reserved_output"),
    "window_infinite": (({"$float": "inf"}, 8), "window"),
    "reserved_negative": ((64, -1), "reserved_output"),
}

TRIGGER_CASES: tuple[Case, ...] = (
    _trigger("ratio_one", (64, 8, 1), "With ratio 1 the trigger is the whole window less the reserved output."),
    _trigger("floor", (10, 3, 0.5), "The trigger is rounded down to whole tokens."),
    _trigger("reaches_the_floor", (3, 10, 3, 0.5), "Reaching the trigger exactly is enough to compact.", SHOULD),
    _trigger("zero_window", (0, 0, 0.8), "A window of 0 tokens triggers at 0."),
    *(
        _trigger(name, args, f"A bad {field} raises BudgetError naming it.", raises="BudgetError", naming=(field,))
        for name, (args, field) in BAD_NUMBERS.items()
    ),
    *(
        _trigger(
            f"input_{name}",
            (value, 64, 8),
            "The estimated input is an amount of tokens: a bad one raises BudgetError naming estimated_input.",
            SHOULD,
            raises="BudgetError",
            naming=("estimated_input",),
        )
        for name, value in (("negative", -1), ("bool", True), ("nan", {"$float": "nan"}))
    ),
)


def _rounds(name: str, call: str, entries: list, hint: str, **extra) -> Case:
    return _extra(name, "lab4_extra_tool_rounds", f"group_tool_rounds({call})", ROUNDS, (entries,), {}, hint, **extra)


ROUND_CASES: tuple[Case, ...] = (
    _rounds(
        "interleaved",
        "u1, a1 (c1), a2 (c2), r1, r2, a3, u2",
        calls_path("12"),
        "Spans that overlap (a1 to r1, a2 to r2) merge into one tool round.",
        copies=True,
    ),
    _rounds(
        "nested",
        "u1, a1 (c1), a2 (c2), r2, r1, a3, u2",
        calls_path("21"),
        "A span inside another (a2 to r2 within a1 to r1) is part of the same tool round.",
    ),
    _rounds(
        "result_first",
        "u1, r1 (c1), a1 declaring c1, a2",
        result_first_path(),
        "A result before its call: the round runs from the result to the call.",
    ),
    _rounds(
        "long_session",
        "long_session()",
        long_session(),
        "Two tool rounds in one interaction (an edit, then a test) are two rounds, each call with its result.",
    ),
    _rounds(
        "unknown_call",
        "a path whose r2 answers c9",
        unknown_result_path(),
        "A path lab 2 refuses is refused the same way (InteractionError naming the call id).",
        raises="InteractionError",
        naming=("c9",),
    ),
)


def _boundary(name: str, call: str, entries: list, kwargs: dict, hint: str, **extra) -> Case:
    return _extra(
        name, "lab4_extra_boundary", f"select_compaction_boundary({call})", BOUNDARY, (entries,), kwargs, hint, **extra
    )


BOUNDARY_CASES: tuple[Case, ...] = (
    _boundary(
        "after_compact_1",
        "compacted_path(), target_tokens=100, ...",
        compacted_path(),
        boundary(100, 3, 0),
        "After a compaction, only its kept messages count, and the cut is never at their first one.",
    ),
    _boundary(
        "retain_two_holds_a_round",
        "example, target 15, summary 3, retain 2",
        example_entries(),
        boundary(15, 3, 2),
        "Keeping the last two messages keeps r-read, so the cut is at or before its round, never after it.",
    ),
    _boundary(
        "retain_two_too_small",
        "example, target 14, summary 3, retain 2",
        example_entries(),
        boundary(14, 3, 2),
        "When no cut at or before the recent messages fits, the answer is None.",
    ),
    _boundary(
        "retain_eight",
        "example, target 100, summary 3, retain 8",
        example_entries(),
        boundary(100, 3, 8),
        "Retaining all but the first message still allows a cut after it.",
    ),
    _boundary(
        "target_too_small",
        "example, target 5, summary 3, retain 0",
        example_entries(),
        boundary(5, 3, 0),
        "When not even the newest round fits, the answer is None.",
    ),
    _boundary(
        "nothing_to_cut",
        "[u1], target 100, ...",
        example_entries()[:1],
        boundary(100, 3, 0),
        "One round alone cannot be cut: None.",
    ),
    _boundary(
        "interleaved",
        "u1, a1 (c1), a2 (c2), r1, r2, a3, u2, target 12, summary 3, retain 0",
        calls_path("12"),
        boundary(12, 3, 0),
        "Never cut inside overlapping spans: a2 and r1 are not boundaries.",
    ),
    _boundary(
        "naive_would_cut_at_a_result",
        "long_session(), target 23, summary 3, retain 0",
        long_session(),
        boundary(23, 3, 0),
        "A cut that would fit at a tool result (r-edit) moves on to the next round's start.",
    ),
    _boundary(
        "metadata_on_the_path",
        "example + a model_change entry, target 21, ...",
        example_entries() + [MODEL_CHANGE],
        boundary(21, 3, 1),
        "Metadata entries are not messages: they cost nothing and are never a boundary.",
    ),
    _boundary(
        "constant_estimator",
        "example, every message 5 tokens, target 20, summary 5, retain 1",
        example_entries(),
        {**boundary(20, 5, 1), "estimator_spec": {"name": "constant", "value": 5}},
        "Every amount is the caller's estimator's.",
    ),
    _boundary(
        "estimator_changes_its_argument",
        "example, an estimator that writes into what it prices",
        example_entries(),
        {**boundary(21, 3, 1), "estimator_spec": {"name": "changes_its_argument"}},
        "The estimator gets copies: the path is unchanged.",
    ),
    *(
        _boundary(
            name,
            f"example, {field}={value!r}",
            example_entries(),
            {**boundary(21, 3, 1), field: value},
            f"A bad {field} raises BudgetError naming it.",
            raises="BudgetError",
            naming=(field,),
        )
        for name, field, value in (
            ("retain_bool", "retain_recent_messages", True),
            ("retain_negative", "retain_recent_messages", -1),
            ("target_negative", "target_tokens", -1),
            ("summary_nan", "summary_max_tokens", {"$float": "nan"}),
            ("fixed_string", "fixed_tokens", "3"),
        )
    ),
    _boundary(
        "bad_estimate",
        "example, an estimator returning -1",
        example_entries(),
        {**boundary(21, 3, 1), "estimator_spec": {"name": "constant", "value": -1}},
        "A bad estimate raises BudgetError naming the entry it priced.",
        raises="BudgetError",
        naming=("u1",),
    ),
)


def _compact(
    name: str, grade_id: str, call: str, entries: list, kwargs: dict, hint: str, window: tuple = RUN_WINDOW, **extra
) -> Case:
    return _extra(name, grade_id, f"compact({call})", RUN, (entries, options(*window)), kwargs, hint, **extra)


FAILED = ("outcome", "file_unchanged", "new_lines")
LOST_GOAL = {**fixed_summary(), "goal": "Write the changelog entry."}
COMPACT_CASES: tuple[Case, ...] = (
    _compact(
        "async_summarizer",
        "lab4_extra_compact",
        "long_session(), an async summarizer",
        long_session(),
        run(summarizer="async"),
        "An async summarizer is awaited; its reply is used as a plain one's.",
        parts=("outcome", "new_lines", "finished"),
    ),
    _compact(
        "boundary_moves_to_u5",
        "lab4_extra_compact",
        "long_session(), summary budget 15",
        long_session(),
        run(summary_max_tokens=15),
        "A cut at a tool round inside an interaction moves on to the next user "
        "message (labs 3 and 5 resume only from one).",
        parts=("outcome", "result", "requests"),
    ),
    _compact(
        "leaf_a6",
        "lab4_extra_compact",
        "long_session() with a7 stored, leaf a6",
        long_session(),
        run("a6"),
        "compact works on the path to the leaf it is given: the new entry's parent is that leaf.",
        parts=("outcome", "new_lines"),
    ),
    _compact(
        "scribbling_summarizer",
        "lab4_extra_compact",
        "compacted_long_session(), a summarizer that changes its request",
        compacted_long_session(),
        run(reply=fixed_summary(), scribbles=True),
        "The summarizer gets copies: what it changes is not what compact checks or appends.",
        parts=("outcome", "new_lines"),
    ),
    _compact(
        "ratio_one",
        "lab4_extra_compact",
        "long_session(), ratio 1",
        long_session(),
        run(ratio=1),
        "The ratio moves the trigger and the target together.",
        parts=("outcome", "result"),
    ),
    _compact(
        "reply_not_a_summary",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), a reply that is a string",
        long_session(),
        run(reply="Everything went fine."),
        "A reply that is not a seven-field summary: summarizer_failed, store unchanged.",
        parts=FAILED,
    ),
    _compact(
        "reply_with_legacy_key",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), a summary with 'files'",
        long_session(),
        run(reply=legacy_summary()),
        "A summary lab 1 refuses: summarizer_failed.",
        parts=FAILED,
    ),
    _compact(
        "summary_over_budget",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), summary budget 10",
        long_session(),
        run(summary_max_tokens=10),
        "A summary whose message costs more than its budget: summarizer_failed, store unchanged.",
        parts=FAILED,
    ),
    _compact(
        "async_raises",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), an async summarizer that raises",
        long_session(),
        run(summarizer="async", error="timeout"),
        "An async summarizer that raises: summarizer_failed.",
        parts=FAILED,
    ),
    _compact(
        "lost_goal",
        "lab4_extra_compact_fails_cleanly",
        "compacted_long_session(), a reply with another goal",
        compacted_long_session(),
        run(reply=LOST_GOAL),
        "The previous goal must still be in the new goal: summary_lost_facts, store unchanged.",
        parts=FAILED,
    ),
    _compact(
        "lost_constraint",
        "lab4_extra_compact_fails_cleanly",
        "compacted_long_session(), no constraints",
        compacted_long_session(),
        run(reply={**fixed_summary(), "constraints": []}),
        "Every previous constraint must be kept: summary_lost_facts.",
        parts=FAILED,
    ),
    _compact(
        "lost_changed_file",
        "lab4_extra_compact_fails_cleanly",
        "compacted_long_session(compact-1 changed stores.py), a reply without it",
        compacted_long_session(fixed_summary()),
        run(reply=example_summary()),
        "Every previous changed file must be kept: summary_lost_facts.",
        parts=FAILED,
    ),
    _compact(
        "over_budget",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), ratio 1, safety margin 20",
        long_session(),
        run(ratio=1),
        "When the compacted context still does not fit the window "
        "(lab 3's build_context trims it): over_budget, store unchanged.",
        window=(64, "sys", 8, 20),
        parts=FAILED,
    ),
    _compact(
        "cancelled_while_summarizing",
        "lab4_extra_compact_fails_cleanly",
        "compacted_long_session(), the token cancelled while a summary that lost a constraint is made",
        compacted_long_session(),
        run(reply={**fixed_summary(), "constraints": []}, cancel="while_summarizing"),
        "Look at the token as soon as the summarizer returns, before checking its reply: cancelled.",
        parts=FAILED,
    ),
    _compact(
        "cancelled_while_awaited",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), an async summarizer cancelled while it is awaited",
        long_session(),
        run(summarizer="async", cancel="while_summarizing"),
        "A cancellation while an async summarizer is awaited stops it there (await_cancellable).",
        parts=(*FAILED, "finished"),
    ),
    _compact(
        "cancelled_while_verifying",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), the token cancelled while the new summary is priced",
        long_session(),
        run(cancel="while_verifying"),
        "Look at the token once more just before appending: cancelled, store unchanged.",
        parts=FAILED,
    ),
    _compact(
        "cancelled_before_async",
        "lab4_extra_compact_fails_cleanly",
        "long_session(), an async summarizer, a cancelled token",
        long_session(),
        run(summarizer="async", cancel="before"),
        "A cancelled token stops compact before the summarizer is called.",
        parts=(*FAILED, "requests"),
    ),
)

CASES: tuple[Case, ...] = CREATE_CASES + TRIGGER_CASES + ROUND_CASES + BOUNDARY_CASES + COMPACT_CASES
