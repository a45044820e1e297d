"""Matching slices of a document (character offsets, as copydetect gives them) as the lines they cover."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, order=True)
class Span:
    """Lines ``start`` to ``end`` of a document, 1-based and inclusive."""

    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.start}" if self.start == self.end else f"{self.start}-{self.end}"


def line_spans(text: str, slices: np.ndarray) -> tuple[Span, ...]:
    """The lines of ``text`` covered by ``slices`` (a 2 x N array: character starts, then ends, end exclusive),
    sorted, touching or overlapping spans merged; () when there is no slice."""
    if len(slices) == 0 or np.size(slices) == 0:
        return ()
    found = []
    for start, end in zip(slices[0].tolist(), slices[1].tolist(), strict=True):
        if end > start:  # a line number is the count of line breaks before the character, plus one
            found.append((text.count("\n", 0, start) + 1, text.count("\n", 0, end - 1) + 1))
    merged: list[list[int]] = []
    for first, last in sorted(found):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return tuple(Span(first, last) for first, last in merged)


def covered_lines(spans: tuple[Span, ...]) -> set[int]:
    """Every line number inside ``spans``."""
    return {line for span in spans for line in range(span.start, span.end + 1)}
