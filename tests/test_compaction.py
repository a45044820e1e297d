"""Lab 4, compaction creation: parent from the active path, keep only from an interaction's start, and
compact something."""

from __future__ import annotations

import copy

import pytest

from compaction_lab.compaction import create_compaction_entry
from compaction_lab.provided.errors import CompactionError, SessionEntryError
from compaction_lab.provided.example import example_entries, example_summary
from compaction_lab.provided.stores import InMemorySessionStore, path_to
from compaction_lab.records import parse_session_entry
from factories import naming

pytestmark = pytest.mark.lab4


def compact(path, entry_id="compact-1", first_kept="u2", **overrides):
    fields = {"id": entry_id, "timestamp": 100, "summary": example_summary(),
              "first_kept_entry_id": first_kept, "tokens_before": 29}
    return create_compaction_entry(path, **(fields | overrides))


@pytest.mark.focused
def test_lab4_parent_comes_from_the_path_and_nothing_is_shared():
    store = InMemorySessionStore()
    for entry in example_entries():
        store.append(entry)
    path = path_to(store.entries(), "a3")
    snapshot = copy.deepcopy(path)
    summary = example_summary()
    entry = compact(path, summary=summary)
    assert entry == {"type": "compaction", "id": "compact-1", "parentId": "a3", "timestamp": 100,
                     "summary": example_summary(), "firstKeptEntryId": "u2", "tokensBefore": 29}
    assert parse_session_entry(entry) == entry
    summary["completed"].append("mutated after creation")
    summary["goal"] = "changed"
    assert entry["summary"] == example_summary()
    assert path == snapshot and len(store) == 9


@pytest.mark.focused
def test_lab4_invalid_inputs_are_rejected_naming_the_id():
    path = example_entries()
    for inside in ("u1", "a2", "calls", "r-test", "r-read", "a3", "missing"):
        with pytest.raises(CompactionError, match=naming(inside)):
            compact(path, first_kept=inside)
    with pytest.raises(CompactionError, match=naming("compact-1")):
        compact([])
    with pytest.raises(CompactionError, match=naming("a3")):
        compact(path, entry_id="a3")
    with pytest.raises(SessionEntryError, match=naming("tokensBefore")):
        compact(path, tokens_before=True)
    assert path == example_entries()


def test_lab4_every_interaction_start_but_the_first_is_a_valid_first_kept_entry():
    for first in ("u2", "u3"):
        assert compact(example_entries(), first_kept=first)["firstKeptEntryId"] == first


def test_lab4_a_compaction_must_compact_something():
    path = example_entries()[:4]  # u1 a1 u2 a2, no compaction yet
    with pytest.raises(CompactionError, match=naming("u1")):
        compact(path, first_kept="u1")
    path.append(compact(path))  # keeps from u2
    snapshot = copy.deepcopy(path)
    with pytest.raises(CompactionError, match=naming("u2")):
        compact(path, entry_id="compact-2", first_kept="u2")
    assert path == snapshot


def test_lab4_after_a_compaction_only_its_kept_suffix_counts():
    path = example_entries()
    path.append(compact(path))
    for before in ("u1", "a1"):
        with pytest.raises(CompactionError, match=naming(before)):
            compact(path, entry_id="compact-2", first_kept=before)
    second = compact(path, entry_id="compact-2", first_kept="u3")
    assert (second["parentId"], second["firstKeptEntryId"]) == ("compact-1", "u3")


def test_lab4_legacy_summary_is_rejected():
    summary = example_summary()
    summary["files"] = summary.pop("changedFiles")
    with pytest.raises(SessionEntryError, match=naming(("summary.changedFiles", "summary.files"))):
        compact(example_entries(), summary=summary)
