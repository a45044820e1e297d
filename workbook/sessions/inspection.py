"""``workbook inspect FILE``: what the labs' rules make of a real session.

FILE is a Pi coding-agent session (format version 1, 2 or 3; first line a ``session`` header) or a
workbook JSONL session (``JsonlSessionStore``). The command reports the entries by type and role,
the import mapping, the interactions and the largest one, the dangling tool calls, the estimated
tokens, which interactions a budget projection keeps for a window of ``--window`` tokens, and for
each of Pi's own compactions where Pi cut compared with where the workbook's rules cut at the same
``tokensBefore``. Output is rich tables, or one JSON object with ``--json``.

Dangling tool calls are repaired for the analysis (``compaction_lab.provided.repair``), never in the file,
and the report lists what was added, and any tool result a user or assistant message cuts off from its
call (``interrupted_tool_calls``), which a provider would refuse. All numbers of tokens come from the
chosen estimator, not from a tokenizer: ``upper_bound`` by default, never below a real tokenizer's
count for any script, so a window called ``complete`` is not over-full; ``chars4`` prices the session
as Pi's own heuristic does. The system prompt is empty (0 tokens).

The analysis calls the reference labs in ``solutions/compaction_lab`` (grouping, budget
projection, compaction creation), imported on first use; nothing here re-implements them.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console
from rich.table import Table

from workbook.paths import SOLUTIONS

DEFAULT_WINDOW = 128_000
"""Tokens in the default window (a common size for current coding models)."""

DEFAULT_ESTIMATOR = "upper_bound"
ESTIMATOR_HELP = {
    "upper_bound": "never below a real tokenizer, any script (default)",
    "chars4": "ceil(chars/4), Pi's heuristic (undercounts other scripts, emoji, ids)",
    "example": "the running example's toy",
}
"""The ``--estimator`` choices (``compaction_lab.provided.estimators.ESTIMATORS``) and what each is."""

CHECK_SUMMARY = {
    "goal": "Check where the workbook's rules allow a cut.",
    "constraints": [],
    "completed": [],
    "decisions": [],
    "changedFiles": [],
    "unresolved": [],
    "next": [],
}
"""The summary of the throw-away compaction entry used to ask lab 4 whether Pi's cut is allowed."""


def labs() -> SimpleNamespace:
    """The reference lab modules, imported from ``solutions/`` (put on ``sys.path`` on first use).

    Raises ``ImportError`` naming both folders if another ``compaction_lab`` (a student's or the
    starters') was imported first in this process: inspect's figures are the reference labs'.
    """
    if str(SOLUTIONS.parent) not in sys.path:
        sys.path.insert(0, str(SOLUTIONS.parent))
    import compaction_lab
    from compaction_lab import budget, compaction, grouping, resumption
    from compaction_lab.provided import errors, estimators, pi_import, repair, stores

    if Path(compaction_lab.__file__).resolve().parent != SOLUTIONS.resolve():
        raise ImportError(
            f"workbook inspect needs the reference labs in {SOLUTIONS}, "
            f"but compaction_lab was imported from {Path(compaction_lab.__file__).parent}"
        )
    return SimpleNamespace(
        budget=budget,
        compaction=compaction,
        errors=errors,
        estimators=estimators,
        grouping=grouping,
        pi_import=pi_import,
        repair=repair,
        resumption=resumption,
        stores=stores,
    )


