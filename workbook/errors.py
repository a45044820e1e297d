"""The workbook's own error, in a module that imports nothing, so every command can raise it and the
command line can catch it without loading nbgrader."""

from __future__ import annotations


class CourseError(RuntimeError):
    """A course directory is missing, already built, or an nbgrader step failed; the message says which."""
