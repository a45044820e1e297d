"""``workbook validate``: the bank of known mistakes and independent correct implementations, graded by the
judge with the case tables (the project's, or a course's own edited copy), and the gate's verdict."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from workbook.authoring.bank import BankError, Correct, Mistake, bank, module_of, module_text, write_package
from workbook.authoring.validate import GateReport, Row, Subject, idle_variants, load_tables, run_gate
from workbook.cli.main import main
from workbook.grading.judge import CaseResult, LabVerdict
from workbook.manifest import LABS
from workbook.paths import LAB_CASES, REPO, SOLUTIONS
from workbook.pipeline.build import build

BUDGET = (SOLUTIONS / "budget.py").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def gate():
    """The gate on the project's case tables, every bank entry."""
    tables = load_tables()
    return tables, run_gate(tables)


def test_bank_has_forty_mistakes_six_per_lab_and_three_correct_per_lab():
    entries = bank()
    mistakes = [entry for entry in entries if entry.kind == "mistake"]
    assert len(mistakes) >= 40
    for lab in LABS:
        assert sum(entry.lab == lab.number for entry in mistakes) >= 6, lab.module
        assert sum(entry.lab == lab.number and entry.kind == "correct" for entry in entries) >= 3, lab.module


def test_every_bank_entry_applies_and_changes_its_lab_module():
    for entry in bank():
        reference = (SOLUTIONS / f"{module_of(entry.lab)}.py").read_text(encoding="utf-8")
        text = module_text(entry)
        assert text != reference, entry.name
        compile(text, f"{entry.name}.py", "exec")


def test_a_patch_that_no_longer_matches_fails_loudly_naming_the_mistake():
    gone = Mistake("edge_ge", "d", (("        if used + cost => available:\n", "x"),), lab=3)
    with pytest.raises(
        BankError, match="mistake 'edge_ge' \\(lab 3\\): patch 1 matches 0 times in the reference budget.py"
    ):
        gone.apply(BUDGET)
    twice = Mistake("twice", "d", (("options.", "x."),), lab=3)
    with pytest.raises(BankError, match="'twice' .* matches [0-9]+ times"):
        twice.apply(BUDGET)
    outside = Mistake(
        "outside", "d", (("    options, start = place_summary(", "    _, start = place_summary("),), lab=3
    )
    with pytest.raises(BankError, match="'outside' .* reaches outside the lab 3 regions of budget.py"):
        outside.apply(BUDGET)
    with pytest.raises(BankError, match="'short' .* has 1 region bodies, the reference grouping.py has 2"):
        Correct("short", "d", ("return []",), lab=2).apply((SOLUTIONS / "grouping.py").read_text(encoding="utf-8"))


def test_gate_passes_and_kills_named_mistakes_on_their_own_lab_only(gate):
    tables, report = gate
    assert report.passed, report.failures
    assert report.labs == tables.labs and 3 in report.labs
    for name, cells in {
        "budget_edge_inclusive": {"lab3_trim_boundary"},
        "skips_to_older_interactions": {"lab3_complete_and_zero_budget"},
        "estimator_gets_the_messages": {"lab3_estimator_misbehaves"},
        "whole_path_grouped": {"lab3_copies_and_metadata"},
        "available_goes_negative": {"lab3_complete_and_zero_budget"},
    }.items():
        row = report.row(name)
        lost = {grade_id for grade_id, score in row.verdicts[3].scores.items() if score < tables.book.points[grade_id]}
        assert cells <= lost, name
        assert row.lost[3] > 0 and row.outcome.startswith("killed: ")
    for row in report.rows:
        if row.subject.kind == "mistake" and row.subject.lab in report.labs:
            assert row.lost[row.subject.lab] > 0, row.subject.name
        others = [lab for lab in report.labs if lab != row.subject.lab]
        if row.subject.kind in ("mistake", "correct", "reference"):
            assert all(row.lost[lab] == 0 for lab in others), row.subject.name
    assert all(row.lost[3] == 0 for row in report.rows if row.subject.kind == "correct" and row.subject.lab == 3)
    assert all(report.row("starters").lost[lab] == tables.full(lab) for lab in report.labs)
    assert report.row("budget_counted_suffix").outcome == "correct; full marks"


def test_labs_without_cases_are_reported_not_judged_unless_required(gate):
    tables, report = gate
    uncased = [lab.number for lab in LABS if lab.number not in report.labs]
    if not uncased:
        pytest.skip("every lab has cases now: nothing is pending")
    pending = [row for row in report.rows if row.subject.lab in uncased]
    assert pending and all(row.outcome.endswith("no cases yet") and not row.problems for row in pending)
    strict = run_gate(tables, labs=(uncased[0],), strict=True)
    assert not strict.passed
    assert f"labs without cases: {', '.join(map(str, uncased))}" in strict.failures
    assert any(failure.endswith(f"cannot be judged: lab {uncased[0]} has no cases") for failure in strict.failures)


