"""TEMPORARY STUB (not committed): the interface of the sandbox being built on branch issue-9-sandbox."""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 1 << 30
    processes: int = 64
    open_files: int = 256
    file_bytes: int = 64 << 20
    cpu_seconds: int = 60


@dataclass(frozen=True)
class Isolation:
    mode: str = "none"
    enforced: bool = False

    def describe(self) -> str:
        return "sandbox: none (stub)"


def detect(mode: str = "auto") -> Isolation:
    return Isolation()


@contextlib.contextmanager
def private_dir(isolation: Isolation, slot: int = 0):
    path = Path(tempfile.mkdtemp(prefix="workbook-private-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def wrap(isolation: Isolation, argv: list[str], *, workdir: Path, slot: int = 0,
         limits: Limits = Limits()) -> list[str]:
    return list(argv)
