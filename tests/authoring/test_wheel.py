"""``pip install .`` (not editable) gives a working ``workbook`` command: the wheel carries what the commands need.

Builds the wheel from this repository, installs it in a fresh virtual environment (its dependencies come from
the package index, or pip's cache) and runs the installed command from a folder outside the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "support" / "fixtures"

pytestmark = pytest.mark.slow


def completed(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``command`` without this checkout on the path."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


def run(*command: str | Path, cwd: Path) -> str:
    """Run ``command`` without this checkout on the path; return its stdout (stderr shown on failure)."""
    done = completed(*command, cwd=cwd)
    assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh venv with the workbook installed from its wheel."""
    root = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", REPO, "--no-deps", "--wheel-dir", root / "dist", "-q", cwd=root)
    [wheel] = (root / "dist").glob("compaction_workbook-*.whl")
    venv.create(root / "venv", with_pip=True)
    bin_dir = root / "venv" / "bin"
    run(bin_dir / "python", "-m", "pip", "install", "-q", wheel, cwd=root)
    return bin_dir


def test_the_installed_package_finds_its_files_inside_itself(installed, tmp_path):
    where = run(
        installed / "python",
        "-c",
        "from workbook import paths; print(paths.REPO); print(paths.SOLUTIONS)",
        cwd=tmp_path,
    ).split()
    assert where[0].endswith("site-packages/workbook/data") and not where[0].startswith(str(REPO))
    assert Path(where[1], "budget.py").is_file()


def test_workbook_help_and_practice_run_from_the_wheel(installed, tmp_path):
    assert "practice" in run(installed / "workbook", "--help", cwd=tmp_path)
    run(installed / "workbook", "practice", tmp_path / "labs", "--no-lab", cwd=tmp_path)
    assert sorted(path.name for path in (tmp_path / "labs").glob("*.ipynb")) == [
        "01_record_parsing.ipynb",
        "02_interaction_grouping.ipynb",
        "03_budget_projection.ipynb",
        "04_compaction_creation.ipynb",
        "05_repeated_resumption.ipynb",
    ]
    assert (REPO / "starters" / "compaction_lab" / "budget.py").read_text() == (
        tmp_path / "labs" / "compaction_lab" / "budget.py"
    ).read_text()


def test_workbook_inspect_runs_the_reference_labs_from_the_wheel(installed, tmp_path):
    report = json.loads(run(installed / "workbook", "inspect", FIXTURES / "pi-v1-small.jsonl", "--json", cwd=tmp_path))
    assert report["tokens"]["estimator"] == "upper_bound" and len(report["dangling_calls"]) == 2


def test_workbook_check_runs_from_the_wheel_without_the_test_extras(installed, tmp_path):
    """Issue 12: ``workbook check`` after the plain install (no pytest, no hypothesis in this venv)."""
    assert completed(installed / "python", "-c", "import pytest", cwd=tmp_path).returncode != 0
    run(installed / "workbook", "practice", tmp_path / "labs", "--no-lab", cwd=tmp_path)
    done = completed(installed / "workbook", "check", "--workspace", tmp_path / "labs", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines()[0] == "lab 1: not started (parse_compaction_entry raises LabNotImplementedError)"
    assert len(done.stdout.splitlines()) == 6 and "Traceback" not in done.stdout
    assert done.stdout.splitlines()[-1].startswith("Next: lab 1: write parse_compaction_entry() ")
    hint = ("hint", "2", "result_before_its_call", "--workspace", tmp_path / "labs", "--language", "zh")
    done = completed(installed / "workbook", *hint, cwd=tmp_path)  # the editions' hints ship in the wheel
    translated = "结果可以在交互中出现在其调用之前：在交互关闭时再配对。"
    assert (done.returncode, done.stdout) == (0, f"result_before_its_call: {translated}\n")
