"""``workbook autograde`` and the steps after it on one course of honest accidents (issue 11), graded in
parallel on one SQLite gradebook: each accident costs at most what it breaks, and the status, the tables,
the CSV and the feedback say what happened. Also: the student's lab modules are graded as submitted, a
worker that dies or hangs costs only the student it grades, and ``autograde`` names what is wrong with its
arguments.

Lab 3 is where most accidents happen; the other labs of an accident's student must score what the untouched
``complete`` submission scores."""

from __future__ import annotations

import csv
import os
import re
import signal
import threading
from dataclasses import dataclass
from datetime import timedelta
from io import StringIO
from pathlib import Path

import nbformat
import pytest
from accident_submissions import (
    DUE,
    LAB3,
    grade_by_hand,
    set_due_date_and_zero_penalty,
    solutions_with,
    submit_accidents,
)
from rich.console import Console

from workbook.authoring.samples import complete
from workbook.cli.main import main
from workbook.course.layout import Course
from workbook.course.submit import submit
from workbook.errors import CourseError
from workbook.grading import sandbox
from workbook.grading.isolation import course_isolation
from workbook.grading.results import read_results
from workbook.grading.sandbox import SandboxUnavailable
from workbook.manifest import LABS
from workbook.pipeline.autograde import Outcome, autograde, grade_with_progress
from workbook.pipeline.build import build
from workbook.pipeline.engine import default_jobs
from workbook.pipeline.feedback import html_text
from workbook.pipeline.grades import StudentGrades, read_grades, with_extra_credit
from workbook.pipeline.release import release

HANG = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)  # deaf to interrupts\nwhile True:\n    pass"
CRASH = "import os\nimport signal\nos.kill(os.getpid(), signal.SIGSEGV)"


def tampered(dest):
    """The solutions, plus a student's edit of a provided module (autograde restores the instructor's copy)."""
    complete(dest)
    example = dest / "provided" / "example.py"
    example.write_text(example.read_text() + "\n\ndef example_entries():\n    return []\n")
    return dest


@dataclass
class Graded:
    course: Course
    outcomes: dict[str, Outcome]
    grades: dict[str, StudentGrades]
    summary: str
    after: str
    """What ``grades``, ``feedback`` and ``export`` printed after lab 1 of ``late`` was graded by hand."""
    csv: dict[str, dict[str, str]]

    def scores(self, student: str) -> list[float]:
        return [lab.auto_score for lab in self.grades[student].labs]

    def notes(self, student: str) -> list[str]:
        return read_results(self.course, student)["notes"]

    def row(self, student: str) -> str:
        return next(line for line in self.summary.splitlines() if f" {student} " in line)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Graded:
    root = tmp_path_factory.mktemp("autograde")
    course = build(root / "course")
    release(course)
    set_due_date_and_zero_penalty(course)
    submit_accidents(course, root)
    on_time = DUE - timedelta(hours=1)
    submit(course, "tampered", tampered(root / "tampered"), on_time)
    submit(course, "hangs", solutions_with(root / "hangs", 5, HANG), on_time)
    submit(course, "crashes", solutions_with(root / "crashes", 4, CRASH), on_time)
    out = StringIO()
    outcomes = grade_with_progress(
        course, None, jobs=2, timeout=5, console=Console(file=out, width=1000), submission_timeout=600
    )
    grade_by_hand(course, "late", "lab1_written_strict_parser", "01_record_parsing", 2)
    after = StringIO()
    for command in ("grades", "feedback", "export"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("workbook.cli.main.command_console", lambda: Console(file=after, width=1000))
            main([command, "--course", str(course.root)])
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, course.students())}
    rows = {row["student_id"]: row for row in csv.DictReader((course.root / "grades.csv").open(newline=""))}
    return Graded(
        course, {outcome.student: outcome for outcome in outcomes}, grades, out.getvalue(), after.getvalue(), rows
    )


def same_as_complete(graded: Graded, student: str) -> None:
    assert graded.outcomes[student].status == "graded", graded.outcomes[student].reason()
    assert graded.scores(student) == graded.scores("complete")
    assert graded.scores("complete")[2] == 8, "lab 3: every autograded point"
    assert not read_results(graded.course, student)["review"], "the in-kernel score agrees with the judge's"


@pytest.mark.slow
def test_an_untouched_submission_gets_full_marks_and_no_note(graded):
    assert graded.notes("complete") == []
    assert "checksum" not in graded.outcomes["complete"].log.read_text(), "no false tampering warning"
    assert graded.row("complete").split("│")[-2].strip() == "graded"


