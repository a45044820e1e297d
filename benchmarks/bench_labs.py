"""Benchmark: how the labs' reference functions scale, printed as figures (not a test).

Times ``group_interactions`` and ``build_context`` on synthetic active paths of 10^4, 10^5
and 10^6 messages (interactions of a user message, an assistant message with two parallel
tool calls, their two results in reverse order and a closing assistant message), and the
JSONL store's reopen against a plain ``json.loads`` loop over the same file in the same run.
Linear scaling shows as a flat microseconds-per-message column.

    python benchmarks/bench_labs.py [--sizes 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbook.paths import SOLUTIONS

sys.path.insert(0, str(SOLUTIONS.parent))

from compaction_lab.budget import BudgetOptions, build_context  # noqa: E402
from compaction_lab.example import estimate_example_tokens  # noqa: E402
from compaction_lab.grouping import group_interactions  # noqa: E402
from compaction_lab.stores import JsonlSessionStore  # noqa: E402

MESSAGES_PER_INTERACTION = 5


def synthetic_path(messages: int) -> list[dict]:
    """An active path of about ``messages`` message entries in whole interactions."""
    entries: list[dict] = []

    def add(entry_id: str, message: dict) -> None:
        parent = entries[-1]["id"] if entries else None
        entries.append({"type": "message", "id": entry_id, "parentId": parent, "timestamp": len(entries),
                        "message": message})

    for n in range(messages // MESSAGES_PER_INTERACTION):
        add(f"u{n}", {"role": "user", "content": f"Run step {n} of the focused store checks."})
        add(f"c{n}", {"role": "assistant", "content": [
            {"type": "toolCall", "id": f"read-{n}", "name": "read", "arguments": {"path": f"f{n}.py"}},
            {"type": "toolCall", "id": f"test-{n}", "name": "bash", "arguments": {"command": "pytest -q"}}]})
        for call in (f"test-{n}", f"read-{n}"):
            add(f"r-{call}", {"role": "toolResult", "toolCallId": call, "toolName": "tool",
                              "content": [{"type": "text", "text": "ok"}], "isError": False})
        add(f"a{n}", {"role": "assistant", "content": [{"type": "text", "text": f"Step {n} passes."}]})
    return entries


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def row(label: str, size: int, seconds: float) -> None:
    print(f"{label:<34}{size:>10,}{seconds:>10.2f} s{seconds / size * 1e6:>10.2f} µs/message")


def bench_size(size: int) -> None:
    path = synthetic_path(size)
    budget = BudgetOptions(max_tokens=size * 2, system_prompt="sys", reserved_output=4_000, safety_margin=1_000,
                           estimate_tokens=estimate_example_tokens)
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args(argv)
    print(f"{'what':<34}{'messages':>10}{'time':>12}{'per message':>21}")
    for size in args.sizes:
        bench_size(size)


if __name__ == "__main__":
    main()
