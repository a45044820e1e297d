"""``workbook check``: the notebooks' visible checks on a workspace's package, one line per lab, in a fresh
interpreter, after a plain install (no pytest, hypothesis or nbgrader needed or loaded). The checks are the
visible cases the notebook's test cells and the grader run, one definition of each; a lab whose cases could
not be loaded says so in its one line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.labs import LABS
from workbook.authoring import casefile
from workbook.authoring.samples import buggy
from workbook.cli.main import COMMANDS, main, parser
from workbook.paths import NOTEBOOKS, REPO, SOLUTIONS
from workbook.student.check import check_lines

BLOCKED = ("pytest", "hypothesis", "nbgrader", "nbformat", "jsonschema")
"""What a student's check must neither need nor load."""


def workspace(tmp_path: Path, package: Path = SOLUTIONS, **modules: Path) -> Path:
    """A folder holding a copy of ``package`` as ``compaction_lab/``, with ``modules`` (name -> file) replaced."""
    folder = tmp_path / "labs"
    shutil.copytree(package, folder / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    for name, path in modules.items():
        shutil.copyfile(path, folder / "compaction_lab" / f"{name}.py")
    return folder


def append(folder: Path, module: str, text: str) -> int:
    """Append ``text`` to ``module``'s file; return the line number of its first line."""
    path = folder / "compaction_lab" / f"{module}.py"
    source = path.read_text()
    path.write_text(source + text)
    return source.count("\n") + 1


def lines_of(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def has_cases(lab: int) -> bool:
    try:
        return bool(visible_cases(lab))
    except ModuleNotFoundError:
        return False


def test_lab3_passes_on_the_solutions(tmp_path, capsys):
    assert main(["check", "3", "--workspace", str(workspace(tmp_path))]) == 0
    assert lines_of(capsys) == [
        "lab 3: 5/5 visible checks pass; hidden tests run at grading; extra credit: 11/11 checks pass"
    ]


def test_lab3_not_started_on_the_starters(tmp_path, capsys):
    assert main(["check", "3", "--workspace", str(workspace(tmp_path, STARTER_PACKAGE))]) == 1
    assert lines_of(capsys) == ["lab 3: not started (build_context raises LabNotImplementedError)"]


def test_lab3_is_checked_with_the_courses_answers_while_lab2_is_not_started(tmp_path, capsys):
    folder = workspace(tmp_path, STARTER_PACKAGE, budget=SOLUTIONS / "budget.py")
    assert main(["check", "3", "--workspace", str(folder)]) == 0
    assert lines_of(capsys) == [
        "lab 3: 5/5 visible checks pass; hidden tests run at grading; extra credit: 11/11 checks pass (labs 2, 5 "
        "are not done yet: lab 3 is checked with the course's answers for their calls on these inputs)"
    ]


def test_a_wrong_lab_names_its_first_failing_check(tmp_path, capsys):
    folder = buggy(tmp_path / "labs" / "compaction_lab").parent  # keeps messages[-3:]
    assert main(["check", "3", "--workspace", str(folder)]) == 1
    assert lines_of(capsys) == [
        "lab 3: 2/5 visible checks pass; window_31_keeps_two: called build_context(example_entries(), "
        "example_options(max_tokens=31)), got .kept_entry_ids[0] = 'r-test', expected 'u2'"
    ]


GOING_FURTHER = ("compaction_trigger", "should_compact", "group_tool_rounds", "select_compaction_boundary", "compact")
"""Lab 4's going-further functions, whose checks give extra credit."""


def test_lab4_is_done_without_its_extra_credit_which_is_counted_apart(tmp_path, capsys):
    assert main(["check", "4", "--workspace", str(workspace(tmp_path / "all"))]) == 0
    assert lines_of(capsys) == [
        "lab 4: 11/11 visible checks pass; hidden tests run at grading; extra credit: 19/19 checks pass"
    ]
    folder = workspace(tmp_path / "own")
    append(
        folder,
        "compaction",
        "\nfrom .provided.errors import LabNotImplementedError\n"
        + "".join(
            f"\n\ndef {name}(*args, **kwargs):\n    raise LabNotImplementedError(4, {name!r})\n"
            for name in GOING_FURTHER
        ),
    )
    assert main(["check", "4", "--workspace", str(folder)]) == 0
    assert lines_of(capsys) == [
        "lab 4: 11/11 visible checks pass; hidden tests run at grading; extra credit: not started"
    ]


def test_a_syntax_error_names_file_and_line(tmp_path, capsys):
    folder = workspace(tmp_path)
    line = append(folder, "grouping", "\ndef broken(:\n    pass\n") + 1
    assert main(["check", "3", "--workspace", str(folder)]) == 1
    assert lines_of(capsys) == [f"lab 3: compaction_lab/grouping.py does not compile: line {line}: invalid syntax"]


def test_every_lab_is_one_line_without_tracebacks(tmp_path, capsys):
    assert main(["check", "--workspace", str(workspace(tmp_path, STARTER_PACKAGE))]) == 1
    *out, next_step = lines_of(capsys)
    assert next_step.startswith("Next: lab 1: ")
    assert [line.split(":")[0] for line in out] == [f"lab {lab.number}" for lab in LABS]
    for lab, line in zip(LABS, out, strict=True):
        if has_cases(lab.number):
            assert line == f"lab {lab.number}: not started ({lab.function} raises LabNotImplementedError)"
        else:
            assert line.startswith(f"lab {lab.number}: its visible checks could not be loaded: ")


def test_what_the_code_prints_is_not_shown(tmp_path, capsys):
    folder = workspace(tmp_path)
    append(folder, "budget", "\nprint('noise from budget.py')\n")
    assert main(["check", "3", "--workspace", str(folder)]) == 0
    assert "noise" not in capsys.readouterr().out


def test_an_endless_loop_or_an_exit_costs_the_labs_it_stops(tmp_path):
    folder = workspace(tmp_path)
    append(folder, "budget", "\n\ndef build_context(active_path, options):\n    while True:\n        pass\n")
    assert check_lines(folder, 3, seconds=3) == [
        {
            "lab": "3",
            "passed": False,
            "summary": "lab 3: did not finish within 3 s (an endless loop in your code?)",
            "failing": [],
        }
    ]
    append(folder, "budget", "\n\ndef build_context(active_path, options):\n    import os\n    os._exit(3)\n")
    lines = check_lines(folder)
    assert [line["summary"] for line in lines[2:]] == [
        "lab 3: the checks ended with exit status 3",
        "lab 4: not checked (the checks stopped at lab 3)",
        "lab 5: not checked (the checks stopped at lab 3)",
    ]


def test_check_names_a_missing_package_and_a_wrong_lab(tmp_path, capsys):
    assert main(["check", "--workspace", str(tmp_path)]) == 1
    assert "no compaction_lab/ package" in capsys.readouterr().out
    assert main(["check", "6", "--workspace", str(workspace(tmp_path))]) == 1
    assert lines_of(capsys) == ["there is no lab 6; the labs are 1 to 5"]


def test_works_after_a_plain_install_and_loads_no_test_or_grading_library(tmp_path):
    """Each blocked library is a package that refuses to import, first on the path of both processes, and notes
    every attempt (so an import whose ImportError is caught is caught here too)."""
    blockers, attempts = tmp_path / "blockers", tmp_path / "attempts.txt"
    for name in BLOCKED:
        (blockers / name).mkdir(parents=True)
        (blockers / name / "__init__.py").write_text(
            f"with open({str(attempts)!r}, 'a') as out:\n    out.write('{name}\\n')\n"
            f"raise ImportError('{name} is not installed')\n"
        )
    environment = {"PYTHONPATH": str(blockers), "PATH": "/usr/bin:/bin"}
    folder = workspace(tmp_path)

    def workbook(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "workbook.cli.main", *argv],
            cwd=REPO,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )

    done = workbook("check", "3", "--workspace", str(folder))
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "lab 3: 5/5 visible checks pass; hidden tests run at grading; extra credit: 11/11 checks pass\n",
        "",
    )
    done = workbook("check", "--workspace", str(folder))
    assert (done.returncode, done.stderr) == (0, "")
    *lines, next_step = done.stdout.splitlines()
    assert [line.split(";")[0] for line in lines] == [
        f"lab {lab.number}: {own(lab.number)}/{own(lab.number)} visible checks pass" for lab in LABS
    ]
    assert next_step.startswith("Nothing left: ")
    done = workbook("--help")
    assert (done.returncode, done.stderr) == (0, "") and "check     run the notebooks' visible checks" in done.stdout
    assert not attempts.exists(), attempts.read_text()


