"""A pytest plugin for ``workbook check``: keep only the focused tests (of one lab) in the collection.

``pytest -m "focused and lab3"`` selects the same tests but reports every other test of the files as
"N deselected", which is noise for a student. Loaded with ``-p workbook.focused_tests``, this plugin
drops the other tests from the collection instead (nothing is reported as deselected);
``--focused-lab N`` keeps only lab N's (marker ``labN``).
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--focused-lab N``."""
    parser.addoption("--focused-lab", type=int, default=None, metavar="N",
                     help="with -p workbook.focused_tests: keep only lab N's focused tests")


def wanted(item: pytest.Item, lab: int | None) -> bool:
    """Whether ``item`` carries the ``focused`` marker (and ``lab{lab}`` when ``lab`` is given)."""
    markers = {marker.name for marker in item.iter_markers()}
    return "focused" in markers and (lab is None or f"lab{lab}" in markers)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep only the focused tests (of ``--focused-lab`` when given); drop the rest quietly."""
    lab = config.getoption("--focused-lab")
    items[:] = [item for item in items if wanted(item, lab)]
