"""A value in a failure line cut to a readable length, the place where it first differs kept and marked: ``cut``.

A failure line says what came back and what was expected. A long value (a list of interactions, a whole context)
ran a line to hundreds of characters, and where the two values differ was off-screen. ``cut(text, against)``
keeps a window of at most ``VALUE_CHARS`` characters of ``text`` around the first character where it differs
from ``against``, marks that place with ``MARK`` and each cut side with ``ELLIPSIS``: ``cut(got, want)`` and
``cut(want, got)`` both show where the two part, and what each holds from there. The notebook's test cells,
the status light, ``workbook check`` and the feedback pages all show values cut by this one function.
"""

from __future__ import annotations

import os

VALUE_CHARS = 200
"""The most characters a value takes in a failure line, its marks included."""
LINE_CHARS = 2 * VALUE_CHARS + 200
"""The most characters a failure line takes: two values, and the call, the path and the words around them."""
BEFORE_DIFFERENCE = 60
"""Characters kept before the first difference when the window cannot start at the value's beginning."""
MARK = "▸"
"""Put where a cut value first differs from the value it is compared with."""
ELLIPSIS = "…"
"""Stands for the characters cut off on either side of the window."""


def cut(text: str, against: str | None = None, limit: int = VALUE_CHARS) -> str:
    """``text`` (a value's repr) in at most ``limit`` characters; ``text`` itself when it fits.

    With ``against`` (the value it is compared with), a text that does not fit keeps the window that holds the
    first character where the two differ, ``BEFORE_DIFFERENCE`` characters before it when the window cannot start
    at the beginning (more when the text ends sooner); that place is marked ``MARK``, and a side cut off is
    ``ELLIPSIS``. Without ``against``, the
    window is the text's beginning. Raises ``ValueError`` when ``limit`` leaves no room for a character between the
    marks (below 4).
    """
    if limit < 4:
        raise ValueError(f"a cut value needs at least 4 characters (two ellipses, a mark, one character); got {limit}")
    if len(text) <= limit:
        return text
    difference = None if against is None else len(os.path.commonprefix([text, against]))
    room = limit - 1 - (difference is not None)  # characters of text beside one ellipsis and the mark
    if difference is None or difference < room:
        start = 0  # the window at the beginning holds the difference
    else:
        room -= 1  # an ellipsis on each side
        start = min(difference - min(BEFORE_DIFFERENCE, room // 2), len(text) - room)
    window = text[start : start + room]
    if difference is not None:
        window = window[: difference - start] + MARK + window[difference - start :]
    return (ELLIPSIS if start else "") + window + (ELLIPSIS if start + room < len(text) else "")
