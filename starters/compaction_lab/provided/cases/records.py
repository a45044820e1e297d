"""Lab 1's visible cases: ``parse_session_entry`` on compact-1, and the two stores that parse through it
(``01_record_parsing.ipynb``). The store cases call the drivers of ``provided/drivers.py``."""

from __future__ import annotations

from ..scenarios import compacted_path, compaction_object
from . import Case

CASES: tuple[Case, ...] = (
    Case("compact_1_parsed_into_a_copy", "lab1_compaction_record",
         "parse_session_entry(compaction_object('compact-1', 'a3', 'u2'))", "records.parse_session_entry",
         (compaction_object("compact-1", "a3", "u2"),), copies=True),
    Case("store_hands_out_copies", "lab1_in_memory_store", "in_memory_store(compacted_path())",
         "provided.drivers.in_memory_store", (compacted_path(),)),
    Case("store_refuses_an_id_twice", "lab1_in_memory_store",
         "in_memory_store(compacted_path() + [compaction_object('compact-1', 'a3', 'u2')])",
         "provided.drivers.in_memory_store", (compacted_path() + [compaction_object("compact-1", "a3", "u2")],),
         raises="SessionStoreError", naming=("compact-1",)),
    Case("reopened_file_keeps_compact_1", "lab1_jsonl_reopen", "jsonl_reopen(compacted_path())",
         "provided.drivers.jsonl_reopen", (compacted_path(),)),
)
