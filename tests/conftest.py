"""Pytest set-up: choose which copy of ``compaction_lab`` the tests import; the shared helpers' folder.

``--lab-package DIR`` names a ``compaction_lab`` package folder (default: the reference
``solutions/compaction_lab``); ``--lab-package solutions`` and ``--lab-package starters`` (a starter package
assembled for the session, as a student gets it) are shorthands. A student's copy works the same way:
``pytest --lab-package ~/labs/compaction_lab``. The tests' helpers (banks of submissions, factories, the hub
harness) and fixtures are in ``tests/support/``, importable by name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SUPPORT = Path(__file__).resolve().parent / "support"
FIXTURES = SUPPORT / "fixtures"
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(SUPPORT))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--lab-package",
        default="solutions",
        help="the compaction_lab package folder to test: solutions (default), starters, or a path",
    )


def pytest_configure(config: pytest.Config) -> None:
    choice = config.getoption("--lab-package")
    if choice == "solutions":
        package = REPO / "solutions" / "compaction_lab"
    elif choice == "starters":
        from packages import STARTER_PACKAGE

        package = STARTER_PACKAGE
    else:
        package = Path(choice).expanduser().resolve()
    if not (package / "__init__.py").exists():
        raise pytest.UsageError(f"--lab-package {choice}: no compaction_lab package at {package}")
    sys.path.insert(0, str(package.parent))
    config.lab_package = package


@pytest.fixture
def lab_package(request: pytest.FixtureRequest) -> Path:
    """The ``compaction_lab`` folder under test."""
    return request.config.lab_package


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` beside the project; the test is skipped where it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): real-session data is not available here")
    return SHARED


@pytest.fixture(scope="session")
def isolation():
    """The grading sandbox (``workbook.grading.sandbox.detect("auto")``); the test is skipped, saying why, where this
    machine has none."""
    from workbook.grading.sandbox import detect

    found = detect("auto")
    if not found.enforced:
        pytest.skip(f"this test needs the grading sandbox, which this machine lacks: {found.describe()}")
    return found
