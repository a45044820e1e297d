"""``workbook report``: the cohort report's numbers on a hand-computed class of four, its page, its similarity."""

from __future__ import annotations

import csv
import json
import math
import shutil
from datetime import datetime, timedelta

import pytest

from workbook.course.layout import ASSIGNMENT, PACKAGE
from workbook.course.packages import starter_package
from workbook.course.submit import copy_package
from workbook.grading.results import results_path
from workbook.paths import REPO, SOLUTIONS
from workbook.pipeline.build import build
from workbook.pipeline.report import cohort, point_biserial, write_report

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT = REPO / "test-artifacts" / "cohort-report.png"

# Lab 3 points: ann 8, bob 6, cat 2, dan 0 (mean 4, population sd sqrt(10)).
# visible case A passed by ann, bob, cat; hidden case B passed by ann and dan.
CLASS = {"ann": (8, 1, 1), "bob": (6, 1, 0), "cat": (2, 1, 0), "dan": (0, 0, 1)}


def case(key: str, passed: int, hidden: bool) -> dict:
    return {
        "key": key,
        "grade_id": key.split("/")[0],
        "hidden": hidden,
        "status": "passed" if passed else "failed",
        "call": "",
        "message": "",
        "hint": "Keep the newest whole." if hidden else "",
    }


@pytest.fixture
def course(tmp_path):
    course = build(tmp_path / "course")
    due = datetime(2026, 12, 15, 17, 0)
    with course.gradebook() as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=due)
        for student in CLASS:
            gradebook.update_or_create_student(student)
            late = timedelta(hours=2) if student == "dan" else timedelta(0)
            gradebook.add_submission(ASSIGNMENT, student, timestamp=due + late)
    for student, (points, a, b) in CLASS.items():
        path = results_path(course, student)
        path.parent.mkdir(parents=True, exist_ok=True)
        labs = [
            {
                "lab": 3,
                "status": "graded",
                "scores": {"lab3_fixed_costs": points},
                "output": "",
                "cases": [case("lab3_fixed_costs/A", a, False), case("lab3_copies/B", b, True)],
            }
        ]
        review = ["lab3_fixed_costs (in-kernel 2, judge 0)"] if student == "cat" else []
        path.write_text(json.dumps({"student": student, "labs": labs, "kernel": {}, "review": review}))
    # ann hands in the reference; bob the starters with ann's lab 3 module: one similar pair, on lab 3
    copy_package(SOLUTIONS, course.submitted("ann") / PACKAGE)
    starter_package(course.submitted("bob") / PACKAGE)
    shutil.copyfile(SOLUTIONS / "budget.py", course.submitted("bob") / PACKAGE / "budget.py")
    return course


def test_point_biserial_by_hand():
    totals = [8, 6, 2, 0]
    expected = (16 / 3 - 0) / math.sqrt(10) * math.sqrt(0.75 * 0.25)
    assert point_biserial([1, 1, 1, 0], totals) == pytest.approx(expected) == pytest.approx(0.7303, abs=1e-4)
    assert point_biserial([1, 0, 0, 1], totals) == pytest.approx(0.0)
    assert point_biserial([1, 1, 1, 1], totals) is None and point_biserial([1, 0], [3, 3]) is None


def test_the_class_pass_rates_discrimination_flags_review_and_late(course):
    data = cohort(course)
    assert data.students == ["ann", "bob", "cat", "dan"] and data.totals() == [8, 6, 2, 0]
    stats = {item.key: item for item in data.case_stats()}
    assert stats["lab3_fixed_costs/A"].pass_rate == 0.75
    assert stats["lab3_fixed_costs/A"].discrimination == pytest.approx(0.7303, abs=1e-4)
    assert stats["lab3_fixed_costs/A"].flags == []
    assert (stats["lab3_copies/B"].pass_rate, stats["lab3_copies/B"].flags) == (0.5, ["weak discrimination"])
    assert data.review == {"cat": ["lab3_fixed_costs (in-kernel 2, judge 0)"]} and data.late == ["dan"]


def test_the_page_and_the_csv(course):
    page = write_report(course)
    text = page.read_text()
    assert (page.parent / "labs.png").stat().st_size > 1000 and 'src="labs.png"' in text
    assert "lab3_copies/B" in text and "Keep the newest whole." in text and "weak discrimination" in text
    rows = list(csv.reader((page.parent / "cases.csv").open()))
    assert rows == [
        ["student", "lab3_fixed_costs/A", "lab3_copies/B"],
        ["ann", "1", "1"],
        ["bob", "1", "0"],
        ["cat", "1", "0"],
        ["dan", "0", "1"],
    ]
    assert text.count("similarity/lab") == 1 and "href='similarity/lab3-code-001.html'" in text
    assert "a reason to look, not a verdict" in text and (page.parent / "similarity" / "scores.png").is_file()
    side_by_side = (page.parent / "similarity" / "lab3-code-001.html").read_text()
    assert "ann: 100% matched" in side_by_side and "bob: 100% matched" in side_by_side
    assert "Content-Security-Policy" in side_by_side and "<script" not in side_by_side


@pytest.mark.slow
@pytest.mark.hub
def test_the_page_renders_in_chromium_with_its_plot(course):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the hub extra is not installed")
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium is not installed: run scripts/install-system-deps.sh")
    page_file = write_report(course)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.goto(page_file.as_uri())
            width = page.eval_on_selector("img", "image => image.complete ? image.naturalWidth : 0")
            assert width == 1500  # five 3-inch histograms at 100 dpi: the plot loaded
            sync_api.expect(page.get_by_text("weak discrimination")).to_be_visible()
            scores = page.eval_on_selector("img[src='similarity/scores.png']", "image => image.naturalWidth")
            assert scores > 0  # the histogram of pair scores loaded
            page.screenshot(path=str(SCREENSHOT), full_page=True)
            page.get_by_role("link", name="ann and bob").click()
            sync_api.expect(page.get_by_role("heading", name="ann: 100% matched")).to_be_visible()
            marked = page.locator(".match")
            assert marked.count() > 100  # the whole lab 3 code, highlighted on both sides
            assert marked.first.evaluate("line => getComputedStyle(line).backgroundColor") == "rgb(255, 224, 138)"
        finally:
            browser.close()
    assert SCREENSHOT.stat().st_size > 10_000
