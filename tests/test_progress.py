"""The notebooks' helpers: the red/green light, the demo guard and the test assertions.

Lab functions are replaced with stand-ins (``monkeypatch``), so these tests say the same
against the solutions, the starters or a student's copy.
"""

from __future__ import annotations

import copy
import operator

import pytest

from compaction_lab import budget, grouping
from compaction_lab.provided import progress
from compaction_lab.provided.checks import expect, expect_error, expect_shares_nothing
from compaction_lab.provided.errors import InteractionError, LabNotImplementedError
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.views import GREEN, RED


def example_groups() -> list[list[dict]]:
    """The example's three interactions, as the lab should return them."""
    entries = example_entries()
    return [entries[0:2], entries[2:4], entries[4:]]


def raise_lab(number: int, function: str):
    """A stand-in for a lab function that is not written yet."""
    def stand_in(*args, **kwargs):
        raise LabNotImplementedError(number, function)
    return stand_in


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The HTML that ``progress`` displays, in order."""
    html: list[str] = []
    monkeypatch.setattr(progress, "display", lambda item: html.append(item.data))
    return html


def test_green_when_the_example_passes(monkeypatch: pytest.MonkeyPatch, shown: list[str]) -> None:
    monkeypatch.setattr(grouping, "group_interactions", lambda entries: example_groups())
    progress.show_status(2)
    assert progress.lab_status(2).state == "done"
    assert GREEN in shown[0] and "Lab 2 (interaction grouping)" in shown[0]


def test_red_with_the_lab_message_while_not_implemented(monkeypatch: pytest.MonkeyPatch, shown: list[str]) -> None:
    monkeypatch.setattr(grouping, "group_interactions", raise_lab(2, "group_interactions"))
    progress.show_status(2)
    status = progress.lab_status(2)
    assert (status.state, status.title) == ("not_implemented", str(LabNotImplementedError(2, "group_interactions")))
    assert status.detail == ("Write group_interactions() in compaction_lab/grouping.py, save the file, "
                             "and run this cell again.")
    assert RED in shown[0] and "group_interactions() is not implemented yet" in shown[0]


def test_blocked_by_an_earlier_lab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "build_context", raise_lab(2, "group_interactions"))
    status = progress.lab_status(3)
    assert (status.state, status.green) == ("blocked", False)
    assert status.title.endswith("blocked by lab 2")


def test_wrong_result_says_called_got_expected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grouping, "group_interactions", lambda entries: [entries])
    status = progress.lab_status(2)
    assert status.state == "wrong"
    assert status.detail.startswith("AssertionError: called group_interactions(example_entries()), got [[")
    assert "expected [['u1', 'a1'], ['u2', 'a2'], ['u3', 'calls', 'r-test', 'r-read', 'a3']]" in status.detail


def test_demo_shows_errors_instead_of_raising(shown: list[str]) -> None:
    with progress.demo():
        raise LabNotImplementedError(3, "build_context")
    with progress.demo():
        raise KeyError("message")
    assert "build_context() is not implemented yet" in shown[0]
    assert "KeyError" in shown[1] and "traceback" in shown[1]


def test_expect_names_call_result_and_first_difference() -> None:
    with pytest.raises(AssertionError) as failure:
        expect([{"id": "u1", "tokens": 3}], [{"id": "u1", "tokens": 4}], "price(path)")
    assert str(failure.value) == ("called price(path), got [{'id': 'u1', 'tokens': 3}], expected "
                                  "[{'id': 'u1', 'tokens': 4}] (first difference at [0]['tokens']: got 3, expected 4)")


def test_expect_error_checks_type_and_named_words() -> None:
    def refuse(word: str) -> None:
        raise InteractionError(f"call id {word!r}: no tool result")

    expect_error(InteractionError, "refuse('read-1')", refuse, "read-1", naming=("read-1",))
    with pytest.raises(AssertionError, match=r"without \['test-1'\], expected InteractionError naming 'test-1'"):
        expect_error(InteractionError, "refuse('read-1')", refuse, "read-1", naming=("test-1",))
    with pytest.raises(AssertionError, match=r"got 3 and no error, expected InteractionError"):
        expect_error(InteractionError, "len('abc')", len, "abc")
    with pytest.raises(AssertionError, match=r"got ZeroDivisionError\('division by zero'\), expected Interaction"):
        expect_error(InteractionError, "truediv(1, 0)", operator.truediv, 1, 0)
    with pytest.raises(LabNotImplementedError):
        expect_error(InteractionError, "group_interactions([])", raise_lab(2, "group_interactions"))


def test_expect_shares_nothing() -> None:
    source = example_entries()
    expect_shares_nothing(copy.deepcopy(source), source, "deepcopy(path)")
    with pytest.raises(AssertionError, match="shares"):
        expect_shares_nothing(list(source), source, "list(path)")
