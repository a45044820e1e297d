"""Run untrusted code (a student's) in an OS sandbox: bubblewrap, a private folder, no network, limits.

``wrap(isolation, argv, workdir=W)`` returns the command line that runs ``argv`` inside a sandbox
whose only writable place is ``W`` (a ``private_dir``), bound at the same path inside and out, so
paths (a kernel's connection file and ipc sockets) mean the same on both sides. Inside:

- an empty root holding read-only binds of ``/usr`` (and ``/bin``, ``/lib*`` as on the host), a few
  files of ``/etc`` (``ETC_FILES``), the Python interpreter's prefix (``sys.base_prefix``), the
  environment's (``sys.prefix``, the venv) and any other site-packages folder on ``sys.path``; a fresh
  ``/proc``, a minimal ``/dev``, a small tmpfs ``/tmp`` (under those binds, so a venv in ``/tmp`` stays
  visible), and ``W``. The course, the repository (only its ``.venv`` is bound), the gradebook, ``/root``,
  ``/home`` and ``/work`` are absent. Where the ``workbook`` package itself, or a project folder that a
  ``.pth`` file puts on ``sys.path``, lies inside a bound prefix, an empty tmpfs hides it;
- new pid, network, ipc and uts namespaces: no network interface but loopback, no process of the
  host to see or signal, and every process the code starts dies when the sandbox ends
  (``--unshare-pid``, ``--die-with-parent``, ``--new-session``);
- a seccomp filter refusing the kernel's key management calls (``add_key``, ``request_key``, ``keyctl``;
  ``workbook.grading.syscall_filter``): a uid's keyrings outlive every sandbox, and every sandbox of a slot is
  that uid, so no key can be posted or read there;
- limits (``Limits``), per sandbox where the machine gives them and per process always, and a minimal
  environment (``PATH``, ``HOME=W``, ``LANG``, Jupyter/IPython/Matplotlib folders inside ``W``): nothing of
  the caller's environment (database URLs, tokens).

Limits per sandbox (``workbook.grading.cgroups``, ``workbook.grading.private_disk``): each ``private_dir`` has a
control group of its own in every cgroup hierarchy this process may use (v2, or v1's ``memory``, ``pids`` and
``cpu``), which every process of the sandbox enters before anything of it runs; its memory, number of
processes and CPU bandwidth are the sandbox's, whatever the number of processes, and it is killed and
removed with the folder. As root the folder is a tmpfs of ``disk_bytes``. Where a controller is missing (not
root without a delegated cgroup, or no cgroups) its rlimit is the only bound (``RLIMIT_AS`` per process,
``RLIMIT_NPROC`` per uid) and a sandbox's CPU time is not shared fairly with the ones beside it; without the
tmpfs the folder lies on the host's temporary disk with only the per-file limit. ``Isolation.describe`` says
which apply.

Who the code runs as (``detect``):

- as root: bubblewrap runs privileged (it can bind an interpreter that lives under ``/root``), drops
  every capability but the four it needs to enter ``W`` and switch user, and the command inside becomes
  the uid of its slot (``setpriv``: real, effective and saved ids, no groups, no capabilities, no new
  privileges). One uid per concurrent slot, so that ``RLIMIT_NPROC`` of one student's fork bomb does
  not starve the student graded beside it; a process's slots are uids it holds alone on this machine
  (``workbook.grading.sandbox_users``: ``WORKBOOK_SANDBOX_FIRST_UID`` and ``WORKBOOK_SANDBOX_UIDS`` give the
  range). These uids must belong to no account of the host;
- not root (a hub's grader service): bubblewrap unprivileged, in a user namespace where the caller's
  own uid is mapped (the kernel's ``RLIMIT_NPROC`` then counts per namespace), nested user
  namespaces disabled;
- without bubblewrap or libseccomp, or where bubblewrap cannot create namespaces: no sandbox. Mode
  ``required`` then raises ``SandboxUnavailable`` saying what is missing, ``auto`` runs the code unsandboxed
  (``describe()`` says so and why), ``off`` never sandboxes.

What stays possible inside: reading the bound system and Python files, using CPU and memory up to the
limits, writing in ``W`` (up to its tmpfs's size, and the file-size limit per file) and ``/tmp``
(``TMP_BYTES``), and, as root, creating nested user namespaces (which see nothing more than the sandbox).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbook.errors import CourseError
from workbook.grading import cgroups, private_disk, syscall_filter
from workbook.grading.sandbox_users import USERS

MODES = ("required", "auto", "off")
"""``detect`` modes: refuse without a sandbox, fall back to none, or never sandbox."""
FIRST_UID = USERS.first_uid
"""As root, sandboxes run as uids from ``FIRST_UID`` on (``WORKBOOK_SANDBOX_FIRST_UID``; the slot's own, see
``workbook.grading.sandbox_users``) and the same gid."""
TMP_BYTES = 64 << 20
"""Size of the sandbox's tmpfs ``/tmp``."""
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf")
"""The only entries of ``/etc`` bound (read-only) into the sandbox."""
INSTALL_HINT = (
    "install bubblewrap and libseccomp (Debian/Ubuntu: apt-get install bubblewrap libseccomp2; Fedora: dnf "
    "install bubblewrap libseccomp) "
    "and allow user namespaces (sysctl user.max_user_namespaces > 0; on Debian "
    "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0 "
    "or an AppArmor profile for bwrap)"
)


