"""The typed errors of the workbook.

Every error a lab raises for bad input is a ``ValueError`` subclass whose message names the
entry id or tool call id at fault (and, for records, the field path). ``LabNotImplementedError``
is the one a starter raises until the student has written a lab; ``UnrecordedCallError`` and
``CourseAnswerMismatch`` are what a lab not done yet raises while the course answers for it
(``checking/answers.py``).
"""

from __future__ import annotations

from .labs import lab
from .messages import not_implemented_in, say, title


class SessionEntryError(ValueError):
    """A session entry is malformed; the message names the entry id and the field path (lab 1)."""


class SessionStoreError(ValueError):
    """A store refused an operation: duplicate id, unknown parent, bad or torn JSONL line, cycle."""


class InteractionError(ValueError):
    """Messages cannot be grouped into interactions; the message names the entry or call id (lab 2)."""


class BudgetError(ValueError):
    """Budget options or an estimator result are not finite numbers >= 0 (lab 3)."""


class CompactionError(ValueError):
    """A compaction entry cannot be created or resumed from (labs 4, 5), or ``compact`` failed (lab 4, going
    further); the message names the id. ``code`` is ``None`` for the first two, else a stable failure code of
    ``compact``: ``boundary_unavailable``, ``summarizer_failed``, ``summary_lost_facts``, ``cancelled`` or
    ``over_budget``."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class LabNotImplementedError(NotImplementedError):
    """Raised by a starter's lab region until the student implements it.

    ``.lab`` is the lab number (1 to 5) and ``.function`` the function name. The message says
    which lab, which function and which notebook to open, e.g. ``Lab 3 (budget projection):
    build_context() is not implemented yet; see 03_budget_projection.ipynb``, in the workspace's
    language (``messages``). The notebook is named without a folder: a student's notebooks sit
    beside their ``compaction_lab/`` folder.
    """

    def __init__(self, lab_number: int, function: str) -> None:
        info = lab(lab_number)
        self.lab = lab_number
        self.function = function
        super().__init__(
            say("not_implemented", lab=lab_number, title=title(lab_number), function=function, notebook=info.notebook)
        )

    def _render_traceback_(self) -> list[str]:  # IPython's hook: the message alone, which says what to do
        return [f"{type(self).__name__}: {self}"]

    @staticmethod
    def named_in(message: str) -> tuple[int, str] | None:
        """The lab number and function a ``LabNotImplementedError`` message in any language names
        (``(3, "replay")``), or None."""
        return not_implemented_in(message)


class UnrecordedCallError(LabNotImplementedError):
    """Raised by a lab not done yet that the course answers for (``checking/answers.py``) when it is called on an
    input the course recorded no answer for: finish that lab to check this call.

    A ``LabNotImplementedError`` (a check it stops reads "not started"); the message says which lab to finish, e.g.
    ``Lab 1 (record parsing): parse_compaction_entry() is not done yet, and the course's code never makes this
    call on these inputs, so it has no answer for it; finish lab 1 to check it (see 01_record_parsing.ipynb)``.
    """

    def __init__(self, lab_number: int, function: str) -> None:
        info = lab(lab_number)
        self.lab = lab_number
        self.function = function
        NotImplementedError.__init__(
            self,
            say("unrecorded_call", lab=lab_number, title=title(lab_number), function=function, notebook=info.notebook),
        )


class CourseAnswerMismatch(Exception):
    """Raised by a lab not done yet that the course answers for, when its answer holds only for the course's
    answer of a call it makes into your code (``build_context`` calling your ``resume_point``) and your code
    answered otherwise; the message names both functions."""
