"""A real JupyterHub on 127.0.0.1 for the hub tests, started from deploy/jupyterhub/jupyterhub_config.py.

``running_hub(tmp)`` creates a Linux account for the instructor, each student and the grading account
(as the deployment's step 3 does; named ``student1-RUN`` and so on, deleted again on exit), starts
JupyterHub (with configurable-http-proxy from the npm registry) and the course's grader service, and
stops them on exit. The deployment's config is loaded unchanged except for the authenticator
(SharedPasswordAuthenticator: one password for all) and where state, exchange, homes and ports go (a
fresh directory, free ports): the spawner is the deployment's LocalProcessSpawner, so each server runs
under its user's own uid, as on the real hub. A ``test-driver`` service with an API token stands in for
the admin who starts servers. Needs root.

The hub, its servers and its grader service run ``support.hub_environment``: this environment's packages, this
project and the deployment's config copied outside the checkout, under an interpreter every account may run
(this environment's own may live where only root can reach, e.g. pyenv under /root, and the checkout in a
folder no other account may enter).

Clients talk HTTP through the proxy exactly as a browser would: ``Hub.user(name)`` to a user's own
server with that user's token, ``Hub.grader(name)`` to the grader service with an instructor's token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from browser import NO_HUB_EXTRA
from hub_environment import hub_environment, shared_interpreter
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from workbook.course.layout import ASSIGNMENT, PACKAGE
from workbook.paths import REPO, SOLUTIONS

DEPLOY_CONFIG = REPO / "deploy" / "jupyterhub" / "jupyterhub_config.py"
COURSE_ID = "compaction-workbook"
RUN = secrets.token_hex(3)
"""Suffix of this test process's account names: hub tests run side by side on one machine never share an account."""
INSTRUCTOR = f"instructor1-{RUN}"
STUDENTS = tuple(f"student{number}-{RUN}" for number in (1, 2, 3))
GRADER = f"grader-{RUN}"
PASSWORD = "workbook-test-password"
DRIVER = "test-driver"
ACCOUNT_MARK = "compaction-workbook hub test"
"""The comment (GECOS) field of the accounts the harness creates: only such accounts are ever deleted."""


def proxy_command() -> str | None:
    """configurable-http-proxy: the project-local install (scripts/install-system-deps.sh), else PATH."""
    local = REPO / ".hub-deps" / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(local) if local.exists() else shutil.which("configurable-http-proxy")


_HELD: set[str] = set()
"""Accounts that an ``accounts`` block of this process holds right now (a hub started inside another shares them)."""


@contextlib.contextmanager
def accounts(homes: dict[str, Path]) -> Iterator[None]:
    """Create a Linux account per name of ``homes`` (its own group, that home); delete them on exit.

    Accounts an enclosing block holds are used as they are. An existing account of such a name (``RUN``
    makes that unlikely) is replaced if it is marked ``ACCOUNT_MARK``; otherwise raises HubError naming it,
    and it is never touched.
    """
    missing = {name: home for name, home in homes.items() if name not in _HELD}
    for name in missing:
        with contextlib.suppress(KeyError):
            if pwd.getpwnam(name).pw_gecos != ACCOUNT_MARK:
                raise HubError(f"an account {name!r} exists and is not a test account; the hub test needs that name")
            subprocess.run(["userdel", "--force", "--remove", name], capture_output=True)
    created = []
    try:
        for name, home in missing.items():
            subprocess.run(
                [
                    "useradd",
                    "--create-home",
                    "--home-dir",
                    str(home),
                    "--shell",
                    "/bin/bash",
                    "--user-group",
                    "--comment",
                    ACCOUNT_MARK,
                    name,
                ],
                check=True,
                capture_output=True,
            )
            created.append(name)
            _HELD.add(name)
        yield
    finally:
        for name in created:
            _HELD.discard(name)
            subprocess.run(["userdel", "--force", "--remove", name], capture_output=True)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class HubError(RuntimeError):
    """A hub or server request failed; the message names the request and quotes the response."""


