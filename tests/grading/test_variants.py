"""Generated variants: drawn per grading run from the judge's seed, decided by the reference. The same seed draws
the same cases; every cell of every lab gets at least five; the reference passes them all over many seeds; no
generated refusal can be met by an error naming everything in its input; and, in the sandbox, every independently
written correct version keeps full marks over 20 seeds while the judge grades a submission alike twice with one
seed."""

from __future__ import annotations

import dataclasses
import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from attack_bank import SPRAYED_ERRORS

from compaction_lab.provided.checking.verdict import SPRAY_LIMIT, bystanders, verdict
from compaction_lab.provided.labs import lab as lab_record
from workbook.authoring.bank import bank, write_package
from workbook.authoring.validate import load_tables
from workbook.grading.casebook import reference_observation
from workbook.grading.judge import judge_lab
from workbook.paths import SOLUTIONS

SEEDS = range(20)
WITH_VARIANTS = (1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def book():
    return load_tables().book


SEEDS_PER_RUN = {1: 5}
"""Lab 1's variants hold values at the guarded parser's limits (tens of kilobytes each, reported back): five seeds
at a time keep a run's reports within the judge's cap."""


def several_seeds(book, lab: int, seeds: range = SEEDS):
    """``book`` whose lab ``lab`` draws the variants of every seed of ``seeds`` at once (renamed apart)."""
    generator = book.variants[lab]

    def drawn(rng: random.Random) -> tuple:
        return tuple(
            dataclasses.replace(case, name=f"{case.name}_seed_{seed}")
            for seed in seeds
            for case in generator(random.Random(f"variants {seed} lab {lab}"))
        )

    return dataclasses.replace(book, variants={lab: drawn})


def runs(lab: int) -> list[range]:
    """``SEEDS`` in the groups lab ``lab`` is judged on, one judge run each."""
    size = SEEDS_PER_RUN.get(lab, len(SEEDS))
    return [SEEDS[start : start + size] for start in range(0, len(SEEDS), size)]


def test_every_lab_has_variants_and_one_seed_draws_the_same_cases(book):
    assert set(WITH_VARIANTS) <= set(book.variants)
    for lab in WITH_VARIANTS:
        first, again, other = book.generated(lab, 7), book.generated(lab, 7), book.generated(lab, 8)
        assert first == again and first != other
        assert all(case.hidden for case in first)


def test_every_cell_gets_at_least_five(book):
    for lab in WITH_VARIANTS:
        cells = {grade_id for grade_id in book.points if grade_id.startswith(f"lab{lab}_")}
        cells &= {case.grade_id for case in book.of_lab(lab)}  # the autograded cells
        made = [case.grade_id for case in book.generated(lab, 3)]
        assert {cell: made.count(cell) for cell in cells} == {cell: 5 for cell in cells}


def test_the_reference_passes_its_own_variants_over_20_seeds(book):
    for lab in WITH_VARIANTS:
        for seed in SEEDS:
            for case in book.generated(lab, seed):
                observed = reference_observation(case)
                assert case.raises or "returned" in observed, case.key
                assert verdict(case, observed, {} if case.raises else observed).passed, (seed, case.key)


@pytest.mark.slow
def test_correct_versions_keep_full_marks_over_20_seeds(tmp_path, isolation, book):
    entries = [entry for entry in bank(WITH_VARIANTS) if entry.kind == "correct"]
    assert len(entries) >= 15

    packages = {entry.name: write_package(entry, tmp_path / entry.name) for entry in entries}
    jobs = [(entry, seeds) for entry in entries for seeds in runs(entry.lab)]

    def graded(job):
        slot, (entry, seeds) = job
        verdict = judge_lab(packages[entry.name], entry.lab, several_seeds(book, entry.lab, seeds), isolation, slot % 2)
        return entry.name, [case.key for case in verdict.cases if not case.passed]

    failed: dict[str, list[str]] = {entry.name: [] for entry in entries}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, keys in pool.map(graded, enumerate(jobs)):
            failed[name] += keys
    assert failed == {entry.name: [] for entry in entries}


def test_one_seed_grades_alike_and_a_generated_case_catches_a_mistake(tmp_path, isolation, book):
    (mistake,) = [entry for entry in bank((3,)) if entry.name == "budget_edge_inclusive"]
    package = write_package(mistake, tmp_path / "edge")
    first = judge_lab(package, 3, book, isolation, seed=11)
    again = judge_lab(package, 3, book, isolation, seed=11)
    assert first.seed == again.seed == 11
    assert first.scores == again.scores and first.scores["lab3_trim_boundary"] == 0
    failed = [case.key for case in first.cases if not case.passed]
    assert failed == [case.key for case in again.cases if not case.passed]
    assert any(key.startswith("lab3_trim_boundary/generated_") for key in failed)
    reference = judge_lab(SOLUTIONS, 3, book, isolation, seed=11)
    assert all(case.passed for case in reference.cases) and reference.to_json()["seed"] == 11


def spray(case) -> dict:
    """An observation of ``case`` raising its class with a message naming what it names and every bystander."""
    named = [word for item in case.naming for word in ((item,) if isinstance(item, str) else item)]
    message = " ".join([*named, *sorted(bystanders(case))])
    return {"raised": {"classes": [case.raises, "Exception"], "message": message}, "inputs_after": case.sent()}


def test_no_generated_refusal_is_met_by_an_error_spray(book):
    for lab in WITH_VARIANTS:
        for seed in SEEDS:
            for case in book.generated(lab, seed):
                if case.raises:
                    assert len(bystanders(case)) > SPRAY_LIMIT, (seed, case.key)
                    assert verdict(case, spray(case), {}).status == "failed", (seed, case.key)


def test_refusals_with_few_bystanders_let_a_spray_through_but_their_cells_have_generated_refusals(book):
    few = [case for case in book.cases if case.raises and len(bystanders(case)) <= SPRAY_LIMIT]
    cells = {case.grade_id for case in few}
    assert {"lab1_extra_guarded_limits", "lab3_extra_units_weights", "lab4_extra_should_compact"} <= cells
    assert all(verdict(case, spray(case), {}).passed for case in few)
    for seed in SEEDS:
        refusing = {case.grade_id for lab in WITH_VARIANTS for case in book.generated(lab, seed) if case.raises}
        assert cells <= refusing, (seed, sorted(cells - refusing))


def test_correct_code_whose_errors_name_everything_loses_the_cell_a_spray_passed_before(tmp_path, isolation, book):
    package = write_package(next(entry for entry in bank((4,)) if entry.kind == "correct"), tmp_path / "correct")
    module = package / f"{lab_record(4).module}.py"
    module.write_text(module.read_text(encoding="utf-8") + SPRAYED_ERRORS, encoding="utf-8")
    cell = "lab4_extra_should_compact"
    before = judge_lab(package, 4, dataclasses.replace(book, variants={}), isolation)
    now = judge_lab(package, 4, book, isolation, seed=5)
    assert before.extra[cell] == book.extra[cell] and now.extra[cell] == 0
    failed = [case.key for case in now.cases if not case.passed and case.grade_id == cell]
    assert failed and all("/generated_" in key for key in failed)


def test_generated_cases_of_labs_1_and_4_catch_their_mistakes(tmp_path, isolation, book):
    caught = {"guard_depth_off_by_one": "lab1_extra_guarded_input", "trigger_only_above": "lab4_extra_should_compact"}
    mistakes = [entry for entry in bank((1, 4)) if entry.name in caught]

    def graded(job):
        slot, entry = job
        verdict = judge_lab(write_package(entry, tmp_path / entry.name), entry.lab, book, isolation, slot, seed=3)
        return entry.name, {
            case.key.split("/")[0] for case in verdict.cases if "/generated_" in case.key and not case.passed
        }

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = dict(pool.map(graded, enumerate(mistakes)))
    assert all(cell in failed[name] for name, cell in caught.items()), failed
