"""The two session stores and ``path_to``: append-only history, parsed through lab 1's parser.

A session is a tree of entries linked by ``parentId``; the active path is the branch from the
root to the current leaf. Stores only append: no entry is ever changed or removed. Both
stores parse every entry with ``parse_session_entry``, so they hold their own copies, and
hand out copies, so no caller can change what they hold.

An entry may be appended *sealed*: with a ``checksum`` key beside its fields (``entry_checksum``). The
checksum is the store's, not the entry's: it is checked against the parsed entry and then left out of
what the store hands out, and the JSONL store writes it on the entry's line and checks it again on reopen.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from ..records import Entry, parse_session_entry
from .errors import SessionStoreError

try:
    import fcntl
except ImportError:  # Windows: no flock; see JsonlSessionStore
    fcntl = None


CHECKSUM_KEY = "checksum"
"""The key of a sealed entry's checksum."""


def entry_checksum(entry: Entry) -> str:
    """The SHA-256 (hex) of ``entry``'s canonical JSON: keys sorted, no spaces, UTF-8 (non-ASCII as is)."""
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _unsealed(obj: Any) -> tuple[Any, str | None]:
    """``obj`` without its checksum, and the checksum (None when ``obj`` is not sealed)."""
    if isinstance(obj, dict) and CHECKSUM_KEY in obj:
        return {key: value for key, value in obj.items() if key != CHECKSUM_KEY}, obj[CHECKSUM_KEY]
    return obj, None


class InMemorySessionStore:
    """An append-only session held in memory, in append order.

    ``append`` raises ``SessionEntryError`` for a malformed entry and ``SessionStoreError``
    naming the id for a duplicate id or an unknown parent; nothing is stored on an error.
    """

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def append(self, obj: dict[str, Any]) -> Entry:
        """Parse, check and store ``obj``; return a copy of the stored entry."""
        entry = self.prepare(obj)
        self._entries[entry["id"]] = entry
        return copy.deepcopy(entry)

    def prepare(self, obj: dict[str, Any]) -> Entry:
        """Parse ``obj`` and check it against the store without storing it; a sealed ``obj``'s checksum
        must be ``entry_checksum`` of the parsed entry (``SessionStoreError`` naming the id otherwise)."""
        body, checksum = _unsealed(obj)
        entry = parse_session_entry(body)
        if checksum is not None and checksum != entry_checksum(entry):
            raise SessionStoreError(f"entry {entry['id']!r}: checksum {checksum!r} does not match its content")
        if entry["id"] in self._entries:
            raise SessionStoreError(f"entry {entry['id']!r}: id already in the session")
        parent = entry["parentId"]
        if parent is not None and parent not in self._entries:
            raise SessionStoreError(f"entry {entry['id']!r}: unknown parentId {parent!r}")
        return entry

    def get(self, entry_id: str) -> Entry:
        """Return a copy of entry ``entry_id``; ``KeyError`` naming it if absent."""
        if entry_id not in self._entries:
            raise KeyError(f"no entry {entry_id!r} in the session")
        return copy.deepcopy(self._entries[entry_id])

    def entries(self) -> list[Entry]:
        """Return copies of all entries, in append order."""
        return copy.deepcopy(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)


