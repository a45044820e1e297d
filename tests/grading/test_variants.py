"""Generated variants: drawn per grading run from the judge's seed, decided by the reference. The same seed draws
the same cases; every cell of a lab with variants gets at least five; the reference passes them all over many
seeds; and, in the sandbox, every independently written correct version keeps full marks over 20 seeds while the
judge grades a submission alike twice with one seed."""

from __future__ import annotations

import dataclasses
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from workbook.authoring.bank import bank, write_package
from workbook.authoring.validate import load_tables
from workbook.grading.casebook import reference_observation
from workbook.grading.judge import judge_lab
from workbook.paths import SOLUTIONS

SEEDS = range(20)
WITH_VARIANTS = (2, 3, 5)


@pytest.fixture(scope="module")
def book():
    return load_tables().book


def several_seeds(book, lab: int):
    """``book`` whose lab ``lab`` draws the variants of every seed of ``SEEDS`` at once (renamed apart)."""
    generator = book.variants[lab]

    def drawn(rng: random.Random) -> tuple:
        return tuple(
            dataclasses.replace(case, name=f"{case.name}_seed_{seed}")
            for seed in SEEDS
            for case in generator(random.Random(f"variants {seed} lab {lab}"))
        )

    return dataclasses.replace(book, variants={lab: drawn})


def test_labs_2_and_3_have_variants_and_one_seed_draws_the_same_cases(book):
    assert set(WITH_VARIANTS) <= set(book.variants)
    for lab in WITH_VARIANTS:
        first, again, other = book.generated(lab, 7), book.generated(lab, 7), book.generated(lab, 8)
        assert first == again and first != other
        assert all(case.hidden for case in first)


def test_every_cell_of_a_lab_with_variants_gets_at_least_five(book):
    for lab in WITH_VARIANTS:
        cells = {grade_id for grade_id in book.points if grade_id.startswith(f"lab{lab}_")}
        cells &= {case.grade_id for case in book.of_lab(lab)}  # the autograded cells
        made = [case.grade_id for case in book.generated(lab, 3)]
        assert {cell: made.count(cell) for cell in cells} == {cell: 5 for cell in cells}


def test_the_reference_passes_its_own_variants_over_20_seeds(book):
    from compaction_lab.provided.checking.verdict import verdict

    for lab in WITH_VARIANTS:
        for seed in SEEDS:
            for case in book.generated(lab, seed):
                observed = reference_observation(case)
                assert case.raises or "returned" in observed, case.key
                assert verdict(case, observed, {} if case.raises else observed).passed, (seed, case.key)


def test_correct_versions_keep_full_marks_over_20_seeds(tmp_path, isolation, book):
    entries = [entry for entry in bank(WITH_VARIANTS) if entry.kind == "correct"]
    assert len(entries) >= 9

    def graded(job):
        slot, entry = job
        package = write_package(entry, tmp_path / entry.name)
        verdict = judge_lab(package, entry.lab, several_seeds(book, entry.lab), isolation, slot % 2, seed=0)
        return entry.name, [case.key for case in verdict.cases if not case.passed]

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = dict(pool.map(graded, enumerate(entries)))
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
