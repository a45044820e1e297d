"""Lab 1, record parsing: read one session entry field by field into a new, validated object.

The session is append-only: what the parser accepts is what the store keeps forever, so it
is strict. It reads the external object key by key and builds a new one, so the result shares
no reference with its input (a caller who later edits its own lists cannot reach the store).
Message and metadata entries are parsed here in full; the compaction branch is lab 1.

Wire format (camelCase keys, as on disk): every entry has ``type``, ``id`` (non-empty
string), ``parentId`` (string, or ``None`` for a root) and ``timestamp`` (finite number >= 0,
milliseconds). Errors are ``SessionEntryError`` naming the entry id and the field path.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .provided.errors import LabNotImplementedError, SessionEntryError

Entry = dict[str, Any]
"""A parsed session entry: a plain dict with the wire format's camelCase keys."""

SUMMARY_FIELDS: tuple[str, ...] = (
    "goal",
    "constraints",
    "completed",
    "decisions",
    "changedFiles",
    "unresolved",
    "next",
)
"""The seven summary fields, in the order a resumed context renders them. ``goal`` is a
non-empty string; the other six are lists of strings."""

COMPACTION_KEYS = frozenset({"type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"})
METADATA_TYPES: tuple[str, ...] = ("model_change", "thinking_level_change", "custom")
"""Entry types that change settings or record something the context never shows."""

MAX_NESTING = 32
"""Going further: the deepest nesting ``guard_entry`` accepts; the entry object is level 1."""
MAX_ITEMS = 16_384
"""Going further: the most items one object or array may hold."""
MAX_STRING = 65_536
"""Going further: the longest string (a value or an object key), in Unicode code points."""
MAX_UNITS = 1_000_000
"""Going further: the largest whole entry, in units (see ``guard_entry``)."""
SCALARS: tuple[type, ...] = (int, float, bool, type(None))
"""The plain types of a JSON number, true, false and null (exact types: a subclass is not plain)."""

_COMMON_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
_TEXT_BLOCK = "text"


def parse_session_entry(obj: Any, *, guarded: bool = False) -> Entry:
    """Parse one external session entry into a new dict that shares nothing with ``obj``.

    ``obj`` is a decoded JSON object. Dispatches on ``type``: ``message``, a metadata type
    (``model_change``, ``thinking_level_change``, ``custom``) or ``compaction`` (lab 1's
    ``parse_compaction_entry``). Raises ``SessionEntryError`` naming the entry id and the
    field path for a missing field, a wrong type, an unknown key or an unknown entry type, and,
    whatever the type, for text that can never be sent: a string (or object key) holding a lone
    surrogate such as ``"\\ud83d"`` (half an emoji cut off), which has no UTF-8 encoding, so no
    store could write it and no provider would accept it (``message.content[0].text``, ``summary.goal``, ...).
    With ``guarded=True`` (Going further), ``guard_entry(obj)`` refuses oversized or non-plain
    input first, before anything walks it.
    """
    if not isinstance(obj, dict):
        raise SessionEntryError(f"entry: expected a JSON object, got {type(obj).__name__}")
    if guarded:
        guard_entry(obj)
    kind = obj.get("type")
    if kind == "compaction":
        entry = parse_compaction_entry(obj)
    elif kind == "message":
        entry = _parse_message_entry(obj)
    elif kind in METADATA_TYPES:
        entry = _parse_metadata_entry(obj)
    else:
        raise SessionEntryError(f"{_name(obj)}: type: unknown entry type {kind!r}")
    _check_encodable(entry, _name(obj))
    return entry


def parse_compaction_entry(obj: dict[str, Any]) -> Entry:
    """Lab 1: parse a compaction entry strictly and return a new dict.

    Keys, exactly: ``type`` ("compaction"), ``id``, ``parentId`` (non-empty string: a
    compaction is never a root), ``timestamp``, ``summary`` (an object with exactly the seven
    ``SUMMARY_FIELDS``), ``firstKeptEntryId`` (non-empty string) and ``tokensBefore`` (finite
    number >= 0, never a bool; checked, never recomputed). A missing key, an extra or legacy
    key (``summary.files``, ``firstKeptEntryIndex``), a wrong type, NaN, infinity or a
    negative number raise ``SessionEntryError`` naming the entry id and the field path.
    """
    # Step 1: check the key set first, so a legacy key is never silently dropped.
    # Step 2: read every field through a checker that returns a fresh value.
    # Step 3: build the new entry from the checked values only.
    raise LabNotImplementedError(1, "parse_compaction_entry")


