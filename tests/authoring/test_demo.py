"""``workbook demo``: the whole pipeline on the four bundled samples, with the expected scores (the judge's:
each lab graded on its own code), feedback pages showing the judge's results and no hidden case's inputs,
the CSV export and the cohort report."""

from __future__ import annotations

import csv
import re
from io import StringIO

import pytest
from browser import CHROMIUM, CHROMIUM_FLAGS, NO_HUB_EXTRA
from rich.console import Console

from workbook.authoring.demo import SECTION_WIDTH, demo
from workbook.cli.main import main
from workbook.course.layout import Course
from workbook.grading.casebook import grade_points
from workbook.pipeline.feedback import html_text
from workbook.pipeline.feedback_overview import overview_path
from workbook.pipeline.release import hidden_case_secrets

pytestmark = pytest.mark.slow

# Points per lab notebook: 10, of which 2 are a manually graded answer that autograde leaves at 0.
EXPECTED = {
    "complete": [8, 8, 8, 8, 8],  # full marks less the manual answers
    "blank": [0, 0, 0, 0, 0],
    "partial": [8, 8, 0, 0, 0],  # labs 1 and 2 done
    "buggy": [8, 8, 2, 8, 8],  # messages[-3:] fails lab 3; lab 5 is graded with the reference lab 3
}
EXTRA_CREDIT = grade_points()[1]
LAB4_EXTRA = int(sum(points for grade_id, points in EXTRA_CREDIT.items() if grade_id.startswith("lab4_")))
"""Lab 4's going-further extra credit, which complete and buggy (lab 4 as the reference) earn."""
# Extra credit (Going further, outside the 10 points), shown apart: lab 1's guard (2), lab 3's estimate_units (2),
# summary at the end of the system prompt (2) and replay (2), lab 4's compaction operation. buggy's messages[-3:]
# keeps only estimate_units' 2 of lab 3.
EXTRA = {
    "complete": [2, 0, 6, LAB4_EXTRA, 0],
    "blank": [0] * 5,
    "partial": [2, 0, 0, 0, 0],
    "buggy": [2, 0, 2, LAB4_EXTRA, 0],
}


def shown(score: float, max_score: float, extra: float) -> str:
    """A table cell: "8/8", or "8/8 +6" with extra credit."""
    return f"{score}/{max_score}" + (f" +{extra}" if extra else "")


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo") / "course"
    out = StringIO()
    grades = demo(root, Console(file=out, width=200))
    return Course(root), {grade.student: grade for grade in grades}, out.getvalue()


def test_the_demo_grades_the_four_samples_as_expected(demo_run):
    course, grades, printed = demo_run
    assert printed.index(" build ") < printed.index("built the course:") < printed.index(" release ")
    assert str(course.root) not in printed, "paths relative to the course, which a temporary demo removes"
    headers = [line for line in printed.splitlines() if line.startswith("─")]
    assert len(headers) == 5 and max(map(len, headers)) == SECTION_WIDTH, "a section's header, not the log's width"
    assert {student: sum(scores) for student, scores in EXPECTED.items()} == {
        "complete": 40,
        "blank": 0,
        "partial": 16,
        "buggy": 34,
    }
    assert {student: [lab.score for lab in grade.labs] for student, grade in grades.items()} == EXPECTED
    assert {student: [lab.extra_credit for lab in grade.labs] for student, grade in grades.items()} == EXTRA
    assert {grade.max_score for grade in grades.values()} == {50}
    for student, scores in EXPECTED.items():
        row = next(line for line in printed.splitlines() if f" {student} " in line)
        assert f"{sum(scores)}/50" in row and "graded" in row


# Hand-graded points per sample: the written answers it filled in wait for a grader (2 points each, and the
# extra-credit answers of labs 1 and 3, 0 points each); blank's are left as released, which autograde grades 0
# with no grader needed.
PENDING = {"complete": (7, 10, "?/10"), "blank": (0, 0, "0/10"), "partial": (3, 4, "0/6 ?/4"), "buggy": (7, 10, "?/10")}


