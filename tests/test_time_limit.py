"""One time limit for the labs (issue 11, item 7): the course config (autograde), Validate on the hub and in
``workbook practice``'s JupyterLab, and the notebooks' opening text all say ``DEFAULT_CELL_TIMEOUT`` seconds per
cell; the notebooks also state the judge's limit per call (``CASE_SECONDS``), which decides the grade."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
from traitlets.config.loader import PyFileConfigLoader

from workbook.autograde import cell_timeout
from workbook.course import DEFAULT_CELL_TIMEOUT, build
from workbook.judge import CASE_SECONDS
from workbook.paths import NOTEBOOKS, REPO
from workbook.practice import CONFIG

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
        assert stated == [str(DEFAULT_CELL_TIMEOUT), f"{CASE_SECONDS:g}"], path.name
