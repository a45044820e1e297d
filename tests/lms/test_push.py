"""``workbook lms push`` against a real LTI 1.3 platform on loopback (``lti_platform``: lti1p3platform's token
endpoint and Assignment and Grade Services): the platform's line items and scores equal the grades table, per lab
and for the total, with the late penalty and ``Pending``; a second push changes nothing; a hand grade updates one
student; a wrong key, a deleted line item and a failing score endpoint are each said and survived."""

from __future__ import annotations

import csv
import hashlib
import shutil

import pytest
from graded_lms_course import LAB1, LAB2, MEMBERS, graded_course
from lti_platform import LoopbackPlatform, rsa_key_pem

from workbook.cli.main import main
from workbook.course.layout import ASSIGNMENT, Course


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # rich wraps at the terminal's width, paths included


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The graded course, built once; each test grades a copy."""
    return graded_course(tmp_path_factory.mktemp("lms"))


@pytest.fixture
def lms(tmp_path, template):
    """(course, platform): a copy of the graded course with the tool registered with a running loopback platform."""
    course = Course(shutil.copytree(template.root, tmp_path / "course"))
    private, public = rsa_key_pem()
    (course.root / "lti").mkdir()
    (course.root / "lti" / "tool.pem").write_text(private, encoding="utf-8")
    with LoopbackPlatform(public, MEMBERS) as platform:
        with course.config_file.open("a", encoding="utf-8") as config:
            config.write("\n" + platform.config_lines("lti/tool.pem"))
        yield course, platform


def run_push(course, capsys, *options):
    """Run ``workbook lms push``; return its code and what it printed (on one line)."""
    code = main(["lms", "push", "--course", str(course.root), *options])
    return code, " ".join(capsys.readouterr().out.split())


def stored(platform, resource_id):
    """The platform's scores of a line item as (userId, scoreGiven, scoreMaximum, activity, grading, comment)."""
    return sorted(
        (user, s["scoreGiven"], s["scoreMaximum"], s["activityProgress"], s["gradingProgress"], s["comment"])
        for user, s in platform.store.scores_of(resource_id).items()
    )


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


PENDING = "1 written answer (2 points) still to grade by hand"


def test_each_lab_gets_a_line_item_and_each_known_student_the_grades_tables_score(lms, capsys):
    course, platform = lms
    before = digest(course.root / "gradebook.db")
    code, out = run_push(course, capsys)
    assert code == 1, "cy was not posted"
    assert "unknown student: cy: no member of the LMS course has lis_person_sourcedid 'cy'; skipped" in out
    items = platform.store.by_resource()
    assert {rid: (item["label"], item["scoreMaximum"]) for rid, item in items.items()} == {
        f"{ASSIGNMENT}/{LAB1}": ("Lab 1: record parsing", 10),
        f"{ASSIGNMENT}/{LAB2}": ("Lab 2: interaction grouping", 8),
    }
    assert stored(platform, f"{ASSIGNMENT}/{LAB1}") == [
        ("lti-user-ada", 8, 10, "Submitted", "Pending", PENDING),
        ("lti-user-bob", 4, 10, "Submitted", "FullyGraded", "late penalty 4 points"),  # (6 + 2) / 2
    ]
    assert stored(platform, f"{ASSIGNMENT}/{LAB2}") == [
        ("lti-user-ada", 6, 8, "Submitted", "FullyGraded", ""),
        ("lti-user-bob", 2, 8, "Submitted", "FullyGraded", "late penalty 2 points"),
    ]
    assert "4 scores posted, 0 unchanged, 0 failed, 1 students unknown to the LMS" in out
    assert digest(course.root / "gradebook.db") == before, "push writes nothing to the gradebook"


def test_the_total_line_item_holds_exports_score_column(lms, capsys):
    course, platform = lms
    assert run_push(course, capsys, "--total")[0] == 1
    assert list(platform.store.by_resource()) == [ASSIGNMENT]
    assert stored(platform, ASSIGNMENT) == [
        ("lti-user-ada", 14, 18, "Submitted", "Pending", PENDING),
        ("lti-user-bob", 6, 18, "Submitted", "FullyGraded", "late penalty 6 points"),
    ]
    assert main(["export", "--course", str(course.root)]) == 0
    rows = {row["student_id"]: row for row in csv.DictReader((course.root / "grades.csv").open(newline=""))}
    assert [(float(rows[s]["score"]), float(rows[s]["max_score"])) for s in ("ada", "bob")] == [(14, 18), (6, 18)]


