"""Lab 4's visible cases: ``create_compaction_entry`` on the running example (``04_compaction_creation.ipynb``)."""

from __future__ import annotations

from typing import Any

from ..example import example_entries, example_summary
from . import Case

CREATE = "compaction.create_compaction_entry"


def compact_1(first_kept_entry_id: str = "u2", **changes: Any) -> dict[str, Any]:
    """compact-1's keyword arguments (timestamp 100, the example summary, first kept u2, tokens before 29),
    some of them changed."""
    return {"id": "compact-1", "timestamp": 100, "summary": example_summary(),
            "first_kept_entry_id": first_kept_entry_id, "tokens_before": 29, **changes}


CASES: tuple[Case, ...] = (
    Case("compact_1_after_a3", "lab4_parent_and_fields",
         "create_compaction_entry(example_entries(), id='compact-1', timestamp=100, summary=example_summary(), "
         "first_kept_entry_id='u2', tokens_before=29)", CREATE, (example_entries(),), compact_1()),
    Case("a_store_accepts_it", "lab4_parent_and_fields",
         "append_compaction(example_entries(), <compact-1's arguments>): the ids of the store's path to compact-1",
         "provided.drivers.append_compaction", (example_entries(),), compact_1()),
    Case("shares_nothing", "lab4_copies_and_no_change",
         "create_compaction_entry(example_entries(), summary=example_summary(), <compact-1's other arguments>)",
         CREATE, (example_entries(),), compact_1(), copies=True),
    *(Case(f"keeps_from_{first_kept}", "lab4_first_kept_starts_interaction",
           f"create_compaction_entry(example_entries(), first_kept_entry_id={first_kept!r}, ...)", CREATE,
           (example_entries(),), compact_1(first_kept), parts=("firstKeptEntryId",)) for first_kept in ("u2", "u3")),
    *(Case(f"refuses_{first_kept}", "lab4_first_kept_starts_interaction",
           f"create_compaction_entry(example_entries(), first_kept_entry_id={first_kept!r}, ...)", CREATE,
           (example_entries(),), compact_1(first_kept), raises="CompactionError", naming=(first_kept,))
      for first_kept in ("u1", "a2", "calls", "r-test", "r-read", "a3")),
)
