"""``workbook.grading.syscall_filter``: no sandboxed process reaches the kernel keyring, while the host does.

The probes call ``add_key`` and ``keyctl`` themselves (ctypes ``syscall``, this machine's numbers), as a student's
code would; each test that runs a sandbox skips, saying why, where bubblewrap cannot sandbox."""

from __future__ import annotations

import asyncio
import ctypes.util
import json
import platform
import subprocess
import sys
import uuid

import pytest
from sandbox_probes import KEY_CALLS, last_json

from workbook.grading import sandbox, syscall_filter
from workbook.grading.kernel import SandboxKernelManager
from workbook.grading.sandbox import SandboxUnavailable, detect, private_dir, wrap

PROBE = """
import ctypes, errno, json
ADD_KEY, KEYCTL = {numbers}
KEYCTL_GET_KEYRING_ID, KEYCTL_INVALIDATE, USER_KEYRING = 0, 21, ctypes.c_long(-4)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def outcome(result):
    return "done" if result >= 0 else errno.errorcode[ctypes.get_errno()]


keyring = libc.syscall(KEYCTL, KEYCTL_GET_KEYRING_ID, USER_KEYRING, ctypes.c_long(0))
key = libc.syscall(ADD_KEY, b"user", b"{name}", b"a hidden input", ctypes.c_long(14), USER_KEYRING)
seen = {{"keyctl": outcome(keyring), "add_key": outcome(key)}}
if key >= 0:
    libc.syscall(KEYCTL, KEYCTL_INVALIDATE, ctypes.c_long(key))  # the host's keyring keeps nothing of the test
print(json.dumps(seen))
"""


@pytest.fixture
def probe() -> str:
    """The probe's code for this machine (skips on a machine whose system call numbers are not in ``KEY_CALLS``)."""
    numbers = KEY_CALLS.get(platform.machine())
    if numbers is None:
        pytest.skip(f"no add_key/keyctl numbers for {platform.machine()} in this test")
    return PROBE.format(numbers=numbers, name=f"workbook-test-{uuid.uuid4().hex}")


def test_sandboxed_code_can_neither_post_nor_find_a_key_though_the_host_can(isolation, probe):
    outside = last_json(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60))
    if outside != {"keyctl": "done", "add_key": "done"}:
        pytest.skip(f"this machine refuses the keyring outside a sandbox too ({outside}): nothing to prove here")
    with private_dir(isolation, slot=1) as work:
        argv = wrap(isolation, [sys.executable, "-c", probe], workdir=work, slot=1)
        inside = last_json(subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=60))
    assert inside == {"keyctl": "EPERM", "add_key": "EPERM"}


def test_a_sandboxed_kernel_can_neither_post_nor_find_a_key(isolation, probe, tmp_path):
    manager = SandboxKernelManager(kernel_name="python3")
    manager.isolation, manager.slot = "required", 1
    outputs: list[dict] = []

    async def session() -> None:
        await manager.start_kernel(cwd=str(tmp_path))
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            reply = await client.execute_interactive(probe, timeout=60, output_hook=outputs.append)
            assert reply["content"]["status"] == "ok"
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)

    asyncio.run(session())
    printed = [output["content"]["text"] for output in outputs if output["msg_type"] == "stream"]
    assert json.loads(printed[-1]) == {"keyctl": "EPERM", "add_key": "EPERM"}


FAKE_BWRAP = """
import json, os, sys
number = int(sys.argv[2])
print(json.dumps({"options": sys.argv[1:3], "rest": sys.argv[3:], "program": os.read(number, 1 << 16).hex(),
                  "passed": sorted(int(fd) for fd in os.listdir("/proc/self/fd") if int(fd) in (3, 4))}))
"""


def test_the_program_goes_on_the_first_free_descriptor_and_passed_ones_keep_theirs(tmp_path):
    """The caller's descriptors 3 and 4 (as a judge's pipes) stay; the program is opened on 5; with 3 to 9 all
    taken, nothing starts."""
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!{sys.executable}\n{FAKE_BWRAP}")
    fake.chmod(0o755)
    command = syscall_filter.command([str(fake), "--unshare-pid", "--", "true"])
    taking = ["sh", "-c", 'exec 3</dev/null 4</dev/null; exec "$@"', "sh"]
    seen = last_json(subprocess.run([*taking, *command], capture_output=True, text=True, timeout=60))
    assert seen == {
        "options": ["--seccomp", "5"],
        "rest": ["--unshare-pid", "--", "true"],
        "program": syscall_filter.compiled().hex(),
        "passed": [3, 4],
    }
    every = ["sh", "-c", 'exec 3<&0 4<&0 5<&0 6<&0 7<&0 8<&0 9<&0; exec "$@"', "sh"]
    full = subprocess.run([*every, *command], capture_output=True, text=True, timeout=60)
    assert (full.returncode, full.stdout) == (125, "")
    assert full.stderr == "workbook sandbox: no descriptor below 10 free for the seccomp filter\n"


def test_without_libseccomp_required_refuses_and_auto_says_why(isolation, monkeypatch):
    monkeypatch.delitem(sys.modules, "pyseccomp", raising=False)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)  # as on a machine without libseccomp
    monkeypatch.setattr(syscall_filter, "_PROGRAMS", {})
    syscall_filter.compiled.cache_clear()
    sandbox._sandbox_problem.cache_clear()
    try:
        why = "libseccomp cannot build the sandbox's seccomp filter (RuntimeError: Unable to find libseccomp)"
        with pytest.raises(SandboxUnavailable, match=r"cannot sandbox student code: libseccomp .*libseccomp2"):
            detect("required")
        assert detect("auto").describe() == f"sandbox: none ({why}; student code runs as this user)"
    finally:
        syscall_filter.compiled.cache_clear()
        sandbox._sandbox_problem.cache_clear()
