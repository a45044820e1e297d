"""Limits per sandbox, not per process (issue 21, item 6): memory, processes, CPU share and disk of one sandbox,
whatever the number of its processes; every process of a sandbox in its control group from its start; nothing
left behind; ``describe`` names what applies.

Each test needs the grading sandbox and the controller or tmpfs it measures, and skips saying which is
missing (the tmpfs and, on most machines, the cgroups need root)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pyseccomp
import pytest
from sandbox_probes import host_processes_with, last_json

from workbook.grading import cgroups, private_disk, sandbox
from workbook.grading.sandbox import Limits, private_dir, wrap


def needs(isolation: sandbox.Isolation, controller: str) -> None:
    """Skip unless sandboxes get a group limited by ``controller`` here."""
    if controller not in isolation.cgroups.controllers:
        pytest.skip(f"no {controller} cgroup for sandboxes here: {isolation.cgroups.missing}")


def run(isolation, code: str, timeout: float = 120):
    """Run ``code`` in a fresh sandbox (the default ``Limits``); return the finished process, what its group
    recorded and its folders."""
    with private_dir(isolation) as work:
        group = sandbox.sandbox_group(work)
        argv = wrap(isolation, [sys.executable, "-c", code], workdir=work)
        done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=timeout)
        usage = group.usage() if group else cgroups.Usage()
    return done, usage, [folder for _, folder in group.folders()] if group else [], work


def nothing_left(folders: list[Path], work: Path) -> None:
    assert [folder for folder in folders if folder.exists()] == [], "the sandbox's groups are removed"
    assert not work.exists() and not private_disk.mounted(work), "its folder is unmounted and removed"


HOLD = "import time; held = b'x' * (900 << 20); print('held', flush=True); time.sleep(2)"
THREE_OF_900_MIB = f"""
import json, subprocess, sys
children = [subprocess.Popen([sys.executable, "-c", {HOLD!r}], stdout=subprocess.PIPE) for _ in range(3)]
print(json.dumps([child.wait() for child in children]))
"""
"""Three processes of 900 MiB each at once; prints their exit statuses."""


def test_three_processes_of_900_mib_are_stopped_at_the_sandboxs_memory_limit(isolation):
    needs(isolation, "memory")
    done, usage, folders, work = run(isolation, THREE_OF_900_MIB)
    codes = last_json(done)
    assert codes.count(-9) >= 2, f"at most one 900 MiB process fits a 1 GiB sandbox: {codes}"
    assert usage.oom_kills >= 2
    assert usage.peak_memory <= Limits().memory_bytes
    nothing_left(folders, work)


def test_a_process_bomb_is_stopped_at_the_sandboxs_process_limit_and_nothing_outlives_it(isolation):
    needs(isolation, "pids")
    marker = f"workbook-test-{uuid.uuid4().hex}"
    code = f"""
import json, os, subprocess, sys
children = 0
try:
    for _ in range(500):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", {marker!r}], start_new_session=True)
        children += 1
except OSError as error:
    print(json.dumps({{"children": children, "error": type(error).__name__}}))
"""
    done, usage, folders, work = run(isolation, code)
    seen = last_json(done)
    assert seen["error"] == "BlockingIOError" and 0 < seen["children"] < Limits().processes
    assert usage.process_limit_hits >= 1, "the sandbox's pids cgroup refused the fork, not the per-uid rlimit"
    assert host_processes_with(marker) == []
    nothing_left(folders, work)


def test_44_busy_children_share_the_sandboxs_one_cpu(isolation):
    needs(isolation, "cpu")
    code = """