@pytest.mark.slow
def test_a_copied_test_cell_counts_once_and_is_noted(graded):
    same_as_complete(graded, "copied")
    assert graded.notes("copied") == [
        f"{LAB3}: a copy of cell lab3_trim_boundary was ignored (the original counts once)"
    ]
    assert "a copy of cell lab3_trim_boundary was ignored" in graded.row("copied")


@pytest.mark.slow
def test_deleted_test_cells_are_restored_from_the_release_and_graded(graded):
    same_as_complete(graded, "deleted")
    assert graded.grades["deleted"].pending == 0, "nothing waits for a human"
    assert graded.notes("deleted") == [
        f"{LAB3}: cell {cell} was missing: restored from the release and graded"
        for cell in ("lab3_fixed_costs", "lab3_trim_boundary")
    ]
    notebook = nbformat.read(graded.course.autograded("deleted") / f"{LAB3}.ipynb", as_version=4)
    restored = [
        cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade_id") == "lab3_fixed_costs"
    ]
    assert len(restored) == 1 and "check('lab3_fixed_costs')" in restored[0].source and restored[0].outputs


@pytest.mark.slow
def test_an_edited_locked_cell_is_reported_once_naming_the_cell(graded):
    same_as_complete(graded, "edited")
    assert graded.notes("edited") == [f"{LAB3}: locked cell lab3_setup was edited: graded as released"]
    assert graded.row("edited").count("lab3_setup") == 1


@pytest.mark.slow
def test_a_renamed_notebook_is_graded_as_the_notebook_it_copies(graded):
    same_as_complete(graded, "renamed")
    assert graded.notes("renamed") == [
        f"{LAB3}.ipynb missing: graded its renamed copy {LAB3}-Copy1.ipynb in its place",
        "extra notebook Untitled.ipynb not graded",
    ]
    assert graded.grades["renamed"].labs[2].pending == ("lab3_extra_written_cache_policy", "lab3_written_31_tokens"), (
        "its answers (the going-further one too) reach a grader"
    )
    assert (graded.course.autograded("renamed") / f"{LAB3}.ipynb").is_file()
    assert (graded.course.submitted("renamed") / f"{LAB3}-Copy1.ipynb").is_file(), "the submission is left as it is"
    assert graded.csv["renamed"]["ungraded_answers"] == "2"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("student", "lab", "reason", "stopped"),
    [
        ("exits", 4, "DeadKernelError: Kernel died", (4,)),
        ("crashes", 4, "DeadKernelError: Kernel died", (4,)),
        ("hangs", 5, "CellTimeoutError: A cell timed out", (3, 4, 5)),
    ],
)
def test_a_kernel_death_or_hang_costs_only_the_notebook_where_it_happened(graded, student, lab, reason, stopped):
    """Lab 5's notebook never calls lab 4's function, so it runs as usual. The notebooks of labs 3 and 4 call
    lab 5's ``resume_point`` (on a compacted path), so its hang stops them too: each gets the same note, and
    no points are lost there (the judge grades each lab on its own code)."""
    outcome = graded.outcomes[student]
    assert outcome.graded and not outcome.executed
    expected = graded.scores("complete")
    expected[lab - 1] = 0  # every case of that lab calls the function that kills or hangs its process
    assert graded.scores(student) == expected
    name = LABS[lab - 1].notebook.removesuffix(".ipynb")
    notes = [note for note in graded.notes(student) if "could not be executed" in note]
    assert [note.split(".ipynb")[0] for note in notes] == [
        LABS[number - 1].notebook.removesuffix(".ipynb") for number in stopped
    ]
    note = next(note for note in notes if note.startswith(name))
    assert note.startswith(f"{name}.ipynb could not be executed ({reason}")
    assert note.endswith(
        "graded without running it: its tests by the judge, its written answer by hand; its "
        "feedback page shows no outputs"
    )
    assert note in graded.row(student) and note in graded.csv[student]["grading_notes"]
    assert note in " ".join(graded.after.split()), "workbook grades marks the student too"
    pages = sorted(path.stem for path in graded.course.feedback(student).glob("*.html"))
    assert pages == sorted(item.notebook.removesuffix(".ipynb") for item in LABS), "every notebook gets its page"


@pytest.mark.slow
def test_warnings_log_lines_and_stderr_are_shown_and_never_scored(graded):
    same_as_complete(graded, "warns")
    assert graded.notes("warns") == []
    notebook = nbformat.read(graded.course.autograded("warns") / f"{LAB3}.ipynb", as_version=4)
    tests = [
        cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"
    ]
    assert not [output for cell in tests for output in cell.outputs if output.get("name") == "stderr"]
    page = html_text(graded.course.feedback("warns") / f"{LAB3}.html")
    shown = page.split("Grade cell: lab3_fixed_costs")[1].split("Grade cell:")[0]
    assert "shown, never scored" in shown
    for line in ("a student's warning at max_tokens", "a student's log line", "a student's debug print"):
        assert f"build_context: {line}" in shown


