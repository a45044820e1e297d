"""Run untrusted code (a student's) in an OS sandbox: bubblewrap, a private folder, no network, rlimits.

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
- rlimits (``Limits``: address space, processes, open files, file size, CPU seconds, no core dumps)
  set by ``prlimit``, and a minimal environment (``PATH``, ``HOME=W``, ``LANG``, Jupyter/IPython/
  Matplotlib folders inside ``W``): nothing of the caller's environment (database URLs, tokens).

Who the code runs as (``detect``):

- as root: bubblewrap runs privileged (it can bind an interpreter that lives under ``/root``), drops
  every capability but the four it needs to enter ``W`` and switch user, and the command inside becomes
  ``FIRST_UID + slot`` (``setpriv``: real, effective and saved ids, no groups, no capabilities, no new
  privileges). One uid per concurrent slot, so that ``RLIMIT_NPROC`` of one student's fork bomb does
  not starve the student graded beside it. These uids must belong to no account of the host;
- not root (a hub's grader service): bubblewrap unprivileged, in a user namespace where the caller's
  own uid is mapped (the kernel's ``RLIMIT_NPROC`` then counts per namespace), nested user
  namespaces disabled;
- without bubblewrap, or where it cannot create namespaces: no sandbox. Mode ``required`` then raises
  ``SandboxUnavailable`` saying what is missing, ``auto`` runs the code unsandboxed (``describe()``
  says so and why), ``off`` never sandboxes.

What stays possible inside: reading the bound system and Python files, using CPU and memory up to the
limits (the limits are per process: a process tree may use ``processes`` times the memory, and CPU time
is not shared fairly with a sandbox beside it), writing in ``W`` (up to the file-size limit per file, not
in total: ``W`` is on the host's temporary disk) and ``/tmp`` (``TMP_BYTES``), and, as root, creating
nested user namespaces (which see nothing more than the sandbox).
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

from .errors import CourseError

MODES = ("required", "auto", "off")
"""``detect`` modes: refuse without a sandbox, fall back to none, or never sandbox."""
FIRST_UID = 61000
"""As root, slot N runs as uid ``FIRST_UID + N`` (and the same gid)."""
TMP_BYTES = 64 << 20
"""Size of the sandbox's tmpfs ``/tmp``."""
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf")
"""The only entries of ``/etc`` bound (read-only) into the sandbox."""
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) "
                "and allow user namespaces (sysctl user.max_user_namespaces > 0; on Debian "
                "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0 "
                "or an AppArmor profile for bwrap)")


