"""Students arrive from the LMS and their grades go back to it, through the real hub (see hub_harness).

The LMS is ``lti_platform``'s LTI 1.3 platform on loopback (lti1p3platform). The hub logs in with the deployment's
own LTI 1.3 configuration (deploy/jupyterhub/lti13_config.py, jupyterhub-ltiauthenticator), set as docs/hub/lti.md
says: the platform's issuer, client id, authorization URL and key set. Each of two students (names below drop the
harness's per-run suffix) launches the tool as a browser does: the platform's link redirects to the hub's OIDC login
initiation, the hub redirects to the platform's authorization, which answers with a form posting an ``id_token``
(signed with the platform's key) to the hub's launch URL; the hub fetches the platform's key set, checks the token
and logs in the hub user named by the custom claim ``sis_id`` (the SIS id).

Both submit the solutions and a written answer through their Assignments extension, student2 after the due date.
The instructor's terminal of the grader service runs ``workbook collect``, ``workbook autograde``, ``workbook
export`` and ``workbook lms push`` (the course registered from what the launches recorded): the platform's line
items and scores equal the grades table, per lab and for the total, with the late penalty (nbgrader's rule
``zero``) and ``Pending`` for the written answer no one has graded yet; a second push changes nothing; a hand grade
in the formgrader, then a push, changes that student's score only.
"""

from __future__ import annotations

import csv
import html.parser
import json
import os
import pwd
import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest
import requests
from hub_harness import (
    COURSE_ID,
    GRADER,
    INSTRUCTOR,
    STUDENTS,
    Hub,
    fetch,
    require_hub,
    running_hub,
    submit,
    upload_solutions,
)
from lti_platform import CLIENT_ID, CONTEXT, DEPLOYMENT_ID, LoopbackPlatform, rsa_key_pem

from workbook.course.layout import ASSIGNMENT
from workbook.lms.scores import TOTAL_LABEL, lab_label
from workbook.pipeline.grades import points_text

pytestmark = [pytest.mark.slow, pytest.mark.hub]

ON_TIME, LATE = STUDENTS[:2]
STRANGER = f"stranger-{STUDENTS[0].rsplit('-', 1)[1]}"
"""A member of the LMS course whose SIS id is no hub user (not on the roster)."""
MEMBERS = [
    {"user_id": "lti-user-1", "lis_person_sourcedid": ON_TIME, "name": "Ada Lovelace", "roles": ["Learner"]},
    {"user_id": "lti-user-2", "lis_person_sourcedid": LATE, "name": "Bob Late", "roles": ["Learner"]},
    {"user_id": "lti-user-3", "lis_person_sourcedid": STRANGER, "name": "Cy Stranger", "roles": ["Learner"]},
    {"user_id": "lti-user-9", "lis_person_sourcedid": INSTRUCTOR, "name": "Dee Teacher", "roles": ["Instructor"]},
]
LTI_USER = {member["lis_person_sourcedid"]: member["user_id"] for member in MEMBERS}
WRITTEN_NOTEBOOK, WRITTEN, WRITTEN_POINTS = "01_record_parsing", "lab1_written_strict_parser", 2
"""The written answer both students give (lab 1's, worth 2 points), left to grade by hand."""
PENDING = f"1 written answer ({WRITTEN_POINTS} points) still to grade by hand"
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


class LaunchForm(html.parser.HTMLParser):
    """The form of the platform's answer to the authentication request: its action and hidden fields."""

    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.method: str | None = None
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form":
            self.action, self.method = values.get("action"), values.get("method")
        elif tag == "input" and values.get("name"):
            self.fields[values["name"] or ""] = values.get("value") or ""


def launch(platform: LoopbackPlatform, user_id: str) -> tuple[requests.Session, requests.Response]:
    """A browser launching the tool from the LMS as the member ``user_id``: the platform's link, redirected through
    the hub's login initiation to the platform's authorization, whose form it posts to the hub. Returns the
    browser and the hub's answer to the post (not followed)."""
    browser = requests.Session()
    page = browser.get(platform.launch_url(user_id), timeout=60)
    assert page.status_code == 200, page.text
    form = LaunchForm()
    form.feed(page.text)
    assert (form.method, sorted(form.fields)) == ("post", ["id_token", "state"])
    assert form.action is not None
    return browser, browser.post(form.action, data=form.fields, allow_redirects=False, timeout=60)


