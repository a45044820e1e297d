"""Lab 1, record parsing: the strict, copying parser and the two stores that use it; Going further: the guard."""

from __future__ import annotations

import copy
import json
import math
import tracemalloc

import pytest

from compaction_lab.provided.errors import SessionEntryError, SessionStoreError
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.pi_import import load_pi_session
from compaction_lab.provided.scenarios import custom_entry, nested_lists
from compaction_lab.provided.stores import InMemorySessionStore, JsonlSessionStore, path_to
from compaction_lab.records import MAX_STRING, MAX_UNITS, guard_entry, parse_session_entry
from factories import compaction, ids, naming

pytestmark = pytest.mark.lab1


def compact_1() -> dict:
    entry = compaction("compact-1", "a3", "u2", goal="Check that session recovery works.")
    entry["summary"]["changedFiles"] = ["stores.py"]
    return entry


@pytest.mark.focused
def test_lab1_normal_record_is_parsed_into_an_isolated_copy():
    raw = compact_1()
    parsed = parse_session_entry(raw)
    assert parsed == raw
    raw["summary"]["changedFiles"].append("later.py")
    raw["summary"]["goal"] = "changed"
    assert parsed["summary"]["changedFiles"] == ["stores.py"]
    assert parsed["summary"]["goal"] == "Check that session recovery works."
    assert parsed["summary"] is not raw["summary"]


@pytest.mark.focused
def test_lab1_in_memory_store_keeps_its_own_copy():
    store = InMemorySessionStore()
    for entry in example_entries():
        store.append(entry)
    raw = compact_1()
    store.append(raw)
    raw["summary"]["next"].append("mutated by the caller")
    stored = store.get("compact-1")
    assert stored["summary"]["next"] == []
    stored["tokensBefore"] = 0
    assert store.get("compact-1")["tokensBefore"] == 29
    assert ids(store.entries()) == ["u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "compact-1"]


@pytest.mark.focused
def test_lab1_jsonl_store_closes_and_reopens(tmp_path):
    path = tmp_path / "session.jsonl"
    store = JsonlSessionStore(path)
    for entry in example_entries() + [compact_1()]:
        store.append(entry)
    reopened = JsonlSessionStore(path)
    assert reopened.entries() == store.entries()
    assert reopened.get("compact-1") == compact_1()
    assert not reopened.read_only
    assert path.read_bytes().count(b"\n") == 10


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda e: e.update(tokensBefore=True), "tokensBefore"),
        (lambda e: e.update(tokensBefore=math.nan), "tokensBefore"),
        (lambda e: e.update(tokensBefore=math.inf), "tokensBefore"),
        (lambda e: e.update(tokensBefore=-1), "tokensBefore"),
        (lambda e: e.update(tokensBefore="29"), "tokensBefore"),
        (lambda e: e.pop("firstKeptEntryId"), "firstKeptEntryId"),
        (lambda e: e.update(firstKeptEntryId=""), "firstKeptEntryId"),
        (lambda e: e.update(firstKeptEntryIndex=2), "firstKeptEntryIndex"),
        (lambda e: e.update(parentId=None), "parentId"),
        (lambda e: e.update(timestamp=-5), "timestamp"),
        (lambda e: e["summary"].update(files=e["summary"].pop("changedFiles")),
         ("summary.changedFiles", "summary.files")),
        (lambda e: e["summary"].update(files=[]), "summary.files"),
        (lambda e: e["summary"].update(goal=""), "summary.goal"),
        (lambda e: e["summary"].update(next="run tests"), "summary.next"),
        (lambda e: e["summary"].update(completed=["ok", 3]), "summary.completed[1]"),
        (lambda e: e.update(summary="## Goal\nmarkdown"), "summary"),
    ],
)
def test_lab1_bad_compaction_field_is_named(change, field):
    raw = compact_1()
    change(raw)
    before = copy.deepcopy(raw)
    with pytest.raises(SessionEntryError, match=naming("compact-1", field)):
        parse_session_entry(raw)
    assert raw == before


def test_lab1_tokens_before_is_checked_never_recomputed():
    raw = compact_1() | {"tokensBefore": 123456.5}
    assert parse_session_entry(raw)["tokensBefore"] == 123456.5


def test_lab1_message_entries_and_metadata_are_copied():
    raw = example_entries()[5]
    parsed = parse_session_entry(raw)
    raw["message"]["content"][1]["arguments"]["path"] = "other.py"
    assert parsed["message"]["content"][1]["arguments"] == {"path": "stores.py"}
    meta = {"type": "model_change", "id": "m1", "parentId": None, "timestamp": 0, "provider": "p", "modelId": "m"}
    assert parse_session_entry(meta) == meta


def test_lab1_store_rejects_duplicates_and_unknown_parents_without_storing():
    store = InMemorySessionStore()
    store.append(example_entries()[0])
    with pytest.raises(SessionStoreError, match="'u1': id already"):
        store.append(example_entries()[0])
    with pytest.raises(SessionStoreError, match="'compact-1': unknown parentId 'a3'"):
        store.append(compact_1())
    assert ids(store.entries()) == ["u1"]


