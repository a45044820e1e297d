"""Fingerprint a class's documents of one lab with copydetect and score every pair of students.

The detector is copydetect's (the MOSS approach): a code document is lexed with Pygments and filtered
(``copydetect.utils.filter_code``: every name becomes ``V``, ``F`` or ``O``, every string ``S``, comments and
whitespace are dropped), so renaming identifiers or rewriting comments changes nothing; a written answer is
compared as its words, lower-cased. Every ``min_match``-character window of the filtered text is hashed and
winnowed (``copydetect.CodeFingerprint``); the hashes of the boilerplate (every window, not only the winnowed
ones) are removed, so the starter and the provided code never count.

The share of a student's document matched by another's is copydetect's: the characters of the filtered text
covered by a fingerprint the other document also has, over those covered by any of its fingerprints
(``copydetect.compare_files``). A pair's score is the larger of its two shares (a copy padded with code of one's
own still shows as the smaller side's share); a pair is flagged when its score reaches ``threshold``.

Scoring all pairs with ``compare_files`` takes about 0.7 ms a pair (its sets are Python's), too slow for 125,000
pairs a lab; instead an inverted index (hash -> the students holding it) gives, for each student, the others
sharing any fingerprint, and the same share is computed for all of them at once with numpy. Only flagged pairs go
through ``compare_files``, for the matched slices of the original text. Lexing, the slow step (Pygments), runs in
worker processes; hashing stays in this one (Python's string hashes differ between processes).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import filter_code

from workbook.similarity.sources import ANSWER, CODE, ClassDocuments
from workbook.similarity.spans import Span, line_spans

THRESHOLD = 0.55
"""Default score at which a pair is flagged; measured in docs/instructors/similarity.md."""
MIN_MATCH = 20
"""Default shortest match that counts in code, in characters of filtered code (``V=V+1`` is 5)."""
ANSWER_MIN_MATCH = 40
"""Default shortest match that counts in a written answer, in characters of its lower-cased words."""
WINDOW = 6
"""Winnowing window, in hashes: every match of ``min_match + WINDOW - 1`` characters is found."""
PARALLEL_FROM = 64
"""Lex in worker processes only from this many documents (a pool costs more than it saves below)."""


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
        """The shortest match of documents of ``kind``."""
        return self.min_match if kind == CODE else self.answer_min_match


@dataclass(frozen=True)
class Pair:
    """Two students' documents of one lab and kind that match: ``share_first`` is the share of ``first``'s
    document matched in ``second``'s (0 to 1), and ``spans_first`` its matching line spans; likewise for
    ``second``. ``texts`` are the two documents as compared (code as written, answers lower-cased)."""

    lab: int
    kind: str
    first: str
    second: str
    share_first: float
    share_second: float
    spans_first: tuple[Span, ...]
    spans_second: tuple[Span, ...]
    texts: tuple[str, str]

    @property
    def score(self) -> float:
        """The larger share: what is ranked and compared with the threshold."""
        return max(self.share_first, self.share_second)


@dataclass(frozen=True)
class LabComparison:
    """One lab and kind over the class: ``students`` compared (in order), ``scores`` every pair's score (one per
    pair, the upper triangle row by row), ``flagged`` the pairs at or above the threshold (highest first),
    ``unreadable`` the students left out and why."""

    lab: int
    kind: str
    students: tuple[str, ...]
    scores: np.ndarray
    flagged: tuple[Pair, ...]
    unreadable: dict[str, str]


def lex(text: str, kind: str) -> tuple[str, np.ndarray]:
    """``text`` as compared and copydetect's offsets back into it: filtered Python for code, words lower-cased
    and single-spaced for an answer (no offsets: the answer is shown as compared)."""
    if kind == ANSWER:
        return " ".join(text.lower().split()), np.array([])
    filtered, offsets = filter_code(text, "lab.py")
    return filtered, offsets


def _lex_code(text: str) -> tuple[str, np.ndarray]:
    return lex(text, CODE)


def lex_all(texts: Sequence[str], kind: str, workers: int | None = None) -> list[tuple[str, np.ndarray]]:
    """``lex`` of every text, in order; code in ``workers`` processes (default: the machine's cores) when there
    are at least ``PARALLEL_FROM`` texts."""
    if kind == ANSWER or len(texts) < PARALLEL_FROM or workers == 1:
        return [lex(text, kind) for text in texts]
    workers = workers or os.cpu_count() or 1
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_lex_code, texts, chunksize=max(1, len(texts) // (4 * workers))))


def fingerprint(
    text: str, lexed: tuple[str, np.ndarray], k: int, window: int, boilerplate: np.ndarray
) -> CodeFingerprint:
    """copydetect's fingerprint of ``text`` already lexed as ``lexed``, without the ``boilerplate`` hashes."""
    filtered, offsets = lexed
    result = CodeFingerprint("lab.py", k, window, boilerplate=boilerplate, filter=False, fp=io.StringIO(filtered))
    result.raw_code, result.offsets = text, offsets  # as filter=True would have set them
    return result


def boilerplate_hashes(text: str, kind: str, k: int) -> np.ndarray:
    """Every ``k``-window hash of the boilerplate ``text`` (a window of 1: none left out by winnowing)."""
    if not text:
        return np.array([], dtype=np.int64)
    return np.array(sorted(CodeFingerprint("lab.py", k, 1, filter=False, fp=io.StringIO(lex(text, kind)[0])).hashes))


def share_matrix(fingerprints: Sequence[CodeFingerprint]) -> np.ndarray:
    """``shares[a, b]``: the share of document ``a`` matched in document ``b``, as ``compare_files`` computes it
    (0 on the diagonal and for an empty document), for every pair at once."""
    n = len(fingerprints)
    shares = np.zeros((n, n))
    # per document, its positions (sorted) and the hash at each
    located = []
    for item in fingerprints:
        spots = [(position, value) for value, positions in item.hash_idx.items() for position in positions]
        spots.sort()
        located.append(
            (np.array([p for p, _ in spots], dtype=np.int64), np.array([v for _, v in spots], dtype=np.int64))
        )
    # the inverted index, as arrays: hash id -> the documents holding it (holders[start[h]:start[h + 1]])
    owners = np.concatenate([np.full(len(np.unique(values)), index) for index, (_, values) in enumerate(located)])
    held_values = np.concatenate([np.unique(values) for _, values in located]) if n else np.array([])
    unique, ids = np.unique(held_values, return_inverse=True)
    order = np.argsort(ids, kind="stable")
    holders = owners[order]
    start = np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=len(unique)))])
    far = np.iinfo(np.int64).max // 2
    for a, (item, (positions, values)) in enumerate(zip(fingerprints, located, strict=True)):
        if len(positions) == 0 or item.token_coverage == 0:
            continue
        hid = np.searchsorted(unique, values)
        counts = start[hid + 1] - start[hid]
        rows = np.repeat(np.arange(len(positions)), counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        docs = holders[np.repeat(start[hid], counts) + offsets]
        keep = docs != a
        rows, docs = rows[keep], docs[keep]
        candidates = np.unique(docs)
        if len(candidates) == 0:
            continue
        held = np.zeros((len(positions), len(candidates)), dtype=bool)
        held[rows, np.searchsorted(candidates, docs)] = True
        # covered length of the union of [p, p + k) over the held positions, per column
        marked = np.where(held, positions[:, None], far)
        following = np.minimum.accumulate(marked[::-1], axis=0)[::-1]
        following = np.vstack([following[1:], np.full(len(candidates), far)])
        covered = np.where(held, np.minimum(item.k, following - positions[:, None]), 0).sum(axis=0)
        shares[a, candidates] = covered / item.token_coverage
    return shares


def compare(
    documents: ClassDocuments, settings: Settings, lexed: Sequence[tuple[str, np.ndarray]] | None = None
) -> LabComparison:
    """Score every pair of ``documents``' students and flag those at or above ``settings.threshold``;
    ``lexed`` is ``lex_all`` of the texts in student order when the caller lexed them already."""
    students = tuple(sorted(documents.texts))
    texts = [documents.texts[student] for student in students]
    k = settings.k(documents.kind)
    if lexed is None:
        lexed = lex_all(texts, documents.kind)
    boilerplate = boilerplate_hashes(documents.boilerplate, documents.kind, k)
    prints = [fingerprint(text, item, k, settings.window, boilerplate) for text, item in zip(texts, lexed, strict=True)]
    shares = share_matrix(prints)
    scores = np.maximum(shares, shares.T)
    upper = np.triu_indices(len(students), 1)
    flagged = []
    for a, b in zip(*upper, strict=True):
        if scores[a, b] >= settings.threshold:
            flagged.append(_pair(documents, students[a], students[b], prints[a], prints[b]))
    flagged.sort(key=lambda pair: (-pair.score, pair.first, pair.second))
    return LabComparison(
        documents.lab, documents.kind, students, scores[upper], tuple(flagged), dict(documents.unreadable)
    )


def _pair(documents: ClassDocuments, first: str, second: str, one: CodeFingerprint, two: CodeFingerprint) -> Pair:
    _, (share_one, share_two), (slices_one, slices_two) = compare_files(one, two)
    return Pair(
        documents.lab,
        documents.kind,
        first,
        second,
        float(share_one),
        float(share_two),
        line_spans(one.raw_code, slices_one),
        line_spans(two.raw_code, slices_two),
        (one.raw_code, two.raw_code),
    )
