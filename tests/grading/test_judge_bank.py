"""Grades that hold: a bank of hostile and accidental submissions graded by ``workbook autograde`` in one batch
with an honest complete and an honest blank control. Each gets exactly its honest score from the judge (that
of the package it was built from, minus the labs its trick or accident really breaks), the controls keep
their grades, and the review mark appears where the in-kernel score differs from the judge's."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from attack_bank import DEEP_REPORT, ERROR_OF_EVERY_KIND, MEMOISER, TWIN_LEAK
from rich.console import Console

from compaction_lab.provided.labs import LABS
from workbook.authoring.samples import blank, buggy, complete
from workbook.authoring.starters import replace_region
from workbook.course.submit import submit
from workbook.grading.results import read_results
from workbook.paths import STARTERS
from workbook.pipeline.autograde import grade_with_progress
from workbook.pipeline.build import build
from workbook.pipeline.feedback import feedback, html_text
from workbook.pipeline.grades import read_grades
from workbook.pipeline.release import release

pytestmark = pytest.mark.slow

IPYTHON = "from IPython import get_ipython\n_ip = get_ipython()\nif _ip is not None:\n"
TRICKS = {
    # The student's process lies about what happened; the judge runs the cases itself.
    "pre_run_cell_display": IPYTHON + "    from IPython.display import display\n"
    "    _ip.events.register('pre_run_cell', lambda *a: display('passed'))\n",
    "ast_transformer": IPYTHON + "    import ast\n    class _Nothing(ast.NodeTransformer):\n"
    "        def visit_Module(self, node):\n"
    "            return ast.Module(body=[ast.Pass()], type_ignores=[])\n"
    "    _ip.ast_transformers.append(_Nothing())\n",
    "input_transformer": IPYTHON + "    _ip.input_transformers_post.append(lambda lines: ['pass\\n'])\n",
    "no_traceback": IPYTHON + "    _ip.showtraceback = lambda *a, **k: None\n"
    "    _ip.events.register('post_run_cell', lambda result: setattr(result, "
    "'error_in_exec', None))\n",
    "rebind_check": "import compaction_lab.provided.notebook.cells as _cells\n"
    "import compaction_lab.provided.checking.verdict as _verdict\n"
    "_cells.check = lambda grade_id: None\n"
    "_verdict.verdict = lambda case, *a, **k: _verdict.Verdict(case.key, 'passed')\n",
    "tracer_rebinds": "import sys\nimport compaction_lab.provided.notebook.cells as _cells\n"
    "def _tracer(frame, event, arg):\n    _cells.check = lambda grade_id: None\n    return None\n"
    "sys.settrace(_tracer)\n",
    "import_hook": "import sys\nclass _Finder:\n    def find_spec(self, name, path, target=None):\n"
    "        module = sys.modules.get('compaction_lab.provided.notebook.cells')\n"
    "        if module is not None:\n            module.check = lambda grade_id: None\n"
    "        return None\nsys.meta_path.insert(0, _Finder())\n",
    "lying_builtins": "import builtins, copy\n_real = builtins.isinstance\n"
    "builtins.isinstance = lambda value, kind: True if kind in (dict, list) else _real(value, kind)\n"
    "copy.deepcopy = lambda value, memo=None: value\n",
    # Rigged when the notebook's checks run (not at import: wire imports the lab modules, a circular import).
    "replaced_serializer": "import compaction_lab.provided.notebook.cells as _cells\n"
    "def _rigged(number, cases, _real=_cells.run_on_its_own):\n"
    "    import compaction_lab.provided.checking.case as _case\n"
    "    import compaction_lab.provided.checking.wire as _wire\n"
    "    _known = _case.expected_observations()\n"
    "    def _observe(function, args, kwargs):\n"
    "        for case in _case.visible_cases():\n"
    "            if case.function == function and list(case.args) == args:\n"
    "                return {**_known[case.key], 'inputs_after': [args, kwargs]}\n"
    "        return {'returned': None, 'inputs_after': [args, kwargs]}\n"
    "    _wire.observe = _observe\n"
    "    return _real(number, cases)\n"
    "if _cells.run_on_its_own.__name__ != '_rigged':\n"
    "    _cells.run_on_its_own = _rigged\n",
}
"""Each appended to every lab module of the blank starter package: its honest score is 0."""

NOISE = {
    "warns": "import warnings\nwarnings.warn('a debug warning')\n",
    "logs": "import logging\nlogging.getLogger('student').warning('a debug log line')\n",
    "prints_to_stderr": "import sys\nprint('debug output', file=sys.stderr)\n",
}
"""Each put at the top of every lab function of the solutions: correct work, so full marks."""

ALWAYS_EQUAL = (
    "class _Equal:\n    def __eq__(self, other):\n        return True\n    def __len__(self):\n"
    "        return 1\nreturn _Equal()"
)
LEAK = (
    "import inspect, json\n"
    "raise ValueError('LEAK ' + json.dumps([repr(f.frame.f_locals)[:300] for f in inspect.stack()]))"
)


def blank_with(dest: Path, snippet: str) -> Path:
    blank(dest)
    for lab in LABS:
        module = dest / f"{lab.module}.py"
        module.write_text(module.read_text() + "\n\n" + snippet)
    return dest


def before_region(source: str, code: str) -> str:
    """``source`` with ``code`` inserted, at the region's indentation, before its first ``# BEGIN LAB`` line."""
    start = source.index("# BEGIN LAB")
    line_start = source.rindex("\n", 0, start) + 1
    indent = source[line_start:start]
    return source[:line_start] + "".join(f"{indent}{line}\n" for line in code.splitlines()) + source[line_start:]


