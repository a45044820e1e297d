"""Control groups for sandboxes: every process of one sandbox in one group, its memory, processes and CPU limited.

What the machine offers is found once per process (``available``), from ``/proc/self/mountinfo`` and
``/proc/self/cgroup``:

- cgroup v2 (one hierarchy, at ``/sys/fs/cgroup``, or at ``/sys/fs/cgroup/unified`` beside v1 ones): each of
  ``memory``, ``pids`` and ``cpu`` that its ``cgroup.controllers`` lists; its groups also track the sandbox's
  processes (``cgroup.kill``, ``cgroup.events``) when it gives no controller at all;
- cgroup v1 (one hierarchy per controller, ``/sys/fs/cgroup/memory``, ``pids``, ``cpu``): each controller v2
  does not give.

Where the groups go, in each hierarchy: under ``WORKBOOK_SANDBOX_CGROUP`` (a cgroup path, the same in every
hierarchy, e.g. ``/system.slice/workbook-grader.service`` of a systemd unit with ``Delegate=yes``) when that is
set; otherwise, as root, under the process's own group (v1) or the hierarchy's root (v2, whose groups with
controllers may hold no process); not as root, under the parent of the process's own v2 group when this user
owns it (systemd's ``Delegate=yes`` with ``DelegateSubgroup=``). Inside, a folder ``workbook`` holds one group
per sandbox, named ``UID-PID-TOKEN`` (the sandbox's uid, the process that made it): a group whose maker has
died (a grading process killed) is killed and removed by the next process that looks (``available``).

A hierarchy counts only once a trial group was made in it and a process moved into it. A process enters its
sandbox's groups before it executes anything else (``enter``: a shell writes its own pid into each group's
``cgroup.procs``, then executes bubblewrap), so every process the sandbox holds, student code included, is
in them from its start; ``Group.remove`` kills whatever is left and removes the groups.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONTROLLERS = ("memory", "pids", "cpu")
"""The controllers a sandbox's group uses: its memory, its number of processes (threads included), its CPU share."""
FOLDER = "workbook"
"""The folder, in each hierarchy's base, that holds the sandboxes' groups (it stays, empty, between runs)."""
CONFIGURED_BASE = "WORKBOOK_SANDBOX_CGROUP"
"""Environment variable naming the cgroup under which the sandboxes' groups go (see the module)."""
CPU_PERIOD_US = 100_000
"""The CPU bandwidth period (microseconds): a sandbox of ``cpus`` CPUs may run ``cpus * CPU_PERIOD_US`` in each."""
REMOVE_WAIT = 10.0
"""Seconds ``Group.remove`` waits for the killed processes of a group to be gone."""


@dataclass(frozen=True)
class Hierarchy:
    """One mounted cgroup hierarchy usable here: its ``version`` (1 or 2), the ``folder`` that holds the
    sandboxes' groups, and which of ``CONTROLLERS`` it limits for them (none: v2 used only to track and kill)."""

    version: int
    folder: Path
    controllers: tuple[str, ...]


@dataclass(frozen=True)
class Support:
    """The cgroup hierarchies a sandbox's group is made in; ``missing`` says why a controller of ``CONTROLLERS``
    is not among them (empty when all are)."""

    hierarchies: tuple[Hierarchy, ...] = ()
    missing: str = "no cgroup hierarchy mounted"

    @property
    def controllers(self) -> frozenset[str]:
        """The controllers that limit a sandbox here."""
        return frozenset(name for hierarchy in self.hierarchies for name in hierarchy.controllers)

    @property
    def usable(self) -> bool:
        """True when a sandbox gets a group of its own here (limited or only tracked)."""
        return bool(self.hierarchies)

    def versions(self) -> str:
        """``cgroup v1``, ``cgroup v2`` or ``cgroup v1 and v2``: the versions whose controllers limit a sandbox."""
        found = sorted({hierarchy.version for hierarchy in self.hierarchies if hierarchy.controllers})
        return "cgroup " + " and ".join(f"v{version}" for version in found) if found else "no cgroup controller"