class SandboxUnavailable(CourseError):
    """Isolation is ``required`` but this machine cannot sandbox; the message says what is missing and how to fix it."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of a sandbox, in bytes, processes, CPUs and seconds:

    - ``memory_bytes``: the sandbox's memory, all its processes together (a memory cgroup: resident memory
      and tmpfs pages, no swap; a process over it is killed), and each process's address space
      (RLIMIT_AS, always: an allocation beyond it raises MemoryError). An ipykernel running a lab notebook
      maps about 210 MiB in the sandbox (60 MiB resident; ``MALLOC_ARENA_MAX=2``), so 1 GiB leaves the lab
      code about 800 MiB;
    - ``processes``: the sandbox's tasks, threads included (an ipykernel has 11): a pids cgroup, with
      RLIMIT_NPROC per uid at ``NPROC_BACKSTOP`` times that behind it; where there is no pids cgroup,
      RLIMIT_NPROC alone, counted per uid (as root, per slot; else per user namespace);
    - ``cpus``: the sandbox's CPU bandwidth (a cpu cgroup's quota: ``cpus`` CPUs in every period, however
      many processes share them);
    - ``disk_bytes``: the size of the private folder's tmpfs (as root);
    - ``open_files`` (RLIMIT_NOFILE), ``file_bytes`` (RLIMIT_FSIZE: the largest file it may write) and
      ``cpu_seconds`` (RLIMIT_CPU per process: killed once used up).
    """

    memory_bytes: int = 1 << 30
    processes: int = 64
    cpus: float = 1.0
    disk_bytes: int = 256 << 20
    open_files: int = 256
    file_bytes: int = 64 << 20
    cpu_seconds: int = 60

    def prlimit(self, per_sandbox: frozenset[str] = frozenset()) -> list[str]:
        """``prlimit`` options setting the per-process limits, soft = hard, and no core dumps; with a pids cgroup
        among ``per_sandbox`` (the controllers limiting the sandbox) RLIMIT_NPROC is only a backstop."""
        values = {
            "as": self.memory_bytes,
            "nproc": self.processes * (NPROC_BACKSTOP if "pids" in per_sandbox else 1),
            "nofile": self.open_files,
            "fsize": self.file_bytes,
            "cpu": self.cpu_seconds,
            "core": 0,
        }
        return [f"--{name}={value}:{value}" for name, value in values.items()]


NPROC_BACKSTOP = 4
"""With a pids cgroup per sandbox, RLIMIT_NPROC (per uid: every sandbox of a slot together, e.g. a runner and
its oracle) is this many times ``Limits.processes``."""