HEAVY = "print(sorted(name for name in sys.modules if name.split('.')[0] in ('nbgrader', 'nbconvert', 'sqlalchemy')))"


def test_help_lists_every_command_with_its_help_and_imports_no_nbgrader():
    """``workbook --help`` lists each command with the help its thin module registers, without importing the
    work (nbgrader, the judge): a new process shows what ``--help`` loads."""
    text = parser().format_help()
    assert all(command in text for command in COMMANDS)
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys\nfrom workbook.cli.main import parser\nparser().format_help()\n{HEAVY}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "[]"


def test_notebook_cells_check_and_grader_run_one_definition_of_each_visible_case():
    """Every autograded code cell of every notebook runs ``check`` on its own grade id; the cases ``check`` and the
    grader read (the package's ``visible.json``) are the course author's definitions (``labs/<module>/visible.py``),
    compiled and current."""
    from workbook.grading.casebook import load_cases, packaged_cases
    from workbook.paths import LAB_CASES

    cells = [
        cell
        for path in sorted(NOTEBOOKS.glob("*.ipynb"))
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
    ]
    assert len(cells) >= 5 * 4
    for cell in cells:
        assert cell.source.splitlines()[-1] == f"check('{cell.metadata.nbgrader.grade_id}')", cell.id
    assert list(load_cases(LAB_CASES, "visible")) == list(visible_cases()) == list(packaged_cases(SOLUTIONS))
    assert casefile.main(["--check"]) == 0
    assert {case.grade_id for case in visible_cases()} <= {cell.metadata.nbgrader.grade_id for cell in cells}


