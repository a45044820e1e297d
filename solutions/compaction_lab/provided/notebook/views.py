"""HTML views of entries, interactions, contexts and red/green status boxes for the notebooks.

Pure functions that return HTML strings (``IPython.display.HTML`` shows them); nothing here
calls a lab. Texts are escaped; token columns use the example estimator unless told otherwise.
``source_of`` shows a lab function's source as its file is saved (for "Your implementation").
"""

from __future__ import annotations

import ast
import html
import inspect
import sys
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import LabNotImplementedError
from ..example import estimate_example_tokens
from ..messages import say

GREEN, RED, GREY = "#1a7f37", "#cf222e", "#6e7781"
GROUP_COLOURS = ("#ddf4ff", "#fff8c5", "#ffebe9", "#dafbe1", "#fbefff", "#eaeef2")
"""Background colours of successive interactions (they repeat after six)."""


def status_box(green: bool, title: str, detail: str = "", items: Iterable[str] = (), footer: str = "") -> str:
    """A green or red box with a bold title, an optional plain-text detail, a checklist (``items``, one
    plain-text line each, shown as they are) and a footer line in grey."""
    colour = GREEN if green else RED
    body = f"<div style='white-space:pre-wrap'>{html.escape(detail)}</div>" if detail else ""
    listed = "".join(f"<div>{html.escape(item)}</div>" for item in items)
    if listed:
        body += f"<div style='white-space:pre-wrap;font-family:monospace;margin-top:4px'>{listed}</div>"
    if footer:
        body += f"<div style='color:{GREY};margin-top:4px'>{html.escape(footer)}</div>"
    return (
        f"<div style='border-left:6px solid {colour};padding:6px 10px;margin:4px 0'>"
        f"<b style='color:{colour}'>{html.escape(title)}</b>{body}</div>"
    )


def error_box(error: BaseException, title: str = "") -> str:
    """A red box for an exception: the lab's own message for ``LabNotImplementedError``, else the
    error type and message with its traceback folded underneath."""
    if isinstance(error, LabNotImplementedError):
        return status_box(False, title or say("not_implemented_title"), str(error))
    trace = "".join(traceback.format_exception(error))
    return status_box(False, title or f"{type(error).__name__}", str(error)) + (
        f"<details><summary>traceback</summary><pre>{html.escape(trace)}</pre></details>"
    )


def entry_text(entry: dict[str, Any]) -> str:
    """One line saying what an entry holds: its text, tool calls ``name(args) [id]``, a result's
    ``[call id]``, a compaction's goal and first kept entry, or a metadata entry's type."""
    if entry.get("type") == "compaction":
        return f"summary: {entry['summary']['goal']} (first kept: {entry['firstKeptEntryId']})"
    if entry.get("type") != "message":
        return f"({entry.get('type')})"
    return message_text(entry["message"])


def message_text(message: dict[str, Any]) -> str:
    """One line for a message: its texts, tool calls and, for a result, the call id it answers."""
    content = message.get("content", [])
    parts = [content] if isinstance(content, str) else [_block_text(block) for block in content]
    if message.get("role") == "toolResult":
        parts.insert(0, f"[{message['toolCallId']}]")
    return " ".join(parts)


def _block_text(block: dict[str, Any]) -> str:
    if block.get("type") == "toolCall":
        arguments = ", ".join(f"{key}={value}" for key, value in block.get("arguments", {}).items())
        return f"→ {block['name']}({arguments}) [{block['id']}]"
    return str(block.get("text", block.get("thinking", f"<{block.get('type')}>")))


def entry_role(entry: dict[str, Any]) -> str:
    """The message role of a message entry, else the entry's type."""
    return entry["message"]["role"] if entry.get("type") == "message" else str(entry.get("type"))


def entries_table(
    entries: Iterable[dict[str, Any]],
    *,
    colours: dict[str, str] | None = None,
    notes: dict[str, str] | None = None,
    estimate: Callable[[Any], float] = estimate_example_tokens,
) -> str:
    """A table of entries: id, role, text, tokens (messages only), and a note column if ``notes``.

    ``colours`` maps entry ids to a row background; ``notes`` maps entry ids to a short note.
    """
    head = ["entry id", "role", "text", "tokens"] + (["note"] if notes is not None else [])
    rows = []
    for entry in entries:
        tokens = estimate(entry["message"]) if entry.get("type") == "message" else ""
        cells = [entry["id"], entry_role(entry), entry_text(entry), tokens]
        if notes is not None:
            cells.append(notes.get(entry["id"], ""))
        style = f" style='background-color:{colours[entry['id']]}'" if colours and entry["id"] in colours else ""
        rows.append(
            f"<tr{style}>"
            + "".join(f"<td style='text-align:left'>{html.escape(str(cell))}</td>" for cell in cells)
            + "</tr>"
        )
    header = "".join(f"<th style='text-align:left'>{name}</th>" for name in head)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def groups_table(groups: list[list[dict[str, Any]]]) -> str:
    """The interactions as one table, each in its own colour, each call and result marked by call id."""
    colours, notes = {}, {}
    for number, group in enumerate(groups, start=1):
        for entry in group:
            colours[entry["id"]] = GROUP_COLOURS[(number - 1) % len(GROUP_COLOURS)]
            notes[entry["id"]] = f"interaction {number}" + _pair_note(entry)
    return entries_table([entry for group in groups for entry in group], colours=colours, notes=notes)


