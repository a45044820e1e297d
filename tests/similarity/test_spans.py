"""Matching slices as lines, and the groups of students sharing one implementation."""

from __future__ import annotations

import numpy as np

from workbook.similarity.clusters import clusters
from workbook.similarity.spans import Span, covered_lines, line_spans

TEXT = "one\ntwo\nthree\nfour\nfive\n"  # line starts at 0, 4, 8, 14, 19


def test_slices_become_merged_line_spans():
    slices = np.array([[0, 9, 15], [6, 12, 23]])  # lines 1-2, 3, 4-5
    assert line_spans(TEXT, slices) == (Span(1, 5),)
    assert line_spans(TEXT, np.array([[0, 19], [3, 23]])) == (Span(1, 1), Span(5, 5))
    assert line_spans(TEXT, np.array([[], []])) == () and line_spans(TEXT, np.array([])) == ()
    assert str(Span(2, 4)) == "2-4" and str(Span(3, 3)) == "3"
    assert covered_lines((Span(1, 2), Span(5, 5))) == {1, 2, 5}


def test_three_or_more_joined_students_are_one_group():
    pairs = [("ann", "bob"), ("cat", "bob"), ("dan", "eve"), ("fay", "gus"), ("gus", "hal"), ("hal", "fay")]
    assert clusters(pairs) == [("ann", "bob", "cat"), ("fay", "gus", "hal")]
    assert clusters([("ann", "bob")]) == []
