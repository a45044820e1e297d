"""The classroom hub end to end: deploy/jupyterhub/ on a real JupyterHub on 127.0.0.1 (see hub_harness).

Every user is a Linux account of their own and every server runs under its user's uid, as on the real
hub. What drives what (all HTTP through configurable-http-proxy, each person with their own hub token):

(Names below drop the harness's per-run suffix: student1 is ``student1-RUN``.)

- instructor1 types ``workbook build``, ``workbook release`` and ``workbook collect`` into a terminal of
  the course's grader service (Jupyter's terminal websocket), then releases to the exchange, collects and
  autogrades through the formgrader's REST API (``/services/<course>/formgrader/api/...``);
- each student fetches and submits through the Assignments extension's REST API of their own server
  (``/user/<name>/assignments/...``); student1 uploads the solution package over the fetched
  ``compaction_lab/`` with the Contents API, student2 leaves the starters as fetched, and student3 types
  ``nbgrader submit --student student1`` into a terminal, handing in the starters as student1's;
- the browser test logs in on the hub's login page and runs lab 3 in JupyterLab
  (Playwright driving Debian's Chromium).
"""

from __future__ import annotations

import json
import os
import pwd
import re
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from browser import CHROMIUM, CHROMIUM_FLAGS, NO_HUB_EXTRA
from hub_harness import (
    COURSE_ID,
    GRADER,
    INSTRUCTOR,
    PASSWORD,
    STUDENTS,
    Hub,
    HubError,
    fetch,
    require_hub,
    running_hub,
    upload_solutions,
)

from workbook.course.layout import ASSIGNMENT, PACKAGE
from workbook.paths import NOTEBOOKS, REPO

LAB3 = "03_budget_projection.ipynb"
LAB3_MESSAGE = "Lab 3 (budget projection): build_context() is not implemented yet"
SCREENSHOT = REPO / "test-artifacts" / "hub-student-lab3.png"

pytestmark = [pytest.mark.slow, pytest.mark.hub]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub whose course the instructor has built and released to the exchange."""
    require_hub()
    with running_hub(tmp_path_factory.mktemp("hub")) as running, ThreadPoolExecutor(1) as background:
        servers = background.submit(running.start_servers, [INSTRUCTOR, *STUDENTS])  # meanwhile, build the course
        grader = running.grader(INSTRUCTOR)
        # Terminals are login shells (/etc/profile resets PATH): type the servers' own workbook.
        workbook = running.bin / "workbook"
        grader.run_in_terminal(f"{workbook} build --course {COURSE_ID} && {workbook} release --course {COURSE_ID}")
        answer = grader.json("POST", f"formgrader/api/assignment/{ASSIGNMENT}/release")
        assert answer["success"], answer
        servers.result()
        yield running


def notebook_points() -> tuple[float, float, float]:
    """(autograder-test points, manually graded points, autograder-test extra credit) of the five source
    notebooks, from their nbgrader and workbook metadata."""
    autograded = manual = extra = 0.0
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            grading = cell.metadata.get("nbgrader", {})
            if grading.get("grade"):
                if cell.cell_type == "code" and not grading.get("solution"):
                    autograded += grading["points"]
                    extra += cell.metadata.get("workbook", {}).get("extra_credit", 0)
                else:
                    manual += grading["points"]
            elif grading.get("task"):
                manual += grading["points"]
    return autograded, manual, extra


def lab_page_config(hub: Hub, user: str) -> dict:
    """The JupyterLab page config that ``user``'s server sends to the browser."""
    page = hub.user(user).request("GET", "lab").text
    return json.loads(
        re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S).group(1)
    )


def test_each_role_gets_its_nbgrader_extensions(hub):
    student, instructor = STUDENTS[0], INSTRUCTOR
    disabled = {user: set(lab_page_config(hub, user)["disabledExtensions"]) for user in (student, instructor)}
    assert {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:course-list",
        "@jupyter/nbgrader:create-assignment",
    } <= disabled[student]
    assert "@jupyter/nbgrader:assignment-list" not in disabled[student]
    assert "@jupyter/nbgrader:course-list" not in disabled[instructor]
    for user in (student, instructor):
        with pytest.raises(HubError, match="404"):
            hub.user(user).request("GET", "formgrader/api/status")
    with pytest.raises(HubError, match="404"):
        hub.user(student).request("GET", "formgraders")
    courses = hub.user(instructor).json("GET", "formgraders")["value"]
    assert [(course["course_id"], course["url"]) for course in courses] == [
        (COURSE_ID, f"{hub.url}/services/{COURSE_ID}/lab?formgrader=true")
    ]