@dataclass
class Client:
    """HTTP client for one server behind the proxy (``base`` ends with "/"), as one token's owner."""

    base: str
    token: str
    session: requests.Session = field(default_factory=requests.Session)

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        """Send a request; raises HubError naming method and URL unless the status is 2xx."""
        url = self.base + path
        headers = {"Authorization": f"token {self.token}", **kwargs.pop("headers", {})}
        response = self.session.request(method, url, headers=headers, timeout=kwargs.pop("timeout", 120), **kwargs)
        if not response.ok:
            raise HubError(f"{method} {url} -> {response.status_code}: {response.text[:2000]}")
        return response

    def json(self, method: str, path: str, **kwargs):
        """``request`` and decode the JSON answer."""
        return self.request(method, path, **kwargs).json()

    def run_in_terminal(self, command: str, timeout: float = 300) -> str:
        """Type ``command`` into a new Jupyter terminal of this server; return its output.

        Raises HubError with the output when the command exits non-zero or does not finish in time.
        """
        name = self.json("POST", "api/terminals")["name"]
        try:
            return asyncio.run(self._type(name, command, timeout))
        finally:
            self.request("DELETE", f"api/terminals/{name}")

    async def _type(self, name: str, command: str, timeout: float) -> str:
        url = re.sub("^http", "ws", self.base) + f"terminals/websocket/{name}"
        socket_ = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {self.token}"}))
        await socket_.write_message(json.dumps(["stdin", f"{command}; echo __EXIT__$?\r"]))
        output = ""
        deadline = time.monotonic() + timeout
        while not (done := re.search(r"__EXIT__(\d+)", output)):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HubError(f"terminal {name}: {command!r} did not finish in {timeout}s:\n{output}")
            message = await asyncio.wait_for(socket_.read_message(), remaining)
            if message is None:
                raise HubError(f"terminal {name} closed during {command!r}:\n{output}")
            kind, *payload = json.loads(message)
            if kind == "stdout":
                output += payload[0]
        socket_.close()
        if done.group(1) != "0":
            raise HubError(f"terminal {name}: {command!r} exited {done.group(1)}:\n{output}")
        return output


@dataclass
class Hub:
    """A running hub: its public URL, its state folder (``WORKBOOK_HUB_STATE``), the course directory, the exchange
    root, the folder of the users' homes, the shared Python's ``bin`` (``workbook``, ``nbgrader``; give terminals full
    paths), the admin (driver) client."""

    url: str
    state: Path
    course_root: Path
    exchange: Path
    homes: Path
    bin: Path
    admin: Client
    tokens: dict[str, str] = field(default_factory=dict)

    def token(self, user: str) -> str:
        """An API token of ``user`` (made once through the hub's REST API)."""
        if user not in self.tokens:
            answer = self.admin.json("POST", f"users/{user}/tokens", json={"note": "hub test"})
            self.tokens[user] = answer["token"]
        return self.tokens[user]

    def start_server(self, user: str, timeout: float = 120) -> None:
        """Start ``user``'s server through the hub's REST API and wait until the hub reports it ready."""
        admin = Client(self.admin.base, self.admin.token)  # a session of its own: start_servers runs threads
        if not admin.json("GET", f"users/{user}")["servers"]:
            admin.request("POST", f"users/{user}/server")
        deadline = time.monotonic() + timeout
        while not admin.json("GET", f"users/{user}")["servers"].get("", {}).get("ready"):
            if time.monotonic() > deadline:
                raise HubError(f"the server of {user} was not ready after {timeout}s")
            time.sleep(0.5)

    def start_servers(self, users: Iterable[str]) -> None:
        """Start the servers of ``users`` side by side; return once all are ready (raises the first HubError)."""
        with ThreadPoolExecutor() as pool:
            for started in [pool.submit(self.start_server, user) for user in users]:
                started.result()

    def user(self, name: str) -> Client:
        """Client for ``name``'s own running server, authenticated as ``name``."""
        self.start_server(name)
        return Client(f"{self.url}/user/{name}/", self.token(name))

    def grader(self, instructor: str) -> Client:
        """Client for the course's grader service, authenticated as ``instructor``."""
        return Client(f"{self.url}/services/{COURSE_ID}/", self.token(instructor))


