"""A real JupyterHub on 127.0.0.1 for the hub tests, started from deploy/jupyterhub/jupyterhub_config.py.

``running_hub(tmp)`` creates a Linux account for the instructor, each student and the grading account
(as the deployment's step 3 does; named ``student1-RUN`` and so on, deleted again on exit), starts
JupyterHub (with configurable-http-proxy from the npm registry) and the course's grader service, and
stops them on exit. The deployment's config is loaded unchanged except for the authenticator
(SharedPasswordAuthenticator: one password for all) and where state, exchange, homes and ports go (a
fresh directory, free ports): the spawner is the deployment's LocalProcessSpawner, so each server runs
under its user's own uid, as on the real hub. A ``test-driver`` service with an API token stands in for
the admin who starts servers. Needs root.

The servers run ``shared_python``: this environment's packages under an interpreter every account may
run (this environment's own may live where only root can reach, e.g. pyenv under /root).

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
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import requests
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from workbook.paths import REPO

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


def shared_interpreter() -> Path | None:
    """A Python of this environment's version that every account may run: this environment's base
    interpreter when its installation is world-readable, else the system's ``/usr/bin/pythonX.Y``; None
    when neither is."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for prefix in (Path(sys.base_prefix), Path("/usr")):
        interpreter = prefix / "bin" / version
        paths = [interpreter, prefix / "lib" / version, *interpreter.parents]
        if all(path.exists() and path.stat().st_mode & stat.S_IXOTH for path in paths):
            return interpreter
    return None


def shared_python(dest: Path) -> Path:
    """Make ``dest`` a virtual environment of ``shared_interpreter()`` that sees this environment's packages
    (a .pth file), its Jupyter data and config (``share``, ``etc``) and has its console scripts; return its
    ``bin`` folder. Raises HubError when there is no shared interpreter."""
    interpreter = shared_interpreter()
    if interpreter is None:
        raise HubError(f"no Python {sys.version_info.major}.{sys.version_info.minor} that every account may run")
    subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(dest)], check=True)
    packages = sysconfig.get_paths()["purelib"]
    shared_packages = sysconfig.get_paths(vars={"base": str(dest), "platbase": str(dest)})["purelib"]
    Path(shared_packages, "workbook-environment.pth").write_text(f"import site; site.addsitedir({packages!r})\n")
    for folder in ("share", "etc"):
        if Path(sys.prefix, folder).is_dir():
            Path(dest, folder).symlink_to(Path(sys.prefix, folder))
    scripts = Path(sys.executable).parent
    for script in sorted(scripts.iterdir()):
        target = dest / "bin" / script.name
        if target.exists() or not script.is_file():
            continue
        shebang, _, body = script.read_bytes().partition(b"\n")
        if shebang.startswith(f"#!{scripts}/python".encode()):  # a console script of this environment
            target.write_bytes(f"#!{dest / 'bin' / 'python'}\n".encode() + body)
            target.chmod(0o755)
    return dest / "bin"


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
            subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                            "--user-group", "--comment", ACCOUNT_MARK, name], check=True, capture_output=True)
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
    """A running hub: its public URL, the course directory, the exchange root, the folder of the users' homes,
    the shared Python's ``bin`` (``workbook``, ``nbgrader``; give terminals full paths), the admin (driver) client."""

    url: str
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


def _hub_config(tmp: Path, driver_token: str) -> Path:
    config = tmp / "jupyterhub_config.py"
    config.write_text(
        f"""\
load_subconfig({str(DEPLOY_CONFIG)!r})
# The site-specific settings the deployment names, but the spawner (its own LocalProcessSpawner):
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = {PASSWORD!r}
# (the database stays the deployment's SQLite, under WORKBOOK_HUB_STATE)
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
def running_hub(tmp: Path, before_start: Callable[[Path], None] | None = None) -> Iterator[Hub]:
    """Create the accounts, start JupyterHub + proxy + grader service; on exit stop them and delete the accounts.

    The hub's config and log go to ``tmp``; homes, exchange, state and the shared Python to a fresh
    directory under the system's temporary folder that every account may traverse (mode 711).
    ``before_start(exchange)`` runs before the hub starts (the deployment's config prepares the exchange
    root). Raises HubError with the end of the hub's log when the hub does not come up.
    """
    with tempfile.TemporaryDirectory(prefix="workbook-hub-") as shared_name:
        shared = Path(shared_name)
        shared.chmod(0o711)
        state, exchange, grader_home, homes = shared / "state", shared / "exchange", shared / "grader", shared / "home"
        state.mkdir(mode=0o700)
        homes.mkdir(mode=0o711)
        with accounts({**{user: homes / user for user in (INSTRUCTOR, *STUDENTS)}, GRADER: grader_home}):
            bin_dir = shared_python(shared / "python")
            if before_start:
                before_start(exchange)
            url = f"http://127.0.0.1:{free_port()}"
            env = {
                **{key: value for key, value in os.environ.items() if key != "JUPYTER_CONFIG_DIR"},
                "PATH": os.pathsep.join([str(bin_dir), os.path.dirname(proxy_command()),
                                         os.environ.get("PATH", os.defpath)]),
                "WORKBOOK_COURSE_ID": COURSE_ID,
                "WORKBOOK_INSTRUCTORS": INSTRUCTOR,
                "WORKBOOK_STUDENTS": ",".join(STUDENTS),
                "WORKBOOK_GRADER_USER": GRADER,
                "WORKBOOK_GRADER_HOME": str(grader_home),
                "WORKBOOK_GRADER_PORT": str(free_port()),
                "WORKBOOK_EXCHANGE": str(exchange),
                "WORKBOOK_HUB_STATE": str(state),
                "WORKBOOK_HUB_URL": url,
            }
            with _hub_process(tmp, bin_dir / "python", env) as admin:
                yield Hub(url=url, course_root=grader_home / COURSE_ID, exchange=exchange, homes=homes, bin=bin_dir,
                          admin=admin)


@contextlib.contextmanager
def _hub_process(tmp: Path, python: Path, env: dict[str, str], attempts: int = 3) -> Iterator[Client]:
    """Run JupyterHub with ``python`` in ``env`` until exit; yield the driver's client of the hub's REST API.

    JupyterHub gives a managed service ten one-second tries to answer when it starts, then exits; on a busy
    machine the grader service can miss them, so the hub is started up to ``attempts`` times for that reason
    alone (the log of each try is kept: ``jupyterhub.log``, ``jupyterhub.log.1``, ...).
    """
    driver_token = secrets.token_hex(16)
    config = _hub_config(tmp, driver_token)
    url, state = env["WORKBOOK_HUB_URL"], Path(env["WORKBOOK_HUB_STATE"])
    for attempt in range(attempts):
        log = tmp / ("jupyterhub.log" if attempt == 0 else f"jupyterhub.log.{attempt}")
        with log.open("w") as log_file:
            process = subprocess.Popen([str(python), "-m", "jupyterhub", "-f", str(config)], cwd=state, env=env,
                                       stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
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
