"""Lab 3's hidden cases: ``build_context`` at the edges of the budget, with misbehaving estimators, copies
and metadata, and the greedy mistake of skipping an interaction that does not fit. Going further (extra
credit): every weight of ``estimate_units``, the summary at the end of the system prompt at its edges, and
``replay`` with headroom, compactions, metadata and bad input."""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options, policy
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.provided.scenarios import (
    chat_path,
    compacted_path,
    compaction_object,
    later_summary,
    message_entry,
    resumed_path,
    twice_compacted_path,
)

BUILD = "budget.build_context"
MODEL_CHANGE = {
    "type": "model_change",
    "id": "m1",
    "parentId": "a2",
    "timestamp": 4,
    "provider": "anthropic",
    "modelId": "model-b",
}
LONG_ANSWER = " ".join(["An entry is committed once its newline is written and flushed to disk."] * 7)


def with_long_a2() -> list:
    """The example with a2 answering in 84 words (12 tokens): [u2, a2] costs 15, as much as the newest."""
    entries = example_entries()
    entries[3] = message_entry("a2", "u2", 4, "assistant", LONG_ANSWER)
    return entries


def _case(name: str, grade_id: str, call: str, args: tuple, hint: str, **extra) -> Case:
    return Case(name, grade_id, call, BUILD, args, hint=hint, hidden=True, **extra)


CASES: tuple[Case, ...] = (
    _case(
        "window_38_complete",
        "lab3_complete_and_zero_budget",
        "build_context(example, max_tokens=38)",
        (example_entries(), options(38)),
        "When everything fits, every interaction is kept and the reason is complete.",
        parts=("kept_entry_ids", "reason", "tokens.total"),
    ),
    *(
        _case(
            f"window_{window}_overflows",
            "lab3_complete_and_zero_budget",
            f"build_context(example, max_tokens={window})",
            (example_entries(), options(window)),
            "With nothing left for messages, the newest interaction is still kept whole.",
            parts=("kept_entry_ids", "reason", "tokens"),
        )
        for window in (9, 0)
    ),
    _case(
        "first_interaction_only",
        "lab3_complete_and_zero_budget",
        "build_context([u1, a1], max_tokens=16)",
        (example_entries()[:2], options(16)),
        "A path of one interaction that fits is complete.",
        parts=("kept_entry_ids", "reason"),
    ),
    # Cells about estimators, copies and metadata use a window where the whole path fits (38 and up), so a
    # boundary mistake (lab3_trim_boundary's, at 30 and 31) costs its own cell, not theirs too.
    _case(
        "estimator_changes_its_argument",
        "lab3_estimator_misbehaves",
        "build_context(example, an estimator that writes into the message it prices)",
        (example_entries(), options(38, estimator={"name": "changes_its_argument"})),
        "The estimator must get copies: what it does to them never reaches the path or the context.",
        parts=("messages", "kept_entry_ids"),
    ),
    *(
        _case(
            f"estimate_{label}",
            "lab3_estimator_misbehaves",
            f"build_context(example, an estimator returning {label})",
            (example_entries(), options(31, estimator={"name": "constant", "value": value})),
            "An estimate that is not a finite number >= 0 (or is a bool) is refused.",
            raises="BudgetError",
        )
        for label, value in (("-1", -1), ("nan", {"$float": "nan"}), ("True", True))
    ),
    *(
        _case(
            f"message_estimate_{label}",
            "lab3_estimator_misbehaves",
            f"build_context(example, messages estimated at {label})",
            (example_entries(), options(31, estimator={"name": "messages_at", "value": value})),
            "Every message's estimate is checked, not only the system prompt's.",
            raises="BudgetError",
        )
        for label, value in (("-1", -1), ("inf", {"$float": "inf"}))
    ),
    _case(
        "messages_are_copies",
        "lab3_copies_and_metadata",
        "build_context(example, max_tokens=100)",
        (example_entries(), options(100)),
        "The context's messages are deep copies of the path's.",
        copies=True,
        parts=("messages",),
    ),
    _case(
        "model_change_skipped",
        "lab3_copies_and_metadata",
        "build_context(example with a model_change entry after a2, max_tokens=38)",
        (example_entries()[:4] + [MODEL_CHANGE] + example_entries()[4:], options(38)),
        "Metadata entries are skipped: they are neither messages nor priced.",
        parts=("kept_entry_ids", "tokens.messages"),
    ),
    *(
        _case(
            f"compacted_window_{window}",
            "lab3_complete_and_zero_budget",
            f"build_context(example + compact-1, max_tokens={window})",
            (compacted_path(), options(window)),
            "After a compaction, its summary message comes first and is paid before any interaction.",
            parts=("messages", "kept_entry_ids", "reason", "tokens", "compaction_id"),
        )
        for window in (36, 43)
    ),
    _case(
        "no_skipping_ahead",
        "lab3_complete_and_zero_budget",
        "build_context(example with a 15-token [u2, a2], max_tokens=31)",
        (with_long_a2(), options(31)),
        "The walk stops at the first interaction that does not fit: an older one is never kept past it.",
        parts=("kept_entry_ids", "reason", "tokens.messages"),
    ),
)


