"""Attacks on the oracle (``provided/oracle.py``, ``relay.py``) that a red-team pass tried and that failed, kept so
they keep failing: a submission asks the oracle for its own lab's function or for names it does not serve, feeds
the references hostile inputs to read their lines in error messages, writes garbage on the oracle's pipe and
leaves a detached child behind; and a correct ``resume_point`` called back by the reference ``build_context``
that prints, warns, is slow, raises its own ``CompactionError`` subclass and calls another lab keeps every point.
"""

from __future__ import annotations

import time

import pytest
from test_oracle import leaked

from workbook.authoring.samples import blank, complete
from workbook.grading import judge
from workbook.grading.casebook import case_book
from workbook.paths import SOLUTIONS


@pytest.fixture(scope="module")
def book():
    return case_book()


def full_marks(verdict: judge.LabVerdict) -> bool:
    return verdict.status == "graded" and all(case.passed for case in verdict.cases)


ASKS_FOR_ITS_OWN = """    from ._grader import relay
    for name in ("resumption.resume_point", "budget.resume_point", "budget.message_entries",
                 "provided.checking.wire.resolve", "resumption.summary_message", "budget.build_context ",
                 "budget.build_context.__globals__"):
        try:
            got = relay._channel.call({"call": name}, name, (active_path,), {})
        except Exception as error:  # noqa: BLE001
            print("refused", name, error)
        else:
            return got
    raise LabNotImplementedError(5, "resume_point")"""


def test_the_oracle_answers_no_function_of_the_graded_lab_and_no_name_it_does_not_serve(tmp_path, isolation, book):
    package = blank(tmp_path / "asker")
    module = package / "resumption.py"
    module.write_text(
        module.read_text().replace('    raise LabNotImplementedError(5, "resume_point")', ASKS_FOR_ITS_OWN)
    )
    verdict = judge.judge_lab(package, 5, book, isolation)
    assert "refused resumption.resume_point" in verdict.output
    assert "budget.resume_point is not served here" in verdict.output
    assert sum(verdict.scores.values()) == 0


HOSTILE_INPUTS = """
def _hostile():
    import itertools
    from . import budget, grouping, records, resumption
    from .budget import BudgetOptions, CachePolicy
    from .provided.example import estimate_example_tokens, example_entries
    from .provided.scenarios import compacted_path
    entries, path = example_entries(), compacted_path()
    values = [None, 0, 10**300, float("nan"), "", [], {}, [None], [{"type": "compaction"}], entries[1:], path[::-1],
              [dict(entry, message=lambda: 0) for entry in entries], lambda *args: 0,
              [{"type": "compaction", "id": "c", "firstKeptEntryId": "u1", "summary": None}],
              {"role": "user", "content": [{"type": "image", "data": 5}, 7]}, CachePolicy(headroom=-1, summary_at=None)]
    values += [BudgetOptions(max_tokens=31, system_prompt="s", reserved_output=4, safety_margin=2, estimate_tokens=est)
               for est in (lambda x: None, lambda x: 10**400, lambda x: x, lambda x: {}[x], estimate_example_tokens)]
    seen = set()
    for function in (budget.build_context, budget.place_summary, budget.estimate_units, budget.replay,
                     grouping.group_interactions, records.parse_compaction_entry, records.guard_entry,
                     resumption.resume_point):
        for count in (1, 2, 3):
            for args in itertools.islice(itertools.product(values + [entries, path], repeat=count), 150):
                try:
                    function(*args)
                except BaseException as error:  # noqa: BLE001
                    seen.add(f"{type(error).__name__}: {str(error)[:300]}")
    print("\\n".join(sorted(seen)))
_hostile()
"""


def test_the_references_errors_on_hostile_inputs_carry_no_line_of_them(tmp_path, isolation, book):
    package = blank(tmp_path / "prober")
    module = package / "compaction.py"
    module.write_text(module.read_text() + HOSTILE_INPUTS)
    verdict = judge.judge_lab(package, 4, book, isolation)
    assert "BudgetError" in verdict.output and "InteractionError" in verdict.output  # it did reach the references
    assert leaked(verdict.output + "\n".join(case.message for case in verdict.cases), 4) == []