@pytest.mark.slow
def test_a_malformed_timestamp_is_noted_and_the_time_received_decides(graded):
    same_as_complete(graded, "badtime")
    note = "timestamp.txt is not a time: the time received decides, 2026-12-15 16:00:00 UTC (placed as submitted)"
    assert graded.notes("badtime") == [note]
    assert note in graded.row("badtime") and graded.csv["badtime"]["grading_notes"] == note
    assert graded.grades["badtime"].penalty == 0 and graded.grades["badtime"].seconds_late == 0


@pytest.mark.slow
def test_one_students_feedback_failing_its_check_is_removed_and_named_and_the_others_get_theirs(graded):
    assert graded.outcomes["guessed"].graded and graded.scores("guessed") == graded.scores("complete")
    assert not graded.course.feedback("guessed").exists(), "no page of that student is left on disk"
    printed = " ".join(graded.after.split())
    assert f"guessed: feedback withheld ({graded.course.feedback('guessed') / LAB3}.html: shows" in printed
    others = [student for student in graded.outcomes if student != "guessed"]
    assert [student for student in others if len(list(graded.course.feedback(student).glob("*.html"))) != 5] == []


@pytest.mark.slow
def test_the_late_penalty_covers_hand_graded_points_when_grades_are_read(graded):
    # Method 'zero' takes nbgrader's whole score, which counts the extra credit: nothing is left of either.
    late = graded.grades["late"]
    assert late.penalty == late.score + late.extra_credit > 0 and late.extra_credit > 0
    assert (late.total, late.extra_after_penalty) == (0, 0)
    row = graded.csv["late"]
    assert float(row["raw_score"]) == sum(graded.scores("complete")) + 2, "lab 1's answer, graded by hand after"
    assert float(row["late_submission_penalty"]) == float(row["raw_score"]) + float(row["extra_credit"])
    assert float(row["score"]) == 0
    assert (
        "late: late submitted 3600 s after the due date: late penalty "
        f"{late.penalty:g} points (nbgrader's LateSubmissionPlugin, penalty method "
        "'zero')"
    ) in graded.after
    page = html_text(graded.course.feedback("late") / "01_record_parsing.html")
    assert "late" in page.lower() and "penalty" in page.lower()
    assert graded.grades["complete"].penalty == 0 and float(graded.csv["complete"]["score"]) > 0


@pytest.mark.slow
def test_the_students_lab_modules_are_graded_and_provided_modules_restored(graded):
    same_as_complete(graded, "tampered")
    assert (
        "return []"
        not in (graded.course.autograded("tampered") / "compaction_lab" / "provided" / "example.py").read_text()
    )


