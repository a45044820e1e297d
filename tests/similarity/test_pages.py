"""The side-by-side page and the report's section: hostile names and code escaped, nothing active."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np

from workbook.page_policy import POLICY
from workbook.similarity.detect import LabComparison, Pair
from workbook.similarity.findings import NOTICE, Findings
from workbook.similarity.pages import pair_page, write_section
from workbook.similarity.settings import Settings
from workbook.similarity.spans import Span

HOSTILE = "<script>alert(1)</script>"
CODE = f"x = 1\ny = '{HOSTILE}'\nz = 3\n"


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(page: str) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(page)
    return parser.tags


PAIR = Pair(3, "code", f"ann{HOSTILE}", "bob", 1.0, 0.5, (Span(2, 3),), (Span(1, 1),), (CODE, CODE))


def test_the_page_escapes_everything_and_forbids_scripts():
    page = pair_page(PAIR)
    found = tags(page)
    assert "script" not in {tag for tag, _ in found} and HOSTILE not in page
    assert ("meta", {"http-equiv": "Content-Security-Policy", "content": POLICY}) in found
    marked = [attrs for tag, attrs in found if tag == "span" and attrs.get("class") == "line match"]
    assert len(marked) == 3  # lines 2 and 3 on the left, line 1 on the right
    assert "100% matched" in page and "50% matched" in page and NOTICE in page


def test_the_section_links_each_pair_to_its_page(tmp_path):
    comparison = LabComparison(3, "code", ("ann", "bob"), np.array([1.0]), (PAIR,), {})
    section = write_section(Findings(Settings(), (comparison,)), tmp_path)
    links = [attrs["href"] for tag, attrs in tags(section) if tag == "a"]
    assert links == ["similarity/lab3-code-001.html"] and HOSTILE not in section
    assert (tmp_path / "similarity" / "lab3-code-001.html").read_text() == pair_page(PAIR)
    assert (tmp_path / "similarity" / "scores.png").stat().st_size > 1000
    empty = write_section(Findings(Settings(), ()), tmp_path / "empty")
    assert "No pair reaches the threshold." in empty


def test_a_group_of_three_is_shown_once_and_an_unreadable_file_is_named(tmp_path):
    names = ("ann", "bob", "cy")
    pairs = tuple(
        Pair(1, "code", first, second, 0.9, 0.9, (Span(1, 1),), (Span(1, 1),), (CODE, CODE))
        for first, second in (("ann", "bob"), ("ann", "cy"), ("bob", "cy"))
    )
    comparison = LabComparison(1, "code", names, np.array([0.9, 0.9, 0.9]), pairs, {"dan": "UnicodeDecodeError: x"})
    section = write_section(Findings(Settings(), (comparison,)), tmp_path)
    assert section.count("<li>ann, bob, cy</li>") == 1
    assert "<li>dan, lab 1 code: UnicodeDecodeError: x</li>" in section
    assert sorted(path.name for path in (tmp_path / "similarity").glob("*.html")) == [
        "lab1-code-001.html",
        "lab1-code-002.html",
        "lab1-code-003.html",
    ]
