"""Lab 5's visible cases: ``resume_point`` and the resumed ``build_context`` (``05_repeated_resumption.ipynb``).

The cases that build a context run the reference ``build_context`` (lab 3) on your ``resume_point``.
"""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options
from compaction_lab.provided.scenarios import compacted_path, resumed_path, twice_compacted_path

RESUME = "resumption.resume_point"
BUILD = "budget.build_context"

CASES: tuple[Case, ...] = (
    Case(
        "resume_after_compact_1",
        "lab5_resume_from_compaction",
        "resume_point(compacted_path())",
        RESUME,
        (compacted_path(),),
        parts=("compaction_id", "summary_message", "entries"),
        hint="After a compaction: its summary message, then the entries from its firstKeptEntryId up to it.",
    ),
    Case(
        "window_43_after_compact_1",
        "lab5_resume_from_compaction",
        "build_context(compacted_path(), example_options(max_tokens=43))",
        BUILD,
        (compacted_path(), options(43)),
        parts=("messages", "kept_entry_ids", "compaction_id", "reason", "tokens.messages"),
        hint="The summary message opens the context, and its cost comes off the message budget first.",
    ),
    Case(
        "messages_are_copies",
        "lab5_repeat_and_isolation",
        "build_context(resumed_path(), example_options(max_tokens=60))",
        BUILD,
        (resumed_path(), options(60)),
        parts=("messages",),
        copies=True,
        hint="The context's messages are deep copies: changing one never reaches the path.",
    ),
    Case(
        "entries_are_copies",
        "lab5_repeat_and_isolation",
        "resume_point(resumed_path())",
        RESUME,
        (resumed_path(),),
        parts=("entries",),
        copies=True,
        hint="resume_point's entries are deep copies of the path's.",
    ),
    Case(
        "rebuild_after_changes",
        "lab5_repeat_and_isolation",
        "rebuild_context_after_changes(resumed_path(), example_options(max_tokens=60)): build, change every "
        "returned message, build again",
        "provided.checking.drivers.rebuild_context_after_changes",
        (resumed_path(), options(60)),
        hint="Changing a context you returned must not change the next build: copy, never share.",
    ),
    Case(
        "resume_again_after_changes",
        "lab5_repeat_and_isolation",
        "resume_again_after_changes(resumed_path()): resume, change the returned summary message and entries, "
        "resume again",
        "provided.checking.drivers.resume_again_after_changes",
        (resumed_path(),),
        hint="Changing a resume point you returned must not change the next one: copy the summary too.",
    ),
    Case(
        "window_60_after_compact_2",
        "lab5_second_compaction",
        "build_context(twice_compacted_path(), example_options(max_tokens=60))",
        BUILD,
        (twice_compacted_path(), options(60)),
        parts=("messages", "kept_entry_ids", "compaction_id", "reason"),
        hint="Only the latest compaction counts: one summary, the entries from its first kept entry on.",
    ),
)