def in_terminal(hub: Hub, command: str, timeout: float = 300) -> str:
    """Run ``command`` in the grading account's home (``workbook`` and ``nbgrader`` the hub environment's) from the
    instructor's terminal of the grader service; return its output on one line."""
    output = hub.grader(INSTRUCTOR).run_in_terminal(
        f"cd {hub.course_root.parent} && export PATH={hub.bin}:$PATH && {command}", timeout
    )
    return " ".join(output.split())


def write_answer(hub: Hub, student: str) -> None:
    """``student`` answers lab 1's written question in the fetched notebook (Contents API), so that the answer waits
    for a hand grade (nbgrader scores an answer left as released 0 without one)."""
    server = hub.user(student)
    path = f"api/contents/{ASSIGNMENT}/{WRITTEN_NOTEBOOK}.ipynb"
    notebook = server.json("GET", path)["content"]
    (cell,) = [cell for cell in notebook["cells"] if cell["metadata"].get("nbgrader", {}).get("grade_id") == WRITTEN]
    cell["source"] = "A strict parser refuses a malformed record by name instead of guessing what it meant."
    server.request("PUT", path, json={"type": "notebook", "format": "json", "content": notebook})


def hand_grade(hub: Hub, student: str, points: float) -> None:
    """Give ``student``'s lab 1 written answer ``points`` in the formgrader (its REST API, as its grading page does)."""
    grader = hub.grader(INSTRUCTOR)
    submitted = grader.json("GET", f"formgrader/api/submitted_notebooks/{ASSIGNMENT}/{WRITTEN_NOTEBOOK}")
    (notebook,) = [notebook for notebook in submitted if notebook["student"] == student]
    grades = grader.json("GET", f"formgrader/api/grades?submission_id={notebook['id']}")
    (grade,) = [grade for grade in grades if grade["name"] == WRITTEN]
    assert grade["needs_manual_grade"], grade
    grader.json("PUT", f"formgrader/api/grade/{grade['id']}", json={"manual_score": points})


def timestamp(hub: Hub, student: str) -> datetime:
    """The submission time of ``student``'s collected submission."""
    text = (hub.course_root / "submitted" / student / ASSIGNMENT / "timestamp.txt").read_text().strip()
    return datetime.fromisoformat(text.removesuffix(" UTC"))


def register(hub: Hub, platform: LoopbackPlatform, private_pem: str) -> dict:
    """Register the tool in the course as docs/instructors/lms.md says, from the course's grade services the
    launches recorded (WORKBOOK_LTI_SERVICES) and the platform's registration page (token URL, key set); return
    the recorded services."""
    recorded = json.loads((hub.state / "lti-services.json").read_text())
    services = recorded[CONTEXT["id"]]
    grader = pwd.getpwnam(GRADER)
    keys = hub.course_root / "lti"
    keys.mkdir(mode=0o700)
    (keys / "tool-private.pem").write_text(private_pem)
    os.chmod(keys / "tool-private.pem", 0o600)
    for path in (keys, keys / "tool-private.pem"):
        os.chown(path, grader.pw_uid, grader.pw_gid)
    settings = {
        **{name: services[name] for name in ("issuer", "client_id", "deployment_id")},
        "auth_token_url": platform.token_url,
        "key_set_url": platform.jwks_url,
        "private_key_file": "lti/tool-private.pem",
        **{name: services[name] for name in ("lineitems_url", "memberships_url")},
    }
    with (hub.course_root / "nbgrader_config.py").open("a") as config:
        config.write("\n" + "".join(f"c.LmsTool.{name} = {value!r}\n" for name, value in settings.items()))
    return services


def scores(platform: LoopbackPlatform, resource_id: str) -> dict[str, tuple]:
    """The platform's scores of a line item by LTI user: (scoreGiven, scoreMaximum, activity, grading, comment)."""
    return {
        user: (s["scoreGiven"], s["scoreMaximum"], s["activityProgress"], s["gradingProgress"], s["comment"])
        for user, s in platform.store.scores_of(resource_id).items()
    }


