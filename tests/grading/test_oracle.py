"""No reference solution in the student's grading sandbox: the labs a graded lab uses are answered by the oracle.

The runner's package holds stubs (``workbook.grading.stubs``) of the used labs, never a reference module; a submission
that reads every file of its package, the source of the functions it imports and ``sys.modules`` gets none of
a reference's lines, while a correct submission keeps every point. ``provided/relay.py``'s channel answers
with fresh objects, the same course errors, and calls a function passed as an argument back where it lives.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from packages import STARTER_PACKAGE

from compaction_lab.budget import BudgetOptions, build_context
from compaction_lab.provided.errors import InteractionError
from compaction_lab.provided.example import estimate_example_tokens, example_entries
from compaction_lab.provided.labs import LABS
from workbook.authoring.samples import complete
from workbook.authoring.starters import replace_region
from workbook.grading import judge
from workbook.grading.casebook import case_book
from workbook.grading.runtime import relay
from workbook.grading.sandbox import detect
from workbook.grading.stubs import stub
from workbook.paths import SOLUTIONS, STARTERS

PUBLIC = {
    line.strip() for path in STARTER_PACKAGE.rglob("*.py") for line in path.read_text(encoding="utf-8").splitlines()
}
"""Every line of the student's starter package."""
SECRETS = {
    lab.module: {
        line.strip()
        for line in (SOLUTIONS / f"{lab.module}.py").read_text().splitlines()
        if len(line.strip()) >= 12
        and not line.strip().startswith("#")
        and not any(line.strip() in public for public in PUBLIC)
    }
    for lab in LABS
}
"""Per lab module, the lines of its reference that are in no line of a starter (its lab regions)."""


def leaked(text: str, graded: int) -> list[str]:
    """The lines of the reference modules of the labs other than ``graded`` in ``text``, but for those that the
    student's own module (``graded``'s reference) has too."""
    own = (SOLUTIONS / f"{LABS[graded - 1].module}.py").read_text()
    return sorted(
        line for lab in LABS if lab.number != graded for line in SECRETS[lab.module] if line in text and line not in own
    )


@pytest.mark.parametrize("lab", [lab.number for lab in LABS])
def test_the_runner_package_holds_no_reference_module_of_any_lab(lab, tmp_path):
    package = judge.assemble(complete(tmp_path / "student"), lab, tmp_path / "runner")
    for path in package.rglob("*"):
        assert path.suffix not in (".pyc", ".pyo"), path
        if path.suffix == ".py" and path.name != f"{LABS[lab - 1].module}.py":  # not the student's own
            text = path.read_text(encoding="utf-8")
            assert not leaked(text, lab), path
            for other in LABS:
                assert text != (SOLUTIONS / f"{other.module}.py").read_text(encoding="utf-8"), path
    for number in LABS[lab - 1].uses:
        module = LABS[number - 1].module
        assert (package / f"{module}.py").read_text(encoding="utf-8") == stub(module).text


def test_the_oracle_package_has_the_used_references_and_a_stub_of_the_graded_lab(tmp_path):
    package = judge.assemble_oracle(5, tmp_path)
    assert (package / "budget.py").read_text() == (SOLUTIONS / "budget.py").read_text()
    assert (package / "grouping.py").read_text() == (SOLUTIONS / "grouping.py").read_text()
    assert (package / "resumption.py").read_text() == stub("resumption").text
    assert (package / "compaction.py").read_text() == (STARTERS / "compaction.py").read_text()
    assert stub("budget").forwarded == (
        "budget.build_context",
        "budget.place_summary",
        "budget.estimate_units",
        "budget.replay",
    )