def complete_with_region(dest: Path, lab: int, body: str) -> Path:
    """The solutions with lab ``lab``'s first region replaced by ``body``."""
    complete(dest)
    module = dest / f"{LABS[lab - 1].module}.py"
    module.write_text(replace_region(module.read_text(), lab, body, module.name))
    return dest


def complete_noisy(dest: Path, noise: str) -> Path:
    """The solutions with ``noise`` run first in every lab function."""
    complete(dest)
    for lab in LABS:
        module = dest / f"{lab.module}.py"
        module.write_text(before_region(module.read_text(), noise))
    return dest


def packages(root: Path) -> dict[str, tuple[Path, dict[int, str]]]:
    """Student -> (package, what each lab must score: "complete", "blank" or "broken")."""
    full = {lab.number: "complete" for lab in LABS}
    zero = {lab.number: "blank" for lab in LABS}
    made = {
        "control_complete": (complete(root / "control_complete"), full),
        "control_blank": (blank(root / "control_blank"), zero),
    }
    for name, snippet in TRICKS.items():
        made[name] = (blank_with(root / name, snippet), zero)
    for name, noise in NOISE.items():
        made[name] = (complete_noisy(root / name, noise), full)
    made["always_equal"] = (complete_with_region(root / "always_equal", 3, ALWAYS_EQUAL), {**full, 3: "blank"})
    made["infinite_loop"] = (
        complete_with_region(root / "infinite_loop", 3, "while True:\n    pass"),
        {**full, 3: "blank"},
    )
    made["exit_in_lab4"] = (
        complete_with_region(root / "exit_in_lab4", 4, "import os\nos._exit(0)"),
        {**full, 4: "blank"},
    )
    exits = complete(root / "exit_at_import")
    (exits / "budget.py").write_text((exits / "budget.py").read_text() + "\n\nimport os\n\nos._exit(3)\n")
    made["exit_at_import"] = (exits, {**full, 3: "blank"})
    loud = complete(root / "two_million_lines")
    (loud / "resumption.py").write_text(
        (loud / "resumption.py").read_text() + "\n\nfor _ in range(2 * 10**6):\n    print('x')\n"
    )
    made["two_million_lines"] = (loud, full)
    made["lab3_bug"] = (buggy(root / "lab3_bug"), {**full, 3: "broken"})
    made["leaks_call_site"] = (complete_with_region(root / "leaks_call_site", 3, LEAK), {**full, 3: "blank"})
    made.update(red_team(root, full, zero))
    return made


def red_team(root: Path, full: dict[int, str], zero: dict[int, str]) -> dict[str, tuple[Path, dict[int, str]]]:
    """The attacks of ``attack_bank`` and two honest layouts: a helper module of the student's own, and a lab
    that imports a helper from another lab's module (graded with the course's copy of it: that lab fails)."""
    made = {"memoiser": (blank_with(root / "memoiser", MEMOISER), zero)}
    every = blank(root / "error_of_every_kind")
    for lab in LABS:
        module = every / f"{lab.module}.py"
        module.write_text(module.read_text() + ERROR_OF_EVERY_KIND + f"\n{lab.function} = _raise_every_kind\n")
    made["error_of_every_kind"] = (every, zero)
    deep = complete(root / "deep_report")
    (deep / "resumption.py").write_text((STARTERS / "resumption.py").read_text() + DEEP_REPORT)
    made["deep_report"] = (deep, {**full, 5: "blank"})
    leak = complete(root / "twin_leak")
    (leak / "budget.py").write_text((leak / "budget.py").read_text() + TWIN_LEAK)
    made["twin_leak"] = (leak, {**full, 3: "broken"})
    helper = complete(root / "own_helper_module")
    (helper / "lab_helpers.py").write_text("HELPER = 'mine'\n")
    (helper / "records.py").write_text((helper / "records.py").read_text() + "\nfrom .lab_helpers import HELPER\n")
    made["own_helper_module"] = (helper, full)
    shared = complete(root / "helper_in_another_lab")
    (shared / "records.py").write_text((shared / "records.py").read_text() + "\nSHARED = 'mine'\n")
    (shared / "compaction.py").write_text((shared / "compaction.py").read_text() + "\nfrom .records import SHARED\n")
    made["helper_in_another_lab"] = (shared, {**full, 4: "blank"})
    return made


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    root = tmp_path_factory.mktemp("judge-bank")
    course = build(root / "course")
    release(course)
    made = packages(root / "packages")
    for student, (package, _) in made.items():
        submit(course, student, package)
    out = StringIO()
    outcomes = grade_with_progress(
        course, None, jobs=2, timeout=5, console=Console(file=out, width=250), submission_timeout=600
    )
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, list(made))}
    return course, made, {outcome.student: outcome for outcome in outcomes}, grades, out.getvalue()


