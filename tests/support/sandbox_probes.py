"""What the sandbox tests read back: the JSON a sandboxed probe printed, and the host's processes it left."""

from __future__ import annotations

import json
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