UNITS, UNITS_HINT = "lab3_extra_units_weights", "Each part has its weight (see estimate_units): code points, not bytes."
PLACE, PLACE_HINT = "lab3_extra_summary_placement_edges", "The summary ends the system prompt after a blank line."
REPLAY, REPLAY_HINT = "lab3_extra_cache_replay_edges", "Append while the turn fits; rebuild from the floor otherwise."


def _units(name: str, call: str, item: object, hint: str = UNITS_HINT, **extra) -> Case:
    return Case(
        name, UNITS, f"estimate_units({call})", "budget.estimate_units", (item,), hint=hint, hidden=True, **extra
    )


def _place(
    name: str, call: str, args: tuple, hint: str = PLACE_HINT, summary_at: str = "system_prompt", **extra
) -> Case:
    return Case(
        name,
        PLACE,
        f"build_context({call}, summary_at={summary_at!r})",
        BUILD,
        args,
        {"summary_at": summary_at},
        hint=hint,
        hidden=True,
        **extra,
    )


def _replay(name: str, call: str, args: tuple, hint: str = REPLAY_HINT, **extra) -> Case:
    return Case(name, REPLAY, f"replay({call})", "budget.replay", args, hint=hint, hidden=True, **extra)


def tool_call(arguments: dict) -> dict:
    """An assistant message with one tool call ``c1`` to ``f`` with ``arguments``."""
    return {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "f", "arguments": arguments}]}


def with_model_changes(entries: list) -> list:
    """``entries`` with a model_change entry before every user message but the first."""
    out: list = []
    for entry in entries:
        if out and entry["type"] == "message" and entry["message"]["role"] == "user":
            out.append(
                {
                    "type": "model_change",
                    "id": f"m-{entry['id']}",
                    "parentId": out[-1]["id"],
                    "timestamp": entry["timestamp"],
                    "provider": "anthropic",
                    "modelId": "model-b",
                }
            )
        out.append(entry)
    return out


def recompacted(summary: dict) -> list:
    """``resumed_path()``, then compact-2 keeping from u2 again with ``summary``, then u5."""
    return resumed_path() + [
        compaction_object("compact-2", "a4", "u2", summary=summary, timestamp=103),
        message_entry("u5", "compact-2", 104, "user", "Is anything left to do?"),
    ]


def dangling_read() -> list:
    """The example without r-read (read-1 never gets a result), then a fourth user message u4."""
    entries = [entry for entry in example_entries() if entry["id"] != "r-read"]
    return entries + [message_entry("u4", "a3", 10, "user", "And now?")]


ASSISTANT_WITH_FIELDS = {
    "role": "assistant",
    "content": [{"type": "text", "text": "ok"}],
    "stopReason": "stop",
    "api": "openai-responses",
    "usage": {"input": 10, "output": 2},
    "isError": False,
}