def size_text(size: int) -> str:
    """``size`` bytes in the largest binary unit that divides it: 1 GiB, 64 MiB, 1000 bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Isolation:
    """How untrusted code runs here: ``tool`` is ``"bubblewrap"`` or ``"none"``; ``as_root`` means one
    unprivileged uid per slot (else the caller's uid in a user namespace); ``reason`` says why there
    is no sandbox; ``cgroups`` are the hierarchies each sandbox gets a group in, ``tmpfs`` whether its
    private folder is a tmpfs of its own (``detect`` finds both)."""

    tool: str = "none"
    as_root: bool = False
    reason: str = ""
    cgroups: cgroups.Support = cgroups.NONE
    tmpfs: bool = False

    @property
    def enforced(self) -> bool:
        """True when code runs inside a sandbox."""
        return self.tool == "bubblewrap"

    def uid(self, slot: int = 0) -> int:
        """The host uid that sandboxed code of ``slot`` runs as: as root this process's ``slot``-th sandbox uid
        (taken on first use; raises ``SandboxBusy`` when none comes free), else this process's own."""
        return USERS.uid(slot) if self.enforced and self.as_root else os.getuid()

    def describe(self, slots: int = 1, limits: Limits = Limits()) -> str:
        """One line for the instructor: the users, the network and which limits apply, e.g. ``sandbox:
        bubblewrap, users 61000-61001, no network, no keyring; per sandbox (cgroup v1): 1 GiB memory, 64 processes,
        1 CPU; private folder: 256 MiB tmpfs; per process: 1 GiB address space, 60 s CPU, 64 MiB per file``,
        or ``sandbox: none (why)``. ``slots`` 0: the line of a run whose grading processes each take their own
        uid (``one user per grading process, of uids 61000-61063``)."""
        if not self.enforced:
            return f"sandbox: none ({self.reason})"
        if self.as_root and slots == 0:
            who = f"one user per grading process, of {USERS.range_text()}"
        elif self.as_root:
            uids = sorted(self.uid(slot) for slot in range(slots))
            if slots == 1:
                who = f"user {uids[0]}"
            elif uids == list(range(uids[0], uids[0] + slots)):
                who = f"users {uids[0]}-{uids[-1]}"
            else:
                who = f"users {', '.join(map(str, uids[:-1]))} and {uids[-1]}"
        else:
            who = f"user {os.getuid()} (the grader's own, in a user namespace)"
        per_sandbox = self.cgroups.controllers
        sandbox_limits = [
            text
            for controller, text in (
                ("memory", f"{size_text(limits.memory_bytes)} memory"),
                ("pids", f"{limits.processes} processes"),
                ("cpu", f"{limits.cpus:g} CPU"),
            )
            if controller in per_sandbox
        ]
        per_process = [
            f"{size_text(limits.memory_bytes)} {'address space' if 'memory' in per_sandbox else 'memory'}",
            *([] if "pids" in per_sandbox else [f"{limits.processes} processes per user"]),
            f"{limits.cpu_seconds} s CPU",
            f"{size_text(limits.file_bytes)} per file",
        ]
        parts = [
            f"per sandbox ({self.cgroups.versions()}): {', '.join(sandbox_limits)}"
            if sandbox_limits
            else f"per sandbox: no limit ({self.cgroups.missing or 'no cgroup controller'})",
            f"private folder: {size_text(limits.disk_bytes)} tmpfs"
            if self.tmpfs
            else "private folder: no size limit (its tmpfs needs root)",
            f"per process: {', '.join(per_process)}",
        ]
        if sandbox_limits and len(sandbox_limits) < len(cgroups.CONTROLLERS):
            parts.insert(1, f"not per sandbox: {self.cgroups.missing}")
        return f"sandbox: bubblewrap, {who}, no network, no keyring; " + "; ".join(parts)


def detect(mode: str = "auto") -> Isolation:
    """The isolation this machine gives for ``mode`` (one of ``MODES``).

    Raises ``ValueError`` for another mode, and ``SandboxUnavailable`` in mode ``required`` when
    bubblewrap or libseccomp is missing or cannot start a sandbox here (the message names the problem and how to
    install or enable it). In mode ``auto`` that gives ``Isolation("none", reason=...)``.
    """
    if mode not in MODES:
        raise ValueError(f"isolation mode must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return Isolation(reason="isolation off")
    as_root = os.geteuid() == 0
    problem = _sandbox_problem(as_root)
    if problem is None:
        return Isolation("bubblewrap", as_root, cgroups=cgroups.available(as_root), tmpfs=private_disk.can_mount())
    if mode == "required":
        raise SandboxUnavailable(f"cannot sandbox student code: {problem}; {INSTALL_HINT}")
    return Isolation(reason=f"{problem}; student code runs as this user")


@functools.cache
def _sandbox_problem(as_root: bool) -> str | None:
    """None when a trial sandbox runs this interpreter, else what went wrong (checked once per process)."""
    missing = [tool for tool in ("bwrap", "setpriv", "prlimit") if not shutil.which(tool)]
    if missing:
        return f"{', '.join(missing)} not found on PATH"
    unfiltered = syscall_filter.problem()
    if unfiltered is not None:
        return unfiltered
    candidate = Isolation("bubblewrap", as_root=as_root)
    with private_dir(candidate) as work:
        argv = wrap(candidate, [sys.executable, "-c", "pass"], workdir=work)
        try:
            trial = subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap could not start a sandbox ({error})"
    if trial.returncode != 0:
        detail = (trial.stderr.strip().splitlines() or [f"exit status {trial.returncode}"])[-1]
        return f"bwrap could not start a sandbox ({detail})"
    return None


@contextlib.contextmanager
def private_dir(isolation: Isolation, slot: int = 0, limits: Limits = Limits()) -> Iterator[Path]:
    """A fresh, empty, mode 0700 temporary folder owned by the uid of ``slot``, and the sandbox that runs in it
    (``wrap`` with this folder as ``workdir``); removed on exit with all it holds (whatever sandboxed processes
    left there, unreadable folders included).

    Where ``isolation`` has them: the folder is a tmpfs of ``limits.disk_bytes``, and the sandbox a control
    group of its own (``workbook.grading.cgroups``), limited by ``wrap``. On exit every process still in the
    group is killed and the group removed; without a group, as root, the exit waits (up to ``EXIT_WAIT``
    seconds) until the slot's uid has no process left (a sandbox's last processes are killed just after
    bubblewrap itself exits). Either way nothing of the sandbox outlives the block. Raises OSError (leaving
    nothing) when the tmpfs or the group cannot be made."""
    uid = isolation.uid(slot)
    if isolation.tmpfs:
        _sweep_private_disks()
    path = Path(tempfile.mkdtemp(prefix=f"{private_disk.PREFIX}{uid}-{os.getpid()}-"))
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(remove_tree, path)
        if isolation.enforced and isolation.tmpfs:
            private_disk.mount(path, limits.disk_bytes, uid)
            cleanup.callback(private_disk.unmount, path)
        elif uid != os.getuid():
            os.chown(path, uid, uid)
        if isolation.enforced and isolation.cgroups.usable:
            group = cgroups.Group.create(isolation.cgroups, uid, limits.memory_bytes, limits.processes, limits.cpus)
            cleanup.callback(group.remove)
            _GROUPS[path] = group
            cleanup.callback(_GROUPS.pop, path, None)
        elif uid != os.getuid():
            cleanup.callback(wait_until_no_process_of, uid)
        yield path


_GROUPS: dict[Path, cgroups.Group] = {}
"""The control group of each open ``private_dir``, by its folder."""


def sandbox_group(workdir: Path) -> cgroups.Group | None:
    """The control group of the ``private_dir`` that is or holds ``workdir`` (None: it has none)."""
    workdir = Path(os.path.abspath(workdir))
    return next((_GROUPS[folder] for folder in [workdir, *workdir.parents] if folder in _GROUPS), None)


@functools.cache
def _sweep_private_disks() -> None:
    """Once per process: unmount the private folders left by grading processes that died (``private_disk.sweep``)."""
    private_disk.sweep()


EXIT_WAIT = 10.0
"""Seconds ``private_dir`` waits for the processes of a sandbox that has ended to be gone."""


def processes_of(uid: int) -> list[int]:
    """The pids of this host's processes whose real uid is ``uid`` (zombies included)."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as status:
                    line = next(line for line in status if line.startswith("Uid:"))
                if int(line.split()[1]) == uid:
                    pids.append(int(entry.name))
    return pids


def wait_until_no_process_of(uid: int, seconds: float = EXIT_WAIT) -> bool:
    """Wait until ``uid`` has no process (at most ``seconds``); return whether that happened."""
    deadline = time.monotonic() + seconds
    while processes_of(uid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything under it; folders left without permissions are opened first, and a
    removal that races with a process still writing there is tried again."""

    def allow_and_retry(function, name, _):
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), stat.S_IRWXU)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, stat.S_IRWXU)
        function(name)

    handler: dict[str, Any] = (
        {"onexc": allow_and_retry} if sys.version_info >= (3, 12) else {"onerror": allow_and_retry}
    )
    for attempt in range(50):
        try:
            if os.path.lexists(path):
                shutil.rmtree(path, **handler)
            return
        except OSError:
            if attempt == 49:
                raise
            time.sleep(0.1)


