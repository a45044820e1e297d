"""JupyterHub for one course of the compaction workbook (nbgrader 0.9, JupyterHub 5).

Who gets what:

- students (group ``nbgrader-<course>``): JupyterLab with the Assignments tab (fetch, validate, submit);
- instructors (group ``formgrade-<course>``): their own JupyterLab with Assignments and Courses, plus
  access to the course's shared grader service;
- the grader service ``<course>`` (nbgrader's "one class, multiple graders" setup): one Jupyter server
  running as the grading account, owning the course directory and the gradebook, with the formgrader
  and the create-assignment toolbar. Every instructor grades there, so there is one gradebook.

Which nbgrader extensions each of them has is set by a per-role Jupyter config directory
(``roles/<role>/``, put on ``JUPYTER_CONFIG_PATH`` by the spawner): ``jupyter_server_config.d`` for the
server extensions, ``labconfig/page_config.json`` for the JupyterLab extensions, and
``nbgrader_config.py``. ``roles/common/nbgrader_config.py`` holds what all share (course id, exchange).

Settings a real deployment MUST change (marked ``# CHANGE`` below):

- authenticator: the default is PAM (Linux accounts on this machine). For a class use your
  institution's login, e.g. ``pip install oauthenticator`` and
  ``c.JupyterHub.authenticator_class = "generic-oauth"`` (or ``"github"``, ``"ltiauthenticator.lti13"``),
  and keep ``allowed_users`` / the groups below in step with the roster.
- spawner: the default runs each server as the user's Linux account on this machine
  (``LocalProcessSpawner``; every user needs an account and a home). For isolation use
  ``dockerspawner.DockerSpawner`` or, beyond one machine, KubeSpawner via Zero to JupyterHub
  (deploy/README.md has the Helm values); the exchange must then be a volume mounted in every server.
- database: the default is SQLite in ``WORKBOOK_HUB_STATE``; several hub replicas or a managed
  service need ``c.JupyterHub.db_url = "postgresql://..."``.

Everything site-specific comes from ``WORKBOOK_*`` environment variables with the defaults below, so the
file can be used as is, and tests/hub/test_hub.py loads it and overrides only the three settings above.
"""

import os
import pwd
import stat
import sys

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))
ROLES = os.path.join(HERE, "roles")


def _names(variable, default):
    return [name for name in os.environ.get(variable, default).split(",") if name]


# ---- the course -------------------------------------------------------------------------------------
COURSE_ID = os.environ.get("WORKBOOK_COURSE_ID", "compaction-workbook")
INSTRUCTORS = _names("WORKBOOK_INSTRUCTORS", "instructor1")  # CHANGE: your roster
STUDENTS = _names("WORKBOOK_STUDENTS", "student1,student2")  # CHANGE: your roster
GRADER_USER = os.environ.get("WORKBOOK_GRADER_USER", f"grader-{COURSE_ID}")  # a Linux account
GRADER_HOME = os.environ.get("WORKBOOK_GRADER_HOME", f"/home/{GRADER_USER}")
COURSE_ROOT = os.path.join(GRADER_HOME, COURSE_ID)  # `workbook build --course` this directory
EXCHANGE = os.environ.get("WORKBOOK_EXCHANGE", "/srv/nbgrader/exchange")
STATE = os.environ.get("WORKBOOK_HUB_STATE", "/srv/jupyterhub")  # hub database, cookie secret, proxy pid
GRADER_PORT = int(os.environ.get("WORKBOOK_GRADER_PORT", "9999"))
SUBDOMAINS = os.environ.get("WORKBOOK_SUBDOMAINS", "")  # e.g. "https://hub.example.edu" to enable

STUDENT_GROUP = f"nbgrader-{COURSE_ID}"  # names nbgrader's JupyterHubAuthPlugin expects
INSTRUCTOR_GROUP = f"formgrade-{COURSE_ID}"