def test_a_wrong_lab1_passes_what_a_student_runs_is_told_hidden_tests_remain_and_loses_points_at_grading(
    tmp_path, capsys
):
    """Issue 12: lab 1 taking ``tokensBefore: True`` (the bank's mistake) passes every visible check; the line
    says hidden tests run at grading, and the judge's hidden cases take the bad-tokensBefore cell's points."""
    from workbook.authoring.bank import bank, module_text
    from workbook.authoring.validate import load_tables
    from workbook.grading import sandbox
    from workbook.grading.judge import judge_lab

    [mistake] = [entry for entry in bank() if entry.name == "tokens_before_bool_accepted"]
    folder = workspace(tmp_path)
    (folder / "compaction_lab" / "records.py").write_text(module_text(mistake))
    extra = len(visible_cases(1)) - own(1)
    assert main(["check", "1", "--workspace", str(folder)]) == 0
    assert lines_of(capsys) == [
        f"lab 1: {own(1)}/{own(1)} visible checks pass; hidden tests run at grading; "
        f"extra credit: {extra}/{extra} checks pass"
    ]
    graded = judge_lab(folder / "compaction_lab", 1, load_tables().book, sandbox.detect("off"))
    assert {result.key for result in graded.cases if not result.passed} == {
        "lab1_bad_tokens_before/tokens_before_true",
        "lab1_bad_tokens_before/tokens_before_false",
    }
    assert graded.scores["lab1_bad_tokens_before"] == 0
    assert all(
        score > 0
        for grade_id, score in graded.scores.items()
        if grade_id != "lab1_bad_tokens_before" and not grade_id.startswith("lab1_extra_")
    )


def own(number: int) -> int:
    """How many visible checks count for lab ``number``'s own points (extra credit apart)."""
    return len([case for case in visible_cases(number) if not case.extra_credit])


def test_the_lines_speak_the_release_language_unless_told(tmp_path, capsys):
    """A workspace released in Chinese checks in Chinese; ``--language`` overrides it; what passes is the same."""
    folder = workspace(tmp_path, STARTER_PACKAGE)
    (folder / "compaction_lab" / "provided" / "language.txt").write_text("zh\n", encoding="utf-8")
    assert check_lines(folder, 1) == [
        {
            "lab": "1",
            "summary": "lab 1: 尚未开始（parse_compaction_entry 抛出 LabNotImplementedError）",
            "passed": False,
            "failing": [],
        }
    ]
    assert main(["check", "1", "--workspace", str(folder), "--language", "en"]) == 1
    assert lines_of(capsys) == ["lab 1: not started (parse_compaction_entry raises LabNotImplementedError)"]
    solved = workspace(tmp_path / "solved")
    (line,) = check_lines(solved, 2, language="vi")
    assert line == {
        "lab": "2",
        "summary": "lab 2: 5/5 kiểm tra công khai đạt; bài kiểm tra ẩn chạy khi chấm",
        "passed": True,
        "failing": [],
    }
