"""Lab 3's visible cases: ``build_context`` on the running example (``03_budget_projection.ipynb``), and the
Going-further functions (extra credit): ``estimate_units``, the ``summary_at`` option and ``replay``. The
Going-further cases build their inputs from the provided modules only, never from a lab function."""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options, policy
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.scenarios import chat_path, compacted_path, twice_compacted_path

TEN_WORD_PROMPT = "You are a careful coding agent; answer briefly and exactly."

REQUIREMENT = {"id": "r", "content": "AB"}
USER_A = {"id": "u", "role": "user", "content": "a"}
UNITS = "budget.estimate_units"
BUILD = "budget.build_context"
REPLAY = "budget.replay"


CASES: tuple[Case, ...] = (
    Case(
        "window_31_fixed_costs",
        "lab3_fixed_costs",
        "build_context(example_entries(), example_options(max_tokens=31))",
        "budget.build_context",
        (example_entries(), options(31)),
        parts=(
            "tokens.max_tokens",
            "tokens.system",
            "tokens.reserved_output",
            "tokens.safety_margin",
            "tokens.available_for_messages",
        ),
        hint="The system prompt, reserved output and safety margin come off max_tokens before any message.",
    ),
    Case(
        "ten_word_prompt",
        "lab3_fixed_costs",
        "build_context(example_entries(), max_tokens=40, a 10-word system prompt, reserved 10, margin 5)",
        "budget.build_context",
        (example_entries(), options(40, TEN_WORD_PROMPT, 10, 5)),
        parts=("tokens.system", "tokens.available_for_messages"),
        hint="Price the system prompt with the options' estimator; the rest of the window is for messages.",
    ),
    Case(
        "window_31_keeps_two",
        "lab3_trim_boundary",
        "build_context(example_entries(), example_options(max_tokens=31))",
        "budget.build_context",
        (example_entries(), options(31)),
        hint="Keep whole interactions newest first while their total fits what is available for messages.",
    ),
    Case(
        "window_30_keeps_one",
        "lab3_trim_boundary",
        "build_context(example_entries(), example_options(max_tokens=30))",
        "budget.build_context",
        (example_entries(), options(30)),
        parts=("kept_entry_ids", "reason", "tokens.messages"),
        hint="One token less and the second-newest interaction no longer fits: stop there, and give the reason.",
    ),
    Case(
        "window_19_overflows",
        "lab3_newest_group_overflow",
        "build_context(example_entries(), example_options(max_tokens=19))",
        "budget.build_context",
        (example_entries(), options(19)),
        parts=("kept_entry_ids", "reason", "tokens"),
        hint="The newest interaction is kept whole even when it alone does not fit; the reason says so.",
    ),
    # Going further (extra credit)
    Case(
        "requirement_costs_6",
        "lab3_extra_units_estimator",
        "estimate_units({'id': 'r', 'content': 'AB'})",
        UNITS,
        (REQUIREMENT,),
        hint="A requirement costs 3 plus the code points of its id and content.",
    ),
    Case(
        "user_message_costs_6",
        "lab3_extra_units_estimator",
        "estimate_units({'id': 'u', 'role': 'user', 'content': 'a'})",
        UNITS,
        (USER_A,),
        hint="A message costs 4 for its role and framing, plus the code points of its id and content.",
    ),
    Case(
        "both_cost_12",
        "lab3_extra_units_estimator",
        "estimate_units([the requirement, the user message])",
        UNITS,
        ([REQUIREMENT, USER_A],),
        hint="A list costs the sum of its items.",
    ),
    Case(
        "emoji_is_one_code_point",
        "lab3_extra_units_estimator",
        "estimate_units([the requirement, the user message with content '😀'])",
        UNITS,
        ([REQUIREMENT, {**USER_A, "content": "😀"}],),
        hint="Count code points (len of a str), not UTF-8 bytes or UTF-16 units: an emoji is 1.",
    ),
    Case(
        "calls_message",
        "lab3_extra_units_estimator",
        "estimate_units(the message of 'calls')",
        UNITS,
        (example_entries()[5]["message"],),
        hint="A toolCall block costs 1 plus its id, its name and its arguments priced as JSON.",
    ),
    Case(
        "no_compaction_nothing_moves",
        "lab3_extra_summary_in_system_prompt",
        "build_context(example_entries(), example_options(max_tokens=31), summary_at='system_prompt')",
        BUILD,
        (example_entries(), options(31)),
        {"summary_at": "system_prompt"},
        hint="Without a compaction there is no summary to place: summary_at changes nothing.",
    ),
    Case(
        "summary_at_end_of_system_prompt",
        "lab3_extra_summary_in_system_prompt",
        "build_context(compacted_path(), example_options(max_tokens=43), summary_at='system_prompt')",
        BUILD,
        (compacted_path(), options(43)),
        {"summary_at": "system_prompt"},
        copies=True,
        hint="The summary ends the system prompt after a blank line and is paid as system, not as a message.",
    ),
    Case(
        "trim_every_build",
        "lab3_extra_cache_replay",
        "replay(chat_path(10), example_options(max_tokens=20), CachePolicy())",
        REPLAY,
        (chat_path(10), options(20), policy()),
        hint="With headroom 0, each request is build_context of the path so far; a hit has the last request as prefix.",
    ),
    Case(
        "headroom_half",
        "lab3_extra_cache_replay",
        "replay(chat_path(10), example_options(max_tokens=20), CachePolicy(headroom=0.5))",
        REPLAY,
        (chat_path(10), options(20), policy(0.5)),
        hint="When a rebuild leaves an interaction out, rebuild again with half the message budget left free.",
    ),
    Case(
        "everything_fits",
        "lab3_extra_cache_replay",
        "replay(example_entries(), example_options(max_tokens=40), CachePolicy())",
        REPLAY,
        (example_entries(), options(40), policy()),
        hint="When every turn fits, each request appends to the previous one: every request after the first is a hit.",
    ),
    Case(
        "two_compactions_window_40",
        "lab3_extra_cache_replay",
        "replay(twice_compacted_path(), example_options(max_tokens=40), CachePolicy())",
        REPLAY,
        (twice_compacted_path(), options(40), policy()),
        hint="A new compaction on the path forces a rebuild, a miss that re-processes system and message tokens.",
    ),
)