def test_only_instructors_reach_the_grader_service(hub):
    assert hub.grader(INSTRUCTOR).json("GET", "formgrader/api/status")["status"] is True
    with pytest.raises(HubError, match="403"):
        hub.grader(STUDENTS[0]).request("GET", "formgrader/api/status")


def test_exchange_course_folder_is_the_graders_in_a_sticky_root(hub):
    course = hub.exchange / COURSE_ID
    folders = (hub.exchange, course, course / "outbound", course / "inbound")
    assert [oct(stat.S_IMODE(folder.stat().st_mode)) for folder in folders] == ["0o1777", "0o755", "0o755", "0o2733"]
    assert [folder.stat().st_uid for folder in folders[1:]] == [pwd.getpwnam(GRADER).pw_uid] * 3


def test_hub_refuses_a_course_folder_someone_else_created(tmp_path):
    require_hub()
    nobody = pwd.getpwnam("nobody")

    def plant(exchange: Path) -> None:
        folder = exchange / COURSE_ID
        folder.mkdir(parents=True)
        os.chown(folder, nobody.pw_uid, nobody.pw_gid)

    with pytest.raises(HubError, match=f"{COURSE_ID} is not a directory of {GRADER}"), running_hub(tmp_path, plant):
        pass
    assert "someone may have planted it" in (tmp_path / "jupyterhub.log").read_text()


def test_released_assignment_is_listed_for_every_student(hub):
    for student in STUDENTS:
        listing = hub.user(student).json("GET", f"assignments?course_id={COURSE_ID}")
        assert [(item["course_id"], item["assignment_id"], item["status"]) for item in listing["value"]] == [
            (COURSE_ID, ASSIGNMENT, "released")
        ]


