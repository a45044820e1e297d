"""``saved.sync``: a lab file as saved is the code the kernel runs, or the status says why not.

A scratch package stands in for ``compaction_lab`` (``saved.PACKAGE_DIR`` points at it), so files can be
edited under a module that is already imported, as a student edits theirs under a running kernel.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from compaction_lab.provided.notebook import saved

FIRST = '''"""A lab module."""


def answer():
    return 1


class Ledger:
    def total(self):
        return 10
'''


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``scratchlab/budget.py`` (``FIRST``), imported; removed from ``sys.modules`` afterwards."""
    package = tmp_path / "scratchlab"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "budget.py").write_text(FIRST)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(saved, "PACKAGE_DIR", package)
    importlib.import_module("scratchlab.budget")
    yield package / "budget.py"
    for name in [name for name in sys.modules if name.split(".")[0] == "scratchlab"]:
        del sys.modules[name]


def test_a_file_as_loaded_needs_nothing(scratch: Path) -> None:
    assert saved.sync(["budget"]) == saved.Sync([], [])


def test_a_file_newer_than_the_loaded_code_is_reloaded_for_names_imported_before(scratch: Path) -> None:
    from scratchlab.budget import Ledger, answer

    scratch.write_text(FIRST.replace("return 1", "return 2").replace("return 10", "return 20"))
    assert saved.stale(sys.modules["scratchlab.budget"], saved._compiled("budget")) == ["answer", "Ledger.total"]
    assert saved.sync(["budget"]) == saved.Sync([], ["scratchlab/budget.py"])
    assert (answer(), Ledger().total()) == (2, 20)
    assert saved.sync(["budget"]) == saved.Sync([], [])


def test_a_file_that_does_not_compile_names_file_line_and_message(scratch: Path) -> None:
    from scratchlab.budget import answer

    scratch.write_text(FIRST + "\n\ndef broken(:\n    pass\n")
    line = FIRST.count("\n") + 3
    assert saved.sync(["budget"]).problems == [
        f"scratchlab/budget.py does not compile: line {line}: invalid syntax\n    def broken(:\n{' ' * 15}^"
    ]
    assert saved.compile_problem("budget").startswith(f"scratchlab/budget.py does not compile: line {line}")
    assert answer() == 1  # the kernel keeps the old code: that is why the status must be red


def test_a_file_that_fails_while_loading_is_a_problem_and_the_old_code_stays(scratch: Path) -> None:
    from scratchlab.budget import answer

    scratch.write_text(FIRST.replace("return 1", "return 3") + "\nLIMIT = undefined_name\n")
    line = FIRST.count("\n") + 2
    assert saved.sync(["budget"]) == saved.Sync(
        [f"scratchlab/budget.py could not be imported: line {line}: NameError: name 'undefined_name' is not defined"],
        [],
    )
    assert answer() == 1
