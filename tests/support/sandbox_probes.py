"""What the sandbox tests read back: the JSON a sandboxed probe printed, the host's processes and kernel keys it
left."""

from __future__ import annotations

import ctypes
import json
import platform
import subprocess
from pathlib import Path
from typing import Any


def last_json(done: subprocess.CompletedProcess) -> Any:
    """The JSON value (an object, a list, a string) the sandboxed code printed last; fails showing its stderr
    when it exited non-zero."""
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def host_processes_with(marker: str) -> list[str]:
    """The pids of host processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(entry.name)
            except OSError:
                continue
    return found


KEY_CALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}
"""The numbers of ``add_key`` and ``keyctl`` by ``platform.machine()`` (x86_64's own table; aarch64's is the
generic one)."""
KEYCTL_INVALIDATE = 21


def keys_with(text: str) -> list[int]:
    """The ids of the live kernel keys this process may view (``/proc/keys``) whose line holds ``text``: not
    revoked, dead or invalidated (flags ``R``, ``D``, ``i``; the kernel's collector removes those soon after)."""
    with open("/proc/keys", encoding="utf-8", errors="replace") as keys:
        lines = [line.split() for line in keys if text in line]
    return [int(fields[0], 16) for fields in lines if not set(fields[1]) & set("RDi")]


def invalidate(key: int) -> None:
    """Invalidate the kernel key ``key`` (``keyctl``); raises OSError when the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if libc.syscall(KEY_CALLS[platform.machine()][1], KEYCTL_INVALIDATE, ctypes.c_long(key)) < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"keyctl(KEYCTL_INVALIDATE, {key}) failed")