def inspect_session(
    file: Path,
    *,
    window: int = DEFAULT_WINDOW,
    estimator: str = DEFAULT_ESTIMATOR,
    reserved_output: int = 0,
    safety_margin: int = 0,
) -> dict[str, Any]:
    """Return the inspection of ``file`` as a JSON-ready dict (tokens as the estimator prices them).

    Keys: ``file``, ``format`` (``pi`` or ``workbook``), ``header``, ``import`` (Pi: version,
    lines, mappings, torn tail), ``entries`` (``total``, ``by_type``, ``by_role``,
    ``custom_types``), ``dangling_calls`` (what the repair added), ``interrupted_calls`` (results cut
    off from their call on the repaired path, ``[]`` when none), ``interactions`` (``count``,
    ``largest``), ``tokens`` (``estimator``, ``messages``), ``projection`` (the budget at
    ``window``) and ``pi_compactions`` (one comparison each). Raises ``PiImportError`` or
    ``SessionStoreError`` naming the line for a bad file, ``OSError`` when it cannot be read.
    """
    lab = labs()
    price = lab.estimators.ESTIMATORS[estimator]
    loaded = _load(lab, Path(file))
    path = loaded["path"]
    repaired = lab.repair.repair_dangling_tool_calls(path)
    messages = lab.resumption.message_entries(repaired.path)
    groups = lab.grouping.group_interactions(messages)
    costs = [sum(price(entry["message"]) for entry in group) for group in groups]
    largest = max(range(len(groups)), key=costs.__getitem__, default=None)
    budget = _options(lab, window, reserved_output, safety_margin, price)
    report = {
        "file": str(file),
        "format": loaded["format"],
        "header": loaded["header"],
        "import": loaded["import"],
        "entries": _entry_counts(path),
        "dangling_calls": [_added(item, loaded["lines"]) for item in repaired.added],
        "interrupted_calls": [vars(item) for item in lab.repair.interrupted_tool_calls(repaired.path)],
        "interactions": {
            "count": len(groups),
            "largest": None
            if largest is None
            else {
                "number": largest + 1,
                "first_entry_id": groups[largest][0]["id"],
                "line": loaded["lines"].get(groups[largest][0]["id"]),
                "messages": len(groups[largest]),
                "tokens": costs[largest],
            },
        },
        "tokens": {"estimator": estimator, "messages": sum(costs)},
        "projection": _projection(lab, repaired.path, budget, groups, loaded["lines"]),
        "pi_compactions": [
            _compare(lab, point, path, price, reserved_output, safety_margin, loaded["lines"])
            for point in loaded["compactions"]
        ],
    }
    return report


def _load(lab: SimpleNamespace, file: Path) -> dict[str, Any]:
    """Read a Pi session (first line a ``session`` header) or a workbook JSONL session."""
    with file.open("rb") as handle:
        first = handle.readline()
    try:
        is_pi = json.loads(first).get("type") == "session"
    except (ValueError, AttributeError):
        is_pi = False
    if is_pi:
        session = lab.pi_import.load_pi_session(file)
        report = session.report
        return {
            "format": "pi",
            "header": session.header,
            "path": session.active_path(),
            "lines": {entry["id"]: index + 2 for index, entry in enumerate(session.entries)},
            "compactions": session.compactions,
            "import": {
                "version": report.version,
                "lines": report.lines,
                "entries": report.entries,
                "generated_ids": report.generated_ids,
                "mappings": [vars(mapping) for mapping in report.mappings],
                "torn_tail": None if report.torn_tail is None else vars(report.torn_tail),
            },
        }
    store = lab.stores.JsonlSessionStore(file)
    entries = store.entries()
    return {
        "format": "workbook",
        "header": None,
        "path": lab.stores.path_to(entries, entries[-1]["id"]) if entries else [],
        "lines": {entry["id"]: index + 1 for index, entry in enumerate(entries)},
        "compactions": [],
        "import": {"torn_tail": None if store.torn_tail_offset is None else {"offset": store.torn_tail_offset}},
    }


def _options(lab: SimpleNamespace, window: float, reserved: float, margin: float, price: Any) -> Any:
    return lab.budget.BudgetOptions(
        max_tokens=window, system_prompt="", reserved_output=reserved, safety_margin=margin, estimate_tokens=price
    )


def _entry_counts(path: list[dict[str, Any]]) -> dict[str, Any]:
    by_type = Counter(entry["type"] for entry in path)
    by_role = Counter(entry["message"]["role"] for entry in path if entry["type"] == "message")
    custom = Counter(entry.get("customType") for entry in path if entry["type"] == "custom")
    return {"total": len(path), "by_type": dict(by_type), "by_role": dict(by_role), "custom_types": dict(custom)}


def _added(item: Any, lines: dict[str, int]) -> dict[str, Any]:
    return {**vars(item), "call_line": lines.get(item.call_entry_id)}


def _interaction_of(groups: list[list[dict[str, Any]]], entry_id: str) -> int | None:
    """The 1-based number of the interaction holding ``entry_id`` (None if no group holds it)."""
    for number, group in enumerate(groups, start=1):
        if any(entry["id"] == entry_id for entry in group):
            return number
    return None


def _projection(
    lab: SimpleNamespace,
    path: list[dict[str, Any]],
    options: Any,
    groups: list[list[dict[str, Any]]],
    lines: dict[str, int],
) -> dict[str, Any]:
    """``build_context`` at the window: which interactions it keeps, and its ledger (tokens)."""
    context = lab.budget.build_context(path, options)
    first = context.kept_entry_ids[0] if context.kept_entry_ids else None
    first_number = _interaction_of(groups, first) if first is not None else None
    return {
        "window": options.max_tokens,
        "reason": context.reason,
        "compaction_id": context.compaction_id,
        "first_kept_entry_id": first,
        "first_kept_line": lines.get(first) if first else None,
        "kept_interactions": None
        if first_number is None
        else {"first": first_number, "last": len(groups), "count": len(groups) - first_number + 1},
        "kept_messages": len(context.kept_entry_ids),
        "tokens": vars(context.tokens),
    }


