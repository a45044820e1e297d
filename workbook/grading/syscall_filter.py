"""The sandbox's seccomp filter: no kernel keyring.

A uid's kernel keys (its user keyring, and any key whose permissions let another uid read it) live in the kernel,
in no folder and no process: they outlive the sandbox, the grading run and the student. Every sandbox of a slot
runs as one uid, so without this filter a student's code could post what it reads in the hidden cases' sandbox
(their inputs, the oracle's answers) into a key, for the code of a student graded later, in that slot or another,
to read back.

bubblewrap loads the filter (``--seccomp FD``) just before the command inside the sandbox starts; every process
the command starts inherits it, and none can remove it. It allows every system call but ``REFUSED``, which fail
with ``EPERM`` (as Docker's default profile refuses them): no key can be posted, searched or read, whatever its
permissions, so nothing is there to clear afterwards. A system call made through another ABI than the machine's
own (32-bit x86 or x32 on x86_64) kills the thread that makes it: libseccomp's action for a foreign architecture.

The program (classic BPF) is compiled once per process by libseccomp, through pyseccomp, and kept in a file that
only the grader may change, outside every sandbox (``program``); ``command`` makes a bubblewrap command line load
it, so that every caller (a ``Popen`` of the judge, jupyter_client's kernel launcher) starts it unchanged.
"""

from __future__ import annotations

import atexit
import errno
import functools
import os
import shutil
import tempfile
from pathlib import Path

REFUSED = ("add_key", "request_key", "keyctl")
"""The system calls the filter refuses: the kernel's key management."""
ERRNO = errno.EPERM
"""What a refused call fails with."""
SCRIPT = (
    "program=$1 bwrap=$2; shift 2; for fd in 3 4 5 6 7 8 9; do "
    """[ -e /proc/self/fd/$fd ] || eval 'exec "$bwrap" --seccomp '$fd' "$@" '$fd'<"$program"'; done; """
    'echo "workbook sandbox: no descriptor below 10 free for the seccomp filter" >&2; exit 125'
)
"""``sh -c SCRIPT NAME PROGRAM BWRAP ARG...``: open ``PROGRAM`` on the first descriptor from 3 to 9 not open yet
(a POSIX shell names one digit in a redirection; a caller's ``pass_fds`` keep their numbers) and execute ``BWRAP
--seccomp N ARG...``."""


@functools.cache
def compiled() -> bytes:
    """The filter's BPF program for this machine's architecture: every system call allowed but ``REFUSED``.

    Raises ``ImportError``, ``RuntimeError`` or ``OSError`` when libseccomp cannot be loaded or refuses the rules
    (``problem`` says which)."""
    import pyseccomp

    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    for name in REFUSED:
        rules.add_rule(pyseccomp.ERRNO(ERRNO), name)
    with tempfile.TemporaryFile() as exported:
        rules.export_bpf(exported)
        exported.seek(0)
        return exported.read()


_PROGRAMS: dict[int, Path] = {}
"""The file ``program`` wrote, by the pid of the process that wrote it."""


def program() -> Path:
    """A file holding ``compiled()``, readable by every uid and writable by none but this process's: a fresh folder
    of the system's temporary folder, none of which a sandbox sees, removed when this process exits. Written once
    per process, and again if something (a cleaner of old temporary files) removed it. Raises as ``compiled``."""
    path = _PROGRAMS.get(os.getpid())
    if path is None or not path.is_file():
        folder = Path(tempfile.mkdtemp(prefix="workbook-seccomp-"))
        folder.chmod(0o755)  # a sandbox uid's shell opens it before bubblewrap starts (a grader not root tests so)
        path = folder / "no-keyring.bpf"
        path.write_bytes(compiled())
        path.chmod(0o444)
        _PROGRAMS[os.getpid()] = path
        atexit.register(_remove, folder, os.getpid())
    return path


def _remove(folder: Path, owner: int) -> None:
    """Remove ``folder`` at exit, in the process that made it only (a forked child inherits the exit hooks)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def problem() -> str | None:
    """None when the filter can be built here, else why not (libseccomp missing, say), in a few words."""
    try:
        program()
    except (ImportError, RuntimeError, OSError) as error:
        return f"libseccomp cannot build the sandbox's seccomp filter ({type(error).__name__}: {error})"
    return None


def command(bwrap: list[str]) -> list[str]:
    """The command line that runs the bubblewrap command line ``bwrap`` (its executable first) with the filter:
    ``bwrap[0] --seccomp N bwrap[1:]``, the program open on descriptor N (``SCRIPT``). Raises as ``compiled``."""
    return [shutil.which("sh") or "/bin/sh", "-c", SCRIPT, "workbook-seccomp", str(program()), *bwrap]