BREAKS_THE_CHANNEL = """
import os as _os, sys as _sys, time as _time
if _os.fork() == 0:  # a detached child holding every pipe
    _os.setsid()
    if _os.fork() == 0:
        _time.sleep(300)
    _os._exit(0)
_os.write(int(_sys.argv[5]), b"[" * 100000 + b"\\n" + b"x" * (1 << 20) + b"\\n")  # garbage on the oracle's pipe
"""


def test_garbage_on_the_oracle_pipe_and_a_detached_child_end_with_the_run(tmp_path, isolation, book):
    package = complete(tmp_path / "breaker")
    module = package / "resumption.py"
    module.write_text(module.read_text() + BREAKS_THE_CHANNEL)
    start = time.monotonic()
    verdict = judge.judge_lab(package, 5, book, isolation)
    assert time.monotonic() - start < judge.LAB_SECONDS
    assert verdict.status == "graded" and not full_marks(verdict)
    assert full_marks(judge.judge_lab(complete(tmp_path / "next"), 5, book, isolation))


NOISY_SLOW_AND_CALLING = """    import sys, time, warnings
    from .grouping import group_interactions
    print("resume_point", "x" * 5000)
    print("to stderr", file=sys.stderr)
    warnings.warn(f"{len(active_path)} entries")
    time.sleep(0.05)
    group_interactions([entry for entry in active_path if entry["type"] == "message"][:1])  # the oracle, while it waits
"""


def test_a_correct_resume_point_called_back_by_the_reference_that_prints_warns_and_is_slow_keeps_every_point(
    tmp_path, isolation, book
):
    package = complete(tmp_path / "noisy")
    module = package / "resumption.py"
    source = (SOLUTIONS / "resumption.py").read_text()
    source = source.replace("    # BEGIN LAB 5\n", "    # BEGIN LAB 5\n" + NOISY_SLOW_AND_CALLING, 1)
    source = source.replace(
        "def resume_point(", "class FirstKeptError(CompactionError):\n    pass\n\n\ndef resume_point(", 1
    ).replace("raise CompactionError(", "raise FirstKeptError(")
    module.write_text(source)
    verdict = judge.judge_lab(package, 5, book, isolation)
    assert full_marks(verdict), [(case.key, case.message) for case in verdict.cases if not case.passed]
    assert "to stderr" in verdict.output and "UserWarning" in verdict.output


def test_a_class_of_a_students_own_module_named_like_a_course_class_does_not_break_the_relay(tmp_path, isolation, book):
    package = complete(tmp_path / "helper")
    (package / "my_helpers.py").write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass Context:\n    note: str = ''\n"
    )
    module = package / "resumption.py"
    module.write_text(
        module.read_text().replace(
            "from .records import", "from .my_helpers import Context  # noqa\nfrom .records import", 1
        )
    )
    verdict = judge.judge_lab(package, 5, book, isolation)
    assert full_marks(verdict), [(case.key, case.message) for case in verdict.cases if not case.passed]


def test_a_resume_point_with_a_field_of_its_own_still_serves_the_reference_build_context(tmp_path, isolation, book):
    package = complete(tmp_path / "extra_field")
    module = package / "resumption.py"
    source = module.read_text()
    changed = source.replace("    entries: list[Entry]\n", "    entries: list[Entry]\n    note: str = ''\n", 1)
    assert changed != source
    module.write_text(changed)
    verdict = judge.judge_lab(package, 5, book, isolation)
    assert full_marks(verdict), [(case.key, case.message) for case in verdict.cases if not case.passed]


def test_an_error_of_a_students_own_subclass_crosses_as_the_course_class_it_derives_from():
    from compaction_lab.provided import errors
    from workbook.grading.runtime import relay

    error = relay.rebuilt_error(
        ["FirstKeptError", "CompactionError", "ValueError", "Exception"],
        "c1 is kept",
        "first_kept",
        "resumption.resume_point",
    )
    assert (type(error), str(error), error.code) == (errors.CompactionError, "c1 is kept", "first_kept")
    unknown = relay.rebuilt_error(["Strange", "object"], "boom", None, "budget.build_context")
    assert (type(unknown), str(unknown)) == (relay.RelayError, "budget.build_context: raised Strange: boom")
    assert type(relay.rebuilt_error("not a list", "m", None, "f")) is relay.RelayError
    assert str(relay.rebuilt_error(["KeyError", "LookupError"], str(KeyError("u1")), None, "f")) == str(KeyError("u1"))
