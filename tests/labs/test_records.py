"""Lab 1, record parsing: the strict, copying parser and the two stores that use it; Going further: the guard."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
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
        (
            lambda e: e["summary"].update(files=e["summary"].pop("changedFiles")),
            ("summary.changedFiles", "summary.files"),
        ),
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


# --- one writer per session file ---------------------------------------------------------------------

HOLD_THE_FILE = """
import sys
sys.path.insert(0, sys.argv[1])
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.stores import JsonlSessionStore
store = JsonlSessionStore(sys.argv[2])
store.append(example_entries()[0])
print("holding", flush=True)
sys.stdin.readline()
store.append(example_entries()[1])
"""


def test_lab1_two_stores_on_one_file_never_both_write(tmp_path):
    path = tmp_path / "session.jsonl"
    first, second = JsonlSessionStore(path), JsonlSessionStore(path)
    first.append(example_entries()[0])
    with pytest.raises(SessionStoreError, match=naming(str(path), "another open store")):
        second.append(example_entries()[0])
    assert ids(JsonlSessionStore(path).entries()) == ["u1"]
    first.close()
    second.append(example_entries()[1])  # the lock is free: second reads the file again, then appends
    assert ids(second.entries()) == ["u1", "a1"]
    assert ids(JsonlSessionStore(path).entries()) == ["u1", "a1"]


def test_lab1_a_store_in_another_process_holds_the_file_until_it_is_done(tmp_path, lab_package):
    path = tmp_path / "session.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_FILE, str(lab_package.parent), str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "holding\n"
        mine = JsonlSessionStore(path)
        assert ids(mine.entries()) == ["u1"]
        with pytest.raises(SessionStoreError, match=naming(str(path), "another open store")):
            mine.append(example_entries()[1])
        holder.stdin.write("done\n")
        holder.stdin.flush()
        assert holder.wait(timeout=60) == 0
    finally:
        holder.kill()
    mine.append(example_entries()[2])  # the holder exited: its a1 is read before u2 goes after it
    assert ids(JsonlSessionStore(path).entries()) == ["u1", "a1", "u2"]


# --- text that can never be sent ---------------------------------------------------------------------

CUT_EMOJI = "cut emoji \ud83d"
"""Half of a surrogate pair: a Python string or a JSON escape can hold it; UTF-8 cannot."""


def tool_result_with(text: str) -> dict:
    entry = copy.deepcopy(example_entries()[6])
    entry["message"]["content"][0]["text"] = text
    return entry


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        (example_entries()[0] | {"message": {"role": "user", "content": CUT_EMOJI}}, ("u1", "message.content")),
        (
            example_entries()[0] | {"message": {"role": "user", "content": [{"type": "text", "text": CUT_EMOJI}]}},
            ("u1", "message.content[0].text"),
        ),
        (tool_result_with(CUT_EMOJI), ("r-test", "message.content[0].text")),
        (example_entries()[0] | {"id": CUT_EMOJI}, "id"),
        (
            {
                "type": "custom",
                "id": "m1",
                "parentId": None,
                "timestamp": 0,
                "customType": "note",
                "data": {"lines": ["ok", CUT_EMOJI]},
            },
            ("m1", "data.lines[1]"),
        ),
        (
            {
                "type": "custom",
                "id": "m1",
                "parentId": None,
                "timestamp": 0,
                "customType": "note",
                "data": {CUT_EMOJI: 1},
            },
            ("m1", "data."),
        ),
        (compaction("compact-1", "a3", "u2", goal=CUT_EMOJI), ("compact-1", "summary.goal")),
    ],
    ids=[
        "user string",
        "user text block",
        "tool result text",
        "entry id",
        "metadata list item",
        "metadata key",
        "compaction goal",
    ],
)
def test_lab1_a_lone_surrogate_is_refused_naming_the_entry_and_field(entry, named):
    before = copy.deepcopy(entry)
    with pytest.raises(SessionEntryError, match=naming(*((named,) if isinstance(named, str) else named))):
        parse_session_entry(entry)
    assert entry == before


def test_lab1_a_lone_surrogate_in_a_json_line_is_refused_and_never_written(tmp_path):
    line = (
        '{"type":"message","id":"u9","parentId":null,"timestamp":1,"message":{"role":"user","content":"cut \\ud83d"}}'
    )
    assert "\\ud83d" in line and json.loads(line)["message"]["content"] == "cut \ud83d"
    with pytest.raises(SessionEntryError, match=naming("u9", "message.content")):
        parse_session_entry(json.loads(line))
    path = tmp_path / "session.jsonl"
    store = JsonlSessionStore(path)
    store.append(example_entries()[0])
    committed = path.read_bytes()
    with pytest.raises(SessionEntryError, match=naming("r-test", "message.content[0].text")):
        store.append(tool_result_with(CUT_EMOJI) | {"parentId": "u1"})
    assert path.read_bytes() == committed and ids(store.entries()) == ["u1"]
    path.write_bytes(committed + line.encode() + b"\n")
    with pytest.raises(SessionStoreError, match=naming("line 2", "u9", "message.content")):
        JsonlSessionStore(path)


def test_lab1_a_whole_emoji_and_other_scripts_are_kept():
    entry = example_entries()[0] | {"message": {"role": "user", "content": "emoji 😀 中文 \u0301"}}
    assert parse_session_entry(entry)["message"]["content"] == "emoji 😀 中文 \u0301"


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


@pytest.mark.parametrize(
    ("data", "refused"),
    [
        (nested_lists(31), None),
        (nested_lists(32), "data" + "[0]" * 31),
        ([0] * 16_384, None),
        ([0] * 16_385, "data"),
        ({f"k{n}": n for n in range(16_385)}, "data"),
        ("😀" * 65_536, None),
        ("a" * 65_537, "data"),
        ({"k" * 65_537: 1}, "data.kkk"),
        (["x" * 65_000] * 15, None),
        (["x" * 65_000] * 16, "data[15]"),
        ((1, 2), "data"),
        ({1: "a"}, "data"),
        ({"a": {1, 2}}, "data.a"),
        ({"a": b"bytes"}, "data.a"),
    ],
)
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