# ---- hub, proxy, database, logging ------------------------------------------------------------------
c.JupyterHub.bind_url = os.environ.get("WORKBOOK_HUB_URL", "http://:8000")  # CHANGE: TLS in front of it
c.JupyterHub.db_url = f"sqlite:///{os.path.join(STATE, 'jupyterhub.sqlite')}"  # CHANGE: PostgreSQL at scale
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "jupyterhub-proxy.pid")
c.JupyterHub.log_level = "INFO"
c.Application.log_datefmt = "%Y-%m-%d %H:%M:%S"
c.Spawner.debug = False  # True: single-user servers log at DEBUG into the hub's log
if SUBDOMAINS:
    c.JupyterHub.subdomain_host = SUBDOMAINS  # needs a wildcard DNS entry and certificate

# ---- who may log in, groups and permissions ---------------------------------------------------------
c.JupyterHub.authenticator_class = "pam"  # CHANGE: see the module docstring
c.Authenticator.allowed_users = set(INSTRUCTORS + STUDENTS)
c.Authenticator.admin_users = set()  # instructors do not need hub admin rights to teach
c.JupyterHub.load_groups = {
    INSTRUCTOR_GROUP: {"users": INSTRUCTORS},
    STUDENT_GROUP: {"users": STUDENTS},
}
c.JupyterHub.load_roles = [
    {
        "name": INSTRUCTOR_GROUP,
        "description": f"Instructors of {COURSE_ID}: use its grader service and find it in the Courses tab",
        "groups": [INSTRUCTOR_GROUP],
        "scopes": [f"access:services!service={COURSE_ID}", "list:services", f"read:services!service={COURSE_ID}"],
    },
    {
        # A server's own token may do what its owner may (the Courses tab asks the hub for the service).
        "name": "server",
        "scopes": ["inherit"],
    },
]

# ---- the single-user servers (students and instructors) ---------------------------------------------
c.JupyterHub.spawner_class = "localprocess"  # CHANGE: see the module docstring
c.Spawner.default_url = "/lab"
c.Spawner.cmd = ["jupyterhub-singleuser"]  # from the notebook environment, see deploy/README.md
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 120
c.Spawner.mem_limit = "2G"  # enforced by container spawners only; the labs need well under 1G


def role_config_path(spawner):
    """JUPYTER_CONFIG_PATH of a user's server: their role's directory, then the shared one."""
    groups = {group.name for group in spawner.user.groups}
    role = "instructor" if INSTRUCTOR_GROUP in groups else "student"
    return os.pathsep.join([os.path.join(ROLES, role), os.path.join(ROLES, "common")])


# The labs' time limit (seconds per cell) goes to every server, so Validate (roles/common/nbgrader_config.py)
# interrupts a cell exactly when autograde does and as the notebooks state. Its one place is the workbook's
# code, installed in the hub's environment (the grader service runs the workbook from it).
from workbook.course.layout import DEFAULT_CELL_TIMEOUT  # noqa: E402 (after the site settings it does not depend on)

COURSE_ENVIRONMENT = {
    "WORKBOOK_COURSE_ID": COURSE_ID,
    "WORKBOOK_EXCHANGE": EXCHANGE,
    "WORKBOOK_CELL_TIMEOUT": str(DEFAULT_CELL_TIMEOUT),
}
c.Spawner.environment = {**COURSE_ENVIRONMENT, "JUPYTER_CONFIG_PATH": role_config_path}


def make_private(home):
    """Take group and other permissions off the directory ``home`` (mode 700 for ``useradd``'s usual 755).

    A student fetches into and submits from their home (and nbgrader keeps a copy of each submission in
    it), so another student must not list or read it. Raises PermissionError when the hub may not chmod it.
    """
    mode = stat.S_IMODE(os.stat(home).st_mode)
    if mode & 0o077:
        os.chmod(home, mode & 0o700)


def private_home(spawner):
    """pre_spawn_hook: make the user's home private before their server starts (local accounts only)."""
    try:
        home = pwd.getpwnam(spawner.user.name).pw_dir
    except KeyError:
        return  # no account here: a container spawner, whose home is a volume of its own
    if os.path.isdir(home):  # a missing one: LocalProcessSpawner starts the server elsewhere, nothing to hide
        make_private(home)


c.Spawner.pre_spawn_hook = private_home