def worker_processes() -> list[int]:
    """The pids of this process's grading workers (the worker processes of the local Dask cluster that
    ``autograde`` starts: this process's children started by multiprocessing's spawn)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow
def test_a_worker_that_dies_takes_no_student_with_it_and_one_that_hangs_costs_only_its_student(graded, tmp_path):
    """Runs last: it grades three more students of the same course. The student whose worker is killed is
    graded again on the worker that replaces it, and recorded once."""
    course = graded.course
    package = complete(tmp_path / "complete")
    for student in ("killed", "after", "slow"):
        submit(course, student, package, DUE - timedelta(hours=1))

    def kill_its_worker(student: str) -> None:
        if student == "killed":
            threading.Timer(1.0, lambda: [os.kill(pid, signal.SIGKILL) for pid in worker_processes()]).start()

    killed, after = autograde(course, ["killed", "after"], jobs=1, on_start=kill_its_worker)
    assert (killed.status, after.status) == ("graded", "graded"), (killed.reason(), after.reason())
    with course.gradebook() as gradebook:
        scores = {student: [lab.auto_score for lab in grades.labs] for student, grades in _grades(gradebook)}
    assert scores["killed"] == scores["after"] == graded.scores("complete")
    (slow,) = autograde(course, ["slow"], jobs=1, submission_timeout=1)
    assert (slow.status, slow.reason()) == ("timed out", f"still running after 1 s (see {slow.log})")
    assert worker_processes() == [], "no worker outlives autograde"


def _grades(gradebook) -> list[tuple[str, StudentGrades]]:
    return [(grades.student, grades) for grades in read_grades(gradebook, ["killed", "after"])]


@pytest.mark.slow
def test_parallel_workers_never_see_a_locked_database(graded):
    logs = {student: outcome.log.read_text() for student, outcome in graded.outcomes.items()}
    assert not [student for student, text in logs.items() if "database is locked" in text]
    assert sorted(graded.grades) == sorted(graded.outcomes), "every student has a submission row in the gradebook"


@pytest.mark.slow
def test_the_summary_table_has_a_row_per_student_and_a_column_per_lab(graded):
    header = next(line for line in graded.summary.splitlines() if "student" in line)
    assert [f"lab {lab.number}" in header for lab in LABS] == [True] * len(LABS)
    cells = [cell.strip() for cell in graded.row("complete").split("│")[2:9]]
    total = sum(graded.scores("complete"))
    extra = [lab.extra_credit for lab in graded.grades["complete"].labs]
    assert [points for points in extra if points] == [2, 6, 6]  # labs 1, 3 and 4 go further
    # Its written answers are left as released, which autograde grades 0 without a grader: nothing pending.
    # Extra credit is shown apart from the points ("8/8 +6"), and the late penalty takes it too.
    assert cells == [
        with_extra_credit(score, 8, points) for score, points in zip(graded.scores("complete"), extra, strict=True)
    ] + ["0/10", with_extra_credit(total, 50, sum(extra))]
    assert [cell.strip() for cell in graded.row("late").split("│")[7:9]] == ["0/8 ?/2", "0/50 late"]
    # Their written answers, 2 points each, and the going-further ones (extra credit, 0 of the points).
    assert re.search(
        r"note: \d+ hand-graded answers \(4 points\) not graded yet \(students: late, renamed\)",
        " ".join(graded.summary.split()),
    )


def test_jobs_default_to_the_cores_and_autograde_names_what_is_wrong(tmp_path, capsys):
    assert default_jobs() >= 1
    assert main(["autograde", "--course", str(tmp_path / "missing")]) == 1
    assert "is not a workbook course" in " ".join(capsys.readouterr().out.split())
    course = build(tmp_path / "course")
    with pytest.raises(CourseError, match="no submissions under"):
        autograde(course)
    with pytest.raises(CourseError, match="no submission under .* for: ada"):
        autograde(course, ["ada"])
    with pytest.raises(CourseError, match="--jobs must be at least 1, got 0"):
        autograde(course, jobs=0)


def test_a_failed_outcome_names_the_exception_behind_nbgrader_summary(tmp_path):
    log = tmp_path / "ada.log"
    log.write_text(
        "[ERROR] Kernel died while waiting for execute reply.\n"
        "    nbclient.exceptions.DeadKernelError: Kernel died\n"
        "nbgrader.converters.base.NbGraderException: Please see the the above traceback\n"
    )
    assert Outcome("ada", "failed", 3.0, log).reason() == f"DeadKernelError: Kernel died (see {log})"
    assert Outcome("ada", "graded", 3.0, log).reason() == ""
    assert (
        Outcome(
            "ada", "failed", 3.0, Path(tmp_path / "none.log"), why="its grading process died (killed by signal SIGKILL)"
        )
        .reason()
        .startswith("its grading process died (killed by signal SIGKILL)")
    )
    assert Outcome("ada", "refused", 0.0, log, why="pipe is a fifo").reason() == "not graded: pipe is a fifo"


def test_autograde_with_isolation_required_refuses_to_grade_without_a_sandbox(tmp_path, monkeypatch, capsys):
    course = build(tmp_path / "course")
    course.submitted("ada").mkdir(parents=True)
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap, setpriv or prlimit
    sandbox._sandbox_problem.cache_clear()
    try:
        assert main(["autograde", "--course", str(course.root), "--isolation", "required"]) == 1
    finally:
        sandbox._sandbox_problem.cache_clear()
    printed = " ".join(capsys.readouterr().out.split())
    assert (
        "workbook autograde: cannot sandbox student code: bwrap, setpriv, prlimit not found on PATH; "
        "install bubblewrap and libseccomp (Debian/Ubuntu: apt-get install bubblewrap libseccomp2" in printed
    )
    assert not course.autograded("ada").exists() and not (course.root / "logs").exists()


def test_a_course_config_older_than_the_sandbox_is_said_to_run_kernels_unsandboxed(tmp_path):
    course = build(tmp_path / "course")
    text = course.config_file.read_text()
    course.config_file.write_text(text[: text.index("c.Autograde.autograde_preprocessors")])
    assert course_isolation(course, "auto").describe() == (
        f"sandbox: none ({course.config_file} predates the sandbox; `workbook build --force` rewrites it, "
        "keeping submissions)"
    )
    with pytest.raises(SandboxUnavailable, match="predates the sandbox"):
        course_isolation(course, "required")
    assert course_isolation(course, "off").describe() == "sandbox: none (isolation off)"
