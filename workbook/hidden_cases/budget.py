"""Lab 3's hidden cases: ``build_context`` at the edges of the budget, with misbehaving estimators, copies
and metadata, and the greedy mistake of skipping an interaction that does not fit."""

from __future__ import annotations

from compaction_lab.provided.cases import Case
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.scenarios import compacted_path, message_entry
from compaction_lab.provided.wire import options

BUILD = "budget.build_context"
MODEL_CHANGE = {"type": "model_change", "id": "m1", "parentId": "a2", "timestamp": 4,
                "provider": "anthropic", "modelId": "model-b"}
LONG_ANSWER = " ".join(["An entry is committed once its newline is written and flushed to disk."] * 7)


def with_long_a2() -> list:
    """The example with a2 answering in 84 words (12 tokens): [u2, a2] costs 15, as much as the newest."""
    entries = example_entries()
    entries[3] = message_entry("a2", "u2", 4, "assistant", LONG_ANSWER)
    return entries


def _case(name: str, grade_id: str, call: str, args: tuple, hint: str, **extra) -> Case:
    return Case(name, grade_id, call, BUILD, args, hint=hint, hidden=True, **extra)


CASES: tuple[Case, ...] = (
    _case("window_38_complete", "lab3_complete_and_zero_budget", "build_context(example, max_tokens=38)",
          (example_entries(), options(38)), "When everything fits, every interaction is kept and the reason is "
          "complete.", parts=("kept_entry_ids", "reason", "tokens.total")),
    *(_case(f"window_{window}_overflows", "lab3_complete_and_zero_budget",
            f"build_context(example, max_tokens={window})", (example_entries(), options(window)),
            "With nothing left for messages, the newest interaction is still kept whole.",
            parts=("kept_entry_ids", "reason", "tokens")) for window in (9, 0)),
    _case("first_interaction_only", "lab3_complete_and_zero_budget", "build_context([u1, a1], max_tokens=16)",
          (example_entries()[:2], options(16)), "A path of one interaction that fits is complete.",
          parts=("kept_entry_ids", "reason")),
    _case("estimator_changes_its_argument", "lab3_estimator_misbehaves",
          "build_context(example, an estimator that writes into the message it prices)",
          (example_entries(), options(31, estimator={"name": "changes_its_argument"})),
          "The estimator must get copies: what it does to them never reaches the path or the context.",
          parts=("messages", "kept_entry_ids")),
    *(_case(f"estimate_{label}", "lab3_estimator_misbehaves", f"build_context(example, an estimator returning {label})",
            (example_entries(), options(31, estimator={"name": "constant", "value": value})),
            "An estimate that is not a finite number >= 0 (or is a bool) is refused.", raises="BudgetError")
      for label, value in (("-1", -1), ("nan", {"$float": "nan"}), ("True", True))),
    *(_case(f"message_estimate_{label}", "lab3_estimator_misbehaves",
            f"build_context(example, messages estimated at {label})",
            (example_entries(), options(31, estimator={"name": "messages_at", "value": value})),
            "Every message's estimate is checked, not only the system prompt's.", raises="BudgetError")
      for label, value in (("-1", -1), ("inf", {"$float": "inf"}))),
    _case("messages_are_copies", "lab3_copies_and_metadata", "build_context(example, max_tokens=31)",
          (example_entries(), options(31)), "The context's messages are deep copies of the path's.", copies=True,
          parts=("messages",)),
    _case("model_change_skipped", "lab3_copies_and_metadata",
          "build_context(example with a model_change entry after a2, max_tokens=31)",
          (example_entries()[:4] + [MODEL_CHANGE] + example_entries()[4:], options(31)),
          "Metadata entries are skipped: they are neither messages nor priced.",
          parts=("kept_entry_ids", "tokens.messages")),
    *(_case(f"compacted_window_{window}", "lab3_complete_and_zero_budget",
            f"build_context(example + compact-1, max_tokens={window})", (compacted_path(), options(window)),
            "After a compaction, its summary message comes first and is paid before any interaction.",
            parts=("messages", "kept_entry_ids", "reason", "tokens", "compaction_id")) for window in (36, 43)),
    _case("no_skipping_ahead", "lab3_complete_and_zero_budget",
          "build_context(example with a 15-token [u2, a2], max_tokens=31)", (with_long_a2(), options(31)),
          "The walk stops at the first interaction that does not fit: an older one is never kept past it.",
          parts=("kept_entry_ids", "reason", "tokens.messages")),
)
