"""Lab 1's visible cases: ``parse_session_entry`` on compact-1, and the two stores that parse through it
(``01_record_parsing.ipynb``). The store cases call the drivers of ``provided/checking/drivers.py``. Going further
(extra credit): ``parse_session_entry(..., guarded=True)``, which runs ``guard_entry`` first."""

from __future__ import annotations

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.scenarios import compacted_path, compaction_object, custom_entry, nested_lists

CASES: tuple[Case, ...] = (
    Case(
        "compact_1_parsed_into_a_copy",
        "lab1_compaction_record",
        "parse_session_entry(compaction_object('compact-1', 'a3', 'u2'))",
        "records.parse_session_entry",
        (compaction_object("compact-1", "a3", "u2"),),
        copies=True,
        hint="Return an equal entry built anew: every list and dict a copy, none of them the input's.",
    ),
    Case(
        "store_hands_out_copies",
        "lab1_in_memory_store",
        "in_memory_store(compacted_path())",
        "provided.checking.drivers.in_memory_store",
        (compacted_path(),),
        hint="The store keeps copies and hands out copies: changing what a caller got changes nothing stored.",
    ),
    Case(
        "store_refuses_an_id_twice",
        "lab1_in_memory_store",
        "in_memory_store(compacted_path() + [compaction_object('compact-1', 'a3', 'u2')])",
        "provided.checking.drivers.in_memory_store",
        (compacted_path() + [compaction_object("compact-1", "a3", "u2")],),
        raises="SessionStoreError",
        naming=("compact-1",),
        hint="An id already in the store is refused with SessionStoreError naming that id.",
    ),
    Case(
        "reopened_file_keeps_compact_1",
        "lab1_jsonl_reopen",
        "jsonl_reopen(compacted_path())",
        "provided.checking.drivers.jsonl_reopen",
        (compacted_path(),),
        hint="One JSON line per entry, written and flushed: a store reopened on the file reads back every entry.",
    ),
    # Going further (extra credit)
    Case(
        "nested_32_levels_accepted",
        "lab1_extra_guarded_input",
        "parse_session_entry(custom_entry('deep-1', nested_lists(31)), guarded=True)",
        "records.parse_session_entry",
        (custom_entry("deep-1", nested_lists(31)),),
        {"guarded": True},
        copies=True,
        hint="With guarded=True, 32 levels are accepted: the entry itself is level 1.",
    ),
    Case(
        "nested_33_levels_refused",
        "lab1_extra_guarded_input",
        "parse_session_entry(custom_entry('deep-1', nested_lists(32)), guarded=True)",
        "records.parse_session_entry",
        (custom_entry("deep-1", nested_lists(32)),),
        {"guarded": True},
        raises="SessionEntryError",
        naming=("deep-1", "data[0]"),
        hint="Level 33 is refused with SessionEntryError naming the entry and the path of the value (data[0]...).",
    ),
    Case(
        "compact_1_guarded",
        "lab1_extra_guarded_input",
        "parse_session_entry(compaction_object('compact-1', 'a3', 'u2'), guarded=True)",
        "records.parse_session_entry",
        (compaction_object("compact-1", "a3", "u2"),),
        {"guarded": True},
        copies=True,
        hint="guarded=True changes nothing for an entry within the limits: compact-1 parses as without it.",
    ),
)