def _compare(
    lab: SimpleNamespace,
    point: Any,
    path: list[dict[str, Any]],
    price: Any,
    reserved: float,
    margin: float,
    lines: dict[str, int],
) -> dict[str, Any]:
    """Pi's cut against the workbook's at Pi's ``tokensBefore``, on the path before Pi's compaction.

    The path before the compaction is repaired on its own (a compaction may be taken in the middle
    of a tool call). The workbook's cut is the first entry ``build_context`` keeps with a window of
    ``tokensBefore``; lab 4 (``create_compaction_entry``) says whether Pi's cut would be allowed.
    """
    ids = [entry["id"] for entry in path]
    base = {
        "entry_id": point.entry_id,
        "line": point.line,
        "tokens_before": point.tokens_before,
        "pi": {
            "first_kept_entry_id": point.first_kept_entry_id,
            "first_kept_line": point.first_kept_line,
            "first_kept_entry_index": point.first_kept_entry_index,
        },
    }
    if point.entry_id not in ids:
        return {**base, "on_active_path": False}
    repaired = lab.repair.repair_dangling_tool_calls(path[: ids.index(point.entry_id)])
    groups = lab.grouping.group_interactions(lab.resumption.message_entries(repaired.path))
    position = next(i for i, entry in enumerate(repaired.path) if entry["id"] == point.first_kept_entry_id)
    pi_kept = lab.resumption.message_entries(repaired.path[position:])
    try:
        lab.compaction.create_compaction_entry(
            repaired.path,
            id=f"inspect-{point.entry_id}",
            timestamp=0,
            summary=CHECK_SUMMARY,
            first_kept_entry_id=point.first_kept_entry_id,
            tokens_before=point.tokens_before,
        )
        allowed, why = True, None
    except lab.errors.CompactionError as error:
        allowed, why = False, str(error)
    options = _options(lab, point.tokens_before, reserved, margin, price)
    context = lab.budget.build_context(repaired.path, options)
    first = context.kept_entry_ids[0] if context.kept_entry_ids else None
    return {
        **base,
        "on_active_path": True,
        "repaired_calls": len(repaired.added),
        "interactions_before": len(groups),
        "estimated_tokens_before": sum(price(entry["message"]) for group in groups for entry in group),
        "pi": {
            **base["pi"],
            "role": _kind(repaired.path[position]),
            "interaction": _interaction_of(groups, point.first_kept_entry_id),
            "starts_interaction": any(group[0]["id"] == point.first_kept_entry_id for group in groups),
            "allowed_by_lab4": allowed,
            "lab4_error": why,
            "kept_tokens": sum(price(entry["message"]) for entry in pi_kept),
        },
        "workbook": {
            "first_kept_entry_id": first,
            "first_kept_line": lines.get(first) if first else None,
            "interaction": _interaction_of(groups, first) if first else None,
            "reason": context.reason,
            "kept_tokens": context.tokens.messages,
        },
    }


def _kind(entry: dict[str, Any]) -> str:
    """``message/<role>`` for a message, ``custom/<customType>`` for a custom entry, else the type."""
    if entry["type"] == "message":
        return f"message/{entry['message']['role']}"
    if entry["type"] == "custom":
        return f"custom/{entry.get('customType')}"
    return entry["type"]


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right")
    return table