def guard_entry(obj: dict[str, Any]) -> None:
    """Going further: refuse an entry that an attacker or a broken writer could send, in bounded time and memory.

    ``obj`` is one decoded entry. Every value in it is visited once, without recursion (an explicit
    stack of open objects and arrays, one per level, so memory grows with the nesting only), and the
    walk stops at the first value over a limit:

    - nesting: the entry object is level 1 and each object or array inside adds a level; an object or
      array deeper than ``MAX_NESTING`` (32) is refused;
    - an object or array holding more than ``MAX_ITEMS`` (16,384) items;
    - a string, value or object key, longer than ``MAX_STRING`` (65,536) Unicode code points;
    - a whole entry over ``MAX_UNITS`` (1,000,000) units: every value (object, array, string, number,
      true, false, null) is 1 unit, and every code point of a string or of an object key 1 more;
    - anything that is not plain JSON data: only ``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
      ``float``, ``bool`` and ``None`` are, by exact type (a tuple, a set or a ``dict`` subclass is not).

    Lengths are read, never computed by walking a string, so a 10^8-character string or a list nested
    10^6 deep is refused at once. Raises ``SessionEntryError`` naming the entry (its type and id) and the
    field path of the value at fault (``data[0][0]``, ``message.content[0].text``; ``(the entry)`` for the
    entry object itself). Returns ``None`` and changes nothing when the entry is within every limit.
    """
    where = _name(obj) if type(obj) is dict else "entry"
    # Step 1: a stack of the open containers, each an iterator over its members; the entry itself is level 1.
    # Step 2: each value met is plain data within its own limit; a container opens the next level.
    # Step 3: the whole entry's units are counted as the walk goes, and checked at every value.
    raise LabNotImplementedError(1, "guard_entry")


def _name(obj: dict[str, Any]) -> str:
    """How an error names an entry: its type and id, or ``<no id>`` when the id is unusable."""
    entry_id = obj.get("id")
    shown = repr(entry_id) if isinstance(entry_id, str) and entry_id else "<no id>"
    return f"{obj.get('type', 'entry')} {shown}"


def _check_keys(obj: dict[str, Any], allowed: frozenset[str], where: str, prefix: str = "") -> None:
    """Raise naming the first missing key, then the first unknown (extra or legacy) key."""
    missing = sorted(allowed - obj.keys())
    if missing:
        raise SessionEntryError(f"{where}: {prefix}{missing[0]}: missing")
    extra = sorted(obj.keys() - allowed, key=str)
    if extra:
        raise SessionEntryError(f"{where}: {prefix}{extra[0]}: unknown or legacy key")


def _string(obj: dict[str, Any], key: str, where: str, prefix: str = "") -> str:
    """Return ``obj[key]`` if it is a non-empty string."""
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise SessionEntryError(f"{where}: {prefix}{key}: expected a non-empty string, got {value!r}")
    return value