def wrap(
    isolation: Isolation, argv: list[str], *, workdir: Path, slot: int = 0, limits: Limits = Limits()
) -> list[str]:
    """The command line that runs ``argv`` in the sandbox with cwd ``workdir`` (a ``private_dir`` of
    ``slot``, or a folder inside one) under ``limits``. Without a sandbox, ``argv`` itself (the caller
    runs it with ``cwd=workdir``). File descriptors the caller passes are inherited. The command line starts with a
    shell that gives bubblewrap the seccomp filter (``syscall_filter.command``) on a descriptor from 3 to 9 that
    the caller does not pass.

    Where the ``private_dir`` has a control group, its limits become ``limits`` and the command line first
    enters it (then every process of the sandbox is in it before bubblewrap starts)."""
    if not isolation.enforced:
        return list(argv)
    workdir = Path(os.path.abspath(workdir))
    group = sandbox_group(workdir) if isolation.cgroups.usable else None
    if group is not None:
        group.limit(limits.memory_bytes, limits.processes, limits.cpus)
    command = ["bwrap"]
    if isolation.as_root:
        command += [
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
            "--cap-add",
            "CAP_SETPCAP",
            "--cap-add",
            "CAP_DAC_READ_SEARCH",
        ]
    else:
        command += ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    command += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
    command += _filesystem(workdir)
    command += ["--chdir", str(workdir), "--clearenv"]
    for name, value in _environment(workdir).items():
        command += ["--setenv", name, value]
    command.append("--")
    if isolation.as_root:
        uid = str(isolation.uid(slot))
        command += [
            shutil.which("setpriv") or "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
        ]
    per_sandbox = isolation.cgroups.controllers if group is not None else frozenset()
    command += [shutil.which("prlimit") or "prlimit", *limits.prlimit(per_sandbox), "--"]
    command = syscall_filter.command([*command, *argv])
    return group.enter(command) if group is not None else command


