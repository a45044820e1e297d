#!/usr/bin/env bash
# Set up .venv from the project's own files and run the whole test suite (ruff, then pytest).
# Needs only Python 3.11+ and the package index. Extra arguments go to pytest, e.g. -m "not slow".
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test,postgres]'

# >>> HUB-DEPS HOOK: the hub integration test needs Debian's chromium and npm's configurable-http-proxy.
# >>> The lead wires the installer in here (e.g. scripts/install-hub-deps.sh); without them that test skips.

.venv/bin/ruff check .

status=0
.venv/bin/python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "scripts/test.sh: pytest collected no tests (exit 5): that is a failure" >&2
fi
exit "$status"
