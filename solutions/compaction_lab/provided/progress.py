"""The student's red/green light, and the guard that keeps demo cells from stopping "Run All".

``show_status(n)`` runs lab ``n``'s function on the running example and shows one box:
green when the example's result is right; red naming the lab while it raises its own
``LabNotImplementedError``; red "blocked by lab k" when it stops at an earlier lab's; red
"called X, got Y, expected Z" when the result is wrong. ``show_progress()`` does it for all
five labs. ``demo()`` wraps a demo cell: an error is shown in red instead of raised.
Autograder test cells do not use ``demo()``: they must raise.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from IPython.display import HTML, display

from .. import budget, compaction, grouping, records, resumption
from .checks import entry_ids, expect, expect_shares_nothing, group_ids
from .errors import LabNotImplementedError
from .example import example_entries, example_summary
from .labs import LABS, Lab, lab
from .scenarios import compacted_path, compaction_object, example_options
from .views import error_box, status_box

EXAMPLE_GROUPS = [["u1", "a1"], ["u2", "a2"], ["u3", "calls", "r-test", "r-read", "a3"]]
"""The example's three interactions, by entry id."""


def _check_lab1() -> None:
    stored = compaction_object("compact-1", "a3", "u2")
    entry = records.parse_session_entry(stored)
    expect(entry, stored, "parse_session_entry(compact-1)")
    expect_shares_nothing(entry, stored, "parse_session_entry(compact-1)")


def _check_lab2() -> None:
    groups = grouping.group_interactions(example_entries())
    expect(group_ids(groups), EXAMPLE_GROUPS, "group_interactions(example_entries())")


def _check_lab3() -> None:
    context = budget.build_context(example_entries(), example_options(max_tokens=31))
    call = "build_context(example_entries(), example_options(max_tokens=31))"
    expect(context.kept_entry_ids, ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"], f"{call}.kept_entry_ids")
    expect(context.reason, "trimmed", f"{call}.reason")
    expect(budget.TokenLedger(31, 3, 22, 4, 2, 22, 31), context.tokens, f"{call}.tokens")


def _check_lab4() -> None:
    entry = compaction.create_compaction_entry(
        example_entries(), id="compact-1", timestamp=100, summary=example_summary(),
        first_kept_entry_id="u2", tokens_before=29)
    expect(entry, compaction_object("compact-1", "a3", "u2"), "create_compaction_entry(example, id='compact-1', ...)")


def _check_lab5() -> None:
    start = resumption.resume_point(compacted_path())
    call = "resume_point(compacted_path())"
    expect((start.compaction_id, entry_ids(start.entries)),
           ("compact-1", ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]), f"{call} (compaction_id, entry ids)")
    expect(start.summary_message, resumption.summary_message(example_summary()), f"{call}.summary_message")
    context = budget.build_context(compacted_path(), example_options(max_tokens=43))
    call = "build_context(compacted_path(), example_options(max_tokens=43))"
    expect((context.reason, context.tokens.messages, len(context.messages)), ("complete", 33, 8),
           f"{call} (reason, message tokens, number of messages)")


EXAMPLE_CHECKS: dict[int, Callable[[], None]] = {
    1: _check_lab1, 2: _check_lab2, 3: _check_lab3, 4: _check_lab4, 5: _check_lab5,
}
"""Lab number -> a check that raises unless the lab gives the running example's result."""


@dataclass(frozen=True)
class Status:
    """Where a lab stands: ``state`` is ``done``, ``not_implemented``, ``blocked`` or ``wrong``;
    ``title`` is one line naming the lab (for ``not_implemented``, the lab's own error message),
    ``detail`` what to do next or the error or assertion message."""

    lab: Lab
    state: str
    title: str
    detail: str = ""

    @property
    def green(self) -> bool:
        """True when the lab's example checks pass."""
        return self.state == "done"


def lab_status(number: int) -> Status:
    """Run lab ``number``'s example check and say where the lab stands (never raises for lab code)."""
    info = lab(number)
    name = f"Lab {number} ({info.title}), {info.function}() in compaction_lab/{info.module}.py"
    try:
        EXAMPLE_CHECKS[number]()
    except LabNotImplementedError as error:
        if error.lab == number:
            return Status(info, "not_implemented", str(error),
                          f"Write {info.function}() in compaction_lab/{info.module}.py, save the file, "
                          "and run this cell again.")
        return Status(info, "blocked", f"{name}: blocked by lab {error.lab}", str(error))
    except Exception as error:  # a student's bug of any kind is shown, not raised
        return Status(info, "wrong", f"{name}: wrong result on the running example",
                      f"{type(error).__name__}: {error}")
    return Status(info, "done", f"{name}: the running example passes")


def show_status(number: int) -> None:
    """Display lab ``number``'s status as a green or red box."""
    status = lab_status(number)
    display(HTML(status_box(status.green, status.title, status.detail)))


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
