"""A real JupyterHub on 127.0.0.1 for the hub tests, started from deploy/jupyterhub/jupyterhub_config.py.

``running_hub(tmp)`` starts JupyterHub (with configurable-http-proxy from the npm registry) and the
course's grader service, and stops them on exit. The deployment's config is loaded unchanged except
for the settings it names as site-specific: the authenticator (SharedPasswordAuthenticator: one password for all),
the spawner (SimpleLocalProcessSpawner: every server runs as the current user, with its own home under
``tmp/home``), and where state, exchange and ports go (temporary directories, free ports). A
``test-driver`` service with an API token stands in for the admin who starts servers.

Clients talk HTTP through the proxy exactly as a browser would: ``Hub.user(name)`` to a user's own
server with that user's token, ``Hub.grader(name)`` to the grader service with an instructor's token.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import requests
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from workbook.paths import REPO

DEPLOY_CONFIG = REPO / "deploy" / "jupyterhub" / "jupyterhub_config.py"
COURSE_ID = "compaction-workbook"
INSTRUCTOR = "instructor1"
STUDENTS = ("student1", "student2")
PASSWORD = "workbook-test-password"
DRIVER = "test-driver"


def proxy_command() -> str | None:
    """configurable-http-proxy: the project-local install (scripts/install-system-deps.sh), else PATH."""
    local = REPO / ".hub-deps" / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(local) if local.exists() else shutil.which("configurable-http-proxy")


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
    """A running hub: its public URL, the course directory, the exchange root, and the admin (driver) client."""

    url: str
    course_root: Path
    exchange: Path
    homes: Path
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
        if not self.admin.json("GET", f"users/{user}")["servers"]:
            self.admin.request("POST", f"users/{user}/server")
        deadline = time.monotonic() + timeout
        while not self.admin.json("GET", f"users/{user}")["servers"].get("", {}).get("ready"):
            if time.monotonic() > deadline:
                raise HubError(f"the server of {user} was not ready after {timeout}s")
            time.sleep(0.5)

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
import os
load_subconfig({str(DEPLOY_CONFIG)!r})
# The three settings the deployment names as site-specific:
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = {PASSWORD!r}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp / "home" / "{username}")!r}
# (the database stays the deployment's SQLite, under WORKBOOK_HUB_STATE)
if os.getuid() == 0:  # every server runs as this test's user, here root
    c.Spawner.args = ["--allow-root"]
    c.JupyterHub.services[0]["command"].append("--allow-root")
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
def running_hub(tmp: Path) -> Iterator[Hub]:
    """Start JupyterHub + proxy + grader service in ``tmp``; stop all of them on exit.

    The exchange is ``tmp/exchange`` (the deployment's config prepares it; a test may create it first).
    Raises HubError with the end of the hub's log when the hub does not come up.
    """
    state, exchange, grader_home = tmp / "state", tmp / "exchange", tmp / "grader"
    for directory in (state, grader_home, tmp / "home"):
        directory.mkdir(parents=True)
    driver_token = secrets.token_hex(16)
    url = f"http://127.0.0.1:{free_port()}"
    bin_dirs = [os.path.dirname(sys.executable), os.path.dirname(proxy_command())]
    env = {
        **os.environ,
        "PATH": os.pathsep.join([*bin_dirs, os.environ.get("PATH", os.defpath)]),
        "WORKBOOK_COURSE_ID": COURSE_ID,
        "WORKBOOK_INSTRUCTORS": INSTRUCTOR,
        "WORKBOOK_STUDENTS": ",".join(STUDENTS),
        "WORKBOOK_GRADER_USER": getpass.getuser(),
        "WORKBOOK_GRADER_HOME": str(grader_home),
        "WORKBOOK_GRADER_PORT": str(free_port()),
        "WORKBOOK_EXCHANGE": str(exchange),
        "WORKBOOK_HUB_STATE": str(state),
        "WORKBOOK_HUB_URL": url,
    }
    env.pop("JUPYTER_CONFIG_DIR", None)
    log = tmp / "jupyterhub.log"
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(_hub_config(tmp, driver_token))],
            cwd=state, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        _wait_until_up(url, process, log)
        admin = Client(f"{url}/hub/api/", driver_token)
        yield Hub(url=url, course_root=grader_home / COURSE_ID, exchange=exchange, homes=tmp / "home", admin=admin)
    finally:
        process.terminate()  # the hub stops its proxy, the grader service and the users' servers
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