def forge(hub: Hub, forger: str, victim: str) -> None:
    """``forger`` hands in their fetched assignment as ``victim``'s from a terminal of their own server."""
    hub.user(forger).run_in_terminal(f"cd && {hub.bin / 'nbgrader'} submit {ASSIGNMENT} --student {victim}")


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (terminal line ends included) as one space."""
    return " ".join(text.split())


def test_forged_submission_is_quarantined_and_each_student_graded_on_their_own_work(hub):
    complete, blank, forger = STUDENTS
    for student in STUDENTS:
        fetch(hub, student)
    upload_solutions(hub, complete)
    for student in (complete, blank):
        answer = hub.user(student).json(
            "POST", "assignments/submit", data={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}
        )
        assert answer["success"], answer
        assert [item["student_id"] for item in answer["value"] if item["status"] == "submitted"] == [student]
    grader = hub.grader(INSTRUCTOR)
    quarantine = hub.exchange / COURSE_ID / "quarantine"
    forged_line = f"quarantined, not collected: claims {complete}, owned by {forger}, submitted "

    # The forger hands in the starters as the complete student's, later; the formgrader's Collect button
    # quarantines it ...
    forge(hub, forger, complete)
    collected = grader.json("POST", f"formgrader/api/assignment/{ASSIGNMENT}/collect")
    assert collected["success"], collected
    assert forged_line in collected["log"] and f"moved to {quarantine}/{complete}+{ASSIGNMENT}+" in collected["log"]
    # ... and so does `workbook collect` in the grader's terminal, for a second try.
    forge(hub, forger, complete)
    output = one_line(grader.run_in_terminal(f"{hub.bin / 'workbook'} collect --course {COURSE_ID}"))
    assert forged_line in output and "1 quarantined" in output

    for student in (complete, blank):
        graded = grader.json("POST", f"formgrader/api/submission/{ASSIGNMENT}/{student}/autograde")
        assert graded["success"], graded
    grades = {row["student"]: row for row in grader.json("GET", f"formgrader/api/submissions/{ASSIGNMENT}")}

    # Full marks less the written answers (left as released, so nbgrader scores them 0 without a manual grade),
    # plus the going-further extra credit, which nbgrader's own views count in the score.
    autograded, manual, extra = notebook_points()
    assert sorted(grades) == sorted([complete, blank])
    assert (grades[complete]["score"], grades[complete]["max_score"]) == (autograded + extra, autograded + manual)
    assert (grades[blank]["score"], grades[blank]["max_score"]) == (0, autograded + manual)
    forgeries = sorted(quarantine.iterdir())
    assert [folder.name.split("+")[0] for folder in forgeries] == [complete, complete]
    assert {folder.stat().st_uid for folder in forgeries} == {pwd.getpwnam(forger).pw_uid}
    assert len(list((hub.exchange / COURSE_ID / "inbound").glob(f"{complete}+*+*"))) == 1  # the genuine one
    assert "cheating attempt" not in (hub.course_root.parent / "nbgrader.log").read_text()


def test_a_student_cannot_list_or_read_another_students_files(hub):
    owner, other = STUDENTS[0], STUDENTS[2]
    for student in (owner, other):
        fetch(hub, student)
    fetched = hub.homes / owner / ASSIGNMENT
    closed = [
        hub.homes / owner,
        fetched,
        fetched / LAB3,
        fetched / PACKAGE / "budget.py",
        hub.exchange / COURSE_ID / "inbound",
        hub.course_root.parent,
    ]
    assert [path for path in closed if not path.exists()] == []  # as root: what the student is refused is there
    own = hub.homes / other / ASSIGNMENT / LAB3
    # The terminal echoes the command, so the answers are spelt apart there ("OP""EN").
    probes = "; ".join(
        f"if {'ls -A' if path.is_dir() else 'head -c1'} -- '{path}' >/dev/null 2>&1; "
        f'then echo "OP""EN:{path}"; else echo "SH""UT:{path}"; fi'
        for path in (own, *closed)
    )
    output = hub.user(other).run_in_terminal(probes)
    assert re.findall(r"(OPEN|SHUT):(\S+)", output) == [("OPEN", str(own))] + [("SHUT", str(path)) for path in closed]
    homes = [hub.homes / owner, hub.homes / other, hub.course_root.parent]
    assert [oct(stat.S_IMODE(home.stat().st_mode)) for home in homes] == ["0o700"] * 3  # set by the hub's config


def test_student_runs_lab3_in_jupyterlab(hub):
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_HUB_EXTRA)
    if CHROMIUM is None:
        pytest.skip("chromium is not installed: run scripts/install-system-deps.sh")
    student = STUDENTS[1]  # the blank one: lab 3 is not written
    fetch(hub, student)
    # Every cell stays in the page, as Settings > Notebook > Windowing mode "none" does: JupyterLab's default
    # windowing detaches cells scrolled out while Run All goes on (the practice browser test does the same).
    hub.user(student).request(
        "PUT", "lab/api/settings/@jupyterlab/notebook-extension:tracker", json={"raw": '{"windowingMode": "none"}'}
    )
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(90_000)
            page.goto(f"{hub.url}/hub/login?next=/user/{student}/lab/tree/{ASSIGNMENT}/{LAB3}")
            page.fill("#username_input", student)
            page.fill("#password_input", PASSWORD)
            page.click("#login_submit")
            page.wait_for_url(f"**/user/{student}/lab/tree/{ASSIGNMENT}/{LAB3}")
            page.get_by_role("button", name=re.compile(r"^Python 3 \(ipykernel\) \| Idle$")).wait_for()
            page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
            page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

            # The demo cells show a red box instead of raising, so Run All reaches the explorer.
            outputs = page.locator(".jp-OutputArea-output")
            sync_api.expect(outputs.get_by_text(LAB3_MESSAGE).first).to_be_visible()
            explorer = outputs.locator(".widget-vbox").filter(has_text=LAB3_MESSAGE).first  # budget_explorer()
            sync_api.expect(explorer.locator(".widget-slider")).to_have_count(3)
            # Run All scrolls to each cell it runs: let it finish (no "[*]" prompt left) before looking.
            sync_api.expect(page.locator(".jp-InputPrompt", has_text="[*]")).to_have_count(0, timeout=300_000)
            slider = explorer.locator(".widget-slider").first
            for _ in range(10):  # in the notebook's own scroller, again if JupyterLab scrolls the notebook after it
                slider.evaluate("element => element.scrollIntoView({block: 'center'})")
                try:
                    sync_api.expect(slider).to_be_in_viewport(timeout=2_000)
                    break
                except AssertionError:
                    continue
            sync_api.expect(slider).to_be_in_viewport()
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOT))
        finally:
            browser.close()
