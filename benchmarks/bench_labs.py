"""Benchmark: how the labs' reference functions scale, printed as figures (not a test).

Times ``group_interactions`` and ``build_context`` on synthetic active paths of 10^4, 10^5
and 10^6 messages (interactions of a user message, an assistant message with two parallel
tool calls, their two results in reverse order and a closing assistant message), and the
JSONL store's reopen against a plain ``json.loads`` loop over the same file in the same run.
Linear scaling shows as a flat microseconds-per-message column.

A second section times the real-session pipeline (Pi import, repair of dangling calls,
``group_interactions``, ``build_context`` at 32k tokens with ``chars4``) on
``../shared/fixtures/pi-sessions/large-session.jsonl`` and on a file made of its entries
repeated ``--repeat`` times (100 by default; in a temporary folder), against a plain
``json.loads`` loop over the same bytes in the same run, and lab 3's ``replay`` of the session
(Going further) against ``build_context`` on every turn's whole path. It is skipped, with a note,
where ``../shared`` is absent.

A third section times lab 1's guarded parser (Going further) refusing a list nested 10^6 deep and a
string of 10^8 characters, against ``json.loads`` of the same value written as JSON.

    python benchmarks/bench_labs.py [--sizes 10000 100000 1000000] [--repeat 100] [--pi-session FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbook.paths import REPO, SOLUTIONS

sys.path.insert(0, str(SOLUTIONS.parent))

from compaction_lab.budget import BudgetOptions, CachePolicy, build_context, recommended_options, replay  # noqa: E402
from compaction_lab.grouping import group_interactions  # noqa: E402
from compaction_lab.provided.estimators import chars4  # noqa: E402
from compaction_lab.provided.example import estimate_example_tokens  # noqa: E402
from compaction_lab.provided.pi_import import load_pi_session  # noqa: E402
from compaction_lab.provided.repair import repair_dangling_tool_calls  # noqa: E402
from compaction_lab.provided.scenarios import custom_entry, nested_lists  # noqa: E402
from compaction_lab.provided.stores import JsonlSessionStore  # noqa: E402
from compaction_lab.records import parse_session_entry  # noqa: E402
from compaction_lab.resumption import message_entries  # noqa: E402

PI_SESSION = REPO.parent / "shared" / "fixtures" / "pi-sessions" / "large-session.jsonl"

MESSAGES_PER_INTERACTION = 5


def synthetic_path(messages: int) -> list[dict]:
    """An active path of about ``messages`` message entries in whole interactions."""
    entries: list[dict] = []

    def add(entry_id: str, message: dict) -> None:
        parent = entries[-1]["id"] if entries else None
        entries.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": len(entries), "message": message}
        )

    for n in range(messages // MESSAGES_PER_INTERACTION):
        add(f"u{n}", {"role": "user", "content": f"Run step {n} of the focused store checks."})
        add(
            f"c{n}",
            {
                "role": "assistant",
                "content": [
                    {"type": "toolCall", "id": f"read-{n}", "name": "read", "arguments": {"path": f"f{n}.py"}},
                    {"type": "toolCall", "id": f"test-{n}", "name": "bash", "arguments": {"command": "pytest -q"}},
                ],
            },
        )
        for call in (f"test-{n}", f"read-{n}"):
            add(
                f"r-{call}",
                {
                    "role": "toolResult",
                    "toolCallId": call,
                    "toolName": "tool",
                    "content": [{"type": "text", "text": "ok"}],
                    "isError": False,
                },
            )
        add(f"a{n}", {"role": "assistant", "content": [{"type": "text", "text": f"Step {n} passes."}]})
    return entries


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def row(label: str, size: int, seconds: float, unit: str = "message") -> None:
    print(f"{label:<34}{size:>10,}{seconds:>10.2f} s{seconds / size * 1e6:>10.2f} µs/{unit}")


def bench_size(size: int) -> None:
    path = synthetic_path(size)
    budget = BudgetOptions(
        max_tokens=size * 2,
        system_prompt="sys",
        reserved_output=4_000,
        safety_margin=1_000,
        estimate_tokens=estimate_example_tokens,
    )
    row("group_interactions", len(path), timed(lambda: group_interactions(path)))
    row("build_context (keeps about half)", len(path), timed(lambda: build_context(path, budget)))
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "session.jsonl"
        file.write_text("".join(json.dumps(entry) + "\n" for entry in path), encoding="utf-8")
        plain = timed(lambda: [json.loads(line) for line in file.read_bytes().splitlines()])
        store = timed(lambda: JsonlSessionStore(file))
    row("json.loads loop over the file", len(path), plain)
    row("JsonlSessionStore reopen", len(path), store)
    print(f"{'reopen / json.loads':<34}{'':>10}{store / plain:>10.1f} x")


def repeated_pi_session(source: Path, target: Path, times: int) -> None:
    """Write a version 1 Pi log: ``source``'s header, then its entries ``times`` over.

    Entry ids stay unique by construction (version 1 ids are ``line-<n>``); tool call ids get a
    ``~<copy>`` suffix in every copy, in calls and results alike, so they are unique too.
    """
    lines = source.read_bytes().splitlines()
    if "version" in json.loads(lines[0]):
        raise ValueError(f"{source}: line 1: only a version 1 log (no ids) can be repeated this way")
    with target.open("w", encoding="utf-8") as out:
        out.write(lines[0].decode("utf-8") + "\n")
        for copy in range(times):
            for line in lines[1:]:
                entry = json.loads(line)
                message = entry.get("message", {})
                if "toolCallId" in message:
                    message["toolCallId"] += f"~{copy}"
                for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
                    if block.get("type") == "toolCall":
                        block["id"] += f"~{copy}"
                out.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")


def bench_pi_session(file: Path) -> None:
    """Time import, repair, grouping and a 32k-token ``build_context`` on one Pi session file."""
    data = file.read_bytes()
    lines = data.count(b"\n")
    plain = timed(lambda: [json.loads(line) for line in data.splitlines()])
    imported: dict = {}
    load = timed(lambda: imported.setdefault("session", load_pi_session(file)))
    path = imported["session"].active_path()
    repair = timed(lambda: imported.setdefault("repair", repair_dangling_tool_calls(path)))
    repaired = imported["repair"].path
    group = timed(lambda: group_interactions(message_entries(repaired)))
    budget = BudgetOptions(
        max_tokens=32_000, system_prompt="", reserved_output=0, safety_margin=0, estimate_tokens=chars4
    )
    build = timed(lambda: build_context(repaired, budget))
    print(
        f"{file.name}: {len(data) / 1e6:.1f} MB, {lines:,} lines, "
        f"{len(imported['repair'].added):,} dangling calls repaired"
    )
    for label, seconds in (
        ("json.loads loop over the bytes", plain),
        ("load_pi_session", load),
        ("repair_dangling_tool_calls", repair),
        ("group_interactions", group),
        ("build_context (32k, chars4)", build),
    ):
        row(label, lines, seconds, "line")
    print(f"{'load_pi_session / json.loads':<34}{'':>10}{load / plain:>10.1f} x")


def bench_replay(file: Path, window: int = 32_000) -> None:
    """Lab 3's ``replay`` (headroom 0) against ``build_context`` on each turn's whole path: the same contexts."""
    path = repair_dangling_tool_calls(load_pi_session(file).active_path()).path
    options = recommended_options(window)
    turns = [end for end, entry in enumerate(path) if entry["type"] == "message" and entry["message"]["role"] == "user"]
    replayed = timed(lambda: replay(path, options, CachePolicy()))
    rebuilt = timed(lambda: [build_context(path[: end + 1], options) for end in turns])
    row(f"replay ({window // 1000}k, chars3)", len(turns), replayed, "turn")
    row("build_context on every turn", len(turns), rebuilt, "turn")
    print(f"{'replay / build every turn':<34}{'':>10}{replayed / rebuilt:>10.2f} x")


def bench_real_sessions(source: Path, repeat: int) -> None:
    """The real-session section: ``source`` as it is, then repeated ``repeat`` times, and its replay."""
    if not source.exists():
        print(f"\n(real sessions skipped: {source} is absent)")
        return
    print(f"\n{'real Pi session':<34}{'lines':>10}{'time':>12}{'per line':>18}")
    bench_pi_session(source)
    bench_replay(source)
    with tempfile.TemporaryDirectory() as folder:
        repeated = Path(folder) / f"{source.stem}-x{repeat}.jsonl"
        repeated_pi_session(source, repeated, repeat)
        bench_pi_session(repeated)


def bench_guard() -> None:
    """Lab 1's guarded parser refusing hostile entries, against ``json.loads`` of the same value as JSON."""
    depth, length = 10**6, 10**8
    hostile = {
        "a list nested 10^6 deep": (custom_entry("deep-1", nested_lists(depth)), "[" * depth + "]" * depth),
        "a string of 10^8 characters": (custom_entry("huge-1", "x" * length), '"' + "x" * length + '"'),
    }
    print(f"\n{'guarded input (refused)':<34}{'guard':>12}{'json.loads':>14}{'ratio':>10}")
    for label, (entry, text) in hostile.items():
        refused = timed(lambda entry=entry: _refused(entry))
        decoded = timed(lambda text=text: _decoded(text))
        print(f"{label:<34}{refused * 1e3:>9.3f} ms{decoded * 1e3:>11.1f} ms{refused / decoded:>10.5f} x")


def _refused(entry: dict) -> None:
    try:
        parse_session_entry(entry, guarded=True)
    except ValueError:
        return
    raise AssertionError(f"{entry['id']} was accepted")


def _decoded(text: str) -> None:
    try:
        json.loads(text)
    except RecursionError:
        pass  # json.loads gives up on deep nesting too, after walking into it


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=100, help="copies of the real session in the large file")
    parser.add_argument("--pi-session", type=Path, default=PI_SESSION, help="a version 1 Pi session log")
    args = parser.parse_args(argv)
    print(f"{'what':<34}{'messages':>10}{'time':>12}{'per message':>21}")
    for size in args.sizes:
        bench_size(size)
    bench_real_sessions(args.pi_session, args.repeat)
    bench_guard()


if __name__ == "__main__":
    main()
