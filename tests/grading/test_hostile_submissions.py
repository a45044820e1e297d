"""Hostile submissions graded through the real pipeline: one course, one ``workbook autograde --jobs 2
--isolation required`` batch of the bank in ``hostile_bank.py`` (tricks on the gradebook, source/, the
solutions, other submissions, the feedback folder, memory and processes, forged reports, a channel from the
hidden cases, names that are not UTF-8, a malformed timestamp, a call of ``input()``, active content for the
instructor's browser, an output bomb) among an honest complete and an honest blank control, then ``workbook
feedback``, ``export`` and ``report`` and the grades table.

Each submission gets its honest score, the controls keep theirs, a bystander's gradebook rows, the
stored test cells, source/, release/ and the submissions are byte-identical afterwards, nothing the
kernels wrote is in the course, no process outlives the batch, and every trick is shown to work when
its code runs without a sandbox. Skips where bubblewrap cannot sandbox."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from io import StringIO
from pathlib import Path

import nbformat
import pytest
from accident_submissions import DUE, set_due_date_and_zero_penalty
from browser import CHROMIUM, CHROMIUM_FLAGS, NO_HUB_EXTRA
from packages import STARTER_PACKAGE
from rich.console import Console
from sandbox_probes import invalidate, keys_with

from hostile_bank import BANK, BOMB_CHARS, NOT_UTF8, Submission, build_package, finish_submission
from workbook.course.intake import escaped
from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.submit import submit
from workbook.grading.output_caps import CELL_CHARS, NOTEBOOK_CHARS, OUTPUT_CHARS, cut_note, output_chars
from workbook.grading.results import read_results, status_notes
from workbook.page_policy import policy_meta
from workbook.paths import REPO, SOLUTIONS
from workbook.pipeline.autograde import grade_with_progress
from workbook.pipeline.build import build
from workbook.pipeline.export import export
from workbook.pipeline.feedback import feedback, html_text
from workbook.pipeline.grades import grade_table, notebook_names, read_grades
from workbook.pipeline.release import HIDDEN, notebook_secrets, release
from workbook.pipeline.report import write_report

pytestmark = pytest.mark.slow

BYSTANDER = "s00_bystander"
DEFINITIONS = (
    "assignment",
    "notebook",
    "base_cell",
    "grade_cells",
    "solution_cells",
    "source_cell",
    "task_cells",
    "course",
)
"""Gradebook tables that describe the assignment (the stored test cells among them), not a submission."""


def tree(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder`` (symlinks as their target text), by relative path."""
    hashes = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            hashes[str(path.relative_to(folder))] = f"-> {path.readlink()}"
        elif path.is_file():
            hashes[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def gradebook_rows(database: Path, students: list[str]) -> dict[str, list]:
    """Every row of the definition tables, and every row that belongs to ``students``, as sorted lists."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        rows = {table: sorted(map(repr, db.execute(f"SELECT * FROM {table}"))) for table in DEFINITIONS}
        marks = ",".join("?" * len(students))
        own = (
            f"SELECT sn.id FROM submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            f"WHERE sa.student_id IN ({marks})"
        )
        queries = {
            "student": (f"SELECT * FROM student WHERE id IN ({marks})", students),
            "submitted_assignment": (f"SELECT * FROM submitted_assignment WHERE student_id IN ({marks})", students),
            "submitted_notebook": (f"SELECT * FROM submitted_notebook WHERE id IN ({own})", students),
            "grade": (f"SELECT * FROM grade WHERE notebook_id IN ({own})", students),
            "comment": (f"SELECT * FROM comment WHERE notebook_id IN ({own})", students),
        }
        for table, (query, arguments) in queries.items():
            rows[table] = sorted(map(repr, db.execute(query, arguments)))
    return rows


def snapshot(course: Course) -> dict:
    """What no submission may change: the protected gradebook rows, source/, release/, the submissions and
    the solutions; and the list of every file of the course."""
    return {
        "gradebook": gradebook_rows(course.root / "gradebook.db", [BYSTANDER]),
        "source": tree(course.root / "source"),
        "release": tree(course.root / "release"),
        "submitted": tree(course.root / "submitted"),
        "solutions": tree(SOLUTIONS),
        "files": set(tree(course.root)),
    }


def processes_with(marker: str) -> list[int]:
    """Host processes whose command line or name holds ``marker`` (the bank's per-run marker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "cmdline").read_bytes() + (entry / "comm").read_bytes()
            except OSError:
                continue
            if marker.encode() in text or marker[:15].encode() in text:
                found.append(int(entry.name))
    return found


def kill_marked(marker: str) -> None:
    """Kill what a trick left running outside the sandbox (the power checks)."""
    for pid in processes_with(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def add_bystander(course: Course) -> None:
    """A student graded earlier (rows made with nbgrader's API): one hand-given score and a name."""
    with course.gradebook() as gradebook:
        gradebook.add_student(BYSTANDER, first_name="Ada", last_name="Lovelace")
        gradebook.add_submission(ASSIGNMENT, BYSTANDER)
        notebook = gradebook.find_submission_notebook("01_record_parsing", ASSIGNMENT, BYSTANDER)
        for grade in notebook.grades:
            grade.manual_score = 0.5
        gradebook.db.commit()


def printed(notebook: Path) -> str:
    """What the code of an autograded notebook printed (its stream outputs; tracebacks, which show the
    instructor the failed tests' code, left out)."""
    content = nbformat.read(notebook, as_version=4)
    return "".join(
        output.get("text", "")
        for cell in content.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )


@pytest.fixture(scope="module")
def batch(isolation, tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    course = build(root / "course")
    release(course)
    set_due_date_and_zero_penalty(course)
    add_bystander(course)
    marker = f"hx{uuid.uuid4().hex[:13]}"
    for submission in BANK:
        package = build_package(submission, root / "packages" / submission.student, course.root, REPO, marker)
        received = DUE + timedelta(hours=1 if submission.late else -1)
        finish_submission(submission, submit(course, submission.student, package, received))
    before = snapshot(course)
    scratch = Path(shutil.copytree(course.root, root / "scratch"))
    summary = StringIO()
    outcomes = grade_with_progress(
        course, None, jobs=2, timeout=20, console=Console(file=summary, width=300), isolation="required"
    )
    made = feedback(course)
    after = snapshot(course)  # what grading and feedback left; the export and the report are written next
    exported = export(course)
    report = write_report(course)
    table = StringIO()
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, [item.student for item in BANK])}
        Console(file=table, width=300).print(grade_table(list(grades.values()), notebook_names(gradebook)))
    return {
        "course": course,
        "marker": marker,
        "before": before,
        "after": after,
        "scratch": scratch,
        "outcomes": {outcome.student: outcome for outcome in outcomes},
        "summary": summary.getvalue(),
        "grades": grades,
        "pages": made.pages,
        "withheld": made.withheld,
        "csv": exported.read_text(encoding="utf-8"),
        "report": report.read_text(encoding="utf-8"),
        "table": table.getvalue(),
    }


GRADED = [submission for submission in BANK if submission.expected is not None]


@pytest.mark.parametrize("submission", GRADED, ids=[submission.student for submission in GRADED])
def test_each_submission_gets_its_honest_score(batch, submission: Submission):
    assert batch["outcomes"][submission.student].status == "graded", batch["outcomes"][submission.student].reason()
    assert [lab.auto_score for lab in batch["grades"][submission.student].labs] == submission.expected
    if submission.trick:
        shown = printed(batch["course"].autograded(submission.student) / "01_record_parsing.ipynb")
        assert f"HOSTILE {submission.student}: " in shown, "the trick ran (and reported) in the sandbox"


def test_the_batch_ran_in_the_sandbox_and_a_symlinked_submission_is_refused_by_name(batch, isolation):
    assert batch["summary"].startswith(isolation.describe(slots=0))  # each grading process takes its own uid
    refused = batch["outcomes"]["s11_symlinks"]
    assert refused.status == "refused"
    assert f"compaction_lab/records.py is a symlink (to {SOLUTIONS / 'records.py'})" in refused.reason()
    assert batch["grades"]["s11_symlinks"].labs == ()
    assert not batch["course"].autograded("s11_symlinks").exists()
    row = next(line for line in batch["summary"].splitlines() if " s11_symlinks " in line)
    assert "refused: not graded: compaction_lab/budget.py is a symlink" in row


def test_a_malformed_timestamp_is_late_by_the_time_received_under_the_courses_penalty(batch):
    row = next(line for line in batch["summary"].splitlines() if " s15_bad_timestamp " in line)
    assert "graded; timestamp.txt is not a time" in row and "honest" not in row, "the student's text is not quoted"
    assert status_notes(batch["course"], "s15_bad_timestamp") == [
        "timestamp.txt is not a time: the time received decides, 2026-12-15 18:00:00 UTC (placed as submitted)"
    ]
    grade = batch["grades"]["s15_bad_timestamp"]
    # "zero": the penalty takes every point, extra credit included
    assert grade.seconds_late == 3600 and grade.penalty >= grade.score > 0 and grade.total == 0
    with batch["course"].gradebook() as gradebook:
        assert str(gradebook.find_submission(ASSIGNMENT, "s15_bad_timestamp").timestamp) == "2026-12-15 18:00:00"
    assert [student for student, grade in batch["grades"].items() if grade.penalty] == ["s15_bad_timestamp"]


def test_no_status_table_export_or_log_holds_what_a_runner_wrote(batch):
    """The forged crash reports carried the inputs they were given (the hidden ones too): no status, table,
    CSV, report, results file or log shows them; the lab's cases failed."""
    course = batch["course"]
    statuses = {lab["lab"]: lab["status"] for lab in read_results(course, "s17_forged_crash")["labs"]}
    assert statuses[1] == "a case failed: its report of the case could not be read"
    logs = "".join(path.read_text() for path in (course.root / "logs").rglob("*.log"))
    results = "".join(path.read_text() for path in (course.root / "grading" / "results").glob("*.json"))
    for shown in (batch["summary"], batch["table"], batch["csv"], batch["report"], logs, results):
        assert "FORGED" not in shown
    assert all("; " not in status for status in statuses.values())


def test_the_hidden_cases_sandbox_signals_nothing_to_the_feedback_page(batch):
    """Failing renamed cases where the hidden cases run costs the hidden cells' points, and changes nothing the
    feedback page shows case by case: lab 1's visible lines are the control's, the hidden ones a summary."""

    def lines(student: str) -> list[str]:
        page = html_text(batch["course"].feedback(student) / "01_record_parsing.html")
        return [line.strip() for line in page.splitlines() if line.strip().startswith(("✓", "✗"))]

    attacker, control = lines("s18_hidden_channel"), lines("s08_control_complete")
    assert [line for line in attacker if "hidden test" not in line] == [
        line for line in control if "hidden test" not in line
    ]
    assert [line for line in attacker if "hidden test" in line and line.startswith("✗")]
    assert all(
        line.startswith(
            ("✓ hidden test: passed", "✓ hidden tests: all", "✗ hidden test: failed", "✗ hidden tests: not all")
        )
        for line in attacker
        if "hidden test" in line
    )


def test_a_call_of_input_fails_at_once_and_is_named_in_the_labs_status(batch):
    statuses = {lab["lab"]: lab["status"] for lab in read_results(batch["course"], "s19_asks_input")["labs"]}
    assert statuses[5].startswith("your code asked for input") and statuses[1] == "graded"
    row = next(line for line in batch["summary"].splitlines() if " s19_asks_input " in line)
    assert "lab 5: your code asked for input" in row


def test_names_that_are_not_utf8_are_refused_by_name_and_everyone_else_is_exported(batch):
    escaped_name = escaped(NOT_UTF8)
    assert escaped_name == "03_budget_projection-\\xff\\xfe.ipynb"
    notebook, link = batch["outcomes"]["s20_not_utf8_notebook"], batch["outcomes"]["s21_not_utf8_link"]
    assert (notebook.status, link.status) == ("refused", "refused")
    assert f"{escaped_name} has a name that is not UTF-8" in notebook.reason()
    assert f"compaction_lab/{escaped_name[:-6]}.py is a symlink (to /etc/passwd)" in link.reason()
    for student in ("s20_not_utf8_notebook", "s21_not_utf8_link"):
        row = next(line for line in batch["summary"].splitlines() if f" {student} " in line)
        assert "refused: not graded: " in row and "has a name that is not UTF-8" in row
    exported = {row["student_id"] for row in csv.DictReader(StringIO(batch["csv"]))}
    assert {submission.student for submission in GRADED} <= exported
    assert batch["withheld"] == {} and len(batch["pages"]) == len(GRADED)
    assert batch["csv"].encode("utf-8") and batch["report"].encode("utf-8") and batch["table"].encode("utf-8")


def test_the_bystander_stored_tests_source_release_and_submissions_are_unchanged(batch):
    before, after = batch["before"], batch["after"]
    for part in ("gradebook", "source", "release", "submitted", "solutions"):
        assert after[part] == before[part], part
    assert len(before["gradebook"]["grade"]) > 0 and len(before["gradebook"]["source_cell"]) > 0


def test_nothing_the_kernels_wrote_reached_the_course(batch):
    course = batch["course"]
    allowed = set()
    for submission in BANK:
        student = submission.student
        submitted = set(tree(course.submitted(student)))
        restored = {name for name in tree(course.source) if not name.endswith(".ipynb")}
        allowed |= {f"autograded/{student}/{ASSIGNMENT}/{name}" for name in submitted | restored}
        allowed |= {f"feedback/{student}/{ASSIGNMENT}/{name}" for name in ["timestamp.txt"]}
        allowed.add(f"feedback/{student}/index.html")  # the overview, written by ``workbook feedback``
        allowed |= {
            f"feedback/{student}/{ASSIGNMENT}/{Path(name).stem}.html" for name in submitted if name.endswith(".ipynb")
        }
        allowed.add(f"logs/autograde/{student}.log")
        allowed.add(f"grading/results/{student}.json")  # the judge's results, written by the grader
    new = batch["after"]["files"] - batch["before"]["files"]
    assert sorted(new - allowed) == []
    own = ("submitted/s12_plant_feedback/", "autograded/s12_plant_feedback/")
    assert [
        name for name in batch["after"]["files"] if ("pwned" in name or "planted" in name) and not name.startswith(own)
    ] == []


def test_feedback_holds_only_the_notebook_pages(batch):
    course = batch["course"]
    for student in batch["pages"]:
        names = sorted(path.name for path in course.feedback(student).iterdir())
        assert names == sorted([*(page.name for page in batch["pages"][student]), "timestamp.txt"]), student
        assert len(batch["pages"][student]) == 5


def test_no_process_outlives_the_batch_and_no_worker_met_a_locked_gradebook(batch):
    assert processes_with(batch["marker"]) == []
    logs = {path.stem: path.read_text() for path in (batch["course"].root / "logs" / "autograde").glob("*.log")}
    assert len(logs) == len(BANK)
    assert [student for student, text in logs.items() if "database is locked" in text] == []


def secret_lines(course: Course) -> list[str]:
    """Hidden-test lines of the source notebooks and solution lines of the lab regions that the starters lack."""
    hidden = [
        line for lines in notebook_secrets(sorted(course.source.glob("*.ipynb")), (HIDDEN,)).values() for line in lines
    ]
    starters = "\n".join(path.read_text() for path in STARTER_PACKAGE.rglob("*.py"))
    solution = []
    for path in SOLUTIONS.glob("*.py"):
        inside = False
        for line in path.read_text().splitlines():
            inside = (inside or "# BEGIN LAB" in line) and "# END LAB" not in line
            if inside and len(line.strip()) >= 25 and line.strip() not in starters:
                solution.append(line.strip())
    return hidden + solution


def test_reading_secrets_finds_nothing_to_print(batch):
    course = batch["course"]
    text = "".join(printed(path) for path in sorted(course.autograded("s09_read_secrets").glob("*.ipynb")))
    attempts = re.findall(r"HOSTILE s09_read_secrets: (could not read|read) (\w+(?: \w+)?) ", text)
    assert ("could not read", "source notebook") in attempts and ("could not read", "gradebook") in attempts
    assert ("could not read", "solution") in attempts and ("could not read", "other submission") in attempts
    assert {what for result, what in attempts if result == "read"} <= {"process"}, "only its own processes"
    secrets = secret_lines(course)
    assert len(secrets) > 50
    assert [line for line in secrets if line in text] == []
    assert "SQLite format 3" not in text
    assert str(course.root) not in re.sub(r"could not read [\w ]+? /\S+", "", text), "the course path is not in sight"


def test_the_keyring_carries_nothing_from_one_sandbox_to_another(batch):
    """Every kernel and runner of the keyring trick was refused the keyring (the kernels say so in their notebooks),
    none replayed a key, and no key of the trick is left for a later student."""
    course = batch["course"]
    for notebook in sorted(course.autograded("s24_keyring").glob("*.ipynb")):
        shown = printed(notebook)
        assert "HOSTILE s24_keyring: found no key: EPERM" in shown, notebook.name
        assert "HOSTILE s24_keyring: could not post: EPERM" in shown and "posted key" not in shown, notebook.name
    pages = " ".join(page.read_text(encoding="utf-8") for page in batch["pages"]["s24_keyring"])
    assert "replayed" not in pages and "posted key" not in pages
    assert keys_with(batch["marker"]) == []


def test_the_bombs_hit_their_limits(batch):
    course = batch["course"]
    memory = printed(course.autograded("s13_memory_bomb") / "01_record_parsing.ipynb")
    forks = printed(course.autograded("s14_fork_bomb") / "01_record_parsing.ipynb")
    assert 0 < int(re.search(r"MemoryError after (\d+) MiB", memory)[1]) < 1024
    assert 0 < int(re.search(r"fork failed after (\d+) children: BlockingIOError", forks)[1]) < 64


ACTIVE = ("<script", "onerror", "javascript:")
"""What marks active content in HTML (a script, an event handler, a link that runs code)."""


def rendered_parts(notebook: Path) -> str:
    """What of an autograded notebook a renderer emits as HTML: markdown and raw cells' sources and display
    outputs' data (stream and error texts, escaped by every renderer, left out)."""
    content = nbformat.read(notebook, as_version=4)
    parts = [cell.source for cell in content.cells if cell.cell_type in ("markdown", "raw")]
    parts += [
        repr(output.get("data", {}))
        for cell in content.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") in ("display_data", "execute_result")
    ]
    return "\n".join(parts)


def scripts(page: str) -> list[str]:
    """Every ``<script>`` element of an HTML ``page``, whole."""
    return re.findall(r"<script\b.*?</script>", page, flags=re.DOTALL | re.IGNORECASE)


def test_nothing_a_student_wrote_or_displayed_is_active_in_a_graded_notebook(batch):
    course = batch["course"]
    for submission in GRADED:
        for notebook in sorted(course.autograded(submission.student).glob("*.ipynb")):
            shown = rendered_parts(notebook)
            assert [word for word in ACTIVE if word in shown] == [], f"{submission.student}/{notebook.name}"
    lab1 = nbformat.read(course.autograded("s22_active_content") / "01_record_parsing.ipynb", as_version=4)
    answers = [cell.source for cell in lab1.cells if cell.metadata.get("nbgrader", {}).get("solution")]
    assert answers and all(
        answer.startswith("<div><p>My answer is <strong>strict</strong>: ") for answer in answers if "strict" in answer
    ), "the written answer still reads as formatted text in the formgrader"
    assert "widgets" not in lab1.metadata
    outputs = [output for cell in lab1.cells for output in cell.get("outputs", [])]
    assert {"text/html": "<p><strong>shown bold</strong>window.__pwned = 'script'<a>a link</a></p>"} in [
        {key: value for key, value in output.get("data", {}).items() if key == "text/html"} for output in outputs
    ]


def test_no_feedback_page_or_report_holds_a_students_active_content(batch):
    """The pages of active content have the template's own scripts only (the control's), under a policy that
    runs none; the written answer is formatted on the page too."""
    course = batch["course"]
    for student, pages in batch["pages"].items():
        for page in pages:
            text = page.read_text(encoding="utf-8")
            control = (course.feedback("s08_control_complete") / page.name).read_text(encoding="utf-8")
            assert scripts(text) == scripts(control), f"{student}/{page.name}"
            assert [text.count(word) for word in ACTIVE] == [control.count(word) for word in ACTIVE], student
            assert text.index(policy_meta()) == text.index("<head>") + len("<head>"), student
    lab1 = (course.feedback("s22_active_content") / "01_record_parsing.html").read_text(encoding="utf-8")
    assert "<p>My answer is <strong>strict</strong>: " in lab1 and "<strong>shown bold</strong>" in lab1
    assert "__pwned = 'answer'" in html_text(course.feedback("s22_active_content") / "01_record_parsing.html")
    assert "<script" not in batch["report"] and batch["report"].index(policy_meta()) < batch["report"].index("<title>")


def test_an_output_bomb_is_cut_to_the_caps_as_it_arrives(batch):
    course = batch["course"]
    note = cut_note("this cell", CELL_CHARS)
    longest = max(len(cut_note(where, NOTEBOOK_CHARS)) for where in ("this output", "this cell", "this notebook"))
    for notebook in sorted(course.autograded("s23_output_bomb").glob("*.ipynb")):
        content = nbformat.read(notebook, as_version=4)
        sizes = [[output_chars(output) for output in cell.get("outputs", [])] for cell in content.cells]
        # each kept output is within its caps but for the one note line that ends it
        assert max(size for cell in sizes for size in cell) <= OUTPUT_CHARS + longest
        assert max(sum(cell) - longest * len(cell) for cell in sizes) <= CELL_CHARS
        assert sum(map(sum, sizes)) - longest * sum(map(len, sizes)) <= NOTEBOOK_CHARS
        assert notebook.stat().st_size < 3 * NOTEBOOK_CHARS, "a few times the cap in bytes, never 12 x the bomb"
    lab1 = printed(course.autograded("s23_output_bomb") / "01_record_parsing.ipynb")
    assert note.strip() in lab1 and cut_note("this output", OUTPUT_CHARS).strip() in lab1
    assert "B" * OUTPUT_CHARS in lab1 and "B" * (OUTPUT_CHARS + 1) not in lab1 and BOMB_CHARS > 10 * OUTPUT_CHARS
    pages = batch["pages"]["s23_output_bomb"]
    assert max(page.stat().st_size for page in pages) < 3 * NOTEBOOK_CHARS


FEEDBACK_PEAK = """
import resource, sys
from workbook.course.layout import Course
from workbook.pipeline.feedback import generate_pages
result = generate_pages(Course(sys.argv[1]), sys.argv[2])
print(result["success"], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""
FEEDBACK_MEMORY_MIB = 1024
"""The memory the output bomb's feedback stays under (it took 7.2 GB for a batch before the caps)."""


def test_the_output_bombs_feedback_stays_under_a_stated_memory(batch):
    run = subprocess.run(
        [sys.executable, "-c", FEEDBACK_PEAK, str(batch["course"].root), "s23_output_bomb"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    success, peak = run.stdout.split()
    print(f"feedback of the output bomb (5 pages): peak resident memory {peak} MiB, stated {FEEDBACK_MEMORY_MIB} MiB")
    assert success == "True" and int(peak) < FEEDBACK_MEMORY_MIB


def test_a_browser_opening_the_active_contents_feedback_runs_none_of_it(batch, tmp_path):
    """Chromium opens each of the submission's feedback pages: ``window.__pwned`` stays undefined, after a
    click on every link; the same outputs and answer rendered by plain nbconvert (no inert notebook, no policy)
    do set it, so the check can see a script run."""
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_HUB_EXTRA)
    if CHROMIUM is None:
        pytest.skip("chromium is not installed: run scripts/install-system-deps.sh")
    from nbconvert import HTMLExporter

    course = batch["course"]
    raw = nbformat.read(course.submitted("s22_active_content") / "01_record_parsing.ipynb", as_version=4)
    raw.cells.append(
        nbformat.v4.new_code_cell(
            "",
            outputs=[
                nbformat.v4.new_output("display_data", data={"text/html": "<script>window.__pwned = 'script'</script>"})
            ],
        )
    )
    unprotected = tmp_path / "unprotected.html"
    unprotected.write_text(HTMLExporter(template_name="classic").from_notebook_node(raw)[0], encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(30_000)
            page.goto(unprotected.as_uri(), wait_until="domcontentloaded")
            assert page.evaluate("typeof window.__pwned") == "string", "plain nbconvert runs the script"
            for feedback_page in batch["pages"]["s22_active_content"]:
                page.goto(feedback_page.as_uri(), wait_until="load")
                for link in page.locator("a:not([href]), a[href^='#']").all()[:30]:
                    if link.is_visible():
                        link.click()
                assert page.evaluate("typeof window.__pwned") == "undefined", feedback_page.name
                if feedback_page.name == "01_record_parsing.html":
                    answer = page.locator("p", has_text="My answer is").first
                    assert "<strong>strict</strong>" in answer.inner_html(), "the written answer reads formatted"
        finally:
            browser.close()


@contextlib.contextmanager
def formgrader(course: Course):
    """nbgrader's formgrader on loopback, as an instructor runs it in the course folder: yields its base URL
    and token; the server is stopped afterwards."""
    requests = pytest.importorskip("requests", reason=NO_HUB_EXTRA)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = uuid.uuid4().hex
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter_server",
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={course.root}",
        ],
        cwd=course.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        ready = eventually(lambda: _answers(requests, f"{base}/formgrader/api/status?token={token}"), seconds=90)
        assert ready, "the formgrader did not start"
        yield base, token
    finally:
        server.terminate()
        server.wait(timeout=30)


def _answers(requests, url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code == 200
    except requests.ConnectionError:
        return False


def test_an_instructor_opening_the_active_content_in_the_formgrader_runs_none_of_it(batch):
    """The formgrader renders an autograded notebook on Jupyter's own origin, where a script could read
    ``_xsrf`` and rewrite grades: Chromium opens every notebook of the submission there; ``window.__pwned``
    stays undefined, no grade changes, and the written answer reads formatted."""
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_HUB_EXTRA)
    if CHROMIUM is None:
        pytest.skip("chromium is not installed: run scripts/install-system-deps.sh")
    course = batch["course"]
    with course.gradebook() as gradebook:
        ids = {
            notebook.notebook.name: notebook.id
            for notebook in gradebook.find_submission(ASSIGNMENT, "s22_active_content").notebooks
        }
    grades_before = gradebook_everything(course.root / "gradebook.db")
    with formgrader(course) as (base, token), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            for name, submission_id in sorted(ids.items()):
                page.goto(f"{base}/formgrader/submissions/{submission_id}/?token={token}", wait_until="load")
                assert page.locator(".cell").count() > 0, f"{name}: the formgrader shows the notebook"
                assert page.evaluate("typeof window.__pwned") == "undefined", name
                if name == "01_record_parsing":
                    answer = page.locator("p", has_text="My answer is").first
                    assert "<strong>strict</strong>" in answer.inner_html(), "the written answer reads formatted"
        finally:
            browser.close()
    assert gradebook_everything(course.root / "gradebook.db") == grades_before, "no grade changed"


TRICKS = [submission for submission in BANK if submission.effect]


def gradebook_everything(database: Path) -> list:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
        return [
            sorted(map(repr, db.execute(f"SELECT * FROM {table}")))
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        ]


def locked(database: Path) -> bool:
    try:
        with sqlite3.connect(database, timeout=0.2) as db:
            db.execute("BEGIN IMMEDIATE")
            db.rollback()
        return False
    except sqlite3.OperationalError as error:
        return "locked" in str(error)


def eventually(condition, seconds: float = 30.0) -> bool:
    """Whether ``condition()`` becomes true within ``seconds`` (for the tricks' detached processes)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.parametrize("submission", TRICKS, ids=[submission.student for submission in TRICKS])
def test_every_trick_works_without_a_sandbox(batch, submission: Submission, tmp_path):
    """The bank's power: each trick's module, imported with no sandbox where nbgrader would start its kernel
    (a scratch copy of the course taken before grading), does what the sandbox stopped."""
    course = Path(shutil.copytree(batch["scratch"], tmp_path / "course"))
    cwd = course / "submitted" / submission.student / ASSIGNMENT
    database = course / "gradebook.db"
    rows, source = gradebook_everything(database), tree(course / "source")
    try:
        run = subprocess.run(
            [sys.executable, "-c", "import compaction_lab.records"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        if submission.effect == "gradebook":
            assert eventually(lambda: gradebook_everything(database) != rows)
        elif submission.effect == "source":
            assert tree(course / "source") != source
        elif submission.effect == "lock":
            assert eventually(lambda: locked(database))
        elif submission.effect == "leak":
            assert [line for line in secret_lines(batch["course"]) if line in run.stdout]
            assert "SQLite format 3" in run.stdout
        elif submission.effect == "solved":
            assert f"HOSTILE {submission.student}: running the solutions" in run.stdout
        elif submission.effect == "planted":
            assert (cwd / "hidden_tests.html").is_file()
            assert (course / "feedback" / submission.student / ASSIGNMENT / "planted.html").is_file()
        elif submission.effect == "keyring":
            assert f"HOSTILE {submission.student}: posted key" in run.stdout and keys_with(batch["marker"])
            later = subprocess.run(
                [sys.executable, "-c", "import compaction_lab.records"], cwd=cwd, capture_output=True, text=True
            )  # another student's process of the same uid
            assert f"HOSTILE {submission.student}: replayed a key: posted at import in {cwd}" in later.stdout
    finally:
        kill_marked(batch["marker"])
        for key in keys_with(batch["marker"]):
            invalidate(key)