def test_a_second_push_posts_nothing_and_a_hand_grade_updates_only_that_student(lms, capsys):
    course, platform = lms
    run_push(course, capsys)
    posts, items = len(platform.store.posted), dict(platform.store.line_items)
    code, out = run_push(course, capsys)
    assert (len(platform.store.posted), platform.store.line_items) == (posts, items)
    assert "0 scores posted, 4 unchanged" in out
    with course.gradebook() as gradebook:
        answer = gradebook.find_grade("lab1_written", LAB1, ASSIGNMENT, "ada")
        answer.manual_score, answer.needs_manual_grade = 1.5, False
        gradebook.db.commit()
    code, out = run_push(course, capsys, "--lab", "1")
    assert platform.store.posted[posts:] == [
        (platform.store.by_resource()[f"{ASSIGNMENT}/{LAB1}"]["id"], "lti-user-ada")
    ]
    assert stored(platform, f"{ASSIGNMENT}/{LAB1}")[0] == ("lti-user-ada", 9.5, 10, "Submitted", "FullyGraded", "")
    assert "posted: ada, Lab 1: record parsing: 9.5/10 FullyGraded" in out
    assert "1 scores posted, 1 unchanged" in out


def test_a_private_key_the_platform_does_not_know_is_refused_and_nothing_is_posted(lms, capsys):
    course, platform = lms
    (course.root / "lti" / "tool.pem").write_text(rsa_key_pem()[0], encoding="utf-8")
    code, out = run_push(course, capsys)
    assert code == 1
    assert "refused the tool's token request (HTTP 401" in out and "Nothing was posted" in out
    assert str(course.root / "lti" / "tool.pem") in out
    assert (platform.store.posted, platform.store.line_items) == ([], {})


def test_a_line_item_deleted_on_the_platform_is_created_again(lms, capsys):
    course, platform = lms
    run_push(course, capsys)
    gone = platform.store.by_resource()[f"{ASSIGNMENT}/{LAB2}"]["id"]
    del platform.store.line_items[gone]
    del platform.store.scores[gone]
    code, out = run_push(course, capsys)
    assert (
        "created: line item 'Lab 2: interaction grouping' (resource id compaction_labs/02_interaction_grouping)" in out
    )
    assert platform.store.by_resource()[f"{ASSIGNMENT}/{LAB2}"]["id"] != gone
    assert [row[:3] for row in stored(platform, f"{ASSIGNMENT}/{LAB2}")] == [
        ("lti-user-ada", 6, 8),
        ("lti-user-bob", 2, 8),
    ]
    assert "2 scores posted, 2 unchanged" in out


def test_a_platform_failing_for_one_student_is_named_and_the_others_are_posted(lms, capsys):
    course, platform = lms
    platform.store.fail_scores_for = {"lti-user-bob"}
    code, out = run_push(course, capsys)
    assert code == 1
    assert "failed: bob, line item 'Lab 1: record parsing': HTTP 500" in out
    assert "failed: bob, line item 'Lab 2: interaction grouping': HTTP 500" in out
    assert [row[0] for row in stored(platform, f"{ASSIGNMENT}/{LAB1}")] == ["lti-user-ada"]
    assert [row[0] for row in stored(platform, f"{ASSIGNMENT}/{LAB2}")] == ["lti-user-ada"]


def test_a_dry_run_prints_the_scores_and_contacts_nothing(lms, capsys):
    course, platform = lms
    code, out = run_push(course, capsys, "--dry-run", "--lab", "1")
    assert code == 0
    assert f"would post ada, Lab 1: record parsing: 8/10 Pending ({PENDING})" in out
    assert "would post bob, Lab 1: record parsing: 4/10 FullyGraded (late penalty 4 points)" in out
    assert "would post cy, Lab 1: record parsing: 2/10 FullyGraded" in out
    assert (platform.store.token_requests, platform.store.line_items) == ([], {})


def test_a_course_without_a_registration_is_told_which_settings_are_missing(template, capsys):
    course = template
    code, out = run_push(course, capsys)
    assert code == 1
    assert "the LMS registration lacks c.LmsTool.issuer, c.LmsTool.client_id" in out
    assert "c.LmsTool.memberships_url" in out
