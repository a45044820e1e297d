"""One third-party import the workbook's own processes skip: ``rfc3987_syntax``, about 1 s each time.

jsonschema imports ``rfc3987_syntax`` if it is installed (jupyter-events' ``jsonschema[format-nongpl]``
installs it), and that module builds a Lark grammar of RFC 3987 at import: about 1 s of CPU, half of what
importing nbgrader costs, in every ``workbook`` command and every autograde worker. jsonschema uses it only
to check the ``iri`` and ``iri-reference`` string formats, and only for a validator given a
``FormatChecker``; nbformat's and nbgrader's validators have none, so they behave the same without it.
jsonschema imports it inside ``contextlib.suppress(ImportError)``: without it those two formats are simply
not checked. ``workbook/__init__.py`` calls it, so every process that imports the workbook skips it.
"""

from __future__ import annotations

import sys

SKIPPED = "rfc3987_syntax"


def skip_iri_grammar() -> None:
    """Make ``import rfc3987_syntax`` raise ImportError in this process (``sys.modules`` entry ``None``), unless
    it is already imported. Call before anything imports jsonschema (nbformat, nbgrader)."""
    sys.modules.setdefault(SKIPPED, None)  # type: ignore[arg-type]  # None: Python's "import fails" marker