def _hub_config(tmp: Path, deploy_config: Path, driver_token: str, own_login: bool = False) -> Path:
    config = tmp / "jupyterhub_config.py"
    login = (
        "# The deployment's own login (its environment settings chose it).\n"
        if own_login
        else "c.JupyterHub.authenticator_class = 'shared-password'\n"
        f"c.SharedPasswordAuthenticator.user_password = {PASSWORD!r}\n"
    )
    config.write_text(
        f"""\
load_subconfig({str(deploy_config)!r})
# The site-specific settings the deployment names, but the spawner (its own LocalProcessSpawner):
{login}# (the database stays the deployment's SQLite, under WORKBOOK_HUB_STATE)
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.JupyterHub.services.append({{"name": {DRIVER!r}, "api_token": {driver_token!r}}})
c.JupyterHub.load_roles.append({{"name": {DRIVER!r}, "services": [{DRIVER!r}],
    "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"]}})
"""
    )
    return config


def _wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise HubError(f"JupyterHub exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        with contextlib.suppress(requests.ConnectionError):
            if requests.get(f"{url}/hub/api", timeout=5).ok:
                return
        if time.monotonic() > deadline:
            raise HubError(f"JupyterHub did not answer in {timeout}s:\n{log.read_text()[-4000:]}")
        time.sleep(0.5)


@contextlib.contextmanager
def running_hub(
    tmp: Path, before_start: Callable[[Path], None] | None = None, login: Mapping[str, str] | None = None
) -> Iterator[Hub]:
    """Create the accounts, start JupyterHub + proxy + grader service; on exit stop them and delete the accounts.

    The hub's config and log go to ``tmp``; homes, exchange, state and the hub's environment
    (``hub_environment``) to a fresh directory under the system's temporary folder that every account may
    traverse (mode 711).
    ``before_start(exchange)`` runs before the hub starts (the deployment's config prepares the exchange
    root). ``login``: the deployment's own login instead of the shared password, chosen and set by these
    environment variables of jupyterhub_config.py (e.g. ``WORKBOOK_LTI13_ISSUER`` and the rest of
    docs/hub/lti.md's). Raises HubError with the end of the hub's log when the hub does not come up.
    """
    with tempfile.TemporaryDirectory(prefix="workbook-hub-") as shared_name:
        shared = Path(shared_name)
        shared.chmod(0o711)
        state, exchange, grader_home, homes = shared / "state", shared / "exchange", shared / "grader", shared / "home"
        state.mkdir(mode=0o700)
        homes.mkdir(mode=0o711)
        with accounts({**{user: homes / user for user in (INSTRUCTOR, *STUDENTS)}, GRADER: grader_home}):
            bin_dir = hub_environment(shared / "environment")
            if before_start:
                before_start(exchange)
            url = f"http://127.0.0.1:{free_port()}"
            env = {
                **{key: value for key, value in os.environ.items() if key != "JUPYTER_CONFIG_DIR"},
                "PATH": os.pathsep.join(
                    [str(bin_dir), os.path.dirname(proxy_command()), os.environ.get("PATH", os.defpath)]
                ),
                "WORKBOOK_COURSE_ID": COURSE_ID,
                "WORKBOOK_INSTRUCTORS": INSTRUCTOR,
                "WORKBOOK_STUDENTS": ",".join(STUDENTS),
                "WORKBOOK_GRADER_USER": GRADER,
                "WORKBOOK_GRADER_HOME": str(grader_home),
                "WORKBOOK_GRADER_PORT": str(free_port()),
                "WORKBOOK_EXCHANGE": str(exchange),
                "WORKBOOK_HUB_STATE": str(state),
                "WORKBOOK_HUB_URL": url,
                **(login or {}),
            }
            deploy_config = shared / "environment" / DEPLOY_CONFIG.relative_to(REPO)
            with _hub_process(tmp, bin_dir / "python", deploy_config, env, own_login=login is not None) as admin:
                yield Hub(
                    url=url,
                    state=state,
                    course_root=grader_home / COURSE_ID,
                    exchange=exchange,
                    homes=homes,
                    bin=bin_dir,
                    admin=admin,
                )


@contextlib.contextmanager
def _hub_process(
    tmp: Path, python: Path, deploy_config: Path, env: dict[str, str], attempts: int = 3, own_login: bool = False
) -> Iterator[Client]:
    """Run JupyterHub with ``python`` in ``env`` until exit; yield the driver's client of the hub's REST API.

    JupyterHub gives a managed service ten one-second tries to answer when it starts, then exits; on a busy
    machine the grader service can miss them, so the hub is started up to ``attempts`` times for that reason
    alone (the log of each try is kept: ``jupyterhub.log``, ``jupyterhub.log.1``, ...).
    """
    driver_token = secrets.token_hex(16)
    config = _hub_config(tmp, deploy_config, driver_token, own_login)
    url, state = env["WORKBOOK_HUB_URL"], Path(env["WORKBOOK_HUB_STATE"])
    for attempt in range(attempts):
        log = tmp / ("jupyterhub.log" if attempt == 0 else f"jupyterhub.log.{attempt}")
        with log.open("w") as log_file:
            process = subprocess.Popen(
                [str(python), "-m", "jupyterhub", "-f", str(config)],
                cwd=state,
                env=env,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            _wait_until_up(url, process, log)
        except HubError:
            _stop(process, state)
            if attempt + 1 < attempts and f"Cannot connect to {COURSE_ID} service" in log.read_text():
                continue
            raise
        try:
            yield Client(f"{url}/hub/api/", driver_token)
        finally:
            _stop(process, state)
        return


def _stop(process: subprocess.Popen, state: Path) -> None:
    """Stop the hub ``process`` (it stops its proxy, the grader service and the users' servers) and its proxy."""
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    # A hub that failed to start leaves its proxy running; the deployment's config names its pid file.
    proxy_pid = state / "jupyterhub-proxy.pid"
    if proxy_pid.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(proxy_pid.read_text()), signal.SIGTERM)


def require_hub() -> None:
    """Skip with the reason when JupyterHub, configurable-http-proxy, root or a Python for all accounts is missing."""
    pytest.importorskip("jupyterhub", reason=NO_HUB_EXTRA)
    if proxy_command() is None:
        pytest.skip("configurable-http-proxy is not installed: run scripts/install-system-deps.sh")
    if os.getuid() != 0:
        pytest.skip("the hub test runs every user under a Linux account of their own (useradd): run it as root")
    if shared_interpreter() is None:
        pytest.skip(
            f"no Python {sys.version_info.major}.{sys.version_info.minor} every account may run: "
            "apt-get install python3"
        )


def fetch(hub: Hub, student: str) -> None:
    """Fetch the assignment into ``student``'s home through their Assignments extension (once)."""
    server = hub.user(student)
    listing = server.json("GET", f"assignments?course_id={COURSE_ID}")
    if not any(item["status"] == "fetched" for item in listing["value"]):
        server.json("POST", "assignments/fetch", data={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})


def upload_solutions(hub: Hub, student: str) -> None:
    """Overwrite ``student``'s fetched package with the solution package, file by file (Contents API)."""
    server = hub.user(student)
    for module in sorted(SOLUTIONS.glob("*.py")):
        model = {"type": "file", "format": "text", "content": module.read_text(encoding="utf-8")}
        server.request("PUT", f"api/contents/{ASSIGNMENT}/{PACKAGE}/{module.name}", json=model)


def submit(hub: Hub, student: str) -> None:
    """Submit ``student``'s fetched assignment through their Assignments extension; raises HubError unless it is
    handed in as theirs."""
    answer = hub.user(student).json(
        "POST", "assignments/submit", data={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
    )
    handed_in = [item["student_id"] for item in answer["value"] if item["status"] == "submitted"]
    if not answer["success"] or handed_in != [student]:
        raise HubError(f"the submission of {student} failed: {answer}")
