"""Lab 5's hidden cases: the summary paid before any interaction, three compactions with metadata between
them, and first kept entries that cannot be resumed from. Cases that build a context run the reference
``build_context`` (lab 3)."""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options
from compaction_lab.provided.scenarios import (
    compacted_path,
    compaction_object,
    later_summary,
    resumed_path,
    twice_compacted_path,
)

from .visible import BUILD, RESUME

MODEL_CHANGE = {
    "type": "model_change",
    "id": "m1",
    "parentId": "a5",
    "timestamp": 106,
    "provider": "anthropic",
    "modelId": "model-b",
}


def thrice_compacted_path() -> list:
    """``twice_compacted_path()``, a model_change m1, then compact-3 (first kept u5)."""
    third = compaction_object(
        "compact-3", "m1", "u5", summary=later_summary("Third summary."), timestamp=107, tokens_before=17
    )
    return twice_compacted_path() + [dict(MODEL_CHANGE), third]


def with_first_kept(path: list, first_kept: str) -> list:
    """``path`` with compact-1 (its 10th entry) keeping from ``first_kept``."""
    path[9]["firstKeptEntryId"] = first_kept
    return path


def _case(name: str, grade_id: str, call: str, function: str, args: tuple, hint: str, **extra) -> Case:
    return Case(name, grade_id, call, function, args, hint=hint, hidden=True, **extra)


CASES: tuple[Case, ...] = (
    *(
        _case(
            f"window_{window}_after_compact_1",
            "lab5_summary_paid_first",
            f"build_context(compacted_path(), example_options(max_tokens={window}))",
            BUILD,
            (compacted_path(), options(window)),
            "The summary message comes first and is paid from the message budget before any interaction.",
            parts=("reason", "tokens.messages", "messages.0"),
        )
        for window in (31, 36, 43)
    ),
    _case(
        "window_0_after_compact_1",
        "lab5_summary_paid_first",
        "build_context(compacted_path(), example_options(max_tokens=0))",
        BUILD,
        (compacted_path(), options(0)),
        "With nothing left for messages, the newest interaction is still kept whole after the summary.",
        parts=("kept_entry_ids", "tokens.available_for_messages", "tokens.total"),
    ),
    _case(
        "resume_after_compact_3",
        "lab5_three_compactions",
        "resume_point(three compactions, metadata between)",
        RESUME,
        (thrice_compacted_path(),),
        "Only the latest compaction counts, wherever metadata sits.",
        parts=("compaction_id", "entries"),
    ),
    _case(
        "window_60_after_compact_3",
        "lab5_three_compactions",
        "build_context(three compactions, metadata between, max_tokens=60)",
        BUILD,
        (thrice_compacted_path(), options(60)),
        "Only the latest summary is shown, exactly once.",
        parts=("messages", "kept_entry_ids"),
    ),
    _case(
        "resume_again_after_compact_3",
        "lab5_repeat_and_isolation",
        "resume_again_after_changes(three compactions, metadata between)",
        "provided.checking.drivers.resume_again_after_changes",
        (thrice_compacted_path(),),
        "A resume point shares nothing with the next one: what a caller changes in it never comes back.",
    ),
    *(
        _case(
            f"compact_1_keeps_{first_kept}",
            "lab5_bad_first_kept",
            f"resume_point(resumed_path() with compact-1 keeping {first_kept!r})",
            RESUME,
            (with_first_kept(resumed_path(), first_kept),),
            hint,
            raises="CompactionError",
            naming=("compact-1", first_kept),
        )
        for first_kept, hint in (
            ("u4", "A first kept entry after its compaction is refused, naming both ids."),
            ("zz", "A first kept entry that is not on the path is refused, naming both ids."),
            ("a2", "A first kept entry that is not a user message is refused, naming both ids."),
            ("calls", "A first kept entry inside an interaction is refused, naming both ids."),
            ("m1", "A first kept entry that is not on the path is refused, naming both ids."),
        )
    ),
    _case(
        "earlier_compaction_broken",
        "lab5_bad_first_kept",
        "resume_point(twice_compacted_path() with compact-1 keeping 'zz').compaction_id",
        RESUME,
        (with_first_kept(twice_compacted_path(), "zz"),),
        "An earlier compaction is history: only the latest one is checked and used.",
        parts=("compaction_id",),
    ),
)