class SandboxUnavailable(CourseError):
    """Isolation is ``required`` but this machine cannot sandbox; the message says what is missing and how to fix it."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of every process in a sandbox, in bytes, processes and seconds:

    - ``memory_bytes``: address space (RLIMIT_AS). An ipykernel running a lab notebook maps about
      210 MiB in the sandbox (60 MiB resident; ``MALLOC_ARENA_MAX=2``), so 1 GiB leaves the lab code
      about 800 MiB; the limit is per process;
    - ``processes``: RLIMIT_NPROC, threads included (an ipykernel has 11), counted per uid;
    - ``open_files`` (RLIMIT_NOFILE), ``file_bytes`` (RLIMIT_FSIZE: the largest file it may write) and
      ``cpu_seconds`` (RLIMIT_CPU per process: killed once used up).
    """

    memory_bytes: int = 1 << 30
    processes: int = 64
    open_files: int = 256
    file_bytes: int = 64 << 20
    cpu_seconds: int = 60

    def prlimit(self) -> list[str]:
        """``prlimit`` options setting these limits, soft = hard, and no core dumps."""
        values = {"as": self.memory_bytes, "nproc": self.processes, "nofile": self.open_files,
                  "fsize": self.file_bytes, "cpu": self.cpu_seconds, "core": 0}
        return [f"--{name}={value}:{value}" for name, value in values.items()]


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
    is no sandbox."""

    tool: str = "none"
    as_root: bool = False
    reason: str = ""

    @property
    def enforced(self) -> bool:
        """True when code runs inside a sandbox."""
        return self.tool == "bubblewrap"

    def uid(self, slot: int = 0) -> int:
        """The host uid that sandboxed code of ``slot`` runs as."""
        return FIRST_UID + slot if self.enforced and self.as_root else os.getuid()

    def describe(self, slots: int = 1, limits: Limits = Limits()) -> str:
        """One line for the instructor, e.g. ``sandbox: bubblewrap, user 61000, no network, 1 GiB memory,
        64 processes`` (``users 61000-61001`` for two slots), or ``sandbox: none (why)``."""
        if not self.enforced:
            return f"sandbox: none ({self.reason})"
        if self.as_root:
            first, last = self.uid(0), self.uid(slots - 1)
            who = f"user {first}" if slots == 1 else f"users {first}-{last}"
        else:
            who = f"user {os.getuid()} (the grader's own, in a user namespace)"
        return (f"sandbox: bubblewrap, {who}, no network, {size_text(limits.memory_bytes)} memory, "
                f"{limits.processes} processes, {limits.cpu_seconds} s CPU, {size_text(limits.file_bytes)} per file")


def detect(mode: str = "auto") -> Isolation:
    """The isolation this machine gives for ``mode`` (one of ``MODES``).

    Raises ``ValueError`` for another mode, and ``SandboxUnavailable`` in mode ``required`` when
    bubblewrap is missing or cannot start a sandbox here (the message names the problem and how to
    install or enable it). In mode ``auto`` that gives ``Isolation("none", reason=...)``.
    """
    if mode not in MODES:
        raise ValueError(f"isolation mode must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return Isolation(reason="isolation off")
    problem = _sandbox_problem(os.geteuid() == 0)
    if problem is None:
        return Isolation("bubblewrap", as_root=os.geteuid() == 0)
    if mode == "required":
        raise SandboxUnavailable(f"cannot sandbox student code: {problem}; {INSTALL_HINT}")
    return Isolation(reason=f"{problem}; student code runs as this user")


@functools.cache
def _sandbox_problem(as_root: bool) -> str | None:
    """None when a trial sandbox runs this interpreter, else what went wrong (checked once per process)."""
    missing = [tool for tool in ("bwrap", "setpriv", "prlimit") if not shutil.which(tool)]
    if missing:
        return f"{', '.join(missing)} not found on PATH"
    candidate = Isolation("bubblewrap", as_root=as_root)
    with private_dir(candidate) as work:
        argv = wrap(candidate, [sys.executable, "-c", "pass"], workdir=work)
        try:
            trial = subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                   timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bwrap could not start a sandbox ({error})"
    if trial.returncode != 0:
        detail = (trial.stderr.strip().splitlines() or [f"exit status {trial.returncode}"])[-1]
        return f"bwrap could not start a sandbox ({detail})"
    return None


@contextlib.contextmanager
def private_dir(isolation: Isolation, slot: int = 0) -> Iterator[Path]:
    """A fresh, empty, mode 0700 temporary folder owned by the uid of ``slot``; removed on exit with all
    it holds (whatever sandboxed processes left there, unreadable folders included).

    A sandbox's last processes are killed just after bubblewrap itself exits; as root, the exit waits
    (up to ``EXIT_WAIT`` seconds) until the slot's uid has no process left, so nothing of the sandbox
    outlives the block."""
    path = Path(tempfile.mkdtemp(prefix=f"workbook-sandbox-{slot}-"))
    uid = isolation.uid(slot)
    try:
        if uid != os.getuid():
            os.chown(path, uid, uid)
        yield path
    finally:
        if uid != os.getuid():
            wait_until_no_process_of(uid)
        remove_tree(path)


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

    handler = {"onexc": allow_and_retry} if sys.version_info >= (3, 12) else {"onerror": allow_and_retry}
    for attempt in range(50):
        try:
            if os.path.lexists(path):
                shutil.rmtree(path, **handler)
            return
        except OSError:
            if attempt == 49:
                raise
            time.sleep(0.1)


def wrap(isolation: Isolation, argv: list[str], *, workdir: Path, slot: int = 0,
         limits: Limits = Limits()) -> list[str]:
    """The command line that runs ``argv`` in the sandbox with cwd ``workdir`` (a ``private_dir`` of
    ``slot``, or a folder inside one) under ``limits``. Without a sandbox, ``argv`` itself (the caller
    runs it with ``cwd=workdir``). File descriptors the caller passes are inherited."""
    if not isolation.enforced:
        return list(argv)
    workdir = Path(os.path.abspath(workdir))
    command = ["bwrap"]
    if isolation.as_root:
        command += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                    "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                    "--cap-add", "CAP_SETPCAP", "--cap-add", "CAP_DAC_READ_SEARCH"]
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
        command += [shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--"]
    command += [shutil.which("prlimit") or "prlimit", *limits.prlimit(), "--"]
    return command + list(argv)


def site_folders() -> list[Path]:
    """Every site-packages folder this interpreter imports from: ``site.getsitepackages()`` and any other
    ``site-packages``/``dist-packages`` on ``sys.path`` (a ``.pth`` file may add one with ``site.addsitedir``).
    Other ``sys.path`` entries (the working directory, a project folder) are never among them."""
    folders = {Path(os.path.abspath(packages)) for packages in site.getsitepackages()}
    folders |= {Path(os.path.abspath(entry)) for entry in sys.path
                if entry and Path(entry).name in ("site-packages", "dist-packages")}
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
    return sorted(path for path in candidates
                  if any(path.is_relative_to(prefix) and path != prefix for prefix in prefixes))


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