def site_folders() -> list[Path]:
    """Every site-packages folder this interpreter imports from: ``site.getsitepackages()`` and any other
    ``site-packages``/``dist-packages`` on ``sys.path`` (a ``.pth`` file may add one with ``site.addsitedir``).
    Other ``sys.path`` entries (the working directory, a project folder) are never among them."""
    folders = {Path(os.path.abspath(packages)) for packages in site.getsitepackages()}
    folders |= {
        Path(os.path.abspath(entry))
        for entry in sys.path
        if entry and Path(entry).name in ("site-packages", "dist-packages")
    }
    return sorted(folder for folder in folders if folder.is_dir())


def python_prefixes() -> list[Path]:
    """The folders this interpreter needs: its installation (``sys.base_prefix``), its environment
    (``sys.prefix``, the venv) and any site folder outside both (``site_folders``), as absolute paths,
    without one inside another or inside ``/usr``."""
    prefixes: list[Path] = []
    wanted = {Path(os.path.abspath(sys.base_prefix)), Path(os.path.abspath(sys.prefix)), *site_folders()}
    for prefix in sorted(wanted, key=lambda path: len(path.parts)):
        if not any(prefix.is_relative_to(other) for other in [Path("/usr"), *prefixes]):
            prefixes.append(prefix)
    return sorted(prefixes)