def lab_scores(grade) -> dict[int, float]:
    """Each lab's autograded points, extra credit apart (a going-further part is judged on its own
    functions, which a trick in the lab's main function may leave working)."""
    return {index + 1: lab.auto_score for index, lab in enumerate(grade.labs)}


def lab_points(course, student: str) -> dict[int, tuple[float, float]]:
    """Lab -> (the judge's points of the lab, its extra credit from Going further) for ``student``."""
    return {
        lab["lab"]: (sum(lab["scores"].values()), sum(lab["extra"].values()))
        for lab in read_results(course, student)["labs"]
    }


def test_every_submission_is_graded_and_the_batch_completes(bank):
    _, made, outcomes, _, printed = bank
    assert sorted(outcomes) == sorted(made)
    assert all(outcome.graded for outcome in outcomes.values()), printed


def test_each_gets_exactly_its_honest_score_from_the_judge(bank):
    course, made, _, grades, printed = bank
    complete = lab_points(course, "control_complete")
    assert set(lab_points(course, "control_blank").values()) == {(0, 0)}
    for student, (_, expected) in made.items():
        points = lab_points(course, student)
        # the gradebook holds the judge's points, and its extra credit apart
        assert lab_scores(grades[student]) == {lab: pair[0] for lab, pair in points.items()}, student
        assert [lab.extra_credit for lab in grades[student].labs] == [pair[1] for pair in points.values()], student
        for lab, kind in expected.items():
            (main, extra), (full, full_extra) = points[lab], complete[lab]
            if kind == "complete":
                assert (main, extra) == (full, full_extra), (student, lab, points, printed)
            elif kind == "blank":
                # a broken lab function costs its points; Going-further functions it left alone keep theirs
                assert main == 0 and extra <= full_extra, (student, lab, points)
                assert extra == 0 or student not in TRICKS, (student, lab, points)
            else:
                assert 0 <= main < full and extra <= full_extra, (student, lab, points)


def test_the_review_mark_appears_where_the_kernel_and_the_judge_differ(bank):
    course, _, _, _, printed = bank
    for student in ("rebind_check", "replaced_serializer"):  # the notebook's cells then pass
        results = read_results(course, student)
        assert results["review"], student
        assert "review: " in printed
    for student in ("control_complete", "control_blank", "warns"):
        assert read_results(course, student)["review"] == [], student


def test_crashes_and_hangs_are_named_in_the_status(bank):
    course, _, _, _, _ = bank
    statuses = {lab["lab"]: lab["status"] for lab in read_results(course, "infinite_loop")["labs"]}
    assert "timed out" in statuses[3] and statuses[5] == "graded"
    statuses = {lab["lab"]: lab["status"] for lab in read_results(course, "exit_at_import")["labs"]}
    assert "budget.py" in statuses[3] and statuses[4] == "graded"
    statuses = {lab["lab"]: lab["status"] for lab in read_results(course, "exit_in_lab4")["labs"]}
    assert "crashed" in statuses[4]


def test_feedback_never_shows_a_hidden_cases_inputs(bank):
    course, *_ = bank
    report = feedback(course)
    assert "leaks_call_site" in report.pages
    text = "".join(html_text(page) for page in report.pages["leaks_call_site"])
    assert "LEAK" in text  # a visible case's message, cut short
    results = read_results(course, "leaks_call_site")
    hidden = [case for lab in results["labs"] for case in lab["cases"] if case["hidden"]]
    assert hidden and all(case["message"] == "" and case["call"] == "" for case in hidden)
    assert "84 words" not in text and "flushed to disk" not in text  # a hidden case's input (labs/budget/hidden.py)
    assert json.dumps(results).count("LEAK") <= len(results["labs"][2]["cases"])


def test_red_team_reports_are_read_safely_and_leak_nothing(bank):
    course, *_ = bank
    statuses = {lab["lab"]: lab["status"] for lab in read_results(course, "deep_report")["labs"]}
    assert statuses[4] == "graded" and statuses[5] == "graded"  # lab 5 is the starter's: not started
    leaked = read_results(course, "twin_leak")
    assert "LEAKED" not in json.dumps(leaked) and "L_" not in json.dumps(leaked)
    twins = [case["message"] for case in leaked["labs"][2]["cases"] if "with its ids renamed" in case["message"]]
    assert twins and all("passed as shown, but gave another answer with its ids renamed" in text for text in twins)
    page = "".join(html_text(page) for page in feedback(course).pages["twin_leak"])
    assert "LEAKED" not in page and "L_" not in page
    statuses = {lab["lab"]: lab["status"] for lab in read_results(course, "helper_in_another_lab")["labs"]}
    assert statuses[4].startswith("could not import compaction.py (ImportError)")  # the judge's words only
    assert "keep a helper you share between labs" in statuses[4] and "SHARED" not in statuses[4]