def graded_row(name: str, kind: str, lab: int, cases: dict[str, bool]) -> Row:
    """A gate row of subject ``name`` judged on ``lab`` alone: each case key passed or failed."""
    results = tuple(
        CaseResult(key, key.split("/")[0], True, "passed" if passed else "failed", "", "", "")
        for key, passed in cases.items()
    )
    verdict = LabVerdict(lab, results, {}, "graded")
    return Row(Subject(name, kind, lab, "", LAB_CASES), {lab: verdict}, {lab: 0.0}, (), "")


def test_cells_whose_generated_variants_fail_no_bank_mistake_are_listed():
    rows = (
        graded_row("reference", "reference", 4, {"lab4_a/generated_0": True, "lab4_b/generated_0": True}),
        graded_row(
            "a_mistake", "mistake", 4, {"lab4_a/generated_0": False, "lab4_b/generated_0": True, "lab4_b/seen": False}
        ),
        graded_row("unjudged_lab", "reference", 3, {"lab3_c/generated_0": True}),
    )
    report = GateReport(rows, (3, 4), (), 3, 3)
    assert idle_variants(report, load_tables()) == ["lab4_b"]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A built course; a test that edits its hidden cases puts them back."""
    return build(tmp_path_factory.mktemp("validate") / "course")


def test_a_weakened_course_case_table_lets_a_mistake_through_and_the_gate_names_it(course, capsys, monkeypatch):
    hidden = course.cases / "budget" / "hidden.py"
    generators = course.cases / "budget" / "variants.py"
    original, drawn = hidden.read_text(encoding="utf-8"), generators.read_text(encoding="utf-8")
    monkeypatch.setenv("COLUMNS", "200")
    # An instructor drops the greedy-fill case, and the two replay cases (extra credit) that a greedy fill also
    # fails, and the lab's generated variants (which catch it too).
    dropped = ("no_skipping_ahead", "summary_in_system_prompt_with_headroom", "compaction_midway")
    try:
        hidden.write_text(
            original + f"\nCASES = tuple(case for case in CASES if case.name not in {dropped!r})\n", encoding="utf-8"
        )
        generators.unlink()
        assert main(["validate", "--course", str(course.root), "--lab", "3"]) == 1
    finally:
        hidden.write_text(original, encoding="utf-8")
        generators.write_text(drawn, encoding="utf-8")
    out = capsys.readouterr().out
    assert "validity gate FAILED (1 problems)" in out
    assert (
        "mistake 'skips_to_older_interactions' (lab 3) keeps full marks on lab 3: no case catches that an "
        "interaction that does not fit is skipped" in out
    )
    assert f"cases: the course {course.root}" in out
    assert "budget_edge_inclusive" in out and "legacy_keys_ignored" not in out


def test_course_case_tables_that_do_not_load_fail_the_gate(course, capsys):
    hidden = course.cases / "budget" / "hidden.py"
    original = hidden.read_text(encoding="utf-8")
    try:
        hidden.write_text("CASES = (\n", encoding="utf-8")
        assert main(["validate", "--course", str(course.root)]) == 1
    finally:
        hidden.write_text(original, encoding="utf-8")
    assert "the case tables of the course" in capsys.readouterr().out


def _lab_tests(entry, folder) -> tuple[str, int, str]:
    package = write_package(entry, folder / entry.name)
    test_file = REPO / "tests" / "labs" / f"test_{module_of(entry.lab)}.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:nbval",
            str(test_file),
            "--lab-package",
            str(package),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    return entry.name, done.returncode, done.stdout[-1500:]


@pytest.mark.slow
def test_the_labs_pytest_tests_also_fail_every_mistake_and_pass_every_correct_version(tmp_path):
    """The bank against the project's own pytest tests (``workbook check`` runs their focused ones), lab by lab,
    whether or not the lab has cases yet: a mistake fails its lab's test file, a correct implementation passes it."""
    entries = {entry.name: entry for entry in bank()}
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda entry: _lab_tests(entry, tmp_path), entries.values()))
    expected = {"mistake": pytest.ExitCode.TESTS_FAILED, "correct": pytest.ExitCode.OK}
    wrong = [(name, code, out) for name, code, out in results if code != expected[entries[name].kind]]
    assert not wrong, wrong
