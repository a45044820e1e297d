"""``workbook.grading.sandbox``: what code inside the sandbox can and cannot do, and the kernel manager built on it.

Every test that runs a sandbox skips, saying why, where bubblewrap cannot sandbox (not installed, or no
user namespaces)."""

from __future__ import annotations

import asyncio
import json
import os
import site
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sandbox_probes import host_processes_with, last_json

from workbook.grading import cgroups, sandbox
from workbook.grading.kernel import SandboxKernelManager, copy_for_kernel
from workbook.grading.sandbox import Isolation, Limits, SandboxUnavailable, detect, private_dir, wrap
from workbook.grading.sandbox_users import USERS
from workbook.paths import REPO, SOLUTIONS


def run(
    isolation: Isolation,
    code: str,
    slot: int = 0,
    limits: Limits | None = None,
    timeout: float = 60,
    before=lambda work: None,
) -> tuple[subprocess.CompletedProcess, Path]:
    """Run ``code`` with this interpreter in a fresh sandbox; return the finished process and its (removed) folder."""
    with private_dir(isolation, slot) as work:
        before(work)
        argv = wrap(isolation, [sys.executable, "-c", code], workdir=work, slot=slot, limits=limits or Limits())
        done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=timeout)
    return done, work


PROBE = """
import json, os, socket
def attempt(action):
    try:
        action()
        return "done"
    except Exception as error:
        return type(error).__name__
def write(path):
    with open(path, "w") as handle:
        handle.write("planted")
def connect():
    socket.create_connection(("1.1.1.1", 80), timeout=2)
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "cwd": os.getcwd(),
    "environment": sorted(os.environ), "home": os.environ.get("HOME"),
    "read": {path: attempt(lambda path=path: open(path).read()) for path in READ},
    "write": {path: attempt(lambda path=path: write(path)) for path in WRITE},
    "network": attempt(connect), "interfaces": [name for _, name in socket.if_nameindex()],
    "import workbook": attempt(lambda: __import__("workbook.grading.judge")),
    "root": sorted(os.listdir("/")),
}))
"""


