"""One time limit for the labs (issue 11, item 7), per cell and per call. Per cell: the course config
(autograde), Validate on the hub and in ``workbook practice``'s JupyterLab, and the notebooks' opening text
all say ``DEFAULT_CELL_TIMEOUT`` seconds. Per call of the student's function in a check, which decides the
grade: ``CALL_SECONDS`` of the package's ``provided/checking/limits.py``, which the notebooks' checks (so Validate),
``workbook check`` and the judge all use, and the notebooks state."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from workbook.authoring.samples import complete
from workbook.course.layout import DEFAULT_CELL_TIMEOUT
from workbook.grading.judge import case_seconds
from workbook.paths import NOTEBOOKS, REPO
from workbook.pipeline.autograde import cell_timeout
from workbook.pipeline.build import build
from workbook.student.check import check_lines
from workbook.student.practice import CONFIG

COMMON_CONFIG = REPO / "deploy" / "jupyterhub" / "roles" / "common"


def test_autograde_and_practice_validate_use_the_labs_time_limit(tmp_path):
    course = build(tmp_path / "course")
    assert course.config().Execute.timeout == DEFAULT_CELL_TIMEOUT
    assert cell_timeout(course) == DEFAULT_CELL_TIMEOUT, "autograde's default is the course config's"
    practice = PyFileConfigLoader("nbgrader_config.py", path=str(CONFIG)).load_config()
    assert practice.Execute.timeout == DEFAULT_CELL_TIMEOUT, "Validate in `workbook practice`'s JupyterLab"


def test_validate_on_the_hub_gets_the_limit_the_hub_passes(monkeypatch):
    hub_config = (REPO / "deploy" / "jupyterhub" / "jupyterhub_config.py").read_text()
    assert '"WORKBOOK_CELL_TIMEOUT": str(DEFAULT_CELL_TIMEOUT)' in hub_config
    monkeypatch.setitem(os.environ, "WORKBOOK_CELL_TIMEOUT", str(DEFAULT_CELL_TIMEOUT))
    monkeypatch.setitem(os.environ, "WORKBOOK_COURSE_ID", "course")
    monkeypatch.setitem(os.environ, "WORKBOOK_EXCHANGE", "/srv/exchange")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(COMMON_CONFIG)).load_config()
    assert config.Execute.timeout == DEFAULT_CELL_TIMEOUT


def test_every_notebook_states_the_limits_in_its_opening_text():
    for path in sorted(Path(NOTEBOOKS).glob("*.ipynb")):
        opening = " ".join(nbformat.read(path, as_version=4).cells[0].source.split())
        stated = re.findall(r"at most (\d+) seconds", opening)
        assert stated == [str(DEFAULT_CELL_TIMEOUT), f"{case_seconds():g}"], path.name


SLOW_FIRST_CALL = '''

import time as _time

_quick_build_context = build_context
_calls = []


def build_context(active_path, options):
    """The solution's build_context, whose first call takes a second longer than the labs' limit."""
    _calls.append(1)
    if len(_calls) == 1:
        _time.sleep(CALL_SECONDS + 1)
    return _quick_build_context(active_path, options)
'''


@pytest.mark.slow
def test_workbook_check_stops_a_call_after_the_limit_the_judge_uses(tmp_path):
    """The judge's limit is ``case_seconds()``, read from the same ``CALL_SECONDS``; the student's package here
    reads it from its own copy."""
    package = complete(tmp_path / "labs" / "compaction_lab")
    budget = package / "budget.py"
    budget.write_text(budget.read_text() + "\nfrom .provided.checking.limits import CALL_SECONDS\n" + SLOW_FIRST_CALL)
    (line,) = check_lines(tmp_path / "labs", 3)
    assert not line["passed"] and line["summary"].startswith("lab 3: 4/5 visible checks pass; window_31_fixed_costs:")
    assert f"{case_seconds():g} seconds and was stopped" in line["summary"], "the first call only"
