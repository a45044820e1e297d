"""The student's red/green light, and the guard that keeps demo cells from stopping "Run All".

``show_status(n)`` first makes sure the kernel runs lab ``n``'s files as saved (``saved.sync``: each
compiles, and one that differs from the loaded code is reloaded); a file that does not compile is red,
naming the file, the line and the message. Then it runs the lab's visible checks (the cases of the
notebook's test cells, ``checklist.run_checklist``) and shows them all as a checklist in one box: green
when every one passes; red naming the lab while it raises its own ``LabNotImplementedError``, "blocked by
lab k" when it stops at an earlier lab's, or how many pass, each failure saying what was called, what
came back and what was expected; a lab that uses others says what they ran on: the student's own labs, or
the course's answers for a lab not done yet (``checking.answers``). The box ends with how the lab's points
split: visible checks, hidden tests (run when your work is graded) and the written answer, read from the
notebook's grade cells, and points to ``workbook check``, where every lab stands at once.
``show_progress()`` shows one line for each of the five labs. ``demo()`` wraps a demo cell: an error is
shown in red instead of raised. Autograder test cells do not use ``demo()``: they must raise.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from IPython.display import HTML, display

from ..labs import LABS, Lab, lab
from ..messages import say
from ..messages import title as lab_title
from .checklist import Checklist, run_checklist
from .saved import PACKAGE_DIR, sync
from .views import error_box, status_box

MARKS = {"passed": "✓", "not started": "○"}
"""How the checklist marks a case by its verdict's status (any other status is a failure: ✗)."""


@dataclass(frozen=True)
class Status:
    """Where a lab stands: ``state`` is ``done``, ``not_implemented``, ``blocked``, ``wrong`` or ``broken`` (a
    saved file does not compile or cannot be loaded); ``title`` is one line, ``detail`` what to do next or
    the problem, ``checklist`` the visible checks (None when they could not run), ``reloaded`` the files
    the kernel had to reload, ``points`` how the lab's points split and ``excerpt`` the line of a problem
    (with a caret under the fault)."""

    lab: Lab
    state: str
    title: str
    detail: str = ""
    checklist: Checklist | None = None
    reloaded: tuple[str, ...] = ()
    points: str = ""
    excerpt: str = ""

    @property
    def green(self) -> bool:
        """True when every visible check passes."""
        return self.state == "done"


def lab_status(number: int) -> Status:
    """Sync lab ``number``'s saved files, run its visible checks and say where the lab stands (never raises
    for lab code)."""
    info = lab(number)
    name = say("lab_name", lab=number, title=lab_title(number), function=info.function, module=info.module)
    saved = sync(list(info.modules))
    reloaded = tuple(saved.reloaded)
    if saved.problems:
        first, _, excerpt = saved.problems[0].partition("\n")
        return Status(
            info,
            "broken",
            first,
            say("fix_and_save"),
            reloaded=reloaded,
            excerpt=excerpt,
        )
    checklist = run_checklist(number)
    points = points_sentence(info, {case.grade_id for case in checklist.cases})
    state = checklist.state
    if state == "broken":
        first, _, excerpt = checklist.problem.partition("\n")
        return Status(info, "broken", first, "", checklist, reloaded, points, excerpt)
    if state == "not started":
        return Status(
            info,
            "not_implemented",
            checklist.own[0][1].message,
            say("write_function", function=info.function, module=info.module),
            checklist,
            reloaded,
            points,
        )
    if state == "blocked":
        return Status(
            info,
            "blocked",
            f"{name}: {say('blocked_by', lab=checklist.waiting_for)}",
            say("meanwhile", message=checklist.own[0][1].message, alone=checklist.graded_alone()),
            checklist,
            reloaded,
            points,
        )
    title = f"{name}: {checklist.counts()}"
    detail = checklist.checked_on()
    return Status(info, "done" if state == "passed" else "wrong", title, detail, checklist, reloaded, points)


def checklist_lines(checklist: Checklist) -> list[str]:
    """One line per visible check: its mark (✓, ✗ or ○ not started), grade cell, name and call; a failure
    adds what came back and what was expected."""
    lines = []
    for case, verdict in zip(checklist.cases, checklist.verdicts, strict=True):
        line = f"{MARKS.get(verdict.status, '✗')} {case.grade_id} · {case.name}: {case.call}"
        if verdict.status not in MARKS:
            line += f"\n      {verdict.message}"
        lines.append(line)
    return lines


