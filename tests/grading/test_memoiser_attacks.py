"""The memoiser of issue 20 against the judge: a lookup of the released expected values, a structural twin matcher,
an error spray naming every id, key and path, and all three together, each installed at the end of a lab module.
On the blank starter each earns nothing on labs 2, 3 and 5 (the labs with generated variants), extra credit
included; on a buggy lab 3 all three together earn no more than the bug alone. Without the generated variants
(the grader before them) the three together did earn points: the bank represents the attack. Labs 1 and 4 have
no variants yet and are not covered here."""

from __future__ import annotations

import dataclasses

import pytest
from attack_bank import memoiser

from compaction_lab.provided.labs import lab as lab_record
from workbook.authoring.samples import blank, buggy
from workbook.authoring.validate import load_tables
from workbook.grading.judge import judge_lab

COVERED = (2, 3, 5)
ATTACKS = {
    "lookup": memoiser(lookup=True, twins=False, spray=False),
    "twin_matcher": memoiser(lookup=False, twins=True, spray=False),
    "error_spray": memoiser(lookup=False, twins=False, spray=True),
    "all_three": memoiser(),
}


@pytest.fixture(scope="module")
def book():
    return load_tables().book


def attacked(package, lab: int, attack: str):
    """``package`` with ``attack`` appended to lab ``lab``'s module."""
    module = package / f"{lab_record(lab).module}.py"
    module.write_text(module.read_text(encoding="utf-8") + ATTACKS[attack], encoding="utf-8")
    return package


def earned(verdict) -> tuple[float, float]:
    return sum(verdict.scores.values()), sum(verdict.extra.values())


@pytest.mark.parametrize("attack", ATTACKS)
def test_each_attack_on_the_blank_starter_earns_nothing(tmp_path, isolation, book, attack):
    for lab in COVERED:
        package = attacked(blank(tmp_path / f"lab{lab}"), lab, attack)
        verdict = judge_lab(package, lab, book, isolation, seed=20)
        assert earned(verdict) == (0.0, 0.0), (attack, lab, verdict.scores, verdict.extra)


def test_all_three_on_a_buggy_lab_3_earn_no_more_than_the_bug(tmp_path, isolation, book):
    alone = judge_lab(buggy(tmp_path / "buggy"), 3, book, isolation, seed=20)
    with_it = judge_lab(attacked(buggy(tmp_path / "attacked"), 3, "all_three"), 3, book, isolation, seed=20)
    assert all(with_it.scores[cell] <= alone.scores[cell] for cell in alone.scores), with_it.scores
    assert all(with_it.extra[cell] <= alone.extra.get(cell, 0) for cell in with_it.extra), with_it.extra


def test_without_generated_variants_all_three_earned_points(tmp_path, isolation, book):
    before = dataclasses.replace(book, variants={})
    for lab in COVERED:
        package = attacked(blank(tmp_path / f"lab{lab}"), lab, "all_three")
        assert earned(judge_lab(package, lab, before, isolation))[0] > 0, lab