class JsonlSessionStore:
    """An append-only session in a JSONL file: one JSON object per line, UTF-8.

    An entry is committed when its newline is written (the line is flushed and fsynced). On
    open, every committed line is parsed; a bad committed line raises ``SessionStoreError``
    naming its line number, never skipped. A last line without its newline is an uncommitted
    tail: not an entry, its bytes left untouched, and the store is read-only
    (``append`` raises naming the byte offset) until ``discard_torn_tail()`` is called.

    One writer per file: the first ``append`` (or ``discard_torn_tail``) takes an exclusive OS
    lock on the file (``fcntl.flock``) and the store holds it until ``close()``, the end of a
    ``with`` block or its own deletion. While another open store holds it, in this process or any
    other, ``append`` raises ``SessionStoreError`` naming the file and nothing is written, so two
    writers never interleave or repeat an id and the file always reopens. Reading never locks.
    A store that takes the lock after the file has grown since it read it reads it again first,
    so it never appends on a stale view. Without ``fcntl`` (Windows) no lock is taken.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._handle: BinaryIO | None = None
        self.path = Path(path)
        self._size = 0
        self._memory = InMemorySessionStore()
        self.torn_tail_offset: int | None = None
        if self.path.exists():
            self._load(self.path.read_bytes())

    def _load(self, data: bytes) -> None:
        memory = InMemorySessionStore()
        committed_end = data.rfind(b"\n") + 1
        for number, line in enumerate(data[:committed_end].split(b"\n")[:-1], start=1):
            try:
                memory.append(json.loads(line))
            except ValueError as error:
                raise SessionStoreError(f"{self.path}: line {number}: {error}") from error
        self._memory, self._size = memory, len(data)
        self.torn_tail_offset = committed_end if committed_end < len(data) else None

    @property
    def read_only(self) -> bool:
        """True while an uncommitted tail is waiting for ``discard_torn_tail()``."""
        return self.torn_tail_offset is not None

    def _writer(self) -> BinaryIO:
        """The file opened for appending under this store's lock (taken on first use, the view
        re-read if the file changed); ``SessionStoreError`` naming the file if another store holds it."""
        if self._handle is None:
            handle = self.path.open("a+b")
            if not _lock(handle):
                handle.close()
                raise SessionStoreError(
                    f"{self.path}: another open store (in this or another process) holds this session file "
                    "for writing; append through that store, or close it first"
                )
            self._handle = handle
            if os.fstat(handle.fileno()).st_size != self._size:
                handle.seek(0)
                self._load(handle.read())
        return self._handle

    def append(self, obj: dict[str, Any]) -> Entry:
        """Parse, check and commit ``obj`` as one line; return a copy of the stored entry.

        Raises ``SessionStoreError`` naming the file while another store holds it for writing or
        while the store is ``read_only`` (naming the byte offset), and what
        ``InMemorySessionStore.append`` raises; nothing is written on an error.
        """
        handle = self._writer()
        if self.torn_tail_offset is not None:
            raise SessionStoreError(
                f"{self.path}: read-only: uncommitted tail at byte offset {self.torn_tail_offset}; "
                "call discard_torn_tail() to repair the file first"
            )
        entry = self._memory.prepare(obj)
        sealed = _unsealed(obj)[1] is not None
        line = (
            json.dumps(
                {**entry, CHECKSUM_KEY: entry_checksum(entry)} if sealed else entry,
                ensure_ascii=False,
                separators=(",", ":"),
            )
            + "\n"
        ).encode("utf-8")
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
        self._size += len(line)
        return self._memory.append(entry)

    def discard_torn_tail(self) -> bytes:
        """Cut the uncommitted tail off the file and return its bytes (empty if there was none).

        Takes the write lock like ``append`` (``SessionStoreError`` naming the file if another store holds it).
        """
        if self.torn_tail_offset is None:
            return b""
        handle = self._writer()
        if self.torn_tail_offset is None:  # the file was read again: another writer repaired it
            return b""
        handle.seek(self.torn_tail_offset)
        tail = handle.read()
        handle.truncate(self.torn_tail_offset)
        handle.flush()
        os.fsync(handle.fileno())
        self._size, self.torn_tail_offset = self.torn_tail_offset, None
        return tail

    def close(self) -> None:
        """Release the write lock if this store holds it; the store can still read, and lock again on
        the next ``append``. Closing twice is harmless."""
        if self._handle is not None:
            self._handle.close()  # closing the descriptor releases the flock
            self._handle = None

    def __enter__(self) -> JsonlSessionStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def get(self, entry_id: str) -> Entry:
        """Return a copy of entry ``entry_id``; ``KeyError`` naming it if absent."""
        return self._memory.get(entry_id)

    def entries(self) -> list[Entry]:
        """Return copies of all committed entries, in file order."""
        return self._memory.entries()

    def __len__(self) -> int:
        return len(self._memory)


def _lock(handle: BinaryIO) -> bool:
    """Take an exclusive, non-blocking ``flock`` on ``handle``: True if taken (or no ``fcntl``), False if held."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def path_to(entries: Iterable[Entry], leaf_id: str) -> list[Entry]:
    """Return the active path, root first, from the entries to ``leaf_id``, as copies.

    Follows ``parentId`` links up from the leaf. Raises ``SessionStoreError`` naming the id
    for a duplicate id, an unknown leaf or parent, or a cycle. Linear in the number of entries.
    """
    by_id: dict[str, Entry] = {}
    for entry in entries:
        if entry["id"] in by_id:
            raise SessionStoreError(f"entry {entry['id']!r}: id appears twice")
        by_id[entry["id"]] = entry
    path: list[Entry] = []
    seen: set[str] = set()
    current: str | None = leaf_id
    while current is not None:
        if current in seen:
            raise SessionStoreError(f"entry {current!r}: parentId links form a cycle")
        if current not in by_id:
            raise SessionStoreError(f"entry {current!r}: not in the session")
        seen.add(current)
        path.append(by_id[current])
        current = by_id[current]["parentId"]
    return copy.deepcopy(path[::-1])
