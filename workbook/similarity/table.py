"""``workbook similarity``'s printed report: one table row per flagged pair, then the groups and the notice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from workbook.course.layout import Course
from workbook.errors import CourseError
from workbook.similarity.findings import NOTICE, Findings, find_similar
from workbook.similarity.settings import Settings, SimilarityError

if TYPE_CHECKING:  # rich is imported when the report is printed
    from rich.console import Console
    from rich.table import Table


def findings_table(findings: Findings) -> Table:
    """The flagged pairs: lab, what (code or answer), the two students, score, each side's share and lines."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"similar pairs (score at least {findings.settings.threshold:.0%})")
    for header in ("lab", "what", "students", "score", "shares", "matching lines"):
        table.add_column(header)
    for pair in findings.flagged():
        lines_first = ", ".join(map(str, pair.spans_first))
        lines_second = ", ".join(map(str, pair.spans_second))
        table.add_row(
            str(pair.lab),
            pair.kind,
            escape(f"{pair.first}\n{pair.second}"),
            f"{pair.score:.0%}",
            f"{pair.share_first:.0%}\n{pair.share_second:.0%}",
            f"{lines_first}\n{lines_second}",
        )
    return table


def print_findings(console: Console, course: Course, labs: Sequence[int] | None, threshold: float) -> Findings:
    """Compare ``course``'s students (all labs or ``labs``) and print the pairs at or above ``threshold``, the
    groups of three or more, the students whose files could not be read, and ``NOTICE``. ``CourseError`` for a
    bad threshold or lab (its message names it) and a folder that is not a course."""
    from rich.markup import escape

    try:
        findings = find_similar(course, labs, Settings(threshold=threshold))
    except SimilarityError as error:
        raise CourseError(str(error)) from error
    if findings.flagged():
        console.print(findings_table(findings))
    else:
        console.print("no pair reaches the threshold")
    for comparison in findings.comparisons:
        for group in findings.groups(comparison):
            console.print(f"group, lab {comparison.lab} {comparison.kind}: {escape(', '.join(group))}", highlight=False)
    for where, reason in findings.unreadable().items():
        console.print(f"[yellow]unreadable: {escape(where)}: {escape(reason)}[/]", highlight=False)
    console.print(NOTICE, highlight=False)
    return findings
