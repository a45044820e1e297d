"""Import a session log of the Pi coding agent (format versions 1, 2 and 3) as workbook entries.

A Pi session file is JSONL: line 1 is a header ``{"type": "session", "version"?, "id",
"timestamp", "cwd", ...}`` (version 1 files have no ``version``), every further line an entry.
Version 1 entries have no ids (the log is one linear chain in file order); versions 2 and 3 add
``id`` and ``parentId`` (a tree: the active path ends at the last entry). Entry timestamps are
ISO-8601 strings; a message's own ``timestamp`` is already Unix milliseconds.

What becomes what (``PiImportReport.mappings`` counts each):

- ``message`` entries with role ``user``, ``assistant`` or ``toolResult`` become workbook
  message entries unchanged apart from the entry timestamp (ISO -> milliseconds).
- ``model_change``, ``thinking_level_change`` and ``custom`` entries keep their type and fields.
- Everything the workbook does not model becomes a ``custom`` metadata entry, so nothing is
  dropped silently and the parent chain stays whole: a message with another role
  (``bashExecution``, ``custom``/``hookMessage``, ``branchSummary``, ...) gets
  ``customType = "pi-import:message:<role>"`` and the message as ``data``; any other entry type
  (``branch_summary``, ``custom_message``, ``label``, ``session_info``, unknown ones) gets
  ``customType = "pi-import:<type>"`` and its own fields as ``data``.
- Pi's ``compaction`` entries (markdown summary, ``firstKeptEntryIndex`` in version 1, else
  ``firstKeptEntryId``, and ``tokensBefore``) become ``custom`` entries with ``customType =
  "pi-import:compaction"`` and are listed in ``PiSession.compactions`` as reference points (where
  Pi cut); they are not turned into workbook compactions (their summary has no seven fields) unless
  asked: ``with_workbook_compactions`` does it, for labs that resume from where Pi cut.

Every entry is then run through ``parse_session_entry``. Version 1 entries get the deterministic
ids ``line-<n>`` (``n`` = their 1-based line number in the file) and a linear parent chain. A
version 1 ``firstKeptEntryIndex`` counts the header as index 0 (as Pi's own v1 -> v2 migration
reads it), so it names the entry on line ``index + 1``.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..records import Entry, parse_session_entry
from .errors import SessionEntryError, SessionStoreError
from .stores import path_to

SUPPORTED_VERSIONS: tuple[int, ...] = (1, 2, 3)
MODELLED_ROLES: tuple[str, ...] = ("user", "assistant", "toolResult")
KEPT_TYPES: tuple[str, ...] = ("model_change", "thinking_level_change", "custom")
CUSTOM_PREFIX = "pi-import:"
"""``customType`` prefix of the ``custom`` entries the importer makes for what it does not model."""

SHARED_SESSIONS = Path("shared") / "fixtures" / "pi-sessions"
"""Where the course's real Pi sessions are, relative to a folder at or above a notebook."""
PI_SUMMARY_GOAL = "Continue the work recorded in this session; Pi's own summary of it is under Completed."
"""The goal of the seven-field summary ``with_workbook_compactions`` gives each of Pi's compactions."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TREE_KEYS = ("id", "parentId")


class PiImportError(SessionStoreError):
    """A Pi session file cannot be imported; the message names the file and the line number."""


@dataclass(frozen=True)
class TornTail:
    """A last line without its newline: not an entry (Pi had not finished writing it).

    ``line`` is its 1-based line number, ``offset`` the byte offset where it starts and
    ``size`` its length in bytes.
    """

    line: int
    offset: int
    size: int


@dataclass(frozen=True)
class Mapping:
    """How ``count`` source entries were imported: ``source`` is the Pi entry type (and role,
    ``message/<role>``), ``target`` the workbook entry type (and ``customType`` for custom)."""

    source: str
    target: str
    count: int


@dataclass(frozen=True)
class PiCompaction:
    """One of Pi's own compactions, as a reference point (never a workbook compaction).

    ``entry_id``/``line``: the imported ``custom`` entry and its line. ``first_kept_entry_id``/
    ``first_kept_line``: where Pi cut (the first entry it kept). ``first_kept_entry_index``: the
    legacy ``firstKeptEntryIndex`` as recorded (version 1; ``None`` when the file gave an id).
    ``tokens_before``: Pi's context size in tokens when it compacted. ``summary``: Pi's markdown.
    """

    entry_id: str
    line: int
    first_kept_entry_id: str
    first_kept_line: int
    first_kept_entry_index: int | None
    tokens_before: float
    summary: str


@dataclass(frozen=True)
class PiImportReport:
    """What the import did: the format ``version``, committed ``lines`` (header included), the
    number of ``entries`` imported, the ``mappings`` (in order of first appearance), whether ids
    were ``generated`` (version 1) and the ``torn_tail`` left out (or ``None``)."""

    version: int
    lines: int
    entries: int
    mappings: tuple[Mapping, ...]
    generated_ids: bool
    torn_tail: TornTail | None

    def count(self, source: str) -> int:
        """How many entries of ``source`` (e.g. ``"message/user"``, ``"compaction"``) were imported."""
        return sum(mapping.count for mapping in self.mappings if mapping.source == source)


@dataclass(frozen=True)
class PiSession:
    """An imported Pi session: ``header`` (the session info line, a new dict), ``entries``
    (parsed workbook entries in file order), ``compactions`` (Pi's reference points) and the
    ``report``. ``path`` is the file it was read from."""

    path: Path
    header: dict[str, Any]
    entries: list[Entry]
    compactions: list[PiCompaction]
    report: PiImportReport

    @property
    def version(self) -> int:
        """The Pi session format version (1, 2 or 3)."""
        return self.report.version

    def active_path(self) -> list[Entry]:
        """The active path (copies, root first): from the root to the last entry of the file,
        which is where Pi resumes. Version 1 logs are one chain, so it is every entry."""
        if not self.entries:
            return []
        return path_to(self.entries, self.entries[-1]["id"])

    def line_of(self, entry_id: str) -> int:
        """The 1-based file line of entry ``entry_id`` (the header is line 1, so entry ``i`` of
        ``entries`` is on line ``i + 2``); ``KeyError`` naming the id if it is not imported."""
        for index, entry in enumerate(self.entries):
            if entry["id"] == entry_id:
                return index + 2
        raise KeyError(f"no entry {entry_id!r} in {self.path}")


def load_pi_session(path: str | os.PathLike[str]) -> PiSession:
    """Read the Pi session file at ``path`` into a ``PiSession``; the file is never changed.

    Raises ``PiImportError`` naming the file and line number for: a line that is not a JSON
    object (a malformed line is never skipped), a first line that is not a ``session`` header,
    an unsupported ``version``, a missing or bad id, a duplicate id or unknown ``parentId``, a
    timestamp that is not ISO-8601 with a time zone (or milliseconds), a compaction whose first
    kept entry is not an earlier entry, and any entry ``parse_session_entry`` rejects (the
    message then also names the entry id and field path). A last line without its newline is
    reported as ``report.torn_tail`` and left out.
    """
    file = Path(path)
    data = file.read_bytes()
    committed_end = data.rfind(b"\n") + 1
    lines = data[:committed_end].split(b"\n")[:-1]
    torn = None
    if committed_end < len(data):
        torn = TornTail(line=len(lines) + 1, offset=committed_end, size=len(data) - committed_end)
    if not lines:
        raise PiImportError(f"{file}: line 1: no session header (the file has no complete line)")
    importer = _Importer(file, _decode(file, 1, lines[0]))
    for number, raw in enumerate(lines[1:], start=2):
        importer.add(number, _decode(file, number, raw))
    return importer.session(len(lines), torn)


def find_pi_session(name: str, start: Path | None = None) -> Path | None:
    """The real Pi session file ``name``: from the folder ``$WORKBOOK_PI_SESSIONS`` when it is set, else from
    ``shared/fixtures/pi-sessions`` in ``start`` (default: the current folder) or a folder above it; ``None``
    when it is not there (a notebook cell then says so and skips)."""
    if os.environ.get("WORKBOOK_PI_SESSIONS"):
        folders = [Path(os.environ["WORKBOOK_PI_SESSIONS"])]
    else:
        here = (start or Path.cwd()).resolve()
        folders = [folder / SHARED_SESSIONS for folder in (here, *here.parents)]
    return next((folder / name for folder in folders if (folder / name).is_file()), None)


def with_workbook_compactions(path: list[Entry], compactions: list[PiCompaction]) -> list[Entry]:
    """``path`` (a Pi session's active path, repaired or not) with each of Pi's ``compactions`` in its place
    as a workbook compaction entry: the imported entry's id, parent and timestamp, Pi's first kept entry
    and ``tokensBefore``, and a seven-field summary whose goal is ``PI_SUMMARY_GOAL`` and whose
    ``completed`` holds Pi's markdown summary. Lab 5 then resumes from where Pi cut, without lab 4. The
    other entries are ``path``'s own; ``path`` is not changed."""
    by_id = {compaction.entry_id: compaction for compaction in compactions}
    return [
        entry
        if entry["id"] not in by_id
        else {
            "type": "compaction",
            "id": entry["id"],
            "parentId": entry["parentId"],
            "timestamp": entry["timestamp"],
            "summary": {
                "goal": PI_SUMMARY_GOAL,
                "constraints": [],
                "completed": [by_id[entry["id"]].summary],
                "decisions": [],
                "changedFiles": [],
                "unresolved": [],
                "next": [],
            },
            "firstKeptEntryId": by_id[entry["id"]].first_kept_entry_id,
            "tokensBefore": by_id[entry["id"]].tokens_before,
        }
        for entry in path
    ]


def _decode(file: Path, number: int, raw: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(raw)
    except ValueError as error:  # includes UnicodeDecodeError
        raise PiImportError(f"{file}: line {number}: not valid JSON: {error}") from error
    if not isinstance(obj, dict):
        raise PiImportError(f"{file}: line {number}: expected a JSON object, got {type(obj).__name__}")
    return obj


class _Importer:
    """Maps one decoded line after another; keeps the ids seen so far, by line."""

    def __init__(self, file: Path, header: dict[str, Any]) -> None:
        self.file = file
        if header.get("type") != "session" or not isinstance(header.get("id"), str):
            raise PiImportError(f"{file}: line 1: expected a session header with type 'session' and a string id")
        self.version = header.get("version", 1)
        if self.version not in SUPPORTED_VERSIONS or isinstance(self.version, bool):
            raise PiImportError(
                f"{file}: line 1: unsupported Pi session version {self.version!r} "
                f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})"
            )
        self.header = header
        self.entries: list[Entry] = []
        self.compactions: list[PiCompaction] = []
        self.mappings: Counter[tuple[str, str]] = Counter()
        self.id_by_line: dict[int, str] = {}
        self.line_by_id: dict[str, int] = {}

    def fail(self, number: int, problem: str) -> PiImportError:
        return PiImportError(f"{self.file}: line {number}: {problem}")

    def add(self, number: int, obj: dict[str, Any]) -> None:
        entry_id, parent_id = self.tree_fields(number, obj)
        common = {"id": entry_id, "parentId": parent_id, "timestamp": self.timestamp(number, obj)}
        rest = {key: value for key, value in obj.items() if key not in ("type", "timestamp", *_TREE_KEYS)}
        mapped, source, target = self.map(number, obj.get("type"), common, rest)
        try:
            entry = parse_session_entry(mapped)
        except SessionEntryError as error:
            raise self.fail(number, str(error)) from error
        self.mappings[(source, target)] += 1
        self.entries.append(entry)
        self.id_by_line[number] = entry_id
        self.line_by_id[entry_id] = number

    def tree_fields(self, number: int, obj: dict[str, Any]) -> tuple[str, str | None]:
        """Version 1: ``line-<n>`` and the previous entry; else the file's own, checked."""
        if self.version == 1:
            present = [key for key in _TREE_KEYS if key in obj]
            if present:
                raise self.fail(number, f"a version 1 entry has no {present[0]!r} (the header says version 1)")
            return f"line-{number}", self.entries[-1]["id"] if self.entries else None
        entry_id, parent_id = obj.get("id"), obj.get("parentId")
        if not isinstance(entry_id, str) or not entry_id:
            raise self.fail(number, f"id: expected a non-empty string, got {entry_id!r}")
        if "parentId" not in obj:
            raise self.fail(number, f"entry {entry_id!r}: parentId: missing")
        if entry_id in self.line_by_id:
            raise self.fail(number, f"entry {entry_id!r}: id already used on line {self.line_by_id[entry_id]}")
        if parent_id is not None and parent_id not in self.line_by_id:
            raise self.fail(number, f"entry {entry_id!r}: parentId {parent_id!r} is not an earlier entry")
        return entry_id, parent_id

    def timestamp(self, number: int, obj: dict[str, Any]) -> int | float:
        """An ISO-8601 string with a time zone becomes whole milliseconds; a number is kept."""
        value = obj.get("timestamp")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            return value
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise self.fail(number, f"timestamp: expected ISO-8601 with a time zone or milliseconds, got {value!r}")
        return (moment - _EPOCH) // timedelta(milliseconds=1)

    def map(
        self, number: int, kind: Any, common: dict[str, Any], rest: dict[str, Any]
    ) -> tuple[dict[str, Any], str, str]:
        """Return the workbook object, the source label and the target label of one entry."""
        if not isinstance(kind, str) or not kind:
            raise self.fail(number, f"type: expected a non-empty string, got {kind!r}")
        if kind == "message":
            message = rest.get("message")
            role = message.get("role") if isinstance(message, dict) else None
            if not isinstance(role, str) or not role:
                raise self.fail(number, f"entry {common['id']!r}: message.role: expected a non-empty string")
            if role in MODELLED_ROLES:
                return {"type": "message", **common, **rest}, f"message/{role}", f"message/{role}"
            custom_type = f"message:{role}"
            return self.custom(common, custom_type, message), f"message/{role}", f"custom/{CUSTOM_PREFIX}{custom_type}"
        if kind in KEPT_TYPES:
            return {"type": kind, **common, **rest}, kind, kind
        if kind == "compaction":
            self.compactions.append(self.reference_point(number, common["id"], rest))
        return self.custom(common, kind, rest), kind, f"custom/{CUSTOM_PREFIX}{kind}"

    @staticmethod
    def custom(common: dict[str, Any], what: str, data: Any) -> dict[str, Any]:
        return {"type": "custom", **common, "customType": f"{CUSTOM_PREFIX}{what}", "data": data}

    def reference_point(self, number: int, entry_id: str, fields: dict[str, Any]) -> PiCompaction:
        """Where Pi cut: ``firstKeptEntryId``, or the legacy ``firstKeptEntryIndex`` (header = 0)."""
        index = None
        if "firstKeptEntryId" in fields:
            recorded = kept_id = fields["firstKeptEntryId"]
            kept_line = self.line_by_id.get(kept_id) if isinstance(kept_id, str) else None
        elif isinstance(fields.get("firstKeptEntryIndex"), int) and not isinstance(fields["firstKeptEntryIndex"], bool):
            recorded = index = fields["firstKeptEntryIndex"]
            kept_line = index + 1
            kept_id = self.id_by_line.get(kept_line)
        else:
            raise self.fail(number, "compaction: expected firstKeptEntryId or an integer firstKeptEntryIndex")
        if kept_line is None or kept_id is None:
            raise self.fail(number, f"compaction: first kept entry {recorded!r} is not an earlier entry")
        tokens, summary = fields.get("tokensBefore"), fields.get("summary")
        if isinstance(tokens, bool) or not isinstance(tokens, (int, float)) or not math.isfinite(tokens) or tokens < 0:
            raise self.fail(number, f"compaction: tokensBefore: expected a finite number >= 0, got {tokens!r}")
        if not isinstance(summary, str):
            raise self.fail(number, f"compaction: summary: expected a markdown string, got {type(summary).__name__}")
        return PiCompaction(
            entry_id=entry_id,
            line=number,
            first_kept_entry_id=kept_id,
            first_kept_line=kept_line,
            first_kept_entry_index=index,
            tokens_before=tokens,
            summary=summary,
        )

    def session(self, lines: int, torn: TornTail | None) -> PiSession:
        report = PiImportReport(
            version=self.version,
            lines=lines,
            entries=len(self.entries),
            mappings=tuple(Mapping(source, target, count) for (source, target), count in self.mappings.items()),
            generated_ids=self.version == 1,
            torn_tail=torn,
        )
        return PiSession(self.file, self.header, self.entries, self.compactions, report)