# ---- the course's grader service (nbgrader: "one class, multiple graders") --------------------------
# The service name MUST equal the course id. It runs as GRADER_USER in GRADER_HOME and owns COURSE_ROOT.
c.JupyterHub.services = [
    {
        "name": COURSE_ID,
        "display": True,
        "url": f"http://127.0.0.1:{GRADER_PORT}",
        "command": [os.path.join(os.path.dirname(sys.executable), "jupyterhub-singleuser")],
        "user": GRADER_USER,
        "cwd": GRADER_HOME,
        "environment": {
            **COURSE_ENVIRONMENT,
            "JUPYTER_CONFIG_PATH": os.pathsep.join([os.path.join(ROLES, "grader"), os.path.join(ROLES, "common")]),
            # The grader's own Jupyter config (the default when HOME is GRADER_HOME; explicit so that a
            # service run under another account's HOME, as in the tests, reads no one else's).
            "JUPYTER_CONFIG_DIR": os.path.join(GRADER_HOME, ".jupyter"),
            "JUPYTERHUB_DEFAULT_URL": "/lab",
            "WORKBOOK_COURSE_ROOT": COURSE_ROOT,
            "WORKBOOK_NBGRADER_LOG": os.path.join(GRADER_HOME, "nbgrader.log"),
            "WORKBOOK_FORMGRADER_IFRAME": "1" if SUBDOMAINS else "0",
        },
    }
]

# ---- state directory and the exchange ---------------------------------------------------------------
# nbgrader needs the exchange root to exist and be writable by everyone; the sticky bit (1777, as on
# /tmp) stops anyone from renaming or deleting what they do not own. The course's folder in it belongs
# to the grading account, so nobody else can create or replace it and plant notebooks; nbgrader then
# creates <course>/outbound (755), inbound (2733: students drop but cannot list) and feedback (711).
# The hub prepares both when it can; on Kubernetes the exchange is a shared volume (deploy/README.md).
# It also makes the grader's home private: the course directory in it holds the solutions, the hidden
# tests and the gradebook.
os.makedirs(STATE, mode=0o700, exist_ok=True)


def prepare_exchange():
    """Make EXCHANGE mode 1777 and EXCHANGE/COURSE_ID a directory of GRADER_USER (mode 755).

    Prints what to do when the grading account is missing or this process may not change the exchange;
    raises SystemExit naming the folder when the course folder exists but is not the grader's directory.
    """
    course = os.path.join(EXCHANGE, COURSE_ID)
    try:
        grader = pwd.getpwnam(GRADER_USER)
        os.makedirs(EXCHANGE, exist_ok=True)
        if stat.S_IMODE(os.stat(EXCHANGE).st_mode) != 0o1777:
            os.chmod(EXCHANGE, 0o1777)
        if not os.path.lexists(course):
            os.mkdir(course)
            try:
                os.chmod(course, 0o755)
                os.chown(course, grader.pw_uid, grader.pw_gid)
            except PermissionError:
                os.rmdir(course)  # not left behind with the wrong owner
                raise
    except (KeyError, PermissionError) as error:
        print(
            f"jupyterhub_config: cannot prepare the exchange ({error}); see Exchange in deploy/README.md",
            file=sys.stderr,
        )
        return
    folder = os.lstat(course)
    if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != grader.pw_uid:
        raise SystemExit(
            f"jupyterhub_config: {course} is not a directory of {GRADER_USER}; someone may have "
            "planted it: inspect it, remove it and start the hub again"
        )


prepare_exchange()
try:
    make_private(GRADER_HOME)
except OSError as error:
    print(
        f"jupyterhub_config: cannot make {GRADER_HOME} private ({error}): students could read the course "
        f"directory in it; chmod 700 {GRADER_HOME}",
        file=sys.stderr,
    )

# ---- LTI 1.3: students arrive from the LMS (lti13_config.py; docs/hub/lti.md) ----------------------
if os.environ.get("WORKBOOK_LTI13_ISSUER"):
    load_subconfig(os.path.join(HERE, "lti13_config.py"))  # noqa: F821 (provided by traitlets)
