"""``workbook autograde``: students graded in parallel processes on one SQLite gradebook, the
student's lab modules graded as submitted, and a submission that hangs, crashes its kernel or
calls ``os._exit`` costing only that submission."""

from __future__ import annotations

from io import StringIO

import pytest
from rich.console import Console

from workbook import sandbox
from workbook.autograde import KERNEL_START_FAILURE, Outcome, autograde, course_isolation, grade_with_progress
from workbook.cases import grade_points
from workbook.cli import main
from workbook.course import CourseError, build
from workbook.grades import points_text, read_grades
from workbook.labs import LABS
from workbook.release import release
from workbook.sandbox import SandboxUnavailable
from workbook.starters import replace_region
from workbook.submissions import complete, submit

HANG = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)  # deaf to interrupts\nwhile True:\n    pass"
CRASH = "import os\nimport signal\nos.kill(os.getpid(), signal.SIGSEGV)"
EXIT = "import os\nos._exit(3)"
EXTRA_CREDIT = {lab.number: sum(points for grade_id, points in grade_points()[1].items()
                                if grade_id.startswith(f"{lab.marker}_")) for lab in LABS}
"""Each lab's autograded extra credit (Going further), which the solutions earn on top of the lab's points."""


def solutions_with(dest, lab: int, body: str):
    """The solutions, with lab ``lab``'s (first) region replaced by ``body``."""
    complete(dest)
    module = dest / f"{LABS[lab - 1].module}.py"
    module.write_text(replace_region(module.read_text(), lab, body, module.name))
    return dest


def tampered(dest):
    """The solutions, plus a student's edit of a provided module (autograde restores the instructor's copy)."""
    complete(dest)
    example = dest / "provided" / "example.py"
    example.write_text(example.read_text() + "\n\ndef example_entries():\n    return []\n")
    return dest


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("autograde")
    course = build(root / "course")
    release(course)
    packages = {
        "complete": complete(root / "complete"),
        "tampered": tampered(root / "tampered"),
        "hangs": solutions_with(root / "hangs", 5, HANG),
        "crashes": solutions_with(root / "crashes", 4, CRASH),
        "exits": solutions_with(root / "exits", 2, EXIT),
    }
    for student, package in packages.items():
        submit(course, student, package)
    out = StringIO()
    outcomes = grade_with_progress(course, None, jobs=2, timeout=5, console=Console(file=out, width=200),
                                   submission_timeout=300)
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, course.students())}
    return course, {outcome.student: outcome for outcome in outcomes}, grades, out.getvalue()


@pytest.mark.slow
def test_the_students_lab_modules_are_graded_and_provided_modules_restored(graded):
    course, outcomes, grades, _ = graded
    assert outcomes["complete"].status == outcomes["tampered"].status == "graded"
    manual = 2 * len(LABS)  # one manually graded answer of 2 points per notebook, not graded yet
    assert grades["complete"].max_score == 10 * len(LABS)
    assert grades["complete"].score == 10 * len(LABS) - manual + sum(EXTRA_CREDIT.values())
    assert [lab.score for lab in grades["tampered"].labs] == [lab.score for lab in grades["complete"].labs]
    assert "return []" not in (course.autograded("tampered") / "compaction_lab" / "provided" / "example.py").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("student", "reason", "broken"), [("hangs", "CellTimeoutError", 5),
                                                           ("crashes", "DeadKernelError", 4),
                                                           ("exits", "DeadKernelError", 2)])
def test_a_broken_submission_costs_only_the_lab_it_breaks(graded, student, reason, broken):
    _, outcomes, grades, summary = graded
    outcome = outcomes[student]
    assert outcome.graded and not outcome.executed, "the judge scored it; nbgrader could not run the notebooks"
    assert outcome.reason(force=True).startswith(reason)
    assert [lab.auto_score for lab in grades[student].labs] == [0 if lab.number == broken
                                                                else 8 + EXTRA_CREDIT[lab.number] for lab in LABS]
    row = " ".join(next(line for line in summary.splitlines() if f" {student} " in line).split())
    assert "graded" in row
    assert outcomes["complete"].graded and outcomes["tampered"].graded


