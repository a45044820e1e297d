"""How documents are compared: the threshold and the shortest match, with the defaults measured in
docs/instructors/similarity.md. Imports nothing heavy: the command line reads the defaults while it parses."""

from __future__ import annotations

from dataclasses import dataclass

THRESHOLD = 0.75
"""Default score at which a pair is flagged; measured in docs/instructors/similarity.md."""
MIN_MATCH = 25
"""Default shortest match that counts in code, in characters of filtered code (``V=V+1`` is 5)."""
ANSWER_MIN_MATCH = 40
"""Default shortest match that counts in a written answer, in characters of its lower-cased words."""
WINDOW = 6
"""Winnowing window, in hashes: every match of ``min_match + WINDOW - 1`` characters is found."""


class SimilarityError(ValueError):
    """A setting out of range (the message names it and the range)."""


@dataclass(frozen=True)
class Settings:
    """How documents are compared: ``threshold`` (0 < T <= 1, a share), ``min_match`` (code) and
    ``answer_min_match`` (answers) in characters, ``window`` in hashes. ``SimilarityError`` for a value out of
    range."""

    threshold: float = THRESHOLD
    min_match: int = MIN_MATCH
    answer_min_match: int = ANSWER_MIN_MATCH
    window: int = WINDOW

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise SimilarityError(f"threshold: expected a share above 0 and at most 1, got {self.threshold!r}")
        for name in ("min_match", "answer_min_match", "window"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise SimilarityError(f"{name}: expected a whole number of at least 1, got {value!r}")

    def k(self, kind: str) -> int:
        """The shortest match of documents of ``kind`` (``"code"`` or ``"answer"``)."""
        return self.min_match if kind == "code" else self.answer_min_match
