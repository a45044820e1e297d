"""The Content-Security-Policy of every HTML page this project writes (feedback pages, the cohort report).

The pages are files (opened from disk, or served by nbgrader's ``release_feedback`` and whatever web server a
course uses), so the policy travels inside each page as a ``<meta http-equiv>``, the first element of its
``<head>``: a browser applies it to everything after it. ``POLICY`` lets no script run (the page's own ones
neither: a feedback page's MathJax loader stays off, the labs' notebooks hold no formulas), no plugin load,
no ``<base>`` redirect the page's links, and no form post anywhere; styles, fonts and images still load (none
of them runs code). It is a second wall behind ``workbook.pipeline.inert``, which already removed every script
a student's notebook held. A ``<meta>`` policy cannot say ``frame-ancestors``; a server that serves the pages
should send the same policy as a header, with ``frame-ancestors 'none'``.
"""

from __future__ import annotations

import html
import re

POLICY = (
    "default-src 'none'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "style-src 'unsafe-inline' https:; font-src https: data:; img-src 'self' https: data: file:"
)
"""The policy, as a ``Content-Security-Policy`` header value."""
_HEAD = re.compile(r"<head(?:\s[^>]*)?>", re.IGNORECASE)


def policy_meta() -> str:
    """The ``<meta http-equiv="Content-Security-Policy">`` element of ``POLICY``."""
    return f'<meta http-equiv="Content-Security-Policy" content="{html.escape(POLICY)}">'


def with_policy(page: str) -> str:
    """``page`` (an HTML document) with ``policy_meta()`` as the first element of its ``<head>``.

    Raises ``ValueError`` for a page without a ``<head>`` (where no policy could come before its content)."""
    head = _HEAD.search(page)
    if head is None:
        raise ValueError("an HTML page without <head>: no Content-Security-Policy can be put before its content")
    return page[: head.end()] + policy_meta() + page[head.end() :]
