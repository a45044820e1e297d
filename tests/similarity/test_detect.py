"""The detector: copydetect's share, for every pair at once; stable hashes; settings refused by name."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from copydetect import compare_files
from copydetect.utils import filter_code

from workbook.authoring.bank import bank, module_text
from workbook.similarity.detect import (
    PARALLEL_FROM,
    boilerplate_hashes,
    compare,
    filter_python,
    fingerprint,
    lex,
    lex_all,
    share_matrix,
    window_hashes,
)
from workbook.similarity.settings import Settings, SimilarityError
from workbook.similarity.sources import ANSWER, CODE, ClassDocuments, code_boilerplate, lab_regions


def prints(lab: int):
    settings = Settings()
    boilerplate = np.concatenate([boilerplate_hashes(part, CODE, settings.min_match) for part in code_boilerplate(lab)])
    texts = [lab_regions(module_text(entry), lab) for entry in bank((lab,))[:6]]
    return [fingerprint(text, lex(text, CODE), settings.min_match, settings.window, boilerplate) for text in texts]


def test_the_share_of_every_pair_is_compare_files_share():
    found = prints(2)
    shares = share_matrix(found)
    for a, b in itertools.permutations(range(len(found)), 2):
        _, (share_a, _), _ = compare_files(found[a], found[b])
        assert shares[a, b] == pytest.approx(share_a)
    assert shares[0, 1] > 0.85  # two of lab 2's mistakes: small patches of the reference
    assert np.all(np.diag(shares) == 0)


def test_window_hashes_are_the_same_in_another_process():
    here = window_hashes("V=V+1\nreturn V", 5).tolist()
    code = "from workbook.similarity.detect import window_hashes; print(window_hashes('V=V+1\\nreturn V', 5).tolist())"
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert there.strip() == str(here) and len(here) == 10 and len(set(here)) == 10


def test_the_filter_is_copydetects_own():
    tricky = '#!/usr/bin/env python\nclass Box(Base):\n    """doc"""\n'
    tricky += "    def put(self, x=f'{y!r}'):  # c\n        return x\n"
    for text in [tricky, *(module_text(entry) for entry in bank((5,)))]:
        ours, offsets = filter_python(text)
        theirs, their_offsets = filter_code(text, "lab.py")
        assert ours == theirs and np.array_equal(offsets, their_offsets)


def test_renaming_and_comments_do_not_change_the_filtered_code():
    one = "def total(items):\n    # add them up\n    return sum(item.cost for item in items)\n"
    two = "def add_up(things):\n    return sum(thing.cost for thing in things)  # the sum\n"
    assert lex(one, CODE)[0] == lex(two, CODE)[0]
    assert lex("The  Budget\n comes FIRST.", ANSWER)[0] == "the budget comes first."


def test_answers_are_compared_as_words_without_the_boilerplate():
    prompt = "YOUR ANSWER HERE"
    answer = "The fixed costs come off first, then whole interactions are kept from the newest backwards. " * 2
    documents = ClassDocuments(3, ANSWER, {"ann": answer, "bob": answer.upper(), "cat": prompt}, (prompt,))
    result = compare(documents, Settings())
    assert [(pair.first, pair.second) for pair in result.flagged] == [("ann", "bob")]
    assert result.flagged[0].share_first == pytest.approx(1.0) and result.scores.tolist()[1:] == [0.0, 0.0]


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"threshold": 0}, "threshold: expected a share above 0 and at most 1, got 0"),
        ({"threshold": float("nan")}, "threshold: expected a share above 0 and at most 1, got nan"),
        ({"min_match": 0}, "min_match: expected a whole number of at least 1, got 0"),
        ({"window": 2.5}, "window: expected a whole number of at least 1, got 2.5"),
    ],
)
def test_a_setting_out_of_range_is_refused_by_name(setting, message):
    with pytest.raises(SimilarityError, match=message.replace("(", r"\(")):
        Settings(**setting)


def test_lexing_in_worker_processes_gives_what_one_process_gives():
    texts = [f"def f{n}(x):\n    return x + {n}\n" for n in range(PARALLEL_FROM)] + ["x = 1\n"] * 3
    parallel, serial = lex_all(texts, CODE, workers=2), lex_all(texts, CODE, workers=1)
    assert len(parallel) == len(texts) and parallel[0][0] == "defF(V):returnV+0"
    for (ours, offsets), (theirs, their_offsets) in zip(parallel, serial, strict=True):
        assert ours == theirs and np.array_equal(offsets, their_offsets)