def _string_list(obj: dict[str, Any], key: str, where: str, prefix: str = "") -> list[str]:
    """Return a new list copied from ``obj[key]`` if it is a list of strings."""
    value = obj.get(key)
    if not isinstance(value, list):
        raise SessionEntryError(f"{where}: {prefix}{key}: expected a list of strings, got {value!r}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise SessionEntryError(f"{where}: {prefix}{key}[{index}]: expected a string, got {item!r}")
    return list(value)


def _number(obj: dict[str, Any], key: str, where: str, prefix: str = "") -> int | float:
    """Return ``obj[key]`` if it is a finite int or float >= 0 (a bool is not a number)."""
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SessionEntryError(f"{where}: {prefix}{key}: expected a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise SessionEntryError(f"{where}: {prefix}{key}: expected a finite number >= 0, got {value!r}")
    return value


def _common_fields(obj: dict[str, Any], where: str, *, root_allowed: bool) -> Entry:
    """Check ``type``, ``id``, ``parentId`` and ``timestamp`` and return them in a new dict."""
    if "parentId" not in obj:
        raise SessionEntryError(f"{where}: parentId: missing")
    is_root = obj["parentId"] is None and root_allowed
    return {
        "type": obj["type"],
        "id": _string(obj, "id", where),
        "parentId": None if is_root else _string(obj, "parentId", where),
        "timestamp": _number(obj, "timestamp", where),
    }


def _json_copy(value: Any, where: str, path: str) -> Any:
    """Deep-copy a JSON value, rejecting anything JSON cannot hold (NaN, sets, objects...)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SessionEntryError(f"{where}: {path}: expected a finite number, got {value!r}")
        return value
    if isinstance(value, list):
        return [_json_copy(item, where, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        copied = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise SessionEntryError(f"{where}: {path}: object key {key!r} is not a string")
            copied[key] = _json_copy(item, where, f"{path}.{key}")
        return copied
    raise SessionEntryError(f"{where}: {path}: {type(value).__name__} is not a JSON value")


def _check_encodable(value: Any, where: str, path: str = "") -> None:
    """Raise naming the field path of the first string or key that has no UTF-8 encoding (a lone surrogate)."""
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as error:
                raise SessionEntryError(
                    f"{where}: {path}: lone surrogate {value[error.start]!r} at index {error.start}: "
                    "the text has no UTF-8 encoding and can never be sent"
                ) from None
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_encodable(item, where, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            _check_encodable(key, where, f"{here} (its key)")
            _check_encodable(item, where, here)


def _parse_metadata_entry(obj: dict[str, Any]) -> Entry:
    """Metadata entries keep their own fields as deep JSON copies after the common checks."""
    where = _name(obj)
    entry = _common_fields(obj, where, root_allowed=True)
    for key, value in obj.items():
        if key not in _COMMON_KEYS:
            entry[key] = _json_copy(value, where, key)
    return entry


def _parse_message_entry(obj: dict[str, Any]) -> Entry:
    where = _name(obj)
    _check_keys(obj, _COMMON_KEYS | {"message"}, where)
    entry = _common_fields(obj, where, root_allowed=True)
    message = obj["message"]
    if not isinstance(message, dict):
        raise SessionEntryError(f"{where}: message: expected an object")
    role = message.get("role")
    checks = {"user": _check_user, "assistant": _check_assistant, "toolResult": _check_tool_result}
    if role not in checks:
        raise SessionEntryError(f"{where}: message.role: unknown role {role!r}")
    copied = _json_copy(message, where, "message")
    checks[role](copied, where)
    entry["message"] = copied
    return entry


def _check_blocks(blocks: Any, allowed: dict[str, tuple[str, ...]], where: str, path: str) -> None:
    """Each block is an object whose ``type`` is allowed and whose required keys are strings."""
    if not isinstance(blocks, list):
        raise SessionEntryError(f"{where}: {path}: expected a list of content blocks")
    for index, block in enumerate(blocks):
        here = f"{path}[{index}]"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in allowed:
            raise SessionEntryError(f"{where}: {here}.type: expected one of {sorted(allowed)}, got {kind!r}")
        for key in allowed[kind]:
            if not isinstance(block.get(key), str):
                raise SessionEntryError(f"{where}: {here}.{key}: expected a string")


def _check_user(message: dict[str, Any], where: str) -> None:
    if not isinstance(message.get("content"), str):
        _check_blocks(
            message.get("content"), {"text": ("text",), "image": ("data", "mimeType")}, where, "message.content"
        )


def _check_assistant(message: dict[str, Any], where: str) -> None:
    blocks = message.get("content")
    _check_blocks(
        blocks, {"text": ("text",), "thinking": ("thinking",), "toolCall": ("id", "name")}, where, "message.content"
    )
    for index, block in enumerate(blocks):
        if block["type"] == "toolCall":
            if not block["id"]:
                raise SessionEntryError(f"{where}: message.content[{index}].id: expected a non-empty string")
            if not isinstance(block.get("arguments"), dict):
                raise SessionEntryError(f"{where}: message.content[{index}].arguments: expected an object")


def _check_tool_result(message: dict[str, Any], where: str) -> None:
    for key in ("toolCallId", "toolName"):
        if not isinstance(message.get(key), str) or not message[key]:
            raise SessionEntryError(f"{where}: message.{key}: expected a non-empty string")
    if not isinstance(message.get("isError"), bool):
        raise SessionEntryError(f"{where}: message.isError: expected a bool")
    _check_blocks(message.get("content"), {"text": ("text",), "image": ("data", "mimeType")}, where, "message.content")
