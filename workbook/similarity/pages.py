"""The similarity section of the cohort report, a histogram of pair scores, and a side-by-side page per pair.

Student code and answers are hostile input: every character of them is escaped, and each page forbids scripts,
frames and remote loads with its Content-Security-Policy (inline styles and data: images only). Page file names
are numbered, never made from a student's name.
"""

from __future__ import annotations

import html
from pathlib import Path

from workbook.page_policy import policy_meta
from workbook.similarity.detect import LabComparison, Pair
from workbook.similarity.findings import NOTICE, Findings
from workbook.similarity.sources import CODE
from workbook.similarity.spans import covered_lines

"""Nothing runs and nothing loads: inline styles and data: images only."""
FOLDER = "similarity"
"""The report's subfolder holding the pair pages and the histogram."""
STYLE = (
    "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}"
    ".sides{display:grid;grid-template-columns:1fr 1fr;gap:1em}pre{margin:0;font-size:12px;white-space:pre-wrap}"
    ".line{display:block}.match{background:#ffe08a}.number{color:#888;user-select:none}img{max-width:100%}"
)
KIND_WORDS = {CODE: "code", "answer": "written answer"}


def head(title: str) -> str:
    """An HTML page's head: the project's Content-Security-Policy first (``workbook.page_policy``),
    then the charset, the title and the style."""
    return (
        f"<!doctype html><html><head>{policy_meta()}<meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
    )


def numbered(text: str, spans: set[int]) -> str:
    """``text`` as escaped, numbered lines, those in ``spans`` (line numbers) marked ``match``."""
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        css = "line match" if number in spans else "line"
        lines.append(f"<span class='{css}'><span class='number'>{number:4} </span>{html.escape(line)}</span>")
    return "<pre>" + "".join(lines) + "</pre>"


def pair_page(pair: Pair) -> str:
    """The side-by-side page of ``pair``: both documents, the matching lines highlighted."""
    title = f"lab {pair.lab} {KIND_WORDS[pair.kind]}: {pair.first} and {pair.second}"
    sides = []
    for name, share, spans, text in (
        (pair.first, pair.share_first, pair.spans_first, pair.texts[0]),
        (pair.second, pair.share_second, pair.spans_second, pair.texts[1]),
    ):
        lines = ", ".join(str(span) for span in spans)
        sides.append(
            f"<div><h2>{html.escape(name)}: {share:.0%} matched</h2><p>lines {html.escape(lines)}</p>"
            f"{numbered(text, covered_lines(spans))}</div>"
        )
    return (
        f"{head(title)}<body><h1>{html.escape(title)}</h1><p>{html.escape(NOTICE)}</p>"
        f"<p><a href='../index.html'>back to the report</a></p><div class='sides'>{''.join(sides)}</div>"
        "</body></html>\n"
    )


def page_name(comparison: LabComparison, rank: int) -> str:
    """The file name of the ``rank``-th (1-based) flagged pair of ``comparison``."""
    return f"lab{comparison.lab}-{comparison.kind}-{rank:03d}.html"


def plot_scores(findings: Findings, path: Path) -> Path:
    """A PNG of one histogram of pair scores per lab compared (code), with the threshold as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    code = [comparison for comparison in findings.comparisons if comparison.kind == CODE]
    figure, axes = plt.subplots(1, max(1, len(code)), figsize=(3 * max(1, len(code)), 2.6), squeeze=False)
    for axis, comparison in zip(axes[0], code, strict=False):
        axis.hist(comparison.scores, bins=[step / 20 for step in range(21)], color="#4c72b0", edgecolor="white")
        axis.axvline(findings.settings.threshold, color="#c44e52", linestyle="--")
        if len(comparison.scores) and comparison.scores.max() > 0:
            axis.set_yscale("log")  # the many ordinary pairs would flatten the few high ones
        count = len(comparison.scores)
        axis.set_title(f"lab {comparison.lab}: {count} pair{'' if count == 1 else 's'}")
        axis.set_xlabel("pair score")
    axes[0][0].set_ylabel("pairs")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def write_section(findings: Findings, report: Path) -> str:
    """Write the pair pages and the histogram under ``report/similarity/``; return the report's section (HTML,
    links relative to ``report/``)."""
    folder = report / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    plot_scores(findings, folder / "scores.png")
    settings = findings.settings
    parts = [
        "<h2 id='similarity'>Similarity</h2>",
        f"<p>{html.escape(NOTICE)}</p>",
        f"<p>Flagged: a pair whose score (the larger of the two shares of matched code) is at least "
        f"{settings.threshold:.0%}; matches shorter than {settings.min_match} characters of filtered code "
        f"({settings.answer_min_match} of an answer's text), and the starter and provided code, never count.</p>",
        f'<img src="{FOLDER}/scores.png" alt="histogram of pair scores per lab, the threshold dashed">',
    ]
    for comparison in findings.comparisons:
        rows = []
        for rank, pair in enumerate(comparison.flagged, start=1):
            name = page_name(comparison, rank)
            (folder / name).write_text(pair_page(pair), encoding="utf-8")
            rows.append(
                f"<tr><td><a href='{FOLDER}/{name}'>{html.escape(pair.first)} and {html.escape(pair.second)}</a>"
                f"</td><td>{pair.score:.0%}</td><td>{pair.share_first:.0%}</td><td>{pair.share_second:.0%}</td></tr>"
            )
        if not rows:
            continue
        parts.append(f"<h3>Lab {comparison.lab}, {KIND_WORDS[comparison.kind]}</h3>")
        groups = findings.groups(comparison)
        if groups:
            items = "".join(f"<li>{html.escape(', '.join(group))}</li>" for group in groups)
            parts.append(f"<p>Groups sharing one implementation:</p><ul>{items}</ul>")
        parts.append(
            "<table><tr><th>pair</th><th>score</th><th>share of the first</th><th>share of the second</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    if not findings.flagged():
        parts.append("<p>No pair reaches the threshold.</p>")
    unreadable = findings.unreadable()
    if unreadable:
        items = "".join(f"<li>{html.escape(where)}: {html.escape(why)}</li>" for where, why in unreadable.items())
        parts.append(f"<p>Not compared (the file could not be read):</p><ul>{items}</ul>")
    return "".join(parts)
