"""Importing Pi coding-agent sessions: the two shared real logs and the project's small v1/v3 files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from compaction_lab.provided.pi_import import PiImportError, load_pi_session
from compaction_lab.records import parse_session_entry

FIXTURES = Path(__file__).resolve().parents[1] / "support" / "fixtures"
V1_SMALL = FIXTURES / "pi-v1-small.jsonl"
V3_SMALL = FIXTURES / "pi-v3-small.jsonl"


def pi_sessions(shared_dir: Path) -> Path:
    return shared_dir / "fixtures" / "pi-sessions"


def kinds(entries: list[dict]) -> Counter:
    """Count entries as ``message/<role>``, ``custom/<customType>`` or their type."""
    return Counter(
        f"message/{e['message']['role']}"
        if e["type"] == "message"
        else f"custom/{e['customType']}"
        if e["type"] == "custom"
        else e["type"]
        for e in entries
    )


def write_lines(path: Path, rows: list[object], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + tail, encoding="utf-8")
    return path


def assert_linear_chain(entries: list[dict]) -> None:
    assert entries[0]["parentId"] is None
    assert [e["parentId"] for e in entries[1:]] == [e["id"] for e in entries[:-1]]


# --- the shared real sessions (../shared/fixtures/pi-sessions, see its SOURCE.md) -------------------


def test_large_session_counts_match_source(shared_dir):
    session = load_pi_session(pi_sessions(shared_dir) / "large-session.jsonl")
    assert session.version == 1
    assert session.header["id"] == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    assert (session.report.lines, session.report.entries, session.report.torn_tail) == (1019, 1018, None)
    assert kinds(session.entries) == {
        "message/user": 88,
        "message/assistant": 453,
        "message/toolResult": 373,
        "thinking_level_change": 103,
        "model_change": 1,
    }
    assert session.report.count("message/toolResult") == 373
    assert session.compactions == []


def test_before_compaction_counts_and_pi_cut_points_match_source(shared_dir):
    session = load_pi_session(pi_sessions(shared_dir) / "before-compaction.jsonl")
    assert (session.report.lines, session.report.entries) == (1003, 1002)
    assert kinds(session.entries) == {
        "message/user": 55,
        "message/assistant": 484,
        "message/toolResult": 448,
        "custom/pi-import:message:bashExecution": 3,
        "thinking_level_change": 5,
        "model_change": 5,
        "custom/pi-import:compaction": 2,
    }
    mapped = {(m.source, m.target): m.count for m in session.report.mappings}
    assert mapped[("message/bashExecution", "custom/pi-import:message:bashExecution")] == 3
    assert mapped[("compaction", "custom/pi-import:compaction")] == 2
    cuts = [(c.entry_id, c.first_kept_entry_index, c.first_kept_entry_id, c.tokens_before) for c in session.compactions]
    assert cuts == [("line-360", 293, "line-294", 175004), ("line-629", 551, "line-552", 185014)]
    assert [c.summary.startswith("# Context Checkpoint") for c in session.compactions] == [True, True]
    by_id = {entry["id"]: entry for entry in session.entries}
    assert [by_id[c.first_kept_entry_id]["message"]["role"] for c in session.compactions] == ["user", "user"]
    # The compaction taken mid tool call: an assistant message asking for tools, then at once the compaction
    # (file lines 628 and 629; SOURCE.md counts it as entry 627, without the header).
    asked = by_id["line-628"]["message"]
    assert asked["stopReason"] == "toolUse" and asked["content"][-1]["type"] == "toolCall"
    assert by_id["line-629"]["customType"] == "pi-import:compaction"


@pytest.mark.parametrize("name", ["large-session.jsonl", "before-compaction.jsonl"])
def test_shared_sessions_are_valid_workbook_entries_on_one_chain(shared_dir, name):
    file = pi_sessions(shared_dir) / name
    before = file.read_bytes()
    session = load_pi_session(file)
    assert all(parse_session_entry(entry) == entry for entry in session.entries)
    assert [e["id"] for e in session.entries] == [f"line-{n}" for n in range(2, session.report.lines + 1)]
    assert_linear_chain(session.entries)
    assert session.active_path() == session.entries
    assert file.read_bytes() == before


def test_iso_timestamps_become_milliseconds_and_message_timestamps_stay(shared_dir):
    session = load_pi_session(pi_sessions(shared_dir) / "large-session.jsonl")
    first = session.entries[0]
    assert first["timestamp"] == 1763681581550  # 2025-11-20T23:33:01.550Z
    assert first["message"]["timestamp"] == 1763681581544
    assert all(isinstance(entry["timestamp"], int) for entry in session.entries)


# --- the project's own small files -------------------------------------------------------------------


def test_v1_small_file_gets_line_ids_a_chain_and_keeps_everything():
    session = load_pi_session(V1_SMALL)
    assert session.version == 1 and session.report.generated_ids
    assert [e["id"] for e in session.entries] == [f"line-{n}" for n in range(2, 14)]
    assert_linear_chain(session.entries)
    assert kinds(session.entries) == {
        "message/user": 3,
        "message/assistant": 4,
        "message/toolResult": 1,
        "thinking_level_change": 1,
        "custom/pi-import:message:bashExecution": 1,
        "custom/pi-import:compaction": 1,
        "custom/pi-import:label": 1,
    }
    by_id = {entry["id"]: entry for entry in session.entries}
    assert by_id["line-7"]["data"] == {
        "role": "bashExecution",
        "command": "git status --short",
        "output": "",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": 1735787051000,
    }
    assert by_id["line-13"]["data"] == {"targetId": "line-12", "label": "checked"}
    assert by_id["line-10"]["data"]["firstKeptEntryIndex"] == 7
    assert by_id["line-6"]["thinkingLevel"] == "high"


def test_v1_timestamps_with_zone_offsets_are_exact_milliseconds():
    session = load_pi_session(V1_SMALL)
    stamps = {entry["id"]: entry["timestamp"] for entry in session.entries}
    assert stamps["line-2"] == 1735787046000  # 2025-01-02T03:04:06.000Z
    assert stamps["line-11"] == 1735787055000  # 2025-01-02T05:04:15.000+02:00 is 03:04:15Z


def test_v1_compaction_index_counts_the_header_as_zero():
    [cut] = load_pi_session(V1_SMALL).compactions
    assert (cut.entry_id, cut.line, cut.first_kept_entry_index) == ("line-10", 10, 7)
    assert (cut.first_kept_entry_id, cut.first_kept_line, cut.tokens_before) == ("line-8", 8, 1234)


def test_v3_small_file_keeps_its_ids_and_follows_the_active_branch():
    session = load_pi_session(V3_SMALL)
    assert session.version == 3 and not session.report.generated_ids
    assert session.header == {
        "type": "session",
        "version": 3,
        "id": "v3-small",
        "timestamp": "2025-01-02T03:04:20.000Z",
        "cwd": "/work/demo",
    }
    assert len(session.entries) == 18
    path_ids = [entry["id"] for entry in session.active_path()]
    assert "d1000001" not in path_ids and "d1000002" not in path_ids  # the abandoned branch
    assert path_ids[-1] == "f1000004" and len(path_ids) == 16
    assert session.line_of("e1000002") == 12


def test_v3_small_file_maps_what_the_workbook_does_not_model_to_custom_entries():
    session = load_pi_session(V3_SMALL)
    mapped = {m.source: (m.target, m.count) for m in session.report.mappings}
    assert mapped == {
        "model_change": ("model_change", 1),
        "message/user": ("message/user", 4),
        "message/assistant": ("message/assistant", 5),
        "message/toolResult": ("message/toolResult", 2),
        "custom": ("custom", 1),
        "branch_summary": ("custom/pi-import:branch_summary", 1),
        "custom_message": ("custom/pi-import:custom_message", 1),
        "message/custom": ("custom/pi-import:message:custom", 1),
        "compaction": ("custom/pi-import:compaction", 1),
        "session_info": ("custom/pi-import:session_info", 1),
    }
    by_id = {entry["id"]: entry for entry in session.entries}
    assert by_id["c1000001"] == {
        "type": "custom",
        "id": "c1000001",
        "parentId": "b1000005",
        "timestamp": 1735787067000,
        "customType": "todo-extension",
        "data": {"todos": ["fix offset"]},
    }
    assert by_id["e1000001"]["data"] == {"fromId": "d1000002", "summary": "A rewrite was tried and abandoned."}
    assert by_id["b1000002"]["message"]["content"][0]["thinkingSignature"] == "sig"
    [cut] = session.compactions
    assert (cut.first_kept_entry_id, cut.first_kept_line, cut.first_kept_entry_index, cut.tokens_before) == (
        "e1000002",
        12,
        None,
        4321,
    )
    assert by_id["f1000001"]["data"]["details"] == {"readFiles": ["stores.py"], "modifiedFiles": []}


def test_v2_hook_message_role_is_kept_as_custom(tmp_path):
    file = write_lines(
        tmp_path / "v2.jsonl",
        [
            {"type": "session", "version": 2, "id": "v2", "timestamp": "2025-01-02T03:04:05Z", "cwd": "/w"},
            {
                "type": "message",
                "id": "aaaa0001",
                "parentId": None,
                "timestamp": "2025-01-02T03:04:06Z",
                "message": {"role": "user", "content": "Hello.", "timestamp": 1},
            },
            {
                "type": "message",
                "id": "aaaa0002",
                "parentId": "aaaa0001",
                "timestamp": "2025-01-02T03:04:07Z",
                "message": {"role": "hookMessage", "customType": "lint", "content": "2 warnings", "display": True},
            },
        ],
    )
    session = load_pi_session(file)
    assert [entry.get("customType") for entry in session.entries] == [None, "pi-import:message:hookMessage"]
    assert session.entries[1]["data"]["content"] == "2 warnings"


def test_torn_last_line_is_reported_and_left_out(tmp_path):
    data = V1_SMALL.read_bytes()
    file = tmp_path / "torn.jsonl"
    torn = b'{"type":"message","timestamp":"2025-01-02T03:04:18Z","mess'
    file.write_bytes(data + torn)
    session = load_pi_session(file)
    tail = session.report.torn_tail
    assert (tail.line, tail.offset, tail.size) == (14, 3141, 58) == (14, len(data), len(torn))
    assert session.report.entries == 12 and session.entries[-1]["id"] == "line-13"
    assert file.read_bytes()[len(data) :].startswith(b'{"type":"message"')  # the file is left as it was


def test_torn_line_that_is_valid_json_is_still_torn(tmp_path):
    lines = V1_SMALL.read_text(encoding="utf-8").splitlines(keepends=True)
    file = tmp_path / "no-final-newline.jsonl"
    file.write_text("".join(lines).rstrip("\n"), encoding="utf-8")
    session = load_pi_session(file)
    assert session.report.torn_tail.line == 13 and session.entries[-1]["id"] == "line-12"


def replace_line(tmp_path: Path, source: Path, number: int, text: str) -> Path:
    lines = source.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = text
    file = tmp_path / "edited.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return file


@pytest.mark.parametrize(
    ("source", "number", "text", "words"),
    [
        (V1_SMALL, 4, '{"type":"message",', ["line 4", "not valid JSON"]),
        (V1_SMALL, 4, "[1, 2]", ["line 4", "expected a JSON object, got list"]),
        (V1_SMALL, 4, "", ["line 4", "not valid JSON"]),
        (V1_SMALL, 1, '{"type":"message","timestamp":"2025-01-02T03:04:06Z"}', ["line 1", "session header"]),
        (
            V1_SMALL,
            1,
            '{"type":"session","version":4,"id":"x","timestamp":"2025-01-02T03:04:06Z"}',
            ["line 1", "unsupported Pi session version 4"],
        ),
        (
            V1_SMALL,
            5,
            '{"type":"message","id":"x","timestamp":"2025-01-02T03:04:06Z","message":{}}',
            ["line 5", "version 1 entry has no 'id'"],
        ),
        (
            V1_SMALL,
            5,
            '{"type":"thinking_level_change","timestamp":"2025-01-02 03:04:06","thinkingLevel":"low"}',
            ["line 5", "timestamp", "time zone"],
        ),
        (V1_SMALL, 5, '{"timestamp":"2025-01-02T03:04:06Z"}', ["line 5", "type"]),
        (
            V1_SMALL,
            3,
            '{"type":"message","timestamp":"2025-01-02T03:04:07Z","message":{"role":"assistant",'
            '"content":[{"type":"toolCall","id":"call-1","name":"bash"}]}}',
            ["line 3", "'line-3'", "message.content[0].arguments"],
        ),
        (
            V1_SMALL,
            10,
            '{"type":"compaction","timestamp":"2025-01-02T03:04:14Z","summary":"s",'
            '"firstKeptEntryIndex":40,"tokensBefore":1}',
            ["line 10", "first kept entry 40"],
        ),
        (
            V1_SMALL,
            10,
            '{"type":"compaction","timestamp":"2025-01-02T03:04:14Z","summary":"s",'
            '"firstKeptEntryIndex":7,"tokensBefore":-1}',
            ["line 10", "tokensBefore"],
        ),
        (
            V3_SMALL,
            4,
            '{"type":"message","id":"b1000001","parentId":"b1000001","timestamp":"2025-01-02T03:04:23Z",'
            '"message":{"role":"user","content":"again"}}',
            ["line 4", "'b1000001'", "already used on line 3"],
        ),
        (
            V3_SMALL,
            4,
            '{"type":"message","id":"z1","parentId":"nowhere","timestamp":"2025-01-02T03:04:23Z",'
            '"message":{"role":"user","content":"again"}}',
            ["line 4", "'z1'", "parentId 'nowhere'"],
        ),
        (
            V3_SMALL,
            16,
            '{"type":"compaction","id":"f1000001","parentId":"e1000005","timestamp":"2025-01-02T03:04:35Z",'
            '"summary":"s","firstKeptEntryId":"f1000002","tokensBefore":1}',
            ["line 16", "first kept entry 'f1000002'"],
        ),
        # Text that can never be sent: half of an emoji's surrogate pair, as a JSON escape.
        (
            V3_SMALL,
            3,
            '{"type":"message","id":"b1000001","parentId":"a1000001","timestamp":"2025-01-02T03:04:22.000Z",'
            '"message":{"role":"user","content":[{"type":"text","text":"cut emoji \\ud83d"}]}}',
            ["line 3", "'b1000001'", "message.content[0].text", "surrogate"],
        ),
        (
            V1_SMALL,
            7,
            '{"type":"message","timestamp":"2025-01-02T03:04:11Z","message":{"role":"bashExecution",'
            '"command":"echo \\udc00","output":""}}',
            ["line 7", "'line-7'", "data.command", "surrogate"],
        ),
    ],
)
def test_bad_lines_are_errors_naming_their_line(tmp_path, source, number, text, words):
    file = replace_line(tmp_path, source, number, text)
    with pytest.raises(PiImportError) as raised:
        load_pi_session(file)
    assert str(file) in str(raised.value)
    assert [word for word in words if word not in str(raised.value)] == []


def test_empty_file_has_no_header(tmp_path):
    file = tmp_path / "empty.jsonl"
    file.write_bytes(b"")
    with pytest.raises(PiImportError, match="line 1: no session header"):
        load_pi_session(file)


def test_returned_entries_are_fresh_copies():
    session = load_pi_session(V1_SMALL)
    path = session.active_path()
    path[0]["message"]["content"][0]["text"] = "changed"
    assert session.entries[0]["message"]["content"][0]["text"] == "Run the store tests."
