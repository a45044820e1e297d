"""Similarity over a course: every lab's code and written answers compared across the class."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbook.course.layout import Course
from workbook.manifest import LABS
from workbook.similarity.clusters import clusters
from workbook.similarity.detect import LabComparison, Pair, compare, lex_all
from workbook.similarity.settings import Settings, SimilarityError
from workbook.similarity.sources import CODE, KINDS, collect

NOTICE = (
    "A match is a reason to look, not a verdict: code every correct solution shares, a common source or help "
    "given openly can all match; no grade is changed."
)
"""The one line every similarity output carries."""


@dataclass(frozen=True)
class Findings:
    """What ``find_similar`` found: one ``LabComparison`` per lab and kind compared, in lab order (code, then
    answers), and the settings used."""

    settings: Settings
    comparisons: tuple[LabComparison, ...]

    def flagged(self) -> list[Pair]:
        """Every flagged pair, by lab, kind, then score (highest first)."""
        return [pair for comparison in self.comparisons for pair in comparison.flagged]

    def groups(self, comparison: LabComparison) -> list[tuple[str, ...]]:
        """The groups of three or more students sharing one implementation in ``comparison``."""
        return clusters((pair.first, pair.second) for pair in comparison.flagged)

    def unreadable(self) -> dict[str, str]:
        """``"student, lab N": reason`` for every document that could not be read."""
        return {
            f"{student}, lab {comparison.lab} {comparison.kind}": reason
            for comparison in self.comparisons
            for student, reason in comparison.unreadable.items()
        }


def find_similar(
    course: Course,
    labs: Sequence[int] | None = None,
    settings: Settings | None = None,
    kinds: Sequence[str] = KINDS,
    workers: int | None = None,
) -> Findings:
    """Compare every pair of ``course``'s students, lab by lab (all labs, or ``labs``), for each of ``kinds``.
    Raises ``CourseError`` for a folder that is not a course and ``SimilarityError`` for an unknown lab; reads
    only, never writes."""
    course.require()
    known = [lab.number for lab in LABS]
    chosen = list(known if labs is None else labs)
    unknown = [lab for lab in chosen if lab not in known]
    if unknown:
        raise SimilarityError(f"lab: expected one of {', '.join(map(str, known))}, got {unknown[0]!r}")
    settings = settings or Settings()
    documents = [collect(course, lab, kind) for lab in chosen for kind in kinds]
    # every lab's code lexed in one pool, so the pool starts once; then split back by lab, in student order
    code = {
        item.lab: [item.texts[student] for student in sorted(item.texts)] for item in documents if item.kind == CODE
    }
    flat = lex_all([text for texts in code.values() for text in texts], CODE, workers)
    lexed, start = {}, 0
    for lab, texts in code.items():
        lexed[lab], start = flat[start : start + len(texts)], start + len(texts)
    return Findings(
        settings,
        tuple(compare(item, settings, lexed[item.lab] if item.kind == CODE else None) for item in documents),
    )
