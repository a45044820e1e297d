"""MkDocs hook: pages written apart from the rest of the docs join the nav once their file is in ``docs/``.

``OPTIONAL`` names each such page and the nav section it belongs to; a page whose file is absent is left out
(no stub), so the strict build never points at a missing file, and one that is present is never left out of the
nav (``validation.nav.omitted_files`` is ``warn`` in ``mkdocs.yml``, which ``--strict`` turns into a failure).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

OPTIONAL: tuple[tuple[str, str, str], ...] = (
    ("Instructors", "Similarity between submissions", "instructors/similarity.md"),
    ("Instructors", "The LMS", "instructors/lms.md"),
    ("Maintainers", "Editions", "maintainers/editions.md"),
)
"""(nav section, title, page path inside ``docs/``) of every optional page."""


def on_config(config: Any) -> Any:
    """Append each optional page whose file exists to its section of ``config["nav"]``; raise ``KeyError``
    naming a section that the nav does not have."""
    docs = Path(config["docs_dir"])
    sections = {title: pages for entry in config["nav"] for title, pages in entry.items() if isinstance(pages, list)}
    for section, title, page in OPTIONAL:
        if section not in sections:
            raise KeyError(f"docs/hooks/optional_pages.py: the nav has no section {section!r} for {page}")
        listed = {value for entry in sections[section] for value in entry.values()}
        if (docs / page).is_file() and page not in listed:
            sections[section].append({title: page})
    return config