@pytest.mark.slow
def test_parallel_workers_never_see_a_locked_database(graded):
    course, outcomes, grades, _ = graded
    logs = {student: outcome.log.read_text() for student, outcome in outcomes.items()}
    assert not [student for student, text in logs.items() if "database is locked" in text]
    assert sorted(grades) == sorted(outcomes), "every student has a submission row in the gradebook"


@pytest.mark.slow
def test_the_summary_table_has_a_row_per_student_and_a_column_per_lab(graded):
    _, _, grades, summary = graded
    header = next(line for line in summary.splitlines() if "student" in line)
    assert [f"lab {lab.number}" in header for lab in LABS] == [True] * len(LABS)
    complete_row = next(line for line in summary.splitlines() if " complete " in line).split("│")
    # Its written answers are left as released, which autograde grades 0 without a grader: nothing pending.
    # The labs' extra credit (Going further) is shown apart from their 8 points: "8/8 +6".
    assert [cell.strip() for cell in complete_row[2:9]] == [
        "8/8" + (f" +{points_text(EXTRA_CREDIT[lab.number])}" if EXTRA_CREDIT[lab.number] else "") for lab in LABS
    ] + ["0/10", f"40/50 +{points_text(sum(EXTRA_CREDIT.values()))}"]
    # Submissions whose notebooks nbgrader could not execute: their answers wait for a grader, and the note says so.
    pending = {student: next(line for line in summary.splitlines() if f" {student} " in line).split("│")[7].strip()
               for student in ("complete", "tampered")}
    assert pending == {"complete": "0/10", "tampered": "0/10"}


def test_only_a_kernel_that_never_started_is_graded_again():
    startup = ["zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:43365')",
               "RuntimeError: Kernel died before replying to kernel_info"]
    assert all(KERNEL_START_FAILURE.search(text) for text in startup)
    assert not KERNEL_START_FAILURE.search("[ERROR] Kernel died while waiting for execute reply.")


def test_a_failed_outcome_names_the_exception_behind_nbgrader_summary(tmp_path):
    log = tmp_path / "ada.log"
    log.write_text("[ERROR] Kernel died while waiting for execute reply.\n"
                   "    nbclient.exceptions.DeadKernelError: Kernel died\n"
                   "nbgrader.converters.base.NbGraderException: Please see the the above traceback\n")
    assert Outcome("ada", "failed", 3.0, log).reason() == f"DeadKernelError: Kernel died (see {log})"
    assert Outcome("ada", "graded", 3.0, log).reason() == ""
    assert Outcome("ada", "refused", 0.0, log, "pipe is a fifo").reason() == "not graded: pipe is a fifo"


def test_autograde_names_a_student_without_a_submission_and_a_bad_job_count(tmp_path):
    course = build(tmp_path / "course")
    with pytest.raises(CourseError, match="no submissions under"):
        autograde(course)
    with pytest.raises(CourseError, match="no submission under .* for: ada"):
        autograde(course, ["ada"])
    with pytest.raises(CourseError, match="--jobs must be at least 1, got 0"):
        autograde(course, jobs=0)


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
    assert "workbook autograde: cannot sandbox student code: bwrap, setpriv, prlimit not found on PATH; " \
           "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap" in printed
    assert not course.autograded("ada").exists() and not (course.root / "logs").exists()


def test_a_course_config_older_than_the_sandbox_is_said_to_run_kernels_unsandboxed(tmp_path):
    course = build(tmp_path / "course")
    text = course.config_file.read_text()
    course.config_file.write_text(text[:text.index("c.Autograde.autograde_preprocessors")])
    assert course_isolation(course, "auto").describe() == (
        f"sandbox: none ({course.config_file} predates the sandbox; `workbook build --force` rewrites it, "
        "keeping submissions)")
    with pytest.raises(SandboxUnavailable, match="predates the sandbox"):
        course_isolation(course, "required")
    assert course_isolation(course, "off").describe() == "sandbox: none (isolation off)"