def test_two_students_launch_from_the_lms_submit_and_their_grades_reach_it(tmp_path):
    require_hub()
    tool_private, tool_public = rsa_key_pem()
    with LoopbackPlatform(tool_public, MEMBERS) as platform:
        login = {  # docs/hub/lti.md's settings, from the platform's registration of the tool
            "WORKBOOK_LTI13_ISSUER": platform.issuer,
            "WORKBOOK_LTI13_CLIENT_ID": CLIENT_ID,
            "WORKBOOK_LTI13_AUTHORIZE_URL": platform.authorize_url,
            "WORKBOOK_LTI13_JWKS_URL": platform.jwks_url,
            "JUPYTERHUB_CRYPT_KEY": secrets.token_hex(32),
        }
        with running_hub(tmp_path, login=login) as hub:
            platform.register_tool(
                login_url=f"{hub.url}/hub/lti13/oauth_login",
                redirect_uri=f"{hub.url}/hub/lti13/oauth_callback",
                target_link_uri=f"{hub.url}/hub/home",
            )
            grade_round_trip(hub, platform, tool_private)


def grade_round_trip(hub: Hub, platform: LoopbackPlatform, tool_private: str) -> None:
    # ---- the launches: each student's hub user is their SIS id, the grade services kept -----------------
    for student in (ON_TIME, LATE):
        browser, answer = launch(platform, LTI_USER[student])
        assert (answer.status_code, answer.headers.get("Location")) == (302, "/hub/home"), answer.text[:2000]
        home = browser.get(f"{hub.url}/hub/home", timeout=60)
        assert (home.status_code, home.url) == (200, f"{hub.url}/hub/home")
        assert student in home.text
        state = hub.admin.json("GET", f"users/{student}")["auth_state"]
        assert (state["sub"], state["https://purl.imsglobal.org/spec/lti/claim/custom"]) == (
            LTI_USER[student],
            {"sis_id": student},
        )
        assert state["lti_services"] == {
            "issuer": platform.issuer,
            "client_id": CLIENT_ID,
            "deployment_id": DEPLOYMENT_ID,
            "context": CONTEXT["id"],
            "lineitems_url": platform.lineitems_url,
            "scope": AGS_SCOPES,
            "memberships_url": platform.memberships_url,
        }
    assert [message["sub"] for message in platform.store.launches] == [LTI_USER[ON_TIME], LTI_USER[LATE]]
    # A member whose SIS id is not on the hub's roster is launched and refused.
    _, refused = launch(platform, LTI_USER[STRANGER])
    assert refused.status_code == 403, refused.text[:2000]
    assert STRANGER not in {user["name"] for user in hub.admin.json("GET", "users")}

    # ---- the course released; both submit (solutions, a written answer), the late one after the due date
    with ThreadPoolExecutor(1) as background:
        servers = background.submit(hub.start_servers, [INSTRUCTOR, ON_TIME, LATE])  # meanwhile, build the course
        in_terminal(hub, f"workbook build --course {COURSE_ID} && workbook release --course {COURSE_ID}")
        servers.result()
    released = hub.grader(INSTRUCTOR).json("POST", f"formgrader/api/assignment/{ASSIGNMENT}/release")
    assert released["success"], released
    for student in (ON_TIME, LATE):
        fetch(hub, student)
        upload_solutions(hub, student)
        write_answer(hub, student)
        submit(hub, student)
    collected = in_terminal(hub, f"workbook collect --course {COURSE_ID}")
    assert "2 submission(s) of" in collected and "checked, 0 quarantined" in collected, collected
    on_time, late = timestamp(hub, ON_TIME), timestamp(hub, LATE)
    assert on_time < late
    due = on_time + (late - on_time) / 2
    with (hub.course_root / "nbgrader_config.py").open("a") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    in_terminal(hub, f"cd {COURSE_ID} && nbgrader db assignment add {ASSIGNMENT} --duedate='{due.isoformat(' ')} UTC'")
    # `workbook autograde` exits 1, and so fails the test, when a submission is not graded
    in_terminal(hub, f"workbook autograde --course {COURSE_ID}", timeout=1800)

    # ---- the grades table, then the LMS -----------------------------------------------------------------
    services = register(hub, platform, tool_private)
    assert services["scope"] == AGS_SCOPES
    in_terminal(hub, f"workbook export --course {COURSE_ID}")
    with (hub.course_root / "grades.csv").open(newline="", encoding="utf-8") as table:
        rows = {row["student_id"]: row for row in csv.DictReader(table)}
    notebooks = [name for name in rows[ON_TIME] if name[:2].isdigit() and not name.endswith(" extra credit")]
    assert len(notebooks) == 5, rows[ON_TIME]
    assert float(rows[LATE]["late_submission_penalty"]) > 0 == float(rows[ON_TIME]["late_submission_penalty"])

    pushed = in_terminal(hub, f"workbook lms push --course {COURSE_ID}")
    assert "10 scores posted, 0 unchanged, 0 failed" in pushed, pushed
    items = platform.store.by_resource()
    assert {rid: item["label"] for rid, item in items.items()} == {
        f"{ASSIGNMENT}/{name}": lab_label(name) for name in notebooks
    }
    assert sum(item["scoreMaximum"] for item in items.values()) == float(rows[ON_TIME]["max_score"])
    for name in notebooks:
        stored = scores(platform, f"{ASSIGNMENT}/{name}")
        maximum = items[f"{ASSIGNMENT}/{name}"]["scoreMaximum"]
        progress, answer = ("Pending", PENDING) if name == WRITTEN_NOTEBOOK else ("FullyGraded", "")
        assert stored[LTI_USER[ON_TIME]] == (float(rows[ON_TIME][name]), maximum, "Submitted", progress, answer), name
        # nbgrader's rule zero takes all of a late notebook's points, its extra credit included
        penalty = float(rows[LATE][name]) + float(rows[LATE][f"{name} extra credit"])
        assert penalty > 0
        late_comment = "; ".join(filter(None, [answer, f"late penalty {points_text(penalty)} points"]))
        assert stored[LTI_USER[LATE]] == (0, maximum, "Submitted", progress, late_comment), name
        assert sorted(stored) == [LTI_USER[ON_TIME], LTI_USER[LATE]]
    lab1_penalty = float(rows[LATE][WRITTEN_NOTEBOOK]) + float(rows[LATE][f"{WRITTEN_NOTEBOOK} extra credit"])

    pushed = in_terminal(hub, f"workbook lms push --course {COURSE_ID} --total")
    assert "2 scores posted, 0 unchanged, 0 failed" in pushed, pushed
    total = scores(platform, ASSIGNMENT)
    assert platform.store.by_resource()[ASSIGNMENT]["label"] == TOTAL_LABEL
    assert [rows[student]["ungraded_answers"] for student in (ON_TIME, LATE)] == ["1", "1"]
    assert total[LTI_USER[ON_TIME]] == (
        float(rows[ON_TIME]["score"]),
        float(rows[ON_TIME]["max_score"]),
        "Submitted",
        "Pending",
        PENDING,
    )
    penalty = float(rows[LATE]["late_submission_penalty"])
    assert float(rows[LATE]["score"]) == 0 < float(rows[LATE]["raw_score"]) <= penalty
    assert total[LTI_USER[LATE]] == (
        0,
        float(rows[LATE]["max_score"]),
        "Submitted",
        "Pending",
        f"{PENDING}; late penalty {points_text(penalty)} points",
    )

    # ---- a second push changes nothing ------------------------------------------------------------------
    posts, line_items = list(platform.store.posted), json.dumps(platform.store.line_items, sort_keys=True)
    assert "0 scores posted, 10 unchanged" in in_terminal(hub, f"workbook lms push --course {COURSE_ID}")
    assert "0 scores posted, 2 unchanged" in in_terminal(hub, f"workbook lms push --course {COURSE_ID} --total")
    assert (platform.store.posted, json.dumps(platform.store.line_items, sort_keys=True)) == (posts, line_items)

    # ---- a hand grade, then a push: that student's lab 1 score and progress only -----------------------
    hand_grade(hub, ON_TIME, 1.5)
    pushed = in_terminal(hub, f"workbook lms push --course {COURSE_ID} --lab 1")
    assert "1 scores posted, 1 unchanged, 0 failed" in pushed, pushed
    lab1 = f"{ASSIGNMENT}/{WRITTEN_NOTEBOOK}"
    assert platform.store.posted[len(posts) :] == [(platform.store.by_resource()[lab1]["id"], LTI_USER[ON_TIME])]
    stored = scores(platform, lab1)
    maximum = platform.store.by_resource()[lab1]["scoreMaximum"]
    graded = float(rows[ON_TIME][WRITTEN_NOTEBOOK]) + 1.5
    assert stored[LTI_USER[ON_TIME]] == (graded, maximum, "Submitted", "FullyGraded", "")
    assert stored[LTI_USER[LATE]][3:] == ("Pending", f"{PENDING}; late penalty {points_text(lab1_penalty)} points")