READS_EVERYTHING = """import glob, inspect, sys
from pathlib import Path
from . import budget, grouping, records, resumption
found = []
for path in sorted(set(Path(__file__).resolve().parent.rglob("*")) | {Path(p) for p in glob.glob("/tmp/*/*/*.py")}):
    try:
        found.append(path.read_text())
    except Exception:
        pass
for function in (budget.build_context, grouping.group_interactions, records.parse_compaction_entry,
                 resumption.resume_point, budget.replay, budget.estimate_units):
    found.append(inspect.getsource(function))
for name, module in list(sys.modules.items()):
    if name.startswith("compaction_lab"):
        try:
            found.append(inspect.getsource(module))
        except Exception:
            pass
text = "\\n".join(found)
print(text)
raise ValueError(text[:100000])"""


def test_a_submission_reading_every_reference_source_gets_none_of_it(tmp_path, isolation):
    package = complete(tmp_path / "reader")
    module = package / "compaction.py"
    module.write_text(replace_region(module.read_text(), 4, READS_EVERYTHING, module.name))
    book = case_book()
    verdict = judge.judge_lab(package, 4, book, isolation)
    assert "def build_context" in verdict.output  # it did read and print the stubs
    shown = verdict.output + "\n".join(case.message for case in verdict.cases)
    assert leaked(shown, 4) == []
    assert leaked((SOLUTIONS / "budget.py").read_text(), 4)  # what the test looks for
    assert verdict.scores["lab4_parent_and_fields"] == 0
    assert verdict.extra["lab4_extra_should_compact"] == book.extra["lab4_extra_should_compact"]


def test_a_correct_submission_keeps_every_point_of_the_labs_that_use_others(tmp_path):
    isolation = detect("auto")
    book = case_book()
    for lab in (3, 4, 5):
        verdict = judge.judge_lab(SOLUTIONS, lab, book, isolation)
        assert verdict.status == "graded"
        assert all(case.passed for case in verdict.cases), [case.key for case in verdict.cases if not case.passed]


@pytest.fixture
def channel():
    """A channel to a thread of this process that serves ``budget.build_context`` and ``grouping``'s."""
    calls_in, calls_out = os.pipe()
    answers_in, answers_out = os.pipe()
    server = relay.Channel(calls_in, answers_out, ["budget.build_context", "grouping.group_interactions"])
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    yield relay.Channel(answers_in, calls_out, [])
    os.close(calls_out)
    thread.join(5)


def test_a_call_comes_back_as_fresh_objects_and_an_estimator_is_called_back(channel):
    seen = []

    def mine(item):
        seen.append(item)
        return estimate_example_tokens(item)

    options = BudgetOptions(
        max_tokens=31, system_prompt="sys", reserved_output=4, safety_margin=2, estimate_tokens=mine
    )
    entries = example_entries()
    context = channel.call({"call": "budget.build_context"}, "budget.build_context", (entries, options), {})
    assert context == build_context(entries, options)
    assert context.kept_entry_ids == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
    assert seen and not any(message is entry["message"] for message in context.messages for entry in entries)


def test_errors_come_back_as_the_course_class_and_what_cannot_be_sent_names_the_function(channel):
    with pytest.raises(InteractionError, match="'a1': the first message must be a user message"):
        channel.call(
            {"call": "grouping.group_interactions"}, "grouping.group_interactions", (example_entries()[1:],), {}
        )
    with pytest.raises(relay.RelayError, match=r"^grouping.group_interactions: an argument cannot be sent"):
        channel.call({"call": "grouping.group_interactions"}, "grouping.group_interactions", (object(),), {})
    with pytest.raises(relay.RelayError, match="records.parse_compaction_entry is not served"):
        channel.call({"call": "records.parse_compaction_entry"}, "records.parse_compaction_entry", ({},), {})


def test_a_stub_without_a_channel_says_so():
    relay_state = relay._channel
    relay._channel = None
    try:
        with pytest.raises(relay.RelayError, match="budget.build_context: the course's copy"):
            relay.forward("budget.build_context", (), {})
    finally:
        relay._channel = relay_state
    assert Path(judge.__file__).exists()