def test_the_table_shows_autograded_and_pending_hand_graded_points_apart(demo_run):
    _, grades, printed = demo_run
    assert {
        student: (grade.pending, grade.pending_points, grade.manual_max, grade.auto_max)
        for student, grade in grades.items()
    } == {student: (count, points, 10, 40) for student, (count, points, _) in PENDING.items()}
    for student, (_, _, manual) in PENDING.items():
        cells = [
            cell.strip()
            for cell in next(line for line in printed.splitlines() if f" {student} " in line).split("│")[2:9]
        ]
        assert cells == [
            shown(score, 8, extra) for score, extra in zip(EXPECTED[student], EXTRA[student], strict=True)
        ] + [manual, shown(sum(EXPECTED[student]), 50, sum(EXTRA[student]))]
    mean_row = [cell.strip() for cell in next(line for line in printed.splitlines() if " mean " in line).split("│")]
    # Means of the points, extra credit apart: lab 1 (8+0+8+8)/4, lab 3 (8+0+0+2)/4, total (40+0+16+34)/4.
    assert mean_row[2:9] == ["6", "6", "2.5", "4", "4", "", "22.5"]
    assert "note: 17 hand-graded answers (24 points) not graded yet (students: complete, partial, buggy)" in printed


def test_feedback_and_export_say_that_hand_graded_answers_are_pending(demo_run, tmp_path, capsys):
    course, _, _ = demo_run
    assert main(["feedback", "--course", str(course.root)]) == 0
    assert "these pages show them as 0" in " ".join(capsys.readouterr().out.split())
    assert main(["export", "--course", str(course.root), "--to", str(tmp_path / "grades.csv")]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert (
        "note: 17 hand-graded answers (24 points) not graded yet (students: buggy, complete, partial); "
        "the CSV counts them as 0" in printed
    )
    ids = [row["student_id"] for row in csv.DictReader((tmp_path / "grades.csv").open(newline=""))]
    assert ids == sorted(EXPECTED)


def test_feedback_shows_the_judges_results_and_hidden_cases_only_together_with_their_hints(demo_run):
    course, _, _ = demo_run
    secrets = sorted({call for calls in hidden_case_secrets(course).values() for call in calls})
    pages = sorted((course.root / "feedback").rglob("*.html"))
    assert len(pages) == 4 * 5 + 4 and secrets  # five lab pages and an overview each
    for page in pages:
        text = html_text(page)
        assert not [call for call in secrets if call in text], page
    buggy_lab3 = html_text(course.feedback("buggy") / "03_budget_projection.html")
    hidden_cell = buggy_lab3.split("Grade cell: lab3_complete_and_zero_budget")[1].split("Grade cell:")[0]
    assert "Score: 0.0 / 1.0" in hidden_cell
    assert "✗ hidden tests: not all" in hidden_cell and "no_skipping_ahead" not in hidden_cell
    assert "- The walk stops at the first interaction that does not fit" in hidden_cell
    assert "called build_context" not in hidden_cell
    visible_cell = buggy_lab3.split("Grade cell: lab3_trim_boundary")[1].split("Grade cell:")[0]
    assert (
        "✗ window_30_keeps_one: called build_context(example_entries(), example_options(max_tokens=30)), "
        "got .kept_entry_ids[0] = 'r-test', expected 'u3'" in visible_cell
    )
    complete_lab4 = " ".join(html_text(course.feedback("complete") / "04_compaction_creation.html").split())
    assert "(Score: 8.0 / 10.0)" in complete_lab4 and f"Score: 8/10 +{LAB4_EXTRA}" in complete_lab4  # never 14/10
    assert "extra credit: +2 ✓ " in complete_lab4  # the boundary cell's 2 extra points, above its results
    blank_lab1 = html_text(course.feedback("blank") / "01_record_parsing.html")
    assert "Lab 1 (record parsing): parse_compaction_entry() is not implemented yet" in blank_lab1


def table_row(printed: str, student: str) -> list[str]:
    """The grade table's cells of ``student``: lab 1 to lab 5, manual, total."""
    row = next(line for line in printed.splitlines() if f" {student} " in line)
    return [cell.strip() for cell in row.split("│")[2:9]]


def test_every_student_has_an_overview_that_sums_to_the_grade_table(demo_run):
    course, _, printed = demo_run
    for student in EXPECTED:
        page = overview_path(course, student).read_text(encoding="utf-8")
        assert page.index("Content-Security-Policy") < page.index("<title>") and "<script" not in page
        rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", page)[1:]]
        labs, total = rows[:-1], rows[-1]
        table = table_row(printed, student)
        assert [f"{auto} {extra}".strip() for _, auto, _, extra in labs] == table[:5], student
        assert total[2] == table[5] and f"<p id='score'>Score: {table[6]}</p>" in page, student
        autos = [auto.split("/") for _, auto, _, _ in labs]
        assert total[1] == f"{sum(int(got) for got, _ in autos)}/{sum(int(most) for _, most in autos)}"
        for link in re.findall(r'<a href="([^"]+)">', page):
            lab_page = (overview_path(course, student).parent / link).read_text(encoding="utf-8")
            assert '<a href="../index.html">All five labs at a glance: your overview</a>' in lab_page
    buggy = html_text(overview_path(course, "buggy"))
    assert "✗ window_30_keeps_one: called build_context(example_entries(), example_options(max_tokens=30))" in buggy
    assert "- The walk stops at the first interaction that does not fit" in buggy
    assert "Written answers not graded yet: 7 (10 points)" in buggy


EXPECTED_PART = """(line) => {
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, at = node.data.indexOf("expected 'u3'");
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + "expected 'u3'".length);
      return {right: range.getBoundingClientRect().right, width: window.innerWidth,
              scroll: line.scrollWidth, client: line.clientWidth};
    }
  }
  return null;
}"""
"""Where a ✗ line's "expected 'u3'" ends on screen, and the line's element's scrolled and shown widths."""


@pytest.mark.hub
def test_a_failure_line_wraps_in_chromium_and_shows_what_was_expected(demo_run):
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_HUB_EXTRA)
    if CHROMIUM is None:
        pytest.skip("chromium is not installed: run scripts/install-system-deps.sh")
    course, _, _ = demo_run
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 700, "height": 900})
            page.goto((course.feedback("buggy") / "03_budget_projection.html").as_uri())
            line = page.locator("pre", has_text="✗ window_30_keeps_one: called build_context").last
            shown = line.evaluate(EXPECTED_PART)
            assert shown["scroll"] <= shown["client"], "the line wraps: no sideways scrolling"
            assert shown["right"] <= shown["width"], "expected 'u3' is within the window"
            page.get_by_role("link", name="All five labs at a glance: your overview").click()
            sync_api.expect(page.get_by_role("heading", name="Feedback for buggy: the five labs")).to_be_visible()
        finally:
            browser.close()