def rounds_table(
    interactions: list[list[dict[str, Any]]],
    rounds: list[list[dict[str, Any]]],
    *,
    marks: dict[str, str] | None = None,
    faded: Iterable[str] = (),
) -> str:
    """The tool rounds as one table, each in its own colour, each entry noted with its interaction and round
    (lab 2's groups and lab 4's rounds of the same messages); ``marks`` adds a note to some entry ids and the
    rows of ``faded`` ids are grey."""
    interaction_of = {entry["id"]: number for number, group in enumerate(interactions, start=1) for entry in group}
    colours, notes = {}, {}
    for number, group in enumerate(rounds, start=1):
        for entry in group:
            colours[entry["id"]] = GROUP_COLOURS[(number - 1) % len(GROUP_COLOURS)]
            notes[entry["id"]] = f"interaction {interaction_of.get(entry['id'], '?')}, round {number}" + _pair_note(
                entry
            )
    for entry_id, mark in (marks or {}).items():
        notes[entry_id] = f"{notes.get(entry_id, '')}; {mark}".lstrip("; ")
    for entry_id in faded:
        colours[entry_id] = "#eaeef2"
    return entries_table([entry for group in rounds for entry in group], colours=colours, notes=notes)


def _pair_note(entry: dict[str, Any]) -> str:
    message = entry["message"]
    if message["role"] == "toolResult":
        return f"; result of {message['toolCallId']}"
    calls = [
        block["id"]
        for block in message.get("content", [])
        if isinstance(block, dict) and block.get("type") == "toolCall"
    ]
    return f"; calls {', '.join(calls)}" if calls else ""


def ledger_table(tokens: Any) -> str:
    """The token ledger of a context (a ``TokenLedger``) as a two-column table."""
    rows = [
        ("max_tokens (the window)", tokens.max_tokens),
        ("system prompt", tokens.system),
        ("reserved output", tokens.reserved_output),
        ("safety margin", tokens.safety_margin),
        ("available for messages", tokens.available_for_messages),
        ("messages", tokens.messages),
        ("total", tokens.total),
    ]
    body = "".join(f"<tr><td style='text-align:left'>{name}</td><td>{value}</td></tr>" for name, value in rows)
    return f"<table><tbody>{body}</tbody></table>"


def context_view(context: Any, estimate: Callable[[Any], float] = estimate_example_tokens) -> str:
    """What the model sees: reason, compaction used, each message with its tokens, then the ledger."""
    ids = ["(summary)"] * (len(context.messages) - len(context.kept_entry_ids)) + list(context.kept_entry_ids)
    rows = "".join(
        f"<tr><td style='text-align:left'>{html.escape(entry_id)}</td>"
        f"<td style='text-align:left'>{html.escape(message['role'])}</td>"
        f"<td style='text-align:left;white-space:pre-wrap'>{html.escape(message_text(message))}</td>"
        f"<td>{estimate(message)}</td></tr>"
        for entry_id, message in zip(ids, context.messages, strict=True)
    )
    used = f"; compaction used: {context.compaction_id}" if context.compaction_id else ""
    return (
        f"<p><b>reason:</b> {html.escape(context.reason)}{html.escape(used)}</p>"
        "<table><thead><tr><th>entry id</th><th>role</th><th>text</th><th>tokens</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>{ledger_table(context.tokens)}"
    )


def source_of(function: Callable[..., Any]) -> str:
    """The source of ``function`` as its module's file holds it now (read from disk and parsed, never
    taken from the loaded code, which may be older), followed by every function of that file it calls,
    directly or through another such helper, in file order. A file that does not compile is shown whole
    after a comment naming the line; a function the file no longer defines is a one-line comment."""
    path = Path(inspect.getfile(sys.modules[function.__module__]))
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as error:
        return f"# {path.name} does not compile: line {error.lineno}: {error.msg}\n{text}"
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function.__name__ not in functions:
        return f"# {function.__name__} is not defined in {path.name} as saved"
    wanted, todo = set(), [function.__name__]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo += [
            node.func.id
            for node in ast.walk(functions[name])
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions
        ]
    lines = text.splitlines()
    chosen = [functions[function.__name__]] + [
        node for name, node in functions.items() if name in wanted and name != function.__name__
    ]
    return "\n\n".join(
        "\n".join(lines[min([node.lineno, *(item.lineno for item in node.decorator_list)]) - 1 : node.end_lineno])
        for node in chosen
    )