NONE = Support()
"""No cgroup: limits are per process only (rlimits)."""


@dataclass(frozen=True)
class Usage:
    """What a sandbox's group recorded: ``peak_memory`` (bytes), ``oom_kills`` (processes killed at its memory
    limit), ``process_limit_hits`` (forks refused at its process limit), ``throttled`` (CPU periods it was held
    back), ``cpu_seconds`` (CPU used; None where no hierarchy counts it). None: that controller is not used."""

    peak_memory: int | None = None
    oom_kills: int | None = None
    process_limit_hits: int | None = None
    throttled: int | None = None
    cpu_seconds: float | None = None


def _read(path: Path) -> str:
    return path.read_text(encoding="ascii").strip()


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(value)


def _fields(path: Path) -> dict[str, int]:
    """A flat keyed file (``cpu.stat``, ``memory.events``, ``pids.events``) as numbers by key."""
    values = {}
    for line in _read(path).splitlines():
        key, _, value = line.partition(" ")
        with contextlib.suppress(ValueError):
            values[key] = int(value)
    return values


def _mounts() -> list[tuple[str, Path, str, set[str]]]:
    """The cgroup mounts: (fstype, mount point, root inside the hierarchy, super options)."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            before, _, after = line.partition(" - ")
            fields, tail = before.split(), after.split()
            if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                found.append((tail[0], Path(fields[4].replace("\\040", " ")), fields[3], set(tail[2].split(","))))
    return found


def _own_groups() -> dict[str, str]:
    """This process's group in each hierarchy, by controller list (``""`` for v2), from ``/proc/self/cgroup``."""
    groups = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            groups[controllers] = path
    return groups


def _folder(mount: Path, root: str, group: str) -> Path:
    """The folder of cgroup path ``group`` in a hierarchy mounted at ``mount`` (showing its subtree ``root``)."""
    relative = os.path.relpath(group, root) if group.startswith(root) else group.lstrip("/")
    return mount if relative in (".", "") else mount / relative


def _enable(folder: Path, controllers: tuple[str, ...]) -> None:
    """Enable ``controllers`` for the children of v2 group ``folder`` (those already on are left alone)."""
    enabled = set(_read(folder / "cgroup.subtree_control").split())
    wanted = [name for name in controllers if name not in enabled]
    if wanted:
        _write(folder / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))


