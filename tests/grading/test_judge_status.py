"""A lab's status is the judge's own words: a report of the wrong shape fails its case without its text reaching
the status, a call of ``input()`` fails at once and is named, and no status holds the CSV's "; " separator. The
shape and the sentences are checked as plain data; three labs are judged in the sandbox."""

from __future__ import annotations

import pytest

from workbook.authoring.samples import complete
from workbook.grading import judge
from workbook.grading.casebook import case_book
from workbook.grading.runtime.runner import InputAtGrading, NoInput

RETURNED = {"returned": 1, "shared": [], "inputs_after": [[], {}]}
RAISED = {"raised": {"classes": ["ValueError", "Exception"], "message": "no"}, "inputs_after": [[], {}]}


@pytest.mark.parametrize(
    "observation",
    [RETURNED, RAISED, {"unserializable": "a set", "inputs_after": [[], {}]}],
    ids=["returned", "raised", "unserializable"],
)
def test_the_shapes_wire_observe_reports_are_well_formed(observation):
    assert judge.well_formed(observation)


@pytest.mark.parametrize(
    "observation",
    [
        {**RETURNED, "crashed": "hidden inputs: id-1, id-2"},
        {**RAISED, "timed out": "hidden inputs"},
        {**RETURNED, "raised": RAISED["raised"]},
        {"returned": 1, "inputs_after": [[], {}]},
        {"raised": {"classes": ["ValueError"], "message": "no", "extra": "hidden"}, "inputs_after": []},
        {"raised": {"classes": [], "message": "no"}, "inputs_after": []},
        {"crashed": "made up by the runner"},
        {"unserializable": 3, "inputs_after": []},
        [],
    ],
    ids=[
        "crashed-beside-result",
        "timed-out-beside-error",
        "two-results",
        "no-shared",
        "extra-key",
        "no-classes",
        "crashed-alone",
        "unserializable-number",
        "a-list",
    ],
)
def test_any_other_shape_is_malformed(observation):
    assert not judge.well_formed(observation)


def test_no_sentence_of_a_status_holds_the_csvs_separator():
    sentences = [
        text.format(module="budget", error="ImportError", hint=judge.import_hint("compaction_lab.records"), why="x")
        for text in judge.TROUBLES.values()
    ]
    assert [text for text in sentences if "; " in text] == []
    assert "; " not in judge.status_of(sentences)
    assert judge.status_of([]) == "graded"
    assert judge.import_hint("cannot import name 'X' from 'compaction_lab.records'").count("; ") == 0


def test_an_error_class_of_the_students_own_is_named_by_its_python_base():
    assert judge.error_kind(["HIDDEN_id_1_id_2", "ImportError", "Exception"]) == "ImportError"
    assert judge.error_kind(["an error"]) == "an error"
    assert judge.error_kind(["print", "object"]) == "an error"  # a builtin, but not an error class


def test_reading_stdin_while_graded_raises_at_once():
    stdin = NoInput()
    for read in (stdin.readline, stdin.read, lambda: next(iter(stdin))):
        with pytest.raises(InputAtGrading, match="your code asked for input"):
            read()
    assert issubclass(InputAtGrading, EOFError) and not stdin.isatty()


FORGED = """

import compaction_lab.provided.checking.wire as _wire

_real_observe = _wire.observe


def _forged(function, args, kwargs):
    report = _real_observe(function, args, kwargs)
    report["crashed"] = "FORGED " + repr(args)[:400]
    return report


_wire.observe = _forged
"""


@pytest.fixture(scope="module")
def book():
    return case_book()


def test_a_forged_crash_fails_its_cases_and_its_text_reaches_no_status(tmp_path, isolation, book):
    package = complete(tmp_path / "forger")
    (package / "records.py").write_text((package / "records.py").read_text() + FORGED)
    verdict = judge.judge_lab(package, 1, book, isolation)
    assert sum(verdict.scores.values()) == 0
    assert verdict.status == f"a case failed: {judge.UNREADABLE}"
    assert "FORGED" not in str(verdict.to_json())


def test_input_in_a_lab_function_fails_at_once_and_is_named(tmp_path, isolation, book):
    package = complete(tmp_path / "asks")
    module = package / "resumption.py"
    source = module.read_text()
    marker = "# BEGIN LAB 5"
    start = source.index(marker)
    indent = source[source.rindex("\n", 0, start) + 1 : start]
    module.write_text(source.replace(marker, f"input('first kept entry? ')\n{indent}{marker}", 1))
    verdict = judge.judge_lab(package, 5, book, isolation)
    assert sum(verdict.scores.values()) == 0
    assert verdict.status == judge.TROUBLES["input"]
    assert "your code asked for input" in verdict.status
    assert "timed out" not in verdict.status


def test_input_at_import_is_named_with_the_module(tmp_path, isolation, book):
    package = complete(tmp_path / "asks-at-import")
    (package / "grouping.py").write_text((package / "grouping.py").read_text() + "\n\nNAME = input('name? ')\n")
    verdict = judge.judge_lab(package, 2, book, isolation)
    assert sum(verdict.scores.values()) == 0
    assert verdict.status == judge.TROUBLES["input at import"].format(module="grouping")


def test_an_exit_is_told_once_and_the_hidden_sandbox_never_tells_its_status(tmp_path, isolation, book):
    """``os._exit(7)`` in every call: the visible run's sentence names the status the judge saw; the hidden run,
    whose code could choose the status to tell its inputs, adds no sentence of its own."""
    package = complete(tmp_path / "exits")
    module = package / "grouping.py"
    source = module.read_text()
    marker = "# BEGIN LAB 2"
    start = source.index(marker)
    indent = source[source.rindex("\n", 0, start) + 1 : start]
    module.write_text(source.replace(marker, f"import os\n{indent}os._exit(7)\n{indent}{marker}", 1))
    verdict = judge.judge_lab(package, 2, book, isolation)
    assert sum(verdict.scores.values()) == 0
    assert verdict.status.startswith("a case crashed (the runner exited with status 7)")
    assert "the runner stopped" not in verdict.status
