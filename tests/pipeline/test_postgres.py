"""``build --db-url postgresql://...`` and parallel ``autograde`` on a real PostgreSQL gradebook.

The test starts its own throwaway PostgreSQL server on 127.0.0.1 (a free port, a temporary data
directory; as the ``postgres`` account when run as root) and stops it afterwards. It skips, saying
why, when the server binaries (``apt-get install postgresql``) or psycopg2 (``pip install -e '.[postgres]'``)
are missing.
"""

from __future__ import annotations

import csv
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from accident_submissions import (
    BAD_TIMESTAMP,
    DUE,
    LAB3,
    copy_cell,
    delete_cells,
    edit_notebook,
    grade_by_hand,
    set_due_date_and_zero_penalty,
    solutions_with,
)
from rich.console import Console

from workbook.authoring.samples import blank, complete
from workbook.course.submit import submit
from workbook.pipeline.autograde import grade_with_progress
from workbook.pipeline.build import build
from workbook.pipeline.export import export
from workbook.pipeline.grades import read_grades
from workbook.pipeline.release import release

pytestmark = pytest.mark.slow


def server_binaries() -> Path | None:
    found = shutil.which("initdb") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)), None
    )
    return Path(found).parent if found else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url():
    pytest.importorskip("psycopg2", reason="psycopg2 is not installed: pip install -e '.[postgres]'")
    import psycopg2

    binaries = server_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL server binaries not found: apt-get install postgresql")
    as_user: list[str] = []
    data = Path(tempfile.mkdtemp(prefix="workbook-pg-"))
    if os.geteuid() == 0:  # initdb refuses to run as root
        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no postgres account to run the server")
        os.chown(data, account.pw_uid, account.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def pg(*command: str) -> None:
        subprocess.run([*as_user, *command], check=True, capture_output=True, text=True)

    pg(str(binaries / "initdb"), "-D", str(data / "db"), "-A", "trust", "-U", "postgres", "--no-sync")
    pg(
        str(binaries / "pg_ctl"),
        "-D",
        str(data / "db"),
        "-l",
        str(data / "server.log"),
        "-w",
        "-o",
        f"-h 127.0.0.1 -p {port} -k {data}",
        "start",
    )
    try:
        admin = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
        admin.autocommit = True
        admin.cursor().execute("CREATE DATABASE workbook")
        admin.close()
        yield f"postgresql://postgres@127.0.0.1:{port}/workbook"
    finally:
        pg(str(binaries / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(data, ignore_errors=True)


def test_build_release_and_parallel_autograde_on_postgresql(postgres_url, tmp_path):
    """Also the accidents that write the gradebook in their own way (issue 11): a copied grade cell counted
    once, deleted grade cells restored and graded, a renamed notebook graded in its place, a kernel death
    costing only its notebook (autograded again without running it), a malformed timestamp noted and the
    time received deciding (on time), and a late penalty recomputed over hand-graded points when the CSV is exported."""
    course = build(tmp_path / "course", db_url=postgres_url)
    assert course.coursedir().db_url == postgres_url
    assert course.coursedir().course_id == "compaction-workbook", "PostgreSQL needs a course row nbgrader can point to"
    assert not (course.root / "gradebook.db").exists()
    release(course)
    set_due_date_and_zero_penalty(course)
    on_time = DUE - timedelta(hours=1)
    package = complete(tmp_path / "complete")
    submit(course, "complete", package, on_time)
    submit(course, "blank", blank(tmp_path / "blank"), on_time)
    submit(course, "deleted", package, on_time)
    edit_notebook(
        course.submitted("deleted"),
        LAB3,
        lambda content: delete_cells(content, "lab3_fixed_costs", "lab3_trim_boundary"),
    )
    submit(course, "late", package, DUE + timedelta(hours=1), answered_labs=(1,))
    submit(course, "copied", package, on_time)
    edit_notebook(course.submitted("copied"), LAB3, lambda content: copy_cell(content, "lab3_trim_boundary"))
    renamed = submit(course, "renamed", package, on_time)
    (renamed / f"{LAB3}.ipynb").rename(renamed / f"{LAB3}-Copy1.ipynb")
    submit(course, "exits", solutions_with(tmp_path / "exits", 4, "import os\nos._exit(0)"), on_time)
    (submit(course, "badtime", package, on_time) / "timestamp.txt").write_text(BAD_TIMESTAMP)
    outcomes = grade_with_progress(course, None, jobs=2, timeout=20, console=Console(file=StringIO()))
    everyone = ("badtime", "blank", "complete", "copied", "deleted", "exits", "late", "renamed")
    assert {(outcome.student, outcome.status) for outcome in outcomes} == {(student, "graded") for student in everyone}
    grade_by_hand(course, "late", "lab1_written_strict_parser", "01_record_parsing", 2)
    export(course)
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, list(everyone))}
    assert {student: grade.total for student, grade in grades.items()} == {
        "badtime": 40,
        "blank": 0,
        "complete": 40,
        "copied": 40,
        "deleted": 40,
        "exits": 32,
        "late": 0,
        "renamed": 40,
    }
    assert [lab.auto_score for lab in grades["exits"].labs] == [8, 8, 8, 0, 8], "only lab 4's own code fails"
    # nbgrader's penalty takes its whole score: 40 points, 2 graded by hand, 14 of extra credit.
    assert grades["deleted"].pending == 0 and grades["late"].penalty == 56
    rows = {row["student_id"]: row for row in csv.DictReader((course.root / "grades.csv").open(newline=""))}
    assert (
        rows["late"]["raw_score"],
        rows["late"]["late_submission_penalty"],
        rows["late"]["score"],
        rows["late"]["extra_credit"],
    ) == ("42.0", "56.0", "0.0", "14.0")
    assert (
        rows["copied"]["grading_notes"] == f"{LAB3}: a copy of cell lab3_trim_boundary was ignored (the original "
        "counts once)"
    )
    assert (
        rows["renamed"]["grading_notes"] == f"{LAB3}.ipynb missing: graded its renamed copy {LAB3}-Copy1.ipynb "
        "in its place"
    )
    lab4, notebook4 = rows["exits"]["grading_notes"].split("; ")[:2]  # the judge's lab status, then nbgrader's note
    assert lab4 == "lab 4: a case crashed (the runner exited with status 0)"
    assert notebook4.startswith(
        "04_compaction_creation.ipynb could not be executed (DeadKernelError: Kernel died): graded without running it"
    )
    assert rows["badtime"]["grading_notes"] == (
        "timestamp.txt is not a time: the time received decides, 2026-12-15 16:00:00 UTC (placed as submitted)"
    )
    assert rows["badtime"]["timestamp"] == "2026-12-15 16:00:00" and rows["badtime"]["late_submission_penalty"] == "0.0"
