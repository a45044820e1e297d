"""The disk a sandbox may fill: its private folder as a tmpfs of a fixed size (as root).

A sandbox writes only in its private folder (and a small tmpfs ``/tmp`` of its own). As root that folder is
a tmpfs mounted for the sandbox (``mount``: size ``disk_bytes``, mode 0700, owned by the sandbox's uid,
``nosuid,nodev``), so a write beyond the size fails ("No space left on device") and nothing reaches the
host's disk; its pages are memory, counted in the writer's memory cgroup. Not as root no mount is possible:
the folder is an ordinary one on the host's temporary disk, and only the per-file size limit applies.

Mounts are named by the folder (``workbook-sandbox-UID-PID-...``, ``PID`` the process that made it): a process
that makes its first private folder unmounts and removes those whose maker has died (``sweep``), such as a
grading process killed in the middle of a sandbox.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PREFIX = "workbook-sandbox-"
"""Name prefix of the private folders, in the system's temporary folder."""


def can_mount() -> bool:
    """True when this process may mount the private folder's tmpfs (root, with ``mount`` on PATH)."""
    return os.geteuid() == 0 and shutil.which("mount") is not None and shutil.which("umount") is not None


def mount(folder: Path, size: int, uid: int) -> None:
    """Mount a tmpfs of ``size`` bytes on the empty ``folder``, mode 0700, owned by ``uid``; raises OSError
    with ``mount``'s own message when that fails."""
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700,uid={uid},gid={uid},nosuid,nodev", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise OSError(f"cannot mount the private folder's tmpfs on {folder}: {done.stderr.strip()}")


def unmount(folder: Path) -> None:
    """Unmount ``folder``'s tmpfs (lazily if still busy: detached now, freed when its last user is gone)."""
    if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "--lazy", str(folder)], capture_output=True)


def mounted(folder: Path) -> bool:
    """True when something is mounted on ``folder``."""
    target = os.path.abspath(folder)
    return any(point == target for point in _mount_points())


def _mount_points() -> list[str]:
    points = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            if len(fields) > 4:
                points.append(fields[4].replace("\\040", " "))
    return points


def sweep() -> list[Path]:
    """Unmount and remove the private folders (``PREFIX``UID-PID-...) whose maker has died; return them."""
    stale = []
    root = os.path.abspath(tempfile.gettempdir())
    for point in _mount_points():
        folder = Path(point)
        parts = folder.name[len(PREFIX) :].split("-")
        if str(folder.parent) == root and folder.name.startswith(PREFIX) and len(parts) >= 3 and parts[1].isdigit():
            try:
                os.kill(int(parts[1]), 0)
            except ProcessLookupError:
                unmount(folder)
                shutil.rmtree(folder, ignore_errors=True)
                stale.append(folder)
            except PermissionError:
                pass
    return stale
