"""The documentation: ``docs/`` builds strictly with MkDocs, and the README stays a doorway.

The strict build fails on a broken link or anchor, a nav entry without its file and a page left out of the nav
(``mkdocs.yml``'s ``validation`` turns each into a warning, ``--strict`` a warning into a failure). The README is
read as a new reader meets it: short, no line running off the screen, and the two set-up commands first.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
README_MAX_LINES = 80
MAX_LINE = 120
SET_UP = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/workbook demo",
    "scripts/test.sh",
)
"""The README's first two fenced blocks, as a reader copies them: the demo, then the whole test suite."""
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_docs_build_strictly(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "instructors" / "pipeline" / "index.html").is_file()


def test_readme_is_a_doorway_of_at_most_80_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; it is a doorway of at most {README_MAX_LINES}: move detail into docs/"
    )


def test_no_readme_line_is_longer_than_120_characters():
    lines = README.read_text(encoding="utf-8").splitlines()
    longest = max(range(len(lines)), key=lambda index: len(lines[index]))
    assert len(lines[longest]) <= MAX_LINE, (
        f"README.md line {longest + 1} has {len(lines[longest])} characters (at most {MAX_LINE})"
    )


def test_the_first_two_fenced_blocks_are_the_set_up_commands():
    blocks = [block.strip() for block in FENCED.findall(README.read_text(encoding="utf-8"))]
    assert tuple(blocks[:2]) == SET_UP


def test_links_of_the_top_level_pages_reach_their_files():
    """README.md, CONTRIBUTING.md and deploy/README.md are read outside the site: their relative links must
    name files of the repository (and anchors are left to the site's strict build)."""
    for page in (README, REPO / "CONTRIBUTING.md", REPO / "deploy" / "README.md"):
        targets = [link for link in LINK.findall(page.read_text(encoding="utf-8")) if "://" not in link]
        missing = [link for link in targets if not (page.parent / link.split("#")[0]).exists()]
        assert targets and not missing, f"{page.relative_to(REPO)}: links to missing files: {missing}"
