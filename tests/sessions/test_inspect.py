"""``workbook inspect``: the report on real and small sessions, its JSON and its tables."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from rich.console import Console

from workbook.cli.inspect import add_parser
from workbook.paths import SOLUTIONS
from workbook.sessions.inspection import inspect_session

FIXTURES = Path(__file__).resolve().parents[1] / "support" / "fixtures"


@pytest.fixture(autouse=True)
def reference_labs(lab_package):
    """``workbook inspect`` runs the reference solutions, whatever package the other tests use."""
    if lab_package.resolve() != SOLUTIONS.resolve():
        pytest.skip("workbook inspect runs the reference labs in solutions/; run with --lab-package solutions")


def run(*argv: str) -> int:
    """Run ``workbook inspect ARGV`` through the command's own parser; return its exit code."""
    parser = argparse.ArgumentParser(prog="workbook")
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["inspect", *argv])
    return args.run(args, Console(width=100))


def real(shared_dir: Path, name: str) -> Path:
    return shared_dir / "fixtures" / "pi-sessions" / name


def test_large_session_report(shared_dir):
    report = inspect_session(real(shared_dir, "large-session.jsonl"), window=32_000)
    assert report["format"] == "pi" and report["import"]["version"] == 1
    assert report["entries"]["by_type"] == {"message": 914, "model_change": 1, "thinking_level_change": 103}
    assert report["entries"]["by_role"] == {"user": 88, "assistant": 453, "toolResult": 373}
    assert len(report["dangling_calls"]) == 18
    assert report["dangling_calls"][0]["call_line"] == 33
    assert report["interrupted_calls"] == []
    assert report["interactions"] == {
        "count": 88,
        "largest": {"number": 4, "first_entry_id": "line-26", "line": 26, "messages": 24, "tokens": 42057},
    }
    assert report["tokens"] == {"estimator": "upper_bound", "messages": 314636}
    projection = report["projection"]
    assert (projection["reason"], projection["first_kept_entry_id"], projection["kept_messages"]) == (
        "trimmed",
        "line-918",
        102,
    )
    assert projection["kept_interactions"] == {"first": 80, "last": 88, "count": 9}
    assert projection["tokens"]["messages"] == 29784
    assert report["pi_compactions"] == []


def test_pis_heuristic_is_still_available_by_name(shared_dir):
    report = inspect_session(real(shared_dir, "large-session.jsonl"), window=32_000, estimator="chars4")
    assert report["tokens"] == {"estimator": "chars4", "messages": 124699}
    assert (report["projection"]["first_kept_entry_id"], report["projection"]["kept_messages"]) == ("line-733", 288)


def test_pi_cuts_compared_with_the_workbooks_at_the_same_tokens_before(shared_dir):
    report = inspect_session(real(shared_dir, "before-compaction.jsonl"))
    first, second = report["pi_compactions"]
    assert (first["entry_id"], first["tokens_before"], first["repaired_calls"]) == ("line-360", 175004, 0)
    assert first["pi"] | {"lab4_error": None} == {
        "first_kept_entry_id": "line-294",
        "first_kept_line": 294,
        "first_kept_entry_index": 293,
        "role": "message/user",
        "interaction": 12,
        "starts_interaction": True,
        "allowed_by_lab4": True,
        "lab4_error": None,
        "kept_tokens": 38713,
    }
    # Pi's provider counted 175,004 tokens: the workbook's bound no longer calls that window complete.
    assert first["workbook"] == {
        "first_kept_entry_id": "line-92",
        "first_kept_line": 92,
        "interaction": 10,
        "reason": "trimmed",
        "kept_tokens": 157812,
    }
    # The second compaction was taken mid tool call: the path before it needs its own repair.
    assert (second["entry_id"], second["repaired_calls"], second["interactions_before"]) == ("line-629", 5, 27)
    assert (second["pi"]["first_kept_entry_id"], second["pi"]["interaction"]) == ("line-552", 25)
    assert (
        second["workbook"]["first_kept_entry_id"],
        second["workbook"]["interaction"],
        second["workbook"]["reason"],
    ) == ("line-460", 21, "trimmed")