CASES += (
    _units("system_prompt_string", "'sys'", "sys"),
    _units(
        "text_block",
        "user message with one text block '😀'",
        {"role": "user", "content": [{"type": "text", "text": "😀"}]},
    ),
    _units(
        "thinking_and_text",
        "assistant message: thinking 'hmm', text 'ok'",
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"}]},
    ),
    _units(
        "image_block",
        "user message with one image",
        {"role": "user", "content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]},
    ),
    _units("tool_result_link", "the message of 'r-test'", example_entries()[6]["message"]),
    _units(
        "json_scalars_and_containers",
        "a tool call with nested arguments",
        tool_call({"b": [1, True, None, 2.5, "x😀"], "a": {"😀": "z"}}),
    ),
    _units(
        "provider_fields_not_priced",
        "an assistant message with stopReason, api, usage and isError",
        ASSISTANT_WITH_FIELDS,
    ),
    _units("whole_example", "the nine example messages", [entry["message"] for entry in example_entries()]),
    _units(
        "unknown_role",
        "{'role': 'system', 'content': 'x'}",
        {"role": "system", "content": "x"},
        raises="BudgetError",
        naming=("role",),
    ),
    _units(
        "nan_argument",
        "a tool call with arguments {'x': nan}",
        tool_call({"x": {"$float": "nan"}}),
        raises="BudgetError",
        naming=("arguments.x",),
    ),
    _units(
        "first_bad_argument_in_key_order",
        "a tool call with arguments {'b': nan, 'a': inf}",
        tool_call({"b": {"$float": "nan"}, "a": {"$float": "inf"}}),
        raises="BudgetError",
        naming=("arguments.a",),
        hint="Object keys are visited in sorted order, so the first part refused is the same for every writer.",
    ),
    _units(
        "unknown_block",
        "a user message with an 'audio' block",
        {"role": "user", "content": [{"type": "audio", "data": "x"}]},
        raises="BudgetError",
        naming=("type",),
    ),
    _units("a_number", "42", 42, raises="BudgetError"),
    _units(
        "result_without_link",
        "a tool result without toolCallId",
        {"role": "toolResult", "toolName": "bash", "content": "ok", "isError": False},
        raises="BudgetError",
        naming=("toolCallId",),
    ),
    _place(
        "empty_system_prompt",
        "compacted_path(), max_tokens=43 and an empty system prompt",
        (compacted_path(), options(43, "")),
        parts=("system_prompt", "messages", "tokens"),
    ),
    _place(
        "latest_summary_only",
        "twice_compacted_path(), max_tokens=40",
        (twice_compacted_path(), options(40)),
        parts=("system_prompt", "messages", "kept_entry_ids", "compaction_id"),
    ),
    _place(
        "tight_window_trims",
        "compacted_path(), max_tokens=30",
        (compacted_path(), options(30)),
        parts=("kept_entry_ids", "reason", "tokens"),
    ),
    _place(
        "unknown_place",
        "compacted_path(), max_tokens=43",
        (compacted_path(), options(43)),
        summary_at="end",
        raises="BudgetError",
        naming=("summary_at",),
        hint="summary_at is first_message or system_prompt; anything else is refused by name.",
    ),
    _replay(
        "headroom_quarter_window_27",
        "chat_path(10), max_tokens=27, headroom 0.25",
        (chat_path(10), options(27), policy(0.25)),
    ),
    _replay(
        "headroom_is_a_share_of_the_message_budget",
        "chat_path(10), max_tokens=23, headroom 0.25",
        (chat_path(10), options(23), policy(0.25)),
        hint="The headroom is a share of the message budget (available_for_messages), added to the margin.",
    ),
    _replay(
        "summary_in_system_prompt_with_headroom",
        "twice_compacted_path(), max_tokens=40, headroom 0.5, summary in the system prompt",
        (twice_compacted_path(), options(40), policy(0.5, "system_prompt")),
    ),
    _replay(
        "compaction_midway",
        "resumed_path(), max_tokens=30",
        (resumed_path(), options(30), policy()),
        hint="A new compaction on the path changes the request's start: rebuild from it.",
    ),
    _replay(
        "same_prefix_after_a_compaction_hits",
        "compact-2 keeping from u2 with compact-1's summary, max_tokens=100",
        (recompacted(example_summary()), options(100), policy()),
        hint="A rebuild whose request starts with the previous request is a hit too.",
    ),
    _replay(
        "new_summary_in_the_system_prompt_misses",
        "compact-2 keeping from u2 with a new summary, max_tokens=100, summary in the system prompt",
        (recompacted(later_summary("Second summary.")), options(100), policy(0, "system_prompt")),
        hint="The request starts with the system prompt: when it changes, nothing is reused.",
    ),
    _replay(
        "metadata_between_turns",
        "chat_path(6) with model changes, max_tokens=20, headroom 0.5",
        (with_model_changes(chat_path(6)), options(20), policy(0.5)),
        hint="Metadata entries are neither messages nor turns.",
    ),
    _replay("no_user_message", "[], max_tokens=20", ([], options(20), policy())),
    _replay(
        "dangling_call_refused",
        "the example without r-read and a user message u4, max_tokens=40",
        (dangling_read(), options(40), policy()),
        raises="InteractionError",
        naming=(("read-1", "calls"),),
        hint="Appended turns are checked as lab 2 checks them: a call without its result is refused.",
    ),
    *(
        _replay(
            f"headroom_{label}_refused",
            f"chat_path(3), headroom {label}",
            (chat_path(3), options(20), policy(value)),
            raises="BudgetError",
            naming=("headroom",),
            hint="headroom is a number with 0 <= headroom < 1.",
        )
        for label, value in (("1", 1), ("true", True))
    ),
    _replay(
        "estimate_refused",
        "chat_path(3), messages estimated at -1",
        (chat_path(3), options(20, estimator={"name": "messages_at", "value": -1}), policy()),
        raises="BudgetError",
        hint="Every estimate goes through measure, appended turns included.",
    ),
)