import json, os, subprocess, sys, time
busy = "import time\\nend = time.monotonic() + 3\\nwhile time.monotonic() < end:\\n    pass"
start = time.monotonic()
children = [subprocess.Popen([sys.executable, "-c", busy]) for _ in range(44)]
codes = [child.wait() for child in children]
print(json.dumps({"codes": codes, "wall": time.monotonic() - start}))
"""
    done, usage, folders, work = run(isolation, code)
    seen = last_json(done)
    assert seen["codes"] == [0] * 44
    assert usage.cpu_seconds is not None or usage.throttled > 0
    if usage.cpu_seconds is not None:
        cpus = usage.cpu_seconds / seen["wall"]
        print(f"44 busy children used {cpus:.2f} CPUs (limit {Limits().cpus:g}), load {os.getloadavg()}")
        assert cpus <= Limits().cpus * 1.25, "at most the sandbox's share, not one CPU per child"
        # held back at the quota, unless the machine was too busy for them to reach it
        assert usage.throttled > 0 or cpus < Limits().cpus * 0.8
    nothing_left(folders, work)


def test_writing_300_mib_into_the_private_folder_fails_at_its_size(isolation):
    if not isolation.tmpfs:
        pytest.skip("the private folder's tmpfs needs root")
    code = """
import errno, json
written = 0
try:
    for index in range(6):
        with open(f"part-{index}", "wb") as handle:
            for _ in range(50):
                handle.write(bytes(1 << 20))
                written += 1 << 20
    print(json.dumps({"written": written, "error": None}))
except OSError as error:
    print(json.dumps({"written": written, "error": error.errno}))
"""
    done, _, folders, work = run(isolation, code)
    seen = last_json(done)
    assert seen["error"] == errno.ENOSPC
    assert Limits().disk_bytes - (2 << 20) <= seen["written"] <= Limits().disk_bytes < 300 << 20
    nothing_left(folders, work)


def test_every_process_of_a_sandbox_is_in_its_group_from_its_start(isolation):
    if not isolation.cgroups.usable:
        pytest.skip(f"no cgroup for sandboxes here: {isolation.cgroups.missing}")
    with private_dir(isolation) as work:
        group = sandbox.sandbox_group(work)
        code = "import subprocess, time\nsubprocess.Popen(['sleep', '60'])\nprint('ready', flush=True)\ntime.sleep(60)"
        argv = wrap(isolation, [sys.executable, "-c", code], workdir=work)
        process = subprocess.Popen(argv, cwd=work, stdout=subprocess.PIPE, text=True, start_new_session=True)
        try:
            assert process.stdout.readline().strip() == "ready"
            inside = set(group.pids())
            assert process.pid in inside, "bubblewrap itself entered the group before it started"
            if isolation.as_root:
                assert set(sandbox.processes_of(isolation.uid(0))) <= inside
            assert len(inside) >= 4  # bubblewrap, the sandbox's init, python, sleep
        finally:
            sandbox.kill_group(process)
            process.stdout.close()
    assert sandbox.sandbox_group(work) is None
    nothing_left([folder for _, folder in group.folders()], work)


def test_the_groups_and_mounts_of_a_grading_process_that_died_are_removed(isolation):
    if not isolation.cgroups.usable:
        pytest.skip(f"no cgroup for sandboxes here: {isolation.cgroups.missing}")
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no process has now
    group = cgroups.Group(isolation.cgroups, f"{isolation.uid(0)}-{dead.pid}-{uuid.uuid4().hex[:12]}")
    for _, folder in group.folders():
        folder.mkdir()
    left = subprocess.Popen(group.enter(["sleep", "600"]), start_new_session=True)
    try:
        while Path(f"/proc/{left.pid}/cmdline").read_bytes().split(b"\0")[0] != b"sleep":
            time.sleep(0.01)  # until it has entered every hierarchy's group
        assert cgroups.sweep(isolation.cgroups) == [group.name]
        assert left.wait(timeout=30) == -9
    finally:
        sandbox.kill_group(left)
    assert [folder for _, folder in group.folders() if folder.exists()] == []
    if isolation.tmpfs:
        stale = Path(tempfile.mkdtemp(prefix=f"{private_disk.PREFIX}{isolation.uid(0)}-{dead.pid}-"))
        private_disk.mount(stale, 1 << 20, os.getuid())
        assert stale in private_disk.sweep()
        assert not stale.exists() and not private_disk.mounted(stale)


def test_describe_says_which_limits_apply_here(isolation):
    line = isolation.describe()
    for controller, text in (("memory", "1 GiB memory"), ("pids", "64 processes"), ("cpu", "1 CPU")):
        assert (text in line.split("; per process")[0]) == (controller in isolation.cgroups.controllers), line
    assert ("256 MiB tmpfs" in line) == isolation.tmpfs
    if isolation.cgroups.controllers:
        assert f"per sandbox ({isolation.cgroups.versions()})" in line
    print(line)


AS_GRADER = """
import json, subprocess, sys
from workbook.grading import sandbox
isolation = sandbox.detect("required")
code = sys.argv[1]
with sandbox.private_dir(isolation) as work:
    group = sandbox.sandbox_group(work)
    done = subprocess.run(sandbox.wrap(isolation, [sys.executable, "-c", code], workdir=work), cwd=work,
                          capture_output=True, text=True)
    usage = group.usage() if group else None