def test_a_buggy_lab_the_notebook_runs_marks_no_cell_for_review(demo_run):
    """The buggy lab 3 fails its own visible checks, so lab 5's notebook checks lab 5 with the course's answers
    for lab 3's calls: its in-kernel scores agree with the judge's, and no cell is marked for review."""
    _, _, printed = demo_run
    flat = " ".join(printed.split())
    assert "review buggy" not in flat and "review complete" not in flat and "review blank" not in flat


def test_the_export_has_a_column_per_lab(demo_run):
    course, _, _ = demo_run
    rows = {row["student_id"]: row for row in csv.DictReader((course.root / "grades.csv").open(newline=""))}
    labs = sorted(path.stem for path in course.source.glob("*.ipynb"))
    assert set(rows) == set(EXPECTED)
    for student, scores in EXPECTED.items():
        assert [float(rows[student][lab]) for lab in labs] == scores
        assert float(rows[student]["score"]) == sum(scores)
        assert [float(rows[student][f"{lab} extra credit"]) for lab in labs] == EXTRA[student]
        assert float(rows[student]["extra_credit"]) == sum(EXTRA[student])


def test_no_worker_saw_a_locked_database(demo_run):
    course, _, _ = demo_run
    logs = sorted((course.root / "logs" / "autograde").glob("*.log"))
    assert len(logs) == 4
    assert not [log.name for log in logs if "database is locked" in log.read_text()]
