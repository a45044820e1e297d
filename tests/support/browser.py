"""The headless Chromium the browser tests drive (through Playwright), and how it is started here."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium")  # Debian's package (scripts/install-system-deps.sh); never a downloaded build
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NO_HUB_EXTRA = "the hub extra is not installed: pip install -e '.[test,hub]'"