def hidden_paths(prefixes: list[Path]) -> list[Path]:
    """Project folders inside the bound ``prefixes`` that the sandbox must not see: the ``workbook``
    package (a non-editable install), a ``workbook`` folder in a site folder (an editable install still
    copies the wheel's data there: the solutions, in ``workbook/data``) and every folder a ``.pth`` file of
    a site folder adds to sys.path."""
    candidates = {Path(__file__).resolve().parent}
    candidates |= {packages / "workbook" for packages in site_folders() if (packages / "workbook").is_dir()}
    for packages in site_folders():
        for pth in Path(packages).glob("*.pth"):
            for line in pth.read_text(encoding="utf-8", errors="replace").splitlines():
                folder = os.path.join(packages, line.strip())  # as site.py reads it: relative to site-packages
                if line.strip() and not line.startswith(("#", "import ")) and os.path.isdir(folder):
                    candidates.add(Path(os.path.abspath(folder)))
    return sorted(
        path for path in candidates if any(path.is_relative_to(prefix) and path != prefix for prefix in prefixes)
    )


def _filesystem(workdir: Path) -> list[str]:
    """bwrap options laying out the sandbox's file system (see the module docstring)."""
    options, made = [], {Path("/")}

    def parents(path: Path) -> None:
        for parent in reversed(path.parents):
            if parent not in made:
                options.extend(["--perms", "0755", "--dir", str(parent)])
                made.add(parent)

    options += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            options += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            options += ["--ro-bind", str(path), str(path)]
    options += ["--perms", "0755", "--dir", "/etc"]
    made.add(Path("/etc"))
    for name in ETC_FILES:
        options += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    # /tmp first: an environment or the work folder under /tmp is bound over it, never hidden by it.
    options += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    made.add(Path("/tmp"))
    prefixes = python_prefixes()
    for prefix in prefixes:
        parents(prefix)
        options += ["--ro-bind", str(prefix), str(prefix)]
        made.add(prefix)
    for hidden in hidden_paths(prefixes):
        options += ["--tmpfs", str(hidden)]
    parents(workdir)
    options += ["--bind", str(workdir), str(workdir)]
    return options


def _environment(workdir: Path) -> dict[str, str]:
    """The whole environment of sandboxed code: nothing is inherited from the caller."""
    home = str(workdir)
    return {
        "PATH": os.pathsep.join([str(Path(sys.prefix) / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": home,
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "JUPYTER_CONFIG_DIR": f"{home}/.jupyter",
        "JUPYTER_DATA_DIR": f"{home}/.local/share/jupyter",
        "JUPYTER_RUNTIME_DIR": f"{home}/.local/share/jupyter/runtime",
        "JUPYTER_PLATFORM_DIRS": "1",
        "IPYTHONDIR": f"{home}/.ipython",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "MALLOC_ARENA_MAX": "2",  # glibc reserves 64 MiB of address space per thread arena otherwise
        "JPY_PARENT_PID": "1",  # the sandbox's init: a kernel neither watches it nor prints its console banner
    }


def kill_group(process: subprocess.Popen) -> None:
    """Kill ``process``'s whole process group (it was started with ``start_new_session``) and reap it; a
    sandbox started there ends with everything in it (bwrap's ``--die-with-parent``)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
