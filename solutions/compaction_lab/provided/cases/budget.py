"""Lab 3's visible cases: ``build_context`` on the running example (``03_budget_projection.ipynb``)."""

from __future__ import annotations

from ..example import example_entries
from ..wire import options
from . import Case

TEN_WORD_PROMPT = "You are a careful coding agent; answer briefly and exactly."

CASES: tuple[Case, ...] = (
    Case("window_31_fixed_costs", "lab3_fixed_costs",
         "build_context(example_entries(), example_options(max_tokens=31))", "budget.build_context",
         (example_entries(), options(31)),
         parts=("tokens.max_tokens", "tokens.system", "tokens.reserved_output", "tokens.safety_margin",
                "tokens.available_for_messages")),
    Case("ten_word_prompt", "lab3_fixed_costs",
         "build_context(example_entries(), max_tokens=40, a 10-word system prompt, reserved 10, margin 5)",
         "budget.build_context", (example_entries(), options(40, TEN_WORD_PROMPT, 10, 5)),
         parts=("tokens.system", "tokens.available_for_messages")),
    Case("window_31_keeps_two", "lab3_trim_boundary",
         "build_context(example_entries(), example_options(max_tokens=31))", "budget.build_context",
         (example_entries(), options(31))),
    Case("window_30_keeps_one", "lab3_trim_boundary",
         "build_context(example_entries(), example_options(max_tokens=30))", "budget.build_context",
         (example_entries(), options(30)), parts=("kept_entry_ids", "reason", "tokens.messages")),
    Case("window_19_overflows", "lab3_newest_group_overflow",
         "build_context(example_entries(), example_options(max_tokens=19))", "budget.build_context",
         (example_entries(), options(19)), parts=("kept_entry_ids", "reason", "tokens")),
)
