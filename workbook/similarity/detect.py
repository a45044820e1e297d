"""Fingerprint a class's documents of one lab the way copydetect does and score every pair of students.

The detector is copydetect's (the MOSS approach): a code document is lexed with Pygments and filtered as
``copydetect.utils.filter_code`` does (every name becomes ``V``, ``F`` or ``O``, every string ``S``, comments
and whitespace are dropped), so renaming identifiers or rewriting comments changes nothing; a written answer is
compared as its words, lower-cased. Every ``min_match``-character window of the filtered text is hashed and
winnowed (``copydetect.utils.winnow``); the hashes of the boilerplate (every window, not only the winnowed ones)
are removed, so the starter and the provided code never count. Two departures, neither changing what is found:
the window hash is a stable one of our own (``window_hashes``), since copydetect's is salted per process, and
the filter is copydetect's done twice as fast (``filter_python``, the same output).

The share of a student's document matched by another's is copydetect's: the characters of the filtered text
covered by a fingerprint the other document also has, over those covered by any of its fingerprints
(``copydetect.compare_files``). A pair's score is the larger of its two shares (a copy padded with code of one's
own still shows as the smaller side's share); a pair is flagged when its score reaches ``threshold``.

Scoring all pairs with ``compare_files`` takes about 0.7 ms a pair (its sets are Python's), too slow for 125,000
pairs a lab; instead an inverted index (hash -> the students holding it) gives, for each student, the others
sharing any fingerprint, and the same share is computed for all of them at once with numpy. Only flagged pairs go
through ``compare_files``, for the matched slices of the original text. Lexing, the slow step (Pygments), runs in
worker processes.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from copydetect import compare_files
from copydetect.utils import get_token_coverage, winnow
from pygments import token
from pygments.lexers.python import PythonLexer

from workbook.similarity.settings import Settings
from workbook.similarity.sources import ANSWER, CODE, ClassDocuments
from workbook.similarity.spans import Span, line_spans

PARALLEL_FROM = 64
"""Lex in worker processes only from this many documents (a pool costs more than it saves below)."""


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


_VARIABLES = {token.Name, token.Name.Variable, token.Name.Attribute}
_PYTHON = PythonLexer()


@functools.cache
def _category(ttype: Any) -> str:
    """What ``copydetect.utils.filter_code`` does with a token of type ``ttype`` (its tests, in its order)."""
    if ttype in _VARIABLES:
        return "V"
    for letter, parent in (("F", token.Name.Function), ("O", token.Name.Class)):
        if ttype in parent:
            return letter
    if ttype in (token.Comment.Preproc, token.Comment.Hashbang):
        return "P"
    if ttype in token.Text or ttype in token.Comment:
        return "drop"
    return "string" if ttype in token.Literal.String else "keep"


def filter_python(text: str) -> tuple[str, np.ndarray]:
    """``copydetect.utils.filter_code(text, "lab.py")``, the same filtered code and offsets, twice as fast: the
    category of each token type is worked out once (Pygments' subtype test is a walk up its parents), and the
    filtered code is joined once rather than grown."""
    parts: list[str] = []
    length = offset = 0
    offsets = [[0, 0]]
    for ttype, value in _PYTHON.get_tokens(text):
        category = _category(ttype)
        if category == "string" and value in ("'", '"'):
            parts.append('"')
            length += 1
        elif category in ("V", "F", "P", "string"):
            parts.append("S" if category == "string" else category)
            length += 1
            offsets.append([length - 1, offset])
            offset += len(value) - 1
        elif category == "O":
            parts.append("O")
            length += 1
            offsets.append([length - 1, len(value) - 1])  # copydetect's own figure for a class name, kept
            offset += len(value) - 1
        elif category == "drop":
            offsets.append([length - 1, offset])
            offset += len(value)
        else:
            parts.append(value)
            length += len(value)
    return "".join(parts), np.array(offsets)


def lex(text: str, kind: str) -> tuple[str, np.ndarray]:
    """``text`` as compared and copydetect's offsets back into it: filtered Python for code, words lower-cased
    and single-spaced for an answer (no offsets: the answer is shown as compared)."""
    if kind == ANSWER:
        return " ".join(text.lower().split()), np.array([])
    return filter_python(text)


def _lex_code(text: str) -> tuple[str, np.ndarray]:
    return lex(text, CODE)


def lex_all(texts: Sequence[str], kind: str, workers: int | None = None) -> list[tuple[str, np.ndarray]]:
    """``lex`` of every text, in order, each distinct text once (an untouched starter region is common); code
    in ``workers`` processes (default: the machine's cores) when there are at least ``PARALLEL_FROM`` texts."""
    distinct = list(dict.fromkeys(texts))
    if kind == ANSWER or len(distinct) < PARALLEL_FROM or workers == 1:
        done = [lex(text, kind) for text in distinct]
    else:
        workers = workers or os.cpu_count() or 1
        with ProcessPoolExecutor(workers) as pool:
            done = list(pool.map(_lex_code, distinct, chunksize=max(1, len(distinct) // (4 * workers))))
    found = dict(zip(distinct, done, strict=True))
    return [found[text] for text in texts]


@dataclass(frozen=True)
class Fingerprint:
    """One document's winnowed fingerprints, with the fields ``copydetect.compare_files`` reads: ``k`` (the
    shortest match), ``hashes`` (the set kept), ``hash_idx`` (hash -> its positions in ``filtered_code``),
    ``token_coverage`` (characters of ``filtered_code`` under a kept window), ``offsets`` (copydetect's map back
    to ``raw_code``)."""

    raw_code: str
    filtered_code: str
    offsets: np.ndarray
    k: int
    hashes: set[int]
    hash_idx: dict[int, list[int]]
    token_coverage: float


_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def window_hashes(filtered: str, k: int) -> np.ndarray:
    """A hash of every ``k``-character window of ``filtered`` (int64, one per start position), the same in every
    process and run: copydetect hashes with Python's ``hash``, which is salted per process, so its winnowing picks
    other windows on every run and a score moves by several points; this is a polynomial hash with a splitmix64
    finish instead."""
    codes = np.frombuffer(filtered.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if len(codes) < k:
        return np.array([], dtype=np.int64)
    with np.errstate(over="ignore"):  # arithmetic modulo 2**64 is the point
        powers = np.cumprod(np.full(k, 1_000_003, dtype=np.uint64))[::-1]
        value = (np.lib.stride_tricks.sliding_window_view(codes, k) * powers).sum(axis=1, dtype=np.uint64)
        value ^= value >> np.uint64(30)
        value *= _MIX[0]
        value ^= value >> np.uint64(27)
        value *= _MIX[1]
        value ^= value >> np.uint64(31)
    return value.view(np.int64)


def fingerprint(text: str, lexed: tuple[str, np.ndarray], k: int, window: int, boilerplate: np.ndarray) -> Fingerprint:
    """The winnowed fingerprints of ``text`` already lexed as ``lexed`` (copydetect's ``winnow``), without the
    ``boilerplate`` hashes (sorted)."""
    filtered, offsets = lexed
    hashes, positions = winnow(window_hashes(filtered, k), window, remove_duplicates=False)
    keep = np.ones(len(hashes), dtype=bool)
    if len(boilerplate):  # sorted: a binary search per hash, not a sort per document
        found = np.minimum(np.searchsorted(boilerplate, hashes), len(boilerplate) - 1)
        keep = boilerplate[found] != hashes
    hash_idx: dict[int, list[int]] = {}
    for value, position in zip(hashes[keep].tolist(), positions[keep].tolist(), strict=True):
        hash_idx.setdefault(value, []).append(position)
    coverage = get_token_coverage(hash_idx, k, len(filtered))
    return Fingerprint(text, filtered, offsets, k, set(hash_idx), hash_idx, coverage)


@functools.lru_cache(maxsize=16)
def boilerplate_hashes(text: str, kind: str, k: int) -> np.ndarray:
    """Every ``k``-window hash of the boilerplate ``text`` (not only those winnowing would keep), sorted; the
    provided code is every lab's boilerplate, so each text is lexed once per process."""
    return np.unique(window_hashes(lex(text, kind)[0], k)) if text else np.array([], dtype=np.int64)


def share_matrix(fingerprints: Sequence[Fingerprint]) -> np.ndarray:
    """``shares[a, b]``: the share of document ``a`` matched in document ``b``, as ``compare_files`` computes it
    (0 on the diagonal and for an empty document), for every pair at once."""
    n = len(fingerprints)
    shares = np.zeros((n, n))
    if n < 2:
        return shares
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
    boilerplate = np.unique(
        np.concatenate([boilerplate_hashes(part, documents.kind, k) for part in documents.boilerplate])
    )
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


def _pair(documents: ClassDocuments, first: str, second: str, one: Fingerprint, two: Fingerprint) -> Pair:
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
