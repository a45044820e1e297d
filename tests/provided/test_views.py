"""The notebooks' views: "Your implementation" as the file is saved, and the explorers' drawings."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

from compaction_lab.provided.notebook.explorers import budget_view, resumption_cases, resumption_view
from compaction_lab.provided.notebook.views import source_of

FIRST = """def build(x):
    return helper(x) + 1


def helper(x):
    return x


def unrelated():
    return 0
"""

EDITED = '''"""Saved after the module was loaded: lines moved, a new helper, the old helper calls it."""

import functools


@functools.cache
def second_helper(x):
    return 2 * x


def build(x):
    return helper(x) + 1


def helper(x):
    return second_helper(x)


def unrelated():
    return build(0)
'''


@pytest.fixture
def loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``scratchviews.lab`` holding ``FIRST``, imported; removed from ``sys.modules`` afterwards."""
    (tmp_path / "scratchviews").mkdir()
    (tmp_path / "scratchviews" / "__init__.py").write_text("")
    (tmp_path / "scratchviews" / "lab.py").write_text(FIRST)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("scratchviews.lab")
    for name in [name for name in sys.modules if name.split(".")[0] == "scratchviews"]:
        del sys.modules[name]


def test_source_of_shows_the_function_and_the_helpers_it_calls(loaded) -> None:
    assert source_of(loaded.build) == "def build(x):\n    return helper(x) + 1\n\ndef helper(x):\n    return x"


def test_source_of_reads_the_saved_file_not_the_loaded_code(loaded) -> None:
    """No reload: the loaded code objects still carry the old line numbers, which must not matter."""
    Path(loaded.__file__).write_text(EDITED)
    assert source_of(loaded.build) == (
        "def build(x):\n    return helper(x) + 1\n\n"
        "@functools.cache\ndef second_helper(x):\n    return 2 * x\n\n"
        "def helper(x):\n    return second_helper(x)"
    )


def test_source_of_a_file_that_does_not_compile_or_lost_the_function(loaded) -> None:
    Path(loaded.__file__).write_text(FIRST + "\ndef broken(:\n")
    assert source_of(loaded.build) == f"# lab.py does not compile: line 12: invalid syntax\n{FIRST}\ndef broken(:\n"
    Path(loaded.__file__).write_text(FIRST.replace("def build", "def built"))
    assert source_of(loaded.build) == "# build is not defined in lab.py as saved"


def test_budget_explorer_draws_the_example_at_the_chosen_window() -> None:
    drawn = budget_view(31, 4, 2)
    assert "<b>reason:</b> trimmed" in drawn and "interaction 1: dropped" in drawn and "interaction 3: kept" in drawn


def test_resumption_explorer_shows_what_the_model_sees_before_the_long_path() -> None:
    path = resumption_cases()["compact-1, u4, a4, compact-2 (first kept u3), u5, a5"]
    drawn = resumption_view(path, 43)
    assert drawn.index("What the model would see") < drawn.index("<b>reason:</b>") < drawn.index("The session path")


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_each_labs_implementation_cell_shows_its_function_first_and_every_definition_once(number) -> None:
    """Issue 12: lab 1 showed its function twice, lab 3 showed BudgetOptions instead of build_context."""
    from compaction_lab.provided.labs import lab

    info = lab(number)
    shown = source_of(getattr(importlib.import_module(f"compaction_lab.{info.module}"), info.function))
    names = re.findall(r"^(?:def|class) (\w+)", shown, re.M)
    assert names[0] == info.function and len(names) == len(set(names)), names
