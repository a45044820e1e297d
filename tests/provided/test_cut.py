"""``cut``: a value in a failure line at most ``VALUE_CHARS`` long, where it first differs kept and marked; and the
verdict's message built with it."""

from __future__ import annotations

import pytest

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.checking.cut import ELLIPSIS, MARK, VALUE_CHARS, cut
from compaction_lab.provided.checking.verdict import verdict

IDS = "[" + ", ".join(f"'e{number}'" for number in range(100)) + "]"
"""A list's repr of 690 characters."""
CHANGED = IDS.replace("'e57'", "'x57'")


def test_a_value_that_fits_is_left_as_it_is():
    assert cut("['u1', 'a1']", "['u1', 'a2']") == "['u1', 'a1']"
    assert cut("x" * VALUE_CHARS, "y") == "x" * VALUE_CHARS


def test_a_long_value_keeps_the_window_around_its_first_difference_marked():
    got, want = cut(IDS, CHANGED), cut(CHANGED, IDS)
    assert len(IDS) == 690 and len(got) == len(want) == VALUE_CHARS
    assert got.startswith(f"{ELLIPSIS}', 'e49', ") and got.endswith(f"'e76'{ELLIPSIS}")
    assert f"'e56', '{MARK}e57', 'e58'" in got and f"'e56', '{MARK}x57', 'e58'" in want
    assert got.index(MARK) == want.index(MARK) == 61  # the ellipsis and 60 characters before the difference


def test_a_difference_near_the_beginning_keeps_the_beginning():
    shorter = cut(IDS, "['e0']")
    assert shorter == "['e0'" + MARK + IDS[5 : VALUE_CHARS - 2] + ELLIPSIS
    assert len(shorter) == VALUE_CHARS


def test_a_difference_at_the_end_keeps_the_end():
    longer = cut(IDS, IDS[:-1] + ", 'e100']")
    assert longer.startswith(ELLIPSIS) and longer.endswith(f"'e99'{MARK}]")
    assert len(longer) <= VALUE_CHARS


def test_without_a_value_to_compare_the_beginning_is_kept_unmarked():
    assert cut(IDS) == IDS[: VALUE_CHARS - 1] + ELLIPSIS
    assert cut(IDS, limit=10) == "['e0', 'e" + ELLIPSIS


def test_a_limit_without_room_for_a_character_is_refused():
    assert cut(IDS, CHANGED, limit=4) == ELLIPSIS + MARK + "e" + ELLIPSIS
    with pytest.raises(ValueError, match="at least 4 characters"):
        cut(IDS, CHANGED, limit=3)


def test_a_failed_cases_message_shows_both_values_cut_and_marked_at_their_difference():
    case = next(case for case in visible_cases(2) if not case.raises and not case.parts)
    entries = [f"entry {number}: " + "a long line of text " * 3 for number in range(8)]
    expected = {"returned": entries}
    observed = {"returned": entries[:7], "inputs_after": case.sent()}
    message = verdict(case, observed, expected).message
    got, want = message.split(", got ", 1)[1].split(", expected ")
    assert len(got) <= VALUE_CHARS < len(repr(entries[:7])) and len(want) <= VALUE_CHARS
    assert got.startswith(ELLIPSIS) and got.endswith(f"{MARK}]")
    assert f"{MARK}, 'entry 7: a long" in want