def test_json_output_is_one_object(shared_dir, capsys):
    assert run(str(real(shared_dir, "large-session.jsonl")), "--window", "8000", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["projection"]["window"] == 8000 and report["projection"]["first_kept_entry_id"] == "line-988"


def test_tables_name_the_findings(shared_dir, capsys):
    assert run(str(real(shared_dir, "before-compaction.jsonl")), "--window", "32000") == 0
    out = capsys.readouterr().out
    for words in (
        "Dangling tool calls: 6",
        "Budget projection at a window of 32,000 tokens",
        "#48 to #55",
        "custom/pi-import:message:bashExecution",
        "line-294 (line 294)",
        "175,004",
        "Tool results cut off from their call by a message: none",
    ):
        assert words in out


def test_small_v3_file_follows_its_active_branch():
    report = inspect_session(FIXTURES / "pi-v3-small.jsonl", window=100, estimator="example")
    assert report["import"]["version"] == 3 and report["entries"]["total"] == 16
    assert report["interactions"]["count"] == 3 and report["dangling_calls"] == []
    [cut] = report["pi_compactions"]
    assert (cut["pi"]["first_kept_entry_id"], cut["pi"]["allowed_by_lab4"]) == ("e1000002", True)
    assert report["tokens"] == {"estimator": "example", "messages": 28}


def test_small_v1_file_where_pi_cut_during_an_errored_tool_call():
    report = inspect_session(FIXTURES / "pi-v1-small.jsonl", window=20, estimator="example")
    assert [item["call_id"] for item in report["dangling_calls"]] == ["call-2", "call-3"]
    [cut] = report["pi_compactions"]
    assert (cut["repaired_calls"], cut["pi"]["first_kept_entry_id"], cut["pi"]["interaction"]) == (2, "line-8", 2)
    assert report["projection"]["reason"] == "trimmed"


def test_a_workbook_jsonl_session_is_inspected_too(tmp_path):
    from compaction_lab.provided.example import example_entries
    from compaction_lab.provided.stores import JsonlSessionStore

    store = JsonlSessionStore(tmp_path / "example.jsonl")
    for entry in example_entries():
        store.append(entry)
    report = inspect_session(
        tmp_path / "example.jsonl", window=31, estimator="example", reserved_output=4, safety_margin=2
    )
    assert report["format"] == "workbook" and report["interactions"]["count"] == 3
    assert report["projection"]["first_kept_entry_id"] == "u2" and report["projection"]["reason"] == "trimmed"
    assert report["projection"]["tokens"] == {
        "max_tokens": 31,
        "system": 2,
        "messages": 22,
        "reserved_output": 4,
        "safety_margin": 2,
        "available_for_messages": 23,
        "total": 30,
    }


def test_a_malformed_line_is_reported_with_its_line_number(tmp_path, capsys):
    file = tmp_path / "bad.jsonl"
    lines = (FIXTURES / "pi-v1-small.jsonl").read_text(encoding="utf-8").splitlines()
    file.write_text("\n".join([*lines[:3], "{not json", *lines[4:]]) + "\n", encoding="utf-8")
    assert run(str(file)) == 1
    assert "line 4: not valid JSON" in capsys.readouterr().err


def test_the_workbook_command_line_has_inspect(capsys):
    from workbook.cli.main import main

    assert main(["inspect", str(FIXTURES / "pi-v1-small.jsonl"), "--estimator", "example", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["import"]["version"] == 1 and len(report["dangling_calls"]) == 2


def test_an_over_full_window_of_chinese_text_is_never_called_complete(tmp_path):
    from compaction_lab.provided.stores import JsonlSessionStore

    [chinese] = [
        sample
        for sample in json.loads((FIXTURES / "token-samples.json").read_text(encoding="utf-8"))["samples"]
        if sample["kind"] == "Chinese"
    ]
    texts = {"u1": chinese["text"], "a1": chinese["text"], "u2": "继续。", "a2": "好的。"}
    with JsonlSessionStore(tmp_path / "chinese.jsonl") as store:
        parent = None
        for entry_id, text in texts.items():
            role = "user" if entry_id.startswith("u") else "assistant"
            content = text if role == "user" else [{"type": "text", "text": text}]
            store.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": 1,
                    "message": {"role": role, "content": content},
                }
            )
            parent = entry_id
    window = 200
    assert 2 * max(chinese["tokens"].values()) > window  # for a real tokenizer, u1 and a1 alone overflow it
    by_pi = inspect_session(tmp_path / "chinese.jsonl", window=window, estimator="chars4")
    assert (by_pi["projection"]["reason"], by_pi["tokens"]["messages"]) == ("complete", 60)
    report = inspect_session(tmp_path / "chinese.jsonl", window=window)
    assert report["tokens"]["estimator"] == "upper_bound"
    assert report["projection"]["reason"] == "trimmed" and report["projection"]["first_kept_entry_id"] == "u2"
