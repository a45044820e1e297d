#!/usr/bin/env bash
# Install what the grading sandbox, the hub and PostgreSQL tests need besides Python packages, on Debian, as root:
#   - bubblewrap from Debian's packages (workbook.grading.sandbox runs student code in it; the sandbox tests need it),
#     and libseccomp (its seccomp filter, workbook.grading.syscall_filter; Debian installs it with apt itself),
#   - Chromium from Debian's packages (Playwright drives /usr/bin/chromium; no browser download),
#   - PostgreSQL's server from Debian's packages (tests/pipeline/test_postgres.py starts its own on 127.0.0.1),
#   - configurable-http-proxy from the npm registry into .hub-deps/ of this checkout (not global).
# The Python side is the `hub` extra: pip install -e '.[test,hub]'.
# Idempotent: what is already there is left alone. Usage: bash scripts/install-system-deps.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$repo/.hub-deps"
proxy_version="5"  # configurable-http-proxy major version JupyterHub 5 supports

if [ "$(id -u)" -ne 0 ]; then
    echo "install-system-deps: run as root (apt-get install)" >&2
    exit 1
fi

missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
compgen -G "/usr/lib/*/libseccomp.so.2" >/dev/null || missing+=(libseccomp2)
command -v chromium >/dev/null || missing+=(chromium)
command -v npm >/dev/null || missing+=(nodejs npm)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
echo "install-system-deps: $(bwrap --version), $(chromium --version 2>/dev/null)"

if [ ! -x "$prefix/node_modules/.bin/configurable-http-proxy" ]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund "configurable-http-proxy@$proxy_version"
fi
echo "install-system-deps: configurable-http-proxy $("$prefix/node_modules/.bin/configurable-http-proxy" --version)"
