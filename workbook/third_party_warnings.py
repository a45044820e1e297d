"""The one third-party warning the workbook silences, narrowly, in its own processes.

nbgrader 0.9.6's ``Gradebook.add_submission`` (run by every autograde) builds a
``SubmittedAssignment`` and its ``SubmittedNotebook`` objects linked to rows already in the session
and reads their relationships before it adds them. SQLAlchemy 2.x no longer cascades such objects
into the session through the backref, so its autoflush warns, e.g. "Object of type
<SubmittedAssignment> not in session, add operation along 'Student.submissions' will not proceed".
nbgrader adds the new submission right after (``db.add``, which cascades to its notebooks and
grades) and commits, so nothing is lost: the demo and autograde tests read every submission's
grades back. The warning is nbgrader's to fix; until then it only fills each autograde log.
nbgrader supports ``sqlalchemy>=1.4,<3``, so SQLAlchemy is not pinned. pyproject.toml's pytest
``filterwarnings`` holds the same filter for the tests.
"""

from __future__ import annotations

import warnings

NBGRADER_ADD_SUBMISSION_WARNING = (
    r"Object of type <Submitted(Assignment|Notebook)> not in session, "
    r"add operation along '\w+\.submissions' will not proceed"
)
"""The start of the warning's message (a regex, as ``warnings.filterwarnings`` takes it)."""


def ignore_nbgrader_add_submission_warning() -> None:
    """Ignore exactly that warning (an ``SAWarning``, matched by its message so that SQLAlchemy need not be
    imported yet), and only where nbgrader's ``nbgrader.api`` module raises it."""
    warnings.filterwarnings(
        "ignore", message=NBGRADER_ADD_SUBMISSION_WARNING, category=Warning, module=r"nbgrader\.api"
    )