@pytest.fixture(scope="module")
def probed(isolation, tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    (course / "gradebook.db").write_text("the gradebook")
    os.environ["WORKBOOK_TEST_SECRET"] = "postgresql://grader:secret@db/gradebook"
    try:
        reads = [
            str(course / "gradebook.db"),
            str(SOLUTIONS / "records.py"),
            str(REPO / "workbook" / "sandbox.py"),
            str(REPO / "pyproject.toml"),
            "/etc/hostname",
            "/root/.bashrc",
        ]
        # An editable install still copies the wheel's data (the solutions) into site-packages/workbook/data.
        reads += [
            str(path)
            for packages in site.getsitepackages()
            for path in Path(packages).glob("workbook/data/solutions/compaction_lab/records.py")
        ]
        writes = [str(course / "planted.txt"), f"{sys.prefix}/planted.txt", "/usr/planted.txt", "/etc/planted.txt"]
        code = f"READ = {reads!r}\nWRITE = {writes!r}\n{PROBE}"
        done, work = run(isolation, code, slot=1, before=lambda work: (work / "mine.txt").write_text("mine"))
    finally:
        del os.environ["WORKBOOK_TEST_SECRET"]
    return last_json(done), work, course


def test_sandboxed_code_runs_as_the_slots_own_unprivileged_user_in_its_private_folder(isolation, probed):
    seen, work, _ = probed
    assert seen["uid"] == seen["gid"] == isolation.uid(1)
    if isolation.as_root:
        users = sandbox.USERS
        assert users.first_uid <= isolation.uid(1) < users.first_uid + users.count and seen["groups"] == []
        assert isolation.uid(1) != isolation.uid(0)
    assert seen["cwd"] == seen["home"] == str(work)
    assert not work.exists(), "the private folder is removed afterwards"


def test_sandboxed_code_cannot_read_the_course_the_repository_or_host_files(probed):
    seen, _, _ = probed
    assert set(seen["read"].values()) == {"FileNotFoundError"}, seen["read"]
    assert seen["import workbook"] == "ModuleNotFoundError"
    assert "home" not in seen["root"] and "srv" not in seen["root"]


def test_sandboxed_code_cannot_write_outside_its_private_folder(probed):
    seen, _, course = probed
    assert seen["write"][str(course / "planted.txt")] == "FileNotFoundError"
    assert {result for path, result in seen["write"].items() if path != str(course / "planted.txt")} <= {
        "OSError",
        "PermissionError",
        "FileNotFoundError",
    }, seen["write"]
    assert "done" not in seen["write"].values()
    assert list(course.iterdir()) == [course / "gradebook.db"]
    assert not Path(sys.prefix, "planted.txt").exists()


def test_sandboxed_code_has_no_network_and_none_of_the_callers_environment(probed):
    seen, _, _ = probed
    assert seen["network"] == "OSError" and seen["interfaces"] == ["lo"]
    assert "WORKBOOK_TEST_SECRET" not in seen["environment"]
    assert set(seen["environment"]) >= {"PATH", "HOME", "LANG", "JUPYTER_CONFIG_DIR", "IPYTHONDIR"}


def test_a_write_in_the_private_folder_stays_there_until_it_is_removed(isolation):
    code = "import json, os\nopen('result.txt', 'w').write('kept')\nprint(json.dumps(sorted(os.listdir('.'))))"
    done, work = run(isolation, code, before=lambda work: (work / "given.txt").write_text("given"))
    assert last_json(done) == ["given.txt", "result.txt"]
    assert not work.exists()


def test_the_memory_limit_stops_an_allocation_beyond_it(isolation):
    code = (
        "import json\nheld = []\ntry:\n    while True:\n        held.append(bytearray(16 << 20))\n"
        "except MemoryError:\n    print(json.dumps({'MiB': 16 * len(held)}))"
    )
    done, _ = run(isolation, code, limits=Limits(memory_bytes=256 << 20))
    assert 0 < last_json(done)["MiB"] < 256


def test_the_process_limit_stops_a_fork_bomb_and_nothing_outlives_the_sandbox(isolation):
    marker = f"workbook-test-{uuid.uuid4().hex}"
    code = f"""
import json, os, subprocess, sys, time
children = 0
try:
    for _ in range(200):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", {marker!r}], start_new_session=True)
        children += 1
except OSError as error:
    print(json.dumps({{"children": children, "error": type(error).__name__}}))
"""
    done, _ = run(isolation, code, limits=Limits(processes=16))
    seen = last_json(done)
    assert 0 < seen["children"] < 16 and seen["error"] == "BlockingIOError"
    assert host_processes_with(marker) == [], "every process the sandbox started ended with it"


def test_a_detached_process_dies_with_the_sandbox(isolation):
    marker = f"workbook-test-{uuid.uuid4().hex}"
    code = (
        f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', "
        f"{marker!r}], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL)\nprint('started')"
    )
    done, _ = run(isolation, code)
    assert done.stdout.strip() == "started"
    assert host_processes_with(marker) == []


def test_the_file_size_and_cpu_limits_apply(isolation):
    code = (
        "import json\ntry:\n    open('big', 'wb').write(bytes(2 << 20))\n    print(json.dumps('written'))\n"
        "except OSError as error:\n    print(json.dumps(error.strerror))"
    )
    done, _ = run(isolation, code, limits=Limits(file_bytes=1 << 20))
    assert last_json(done) == "File too large"
    done, _ = run(isolation, "while True:\n    pass", limits=Limits(cpu_seconds=1))
    assert done.returncode != 0


def test_the_private_folder_is_0700_owned_by_the_slot_and_removed_with_whatever_was_left(isolation):
    with private_dir(isolation, slot=1) as work:
        info = work.stat()
        assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == isolation.uid(1)
        argv = wrap(
            isolation,
            [
                sys.executable,
                "-c",
                "import os; os.makedirs('a/b'); open('a/b/c', 'w').write('x'); os.chmod('a/b', 0); os.chmod('a', 0)",
            ],
            workdir=work,
            slot=1,
        )
        subprocess.run(argv, cwd=work, check=True)
    assert not work.exists()


def test_without_a_sandbox_auto_says_why_required_refuses_and_off_never_tries(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox._sandbox_problem.cache_clear()
    try:
        none = detect("auto")
        assert not none.enforced
        assert none.describe().startswith("sandbox: none (bwrap, setpriv, prlimit not found on PATH")
        with pytest.raises(SandboxUnavailable, match="bwrap.*apt-get install bubblewrap"):
            detect("required")
    finally:
        sandbox._sandbox_problem.cache_clear()
    assert detect("off").describe() == "sandbox: none (isolation off)"
    assert wrap(detect("off"), ["python", "-c", "pass"], workdir=tmp_path) == ["python", "-c", "pass"]
    with pytest.raises(ValueError, match="one of required, auto, off"):
        detect("sometimes")


def test_describe_names_the_users_the_network_and_the_limits():
    first = Isolation("bubblewrap", as_root=True).uid(0)
    assert Isolation("bubblewrap", as_root=True).describe(slots=2) == (
        f"sandbox: bubblewrap, users {first}-{first + 1}, no network, no keyring; per sandbox: no limit (no cgroup "
        "hierarchy mounted); private folder: no size limit (its tmpfs needs root); per process: 1 GiB memory, "
        "64 processes per user, 60 s CPU, 64 MiB per file"
    )
    assert (
        Isolation("bubblewrap", as_root=True)
        .describe(slots=0)
        .startswith(
            f"sandbox: bubblewrap, one user per grading process, of {USERS.range_text()}, no network, no keyring; "
        )
    ), "a run whose grading processes take their own uids names the range"
    limited = cgroups.Support(
        (cgroups.Hierarchy(1, Path("/m"), ("memory",)), cgroups.Hierarchy(1, Path("/p"), ("pids",))),
        "no cpu controller",
    )
    assert Isolation("bubblewrap", as_root=True, cgroups=limited, tmpfs=True).describe() == (
        f"sandbox: bubblewrap, user {first}, no network, no keyring; per sandbox (cgroup v1): 1 GiB memory, "
        "64 processes; not per sandbox: no cpu controller; private folder: 256 MiB tmpfs; per process: 1 GiB "
        "address space, 60 s CPU, 64 MiB per file"
    )
    assert (
        Isolation("bubblewrap")
        .describe()
        .startswith(f"sandbox: bubblewrap, user {os.getuid()} (the grader's own, in a user namespace), no network")
    )


def test_project_folders_inside_a_bound_prefix_are_hidden():
    package = Path(sandbox.__file__).resolve().parent
    assert package in sandbox.hidden_paths([package.parent])
    assert sandbox.hidden_paths([Path("/nonexistent-prefix")]) == []


def test_the_kernel_gets_the_package_but_no_notebook_symlink_or_fifo(tmp_path):
    source = tmp_path / "graded"
    (source / "compaction_lab" / "__pycache__").mkdir(parents=True)
    (source / "compaction_lab" / "records.py").write_text("# mine")
    (source / "compaction_lab" / "__pycache__" / "records.cpython-311.pyc").write_bytes(b"")
    (source / "01_record_parsing.ipynb").write_text("{}")
    (source / "timestamp.txt").write_text("2026-12-15 16:59:02 UTC")
    (source / "compaction_lab" / "budget.py").symlink_to(SOLUTIONS / "budget.py")
    os.mkfifo(source / "fifo")
    dest = tmp_path / "private"
    dest.mkdir()
    copied = copy_for_kernel(source, dest, os.getuid())
    assert sorted(map(str, copied)) == ["compaction_lab/records.py", "timestamp.txt"]
    assert sorted(str(path.relative_to(dest)) for path in dest.rglob("*")) == [
        "compaction_lab",
        "compaction_lab/records.py",
        "timestamp.txt",
    ]


def test_a_sandboxed_kernel_runs_in_a_private_copy_and_leaves_nothing(isolation, tmp_path):
    graded = tmp_path / "graded"
    (graded / "compaction_lab").mkdir(parents=True)
    (graded / "compaction_lab" / "records.py").write_text("LAB = 1\n")
    (graded / "01_record_parsing.ipynb").write_text("{}")
    code = (
        "import json, os\nfrom compaction_lab.records import LAB\nopen('written.txt', 'w').write('x')\n"
        "print(json.dumps({'uid': os.getuid(), 'cwd': os.getcwd(), 'files': sorted(os.listdir('.')), 'lab': LAB}))"
    )
    manager = SandboxKernelManager(kernel_name="python3")
    manager.isolation, manager.slot = "required", 1

    async def session() -> dict:
        await manager.start_kernel(cwd=str(graded))
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            reply = await client.execute_interactive(code, timeout=60, output_hook=outputs.append)
            assert reply["content"]["status"] == "ok"
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)
        return json.loads(next(output["content"]["text"] for output in outputs if output["msg_type"] == "stream"))

    outputs = []
    seen = asyncio.run(session())
    assert seen["uid"] == isolation.uid(1) and seen["lab"] == 1
    assert "01_record_parsing.ipynb" not in seen["files"] and "compaction_lab" in seen["files"]
    assert manager.transport == "ipc" and manager.connection_file.startswith(seen["cwd"])
    assert not Path(seen["cwd"]).exists()
    assert sorted(path.name for path in graded.iterdir()) == ["01_record_parsing.ipynb", "compaction_lab"]


def test_a_kernel_manager_that_requires_a_sandbox_refuses_without_one(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox._sandbox_problem.cache_clear()
    manager = SandboxKernelManager(kernel_name="python3")
    manager.isolation = "required"
    try:
        with pytest.raises(SandboxUnavailable, match="cannot sandbox student code"):
            asyncio.run(manager.start_kernel(cwd=str(tmp_path)))
    finally:
        sandbox._sandbox_problem.cache_clear()
    assert not manager.has_kernel


SYSTEM_PYTHON = Path("/usr/bin/python3")


@pytest.mark.skipif(
    os.geteuid() != 0 or not SYSTEM_PYTHON.exists(), reason="needs root (to become another user) and /usr/bin/python3"
)
def test_as_an_ordinary_user_the_sandbox_is_a_user_namespace_with_the_same_walls(isolation, monkeypatch):
    """The hub's grader service is not root: bwrap alone, the caller's uid mapped in a user namespace."""
    user = isolation.uid(2)  # a uid of this process's own, used by no other test here
    monkeypatch.setattr(sandbox, "python_prefixes", lambda: [])  # the system Python lives in /usr
    with private_dir(isolation, slot=2) as work:
        seen = _run_as(user, work)
    assert seen["uid"] == user and seen["network"] == "OSError" and not seen["course"]
    assert seen["nested"] != 0, "no user namespace inside the sandbox"
    assert 0 < seen["children"] < 16, "the process limit counts the sandbox's processes"
    assert "work" not in seen["root"] and "root" not in seen["root"]


def _run_as(user: int, work: Path) -> dict:
    """Run the probe below as ``user`` (not root) in a user-namespace sandbox in ``work``; its findings."""
    code = """
import json, os, socket, subprocess, sys
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    network = "open"
except OSError as error:
    network = type(error).__name__
nested = subprocess.run(["unshare", "-U", "true"], capture_output=True).returncode
children = 0
try:
    for _ in range(100):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        children += 1
except OSError:
    pass
print(json.dumps({"uid": os.getuid(), "network": network, "nested": nested, "children": children,
                  "course": os.path.exists(sys.argv[1]), "root": sorted(os.listdir("/"))}))
"""
    argv = wrap(
        Isolation("bubblewrap", as_root=False),
        [str(SYSTEM_PYTHON), "-c", code, str(REPO)],
        workdir=work,
        limits=Limits(processes=16),
    )
    done = subprocess.run(
        ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--", *argv],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return last_json(done)


def test_an_environment_under_tmp_and_a_site_folder_added_by_a_pth_file_are_bound(tmp_path, monkeypatch):
    # The hub's grader service: a venv in /tmp whose .pth file adds another environment's site-packages.
    venv, other = tmp_path / "venv", tmp_path / "other" / "lib" / "python3.11" / "site-packages"
    other.mkdir(parents=True)
    venv.mkdir()
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "path", [*sys.path, str(other), str(tmp_path)])
    assert {venv, other} <= set(sandbox.python_prefixes())
    assert tmp_path not in sandbox.python_prefixes()  # a plain sys.path entry (a project folder) is never bound
    options = sandbox._filesystem(tmp_path / "work")
    tmpfs, bound = options.index("/tmp"), options.index(str(venv))
    assert options[tmpfs - 1] == "--tmpfs" and tmpfs < bound and options[bound - 1] == "--ro-bind"
