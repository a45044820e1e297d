"""Lab 4's hidden cases: ``create_compaction_entry`` refusing bad inputs, after a compaction, and with a
compaction or a metadata entry last on the path."""

from __future__ import annotations

from compaction_lab.provided.cases import Case
from compaction_lab.provided.cases.compaction import CREATE, compact_1
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.provided.scenarios import compacted_path, resumed_path

MODEL_CHANGE = {"type": "model_change", "id": "m1", "parentId": "a3", "timestamp": 10,
                "provider": "anthropic", "modelId": "model-b"}


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

CASES: tuple[Case, ...] = (
    _case("empty_path", "lab4_invalid_inputs", "create_compaction_entry([], id='compact-1', ...)", ([],),
          compact_1(), "A path with no entries has nothing to compact: CompactionError.", raises="CompactionError"),
    *(_case(f"id_{taken}_taken", "lab4_invalid_inputs", f"create_compaction_entry(example, id={taken!r}, ...)",
            (example_entries(),), compact_1(id=taken), "An id that any entry of the path already has is refused, "
            "naming it.", raises="CompactionError", naming=(taken,)) for taken in ("a3", "u1")),
    _case("unknown_first_kept", "lab4_invalid_inputs", "create_compaction_entry(example, first_kept_entry_id='u9')",
          (example_entries(),), compact_1("u9"), "A first kept entry that is not on the path is refused, naming it.",
          raises="CompactionError", naming=("u9",)),
    _case("tokens_before_bool", "lab4_invalid_inputs", "create_compaction_entry(example, tokens_before=True)",
          (example_entries(),), compact_1(tokens_before=True), "tokens_before is checked as lab 1's parser checks "
          "tokensBefore, and the error names that field.", raises="SessionEntryError", naming=("tokensBefore",)),
    _case("legacy_summary", "lab4_invalid_inputs", "create_compaction_entry(example, a summary with 'files')",
          (example_entries(),), compact_1(summary=legacy_summary()), "The summary is checked as lab 1's parser "
          "checks it, and the error names the summary field.", raises="SessionEntryError", naming=("summary.",)),
    _case("tokens_before_as_given", "lab4_invalid_inputs", "create_compaction_entry(example, tokens_before=1234)",
          (example_entries(),), compact_1(tokens_before=1234), "tokensBefore is recorded as given, never recomputed.",
          parts=("tokensBefore",)),
    *(_case(f"after_compact_1_keeps_from_{first_kept}", "lab4_after_a_compaction",
            f"{AFTER_COMPACT_1}first_kept_entry_id={first_kept!r})", (resumed_path(),),
            compact_1(first_kept, id="compact-2"), "After a compaction, a later interaction of its kept messages "
            "(or one after it) may be kept from.", parts=("parentId", "firstKeptEntryId"))
      for first_kept in ("u3", "u4")),
    *(_case(f"after_compact_1_refuses_{first_kept}", "lab4_after_a_compaction",
            f"{AFTER_COMPACT_1}first_kept_entry_id={first_kept!r})", (resumed_path(),),
            compact_1(first_kept, id="compact-2"), hint, raises="CompactionError", naming=(first_kept,))
      for first_kept, hint in REFUSED_AFTER_COMPACT_1.items()),
    _case("after_a_compaction", "lab4_parent_is_last_entry",
          "create_compaction_entry(example + compact-1, id='compact-2', first_kept_entry_id='u3', timestamp=100.5)",
          (compacted_path(),), compact_1("u3", id="compact-2", timestamp=100.5),
          "When a compaction is last on the path, it is the new entry's parent.", parts=("parentId", "timestamp")),
    _case("after_a_metadata_entry", "lab4_parent_is_last_entry",
          "create_compaction_entry(example + a model_change entry, ...)", (example_entries() + [MODEL_CHANGE],),
          compact_1(), "When a metadata entry is last on the path, it is the new entry's parent.",
          parts=("parentId",)),
)