@dataclass(frozen=True)
class PointSplit:
    """A lab notebook's points: visible checks, hidden tests and written (hand-graded) answers, each with
    its number of cells, and the extra credit of its extra-credit test cells, outside those points."""

    visible: tuple[float, int]
    hidden: tuple[float, int]
    written: tuple[float, int]
    extra: tuple[float, int] = (0.0, 0)


def grade_cells(notebook: Path) -> list[dict] | None:
    """The nbgrader grade cells of ``notebook`` (a notebook file, read as JSON), or None when it cannot be read."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    return [cell for cell in cells if cell.get("metadata", {}).get("nbgrader", {}).get("grade")]


def extra_credit_of(cell: dict) -> float | None:
    """A grade cell's extra credit (``workbook.extra_credit`` in its metadata; nbgrader's points are then 0), or
    None for a cell of the lab's own points."""
    extra = cell.get("metadata", {}).get("workbook", {}).get("extra_credit")
    return None if extra is None else float(extra)


def cell_points(notebook: Path, grade_id: str) -> float | None:
    """The points of ``grade_id``'s cell in ``notebook`` (its extra credit for a Going-further cell), or None when
    the notebook cannot be read or has no such cell."""
    for cell in grade_cells(notebook) or []:
        if cell["metadata"]["nbgrader"].get("grade_id") == grade_id:
            extra = extra_credit_of(cell)
            return float(cell["metadata"]["nbgrader"].get("points", 0)) if extra is None else extra
    return None


def point_split(notebook: Path, visible_grade_ids: Iterable[str]) -> PointSplit | None:
    """How ``notebook``'s points split, from its nbgrader grade cells: test cells with visible checks
    (``visible_grade_ids``), the other test cells (hidden tests only), and answers graded by hand; a cell
    with extra credit (``workbook.extra_credit`` in its metadata, nbgrader points 0) counts apart. None when
    the notebook cannot be read."""
    cells = grade_cells(notebook)
    if cells is None:
        return None
    visible, groups = set(visible_grade_ids), {"visible": [], "hidden": [], "written": [], "extra": []}
    for cell in cells:
        grading = cell["metadata"]["nbgrader"]
        extra = extra_credit_of(cell)
        if extra is not None:
            groups["extra"].append(extra)
            continue
        kind = (
            "written"
            if grading.get("solution") or cell.get("cell_type") != "code"
            else "visible"
            if grading.get("grade_id") in visible
            else "hidden"
        )
        groups[kind].append(float(grading.get("points", 0)))
    return PointSplit(**{kind: (sum(points), len(points)) for kind, points in groups.items()})


def points_sentence(info: Lab, visible_grade_ids: Iterable[str]) -> str:
    """``"Visible checks: 5 points (3 cells). Hidden tests: 3 points (3 cells), run when your work is graded.
    Written answer: 2 points, graded by hand."``, then the extra credit if the lab has any, from the lab's
    notebook beside the package folder."""
    split = point_split(PACKAGE_DIR.parent / info.notebook, visible_grade_ids)
    if split is None:
        return say("points_unknown")
    visible, hidden, written, extra = (
        say("points_cells", points=_number(points), s="s" * (points != 1), cells=cells, cs="s" * (cells != 1))
        for points, cells in (split.visible, split.hidden, split.written, split.extra)
    )
    return say("points", visible=visible, hidden=hidden, written=written) + (
        say("points_extra", extra=extra) if split.extra[1] else ""
    )


def _number(points: float) -> str:
    return str(int(points)) if points == int(points) else str(points)


def show_status(number: int) -> None:
    """Display lab ``number``'s status: one green or red box with the checklist of its visible checks."""
    status = lab_status(number)
    notes = [say("reloaded", name=name) for name in status.reloaded]
    detail = "\n".join(part for part in (status.detail, *notes) if part)
    items = status.excerpt.splitlines() or (checklist_lines(status.checklist) if status.checklist else [])
    footer = " ".join(part for part in (status.points, say("overview_hint")) if part)
    display(HTML(status_box(status.green, status.title, detail, items, footer)))


def show_progress() -> None:
    """Display the status of all five labs, one box each, in order."""
    display(HTML("".join(status_box(s.green, s.title) for s in map(lab_status, (x.number for x in LABS)))))


@contextlib.contextmanager
def demo() -> Iterator[None]:
    """Run a demo cell's body; show any error in a red box instead of raising it.

    ``with demo(): show_groups(group_interactions(entries))`` keeps "Run All" going past a lab
    that is not written yet, while the box still says which lab and file to open.
    """
    try:
        yield
    except Exception as error:  # shown to the student, who decides what to fix
        display(HTML(error_box(error)))
