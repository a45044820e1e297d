"""The memoiser of issue 20 against the judge: a lookup of the released expected values, a structural twin matcher,
an error spray naming every id, key and path, and all three together, each installed at the end of every lab
module. On the blank starter each earns nothing on any lab, extra credit included; on a buggy lab 3 all three
together earn no more than the bug alone. Without the generated variants (the grader before them) the three
together did earn points on every lab: the bank represents the attack. Every judge run of the module is one batch,
two at a time."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest
from attack_bank import memoiser

from compaction_lab.provided.labs import lab as lab_record
from workbook.authoring.samples import blank, buggy
from workbook.authoring.validate import load_tables
from workbook.grading.judge import judge_lab
from workbook.manifest import LABS

ALL_LABS = tuple(lab.number for lab in LABS)
ATTACKS = {
    "lookup": memoiser(lookup=True, twins=False, spray=False),
    "twin_matcher": memoiser(lookup=False, twins=True, spray=False),
    "error_spray": memoiser(lookup=False, twins=False, spray=True),
    "all_three": memoiser(),
}
SEED = 20


def attacked(package, attack: str, labs: tuple[int, ...] = ALL_LABS):
    """``package`` with ``attack`` appended to the module of every lab of ``labs``."""
    for lab in labs:
        module = package / f"{lab_record(lab).module}.py"
        module.write_text(module.read_text(encoding="utf-8") + ATTACKS[attack], encoding="utf-8")
    return package


def earned(verdict) -> tuple[float, float]:
    return sum(verdict.scores.values()), sum(verdict.extra.values())


@pytest.fixture(scope="module")
def graded(tmp_path_factory, isolation):
    """Every judge run of this module, by name: ``(attack, lab)`` on the blank starter, ``("buggy", 3)`` and
    ``("buggy+all_three", 3)``, and ``("before", lab)``: all three on the blank starter without the variants."""
    book = load_tables().book
    folder = tmp_path_factory.mktemp("memoiser")
    packages = {attack: attacked(blank(folder / attack), attack) for attack in ATTACKS}
    buggy_alone, buggy_attacked = buggy(folder / "buggy"), attacked(buggy(folder / "buggy_attacked"), "all_three", (3,))
    before = dataclasses.replace(book, variants={})
    jobs = {(attack, lab): (packages[attack], lab, book) for attack in ATTACKS for lab in ALL_LABS}
    jobs |= {("buggy", 3): (buggy_alone, 3, book), ("buggy+all_three", 3): (buggy_attacked, 3, book)}
    jobs |= {("before", lab): (packages["all_three"], lab, before) for lab in ALL_LABS}

    def run(job):
        slot, (package, lab, cases) = job
        return judge_lab(package, lab, cases, isolation, slot % 2, seed=SEED)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(jobs, pool.map(run, enumerate(jobs.values())), strict=True))


@pytest.mark.parametrize("attack", ATTACKS)
def test_each_attack_on_the_blank_starter_earns_nothing(graded, attack):
    for lab in ALL_LABS:
        verdict = graded[attack, lab]
        assert earned(verdict) == (0.0, 0.0), (attack, lab, verdict.scores, verdict.extra)


def test_all_three_on_a_buggy_lab_3_earn_no_more_than_the_bug(graded):
    alone, with_it = graded["buggy", 3], graded["buggy+all_three", 3]
    assert all(with_it.scores[cell] <= alone.scores[cell] for cell in alone.scores), with_it.scores
    assert all(with_it.extra[cell] <= alone.extra.get(cell, 0) for cell in with_it.extra), with_it.extra


def test_without_generated_variants_all_three_earned_points(graded):
    for lab in ALL_LABS:
        assert earned(graded["before", lab])[0] > 0, lab
