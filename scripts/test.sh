#!/usr/bin/env bash
# Set up .venv from the project's own files and run the whole test suite (ruff lint and format, mypy, pytest).
# Needs only Python 3.11+ and the package index. Extra arguments go to pytest, e.g. -m "not slow".
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test,postgres,hub]'

# The hub and PostgreSQL tests need Debian's chromium and postgresql and npm's configurable-http-proxy.
# As root they are installed here; otherwise those tests skip and say why.
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    bash scripts/install-system-deps.sh
else
    echo "scripts/test.sh: not root: the hub and PostgreSQL tests will skip (see scripts/install-system-deps.sh)" >&2
fi

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy  # workbook/, as configured in pyproject.toml

status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "scripts/test.sh: pytest collected no tests (exit 5): that is a failure" >&2
fi
exit "$status"