def test_lab1_jsonl_bad_committed_line_names_its_number(tmp_path):
    path = tmp_path / "session.jsonl"
    lines = [json.dumps(entry) for entry in example_entries()[:3]]
    lines[2] = json.dumps(compact_1() | {"parentId": "a1", "tokensBefore": -3})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(SessionStoreError, match=naming("line 3", "compact-1", "tokensBefore")):
        JsonlSessionStore(path)


def test_lab1_jsonl_torn_tail_is_left_untouched_and_read_only(tmp_path):
    path = tmp_path / "session.jsonl"
    committed = "".join(json.dumps(entry) + "\n" for entry in example_entries()[:2])
    tail = json.dumps(example_entries()[2])[:25]
    path.write_text(committed + tail)
    store = JsonlSessionStore(path)
    assert ids(store.entries()) == ["u1", "a1"]
    assert store.read_only and store.torn_tail_offset == len(committed.encode())
    with pytest.raises(SessionStoreError, match=f"byte offset {len(committed.encode())}"):
        store.append(example_entries()[2])
    assert path.read_text() == committed + tail
    assert store.discard_torn_tail() == tail.encode()
    store.append(example_entries()[2])
    assert ids(JsonlSessionStore(path).entries()) == ["u1", "a1", "u2"]


def test_lab1_path_to_follows_parents_and_rejects_cycles():
    entries = example_entries()
    assert ids(path_to(entries, "a2")) == ["u1", "a1", "u2", "a2"]
    with pytest.raises(SessionStoreError, match="'nowhere': not in the session"):
        path_to(entries, "nowhere")
    entries[0]["parentId"] = "a1"
    with pytest.raises(SessionStoreError, match="cycle"):
        path_to(entries, "a2")


# Going further (extra credit): the guarded parser.


def test_lab1_guard_refuses_a_list_nested_a_million_deep_and_a_hundred_million_characters():
    deep = custom_entry("deep-1", nested_lists(10**6))
    huge = custom_entry("huge-1", "x" * 10**8)
    with pytest.raises(RecursionError):
        parse_session_entry(deep)  # what the guard is for
    for entry, field in ((deep, "data[0][0]"), (huge, "data")):
        tracemalloc.start()
        with pytest.raises(SessionEntryError, match=naming(entry["id"], field)):
            parse_session_entry(entry, guarded=True)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 1_000_000, f"refusing {entry['id']} allocated {peak:,} bytes"


@pytest.mark.parametrize(("data", "refused"), [
    (nested_lists(31), None), (nested_lists(32), "data" + "[0]" * 31),
    ([0] * 16_384, None), ([0] * 16_385, "data"), ({f"k{n}": n for n in range(16_385)}, "data"),
    ("😀" * 65_536, None), ("a" * 65_537, "data"), ({"k" * 65_537: 1}, "data.kkk"),
    (["x" * 65_000] * 15, None), (["x" * 65_000] * 16, "data[15]"),
    ((1, 2), "data"), ({1: "a"}, "data"), ({"a": {1, 2}}, "data.a"), ({"a": b"bytes"}, "data.a"),
])
def test_lab1_guard_limits_on_both_sides(data, refused):
    entry = custom_entry("probe-1", data)
    before = copy.deepcopy(entry)
    if refused is None:
        assert guard_entry(entry) is None
    else:
        with pytest.raises(SessionEntryError, match=naming("probe-1", refused)):
            guard_entry(entry)
    assert entry == before


def test_lab1_guard_counts_units_over_the_whole_entry():
    # custom_entry("u-1", []) is 60 units: the entry 1; type 1+4+6, id 1+2+3, parentId 1+8+2, timestamp 1+9,
    # customType 1+10+5, data 1+4. Each string in data adds 1 + its code points.
    full = ["x" * MAX_STRING] * 15
    entry = custom_entry("u-1", [*full, "x" * (MAX_UNITS - 60 - 15 * (MAX_STRING + 1) - 1)])
    guard_entry(entry)  # exactly MAX_UNITS
    entry["data"][-1] += "x"
    with pytest.raises(SessionEntryError, match=naming("u-1", "data[15]")):
        guard_entry(entry)


def test_lab1_guard_refuses_a_dict_subclass_the_plain_parser_would_accept():
    class Mapping(dict):
        pass

    entry = custom_entry("odd-1", Mapping(a=1))
    assert parse_session_entry(entry)["data"] == {"a": 1}
    with pytest.raises(SessionEntryError, match=naming("odd-1", "data")):
        parse_session_entry(entry, guarded=True)
    with pytest.raises(SessionEntryError, match=naming("entry", "(the entry)")):
        guard_entry(Mapping(custom_entry("odd-2", 1)))


def test_lab1_guarded_parse_keeps_every_result_of_the_plain_parse():
    for entry in [*example_entries(), compact_1()]:
        assert parse_session_entry(entry, guarded=True) == parse_session_entry(entry)


def test_lab1_guard_accepts_every_entry_of_the_real_sessions(shared_dir):
    for name in ("large-session.jsonl", "before-compaction.jsonl"):
        entries = load_pi_session(shared_dir / "fixtures" / "pi-sessions" / name).entries
        assert [guard_entry(entry) for entry in entries] == [None] * len(entries)
