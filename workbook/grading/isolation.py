"""Which sandbox a course's student code gets: the course config's isolation mode on this machine."""

from __future__ import annotations

from workbook.course.config import SANDBOXED_EXECUTE
from workbook.course.layout import Course
from workbook.grading.sandbox import Isolation, SandboxUnavailable, detect


def course_isolation(course: Course, mode: str | None = None) -> Isolation:
    """``sandbox.detect`` of ``mode``, or of the course config's ``SandboxKernelManager.isolation`` (``auto``
    if unset). A course config older than the sandbox (nbgrader's own ``Execute``) gives none. Raises
    ``SandboxUnavailable`` when that is ``required`` and this machine or the course config cannot sandbox."""
    config = course.config()
    mode = mode or config.SandboxKernelManager.get("isolation", "auto")
    if SANDBOXED_EXECUTE not in map(str, config.Autograde.get("autograde_preprocessors", [])) and mode != "off":
        why = f"{course.config_file} predates the sandbox; `workbook build --force` rewrites it, keeping submissions"
        if mode == "required":
            raise SandboxUnavailable(f"cannot sandbox student code: {why}")
        return Isolation(reason=why)
    return detect(mode)