def _trial(folder: Path) -> None:
    """Make a group in ``folder``, move a short-lived process into it and remove it; raises OSError if any fails."""
    probe = folder / f"trial-{os.getpid()}-{secrets.token_hex(4)}"
    probe.mkdir()
    try:
        done = subprocess.run(
            [shutil.which("sh") or "/bin/sh", "-c", 'echo $$ > "$1"', "sh", str(probe / "cgroup.procs")],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            raise PermissionError(done.stderr.strip() or f"cannot move a process into {probe}")
    finally:
        for _ in range(50):
            try:
                probe.rmdir()
                break
            except OSError:
                time.sleep(0.02)


def _base(version: int, mount: Path, root: str, own: str, as_root: bool) -> Path | None:
    configured = os.environ.get(CONFIGURED_BASE)
    if configured:
        return _folder(mount, root, configured)
    if version == 1:
        return _folder(mount, root, own) if as_root else None
    if as_root:
        return mount
    parent = _folder(mount, root, own).parent
    return parent if parent.is_dir() and parent.stat().st_uid == os.geteuid() and parent != mount else None


def _usable(version: int, base: Path, controllers: tuple[str, ...]) -> Path:
    """The sandboxes' folder under ``base``, made and checked (controllers enabled on v2); raises OSError."""
    if version == 2:
        _enable(base, controllers)
    folder = base / FOLDER
    folder.mkdir(exist_ok=True)
    if version == 2:
        _enable(folder, controllers)
    _trial(folder)
    return folder


@functools.cache
def available(as_root: bool) -> Support:
    """The cgroup hierarchies a sandbox's group is made in, for a process that is root (``as_root``) or not;
    checked once per process (a trial group each), after removing the groups of dead makers (``sweep``)."""
    mounts, own = _mounts(), _own_groups()
    problems: list[str] = []
    unowned: list[str] = []
    hierarchies: list[Hierarchy] = []
    v2 = next((mount for mount in mounts if mount[0] == "cgroup2"), None)
    if v2 is not None:
        _, point, root, _ = v2
        base = _base(2, point, root, own.get("", "/"), as_root)
        if base is None:
            problems.append("cgroup v2: no group delegated to this user")
        else:
            listed = base / "cgroup.controllers"
            offered = set(_read(listed).split()) if listed.exists() else set()
            controllers = tuple(name for name in CONTROLLERS if name in offered)
            try:
                hierarchies.append(Hierarchy(2, _usable(2, base, controllers), controllers))
            except OSError as error:
                problems.append(f"cgroup v2 at {base}: {error.strerror or error}")
    for name in CONTROLLERS:
        if any(name in hierarchy.controllers for hierarchy in hierarchies):
            continue
        mount = next((mount for mount in mounts if mount[0] == "cgroup" and name in mount[3]), None)
        if mount is None:
            problems.append(f"no {name} controller")
            continue
        _, point, root, options = mount
        group = next((path for key, path in own.items() if name in key.split(",")), "/")
        base = _base(1, point, root, group, as_root)
        if base is None:
            unowned.append(name)
            continue
        try:
            hierarchies.append(Hierarchy(1, _usable(1, base, ()), (name,)))
        except OSError as error:
            problems.append(f"cgroup v1 {name} at {base}: {error.strerror or error}")
    if unowned:
        problems.append(f"cgroup v1 {', '.join(unowned)}: only root may make groups ({CONFIGURED_BASE} unset)")
    support = Support(tuple(hierarchies), "; ".join(problems) if problems else "")
    sweep(support)
    return support


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(support: Support) -> list[str]:
    """Kill and remove the sandboxes' groups whose maker has died (named ``UID-PID-TOKEN``); return their names."""
    stale = set()
    for hierarchy in support.hierarchies:
        with contextlib.suppress(OSError):
            for entry in hierarchy.folder.iterdir():
                parts = entry.name.split("-")
                if entry.is_dir() and len(parts) == 3 and parts[1].isdigit() and not _alive(int(parts[1])):
                    stale.add(entry.name)
    for name in sorted(stale):
        with contextlib.suppress(OSError):
            Group(support, name).remove()
    return sorted(stale)


@dataclass(frozen=True)
class Group:
    """One sandbox's group ``name`` in every hierarchy of ``support``."""

    support: Support
    name: str

    @classmethod
    def create(cls, support: Support, uid: int, memory_bytes: int, processes: int, cpus: float) -> Group:
        """Make a group for a sandbox of ``uid`` in every hierarchy of ``support``, limited to ``memory_bytes``
        (no swap), ``processes`` (tasks: threads count) and ``cpus`` CPUs of bandwidth. Raises OSError (and
        leaves nothing) when a hierarchy refuses."""
        group = cls(support, f"{uid}-{os.getpid()}-{secrets.token_hex(6)}")
        try:
            for hierarchy in support.hierarchies:
                (hierarchy.folder / group.name).mkdir()
            group.limit(memory_bytes, processes, cpus)
        except OSError:
            group.remove()
            raise
        return group

    def folders(self) -> list[tuple[Hierarchy, Path]]:
        """Each hierarchy with this group's folder in it."""
        return [(hierarchy, hierarchy.folder / self.name) for hierarchy in self.support.hierarchies]

    def limit(self, memory_bytes: int, processes: int, cpus: float) -> None:
        """Set the group's limits (see ``create``)."""
        quota = max(1000, round(cpus * CPU_PERIOD_US))
        for hierarchy, folder in self.folders():
            v2 = hierarchy.version == 2
            if "memory" in hierarchy.controllers:
                _write(folder / ("memory.max" if v2 else "memory.limit_in_bytes"), str(memory_bytes))
                swap = folder / ("memory.swap.max" if v2 else "memory.memsw.limit_in_bytes")
                if swap.exists():  # v1's counts memory and swap together: equal to the memory limit, no swap
                    _write(swap, "0" if v2 else str(memory_bytes))
            if "pids" in hierarchy.controllers:
                _write(folder / "pids.max", str(processes))
            if "cpu" in hierarchy.controllers:
                if v2:
                    _write(folder / "cpu.max", f"{quota} {CPU_PERIOD_US}")
                else:
                    _write(folder / "cpu.cfs_period_us", str(CPU_PERIOD_US))
                    _write(folder / "cpu.cfs_quota_us", str(quota))

    def enter(self, argv: list[str]) -> list[str]:
        """The command line that moves itself into this group (every hierarchy), then executes ``argv``; a
        move that fails prints why and exits with status 125 before ``argv`` starts."""
        script = (
            'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "workbook sandbox: cannot enter $1" >&2; exit 125; }; '
            'shift; done; shift; exec "$@"'
        )
        files = [str(folder / "cgroup.procs") for _, folder in self.folders()]
        return [shutil.which("sh") or "/bin/sh", "-c", script, "workbook-sandbox", *files, "--", *argv]

    def _tracker(self) -> tuple[Hierarchy, Path] | None:
        folders = self.folders()
        return next((item for item in folders if item[0].version == 2), folders[0] if folders else None)

    def pids(self) -> list[int]:
        """The processes in the group now."""
        tracker = self._tracker()
        if tracker is None or not tracker[1].is_dir():
            return []
        return [int(pid) for pid in _read(tracker[1] / "cgroup.procs").split()]

    def usage(self) -> Usage:
        """What the group has recorded so far (see ``Usage``)."""
        values: dict[str, Any] = {}
        for hierarchy, folder in self.folders():
            v2 = hierarchy.version == 2
            if "memory" in hierarchy.controllers:
                peak = folder / ("memory.peak" if v2 else "memory.max_usage_in_bytes")
                if peak.exists():
                    values["peak_memory"] = int(_read(peak))
                values["oom_kills"] = _fields(folder / ("memory.events" if v2 else "memory.oom_control")).get(
                    "oom_kill", 0
                )
            if "pids" in hierarchy.controllers:
                values["process_limit_hits"] = _fields(folder / "pids.events").get("max", 0)
            if "cpu" in hierarchy.controllers:
                values["throttled"] = _fields(folder / "cpu.stat").get("nr_throttled", 0)
            if v2 and (folder / "cpu.stat").exists():
                values["cpu_seconds"] = _fields(folder / "cpu.stat").get("usage_usec", 0) / 1e6
        return Usage(**values)

    def kill(self) -> bool:
        """Kill every process in the group and wait (up to ``REMOVE_WAIT`` s) until none is left; return whether
        none is. A v2 group is killed at once (``cgroup.kill``), a v1 group process by process until it is empty."""
        tracker = self._tracker()
        if tracker is None:
            return True
        hierarchy, folder = tracker
        deadline = time.monotonic() + REMOVE_WAIT
        if hierarchy.version == 2 and (folder / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                _write(folder / "cgroup.kill", "1")
        while True:
            try:
                left = self.pids()
            except OSError:
                return True
            if not left:
                return True
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left in the group and remove its folders; raises OSError when one cannot be removed."""
        self.kill()
        failure = None
        for _, folder in self.folders():
            for attempt in range(200):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as error:  # EBUSY while the last killed processes exit
                    if attempt == 199:
                        failure = error
                    time.sleep(0.01)
        if failure is not None:
            raise failure