def render(report: dict[str, Any], console: Console) -> None:
    """Print ``inspect_session``'s report as rich tables on ``console``."""
    overview = _table(f"{report['file']} ({report['format']} session)", "what", "value")
    imported = report["import"]
    if report["format"] == "pi":
        overview.add_row("Pi format version", str(imported["version"]))
        overview.add_row("lines (header included)", f"{imported['lines']:,}")
        overview.add_row("ids", "generated (line-<n>)" if imported["generated_ids"] else "from the file")
    torn = imported["torn_tail"]
    overview.add_row("torn last line", "none" if torn is None else f"left out: {torn}")
    overview.add_row("entries on the active path", f"{report['entries']['total']:,}")
    overview.add_row("interactions", f"{report['interactions']['count']:,}")
    largest = report["interactions"]["largest"]
    if largest:
        overview.add_row(
            "largest interaction",
            f"#{largest['number']} from {largest['first_entry_id']}: "
            f"{largest['messages']} messages, {largest['tokens']:,} tokens",
        )
    overview.add_row(f"estimated message tokens ({report['tokens']['estimator']})", f"{report['tokens']['messages']:,}")
    console.print(overview)

    counts = _table("Entries by type and role", "entry", "count")
    entries = report["entries"]
    for kind, count in entries["by_type"].items():
        counts.add_row(kind, f"{count:,}")
        details = {"message": entries["by_role"], "custom": entries["custom_types"]}.get(kind, {})
        for name, part in details.items():
            counts.add_row(f"  {kind}/{name}", f"{part:,}")
    console.print(counts)

    if report["format"] == "pi":
        mappings = _table("Import mapping", "Pi entry", "workbook entry", "count")
        for mapping in imported["mappings"]:
            mappings.add_row(mapping["source"], mapping["target"], f"{mapping['count']:,}")
        console.print(mappings)

    if report["dangling_calls"]:
        dangling = _table(
            f"Dangling tool calls: {len(report['dangling_calls'])} (repaired for this analysis only)",
            "call id",
            "tool",
            "call entry",
            "interaction",
            "result placed after",
        )
        dangling.columns[0].overflow = "fold"
        for item in report["dangling_calls"]:
            dangling.add_row(
                item["call_id"],
                item["tool_name"],
                item["call_entry_id"],
                str(item["interaction"]),
                item["after_entry_id"],
            )
        console.print(dangling)
    else:
        console.print("Dangling tool calls: none")
    interrupted = report["interrupted_calls"]
    console.print(
        f"Tool results cut off from their call by a message: {len(interrupted) or 'none'}"
        + "".join(
            f"\n  {item['call_id']} ({item['call_entry_id']}): {item['between_entry_id']} stands "
            f"before its result {item['result_entry_id']}"
            for item in interrupted
        )
    )

    projection = report["projection"]
    ledger = projection["tokens"]
    kept = projection["kept_interactions"]
    budget = _table(f"Budget projection at a window of {projection['window']:,} tokens", "what", "value")
    budget.add_row("reason", projection["reason"])
    budget.add_row(
        "kept interactions",
        "none"
        if kept is None
        else f"#{kept['first']} to #{kept['last']} ({kept['count']} of {report['interactions']['count']})",
    )
    budget.add_row("first kept entry", str(projection["first_kept_entry_id"]))
    budget.add_row("kept messages", f"{projection['kept_messages']:,}")
    for name in ("available_for_messages", "messages", "total"):
        budget.add_row(f"tokens: {name}", f"{ledger[name]:,}")
    console.print(budget)

    if report["pi_compactions"]:
        console.print(_pi_cuts(report["pi_compactions"]))


def _pi_cuts(compactions: list[dict[str, Any]]) -> Table:
    """One column per Pi compaction: where Pi cut, and where the workbook cuts at its tokensBefore."""
    cuts = _table(
        "Pi's compactions: where Pi cut, and where the workbook's rules cut at the same tokensBefore",
        "",
        *(f"{item['entry_id']} (line {item['line']})" for item in compactions),
    )
    cuts.add_row("tokensBefore (Pi)", *(f"{item['tokens_before']:,}" for item in compactions))
    cuts.add_row(
        "Pi kept from",
        *(f"{item['pi']['first_kept_entry_id']} (line {item['pi']['first_kept_line']})" for item in compactions),
    )
    rows = {
        "  role, interaction": lambda item: f"{item['pi']['role']}, #{item['pi']['interaction']}",
        "  starts an interaction (lab 4 allows it)": lambda item: "yes" if item["pi"]["allowed_by_lab4"] else "no",
        "  raw messages kept, est. tokens": lambda item: f"{item['pi']['kept_tokens']:,}",
        "workbook kept from (window = tokensBefore)": lambda item: str(item["workbook"]["first_kept_entry_id"]),
        "  interaction, reason": lambda item: (
            f"#{item['workbook']['interaction']} of {item['interactions_before']}, {item['workbook']['reason']}"
        ),
        "  raw messages kept, est. tokens ": lambda item: f"{item['workbook']['kept_tokens']:,}",
        "all messages before it, est. tokens": lambda item: f"{item['estimated_tokens_before']:,}",
        "dangling calls repaired before it": lambda item: str(item["repaired_calls"]),
    }
    for label, cell in rows.items():
        cuts.add_row(
            label, *(cell(item) if item["on_active_path"] else "not on the active path" for item in compactions)
        )
    return cuts