print(json.dumps({"describe": isolation.describe(), "stdout": done.stdout, "stderr": done.stderr[-2000:],
                  "oom_kills": usage and usage.oom_kills}))
"""
SYSTEM_PYTHON = Path("/usr/bin/python3")


def test_as_the_grading_account_a_group_delegated_to_it_limits_its_sandboxes(isolation):
    """The hub's grader service (not root) with a cgroup of its own (``WORKBOOK_SANDBOX_CGROUP``): here a v1
    group an admin gave the account; a systemd unit's ``Delegate=yes`` gives a v2 one."""
    if not isolation.as_root or not SYSTEM_PYTHON.exists():
        pytest.skip("needs root (to give a group to another user) and /usr/bin/python3")
    v1 = [hierarchy for hierarchy in isolation.cgroups.hierarchies if hierarchy.version == 1]
    if {name for hierarchy in v1 for name in hierarchy.controllers} != {"memory", "pids", "cpu"}:
        pytest.skip(f"needs cgroup v1 memory, pids and cpu hierarchies: {isolation.cgroups.missing}")
    user, name = isolation.uid(3), f"workbook-test-delegated-{uuid.uuid4().hex[:8]}"
    roots = [point for _, point, _, _ in cgroups._mounts()]  # the hierarchies' mount points
    delegated = [
        max((root for root in roots if h.folder.is_relative_to(root)), key=lambda root: len(root.parts)) / name
        for h in v1
    ]
    code = Path(tempfile.mkdtemp(prefix="workbook-test-code-"))  # the package where the account may read it
    try:
        os.chmod(code, 0o755)
        shutil.copytree(
            Path(sandbox.__file__).parents[1], code / "workbook", ignore=shutil.ignore_patterns("__pycache__")
        )
        shutil.copy(pyseccomp.__file__, code)  # a dependency of the package (its seccomp filter), one module
        subprocess.run(["chmod", "-R", "a+rX", str(code)], check=True)
        for folder in delegated:
            folder.mkdir()
            for path in (folder, folder / "cgroup.procs", folder / "tasks"):
                os.chown(path, user, user)
        done = subprocess.run(
            ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "env", f"PYTHONPATH={code}",
             f"WORKBOOK_SANDBOX_CGROUP=/{name}", str(SYSTEM_PYTHON), "-c", AS_GRADER, THREE_OF_900_MIB],
            cwd="/", capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        seen = last_json(done)
    finally:
        shutil.rmtree(code)
        for folder in delegated:
            for group in [folder / cgroups.FOLDER, folder]:
                if group.exists():
                    group.rmdir()
    assert f"user {user} (the grader's own, in a user namespace)" in seen["describe"]
    assert "per sandbox (cgroup v1): 1 GiB memory, 64 processes, 1 CPU" in seen["describe"], seen["describe"]
    assert json.loads(seen["stdout"]).count(-9) >= 2, seen
    assert seen["oom_kills"] >= 2
